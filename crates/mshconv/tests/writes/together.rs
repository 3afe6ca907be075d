//! Writers of one archive or game folder at once: each waits for the other,
//! and every write lands.

use super::*;
use std::process::{Child, Stdio};

fn spawn(args: &[&OsStr]) -> Child {
    Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .env_remove(HOOK)
        .args(adding(args))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for every child; each must exit 0. Returns whether any waited for a lock.
fn all_succeed(children: Vec<Child>) -> bool {
    let mut waited = false;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        waited |= stderr.contains("waiting for another mshconv writing ");
    }
    waited
}

const ROUNDS: usize = 12;

#[test]
fn converts_and_puts_into_one_archive_at_once_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let glb = robot_glb(dir.path());
    let archive = dir.path().join("units.rlb");
    let mut waits = 0;
    for round in 0..ROUNDS {
        std::fs::copy(fixture("archives/small.rlb"), &archive).unwrap();
        let into = |name: &str| format!("{}:{name}", archive.display());
        let (a, b) = (into("NEWA.MSH"), into("NEWB.MSH"));
        let children = vec![
            spawn(&[os("convert"), glb.as_os_str(), os(&a)]),
            spawn(&[os("convert"), glb.as_os_str(), os(&b)]),
            spawn(&[
                os("nres"),
                os("put"),
                archive.as_os_str(),
                glb.as_os_str(),
                os("--name"),
                os("NEWC.MSH"),
                os("--add"),
            ]),
        ];
        waits += usize::from(all_succeed(children));
        let names = entry_names(&archive);
        for name in ["NEWA.MSH", "NEWB.MSH", "NEWC.MSH"] {
            assert!(names.iter().any(|n| n == name), "round {round}: {names:?}");
        }
        assert_eq!(names.len(), 11, "round {round}: {names:?}");
        assert_eq!(hidden(dir.path()), Vec::<String>::new());
    }
    eprintln!("{waits} of {ROUNDS} rounds printed a wait");
}

#[test]
fn two_game_dir_imports_at_once_both_land() {
    let tmp = tempfile::tempdir().unwrap();
    let game = tmp.path().join("game");
    copy_game(&game);
    let pristine = files(&game);
    let a = tank_with_new_look(&game, &tmp.path().join("a"), "A");
    let b = tank_with_new_look(&game, &tmp.path().join("b"), "B");
    for round in 0..6 {
        for (rel, bytes) in &pristine {
            std::fs::write(game.join(rel), bytes).unwrap();
        }
        for bak in ["Material.lib.bak", "Textures.lib.bak"] {
            let _ = std::fs::remove_file(game.join(bak));
        }
        let units = |entry: &str| format!("{}:{entry}", game.join("units.rlb").display());
        let run = |gltf: &Path, entry: &str| {
            spawn(&[
                os("convert"),
                gltf.as_os_str(),
                os(&units(entry)),
                os("--game-dir"),
                game.as_os_str(),
            ])
        };
        all_succeed(vec![run(&a, "NEWA.MSH"), run(&b, "NEWB.MSH")]);
        let names = entry_names(&game.join("units.rlb"));
        for name in ["NEWA.MSH", "NEWA.WEA", "NEWB.MSH", "NEWB.WEA"] {
            assert!(names.iter().any(|n| n == name), "round {round}: {names:?}");
        }
        let materials = entry_names(&game.join("Material.lib"));
        let textures = entry_names(&game.join("Textures.lib"));
        for (lib, name) in [
            (&materials, "HULLA"),
            (&materials, "HULLB"),
            (&textures, "PAINTA"),
            (&textures, "PAINTB"),
        ] {
            assert!(
                lib.iter().any(|n| n == name),
                "round {round}: {name} in {lib:?}"
            );
        }
        // The first backup is the original library.
        assert_eq!(
            std::fs::read(game.join("Material.lib.bak")).unwrap(),
            pristine[Path::new("Material.lib")]
        );
        assert_eq!(hidden(&game), Vec::<String>::new());
    }
}

#[test]
fn a_batch_into_an_archive_beside_a_convert_both_land() {
    let dir = tempfile::tempdir().unwrap();
    let glb = robot_glb(dir.path());
    let glbs = dir.path().join("glbs");
    std::fs::create_dir(&glbs).unwrap();
    for stem in ["alpha", "beta", "gamma"] {
        std::fs::copy(&glb, glbs.join(format!("{stem}.glb"))).unwrap();
    }
    let archive = dir.path().join("units.rlb");
    for round in 0..8 {
        std::fs::copy(fixture("archives/small.rlb"), &archive).unwrap();
        let entry = format!("{}:NEWC.MSH", archive.display());
        let children = vec![
            spawn(&[
                os("batch"),
                glbs.as_os_str(),
                os("--to"),
                os("msh"),
                os("--into"),
                archive.as_os_str(),
            ]),
            spawn(&[os("convert"), glb.as_os_str(), os(&entry)]),
        ];
        all_succeed(children);
        let names = entry_names(&archive);
        for name in ["ALPHA.MSH", "BETA.MSH", "GAMMA.MSH", "NEWC.MSH"] {
            assert!(names.iter().any(|n| n == name), "round {round}: {names:?}");
        }
        assert_eq!(hidden(dir.path()), Vec::<String>::new());
    }
}
