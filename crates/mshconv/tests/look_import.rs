//! The way back of the look: `convert IN.glb OUT.msh --game-dir DIR` writes
//! the WEAR and adds or replaces MAT0 and Texm entries of the folder's
//! libraries (docs/MATERIALS.md, "The way back"), over copies of the fixture
//! game folder (`fixtures/small/game`, see its expected.json).

mod common;

use common::{copy_game, files, game, write_png, BIN};
use mshconv_material::texm::Rgba8Image;
use mshconv_material::{Mat0, Texm, Wear};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mshconv(args: &[&std::ffi::OsStr]) -> Output {
    let out = Command::new(BIN)
        .env_remove("MSHCONV_GAME_DIR")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mshconv {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `(model as CLI argument relative to the game folder, its root)` of every fixture model.
fn models() -> Vec<(String, String)> {
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(game().join("expected.json")).unwrap()).unwrap();
    expected["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let file = m["model"]["file"].as_str().unwrap();
            let arg = match m["model"]["entry"].as_str() {
                Some(entry) => format!("{file}:{entry}"),
                None => file.to_string(),
            };
            (arg, m["root"].as_str().unwrap().to_string())
        })
        .collect()
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// The Texm entry `name` of a `Textures.lib`.
fn texm(lib: &[u8], name: &str) -> Texm {
    let archive = nres::Archive::parse(lib).unwrap();
    let e = archive
        .entries()
        .find(|e| e.name().eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("no texture {name}"));
    Texm::parse(e.data()).unwrap()
}

/// `(attr2, MAT0)` of the entry `name` of a `Material.lib`.
fn mat0(lib: &[u8], name: &str) -> Option<Mat0> {
    let archive = nres::Archive::parse(lib).unwrap();
    let e = archive
        .entries()
        .find(|e| e.name().eq_ignore_ascii_case(name))?;
    Some(Mat0::parse(e.data(), e.attr2()).unwrap())
}

#[test]
fn unedited_exports_come_back_leaving_the_game_folder_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let before = files(&work);
    for (i, (model, root)) in models().into_iter().enumerate() {
        // Both kinds of glTF: the GLB embeds the PNGs, the .gltf names them beside it.
        let ext = if i % 2 == 0 { "glb" } else { "gltf" };
        let export = tmp.path().join(format!("m{i}/model.{ext}"));
        std::fs::create_dir_all(export.parent().unwrap()).unwrap();
        let input = game().join(&model);
        mshconv(&[
            os("convert"),
            input.as_os_str(),
            export.as_os_str(),
            os("--game-dir"),
            game().join(&root).as_os_str(),
        ]);
        let target = work.join(&model);
        let dir = work.join(&root);
        // The dry run lists every entry as reused and writes nothing.
        let dry = mshconv(&[
            os("convert"),
            export.as_os_str(),
            target.as_os_str(),
            os("--game-dir"),
            dir.as_os_str(),
            os("--dry-run"),
        ]);
        let listing = String::from_utf8_lossy(&dry.stdout);
        assert!(listing.contains("would "), "{model}: {listing}");
        assert!(
            !listing.contains(": add ") && !listing.contains(": replace "),
            "{model}: {listing}"
        );
        assert!(
            !listing.contains(".lib ("),
            "{model}: no library is written: {listing}"
        );
        assert_eq!(files(&work), before, "{model}: the dry run wrote");
        mshconv(&[
            os("convert"),
            export.as_os_str(),
            target.as_os_str(),
            os("--game-dir"),
            dir.as_os_str(),
        ]);
        let after = files(&work);
        for (rel, bytes) in &before {
            assert!(
                after.get(rel) == Some(bytes),
                "{model} ({ext}): {} changed",
                rel.display()
            );
        }
        assert_eq!(
            after.len(),
            before.len(),
            "{model}: new files {:?}",
            after
                .keys()
                .filter(|k| !before.contains_key(*k))
                .collect::<Vec<_>>()
        );
    }
}

