//! Writing the user's files: archives, the game folder's libraries, a model's
//! WEAR and the model. One implementation for every front end (the CLI now,
//! the service and other front ends later); docs/ROBUSTNESS.md ("Writing
//! your files") says what a user can rely on.
//!
//! - [`Lock`]: writers of one folder take turns, across processes, from
//!   before they read the files until they are replaced.
//! - [`Transaction`]: the files of one write (textures, materials, WEAR,
//!   model) replaced as one: every new file is first written whole under an
//!   exclusive temporary name beside its target and flushed, a journal in
//!   each folder records the plan, then the files are renamed over their
//!   targets in the order given. A failure restores every file; a run that
//!   dies is finished by the next one that locks the folder (rolled back
//!   before every new file was complete, forward after).
//! - A journal found on the disk is acted on only when this program wrote it
//!   for that folder (`trust`: every folder it names holds it; each file it
//!   would replace or remove proven by the files beside it, `recover`); else
//!   it is `txn.journal_unknown`, never acted on, and never stops a reader.
//! - A symbolic link is written through (its target replaced, the link
//!   kept); a replaced file keeps its mode, group (and owner, for root); a
//!   read-only or hard-linked file is refused (`io.read_only`,
//!   `io.hard_linked`) before anything is written. A file the user did not
//!   name (a WEAR, a backup) is never written through a link out of its
//!   folder ([`check_side`]).
//! - [`recover_before_reading`]: a folder read without a lock is first
//!   rid of an interrupted run's half-finished write.
//! - [`Preview`]: a dry run's files staged as a transaction's are
//!   ([`Stage`]), each said to be new, changed or unchanged, none written.

mod before_read;
mod check;
mod file;
mod hook;
mod journal;
mod lock;
mod lockset;
mod preview;
mod recover;
mod trust;

pub use before_read::{recover_before_reading, recover_before_reading_file, recovered_note};
pub use check::check_replaceable_unlocked;
pub use file::{
    check_replaceable, check_side, folder_of, keep_metadata, real_path, sync_folder, write_temp,
};
pub use hook::HOOK_VAR;
pub use journal::{parse as parse_journal, Found as FoundJournal, Journal, JOURNAL};
pub use lock::{recover_pending, Event, Lock, LOCK_FILE};
pub use preview::{Change, FileChange, Preview, Stage};

use crate::Error;
use file::{copy_exclusively, remove_if_there};
use journal::State;
use std::path::{Path, PathBuf};

/// One file of a transaction, as given.
#[derive(Debug)]
struct Step {
    /// The path the caller named (messages use it).
    shown: PathBuf,
    bytes: Vec<u8>,
    /// A backup: written only when no file of that name is there.
    only_if_absent: bool,
    /// A file the user did not name ([`check_side`]).
    side: bool,
    /// Whose mode, owner and group a new file takes.
    like: Option<PathBuf>,
}

/// A step resolved: where its files are.
#[derive(Debug)]
struct Placed {
    step: Step,
    target: PathBuf,
    temp: PathBuf,
    /// The new file's second name, the proof that the target is it.
    new: PathBuf,
    old: Option<PathBuf>,
}

/// The files of one write, replaced as one under a [`Lock`].
#[derive(Debug)]
pub struct Transaction<'a> {
    lock: &'a Lock,
    steps: Vec<Step>,
}

/// What a committed transaction wrote: the paths as given, in order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Written {
    /// Every file written.
    pub files: Vec<PathBuf>,
}

impl Written {
    /// Whether `path` (as given) was written.
    pub fn wrote(&self, path: &Path) -> bool {
        self.files.iter().any(|f| f == path)
    }
}

