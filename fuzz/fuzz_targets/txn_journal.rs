//! A transaction journal (`.mshconv.journal`) as the next mshconv command
//! finds it in a game folder, acted on for real: any bytes (`$G` and `$V`
//! stand for the paths of the two folders below) are the journal of a
//! folder `game`, beside a folder `victim` that holds no journal; both hold
//! user files and files named as a transaction's (`.NAME.ID.tmp`, `.old`,
//! `.new`). Then the recovery a reader runs (`recover_pending`) must never
//! panic, and the oracle, which knows nothing of the journal's rules, is
//! what the user may rely on whatever the journal says:
//! - no file of `victim` changes, appears or goes;
//! - in `game`, a file not named as a transaction's is left as it was,
//!   changed only to the exact bytes of its own `.NAME.ID.tmp` or
//!   `.NAME.ID.old` as they were, and removed only when it was the same file
//!   as its own `.NAME.ID.new`; a transaction's names are only removed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_app::txn::recover_pending;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The id of the transaction-named files set up (a journal must guess it).
const ID: &str = "0123456789abcdef";

/// A file as it was: bytes, and (dev, inode).
type Snapshot = BTreeMap<String, (Vec<u8>, (u64, u64))>;

fn snapshot(dir: &Path) -> Snapshot {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let meta = fs::symlink_metadata(e.path()).unwrap();
        let bytes = if meta.is_file() {
            fs::read(e.path()).unwrap()
        } else {
            b"<not a file>".to_vec()
        };
        out.insert(name, (bytes, (meta.dev(), meta.ino())));
    }
    out
}

/// The two folders, made afresh under `root`.
fn set_up(root: &Path) -> (PathBuf, PathBuf) {
    let _ = fs::remove_dir_all(root);
    let (game, victim) = (root.join("game"), root.join("victim"));
    fs::create_dir_all(&game).unwrap();
    fs::create_dir_all(&victim).unwrap();
    let own = |dir: &Path, name: &str, suffix: &str| dir.join(format!(".{name}.{ID}.{suffix}"));
    for dir in [&game, &victim] {
        for (name, bytes) in [("units.rlb", "U0"), ("a.txt", "A0"), ("b.txt", "B0"), ("keep.txt", "K0")] {
            fs::write(dir.join(name), bytes).unwrap();
        }
        // units.rlb: a new file waiting, the old one kept (linked).
        fs::write(own(dir, "units.rlb", "tmp"), "U1").unwrap();
        fs::hard_link(dir.join("units.rlb"), own(dir, "units.rlb", "old")).unwrap();
        // a.txt: replaced (its .new is it), its old kept.
        fs::hard_link(dir.join("a.txt"), own(dir, "a.txt", "new")).unwrap();
        fs::write(own(dir, "a.txt", "old"), "A-old").unwrap();
        // b.txt: a new file waiting, no old kept; d.txt: a new file only.
        fs::write(own(dir, "b.txt", "tmp"), "B1").unwrap();
        fs::write(own(dir, "d.txt", "tmp"), "D1").unwrap();
    }
    (
        fs::canonicalize(game).unwrap(),
        fs::canonicalize(victim).unwrap(),
    )
}

/// Whether `name` is named as a transaction's file or journal or lock.
fn transaction_named(name: &str) -> bool {
    if name.starts_with(".mshconv.") {
        return true;
    }
    let mut parts = name.rsplitn(3, '.');
    let (suffix, id) = (parts.next(), parts.next());
    name.starts_with('.')
        && matches!(suffix, Some("tmp" | "old" | "new"))
        && id.is_some_and(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The pre-state files `.name.ID.suffix` (any id) with these suffixes.
fn own_files<'a>(
    before: &'a Snapshot,
    name: &'a str,
    suffixes: &'a [&'a str],
) -> impl Iterator<Item = &'a (Vec<u8>, (u64, u64))> {
    before.iter().filter_map(move |(n, f)| {
        let rest = n.strip_prefix('.')?.strip_prefix(name)?.strip_prefix('.')?;
        let (id, suffix) = rest.split_once('.')?;
        (id.len() == 16 && suffixes.contains(&suffix)).then_some(f)
    })
}

fuzz_target!(|data: &[u8]| {
    let root = std::env::temp_dir().join(format!("mshconv-fuzz-txn-{}", std::process::id()));
    let (game, victim) = set_up(&root);
    let text = String::from_utf8_lossy(data)
        .replace("$G", &game.to_string_lossy())
        .replace("$V", &victim.to_string_lossy());
    fs::write(game.join(".mshconv.journal"), text).unwrap();
    let (game_before, victim_before) = (snapshot(&game), snapshot(&victim));
    let _ = recover_pending(&game, &mut |_| {});
    assert_eq!(snapshot(&victim), victim_before, "a victim file changed");
    let game_after = snapshot(&game);
    let names: std::collections::BTreeSet<&String> =
        game_before.keys().chain(game_after.keys()).collect();
    for name in names {
        let (then, now) = (game_before.get(name), game_after.get(name));
        if transaction_named(name) {
            assert!(
                now.is_none() || name.starts_with(".mshconv.") || now.map(|f| &f.0) == then.map(|f| &f.0),
                "{name}: a transaction's file changed"
            );
            continue;
        }
        match (then, now) {
            (Some(a), Some(b)) if a.0 == b.0 => {}
            (_, Some(b)) => assert!(
                own_files(&game_before, name, &["tmp", "old"]).any(|f| f.0 == b.0),
                "{name}: changed to bytes not its own temporary or old file's"
            ),
            (Some(a), None) => assert!(
                own_files(&game_before, name, &["new"]).any(|f| f.1 == a.1),
                "{name}: removed, not being its own new file"
            ),
            (None, None) => {}
        }
    }
    let _ = fs::remove_dir_all(&root);
});
