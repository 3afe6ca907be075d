//! Tier 2, with real Blender (bpy 4.2, installed by scripts/setup-blender.sh):
//! our export -> Blender import -> Blender export -> our import, for a subset of
//! the corpus, with Blender's default export settings and with "Custom
//! Properties" on and "Always Sample Animations" off. Checks: strict validation;
//! node names, hierarchy and rest poses; per node, LOD/group and material the
//! same triangles (positions within 1e-5, UVs within 1/1024, normals within
//! 1/127); each node's pose at every integer frame within one i16 step
//! (rotation) and 1e-4 (translation); with custom properties, the node order and
//! the unknown per-node, per-slot and per-batch fields too.

mod common;

use msh::{Mode, ModelRef};
use mshconv_gltf::{gltf_to_msh, msh_to_gltf};
use mshconv_gltf::{ExportOptions, ImportOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The import's options when the file is written over `original`, the model
/// it was exported from (as a modder writes it back).
fn over(original: &[u8]) -> ImportOptions {
    ImportOptions {
        original: Some(original.into()),
        ..ImportOptions::default()
    }
}

const SUBSET: [&str; 8] = [
    "m127_tank",
    "m095_walker",
    "m037_gate",
    "m012_walker",
    "m221_barrel",
    "m237_plant",
    "m206_dome",
    "m378_cargo",
];

fn blender(in_dir: &Path, out_dir: &Path, profile: &str) {
    common::blender::run(
        "roundtrip.py",
        &[in_dir.as_os_str(), out_dir.as_os_str(), profile.as_ref()],
        "blender round trip",
    );
}

/// Names from the root down to node `i`.
fn path(view: &ModelRef<'_>, i: usize) -> String {
    let mut names = Vec::new();
    let mut cur = Some(i);
    while let Some(c) = cur {
        names.push(String::from_utf8_lossy(view.node_name(c).unwrap_or(b"")).into_owned());
        cur = view.nodes[c].parent().map(usize::from);
    }
    names.reverse();
    names.join("/")
}

type Vertex = ([f32; 3], [f32; 2], [f32; 3]);

/// Per (lod, group, material): triangles as (position, uv, normal) per corner, sorted by position.
fn geometry(view: &ModelRef<'_>, node: usize) -> BTreeMap<(usize, usize, u16), Vec<[Vertex; 3]>> {
    let mut out: BTreeMap<(usize, usize, u16), Vec<[Vertex; 3]>> = BTreeMap::new();
    for lod in 0..3 {
        for group in 0..5 {
            let Some(s) = view.nodes[node].slot(lod, group) else {
                continue;
            };
            let slot = view.slots[s as usize];
            let (bs, bc) = (
                slot.batch_start.get() as usize,
                slot.batch_count.get() as usize,
            );
            for b in &view.batches[bs..bs + bc] {
                let (is, ic) = (b.index_start.get() as usize, b.index_count.get() as usize);
                for t in view.indices[is..is + ic].chunks_exact(3) {
                    let corner = |k: usize| {
                        let v = (b.base_vertex.get() + t[k].get() as u32) as usize;
                        let p = view.positions[v].map(|c| c.get());
                        let uv = view.uv0.map_or([0.0; 2], |u| u[v].decode());
                        let n = view.normals.map_or([0.0; 3], |n| n[v].decode());
                        (p, uv, n)
                    };
                    let tri = [corner(0), corner(1), corner(2)];
                    if tri[0].0 == tri[1].0 || tri[1].0 == tri[2].0 || tri[0].0 == tri[2].0 {
                        continue;
                    }
                    out.entry((lod, group, b.material_index.get()))
                        .or_default()
                        .push(tri);
                }
            }
        }
    }
    for tris in out.values_mut() {
        tris.sort_by(|a, b| key(a).partial_cmp(&key(b)).unwrap());
    }
    out
}

fn key(t: &[Vertex; 3]) -> [f32; 9] {
    std::array::from_fn(|k| t[k / 3].0[k % 3])
}

fn same_geometry(
    a: &BTreeMap<(usize, usize, u16), Vec<[Vertex; 3]>>,
    b: &BTreeMap<(usize, usize, u16), Vec<[Vertex; 3]>>,
) -> Result<(), String> {
    if a.keys().ne(b.keys()) {
        return Err(format!(
            "LOD/group/material sets differ: {:?} vs {:?}",
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>()
        ));
    }
    for (k, ta) in a {
        let tb = &b[k];
        if ta.len() != tb.len() {
            return Err(format!("{k:?}: {} triangles vs {}", ta.len(), tb.len()));
        }
        for (x, y) in ta.iter().zip(tb) {
            for c in 0..3 {
                let (pa, ua, na) = x[c];
                let (pb, ub, nb) = y[c];
                if (0..3).any(|i| (pa[i] - pb[i]).abs() > 1e-5) {
                    return Err(format!("{k:?}: position {pa:?} vs {pb:?}"));
                }
                if (0..2).any(|i| (ua[i] - ub[i]).abs() > 1.0 / 1024.0 + 1e-6) {
                    return Err(format!("{k:?}: UV {ua:?} vs {ub:?}"));
                }
                if (0..3).any(|i| (na[i] - nb[i]).abs() > 1.0 / 127.0 + 1e-6) {
                    return Err(format!("{k:?}: normal {na:?} vs {nb:?}"));
                }
            }
        }
    }
    Ok(())
}

/// Compares an imported model with the original; `ordered` also checks node order and unknown fields.
fn compare(
    name: &str,
    a: &ModelRef<'_>,
    b: &ModelRef<'_>,
    ordered: bool,
    failures: &mut Vec<String>,
) {
    let n = a.nodes.len();
    if b.nodes.len() != n {
        failures.push(format!("{name}: {} nodes, expected {n}", b.nodes.len()));
        return;
    }
    // Match nodes by their name path, then by geometry among equal paths.
    let mut by_path: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for j in 0..n {
        by_path.entry(path(b, j)).or_default().push(j);
    }
    let mut matched = vec![usize::MAX; n];
    for (i, slot) in matched.iter_mut().enumerate() {
        let ga = geometry(a, i);
        let candidates = by_path
            .get_mut(&path(a, i))
            .map(std::mem::take)
            .unwrap_or_default();
        let found = candidates
            .iter()
            .position(|&j| same_geometry(&ga, &geometry(b, j)).is_ok());
        let mut rest = candidates.clone();
        match found {
            Some(k) => *slot = rest.remove(k),
            None => {
                let why = candidates
                    .first()
                    .map_or("no node with that name path".to_string(), |&j| {
                        same_geometry(&ga, &geometry(b, j)).unwrap_err()
                    });
                failures.push(format!("{name} node {i} ({}): {why}", path(a, i)));
            }
        }
        by_path.insert(path(a, i), rest);
    }
    if ordered && (0..n).any(|i| matched[i] != i) {
        failures.push(format!("{name}: node order did not come back: {matched:?}"));
    }
    for f in 0..=a.frame_count + 1 {
        let la = msh::pose::local_poses(a, f as f32).unwrap();
        let lb = msh::pose::local_poses(b, f as f32).unwrap();
        for i in (0..n).filter(|&i| matched[i] != usize::MAX) {
            let (pa, pb) = (la[i], lb[matched[i]]);
            let dt = (0..3)
                .map(|k| (pa.translation[k] - pb.translation[k]).abs())
                .fold(0.0, f32::max);
            let d = |s: f32| {
                (0..4)
                    .map(|k| (pa.rotation[k] - s * pb.rotation[k]).abs())
                    .fold(0.0, f32::max)
            };
            let scale = pa.translation.iter().map(|c| c.abs()).fold(1.0, f32::max);
            if dt > 1e-4 * scale || d(1.0).min(d(-1.0)) > 1.0 / 32767.0 + 1e-6 {
                failures.push(format!("{name} node {i} frame {f}: translation off by {dt:.2e}, rotation by {:.2} steps", d(1.0).min(d(-1.0)) * 32767.0));
                return;
            }
        }
    }
    if ordered {
        for (i, &j) in matched.iter().enumerate() {
            if j == usize::MAX {
                continue;
            }
            if a.nodes[i].hdr0 != b.nodes[j].hdr0 {
                failures.push(format!(
                    "{name} node {i}: hdr0 {} came back as {}",
                    a.nodes[i].hdr0.get(),
                    b.nodes[j].hdr0.get()
                ));
            }
            for k in 0..15 {
                let (sa, sb) = (a.nodes[i].slots[k].get(), b.nodes[j].slots[k].get());
                if (sa == msh::raw::NONE) != (sb == msh::raw::NONE) {
                    continue; // reported by the geometry check
                }
                if sa == msh::raw::NONE {
                    continue;
                }
                let (x, y) = (a.slots[sa as usize], b.slots[sb as usize]);
                if x.opaque != y.opaque {
                    failures.push(format!(
                        "{name} node {i} slot {k}: unknown tail did not come back"
                    ));
                }
                let fields =
                    |v: &ModelRef<'_>, s: msh::raw::Slot68| -> BTreeMap<u16, Vec<[u16; 4]>> {
                        let mut m: BTreeMap<u16, Vec<[u16; 4]>> = BTreeMap::new();
                        let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
                        for bt in &v.batches[bs..bs + bc] {
                            m.entry(bt.material_index.get()).or_default().push([
                                bt.batch_flags.get(),
                                bt.opaque4.get(),
                                bt.opaque6.get(),
                                bt.opaque14.get(),
                            ]);
                        }
                        m.values_mut().for_each(|v| {
                            v.sort();
                            v.dedup();
                        });
                        m
                    };
                if fields(a, x) != fields(b, y) {
                    failures.push(format!(
                        "{name} node {i} slot {k}: batch fields did not come back: {:?} vs {:?}",
                        fields(a, x),
                        fields(b, y)
                    ));
                }
            }
        }
    }
}

