//! The model's WEAR of the look import: row k names material index k's
//! MAT0 entry (docs/MATERIALS.md, "The way back").
//!
//! The base is the WEAR the export recorded (`extras.msh.wear`), else the
//! WEAR already at the output's place, else none. Rows the glTF's materials
//! do not speak of are kept; a row whose name and legacy id are unchanged
//! keeps its line as written; a base whose rows all stay is written back
//! byte for byte (spacing, the `LIGHTMAPS` block, line endings). A new row
//! gets the canonical layout and the next free numeric legacy id; an index
//! below the highest used that no material speaks of names `DEFAULT`. A new
//! WEAR (no base) has a row for every index the glTF's materials use.

use super::material::Row;
use crate::codes::{ErrorCode, NoteCode};
use crate::error::Error;
use crate::game::{same_name, DEFAULT_MATERIAL};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Report;
use mshconv_material::wear::WearRow;
use mshconv_material::{cp1251, Wear};
use std::collections::BTreeMap;

/// The base WEAR: `(bytes, parsed)`.
fn base(
    look: &ImportedLook,
    existing: Option<&[u8]>,
    report: &mut Report,
) -> Option<(Vec<u8>, Wear)> {
    if let Some(recorded) = &look.wear {
        match cp1251::encode(&recorded.text)
            .ok()
            .and_then(|b| Wear::parse(&b).ok().map(|w| (b, w)))
        {
            Some(found) => return Some(found),
            None => report.note(
                NoteCode::LookRecordedWearUnreadable.code(),
                format!("the WEAR recorded in the glTF ({:?}) does not read back: the rows are made anew", recorded.name),
            ),
        }
    }
    let bytes = existing?;
    match Wear::parse(bytes) {
        Ok(w) => Some((bytes.to_vec(), w)),
        Err(e) => {
            report.note(
                NoteCode::LookExistingWearUnreadable.code(),
                format!("the WEAR at the output's place does not read ({e}): it is replaced"),
            );
            None
        }
    }
}

/// The WEAR's bytes for material `rows` (index, row).
pub(super) fn build(
    look: &ImportedLook,
    rows: &[(u16, Row)],
    existing: Option<&[u8]>,
    report: &mut Report,
) -> Result<Vec<u8>, Error> {
    let base = base(look, existing, report);
    let base_rows: &[WearRow] = base.as_ref().map_or(&[], |(_, w)| &w.materials);
    let wanted: BTreeMap<usize, &Row> = rows.iter().map(|(k, r)| (usize::from(*k), r)).collect();
    // A new WEAR covers every index the model's materials use (an index the
    // look knows nothing of names DEFAULT); a base keeps its length unless a
    // known material needs more rows.
    let used = if base.is_none() {
        look.materials
            .keys()
            .next_back()
            .map_or(0, |&k| usize::from(k) + 1)
    } else {
        0
    };
    let count = wanted
        .keys()
        .next_back()
        .map_or(0, |k| k + 1)
        .max(base_rows.len())
        .max(used)
        .max(1);
    let mut next_id = base_rows
        .iter()
        .map(|r| r.legacy_id.as_str())
        .chain(rows.iter().filter_map(|(_, r)| r.legacy_id.as_deref()))
        .filter_map(|id| id.parse::<u32>().ok())
        .max()
        .map_or(1, |m| m.saturating_add(1));
    let mut fresh_id = || {
        let id = next_id.to_string();
        next_id = next_id.saturating_add(1);
        id
    };
    let mut table: Vec<(String, String)> = Vec::with_capacity(count);
    for k in 0..count {
        let old = base_rows.get(k);
        let entry = match (wanted.get(&k), old) {
            (Some(r), _) => {
                let id = r
                    .legacy_id
                    .clone()
                    .or_else(|| old.map(|o| o.legacy_id.clone()))
                    .unwrap_or_else(&mut fresh_id);
                // A row naming the same entry keeps its spelling (`glass` is `GLASS`).
                let name = match old {
                    Some(o) if same_name(&o.name, &r.name) => o.name.clone(),
                    _ => r.name.clone(),
                };
                (id, name)
            }
            (None, Some(o)) => (o.legacy_id.clone(), o.name.clone()),
            (None, None) => (fresh_id(), DEFAULT_MATERIAL.to_string()),
        };
        table.push(entry);
    }
    let write = |w: &Wear| {
        w.write().map_err(|e| {
            Error::invalid(
                ErrorCode::LookBadWear,
                format!("the WEAR cannot be written: {e}"),
            )
        })
    };
    match base {
        Some((bytes, mut wear)) => {
            let same = table.len() == wear.materials.len()
                && table
                    .iter()
                    .zip(&wear.materials)
                    .all(|((id, name), r)| *id == r.legacy_id && *name == r.name);
            if same {
                return Ok(bytes);
            }
            for (k, (id, name)) in table.into_iter().enumerate() {
                match wear.materials.get_mut(k) {
                    Some(r) => {
                        r.legacy_id = id;
                        r.name = name;
                    }
                    None => wear.materials.push(WearRow::new(id, name)),
                }
            }
            write(&wear)
        }
        None => write(&Wear::new(
            table
                .into_iter()
                .map(|(id, name)| WearRow::new(id, name))
                .collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mshconv_convert::imported_look::ImportedMaterial;

    fn unknown() -> ImportedMaterial {
        ImportedMaterial {
            name: None,
            wear_row: None,
            mat0: None,
            exported: None,
            image: None,
            base_color: [1.0; 4],
        }
    }

    fn look_of(indices: &[u16]) -> ImportedLook {
        ImportedLook {
            wear: None,
            materials: indices.iter().map(|&k| (k, unknown())).collect(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn a_new_wear_covers_every_used_index_and_a_base_keeps_its_rows() {
        let mut report = Report::default();
        let look = look_of(&[0, 1, 2]);
        let rows = [(
            1,
            Row {
                legacy_id: None,
                name: "HULL".into(),
            },
        )];
        let fresh = build(&look, &rows, None, &mut report).unwrap();
        assert_eq!(fresh, b"3\r\n1 DEFAULT\r\n2 HULL\r\n3 DEFAULT\r\n");
        // A base short of rows stays so when the look knows nothing more.
        let base = b"2\n7 A\n8 B\n";
        let same = build(&look_of(&[0, 1, 2, 3]), &[], Some(base), &mut report).unwrap();
        assert_eq!(same, base);
        // A known material past its end adds rows (DEFAULT between).
        let rows = [(
            3,
            Row {
                legacy_id: None,
                name: "C".into(),
            },
        )];
        let grown = build(&look_of(&[0, 3]), &rows, Some(base), &mut report).unwrap();
        assert_eq!(
            Wear::parse(&grown)
                .unwrap()
                .materials
                .iter()
                .map(|r| (r.legacy_id.as_str(), r.name.as_str()))
                .collect::<Vec<_>>(),
            [("7", "A"), ("8", "B"), ("9", "DEFAULT"), ("10", "C")]
        );
    }
}
