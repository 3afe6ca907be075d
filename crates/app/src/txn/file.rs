//! One file a writer replaces: where it really is (a symbolic link is
//! followed), whether it may be replaced (not read-only, one name only), and
//! the temporary file beside it, made exclusively and given its mode, owner
//! and group.

use crate::codes::ErrorCode;
use crate::{Error, Kind};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder of `path` (`.` for a bare file name).
pub fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Where the file `path` really is: a symbolic link followed to its target
/// (the link itself is kept), the folders made absolute. A file that does not
/// exist yet is its (real) folder joined with its name.
pub fn real_path(path: &Path) -> Result<PathBuf, Error> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            Error::io_message(
&e, format!(
                    "{} is a symbolic link to a file that cannot be reached ({e}); mshconv writes through a link to its target",
                    path.display()
                ),
            )
        }),
        _ => {
            let folder = folder_of(path);
            let real = std::fs::canonicalize(folder).map_err(|e| Error::io(folder.display(), &e))?;
            Ok(match path.file_name() {
                Some(name) => real.join(name),
                None => real,
            })
        }
    }
}

/// Refuses to write `path`, a file the user did not name but mshconv writes
/// beside one they did (a WEAR, an `.mtl`, a PNG, a `.bak`), through a
/// symbolic link that leads out of its folder, or to nothing
/// (`io.link_leaves_folder`): a link planted there must not make mshconv
/// write elsewhere. A link to a file in the same folder, or no link, is fine.
pub fn check_side(path: &Path) -> Result<(), Error> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(());
    }
    let folder = std::fs::canonicalize(folder_of(path)).ok();
    let stays = match std::fs::canonicalize(path) {
        Ok(real) => folder.as_deref() == Some(folder_of(&real)),
        Err(_) => false,
    };
    if stays {
        return Ok(());
    }
    Err(Error::new(
        Kind::Io,
        ErrorCode::IoLinkLeavesFolder,
        format!(
            "{} is a symbolic link out of its folder (or to nothing): mshconv writes a file beside the one you named only in that folder, never through such a link; remove the link, or name the file itself",
            path.display()
        ),
    ))
}

/// Refuses to replace `path` (a real path) when it is read-only (no write
/// bit, whoever runs mshconv, root too: `io.read_only`), has other names
/// (hard links: `io.hard_linked`) or is not a file. A file that does not
/// exist is fine. `shown` is the name the user gave.
pub fn check_replaceable(path: &Path, shown: &Path) -> Result<(), Error> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(shown.display(), &e)),
    };
    if meta.is_dir() {
        return Err(Error::new(
            Kind::Io,
            ErrorCode::IoIsADirectory,
            format!("{} is a folder, not a file", shown.display()),
        ));
    }
    if meta.permissions().readonly() {
        return Err(Error::new(
            Kind::Io,
            ErrorCode::IoReadOnly,
            format!(
                "{} is read-only{}: mshconv does not replace a file without write permission; make it writable (chmod u+w) to write it",
                shown.display(),
                mode_text(&meta)
            ),
        ));
    }
    if let Some(links) = extra_names(&meta) {
        return Err(Error::new(
            Kind::Io,
            ErrorCode::IoHardLinked,
            format!(
                "{} has {links} names (hard links): a file is replaced by writing a new one and renaming it, which would leave the other names holding the old content; give it one name (copy it over itself: cp --remove-destination), or link it symbolically (mshconv writes through a symbolic link)",
                shown.display()
            ),
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn mode_text(meta: &std::fs::Metadata) -> String {
    use std::os::unix::fs::PermissionsExt;
    format!(" (mode {:04o})", meta.permissions().mode() & 0o7777)
}

#[cfg(not(unix))]
fn mode_text(_: &std::fs::Metadata) -> String {
    String::new()
}

/// The number of names of a file that has more than one.
#[cfg(unix)]
fn extra_names(meta: &std::fs::Metadata) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    (meta.nlink() > 1).then_some(meta.nlink())
}

#[cfg(not(unix))]
fn extra_names(_: &std::fs::Metadata) -> Option<u64> {
    None
}

/// Creates `temp` exclusively (`O_CREAT | O_EXCL`: an existing file or a
/// symbolic link of that name is an error, never followed), writes `bytes`,
/// gives it the mode, owner and group of `like` when that exists (as far as
/// the user may: the group is kept when the user is in it, the owner only by
/// root), and flushes it to the disk when `durable`.
pub fn write_temp(
    temp: &Path,
    bytes: &[u8],
    like: Option<&Path>,
    durable: bool,
) -> std::io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(temp)?;
    if let Some(like) = like {
        keep_metadata(&file, like)?;
    }
    file.write_all(bytes)?;
    if durable {
        file.sync_all()?;
    }
    Ok(())
}

/// Gives the open `file` the mode, owner and group of the file `like`, when
/// that exists (the owner only for root; the group when the user is in it).
pub fn keep_metadata(file: &File, like: &Path) -> std::io::Result<()> {
    match std::fs::metadata(like) {
        Ok(meta) => {
            copy_owner(file, &meta);
            file.set_permissions(meta.permissions())
        }
        Err(_) => Ok(()),
    }
}

#[cfg(unix)]
fn copy_owner(file: &File, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    // Root keeps the owner too; anyone else can only keep a group they are in.
    if std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())).is_err() {
        let _ = std::os::unix::fs::fchown(file, None, Some(meta.gid()));
    }
}

#[cfg(not(unix))]
fn copy_owner(_: &File, _: &std::fs::Metadata) {}

/// Copies `from` to `to` (created exclusively) and flushes it: the old file
/// kept when it cannot be linked.
pub fn copy_exclusively(from: &Path, to: &Path) -> std::io::Result<()> {
    let bytes = std::fs::read(from)?;
    write_temp(to, &bytes, Some(from), true)
}

/// Flushes a folder, so that renames and removals in it are on the disk
/// (best effort: not every platform opens a folder as a file).
pub fn sync_folder(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Removes `path` if it is there.
pub fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_temporary_file_is_never_made_through_a_link_placed_at_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, b"mine").unwrap();
        let temp = dir.path().join(".units.rlb.0123.tmp");
        std::os::unix::fs::symlink(&victim, &temp).unwrap();
        let e = write_temp(&temp, b"archive", None, true).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&victim).unwrap(), b"mine");
        assert!(std::fs::symlink_metadata(&temp)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn read_only_and_hard_linked_files_are_refused_and_links_followed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.rlb");
        std::fs::write(&file, b"x").unwrap();
        check_replaceable(&file, &file).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(
            check_replaceable(&file, &file).unwrap_err().code(),
            "io.read_only"
        );
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::hard_link(&file, dir.path().join("b.rlb")).unwrap();
        assert_eq!(
            check_replaceable(&file, &file).unwrap_err().code(),
            "io.hard_linked"
        );
        let link = dir.path().join("link.rlb");
        std::os::unix::fs::symlink("a.rlb", &link).unwrap();
        assert_eq!(
            real_path(&link).unwrap(),
            std::fs::canonicalize(&file).unwrap()
        );
        check_replaceable(&dir.path().join("new.rlb"), Path::new("new.rlb")).unwrap();
    }
}
