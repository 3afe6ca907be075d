//! `mshconv nres list|extract|pack|repack`: the NRes container as files.
//!
//! `extract` writes every payload to its own file and a `manifest.json`; `pack`
//! rebuilds the archive from them. The manifest records everything the
//! container holds besides the payloads (types, attributes, name fields,
//! `sort_index`, the physical layout), so an unedited folder packs back to the
//! original bytes with `--lossless`, and to the canonical layout by default.

use crate::cli::NresCommand;
use crate::codes::CliCode;
use crate::input::read_file;
use crate::jsonf::{hex, unhex};
use crate::out::Out;
use crate::table::Table;
use anyhow::Context;
use mshconv_app::Error;
use nres::{Archive, Filler, Name, OwnedArchive, OwnedEntry, WriteMode};
use serde::{Deserialize, Serialize};
use std::path::{Component, Path};
use std::process::ExitCode;

/// The manifest's `format` value.
pub const MANIFEST_FORMAT: &str = "mshconv-nres-manifest";
/// The manifest's `version` value.
pub const MANIFEST_VERSION: u32 = 1;
/// The manifest's file name inside an extracted folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// `manifest.json`: how to rebuild an archive from an extracted folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Always [`MANIFEST_VERSION`].
    pub version: u32,
    /// Hex of the bytes between the header and the first payload (lossless packing).
    #[serde(default)]
    pub leading: String,
    /// Directory indices in the order their payloads lay in the file, or null when
    /// payloads overlapped (such a file can only be packed canonically).
    #[serde(default)]
    pub physical_order: Option<Vec<usize>>,
    /// The entries, in directory order.
    pub entries: Vec<ManifestEntry>,
}

/// One entry of the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Position in the directory (0-based); entries are packed in this order.
    pub order: usize,
    /// The payload's file name inside the folder.
    pub file: String,
    /// Resource type.
    pub type_id: u32,
    /// Entry name (text up to the NUL).
    pub name: String,
    /// Hex of the whole 36-byte name field, present only when `name` cannot
    /// reproduce it (bytes after the NUL, or a name that is not ASCII).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_field: Option<String>,
    /// First attribute.
    pub attr1: u32,
    /// Second attribute.
    pub attr2: u32,
    /// Third attribute.
    pub attr3: u32,
    /// `sort_index` as stored (used by lossless packing; canonical packing recomputes it).
    pub sort_index: u32,
    /// Payload size when extracted; the filler is reused only while the payload keeps this size.
    pub size: u32,
    /// Hex of the bytes that followed the payload (padding or a gap), for lossless packing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filler: Option<String>,
    /// For an empty payload, the `data_offset` it had (lossless packing keeps it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
}

/// Runs an `nres` subcommand.
pub fn run(command: &NresCommand, out: &mut Out) -> anyhow::Result<ExitCode> {
    match command {
        NresCommand::List { file, json } => list(file, *json, out),
        NresCommand::Extract {
            file,
            out: dir,
            force,
        } => extract(file, dir, *force, out),
        NresCommand::Pack {
            dir,
            out: file,
            lossless,
            add,
            ..
        } => pack(dir, file, *lossless, *add, out),
        NresCommand::Repack { file, out: target } => repack(file, target, out),
        NresCommand::Put {
            archive,
            file,
            name,
            r#type,
            add,
        } => crate::archive_out::put_file(archive, file, name.as_deref(), r#type.as_deref(), *add),
        NresCommand::Remove { archive, name } => crate::archive_out::remove(archive, name),
    }
}

fn parse<'a>(path: &Path, bytes: &'a [u8]) -> anyhow::Result<Archive<'a>> {
    Archive::parse(bytes).with_context(|| format!("cannot open {}", path.display()))
}

fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