/// A `.gltf` export of the tank with its PNGs beside it, in `dir`.
fn tank_gltf(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let gltf = dir.join("tank.gltf");
    let input = format!("{}:TANK.MSH", game().join("units.rlb").display());
    mshconv(&[
        os("convert"),
        os(&input),
        gltf.as_os_str(),
        os("--game-dir"),
        game().as_os_str(),
    ]);
    gltf
}

fn read_png(path: &Path) -> Rgba8Image {
    mshconv_convert::raster::decode(&std::fs::read(path).unwrap(), "png").unwrap()
}

/// The image file a `.gltf` names for texture entry `texture`.
fn image_file(gltf: &Path, texture: &str) -> PathBuf {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(gltf).unwrap()).unwrap();
    let uri = json["images"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == texture)
        .unwrap_or_else(|| panic!("no image {texture}"))["uri"]
        .as_str()
        .unwrap()
        .to_string();
    gltf.with_file_name(uri)
}

#[test]
fn an_edited_texture_is_reencoded_in_its_format_after_a_backup() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let gltf = tank_gltf(&tmp.path().join("export"));
    // Paint the 565 texture's left half a colour 565 holds exactly.
    let png = image_file(&gltf, "TANK_BODY.0");
    let mut image = read_png(&png);
    for y in 0..image.height {
        for x in 0..image.width / 2 {
            let at = ((y * image.width + x) * 4) as usize;
            image.pixels[at..at + 4].copy_from_slice(&[0xFF, 0x00, 0x84, 0xFF]);
        }
    }
    write_png(&png, &image);
    let old_lib = std::fs::read(work.join("Textures.lib")).unwrap();
    let target = format!("{}:TANK.MSH", work.join("units.rlb").display());
    let run = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        os(&target),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("note[look.texture_replaced]"), "{stderr}");
    assert!(stderr.contains("note[look.backup]"), "{stderr}");
    let new_lib = std::fs::read(work.join("Textures.lib")).unwrap();
    assert_eq!(
        std::fs::read(work.join("Textures.lib.bak")).unwrap(),
        old_lib
    );
    let (old, new) = (texm(&old_lib, "TANK_BODY.0"), texm(&new_lib, "TANK_BODY.0"));
    assert_eq!(
        (new.format, new.width, new.height),
        (old.format, old.width, old.height)
    );
    assert_eq!(new.levels.len(), old.levels.len());
    assert_eq!(
        (new.flags4, new.flags5, new.unknown6),
        (old.flags4, old.flags5, old.unknown6)
    );
    assert_eq!(
        new.decode_rgba8().unwrap(),
        image,
        "mip 0 is the edited picture"
    );
    // Every other texture is as it was, and Material.lib is not touched.
    let names: Vec<String> = nres::Archive::parse(&old_lib)
        .unwrap()
        .entries()
        .map(|e| e.name())
        .collect();
    for name in names.iter().filter(|n| *n != "TANK_BODY.0") {
        assert_eq!(texm(&new_lib, name), texm(&old_lib, name), "{name}");
    }
    assert!(!work.join("Material.lib.bak").exists());
    assert_eq!(
        std::fs::read(work.join("Material.lib")).unwrap(),
        std::fs::read(game().join("Material.lib")).unwrap()
    );
    // A second edit keeps the first backup (the original).
    mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        os(&target),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    assert_eq!(
        std::fs::read(work.join("Textures.lib.bak")).unwrap(),
        old_lib
    );
}

/// A temporary folder with a copy of the game folder (`work`) and the
/// tank's `.gltf` export (in `export`).
fn tank_beside_a_game_copy() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let gltf = tank_gltf(&tmp.path().join("export"));
    (tmp, work, gltf)
}

/// The document of `gltf` with `image` added as a PNG beside it (file
/// `<name>.png`, image name `name`) and a texture of it; the texture's index
/// and the position of the material of MSH index 1.
fn with_new_texture(
    gltf: &Path,
    name: &str,
    image: &Rgba8Image,
) -> (serde_json::Value, usize, usize) {
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(gltf).unwrap()).unwrap();
    write_png(&gltf.with_file_name(format!("{name}.png")), image);
    let images = json["images"].as_array_mut().unwrap();
    let uri = format!("{}.png", name.replace(' ', "%20"));
    images.push(serde_json::json!({ "uri": uri, "name": name }));
    let image = images.len() - 1;
    let textures = json["textures"].as_array_mut().unwrap();
    textures.push(serde_json::json!({ "source": image, "sampler": 0 }));
    let texture = textures.len() - 1;
    let k = json["materials"]
        .as_array()
        .unwrap()
        .iter()
        .position(|m| m["extras"]["msh"]["material"] == 1)
        .unwrap();
    (json, texture, k)
}

