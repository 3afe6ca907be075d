//! Materials of the look import: each MSH material index made a MAT0 entry
//! of `Material.lib` and the name its WEAR row carries (docs/MATERIALS.md,
//! "The way back").
//!
//! - A material a textured export recorded (`extras.msh.mat0`): the recorded
//!   MAT0, its phases' texture name changed to the planned texture's when
//!   that changed; under the glTF material's name (a rename in the editor is
//!   a new material). An identical entry is reused; the recorded entry with
//!   other content is replaced (every model using it sees the edit); a
//!   renamed material is added (fitted, unique).
//!   With the fingerprint of the entry as exported (`extras.msh.exported`)
//!   the comparison is three-way: a material the file leaves as exported
//!   keeps the library's entry even when that changed since
//!   (`look.library_kept`); one the file changes (its texture, its recorded
//!   fields) replaces an entry still as exported, and is refused when the
//!   entry changed since as well (`look.edit_conflict`).
//! - A new material with a texture: a new MAT0 from the template
//!   (`DEFAULT`, else the library's first MAT0, else [`builtin_template`]):
//!   its version, metadata, `attr1` and first phase's parameters, one phase
//!   naming the texture, no animation blocks; added under the material's
//!   name, fitted (an identical entry of that name is reused).
//! - A new material without a texture: the library's entry of its name when
//!   there is one, else nothing: its WEAR row stays as it is, and a row that
//!   must be added (a later index has one) names `DEFAULT`
//!   (`look.material_untextured`).
//!
//! Entries the import did not export are never changed.

use super::naming::{fit_name, ENTRY_NAME_MAX};
use super::{Action, Change, Edits, Library, Log};
use crate::codes::{ErrorCode, NoteCode};
use crate::error::Error;
use crate::game::{same_name, DEFAULT_MATERIAL, MATERIAL_LIB};
use mshconv_convert::imported_look::ImportedMaterial;
use mshconv_convert::look::entry_fingerprint;
use mshconv_convert::Report;
use mshconv_material::mat0::{Metadata, Phase, MAT0_TYPE_ID, TEXTURE_NAME_BYTES};
use mshconv_material::Mat0;
use std::borrow::Cow;

/// The MAT0 a new material starts from when `Material.lib` has none
/// (**a choice**: version 6 as every retail MAT0 the public notes checked,
/// each prefix field at the runtime's default, one phase of zero parameters).
pub fn builtin_template() -> (u32, Mat0) {
    let defaults = mshconv_material::mat0::PREFIX_FIELDS;
    let mat0 = Mat0 {
        version: 6,
        metadata: Metadata {
            a: Some(defaults[0].default as u8),
            b: Some(defaults[1].default as u8),
            c: Some(defaults[2].default),
            d: Some(defaults[3].default),
        },
        phases: vec![Phase::new(b"")],
        animation_blocks: Vec::new(),
    };
    (0, mat0)
}

/// A MAT0 entry of the library (its payload borrowed until replaced).
struct Entry<'l> {
    name: String,
    attr1: u32,
    attr2: u32,
    data: Cow<'l, [u8]>,
}

impl Entry<'_> {
    /// Whether the entry is exactly this material.
    fn holds(&self, attr1: u32, mat0: &Mat0) -> bool {
        self.attr1 == attr1
            && self.attr2 == mat0.version
            && mat0.write().is_ok_and(|d| d[..] == self.data[..])
    }

    /// Whether two entries are the same material.
    fn same(&self, other: &Entry<'_>) -> bool {
        (self.attr1, self.attr2) == (other.attr1, other.attr2) && self.data == other.data
    }
}

/// What a material's WEAR row gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Row {
    /// The legacy id the export recorded, if any.
    pub legacy_id: Option<String>,
    /// The row's name (a MAT0 entry's, or the recorded row's).
    pub name: String,
}

/// The material side of a plan: `Material.lib`'s MAT0 entries and its editor.
pub(super) struct Planner<'l> {
    entries: Vec<Entry<'l>>,
    /// The entries before the run (`look_import::plan_in_run`): whether a
    /// material is an edit is decided against these.
    base: Vec<Entry<'l>>,
    edits: Edits<'l>,
}

fn texture_field(name: &str) -> [u8; TEXTURE_NAME_BYTES] {
    let mut field = [0; TEXTURE_NAME_BYTES];
    let n = name.len().min(TEXTURE_NAME_BYTES - 1);
    field[..n].copy_from_slice(&name.as_bytes()[..n]);
    field
}