#[test]
fn blender_round_trip_with_default_and_custom_properties_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let mut originals = BTreeMap::new();
    let mut categories = BTreeMap::new();
    for stem in SUBSET {
        let bytes = std::fs::read(common::root().join(format!("fixtures/small/models/{stem}.msh")))
            .unwrap();
        let (glb, _) = msh_to_gltf(&bytes, &ExportOptions::default()).unwrap();
        std::fs::write(input.join(format!("{stem}.glb")), glb).unwrap();
        let v = msh::open(&bytes, Mode::Strict).unwrap().view;
        let names: Vec<_> = (0..v.nodes.len()).map(|i| v.node_name(i)).collect();
        let named: Vec<_> = names.iter().flatten().collect();
        *categories.entry("static").or_insert(0) += (!v.is_animated()) as u32;
        *categories.entry("animated").or_insert(0) += v.is_animated() as u32;
        *categories.entry("deep").or_insert(0) += (v.nodes.len() >= 60) as u32;
        *categories.entry("all 15 slots").or_insert(0) +=
            v.nodes
                .iter()
                .any(|n| n.slots.iter().all(|s| s.get() != msh::raw::NONE)) as u32;
        *categories.entry("duplicate names").or_insert(0) += (named.len()
            != named
                .iter()
                .collect::<std::collections::BTreeSet<_>>()
                .len()) as u32;
        *categories.entry("missing names").or_insert(0) += names.iter().any(Option::is_none) as u32;
        *categories.entry("materials per slot").or_insert(0) +=
            v.slots.iter().any(|s| s.batch_count.get() > 1) as u32;
        originals.insert(stem, bytes);
    }
    assert!(
        categories.values().all(|&c| c > 0),
        "the subset must cover every category: {categories:?}"
    );

    let mut failures = Vec::new();
    for profile in ["default", "custom"] {
        let out = dir.path().join(profile);
        blender(&input, &out, profile);
        for (stem, bytes) in &originals {
            let glb = std::fs::read(out.join(format!("{stem}.glb"))).unwrap();
            let (back, _) = match gltf_to_msh(&glb, &over(bytes), &|_| None) {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{profile} {stem}: {e}"));
                    continue;
                }
            };
            let b = match msh::open(&back, Mode::Strict) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("{profile} {stem}: not valid: {e}"));
                    continue;
                }
            };
            let a = msh::open(bytes, Mode::Strict).unwrap();
            compare(
                &format!("{profile} {stem}"),
                &a.view,
                &b.view,
                profile == "custom",
                &mut failures,
            );
        }
    }
    common::fail_if_any(
        "Blender round trip",
        failures.into_iter().take(40).collect(),
    );
}

