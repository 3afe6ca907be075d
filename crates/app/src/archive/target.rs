//! Where a model is written: a file, or an entry of an existing archive
//! (`ARCHIVE:ENTRY`), told apart once for every front end. A name whose
//! archive part is missing or a folder is refused, never written as a file
//! literally named `ARCHIVE:ENTRY`.

use crate::codes::ErrorCode;
use crate::error::{Error, Kind};
use crate::format::{is_archive_path, Format};
use std::path::{Path, PathBuf};

/// Where a conversion's output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file (or `-`, stdout).
    File,
    /// An entry of an existing archive.
    Entry {
        /// The archive file.
        archive: PathBuf,
        /// The entry's name.
        name: String,
    },
}

/// The format a model written to `output` (told apart as `target`) is
/// written in: MSH into an archive's entry (another `to` refused,
/// `convert.unsupported_direction`), else `to`, else the one `output`'s name
/// tells (`convert.unknown_format` when it tells none).
pub fn output_format(target: &Target, to: Option<Format>, output: &Path) -> Result<Format, Error> {
    match (target, to) {
        (Target::Entry { .. }, Some(f)) if f != Format::Msh => Err(Error::usage(
            ErrorCode::ConvertUnsupportedDirection,
            format!(
                "{} names an entry of an archive, which holds MSH models; leave out --to {f}",
                output.display()
            ),
        )),
        (Target::Entry { .. }, _) => Ok(Format::Msh),
        (_, Some(f)) => Ok(f),
        (_, None) => Format::from_path(output).ok_or_else(|| {
            Error::usage(
                ErrorCode::ConvertUnknownFormat,
                format!(
                    "cannot tell the format of {} from its name; give --to",
                    output.display()
                ),
            )
        }),
    }
}

/// Most archives a folder's refusal names.
const FOLDER_SUGGESTIONS: usize = 3;

/// Tells `output` apart: `-` or a path that exists is that file;
/// `ARCHIVE:ENTRY` whose archive is a file is an entry of it. A name like
/// `units.rlb:TANK.MSH` whose archive does not exist is refused
/// (`io.not_found`), and one whose archive part is a folder
/// (`game:TANK.MSH`) too ([`check_not_folder`]).
pub fn target(output: &Path) -> Result<Target, Error> {
    if output.as_os_str() == "-" || output.exists() {
        return Ok(Target::File);
    }
    let Some((archive, name)) = output.to_str().and_then(|s| s.rsplit_once(':')) else {
        return Ok(Target::File);
    };
    // A name with `/` (`units.rlb:sub/TANK.MSH`) is still an entry of an
    // existing archive: the put refuses it (`archive.bad_name`), as the
    // service does, rather than writing a file of that path.
    if archive.is_empty() || name.is_empty() {
        return Ok(Target::File);
    }
    let archive = PathBuf::from(archive);
    if archive.is_file() {
        return Ok(Target::Entry {
            archive,
            name: name.to_string(),
        });
    }
    check_not_folder(&archive, Some(name))?;
    if is_archive_path(&archive) {
        return Err(Error::new(
            Kind::Io,
            ErrorCode::IoNotFound,
            format!(
                "{} does not exist: a model is put into an existing archive (`mshconv nres pack` makes one)",
                archive.display()
            ),
        ));
    }
    Ok(Target::File)
}

/// Refuses a folder given where an archive is expected (`archive.is_folder`),
/// naming the folder and the archives in it (`game/units.rlb`, with
/// `:ENTRY` when `entry` is given) or saying that none is there.
pub fn check_not_folder(path: &Path, entry: Option<&str>) -> Result<(), Error> {
    if !path.is_dir() {
        return Ok(());
    }
    let mut archives: Vec<PathBuf> = std::fs::read_dir(path)
        .map(|list| {
            list.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_archive_path(p) && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    archives.sort();
    let entry = entry.map_or_else(String::new, |e| format!(":{e}"));
    let shown: Vec<String> = archives
        .iter()
        .take(FOLDER_SUGGESTIONS)
        .map(|a| format!("{}{entry}", a.display()))
        .collect();
    let hint = if shown.is_empty() {
        "it holds no .rlb archive; give the path of an existing archive file".to_string()
    } else {
        format!("give the archive's path, such as {}", shown.join(" or "))
    };
    Err(Error::usage(
        ErrorCode::ArchiveIsFolder,
        format!("{} is a folder, not an archive: {hint}", path.display()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_no_archive() {
        let dir = std::env::temp_dir().join(format!("mshconv-target-{}", std::process::id()));
        let game = dir.join("game");
        std::fs::create_dir_all(&game).unwrap();
        let spec = PathBuf::from(format!("{}:TANK.MSH", game.display()));
        let e = target(&spec).unwrap_err();
        assert_eq!(e.code(), "archive.is_folder");
        assert!(
            e.message().contains("holds no .rlb archive"),
            "{}",
            e.message()
        );
        std::fs::write(game.join("units.rlb"), b"x").unwrap();
        let e = target(&spec).unwrap_err();
        let wanted = format!("such as {}:TANK.MSH", game.join("units.rlb").display());
        assert!(e.message().contains(&wanted), "{}", e.message());
        assert_eq!(
            target(&PathBuf::from(format!(
                "{}:TANK.MSH",
                game.join("units.rlb").display()
            )))
            .unwrap(),
            Target::Entry {
                archive: game.join("units.rlb"),
                name: "TANK.MSH".into()
            }
        );
        assert_eq!(
            check_not_folder(&game, None).unwrap_err().code(),
            "archive.is_folder"
        );
        check_not_folder(&game.join("units.rlb"), None).unwrap();
        assert_eq!(target(&dir.join("x.msh")).unwrap(), Target::File);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
