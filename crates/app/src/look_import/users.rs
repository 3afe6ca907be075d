//! Who else shows a library entry: the models of a game folder whose WEAR
//! names a material (for a texture: a material whose phases name it), so an
//! edit of a shared entry can say which other models show it too
//! (`look.shared_edit`, docs/MATERIALS.md "The way back").
//!
//! The folder is walked to [`MAX_DEPTH`] levels (symbolic links to folders
//! are not followed, nor subfolders holding a `Material.lib` and a
//! `Textures.lib` of their own: another game folder): every `.rlb`
//! archive's `.wea` entries (only the directory and those entries are read)
//! and every loose `.wea` file. A row
//! naming a material `Material.lib` lacks is resolved as the runtime resolves
//! it ([`crate::game::DEFAULT_MATERIAL`], else the first MAT0 entry).

use super::Library;
use crate::game::{
    find_in_folder, same_name, wear_name, DEFAULT_MATERIAL, MATERIAL_LIB, TEXTURES_LIB,
    WEAR_EXTENSION,
};
use mshconv_material::mat0::MAT0_TYPE_ID;
use mshconv_material::{Mat0, Wear};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// How deep below the game folder WEARs are looked for (**a choice**: the
/// retail layout keeps its archives within a few levels of the root).
pub const MAX_DEPTH: usize = 4;

/// Where a model's WEAR lies: an archive's entry or a file (paths
/// canonical where they exist, so two spellings of one place compare equal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WearPlace {
    /// The `.wea` entry `name` of the archive.
    Entry {
        /// The archive.
        archive: PathBuf,
        /// The WEAR entry's name.
        name: String,
    },
    /// A `.wea` file.
    File(PathBuf),
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl WearPlace {
    /// The WEAR of the model entry `model` of `archive`.
    pub fn of_entry(archive: &Path, model: &str) -> WearPlace {
        WearPlace::Entry {
            archive: canonical(archive),
            name: wear_name(model),
        }
    }

    /// The `.wea` file `path`.
    pub fn of_file(path: &Path) -> WearPlace {
        WearPlace::File(canonical(path))
    }

    fn same(&self, other: &WearPlace) -> bool {
        match (self, other) {
            (WearPlace::File(a), WearPlace::File(b)) => a == b,
            (
                WearPlace::Entry { archive, name },
                WearPlace::Entry {
                    archive: a,
                    name: n,
                },
            ) => archive == a && same_name(name, n),
            _ => false,
        }
    }
}

/// One model of the folder: what to call it, where its WEAR is, its rows.
#[derive(Debug, Clone)]
struct User {
    label: String,
    place: WearPlace,
    rows: Vec<String>,
}

/// The models of a game folder and the materials their WEARs name.
#[derive(Debug, Clone, Default)]
pub struct Users {
    users: Vec<User>,
}

impl Users {
    /// Walks the game folder `dir` (see the module documentation). Files
    /// that cannot be read or parsed are passed over.
    pub fn scan(dir: &Path) -> Users {
        let mut users = Vec::new();
        walk(dir, "", 0, &mut users);
        Users { users }
    }

    /// The models (labels relative to the folder: `units.rlb:TANK.MSH`,
    /// `models/pipe.msh`) that show the entry `entry` of `library`
    /// (`Material.lib` or `Textures.lib`), leaving out those whose WEAR is
    /// at one of `except`; `materials` is the folder's `Material.lib`.
    pub fn of(
        &self,
        library: &str,
        entry: &str,
        materials: &Library,
        except: &[WearPlace],
    ) -> Vec<String> {
        let mats = Materials::read(materials);
        let shows = |row: &str| -> bool {
            let resolved = mats.resolve(row);
            if library == MATERIAL_LIB {
                resolved.is_some_and(|(name, _)| same_name(name, entry))
            } else if library == TEXTURES_LIB {
                resolved.is_some_and(|(_, textures)| textures.iter().any(|t| same_name(t, entry)))
            } else {
                false
            }
        };
        self.users
            .iter()
            .filter(|u| !except.iter().any(|e| e.same(&u.place)))
            .filter(|u| u.rows.iter().any(|r| shows(r)))
            .map(|u| u.label.clone())
            .collect()
    }
}

/// `Material.lib`'s MAT0 entries: name and every texture its phases name.
struct Materials {
    entries: Vec<(String, Vec<String>)>,
}