impl<'a> Transaction<'a> {
    fn new(lock: &'a Lock) -> Transaction<'a> {
        Transaction {
            lock,
            steps: Vec::new(),
        }
    }

    /// Replaces (or creates) `path` with `bytes`, after the files added before.
    pub fn replace(&mut self, path: impl Into<PathBuf>, bytes: Vec<u8>) {
        self.steps.push(Step {
            shown: path.into(),
            bytes,
            only_if_absent: false,
            side: false,
            like: None,
        });
    }

    /// Like [`Transaction::replace`], for a file the user did not name but
    /// that goes beside one they did (a WEAR): a symbolic link there that
    /// leads out of its folder is refused ([`check_side`]).
    pub fn replace_side(&mut self, path: impl Into<PathBuf>, bytes: Vec<u8>) {
        self.replace(path, bytes);
        if let Some(step) = self.steps.last_mut() {
            step.side = true;
        }
    }

    /// Writes the backup `path` of the file `of` (its old `bytes`), unless a
    /// file of that name is there already; it takes `of`'s mode and group.
    pub fn backup(&mut self, path: impl Into<PathBuf>, bytes: Vec<u8>, of: &Path) {
        self.steps.push(Step {
            shown: path.into(),
            bytes,
            only_if_absent: true,
            side: true,
            like: Some(of.to_path_buf()),
        });
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// What committing would do to each file, as a [`Preview`] says it
    /// (asked before [`Transaction::commit`]: the files as they are now).
    pub fn changes(&self) -> Vec<FileChange> {
        self.steps
            .iter()
            .filter_map(|s| preview::change_of(&s.shown, &s.bytes, s.only_if_absent))
            .collect()
    }

    /// Writes every file: all or none. On failure every file is as it was
    /// before, and the error names the file that failed.
    pub fn commit(self) -> Result<Written, Error> {
        let placed = self.place()?;
        if placed.is_empty() {
            return Ok(Written::default());
        }
        let id = new_id();
        let placed: Vec<Placed> = placed
            .into_iter()
            .map(|(step, target)| {
                let name = target
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let dir = folder_of(&target);
                let temp = dir.join(format!(".{name}.{id}.tmp"));
                let new = dir.join(format!(".{name}.{id}.new"));
                let old = target
                    .exists()
                    .then(|| dir.join(format!(".{name}.{id}.old")));
                Placed {
                    step,
                    target,
                    temp,
                    new,
                    old,
                }
            })
            .collect();
        let mut folders: Vec<PathBuf> = placed
            .iter()
            .map(|p| folder_of(&p.target).to_path_buf())
            .collect();
        folders.sort();
        folders.dedup();
        let mut journal = Journal::new(
            id,
            &folders,
            placed
                .iter()
                .map(|p| journal::Step {
                    target: journal::encode(&p.target),
                    temp: journal::encode(&p.temp),
                    old: p.old.as_deref().map(journal::encode),
                })
                .collect(),
        );
        let mut run = Run {
            placed: &placed,
            folders: &folders,
            journaled: Vec::new(),
        };
        run.prepare(&journal)?;
        journal.state = State::Committed;
        // A journal's own error keeps its code (a full disk is `io.no_space`).
        folders
            .iter()
            .try_for_each(|f| journal::rewrite(f, &journal))
            .map_err(nothing_changed)
            .and_then(|()| run.step("commit", Path::new(""), |_| Ok(())))
            .inspect_err(|_| run.discard(&journal))?;
        for p in &placed {
            let applied = std::fs::rename(&p.temp, &p.target)
                .map(|()| sync_folder(folder_of(&p.target)))
                .and_then(|()| hook::point(&format!("replace {}", p.step.shown.display())));
            if let Err(e) = applied {
                journal.state = State::RollingBack;
                return Err(run.roll_back(&journal, &p.step.shown, &e));
            }
        }
        let _ = hook::point("done");
        for p in &placed {
            let _ = remove_if_there(&p.new);
            if let Some(old) = &p.old {
                let _ = remove_if_there(old);
            }
        }
        for f in &folders {
            journal::remove(f, &journal.id);
            let _ = hook::point(&format!("cleaned {}", f.display()));
        }
        Ok(Written {
            files: placed.into_iter().map(|p| p.step.shown).collect(),
        })
    }

    /// Each step's real target, checked; backups already there left out.
    fn place(self) -> Result<Vec<(Step, PathBuf)>, Error> {
        let mut placed = Vec::with_capacity(self.steps.len());
        for step in self.steps {
            // A backup is never written over anything at its name (a link too).
            if step.only_if_absent && std::fs::symlink_metadata(&step.shown).is_ok() {
                continue;
            }
            if step.side {
                check_side(&step.shown)?;
            }
            let target = real_path(&step.shown)?;
            if !self
                .lock
                .locked()
                .iter()
                .any(|f| f.as_path() == folder_of(&target))
            {
                return Err(Error::internal(format!(
                    "{} is written in a folder that is not locked",
                    step.shown.display()
                )));
            }
            if step.only_if_absent && std::fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            check_replaceable(&target, &step.shown)?;
            placed.push((step, target));
        }
        Ok(placed)
    }
}

impl Stage for Transaction<'_> {
    fn replace(&mut self, path: PathBuf, bytes: Vec<u8>) {
        Transaction::replace(self, path, bytes);
    }

    fn replace_side(&mut self, path: PathBuf, bytes: Vec<u8>) {
        Transaction::replace_side(self, path, bytes);
    }

    fn backup(&mut self, path: PathBuf, bytes: Vec<u8>, of: &Path) {
        Transaction::backup(self, path, bytes, of);
    }
}

/// A transaction's id: 16 hex digits no other run can guess (std's
/// randomly keyed hasher over the process id and the time), in the names of
/// its temporary files; they are made exclusively all the same.
fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    h.write_u128(now.map_or(0, |d| d.as_nanos()));
    format!("{:016x}", h.finish())
}