fn list(path: &Path, json: bool, out: &mut Out) -> anyhow::Result<ExitCode> {
    let bytes = read_file(path)?;
    let archive = parse(path, &bytes)?;
    let rows = mshconv_app::report::entry_rows(&archive);
    let text = if json {
        let mut text = serde_json::to_string_pretty(&rows)?;
        text.push('\n');
        text
    } else {
        let mut table = Table::new(&[
            "index",
            "type",
            "name",
            "size",
            "attr1",
            "attr2",
            "attr3",
            "offset",
            "sort_index",
        ]);
        // Types as text where printable; a column of numbers only stays right-aligned.
        if rows.iter().any(|r| r.type_text.is_some()) {
            table.left_align(&[1]);
        }
        table.left_align(&[2]);
        for r in &rows {
            table.row(vec![
                r.index.to_string(),
                r.type_text.clone().unwrap_or_else(|| r.type_id.to_string()),
                format!("{:?}", r.name),
                r.size.to_string(),
                r.attr1.to_string(),
                r.attr2.to_string(),
                r.attr3.to_string(),
                r.offset.to_string(),
                r.sort_index.to_string(),
            ]);
        }
        format!(
            "{}: {} entries, {} bytes\n{}",
            path.display(),
            rows.len(),
            bytes.len(),
            table.render("")
        )
    };
    out.text(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// A file name for entry `index` that is safe on every file system: the index
/// (which makes it unique), then the name with anything but `[A-Za-z0-9._-]`
/// replaced by `_`.
pub fn payload_file_name(index: usize, name: &[u8]) -> String {
    let safe: String = name
        .iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-' {
                b as char
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        format!("{index:04}.bin")
    } else {
        format!("{index:04}-{safe}")
    }
}

fn extract(path: &Path, dir: &Path, force: bool, out: &mut Out) -> anyhow::Result<ExitCode> {
    let bytes = read_file(path)?;
    let archive = parse(path, &bytes)?;
    let layout = archive.layout();
    if !force {
        refuse_non_empty(dir)?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut entries = Vec::with_capacity(archive.len());
    for e in archive.entries() {
        let file = payload_file_name(e.index(), e.name_bytes());
        write_output(&dir.join(&file), e.data())?;
        let field = e.name_field();
        let name = e.name();
        // `name` reproduces the field when the field is clean and the text is ASCII.
        let reproducible = field.is_clean() && e.name_bytes().is_ascii();
        entries.push(ManifestEntry {
            order: e.index(),
            file,
            type_id: e.type_id(),
            name,
            name_field: (!reproducible).then(|| hex(field.field())),
            attr1: e.attr1(),
            attr2: e.attr2(),
            attr3: e.attr3(),
            sort_index: e.sort_index(),
            size: e.size(),
            filler: layout
                .physical_order
                .as_ref()
                .map(|_| hex(&layout.fillers[e.index()])),
            offset: e.data().is_empty().then(|| e.data_offset()),
        });
    }
    let manifest = Manifest {
        format: MANIFEST_FORMAT.to_string(),
        version: MANIFEST_VERSION,
        leading: hex(&layout.leading),
        physical_order: layout.physical_order.clone(),
        entries,
    };
    let mut text = serde_json::to_string_pretty(&manifest)?;
    text.push('\n');
    write_output(&dir.join(MANIFEST_FILE), text.as_bytes())?;
    out.text(&format!(
        "extracted {} entries of {} to {}\n",
        archive.len(),
        path.display(),
        dir.display()
    ))?;
    Ok(ExitCode::SUCCESS)
}

fn bad_manifest(path: &Path, message: impl std::fmt::Display) -> anyhow::Error {
    Error::invalid(
        CliCode::ManifestInvalid,
        format!("{}: {message}", path.display()),
    )
    .into()
}

/// Reads and checks a manifest: format, version, orders `0..n`, plain file names.
pub fn read_manifest(dir: &Path) -> anyhow::Result<Manifest> {
    let path = dir.join(MANIFEST_FILE);
    let text = read_file(&path)?;
    let mut manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| bad_manifest(&path, e))?;
    if manifest.format != MANIFEST_FORMAT || manifest.version != MANIFEST_VERSION {
        return Err(bad_manifest(
            &path,
            format!(
                "format {:?} version {} is not {MANIFEST_FORMAT:?} version {MANIFEST_VERSION}",
                manifest.format, manifest.version
            ),
        ));
    }
    manifest.entries.sort_by_key(|e| e.order);
    for (i, e) in manifest.entries.iter().enumerate() {
        if e.order != i {
            return Err(bad_manifest(
                &path,
                format!(
                    "entry orders must be 0..{} without gaps or repeats; found {} at position {i}",
                    manifest.entries.len(),
                    e.order
                ),
            ));
        }
        let mut components = Path::new(&e.file).components();
        let plain =
            matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none();
        if !plain {
            return Err(bad_manifest(
                &path,
                format!(
                    "entry {i}: file {:?} must be a plain file name inside the folder",
                    e.file
                ),
            ));
        }
    }
    Ok(manifest)
}

fn pack(
    dir: &Path,
    target: &Path,
    lossless: bool,
    add: bool,
    out: &mut Out,
) -> anyhow::Result<ExitCode> {
    let manifest = read_manifest(dir)?;
    let manifest_path = dir.join(MANIFEST_FILE);
    let unlisted = unlisted_files(dir, &manifest)?;
    if !unlisted.is_empty() && !add {
        return Err(refuse_unlisted(dir, &unlisted));
    }
    let decode = |what: &str, i: usize, text: &str| {
        unhex(text).ok_or_else(|| {
            bad_manifest(
                &manifest_path,
                format!("entry {i}: {what} {text:?} is not hex"),
            )
        })
    };
    let mut archive = OwnedArchive {
        entries: Vec::with_capacity(manifest.entries.len()),
        leading: unhex(&manifest.leading).ok_or_else(|| {
            bad_manifest(
                &manifest_path,
                format!("leading {:?} is not hex", manifest.leading),
            )
        })?,
        physical_order: manifest.physical_order.clone(),
        keep_sort_index: true,
    };
    for (i, e) in manifest.entries.iter().enumerate() {
        let data = read_file(&dir.join(&e.file))?;
        let name = match &e.name_field {
            Some(field) => {
                let bytes = decode("name_field", i, field)?;
                let field: [u8; 36] = bytes.try_into().map_err(|_| {
                    bad_manifest(
                        &manifest_path,
                        format!("entry {i}: name_field must be 36 bytes"),
                    )
                })?;
                Name::from_field(field)
            }
            None => Name::new(&e.name).with_context(|| format!("entry {i} of the manifest"))?,
        };
        let filler = match &e.filler {
            Some(bytes) => Some(Filler {
                payload_len: e.size as usize,
                bytes: decode("filler", i, bytes)?,
            }),
            None => None,
        };
        archive.entries.push(OwnedEntry {
            type_id: e.type_id,
            attr1: e.attr1,
            attr2: e.attr2,
            attr3: e.attr3,
            name,
            sort_index: e.sort_index,
            data,
            filler,
            offset_hint: e.offset,
        });
    }
    let added = add_unlisted(dir, &unlisted, &mut archive)?;
    let mode = if lossless {
        WriteMode::Lossless
    } else {
        WriteMode::Canonical
    };
    let bytes = archive
        .write(mode)
        .with_context(|| format!("cannot pack {}", dir.display()))?;
    let lock = crate::fs::lock(&[target.to_path_buf()])?;
    let bytes_len = bytes.len();
    let mut txn = lock.transaction();
    txn.replace(target, bytes);
    txn.commit()?;
    drop(lock);
    out.text(&format!(
        "packed {} entries into {} ({} bytes, {} layout)\n",
        archive.entries.len(),
        target.display(),
        bytes_len,
        if lossless { "lossless" } else { "canonical" }
    ))?;
    for (name, type_id) in &added {
        out.text(&format!(
            "added {name:?} (type {}), not listed in the manifest\n",
            mshconv_app::report::type_label(*type_id)
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses to extract into a folder that holds anything (`io.not_empty`,
/// exit 2): its files would be overwritten, edits and all. A folder that does
/// not exist yet is fine.
pub(crate) fn refuse_non_empty(dir: &Path) -> anyhow::Result<()> {
    let mut entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // Not a folder, or not readable: creating or writing into it says why.
        Err(_) => return Ok(()),
    };
    if entries.next().is_some() {
        return Err(Error::usage(
            CliCode::IoNotEmpty,
            format!(
                "{} is not empty: extracting into it would overwrite its files (edits included); name an empty or new folder, or pass --force to overwrite",
                dir.display()
            ),
        )
        .into());
    }
    Ok(())
}

/// The files of an extracted folder that its manifest does not list (other
/// than `manifest.json`), sorted by name; folders in it are not looked at.
fn unlisted_files(dir: &Path, manifest: &Manifest) -> anyhow::Result<Vec<String>> {
    let cannot = || format!("cannot read {}", dir.display());
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(cannot)? {
        let entry = entry.with_context(cannot)?;
        if entry.path().is_dir() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let listed = name == MANIFEST_FILE || manifest.entries.iter().any(|e| e.file == name);
        if !listed {
            unlisted.push(name);
        }
    }
    unlisted.sort();
    Ok(unlisted)
}

/// The refusal of files the manifest does not list (`manifest.unlisted`, exit 2).
fn refuse_unlisted(dir: &Path, unlisted: &[String]) -> anyhow::Error {
    let shown: Vec<String> = unlisted.iter().take(10).map(|n| format!("{n:?}")).collect();
    Error::usage(
        CliCode::ManifestUnlisted,
        format!(
            "{} holds {} the manifest does not list: {}{}; pass --add to pack them as new entries (named after the file), or move them out of the folder",
            dir.display(),
            if unlisted.len() == 1 { "1 file".to_string() } else { format!("{} files", unlisted.len()) },
            shown.join(", "),
            if unlisted.len() > shown.len() { ", ..." } else { "" }
        ),
    )
    .into()
}

/// The type of a file added with `--add`, from its extension: the extension
/// upper-cased as the type's text (`tank.msh` gets `MSH`, the type of the
/// game's model entries; `notes.txt` gets `TXT`), for an extension of 2 to 4
/// ASCII letters or digits that is not all digits; `None` otherwise.
pub fn derived_type(file_name: &str) -> Option<u32> {
    let (stem, ext) = file_name.rsplit_once('.')?;
    let fits = !stem.is_empty()
        && (2..=4).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && !ext.bytes().all(|b| b.is_ascii_digit());
    if !fits {
        return None;
    }
    let mut bytes = [0u8; 4];
    bytes[..ext.len()].copy_from_slice(ext.to_ascii_uppercase().as_bytes());
    Some(u32::from_le_bytes(bytes))
}

/// Appends the unlisted files as new entries after the listed ones (in name
/// order), each named after its file, with the type [`derived_type`] gives and
/// attributes 0; the sort table is recomputed so the game's lookup finds them.
/// Returns each added name and type.
fn add_unlisted(
    dir: &Path,
    unlisted: &[String],
    archive: &mut OwnedArchive,
) -> anyhow::Result<Vec<(String, u32)>> {
    let mut added = Vec::new();
    for name in unlisted {
        let type_id = derived_type(name).ok_or_else(|| {
            Error::usage(
                CliCode::ManifestUnlisted,
                format!(
                    "{}: no type can be derived for {name:?} (it needs an extension of 2 to 4 letters or digits, such as .msh or .txt); list it in {MANIFEST_FILE} with its type_id instead",
                    dir.display()
                ),
            )
        })?;
        let taken = archive
            .entries
            .iter()
            .position(|e| nres::cmp_names(e.name.as_bytes(), name.as_bytes()).is_eq());
        if let Some(i) = taken {
            return Err(Error::usage(
                CliCode::ManifestUnlisted,
                format!(
                    "{}: {name:?} would be a second entry named like entry {i}; edit that entry's file instead, or rename it",
                    dir.display()
                ),
            )
            .into());
        }
        let data = read_file(&dir.join(name))?;
        let entry = OwnedEntry::new(type_id, name, data)
            .with_context(|| format!("{}: {name:?} cannot be an entry name", dir.display()))?;
        archive.entries.push(entry);
        if let Some(order) = &mut archive.physical_order {
            order.push(archive.entries.len() - 1);
        }
        added.push((name.clone(), type_id));
    }
    if !added.is_empty() {
        // The game finds entries by a binary search over the sort table.
        archive.recompute_sort_index();
    }
    Ok(added)
}

fn repack(path: &Path, target: &Path, out: &mut Out) -> anyhow::Result<ExitCode> {
    // Locked before the input is read: it may be the target itself.
    let lock = crate::fs::lock(&[target.to_path_buf()])?;
    let bytes = read_file(path)?;
    let archive = parse(path, &bytes)?;
    // The canonical form gives every entry its own copy: entries sharing their
    // bytes would multiply them (a 416 KB file asked for 1.1 GB).
    mshconv_app::archive::check_entries_disjoint(&archive)
        .map_err(|e| e.context(path.display()))?;
    let written = OwnedArchive::from_archive(&archive)
        .write(WriteMode::Canonical)
        .with_context(|| format!("cannot repack {}", path.display()))?;
    let (written_len, same) = (written.len(), written == bytes);
    let mut txn = lock.transaction();
    txn.replace(target, written);
    txn.commit()?;
    drop(lock);
    out.text(&format!(
        "repacked {} ({} entries) into {}: {} bytes, {}\n",
        path.display(),
        archive.len(),
        target.display(),
        written_len,
        if same {
            "identical (the input was canonical)"
        } else {
            "changed (the input was not canonical)"
        }
    ))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_file_names_are_plain_and_unique() {
        assert_eq!(payload_file_name(3, b"TANK.MSH"), "0003-TANK.MSH");
        assert_eq!(payload_file_name(12, b"../x"), "0012-.._x");
        assert_eq!(payload_file_name(0, b""), "0000.bin");
        assert_eq!(payload_file_name(1, b"a b\\c:d"), "0001-a_b_c_d");
    }
}
