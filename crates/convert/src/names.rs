//! Names that carry what the importer needs when extras are gone (Blender's
//! default export drops them): which MSH node, which LOD/group, which material.
//!
//! - MSH node: its Res10 name. When that is empty, not unique, not UTF-8, or
//!   already ends like a suffix below, `#<index>` is appended (an unnamed node is
//!   just `#<index>`). The importer strips one trailing `#<digits>`.
//! - Slot node: `<node name>|L<lod>G<group>`, parented to its MSH node.
//! - Material: `mat<index>`.
//! - Names stay within 63 bytes (Blender truncates longer ones): the node part is
//!   cut at a character boundary, never the suffix.

/// Longest name Blender keeps.
pub const MAX_NAME: usize = 63;

/// The glTF names of the MSH nodes, and whether each needed its raw bytes kept.
pub fn node_names(raw: &[Option<&[u8]>]) -> Vec<(String, bool)> {
    let mut counts = std::collections::HashMap::new();
    for name in raw.iter().flatten() {
        *counts.entry(*name).or_insert(0usize) += 1;
    }
    raw.iter()
        .enumerate()
        .map(|(i, name)| {
            let bytes = name.unwrap_or(&[]);
            exported_name(bytes, i, counts.get(bytes) == Some(&1))
        })
        .collect()
}

/// The glTF name of MSH node `index` named `bytes` (`unique`: no other node
/// has that name), and whether its raw bytes must be kept.
fn exported_name(bytes: &[u8], index: usize, unique: bool) -> (String, bool) {
    let text = std::str::from_utf8(bytes).ok();
    let clean = text.filter(|t| {
        !t.is_empty()
            && unique
            && !has_index_suffix(t)
            && slot_suffix(t).is_none()
            && !t.chars().any(char::is_control)
    });
    match clean {
        Some(t) if t.len() <= MAX_NAME => (t.to_string(), false),
        Some(t) => (
            format!("{}#{index}", cut(t, MAX_NAME - 1 - digits(index))),
            true,
        ),
        None => {
            let lossy: String = String::from_utf8_lossy(bytes)
                .chars()
                .filter(|c| !c.is_control())
                .collect();
            let suffix = format!("#{index}");
            let keep_raw = text.is_none_or(|t| t.chars().any(char::is_control))
                || lossy.len() + suffix.len() > MAX_NAME;
            (
                format!("{}{suffix}", cut(&lossy, MAX_NAME - suffix.len())),
                keep_raw,
            )
        }
    }
}

/// Whether a node named `gltf_name` (in a file another tool wrote) still has
/// the name the export gave MSH node `index` whose raw name was `raw` (`None`:
/// unnamed): then the recorded raw name holds; otherwise the node was renamed.
pub fn keeps_exported_name(gltf_name: &str, raw: Option<&[u8]>, index: usize) -> bool {
    let name = strip_blender_suffix(gltf_name);
    let bytes = raw.unwrap_or(&[]);
    [true, false]
        .into_iter()
        .any(|unique| exported_name(bytes, index, unique).0 == name)
}

/// Longest slot node name. Blender gives a name that is taken another one:
/// `NAME.001` while that fits in [`MAX_NAME`] bytes, else NAME cut to 59
/// bytes, then that cut with `.001`, `.002`... (measured with bpy 4.2). A cut
/// loses the `|L<lod>G<group>` suffix, so slot node names stay within 59
/// bytes, where Blender's rename only appends `.NNN` (which the import removes).
pub const SLOT_NAME_MAX: usize = MAX_NAME - 4;

/// The name of the node holding slot `(lod, group)` of MSH node `index`,
/// whose glTF name is `owner` (unique among the model's nodes). A name too
/// long for [`SLOT_NAME_MAX`] is cut and keeps `#<index>` before the suffix,
/// so that two owners cut to one prefix still give two names (a name the
/// export gives that ends in `#<digits>` ends in its own index).
pub fn slot_node_name(owner: &str, index: usize, lod: u8, group: u8) -> String {
    let suffix = format!("|L{lod}G{group}");
    if owner.len() + suffix.len() <= SLOT_NAME_MAX {
        return format!("{owner}{suffix}");
    }
    let tag = format!("#{index}");
    let room = SLOT_NAME_MAX - suffix.len() - tag.len();
    format!("{}{tag}{suffix}", cut(owner, room))
}