/// `e`, a failure before the commit, saying that nothing was changed.
fn nothing_changed(e: Error) -> Error {
    let message = format!("{}; nothing was changed", e.message());
    e.with_message(message)
}

/// A transaction being written.
struct Run<'p> {
    placed: &'p [Placed],
    folders: &'p [PathBuf],
    /// The folders whose journal is written.
    journaled: Vec<PathBuf>,
}

impl Run<'_> {
    /// The journals, then every new file under its temporary name (flushed),
    /// then every old file kept under a second name (a hard link, else a copy).
    fn prepare(&mut self, journal: &Journal) -> Result<(), Error> {
        for f in self.folders {
            if let Err(e) = journal::write_new(f, journal) {
                self.discard(journal);
                return Err(nothing_changed(e));
            }
            self.journaled.push(f.clone());
            self.step("journal", f, |_| Ok(()))
                .inspect_err(|_| self.discard(journal))?;
        }
        for p in self.placed {
            let like = p
                .step
                .like
                .as_deref()
                .or(p.old.as_ref().map(|_| p.target.as_path()));
            self.step("temp", &p.step.shown, |_| {
                write_temp(&p.temp, &p.step.bytes, like, true)?;
                // The proof recovery asks before it puts a target back
                // (none where the file system has no hard links).
                let _ = std::fs::hard_link(&p.temp, &p.new);
                Ok(())
            })
            .inspect_err(|_| self.discard(journal))?;
        }
        for p in self.placed {
            let Some(old) = &p.old else { continue };
            self.step("keep", &p.step.shown, |_| {
                std::fs::hard_link(&p.target, old).or_else(|_| copy_exclusively(&p.target, old))
            })
            .inspect_err(|_| self.discard(journal))?;
        }
        for f in self.folders {
            sync_folder(f);
        }
        Ok(())
    }

    /// Runs one step and its hook point; an error names `file`.
    fn step(
        &self,
        what: &str,
        file: &Path,
        work: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Result<(), Error> {
        work(file)
            .and_then(|()| hook::point(&format!("{what} {}", file.display())))
            .map_err(|e| {
                let what = if what == "journal" {
                    format!("cannot write the journal in {}", file.display())
                } else if file.as_os_str().is_empty() {
                    format!(
                        "cannot write the journal in {}",
                        self.folders
                            .first()
                            .map(|f| f.display().to_string())
                            .unwrap_or_default()
                    )
                } else {
                    format!("cannot write {}", file.display())
                };
                Error::io_message(&e, format!("{what}: {e}; nothing was changed"))
            })
    }

    /// Removes what a transaction that did not commit made.
    fn discard(&self, journal: &Journal) {
        for p in self.placed {
            let _ = remove_if_there(&p.temp);
            let _ = remove_if_there(&p.new);
            if let Some(old) = &p.old {
                let _ = remove_if_there(old);
            }
        }
        for f in &self.journaled {
            journal::remove(f, &journal.id);
        }
    }

    /// Replacing the file `failed` failed: puts back the files replaced
    /// before it, removes the rest.
    fn roll_back(&self, journal: &Journal, failed: &Path, e: &std::io::Error) -> Error {
        for f in self.folders {
            let _ = journal::rewrite(f, journal);
        }
        let state = recover::recover(journal, State::RollingBack, recover::Source::Own);
        let outcome = match &state {
            Ok(_) => "every file this run had replaced was put back".to_string(),
            Err(r) => format!("putting the files back failed too: {}", r.message()),
        };
        Error::io_message(
            e,
            format!("cannot replace {}: {e}; {outcome}", failed.display()),
        )
    }
}

#[cfg(test)]
mod tests;
