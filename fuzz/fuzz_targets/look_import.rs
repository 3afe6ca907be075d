//! The way back of the look: images decoded (`raster`), an `.mtl` and a glTF
//! read for their look, and the glTF's look planned against the fixture game
//! folder's libraries. Never panics; whatever the plan accepts writes
//! libraries and a WEAR that read back, every entry of which parses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mshconv_app::look_import::{plan, Libraries, Library};
use mshconv_material::{Mat0, Texm, Wear};

const MATERIALS: &[u8] = include_bytes!("../../fixtures/small/game/Material.lib");
const TEXTURES: &[u8] = include_bytes!("../../fixtures/small/game/Textures.lib");

fn check_library(bytes: &[u8]) {
    let archive = nres::Archive::parse(bytes).expect("a planned library reads back");
    for e in archive.entries() {
        match e.type_id() {
            mshconv_material::mat0::MAT0_TYPE_ID => {
                Mat0::parse(e.data(), e.attr2()).expect("every MAT0 entry parses");
            }
            mshconv_material::texm::TEXM_MAGIC => {
                Texm::parse(e.data()).expect("every Texm entry parses");
            }
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = mshconv_convert::raster::decode(data, "input");
    let mut report = mshconv_convert::Report::default();
    let _ = mshconv_obj::look::read_look(data, &|_| Some(data.to_vec()), &mut report);
    let Ok(look) = mshconv_gltf::import::look::read_look(data, &|_| None) else {
        return;
    };
    let libs = Libraries {
        materials: Library {
            path: "Material.lib".into(),
            bytes: Some(MATERIALS.to_vec()),
        },
        textures: Library {
            path: "Textures.lib".into(),
            bytes: Some(TEXTURES.to_vec()),
        },
    };
    if let Ok(p) = plan(&look, &libs, None) {
        Wear::parse(&p.wear).expect("the planned WEAR reads back");
        for lib in [&p.materials_lib, &p.textures_lib].into_iter().flatten() {
            check_library(lib);
        }
    }
});