/// The slot node name exports gave before slot node names were kept within
/// [`SLOT_NAME_MAX`] bytes: `owner` cut to fit [`MAX_NAME`] with the suffix;
/// `None` for a LOD or group out of range.
pub fn earlier_slot_node_name(owner: &str, lod: u8, group: u8) -> Option<String> {
    (lod <= 2 && group <= 4).then(|| {
        let suffix = format!("|L{lod}G{group}");
        format!("{}{suffix}", cut(owner, MAX_NAME - suffix.len()))
    })
}

/// Whether Blender (4.2) gives the name `name` to an object named `taken`
/// when that name is taken and longer than [`SLOT_NAME_MAX`] bytes: `taken`
/// cut to [`SLOT_NAME_MAX`] bytes at a character, or that with `.NNN`.
pub fn cut_by_blender(name: &str, taken: &str) -> bool {
    taken.len() > SLOT_NAME_MAX && strip_blender_suffix(name) == cut(taken, SLOT_NAME_MAX)
}

/// The name of the material for MSH material index `index`.
/// `repeat` numbers further batches of one index within a slot (`mat12#1`), so
/// that tools which merge primitives sharing a material (Blender) keep them apart.
pub fn material_name(index: u16, repeat: u16) -> String {
    if repeat == 0 {
        format!("mat{index}")
    } else {
        format!("mat{index}#{repeat}")
    }
}