#[test]
fn a_new_material_and_image_become_new_library_entries() {
    let (tmp, work, gltf) = tank_beside_a_game_copy();
    // Material 1 made a new one, as a modeller would: no extras, a new name,
    // a new image of 100 x 40 with some see-through pixels.
    let rust = Rgba8Image {
        width: 100,
        height: 40,
        pixels: (0..4000u32)
            .flat_map(|i| [(i % 251) as u8, 90, 30, if i % 7 == 0 { 128 } else { 255 }])
            .collect(),
    };
    let (mut json, texture, k) = with_new_texture(&gltf, "rust paint", &rust);
    let m = &mut json["materials"][k];
    m["name"] = "Rusty hull plates".into();
    m.as_object_mut().unwrap().remove("extras");
    m["pbrMetallicRoughness"]["baseColorTexture"] = serde_json::json!({ "index": texture });
    std::fs::write(&gltf, serde_json::to_vec(&json).unwrap()).unwrap();

    let out = work.join("models/rusty.msh");
    let before = files(&work);
    let dry = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        out.as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
        os("--dry-run"),
    ]);
    let listing = String::from_utf8_lossy(&dry.stdout);
    assert!(
        listing.contains("Textures.lib: add rust_paint (material 1: 8888 128 x 32, 8 mips)"),
        "{listing}"
    );
    assert!(
        listing.contains("Material.lib: add Rusty_hull_plates"),
        "{listing}"
    );
    assert_eq!(files(&work), before, "the dry run wrote");

    let run = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        out.as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("note[look.texture_resized]"), "{stderr}");
    assert!(stderr.contains("note[look.name_fitted]"), "{stderr}");
    let textures = std::fs::read(work.join("Textures.lib")).unwrap();
    let t = texm(&textures, "rust_paint");
    assert_eq!(
        (t.format.code(), t.width, t.height, t.levels.len()),
        (8888, 128, 32, 8)
    );
    let materials = std::fs::read(work.join("Material.lib")).unwrap();
    let m = mat0(&materials, "Rusty_hull_plates").expect("the new MAT0");
    assert_eq!(m.texture(), Some(&b"rust_paint"[..]));
    let default = mat0(&materials, "DEFAULT").unwrap();
    assert_eq!(
        (m.version, m.metadata),
        (default.version, default.metadata),
        "from the DEFAULT template"
    );
    assert!(m.animation_blocks.is_empty());
    // The WEAR beside the model names it in the row of the index the
    // material got (the import's note says which).
    let wear = Wear::parse(&std::fs::read(work.join("models/rusty.wea")).unwrap()).unwrap();
    assert!(
        wear.materials.iter().any(|r| r.name == "Rusty_hull_plates"),
        "{wear:?}"
    );
    assert!(
        wear.materials.iter().any(|r| r.name == "TANK_BODY"),
        "{wear:?}"
    );
    // Every old entry of both libraries is byte-identical.
    for (lib, name) in [(&textures, "Textures.lib"), (&materials, "Material.lib")] {
        let old = std::fs::read(game().join(name)).unwrap();
        let old = nres::Archive::parse(&old).unwrap();
        let new = nres::Archive::parse(lib).unwrap();
        for e in old.entries() {
            let n = new.entries().find(|x| x.name() == e.name()).unwrap();
            assert_eq!(n.data(), e.data(), "{name}: {}", e.name());
        }
    }
    // The model converts back with the new material's texture.
    let again = tmp.path().join("again.glb");
    mshconv(&[
        os("convert"),
        out.as_os_str(),
        again.as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
    ]);
}