impl Materials {
    fn read(lib: &Library) -> Materials {
        let entries = lib
            .entries(|e| {
                (e.type_id() == MAT0_TYPE_ID).then(|| {
                    let textures = Mat0::parse(e.data(), e.attr2())
                        .map(|m| {
                            m.phases
                                .iter()
                                .filter(|p| !p.texture().is_empty())
                                .map(|p| String::from_utf8_lossy(p.texture()).into_owned())
                                .collect()
                        })
                        .unwrap_or_default();
                    (e.name(), textures)
                })
            })
            .unwrap_or_default();
        Materials { entries }
    }

    /// The entry a WEAR row's name resolves to, as the runtime resolves it.
    fn resolve(&self, row: &str) -> Option<&(String, Vec<String>)> {
        let find = |n: &str| self.entries.iter().find(|(name, _)| same_name(name, n));
        find(row)
            .or_else(|| find(DEFAULT_MATERIAL))
            .or_else(|| self.entries.first())
    }
}

fn has_extension(name: &str, ext: &str) -> bool {
    Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

fn rows(bytes: &[u8]) -> Option<Vec<String>> {
    Some(
        Wear::parse(bytes)
            .ok()?
            .materials
            .into_iter()
            .map(|r| r.name)
            .collect(),
    )
}

fn walk(dir: &Path, rel: &str, depth: usize, users: &mut Vec<User>) {
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = read.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let label = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = e.file_type() else { continue };
        let path = e.path();
        if kind.is_dir() {
            // A folder with libraries of its own is another game folder.
            let own_libraries = [MATERIAL_LIB, TEXTURES_LIB]
                .iter()
                .all(|lib| find_in_folder(&path, lib).is_some());
            if depth + 1 < MAX_DEPTH && !own_libraries {
                walk(&path, &label, depth + 1, users);
            }
        } else if has_extension(&name, "rlb") {
            archive_users(&path, &label, users);
        } else if has_extension(&name, WEAR_EXTENSION) {
            let Some(rows) = std::fs::read(&path).ok().and_then(|b| rows(&b)) else {
                continue;
            };
            let stem = Path::new(&name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let model = find_in_folder(dir, &format!("{stem}.msh"))
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or(name);
            users.push(User {
                label: if rel.is_empty() {
                    model
                } else {
                    format!("{rel}/{model}")
                },
                place: WearPlace::of_file(&path),
                rows,
            });
        }
    }
}

/// The models of one archive with a `.wea` entry: only the directory and
/// those entries are read.
fn archive_users(path: &Path, label: &str, users: &mut Vec<User>) {
    let Ok(mut file) = std::fs::File::open(path) else {
        return;
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return;
    };
    let mut read = |range: std::ops::Range<u64>| -> Option<Vec<u8>> {
        file.seek(SeekFrom::Start(range.start)).ok()?;
        let mut bytes = Vec::new();
        (&mut file)
            .take(range.end.saturating_sub(range.start))
            .read_to_end(&mut bytes)
            .ok()?;
        Some(bytes)
    };
    let Some(head) = read(0..nres::raw::HEADER_SIZE as u64) else {
        return;
    };
    let Some(directory) = nres::Directory::locate(&head, len)
        .ok()
        .and_then(&mut read)
        .and_then(|d| nres::Directory::parse(&head, &d, len).ok())
    else {
        return;
    };
    let names: Vec<String> = (0..directory.len())
        .map(|i| String::from_utf8_lossy(directory.name_bytes(i).unwrap_or_default()).into_owned())
        .collect();
    let canonical_archive = canonical(path);
    for (i, name) in names.iter().enumerate() {
        if !has_extension(name, WEAR_EXTENSION) {
            continue;
        }
        let Some(rows) = directory
            .payload(i)
            .and_then(&mut read)
            .and_then(|b| rows(&b))
        else {
            continue;
        };
        // The model is the entry whose WEAR sibling this is.
        let model = names
            .iter()
            .find(|n| !same_name(n, name) && same_name(&wear_name(n), name))
            .cloned()
            .unwrap_or_else(|| name.clone());
        users.push(User {
            label: format!("{label}:{model}"),
            place: WearPlace::Entry {
                archive: canonical_archive.clone(),
                name: name.clone(),
            },
            rows,
        });
    }
}
