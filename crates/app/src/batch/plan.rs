//! The planning step: folders walked, archives read by their directory,
//! outputs named, conflicts and skips decided.

use super::files::{is_damaged, read_directory};
use super::filter::Filter;
use super::report::Record;
use super::{Plan, Source, Task, Tell};
use crate::codes::ErrorCode;
use crate::names::entry_file_stem;
use crate::{archive, is_archive_path, Format};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Adds what one command-line input gives to the plan.
pub(super) fn plan_input(
    input: &Path,
    to: Format,
    out: &Path,
    out_dir: Option<&Path>,
    filter: &Filter,
    plan: &mut Plan,
    tell: Tell<'_>,
) {
    let label = input.display().to_string();
    if let Some((archive, entry)) = archive_entry(input) {
        // One entry of an archive: `units.rlb:TANK.MSH`.
        let only = Entries::Named(entry);
        let file_name = archive.file_name().map(PathBuf::from).unwrap_or_default();
        plan_archive(&archive, to, &out.join(file_name), &only, plan, tell);
        return;
    }
    if input.is_dir() {
        let mut found = Vec::new();
        walk(input, String::new(), out_dir, &mut found, plan);
        found.sort();
        for rel in found {
            let path = input.join(&rel);
            let wanted = if is_archive_path(&path) {
                to != Format::Msh
            } else {
                Format::from_path(&path).is_some_and(|from| from.converts_to(to))
            };
            if !wanted {
                continue;
            }
            let target = out.join(&rel);
            if is_archive_path(&path) {
                // Its entries are filtered as files in a folder named after it.
                let entries = Entries::Filtered {
                    filter,
                    rel: &rel,
                    archive_accepted: filter.accepts(&rel),
                };
                plan_archive(&path, to, &target, &entries, plan, tell);
            } else if filter.accepts(&rel) {
                plan_file(&path, to, target.with_extension(to.to_string()), plan);
            }
        }
        return;
    }
    let file_name = input.file_name().map(PathBuf::from).unwrap_or_default();
    if is_archive_path(input) {
        if to == Format::Msh {
            plan.decided.push(Record::skipped(
                &label,
                ErrorCode::InputNotConvertible.code(),
                "an archive holds .msh models already; there is nothing to convert to msh",
            ));
        } else {
            let name = file_name.to_string_lossy().into_owned();
            let entries = Entries::Filtered {
                filter,
                rel: &name,
                archive_accepted: filter.accepts(&name),
            };
            plan_archive(input, to, &out.join(&file_name), &entries, plan, tell);
        }
        return;
    }
    match Format::from_path(input) {
        Some(from) if from.converts_to(to) => {
            plan_file(
                input,
                to,
                out.join(file_name).with_extension(to.to_string()),
                plan,
            );
        }
        Some(from) => plan.decided.push(Record::skipped(
            &label,
            ErrorCode::InputNotConvertible.code(),
            format!("{from} does not convert to {to} ({})", Format::directions()),
        )),
        None => plan.decided.push(Record::skipped(
            &label,
            ErrorCode::InputNotConvertible.code(),
            "not a model: the name ends in none of .msh .glb .gltf .obj .rlb",
        )),
    }
}

/// Collects the files under `dir` as `/`-separated paths relative to the folder
/// given on the command line. Symbolic links to folders are not followed (no
/// cycles); OUT is not entered. A folder that cannot be read is a failure.
fn walk(dir: &Path, rel: String, out_dir: Option<&Path>, found: &mut Vec<String>, plan: &mut Plan) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            plan.decided.push(Record::failed(
                &dir.display().to_string(),
                crate::io_code(&e),
                format!("cannot read the folder: {e}"),
            ));
            return;
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if out_dir.is_some_and(|out| std::fs::canonicalize(&path).is_ok_and(|p| p == out)) {
                continue;
            }
            walk(&path, child, out_dir, found, plan);
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            found.push(child);
        }
    }
}

fn plan_file(path: &Path, to: Format, output: PathBuf, plan: &mut Plan) {
    let Some(from) = Format::from_path(path) else {
        return;
    };
    plan.tasks.push(Task {
        input: path.display().to_string(),
        source: Source::File(path.to_path_buf()),
        from,
        to,
        output,
        folder: path.parent().map(Path::to_path_buf),
        entry: None,
        dry_run: false,
    });
}

/// Which entries of an archive a batch takes.
enum Entries<'a> {
    /// The one named on the command line (`ARCHIVE:ENTRY`).
    Named(String),
    /// Every model entry the filter takes: an entry is the file `REL/ENTRY`
    /// (the archive read as a folder), taken when it or the archive matches
    /// an `--include` (`archive_accepted`) and neither matches an `--exclude`.
    Filtered {
        filter: &'a Filter,
        rel: &'a str,
        archive_accepted: bool,
    },
}

/// `ARCHIVE:ENTRY` on the command line: a path that does not exist as a file
/// whose part before the last `:` is an existing archive.
pub(super) fn archive_entry(input: &Path) -> Option<(PathBuf, String)> {
    if input.exists() {
        return None;
    }
    let (archive, entry) = input.to_str()?.rsplit_once(':')?;
    let archive = PathBuf::from(archive);
    (!entry.is_empty() && archive.is_file()).then(|| (archive, entry.to_string()))
}