/// The MSH material index a material name stands for (`mat12`, `mat12#1`, `mat12.001`).
pub fn material_index(name: &str) -> Option<u16> {
    let rest = name.strip_prefix("mat")?;
    let digits = rest.split(['.', '#']).next()?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// `(lod, group)` when a name ends in `|L<lod>G<group>` (optionally followed by Blender's `.NNN`).
pub fn slot_suffix(name: &str) -> Option<(u8, u8)> {
    let name = strip_blender_suffix(name);
    let tail = name.get(name.len().checked_sub(5)?..)?;
    let b = tail.as_bytes();
    (b[0] == b'|'
        && b[1] == b'L'
        && (b'0'..=b'2').contains(&b[2])
        && b[3] == b'G'
        && (b'0'..=b'4').contains(&b[4]))
    .then(|| (b[2] - b'0', b[4] - b'0'))
}

/// The MSH name a glTF node name stands for: one trailing `#<digits>` removed
/// (and Blender's `.NNN` duplicate suffix before it, if any).
pub fn node_name_from_gltf(name: &str) -> &str {
    let name = strip_blender_suffix(name);
    match name.rfind('#') {
        Some(at) if at + 1 < name.len() && name[at + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            &name[..at]
        }
        _ => name,
    }
}

fn has_index_suffix(t: &str) -> bool {
    node_name_from_gltf(t).len() != t.len() || strip_blender_suffix(t).len() != t.len()
}

/// `name` without a trailing `.NNN` (three digits), Blender's duplicate marker.
pub fn strip_blender_suffix(name: &str) -> &str {
    let b = name.as_bytes();
    if b.len() > 4 && b[b.len() - 4] == b'.' && b[b.len() - 3..].iter().all(u8::is_ascii_digit) {
        &name[..name.len() - 4]
    } else {
        name
    }
}

fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

fn digits(i: usize) -> usize {
    i.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_reversible_and_short() {
        let long = "x".repeat(80);
        let raw: Vec<Option<&[u8]>> = vec![
            Some(b"turret"),
            Some(b"wheel"),
            Some(b"wheel"),
            None,
            Some(b"gun#2"),
            Some(long.as_bytes()),
            Some(b"a|L0G1"),
            Some(b"\xff\xfe"),
            Some(b"body.001"),
        ];
        let names = node_names(&raw);
        let texts: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            &texts[..5],
            ["turret", "wheel#1", "wheel#2", "#3", "gun#2#4"]
        );
        assert!(texts.iter().all(|t| t.len() <= MAX_NAME));
        let unique: std::collections::HashSet<_> = texts.iter().collect();
        assert_eq!(unique.len(), texts.len());
        for (i, (name, keep_raw)) in names.iter().enumerate() {
            let back = node_name_from_gltf(name);
            if !keep_raw {
                assert_eq!(back.as_bytes(), raw[i].unwrap_or(&[]), "{name}");
            }
        }
        assert!(
            names[5].1 && names[7].1,
            "long and non-UTF-8 names keep their raw bytes"
        );
        assert_eq!(node_name_from_gltf("wheel#2.001"), "wheel");
        assert_eq!(slot_suffix("turret|L2G4.003"), Some((2, 4)));
        assert_eq!(slot_suffix("turret|L3G0"), None);
        assert_eq!(
            slot_node_name(&"y".repeat(70), 7, 1, 2).len(),
            SLOT_NAME_MAX
        );
        assert_eq!(material_index("mat12.001"), Some(12));
        assert_eq!(material_index("mat12#2"), Some(12));
        assert_eq!(material_name(12, 2), "mat12#2");
        assert_eq!(material_index("Material"), None);
    }

    /// Seed 1 of the wild soak, g0011: two nodes named with 64-200 `L`s
    /// (`LLL…#0`, `LLL…#4`) each with a slot at L2G4. Cut to one prefix, their
    /// slot nodes had one 63-byte name; Blender named the second the first 59
    /// bytes (`LLL…L|`), which the import no longer took for a slot node.
    #[test]
    fn slot_node_names_of_long_owners_are_unique_and_survive_blender_renames() {
        let long = "L".repeat(120);
        let n63 = "n".repeat(63);
        let m63 = format!("{}m", "n".repeat(62));
        let raw: Vec<Option<&[u8]>> = vec![
            Some(long.as_bytes()),
            Some(long.as_bytes()),
            Some(n63.as_bytes()),
            Some(m63.as_bytes()),
            Some(b"turret"),
        ];
        let owners = node_names(&raw);
        let mut seen = std::collections::HashSet::new();
        for (i, (owner, _)) in owners.iter().enumerate() {
            for (lod, group) in [(0, 0), (2, 4)] {
                let name = slot_node_name(owner, i, lod, group);
                assert!(name.len() <= 59, "{name}: {} bytes", name.len());
                assert!(seen.insert(name.clone()), "{name} given twice");
                // Blender's rename of a taken name of 59 bytes or less.
                assert_eq!(slot_suffix(&format!("{name}.001")), Some((lod, group)));
            }
        }
        // Short owners keep the plain form.
        assert_eq!(slot_node_name("turret", 4, 2, 4), "turret|L2G4");
        assert_eq!(
            slot_node_name(&"y".repeat(54), 3, 0, 1),
            format!("{}|L0G1", "y".repeat(54))
        );
        assert_eq!(
            slot_node_name(&"y".repeat(55), 3, 0, 1),
            format!("{}#3|L0G1", "y".repeat(52))
        );
        // Blender 4.2's names for a second and third object named a taken
        // 63-byte name (measured): its first 59 bytes (at a character), then
        // that with `.001`.
        let taken = earlier_slot_node_name(&long, 2, 4).unwrap();
        assert_eq!(taken, format!("{}|L2G4", "L".repeat(58)));
        let second = format!("{}|", "L".repeat(58));
        assert!(cut_by_blender(&second, &taken));
        assert!(cut_by_blender(&format!("{second}.001"), &taken));
        assert!(!cut_by_blender(&format!("{taken}.001"), &taken));
        assert!(!cut_by_blender("turret", "turret|L2G4"));
        let wide = format!("{}\u{430}", "C".repeat(61));
        assert!(cut_by_blender(&"C".repeat(59), &wide));
        assert_eq!(earlier_slot_node_name("turret", 3, 0), None);
    }
}