#[test]
fn a_spec_gloss_diffuse_texture_comes_back_as_the_material_texture() {
    // Issue 42: a KHR_materials_pbrSpecularGlossiness material's diffuse
    // texture is its base colour; before, it "had no texture" and the part
    // showed another material's texture once exported back.
    let (_tmp, work, gltf) = tank_beside_a_game_copy();
    let paint = Rgba8Image {
        width: 64,
        height: 32,
        pixels: (0..2048u32)
            .flat_map(|i| [(i % 251) as u8, 40, 200, 255])
            .collect(),
    };
    let (mut json, texture, k) = with_new_texture(&gltf, "diffuse", &paint);
    let m = json["materials"][k].as_object_mut().unwrap();
    m.remove("extras");
    m.remove("pbrMetallicRoughness");
    m.insert("name".into(), "Spec gloss hull".into());
    m.insert(
        "extensions".into(),
        serde_json::json!({"KHR_materials_pbrSpecularGlossiness": {
            "diffuseTexture": {"index": texture},
            "diffuseFactor": [0.5, 0.5, 0.5, 1.0]
        }}),
    );
    let used = json
        .as_object_mut()
        .unwrap()
        .entry("extensionsUsed")
        .or_insert(serde_json::json!([]));
    used.as_array_mut()
        .unwrap()
        .push("KHR_materials_pbrSpecularGlossiness".into());
    std::fs::write(&gltf, serde_json::to_vec(&json).unwrap()).unwrap();

    let out = work.join("models/glossy.msh");
    let run = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        out.as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("KHR_materials_pbrSpecularGlossiness: the diffuse texture and factor were read as the base colour"),
        "{stderr}"
    );
    assert!(
        stderr.contains("note[look.base_color_dropped]: 1 material has"),
        "{stderr}"
    );
    assert!(!stderr.contains("has no texture"), "{stderr}");
    let materials = std::fs::read(work.join("Material.lib")).unwrap();
    let m = mat0(&materials, "Spec_gloss_hull").expect("the new MAT0");
    assert_eq!(m.texture(), Some(&b"diffuse"[..]));
    let t = texm(
        &std::fs::read(work.join("Textures.lib")).unwrap(),
        "diffuse",
    );
    assert_eq!((t.width, t.height), (64, 32));
}

/// The WEAR row names of a model's WEAR file or archive entry.
fn wear_rows(bytes: &[u8]) -> Vec<String> {
    Wear::parse(bytes)
        .unwrap()
        .materials
        .into_iter()
        .map(|r| r.name)
        .collect()
}

#[test]
fn a_blender_round_trip_keeps_material_names_and_texture_pixels() {
    let tmp = tempfile::tempdir().unwrap();
    let exported = tmp.path().join("in");
    std::fs::create_dir_all(&exported).unwrap();
    // A model of the archive and a loose one (each row resolves exactly).
    let models = [
        ("units.rlb:TANK.MSH", "tank"),
        ("models/wreck.msh", "wreck"),
    ];
    for (model, stem) in models {
        mshconv(&[
            os("convert"),
            game().join(model).as_os_str(),
            exported.join(format!("{stem}.glb")).as_os_str(),
            os("--game-dir"),
            game().as_os_str(),
        ]);
    }
    for profile in ["custom", "default"] {
        let blended = tmp.path().join(profile);
        common::blender_round_trip(&exported, &blended, profile);
        let work = tmp.path().join(format!("work-{profile}"));
        copy_game(&work);
        for (model, stem) in models {
            let out = tmp.path().join(format!("{profile}-{stem}.msh"));
            mshconv(&[
                os("convert"),
                blended.join(format!("{stem}.glb")).as_os_str(),
                out.as_os_str(),
                os("--game-dir"),
                work.as_os_str(),
            ]);
            // Every texture came back with its pixels and every material by
            // its name: both libraries reused as they are.
            for lib in ["Material.lib", "Textures.lib"] {
                assert!(
                    std::fs::read(work.join(lib)).unwrap()
                        == std::fs::read(game().join(lib)).unwrap(),
                    "{profile} {stem}: {lib} changed"
                );
                assert!(!work.join(format!("{lib}.bak")).exists());
            }
            // The WEAR names the same materials (with Blender's default
            // profile the indices may be given anew, so as a set).
            let original = match model.split_once(':') {
                Some((archive, entry)) => {
                    let bytes = std::fs::read(game().join(archive)).unwrap();
                    let archive = nres::Archive::parse(&bytes).unwrap();
                    let wea = entry.replace(".MSH", ".WEA");
                    let data = archive
                        .entries()
                        .find(|e| e.name() == wea)
                        .unwrap()
                        .data()
                        .to_vec();
                    data
                }
                None => std::fs::read(game().join(model.replace(".msh", ".wea"))).unwrap(),
            };
            let mut want = wear_rows(&original);
            let mut got = wear_rows(&std::fs::read(out.with_extension("wea")).unwrap());
            if profile == "custom" {
                assert_eq!(got, want, "{profile} {stem}: the WEAR rows in order");
            }
            // (names compare as the game compares them: `glass` is `GLASS`)
            for name in want.iter_mut().chain(got.iter_mut()) {
                name.make_ascii_uppercase();
            }
            want.sort();
            got.sort();
            got.dedup();
            want.dedup();
            assert_eq!(got, want, "{profile} {stem}: the WEAR's material names");
        }
    }
}