impl<'l> Planner<'l> {
    pub(super) fn new(lib: &'l Library, base: &'l Library) -> Result<Planner<'l>, Error> {
        let mat0_entries = |lib: &'l Library| {
            lib.entries(|e| {
                (e.type_id() == MAT0_TYPE_ID).then(|| Entry {
                    name: e.name(),
                    attr1: e.attr1(),
                    attr2: e.attr2(),
                    data: Cow::Borrowed(e.data()),
                })
            })
        };
        Ok(Planner {
            entries: mat0_entries(lib)?,
            base: mat0_entries(base)?,
            edits: Edits::new(lib),
        })
    }

    fn entry(&self, name: &str) -> Option<&Entry<'l>> {
        self.entries.iter().find(|e| same_name(&e.name, name))
    }

    /// The entry `name` as it was before the run.
    fn base_entry(&self, name: &str) -> Option<&Entry<'l>> {
        self.base.iter().find(|e| same_name(&e.name, name))
    }

    /// The template of a new material: `(attr1, MAT0)`, from the library
    /// before the run (so it does not depend on the order of a run's models).
    fn template(&self) -> (u32, Mat0) {
        let parsed = |e: &Entry<'_>| Mat0::parse(&e.data, e.attr2).ok().map(|m| (e.attr1, m));
        self.base_entry(DEFAULT_MATERIAL)
            .and_then(parsed)
            .or_else(|| self.base.iter().find_map(parsed))
            .unwrap_or_else(builtin_template)
    }

    fn put(&mut self, name: &str, attr1: u32, mat0: &Mat0) -> Result<(), Error> {
        let data = mat0.write().map_err(|e| {
            Error::invalid(
                ErrorCode::LookBadMaterial,
                format!("material {name:?}: {e}"),
            )
        })?;
        let editor = self.edits.editor()?;
        editor.put(name, Some(MAT0_TYPE_ID), data.clone())?;
        editor.set_attributes(name, [attr1, mat0.version, 0])?;
        let entry = Entry {
            name: name.to_string(),
            attr1,
            attr2: mat0.version,
            data: Cow::Owned(data),
        };
        match self.entries.iter_mut().find(|e| same_name(&e.name, name)) {
            Some(slot) => {
                *slot = Entry {
                    name: slot.name.clone(),
                    ..entry
                }
            }
            None => self.entries.push(entry),
        }
        Ok(())
    }

    /// Whether the entry `name` holds exactly this material.
    fn holds(&self, name: &str, attr1: u32, mat0: &Mat0) -> bool {
        self.entry(name).is_some_and(|e| e.holds(attr1, mat0))
    }

    /// Plans material `index`; `texture` is its planned texture entry. `None`:
    /// the look says nothing of it (its WEAR row, if any, stays).
    pub(super) fn plan(
        &mut self,
        index: u16,
        m: &ImportedMaterial,
        texture: Option<&str>,
        log: &mut Log<'_>,
    ) -> Result<Option<Row>, Error> {
        let report = &mut *log.report;
        let legacy_id = m.wear_row.as_ref().map(|(id, _)| id.clone());
        let mut conflict = false;
        let (action, name, row_name) = match &m.mat0 {
            Some(rec) => {
                let mut mat0 = rec.mat0.clone();
                if let Some(t) = texture {
                    retexture(&mut mat0, t);
                }
                let wanted = m.name.clone().unwrap_or_else(|| rec.name.clone());
                if same_name(&wanted, &rec.name) {
                    let name = rec.name.clone();
                    // Edited or not is decided against the entry before the
                    // run: an unedited material never undoes another
                    // model's edit of it.
                    let base = self.base_entry(&name);
                    let action = if base.is_some_and(|b| b.holds(rec.attr1, &mat0)) {
                        Action::Reused
                    } else if let Some((b, side)) = base.zip(three_way(m, rec.attr1, &mat0, base)) {
                        match side {
                            // The file leaves the material as exported: the
                            // library's entry, changed since, stays.
                            Side::Kept => {
                                report.note(
                                    NoteCode::LookLibraryKept.code(),
                                    format!("material {name:?} changed in {MATERIAL_LIB} since the file was exported, and the file leaves it as exported: the library's entry is kept (when the file's material is the one wanted, as from another game folder, put it in with mshconv materials import)"),
                                );
                                Action::Reused
                            }
                            // Edited by the file, and by the library since.
                            Side::Conflict(exported) => {
                                return Err(conflict_error(&name, &exported, b, rec.attr1, &mat0));
                            }
                        }
                    } else {
                        let action = if base.is_some() {
                            Action::Replaced
                        } else {
                            Action::Added
                        };
                        let changed_in_run = match (self.entry(&name), base) {
                            (Some(now), Some(base)) => !now.same(base),
                            (now, None) => now.is_some(),
                            (None, Some(_)) => false,
                        };
                        if changed_in_run && !self.holds(&name, rec.attr1, &mat0) {
                            conflict = true;
                        } else {
                            if action == Action::Replaced {
                                report.note(
                                    NoteCode::LookMaterialReplaced.code(),
                                    format!("material {name:?} changed (its texture or fields): the entry is replaced"),
                                );
                            }
                            self.put(&name, rec.attr1, &mat0)?;
                        }
                        action
                    };
                    // An unedited material keeps the recorded row (a row
                    // that resolved by a fallback stays that row).
                    let row = match (&m.wear_row, action) {
                        (Some((_, row)), Action::Reused) => row.clone(),
                        _ => name.clone(),
                    };
                    (action, name, row)
                } else {
                    let (action, name) = self.add_unique(&wanted, rec.attr1, &mat0, report)?;
                    (action, name.clone(), name)
                }
            }
            None => match texture {
                Some(t) => match self.names_texture(m.name.as_deref(), t) {
                    // The game's own material, come back without its record
                    // (an editor that drops material extras keeps the name).
                    Some(name) => (Action::Reused, name.clone(), name),
                    None => {
                        let (attr1, template) = self.template();
                        let mat0 = Mat0 {
                            phases: vec![Phase {
                                parameters: template
                                    .phases
                                    .first()
                                    .map(|p| p.parameters)
                                    .unwrap_or_default(),
                                texture_name: texture_field(t),
                            }],
                            animation_blocks: Vec::new(),
                            ..template
                        };
                        let wanted = m.name.clone().unwrap_or_else(|| t.to_string());
                        let (action, name) = self.add_unique(&wanted, attr1, &mat0, report)?;
                        (action, name.clone(), name)
                    }
                },
                None => {
                    let by_name = m
                        .name
                        .as_deref()
                        .and_then(|n| self.entry(n))
                        .map(|e| e.name.clone());
                    match by_name {
                        Some(name) => (Action::Reused, name.clone(), name),
                        None => {
                            report.note(
                                NoteCode::LookMaterialUntextured.code(),
                                format!(
                                    "material {index} ({:?}) has no texture and no {MATERIAL_LIB} entry of its name: its WEAR row stays as it is ({DEFAULT_MATERIAL} where a row must be added)",
                                    m.name.as_deref().unwrap_or("unnamed")
                                ),
                            );
                            return Ok(None);
                        }
                    }
                }
            },
        };
        let change = Change {
            library: MATERIAL_LIB,
            entry: name,
            action,
            detail: format!(
                "material {index}{}",
                texture
                    .map(|t| format!(", texture {t}"))
                    .unwrap_or_default()
            ),
        };
        if conflict {
            log.conflicts.push(change.clone());
        }
        log.changes.push(change);
        Ok(Some(Row {
            legacy_id,
            name: row_name,
        }))
    }

    /// The still texture the material had: the recorded MAT0's, else that of
    /// the library's entry of its name (as before the run) (the texture planner's first guess for
    /// an image that comes back without its record).
    pub(super) fn still_texture(&self, m: &ImportedMaterial) -> Option<String> {
        let texture = |mat0: &Mat0| {
            mat0.texture()
                .map(|t| String::from_utf8_lossy(t).into_owned())
        };
        match &m.mat0 {
            Some(rec) => texture(&rec.mat0),
            None => {
                let name = m.name.as_deref()?;
                let e = self.base_entry(name).or_else(|| self.entry(name))?;
                texture(&Mat0::parse(&e.data, e.attr2).ok()?)
            }
        }
    }

    /// The stored name of the entry `name` when its still texture is `texture`.
    fn names_texture(&self, name: Option<&str>, texture: &str) -> Option<String> {
        let e = self.entry(name?)?;
        let mat0 = Mat0::parse(&e.data, e.attr2).ok()?;
        mat0.texture()?
            .eq_ignore_ascii_case(texture.as_bytes())
            .then(|| e.name.clone())
    }

    /// Adds `mat0` under `wanted` fitted and unique (an identical entry of
    /// the fitted name is reused).
    fn add_unique(
        &mut self,
        wanted: &str,
        attr1: u32,
        mat0: &Mat0,
        report: &mut Report,
    ) -> Result<(Action, String), Error> {
        let name = fit_name(wanted, "MATERIAL", ENTRY_NAME_MAX, |n| {
            self.entry(n).is_some() && !self.holds(n, attr1, mat0)
        });
        if name != wanted {
            report.note(
                NoteCode::LookNameFitted.code(),
                format!("material name {wanted:?} is stored as {name:?}"),
            );
        }
        if self.holds(&name, attr1, mat0) {
            return Ok((Action::Reused, name));
        }
        self.put(&name, attr1, mat0)?;
        Ok((Action::Added, name))
    }

    /// `Material.lib`'s new bytes, when an entry was added or replaced.
    pub(super) fn finish(self) -> Result<Option<Vec<u8>>, Error> {
        self.edits.finish()
    }
}