/// The edit scenario (tools/blender/edit.py): vertices moved, faces deleted, an
/// object added under a node, an animation re-keyed with Bezier keys. The
/// result imports, validates, and shows exactly those changes.
#[test]
fn blender_edits_come_back_as_exactly_those_edits() {
    let dir = tempfile::tempdir().unwrap();
    let bytes =
        std::fs::read(common::root().join("fixtures/small/models/m095_walker.msh")).unwrap();
    let (glb, _) = msh_to_gltf(&bytes, &ExportOptions::default()).unwrap();
    let (src, out, edits) = (
        dir.path().join("in.glb"),
        dir.path().join("out.glb"),
        dir.path().join("edits.json"),
    );
    std::fs::write(&src, glb).unwrap();
    let run = Command::new(common::blender::python())
        .arg(common::root().join("tools/blender/edit.py"))
        .args([&src, &out, &edits])
        .output()
        .unwrap();
    assert!(
        run.status.success() && String::from_utf8_lossy(&run.stdout).contains("blender edit: done"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (back, _) = gltf_to_msh(&std::fs::read(&out).unwrap(), &over(&bytes), &|_| None).unwrap();
    let b = msh::open(&back, Mode::Strict)
        .expect("the edited model is valid")
        .view;
    let a = msh::open(&bytes, Mode::Strict).unwrap().view;
    let find = |v: &ModelRef<'_>, name: &str| {
        (0..v.nodes.len())
            .find(|&i| v.node_name(i) == Some(name.as_bytes()))
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    let mut failures = Vec::new();

    // Every node but the edited ones: the same geometry.
    for i in 0..a.nodes.len() {
        let name = String::from_utf8_lossy(a.node_name(i).unwrap_or(b"")).into_owned();
        let j = find(&b, &name);
        let (ga, gb) = (geometry(&a, i), geometry(&b, j));
        match name.as_str() {
            "cockpit" => {
                // Moved by +0.25 in X, nothing else.
                let moved: BTreeMap<_, Vec<[Vertex; 3]>> = ga
                    .iter()
                    .map(|(k, tris)| {
                        let mut t: Vec<[Vertex; 3]> = tris
                            .iter()
                            .map(|t| t.map(|(p, uv, n)| ([p[0] + 0.25, p[1], p[2]], uv, n)))
                            .collect();
                        t.sort_by(|x, y| key(x).partial_cmp(&key(y)).unwrap());
                        (*k, t)
                    })
                    .collect();
                if let Err(e) = same_geometry(&moved, &gb) {
                    failures.push(format!("cockpit was not moved by exactly +0.25 X: {e}"));
                }
            }
            "gun" => {
                let (la, lb) = (
                    &ga[&(0, 0, ga.keys().next().unwrap().2)],
                    gb.get(ga.keys().next().unwrap()),
                );
                match lb {
                    Some(lb)
                        if lb.len() + 2 == la.len()
                            && lb.iter().all(|t| la.iter().any(|u| key(u) == key(t))) => {}
                    _ => failures.push(format!(
                        "gun LOD0 should have lost exactly two faces: {} -> {:?}",
                        la.len(),
                        lb.map(Vec::len)
                    )),
                }
                let other: Vec<_> = ga.keys().filter(|k| k.0 != 0).collect();
                for k in other {
                    if ga.get(k).map(Vec::len) != gb.get(k).map(Vec::len) {
                        failures.push(format!("gun {k:?} changed"));
                    }
                }
            }
            _ => {
                if let Err(e) = same_geometry(&ga, &gb) {
                    failures.push(format!("{name} changed: {e}"));
                }
            }
        }
    }
    // The added object: a new node under "base", a cube of 12 triangles with material 9.
    let antenna = find(&b, "antenna");
    let base = find(&b, "base");
    assert_eq!(
        b.nodes[antenna].parent(),
        Some(base as u16),
        "antenna hangs under base"
    );
    let g = geometry(&b, antenna);
    assert_eq!(
        g.keys().collect::<Vec<_>>(),
        [&(0, 0, 9)],
        "one LOD0 batch of material 9"
    );
    assert_eq!(g[&(0, 0, 9)].len(), 12);
    let rest = msh::pose::local_poses(&b, 0.0).unwrap()[antenna];
    assert!(
        (rest.translation[2] - 1.5).abs() < 1e-5,
        "{:?}",
        rest.translation
    );
    // The re-keyed animation of "base" passes through its new keys.
    for (frame, loc) in [
        (0.0f32, [0.0f32, 0.0, 0.0]),
        (10.0, [1.0, 0.5, 0.0]),
        (28.0, [2.0, -1.0, 0.75]),
    ] {
        let p = msh::pose::local_poses(&b, frame).unwrap()[base];
        if (0..3).any(|k| (p.translation[k] - loc[k]).abs() > 1e-4) {
            failures.push(format!(
                "base at frame {frame}: {:?}, keyed {loc:?}",
                p.translation
            ));
        }
    }
    assert_eq!(
        b.nodes.len(),
        a.nodes.len() + 1,
        "one node added, none lost"
    );
    common::fail_if_any("Blender edits", failures);
}

/// A terrain through Blender: with custom properties the file still says it is
/// a terrain, whose tables come back only from an unedited export, so it is
/// refused with `import.terrain_edited`; with the default profile (no extras)
/// it is a foreign glTF and imports as a standard model of the tiles' geometry.
#[test]
fn blender_terrain_is_the_original_or_imported_as_a_standard_model() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let bytes = std::fs::read(common::root().join("fixtures/small/edge/terrain_land.msh")).unwrap();
    let (glb, _) = msh_to_gltf(&bytes, &ExportOptions::default()).unwrap();
    std::fs::write(input.join("terrain.glb"), glb).unwrap();
    for profile in ["default", "custom"] {
        let out = dir.path().join(profile);
        blender(&input, &out, profile);
        let glb = std::fs::read(out.join("terrain.glb")).unwrap();
        let result = gltf_to_msh(&glb, &over(&bytes), &|_| None);
        if profile == "custom" {
            // Unedited, with its extras: the original (recognise/scene.rs).
            assert!(result.unwrap().0 == bytes, "the original terrain");
        } else {
            let (back, _) = result.unwrap();
            let v = msh::open(&back, Mode::Strict).unwrap().view;
            assert_eq!(v.kind, Some(msh::ModelKind::Standard));
            assert_eq!(v.nodes.len(), 256);
        }
    }
}

/// Clips (issue 25): an export with clips becomes one Blender action per
/// clip, and Blender's export (both profiles) brings them back as
/// animations with their names; the import lays them end to end, which here
/// are the clips' own frames (they tile the timeline from frame 0), so the
/// clip list comes back with its ranges and every frame's pose is the
/// original's. Blender drops animation extras: the loop modes come back as
/// `loop` (docs/GLTF.md, "Clips").
#[test]
fn blender_keeps_one_action_per_clip() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let bytes =
        std::fs::read(common::root().join("fixtures/small/models/m095_walker.msh")).unwrap();
    let clips: mshconv_convert::ClipList = "idle=0..9:loop,walk=10..28:pingpong".parse().unwrap();
    let options = ExportOptions {
        clips: Some(clips.clone()),
        ..ExportOptions::default()
    };
    let (glb, _) = msh_to_gltf(&bytes, &options).unwrap();
    std::fs::write(input.join("walker.glb"), glb).unwrap();
    let a = msh::open(&bytes, Mode::Strict).unwrap();
    let mut failures = Vec::new();
    for profile in ["default", "custom"] {
        let out = dir.path().join(profile);
        blender(&input, &out, profile);
        let glb = std::fs::read(out.join("walker.glb")).unwrap();
        let (back, list, _) =
            mshconv_gltf::import_with_clips(&glb, &Default::default(), &|_| None).unwrap();
        let list = list.expect("a clip list");
        let got: Vec<_> = list
            .clips()
            .iter()
            .map(|c| (c.name.as_str(), c.first, c.last))
            .collect();
        assert_eq!(got, [("idle", 0, 9), ("walk", 10, 28)], "{profile}");
        let b = msh::open(&back, Mode::Strict).unwrap();
        compare(
            &format!("{profile} clips"),
            &a.view,
            &b.view,
            profile == "custom",
            &mut failures,
        );
    }
    common::fail_if_any("Blender clips", failures);
}