#[test]
fn an_obj_export_brings_its_look_back_through_its_mtl() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let obj = tmp.path().join("export/tank.obj");
    std::fs::create_dir_all(obj.parent().unwrap()).unwrap();
    let input = format!("{}:TANK.MSH", game().join("units.rlb").display());
    mshconv(&[
        os("convert"),
        os(&input),
        obj.as_os_str(),
        os("--game-dir"),
        game().as_os_str(),
    ]);
    let target = format!("{}:TANK.MSH", work.join("units.rlb").display());
    let wea = |dir: &Path| {
        let bytes = std::fs::read(dir.join("units.rlb")).unwrap();
        let archive = nres::Archive::parse(&bytes).unwrap();
        let data = archive
            .entries()
            .find(|e| e.name() == "TANK.WEA")
            .unwrap()
            .data()
            .to_vec();
        data
    };
    // Unedited: both libraries reused, the WEAR entry as it was (row spellings kept).
    mshconv(&[
        os("convert"),
        obj.as_os_str(),
        os(&target),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    for lib in ["Material.lib", "Textures.lib"] {
        assert!(
            std::fs::read(work.join(lib)).unwrap() == std::fs::read(game().join(lib)).unwrap(),
            "{lib} changed"
        );
    }
    assert_eq!(wea(&work), wea(&game()));
    // An edited image (its rows bottom up in the file) replaces the texture
    // with the picture the right way up.
    let mtl = std::fs::read_to_string(obj.with_extension("mtl")).unwrap();
    let png = mtl
        .lines()
        .find_map(|l| {
            l.strip_prefix("map_Kd ")
                .filter(|f| f.contains("TANK_BODY"))
        })
        .map(|f| obj.with_file_name(f))
        .unwrap();
    let mut image = read_png(&png);
    let row = image.width as usize * 4;
    // The file's first row is the texture's last.
    for px in image.pixels[..row].chunks_mut(4) {
        px.copy_from_slice(&[0x00, 0xFF, 0x00, 0xFF]);
    }
    write_png(&png, &image);
    let run = mshconv(&[
        os("convert"),
        obj.as_os_str(),
        os(&target),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    assert!(String::from_utf8_lossy(&run.stderr).contains("note[look.texture_replaced]"));
    let t = texm(
        &std::fs::read(work.join("Textures.lib")).unwrap(),
        "TANK_BODY.0",
    )
    .decode_rgba8()
    .unwrap();
    let last = &t.pixels[t.pixels.len() - row..];
    assert!(
        last.chunks(4).all(|p| p == [0x00, 0xFF, 0x00, 0xFF]),
        "the bottom row is the painted one"
    );
    assert!(t.pixels[..row]
        .chunks(4)
        .any(|p| p != [0x00, 0xFF, 0x00, 0xFF]));
}

#[test]
fn batch_brings_every_look_back_into_an_archive_or_beside_the_models() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let before = files(&work);
    // Into the archive: each STEM.glb back as STEM.MSH with its STEM.WEA.
    let glbs = tmp.path().join("glbs");
    std::fs::create_dir_all(&glbs).unwrap();
    for entry in ["TANK", "ROBOT", "DEPOT"] {
        let input = format!("{}:{entry}.MSH", game().join("units.rlb").display());
        let out = glbs.join(format!("{entry}.glb"));
        mshconv(&[
            os("convert"),
            os(&input),
            out.as_os_str(),
            os("--game-dir"),
            game().as_os_str(),
        ]);
    }
    mshconv(&[
        os("batch"),
        glbs.as_os_str(),
        os("--to"),
        os("msh"),
        os("--into"),
        work.join("units.rlb").as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    assert!(
        files(&work) == before,
        "an unedited batch into the archive changed the game folder"
    );
    // Beside the models: each .msh with its .wea, as the game folder has them.
    let loose = tmp.path().join("loose");
    std::fs::create_dir_all(&loose).unwrap();
    for model in ["wreck", "pipe"] {
        let input = game().join(format!("models/{model}.msh"));
        mshconv(&[
            os("convert"),
            input.as_os_str(),
            loose.join(format!("{model}.gltf")).as_os_str(),
            os("--game-dir"),
            game().as_os_str(),
        ]);
    }
    // One texture edited: the batch replaces it once, after one backup.
    let png = image_file(&loose.join("pipe.gltf"), "TANK_BODY.0");
    let mut image = read_png(&png);
    image.pixels[..4].copy_from_slice(&[0, 0, 0, 255]);
    write_png(&png, &image);
    let out = tmp.path().join("out");
    let run = mshconv(&[
        os("batch"),
        loose.as_os_str(),
        os("--to"),
        os("msh"),
        os("--out"),
        out.as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("look.texture_replaced"), "{stderr}");
    for model in ["wreck", "pipe"] {
        assert_eq!(
            std::fs::read(out.join(format!("{model}.wea"))).unwrap(),
            std::fs::read(game().join(format!("models/{model}.wea"))).unwrap(),
            "{model}.wea"
        );
    }
    let old = std::fs::read(game().join("Textures.lib")).unwrap();
    assert!(std::fs::read(work.join("Textures.lib.bak")).unwrap() == old);
    let t = texm(
        &std::fs::read(work.join("Textures.lib")).unwrap(),
        "TANK_BODY.0",
    );
    assert_eq!(&t.decode_rgba8().unwrap().pixels[..4], &[0, 0, 0, 255]);
    assert!(!work.join("Material.lib.bak").exists());
}

#[test]
fn an_image_that_does_not_decode_is_a_note_and_the_model_still_converts() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let gltf = tank_gltf(&tmp.path().join("export"));
    // A KTX2 file where the PNG was (what KHR_texture_basisu brings).
    std::fs::write(
        image_file(&gltf, "GLASS_4444"),
        b"\xabKTX 20\xbb\r\n\x1a\n....",
    )
    .unwrap();
    let out = work.join("models/tank.msh");
    let run = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        out.as_os_str(),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("note[look.image_unreadable]"), "{stderr}");
    assert!(stderr.contains("image.unsupported"), "{stderr}");
    assert!(out.is_file());
    // Nothing was changed for the material whose image is gone.
    for lib in ["Material.lib", "Textures.lib"] {
        assert!(
            std::fs::read(work.join(lib)).unwrap() == std::fs::read(game().join(lib)).unwrap(),
            "{lib}"
        );
    }
}

/// `convert GLTF units.rlb:ENTRY --game-dir WORK`: its stderr.
fn bring_back(gltf: &Path, work: &Path, entry: &str) -> String {
    let target = format!("{}:{entry}", work.join("units.rlb").display());
    let run = mshconv(&[
        os("convert"),
        gltf.as_os_str(),
        os(&target),
        os("--game-dir"),
        work.as_os_str(),
    ]);
    String::from_utf8_lossy(&run.stderr).into_owned()
}

/// Paints the rectangle `x0..x1` x `y0..y1` of the PNG with `paint`, which
/// changes a pixel's RGBA.
fn paint(png: &Path, (x0, x1): (u32, u32), (y0, y1): (u32, u32), paint: impl Fn(&mut [u8])) {
    let mut image = read_png(png);
    for y in y0..y1 {
        for x in x0..x1 {
            let at = ((y * image.width + x) * 4) as usize;
            paint(&mut image.pixels[at..at + 4]);
        }
    }
    write_png(png, &image);
}

/// Issue 39: colours painted into the palette texture PAL_CAMO become the
/// nearest palette colour, said by its own note with the count; alpha
/// painted into the opaque 565 TANK_BODY.0 is nothing its format holds: the
/// entry keeps its bytes, mips included, and the loss is said
/// (`look.alpha_dropped`, with the count of pixels).
#[test]
fn a_palette_repaint_is_noted_and_alpha_on_an_opaque_texture_keeps_the_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let gltf = tank_gltf(&tmp.path().join("export"));
    let old_lib = std::fs::read(work.join("Textures.lib")).unwrap();
    let camo = texm(&old_lib, "PAL_CAMO");
    let grey = [128u8, 128, 128, 255];
    let palette = camo.palette.as_deref().unwrap();
    assert!(!palette.contains(&grey), "a colour the palette lacks");
    // 4 x 2 pixels of grey into the palette texture.
    paint(&image_file(&gltf, "PAL_CAMO"), (0, 4), (0, 2), |p| {
        p.copy_from_slice(&grey)
    });
    // Half of the 565 texture see-through.
    let body = image_file(&gltf, "TANK_BODY.0");
    let side = read_png(&body).width;
    paint(&body, (0, side / 2), (0, side), |p| p[3] = 100);
    let stderr = bring_back(&gltf, &work, "TANK.MSH");
    assert!(
        stderr.contains("note[look.palette_reduced]: texture \"PAL_CAMO\" is a palette texture")
            && stderr.contains(": 8 of 1024 pixels, at most"),
        "{stderr}"
    );
    let dropped = format!(
        "note[look.alpha_dropped]: texture \"TANK_BODY.0\" is opaque (format 565): alpha painted into it was dropped: {} of {} pixels, at most 155 off in a channel",
        side / 2 * side,
        side * side
    );
    assert!(stderr.contains(&dropped), "{stderr}");
    assert!(
        !stderr.contains("note[look.texture_replaced]: texture \"TANK_BODY.0\""),
        "{stderr}"
    );
    let new_lib = std::fs::read(work.join("Textures.lib")).unwrap();
    let entry = |lib: &[u8], name: &str| {
        nres::Archive::parse(lib)
            .unwrap()
            .find_by_name(name)
            .map(|e| e.data().to_vec())
    };
    assert_eq!(
        entry(&new_lib, "TANK_BODY.0"),
        entry(&old_lib, "TANK_BODY.0"),
        "same bytes, mips included"
    );
    let shown = texm(&new_lib, "PAL_CAMO").decode_rgba8().unwrap();
    assert!(palette.contains(&shown.pixels[..4].try_into().unwrap()));
    assert_ne!(shown.pixels[..4], grey);
}

/// Issue 39: colour painted into the grey-and-alpha SMOKE_88 becomes grey,
/// said by its own note.
#[test]
fn colour_painted_into_a_grey_texture_is_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    copy_game(&work);
    let export = tmp.path().join("export");
    std::fs::create_dir_all(&export).unwrap();
    let gltf = export.join("robot.gltf");
    let input = format!("{}:ROBOT.MSH", game().join("units.rlb").display());
    mshconv(&[
        os("convert"),
        os(&input),
        gltf.as_os_str(),
        os("--game-dir"),
        game().as_os_str(),
    ]);
    paint(&image_file(&gltf, "SMOKE_88"), (0, 3), (0, 1), |p| {
        p[..3].copy_from_slice(&[255, 0, 0])
    });
    let stderr = bring_back(&gltf, &work, "ROBOT.MSH");
    assert!(
        stderr.contains("note[look.grey_reduced]: texture \"SMOKE_88\" holds grey and alpha")
            && stderr.contains(": 3 of 256 pixels"),
        "{stderr}"
    );
}