/// Every `.msh` entry of an archive becomes a task writing into `target`
/// (`OUT/.../units.rlb/`); an archive that cannot be read or parsed is one failure.
/// Only the header and the directory are read here: the workers read each
/// entry's bytes themselves (no serial read of the whole archive, and no
/// archive held in memory).
fn plan_archive(
    path: &Path,
    to: Format,
    target: &Path,
    entries: &Entries<'_>,
    plan: &mut Plan,
    tell: Tell<'_>,
) {
    let label = path.display().to_string();
    let directory = match read_directory(path, tell) {
        Ok(directory) => directory,
        // An archive only its entries could have been taken from: nothing was
        // asked of it if it cannot be read.
        Err(_)
            if matches!(
                entries,
                Entries::Filtered {
                    archive_accepted: false,
                    ..
                }
            ) =>
        {
            return
        }
        Err(e) => {
            let damaged = is_damaged(&e);
            let e = if damaged {
                e.context("damaged archive")
            } else {
                e
            };
            let mut record = Record::failed(&label, e.code(), e.message());
            if damaged {
                record.bytes_in = std::fs::metadata(path).map_or(0, |m| m.len());
            }
            plan.decided.push(record);
            return;
        }
    };
    let mut models = archive::models(&directory);
    if let Entries::Named(name) = entries {
        let Some(index) = archive::find(&directory, name) else {
            let e = archive::no_such_entry(
                &format!("archive {label}"),
                name,
                directory.len(),
                &format!("`mshconv nres list {label}` lists them"),
            );
            plan.decided.push(Record::failed(
                &format!("{label}:{name}"),
                e.code(),
                e.message(),
            ));
            return;
        };
        models.retain(|m| m.index == index);
        if models.is_empty() {
            plan.decided.push(Record::skipped(
                &format!("{label}:{name}"),
                ErrorCode::InputNotConvertible.code(),
                "the entry is not a model (its name does not end in .msh)",
            ));
            return;
        }
    }
    if let Entries::Filtered {
        filter,
        rel,
        archive_accepted,
    } = entries
    {
        models.retain(|m| filter.accepts_entry(rel, &m.name, *archive_accepted));
    }
    // Model entries may share their bytes (valid NRes): each would be converted
    // and written once per entry, so such an archive is refused.
    if let Err(e) = archive::check_models_disjoint(&models) {
        plan.decided
            .push(Record::failed(&label, e.code(), e.message()));
        return;
    }
    let archive = Arc::new(path.to_path_buf());
    plan.tasks.extend(models.into_iter().map(|model| Task {
        input: format!("{label}:{}", model.name),
        output: target.join(format!(
            "{}.{to}",
            entry_file_stem(directory.name_bytes(model.index).unwrap_or_default())
        )),
        source: Source::Entry {
            archive: Arc::clone(&archive),
            range: model.range,
        },
        from: Format::Msh,
        to,
        folder: None,
        entry: None,
        dry_run: false,
    }));
}

/// Sorts the tasks by input, drops exact duplicates (one file named twice), and
/// turns a task whose output another task already writes into a failure: the
/// first by input wins, so the outcome does not depend on the order of INPUTs.
pub(super) fn order_and_check(plan: &mut Plan) -> Vec<Task> {
    let mut tasks = std::mem::take(&mut plan.tasks);
    tasks.sort_by(|a, b| (&a.input, &a.output).cmp(&(&b.input, &b.output)));
    tasks.dedup_by(|a, b| a.input == b.input && a.output == b.output);
    let mut owners: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut kept = Vec::with_capacity(tasks.len());
    for task in tasks {
        if let Some(owner) = owners.get(&task.output) {
            plan.decided.push(Record::failed(
                &task.input,
                ErrorCode::OutputConflict.code(),
                format!(
                    "{} is the output of {owner} already; leave one of them out (--exclude) or convert it separately",
                    task.output.display()
                ),
            ));
        } else {
            owners.insert(task.output.clone(), task.input.clone());
            kept.push(task);
        }
    }
    // Decided inputs named twice appear once.
    let mut seen = BTreeSet::new();
    plan.decided
        .retain(|r| seen.insert((r.input.clone(), r.code.clone())));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicting_outputs_fail_all_but_the_first_by_input() {
        let task = |input: &str, output: &str| Task {
            input: input.into(),
            source: Source::File(input.into()),
            from: Format::Glb,
            to: Format::Msh,
            output: output.into(),
            folder: None,
            entry: None,
            dry_run: false,
        };
        let mut plan = Plan {
            tasks: vec![
                task("m/tank.gltf", "o/tank.msh"),
                task("m/tank.glb", "o/tank.msh"),
                task("m/tank.glb", "o/tank.msh"),
                task("m/gate.glb", "o/gate.msh"),
            ],
            ..Plan::default()
        };
        let tasks = order_and_check(&mut plan);
        let inputs: Vec<&str> = tasks.iter().map(|t| t.input.as_str()).collect();
        assert_eq!(inputs, ["m/gate.glb", "m/tank.glb"]);
        assert_eq!(plan.decided.len(), 1);
        assert_eq!(plan.decided[0].input, "m/tank.gltf");
        assert_eq!(plan.decided[0].code.as_deref(), Some("output.conflict"));
    }
}