/// What the three-way comparison of a recorded material decides, when it
/// departs from the two-way one.
enum Side {
    /// The file leaves the material as exported: the library's entry stays.
    Kept,
    /// The file and the library both changed it since the export, otherwise
    /// (the export's fingerprint).
    Conflict(String),
}

/// The three-way comparison of a recorded material whose MAT0 (`attr1`,
/// `ours`) differs from the library's entry (`now`), against the fingerprint
/// the export recorded (`extras.msh.exported.mat0`); `None` when there is
/// none (an older export: two-way) or the library's entry is the exported
/// one (the file's edit goes in).
fn three_way(
    m: &ImportedMaterial,
    attr1: u32,
    ours: &Mat0,
    now: Option<&Entry<'_>>,
) -> Option<Side> {
    let exported = m.exported.as_ref()?.mat0.as_ref()?;
    let now = now?;
    let ours = entry_fingerprint(attr1, ours.version, &ours.write().ok()?);
    if ours == *exported {
        return Some(Side::Kept);
    }
    (entry_fingerprint(now.attr1, now.attr2, &now.data) != *exported)
        .then(|| Side::Conflict(exported.clone()))
}

/// `look.edit_conflict` for a material the file edits (`attr1`, `ours`)
/// whose library entry (`now`) changed since the export (`exported`, its
/// fingerprint), otherwise.
fn conflict_error(name: &str, exported: &str, now: &Entry<'_>, attr1: u32, ours: &Mat0) -> Error {
    let texture = |m: &Mat0| {
        m.texture().map_or_else(
            || "no texture".to_string(),
            |t| format!("texture {}", String::from_utf8_lossy(t)),
        )
    };
    let short = |f: &str| f.get(..8).unwrap_or(f).to_string();
    let library = match Mat0::parse(&now.data, now.attr2) {
        Ok(m) => texture(&m),
        Err(_) => "an entry that does not read".to_string(),
    };
    let library_fp = entry_fingerprint(now.attr1, now.attr2, &now.data);
    let ours_fp = ours
        .write()
        .map(|d| entry_fingerprint(attr1, ours.version, &d))
        .unwrap_or_default();
    Error::invalid(
        ErrorCode::LookEditConflict,
        format!(
            "{MATERIAL_LIB} entry {name} was edited on both sides since the file was exported: the export had MAT0 {}, {MATERIAL_LIB} has {} now ({library}), the file has {} ({}): nothing is written (export the model again from the game folder and repeat the edit there)",
            short(exported),
            short(&library_fp),
            short(&ours_fp),
            texture(ours),
        ),
    )
}

/// Points the material at texture `name`: every phase that named its still
/// texture names `name`; a material without any texture gets it in its
/// first phase (a phase is added when it has none).
fn retexture(mat0: &mut Mat0, name: &str) {
    let old = mat0.texture().map(<[u8]>::to_vec);
    // Names compare as the game compares them (`rock_888` is `ROCK_888`).
    if old
        .as_deref()
        .is_some_and(|o| o.eq_ignore_ascii_case(name.as_bytes()))
    {
        return;
    }
    let field = texture_field(name);
    match old {
        Some(old) => {
            for p in &mut mat0.phases {
                if p.texture() == old.as_slice() {
                    p.texture_name = field;
                }
            }
        }
        None => match mat0.phases.first_mut() {
            Some(p) => p.texture_name = field,
            None => mat0.phases.push(Phase::new(name.as_bytes())),
        },
    }
}
