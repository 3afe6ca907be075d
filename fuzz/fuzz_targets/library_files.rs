//! The files a modder edits in place of the game's libraries
//! (docs/LIBRARY_FILES.md): the first byte picks the material file (even) or
//! `textures.json` (odd), the rest is its text, planned against the fixture
//! game folder's library. Planning never panics; a plan that changes the
//! library gives bytes that read back as an NRes archive.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_app::library_files::{materials, textures, ImportPlan};
use mshconv_app::look_import::Library;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

static MATERIALS: &[u8] = include_bytes!("../../fixtures/small/game/Material.lib");
static TEXTURES: &[u8] = include_bytes!("../../fixtures/small/game/Textures.lib");

/// The folder `textures.json` is written to, one per fuzzing process.
fn folder() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("mshconv-fuzz-textures-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp folder");
        dir
    })
}

fn check(plan: ImportPlan) {
    if let Some(bytes) = plan.bytes {
        nres::Archive::parse(&bytes).expect("a planned library is an NRes archive");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    if pick % 2 == 0 {
        let library = Library {
            path: PathBuf::from("Material.lib"),
            bytes: Some(MATERIALS.to_vec()),
        };
        // The fixture's texture names: a changed material naming another is refused.
        let textures: Vec<Vec<u8>> = nres::Archive::parse(TEXTURES)
            .map(|a| a.entries().map(|e| e.name_bytes().to_vec()).collect())
            .unwrap_or_default();
        let plan =
            materials::plan_import(Path::new("materials.json"), text, &library, Some(&textures));
        if let Ok(plan) = plan {
            check(plan);
        }
    } else {
        let dir = folder();
        std::fs::write(dir.join("textures.json"), text).expect("textures.json written");
        let library = Library {
            path: PathBuf::from("Textures.lib"),
            bytes: Some(TEXTURES.to_vec()),
        };
        if let Ok(plan) = textures::plan_import(dir, &library) {
            check(plan);
        }
    }
});
