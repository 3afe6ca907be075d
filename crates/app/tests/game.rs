//! `--game-dir`'s resolver and the glTF export with the game's look: a small
//! game folder built here (Material.lib with DEFAULT, Textures.lib with Texm
//! of three formats, an archive with a model and its WEAR, a loose model and
//! its WEAR); the material names, the texture pixels (PNG decoded back and
//! compared with `Texm::decode_rgba8`), the fallbacks' notes, the extras, the
//! Khronos glTF-Validator, and the output without a game folder unchanged.

use mshconv_app::{
    convert, Format, GameDir, GameResources, ModelLocation, Names, NoResources, Options, Resources,
};
use mshconv_material::mat0::{Mat0, Phase, MAT0_TYPE_ID};
use mshconv_material::texm::{PixelFormat, Rgba8Image, TEXM_MAGIC};
use mshconv_material::{Texm, Wear, WEAR_TYPE_ID};
use nres::{OwnedArchive, OwnedEntry, WriteMode};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// A model whose batches use materials 2, 7 and 31.
fn model() -> Vec<u8> {
    std::fs::read(root().join("fixtures/small/models/m277_turret.msh")).unwrap()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn image(w: u32, h: u32, alpha: impl Fn(u32) -> u8) -> Rgba8Image {
    let mut pixels = Vec::new();
    for i in 0..w * h {
        pixels.extend_from_slice(&[(i * 37) as u8, (i * 91) as u8, (i * 13 + 5) as u8, alpha(i)]);
    }
    Rgba8Image {
        width: w,
        height: h,
        pixels,
    }
}

fn textures() -> Vec<(&'static str, Texm)> {
    vec![
        (
            "SteelTex",
            Texm::from_rgba8_with_mips(&image(8, 4, |_| 255), PixelFormat::Rgb565, None, 3)
                .unwrap(),
        ),
        (
            "GLASS",
            Texm::from_rgba8(
                &image(4, 4, |i| (i * 16) as u8),
                PixelFormat::Argb4444,
                None,
            )
            .unwrap(),
        ),
        (
            "GRATE",
            Texm::from_rgba8(
                &image(2, 2, |i| if i % 2 == 0 { 0 } else { 255 }),
                PixelFormat::Argb8888,
                None,
            )
            .unwrap(),
        ),
    ]
}

fn mat0_entry(name: &str, version: u32, texture: &[u8]) -> OwnedEntry {
    let mat0 = Mat0 {
        version: 0,
        phases: vec![Phase::new(texture)],
        ..Mat0::default()
    };
    let mut e = OwnedEntry::new(MAT0_TYPE_ID, name, mat0.write().unwrap()).unwrap();
    e.attr1 = 7;
    e.attr2 = version;
    e
}

fn archive(entries: Vec<OwnedEntry>) -> Vec<u8> {
    let mut a = OwnedArchive::new();
    for e in entries {
        a.push(e);
    }
    a.write(WriteMode::Canonical).unwrap()
}

fn wear(names: &[&str]) -> Vec<u8> {
    let rows = names
        .iter()
        .enumerate()
        .map(|(i, n)| mshconv_material::wear::WearRow::new(format!("{}", 100 + i), *n))
        .collect();
    Wear::new(rows).write().unwrap()
}

/// A game folder: `material.LIB` (case differs on purpose) with `Steel`,
/// `DEFAULT` (when `with_default`) and `Grate`; `TEXTURES.lib`; `units.rlb`
/// with `TURRET.MSH` and `turret.wea`; `loose/turret.msh` and `loose/TURRET.WEA`.
fn game_folder(with_default: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut mats = vec![mat0_entry("Grate", 0, b"GRATE")];
    mats.push(mat0_entry("Steel", 0, b"STEELTEX"));
    if with_default {
        mats.push(mat0_entry("DEFAULT", 0, b"glass"));
    }
    std::fs::write(p.join("material.LIB"), archive(mats)).unwrap();
    let tex = textures()
        .into_iter()
        .map(|(n, t)| OwnedEntry::new(TEXM_MAGIC, n, t.write().unwrap()).unwrap())
        .collect();
    std::fs::write(p.join("TEXTURES.lib"), archive(tex)).unwrap();
    // Rows: 2 = STEEL (exact, other case), 7 = no such material (fallback).
    let rows = ["A", "B", "STEEL", "C", "D", "E", "F", "NOSUCH"];
    std::fs::write(
        p.join("units.rlb"),
        archive(vec![
            OwnedEntry::new(0x0048_534D, "TURRET.MSH", model()).unwrap(),
            OwnedEntry::new(WEAR_TYPE_ID, "turret.wea", wear(&rows)).unwrap(),
        ]),
    )
    .unwrap();
    std::fs::create_dir(p.join("loose")).unwrap();
    std::fs::write(p.join("loose/turret.msh"), model()).unwrap();
    std::fs::write(p.join("loose/TURRET.WEA"), wear(&rows)).unwrap();
    dir
}

fn export(game: &Path, at: ModelLocation, to: Format) -> mshconv_app::Output {
    let res = GameResources {
        inner: &NoResources,
        game: GameDir::open(game).unwrap(),
        at,
    };
    convert(
        &model(),
        (Format::Msh, to),
        &Options::default(),
        &Names::same("turret"),
        &res,
    )
    .unwrap()
}

/// The JSON and BIN chunks of a GLB.
fn glb_parts(glb: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = glb[28 + json_len..].to_vec();
    (json, bin)
}

fn decode_png(png: &[u8]) -> Rgba8Image {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let data = &buf[..info.buffer_size()];
    let pixels = match info.color_type {
        png::ColorType::Rgb => data
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::Rgba => data.to_vec(),
        other => panic!("unexpected PNG colour type {other:?}"),
    };
    Rgba8Image {
        width: info.width,
        height: info.height,
        pixels,
    }
}

fn material_named<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["materials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no material {name}: {}", json["materials"]))
}

fn codes(output: &mshconv_app::Output) -> Vec<&str> {
    output.report.notes.iter().map(|n| n.code).collect()
}

#[test]
fn an_archive_model_exports_with_its_materials_and_textures() {
    let game = game_folder(true);
    let at = ModelLocation::Entry {
        archive: game.path().join("units.rlb"),
        entry: "TURRET.MSH".into(),
    };
    let out = export(game.path(), at, Format::Glb);
    assert_eq!(out.files.len(), 1, "a GLB embeds its textures");
    let (json, bin) = glb_parts(&out.main().bytes);
    // Index 2 resolves exactly (STEEL -> Steel), 7 falls back to DEFAULT, 31
    // has no WEAR row and stays as without a game folder.
    let steel = material_named(&json, "Steel");
    assert_eq!(steel["extras"]["msh"]["material"], 2);
    assert_eq!(steel["extras"]["msh"]["resolved"], "exact");
    assert_eq!(steel["extras"]["msh"]["wear"]["legacy_id"], "102");
    assert_eq!(steel["extras"]["msh"]["mat0"]["attr1"], 7);
    assert!(steel.get("alphaMode").is_none_or(|a| a == "OPAQUE"));
    let default = material_named(&json, "DEFAULT");
    assert_eq!(default["extras"]["msh"]["material"], 7);
    assert_eq!(default["extras"]["msh"]["resolved"], "default");
    assert_eq!(default["alphaMode"], "BLEND");
    let untouched = material_named(&json, "mat31");
    assert_eq!(untouched["extras"]["msh"]["material"], 31);
    assert!(untouched["pbrMetallicRoughness"]
        .get("baseColorTexture")
        .is_none());
    let c = codes(&out);
    assert!(c.contains(&"game.material_default"), "{c:?}");
    assert!(c.contains(&"game.missing_wear_row"), "{c:?}");
    assert!(c.contains(&"export.alpha_mode"), "{c:?}");
    // The WEAR text travels in the root's extras.
    assert_eq!(
        json["extras"]["msh"]["wear"]["text"]
            .as_str()
            .unwrap()
            .as_bytes(),
        &wear(&["A", "B", "STEEL", "C", "D", "E", "F", "NOSUCH"])[..]
    );
    assert_eq!(json["samplers"][0]["wrapS"], 10497);
    // Each texture's pixels, from the PNG in the BIN chunk.
    let expect: std::collections::BTreeMap<&str, Texm> = textures().into_iter().collect();
    for (material, texture) in [(steel, "SteelTex"), (default, "GLASS")] {
        let t = material["pbrMetallicRoughness"]["baseColorTexture"]["index"]
            .as_u64()
            .unwrap() as usize;
        let image = &json["images"][json["textures"][t]["source"].as_u64().unwrap() as usize];
        assert_eq!(image["name"], texture);
        assert_eq!(image["mimeType"], "image/png");
        let view = &json["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap() as usize;
        let len = view["byteLength"].as_u64().unwrap() as usize;
        let texm = &expect[texture];
        assert_eq!(
            decode_png(&bin[start..start + len]),
            texm.decode_rgba8().unwrap()
        );
        let extras = &image["extras"]["msh"]["texm"];
        assert_eq!(extras["format"], texm.format.code());
        assert_eq!(extras["mip_count"], texm.levels.len());
    }
}

#[test]
fn a_loose_model_gets_png_files_beside_its_gltf() {
    let game = game_folder(true);
    let at = ModelLocation::File(game.path().join("loose/turret.msh"));
    let out = export(game.path(), at, Format::Gltf);
    let names: Vec<&str> = out.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["turret.gltf", "turret_SteelTex.png", "turret_GLASS.png"]
    );
    let json: Value = serde_json::from_slice(&out.main().bytes).unwrap();
    let steel = material_named(&json, "Steel");
    let t = steel["pbrMetallicRoughness"]["baseColorTexture"]["index"]
        .as_u64()
        .unwrap() as usize;
    let image = &json["images"][json["textures"][t]["source"].as_u64().unwrap() as usize];
    assert_eq!(image["uri"], "turret_SteelTex.png");
    let texm = &textures()[0].1;
    assert_eq!(
        decode_png(&out.files[1].bytes),
        texm.decode_rgba8().unwrap()
    );
}

#[test]
fn without_default_the_first_entry_is_used_and_said() {
    let game = game_folder(false);
    let at = ModelLocation::File(game.path().join("loose/turret.msh"));
    let out = export(game.path(), at, Format::Glb);
    let (json, _) = glb_parts(&out.main().bytes);
    let first = material_named(&json, "Grate");
    assert_eq!(first["extras"]["msh"]["material"], 7);
    assert_eq!(first["extras"]["msh"]["resolved"], "first_entry");
    assert_eq!(first["alphaMode"], "MASK");
    assert!(codes(&out).contains(&"game.material_first_entry"));
}

#[test]
fn missing_or_damaged_pieces_are_notes_and_the_export_goes_on() {
    let game = game_folder(true);
    // No WEAR beside the model.
    std::fs::write(game.path().join("lonely.msh"), model()).unwrap();
    let out = export(
        game.path(),
        ModelLocation::File(game.path().join("lonely.msh")),
        Format::Glb,
    );
    assert!(codes(&out).contains(&"game.no_wear"));
    let plain = convert(
        &model(),
        (Format::Msh, Format::Glb),
        &Options::default(),
        &Names::same("turret"),
        &NoResources,
    )
    .unwrap();
    let (json, _) = glb_parts(&out.main().bytes);
    let (plain_json, _) = glb_parts(&plain.main().bytes);
    assert_eq!(json, plain_json, "without a WEAR the look is the plain one");

    // A damaged Textures.lib and a damaged WEAR.
    let broken = tempfile::tempdir().unwrap();
    for f in ["material.LIB", "units.rlb"] {
        std::fs::copy(game.path().join(f), broken.path().join(f)).unwrap();
    }
    std::fs::write(broken.path().join("Textures.lib"), b"NRes broken").unwrap();
    std::fs::write(broken.path().join("bad.msh"), model()).unwrap();
    std::fs::write(broken.path().join("bad.wea"), b"x\r\n").unwrap();
    let out = export(
        broken.path(),
        ModelLocation::Entry {
            archive: broken.path().join("units.rlb"),
            entry: "TURRET.MSH".into(),
        },
        Format::Glb,
    );
    let c = codes(&out);
    assert!(c.contains(&"game.bad_textures_lib"), "{c:?}");
    assert!(c.contains(&"game.no_texture"), "{c:?}");
    let (json, _) = glb_parts(&out.main().bytes);
    assert!(material_named(&json, "Steel")["pbrMetallicRoughness"]
        .get("baseColorTexture")
        .is_none());
    let out = export(
        broken.path(),
        ModelLocation::File(broken.path().join("bad.msh")),
        Format::Glb,
    );
    assert!(codes(&out).contains(&"game.bad_wear"));
    assert!(GameDir::open(&broken.path().join("nothing")).is_err());
}

#[test]
fn the_game_folder_is_shared_and_textures_decoded_once() {
    let game = game_folder(true);
    let a = GameDir::open(game.path()).unwrap();
    let b = GameDir::open(&game.path().join(".")).unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let t1 = a.texture("steeltex").unwrap();
    let t2 = b.texture("STEELTEX").unwrap();
    assert!(Arc::ptr_eq(&t1, &t2));
    assert_eq!(t1.name, "SteelTex");
    assert!(a.texture("nothing").is_err());
    assert!(NoResources.look().is_none());
}

/// Writes `bytes` over `path` as a transaction does: a new file renamed over it.
fn replace(path: &Path, bytes: &[u8]) {
    let new = path.with_extension("new");
    std::fs::write(&new, bytes).unwrap();
    std::fs::rename(&new, path).unwrap();
}

/// A long-lived process (the service, a Python session) sees a library or
/// an archive replaced since it was read: the next export reads it anew.
#[test]
fn a_replaced_library_or_archive_is_read_anew() {
    let game = game_folder(true);
    let units = game.path().join("units.rlb");
    let at = || ModelLocation::Entry {
        archive: units.clone(),
        entry: "TURRET.MSH".into(),
    };
    let first = GameDir::open(game.path()).unwrap();
    let before = export(game.path(), at(), Format::Glb);
    assert!(!codes(&before).contains(&"game.no_texture"));
    assert!(Arc::ptr_eq(&first, &GameDir::open(game.path()).unwrap()));
    // Textures.lib emptied: its textures are gone from the next export.
    replace(&game.path().join("TEXTURES.lib"), &archive(Vec::new()));
    let second = GameDir::open(game.path()).unwrap();
    assert!(
        !Arc::ptr_eq(&first, &second),
        "a new state for new libraries"
    );
    let after = export(game.path(), at(), Format::Glb);
    assert!(
        codes(&after).contains(&"game.no_texture"),
        "{:?}",
        codes(&after)
    );
    assert!(Arc::ptr_eq(&second, &GameDir::open(game.path()).unwrap()));
    // The archive without the model's WEAR: its materials are no longer resolved.
    replace(
        &units,
        &archive(vec![
            OwnedEntry::new(0x0048_534D, "TURRET.MSH", model()).unwrap()
        ]),
    );
    let after = export(game.path(), at(), Format::Glb);
    assert!(
        codes(&after).contains(&"game.no_wear"),
        "{:?}",
        codes(&after)
    );
}

/// The Khronos glTF-Validator on the GLB and the `.gltf` with its PNG files:
/// no errors, no warnings.
#[test]
fn exports_with_textures_pass_the_validator() {
    let game = game_folder(true);
    let out_dir = tempfile::tempdir().unwrap();
    for (to, at) in [
        (
            Format::Glb,
            ModelLocation::Entry {
                archive: game.path().join("units.rlb"),
                entry: "TURRET.MSH".into(),
            },
        ),
        (
            Format::Gltf,
            ModelLocation::File(game.path().join("loose/turret.msh")),
        ),
    ] {
        for f in export(game.path(), at, to).files {
            std::fs::write(out_dir.path().join(f.name), f.bytes).unwrap();
        }
    }
    let tool = root().join("tools/gltf-validator");
    assert!(
        tool.join("node_modules/gltf-validator").exists(),
        "the Khronos glTF-Validator is not installed: run `npm ci --prefix tools/gltf-validator`"
    );
    // As tools/gltf-validator/validate.mjs, with the files beside the .gltf
    // given to the validator (plain names only).
    let script = r#"
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import validator from 'gltf-validator';
for (const file of process.argv.slice(1)) {
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), {
    uri: file, maxIssues: 50,
    externalResourceFunction: (uri) => /^[A-Za-z0-9_.-]+$/.test(uri)
      ? Promise.resolve(new Uint8Array(readFileSync(join(dirname(file), uri))))
      : Promise.reject(new Error('not a plain name: ' + uri)),
  });
  const i = report.issues;
  console.log(JSON.stringify({ file, errors: i.numErrors, warnings: i.numWarnings,
    messages: i.messages.filter((m) => m.severity < 2).map((m) => `${m.code}:${m.pointer}:${m.message}`) }));
}
"#;
    let out = Command::new("node")
        .current_dir(&tool)
        .args(["--input-type=module", "-e", script])
        .arg(out_dir.path().join("turret.glb"))
        .arg(out_dir.path().join("turret.gltf"))
        .output()
        .expect("node must be on PATH to run the glTF validator");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["errors"], 0, "{line}");
        assert_eq!(v["warnings"], 0, "{line}");
    }
}

/// The resolver against the fixture game folder's plan
/// (`fixtures/small/game/expected.json`, written by the generator, not by a
/// resolver): every material index of every model, its status, fallback,
/// MAT0 entry and texture.
#[test]
fn the_resolver_matches_the_fixture_game_folders_plan() {
    let game = root().join("fixtures/small/game");
    let plan: Value =
        serde_json::from_slice(&std::fs::read(game.join("expected.json")).unwrap()).unwrap();
    let mut checked = 0;
    for model in plan["models"].as_array().unwrap() {
        let dir = game.join(model["root"].as_str().unwrap());
        // Paths are relative to the game folder; the libraries are the root's.
        let file = game.join(model["model"]["file"].as_str().unwrap());
        let at = match model["model"]["entry"].as_str() {
            Some(entry) => ModelLocation::Entry {
                archive: file,
                entry: entry.to_string(),
            },
            None => ModelLocation::File(file),
        };
        let resolved = GameDir::open(&dir).unwrap().look(&at);
        let what = format!("{at:?}");
        assert_eq!(
            resolved.wear_rows,
            model["wear_rows"].as_u64().map(|n| n as usize),
            "{what}"
        );
        for m in model["materials"].as_array().unwrap() {
            let index = m["material_index"].as_u64().unwrap() as u16;
            let got = resolved.look.materials.get(&index);
            if m["status"] == "no_row" {
                assert!(got.is_none(), "{what} {index}");
                continue;
            }
            let got = got.unwrap_or_else(|| panic!("{what} {index} not resolved"));
            assert_eq!(
                got.material.name,
                m["material"].as_str().unwrap(),
                "{what} {index}"
            );
            assert_eq!(
                got.row_name,
                m["wear_name"].as_str().unwrap(),
                "{what} {index}"
            );
            assert_eq!(
                got.legacy_id,
                m["legacy_id"].as_str().unwrap(),
                "{what} {index}"
            );
            let fallback = match got.resolution {
                mshconv_convert::look::Resolution::Exact => "none",
                mshconv_convert::look::Resolution::Default => "default",
                mshconv_convert::look::Resolution::FirstEntry => "first",
            };
            assert_eq!(fallback, m["fallback"], "{what} {index}");
            match m["texture_entry"].as_u64() {
                None => assert!(got.texture.is_none(), "{what} {index}"),
                // The MAT0 names it in its own case; the entry keeps its own.
                Some(_) => assert_eq!(
                    got.texture.as_ref().map(|t| t.name.to_ascii_uppercase()),
                    m["texture"].as_str().map(str::to_ascii_uppercase),
                    "{what} {index}"
                ),
            }
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked}");
}

/// OBJ: the `.obj` as without a game folder, the `.mtl` with `map_Kd` for
/// each textured material, and the PNGs beside with their rows bottom up
/// (OBJ's V origin), so the texture shows the right way up.
#[test]
fn obj_gets_map_kd_and_bottom_up_pngs() {
    let game = game_folder(true);
    let out = export(
        game.path(),
        ModelLocation::File(game.path().join("loose/turret.msh")),
        Format::Obj,
    );
    let names: Vec<&str> = out.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "turret.obj",
            "turret.mtl",
            "turret_SteelTex.obj.png",
            "turret_GLASS.obj.png"
        ]
    );
    let plain = convert(
        &model(),
        (Format::Msh, Format::Obj),
        &Options::default(),
        &Names::same("turret"),
        &NoResources,
    )
    .unwrap();
    assert_eq!(out.files[0], plain.files[0], "the .obj itself is unchanged");
    let mtl = String::from_utf8(out.files[1].bytes.clone()).unwrap();
    assert!(
        mtl.contains("# Steel (exact)\nnewmtl mat2\nKd 1 1 1\nmap_Kd turret_SteelTex.obj.png\n"),
        "{mtl}"
    );
    assert!(
        mtl.contains("newmtl mat7\nKd 1 1 1\nmap_Kd turret_GLASS.obj.png\n"),
        "{mtl}"
    );
    assert!(mtl.contains("newmtl mat31\nKd "), "{mtl}");
    let texm = &textures()[0].1;
    let top_down = texm.decode_rgba8().unwrap();
    let row = top_down.width as usize * 4;
    let bottom_up: Vec<u8> = top_down
        .pixels
        .chunks(row)
        .rev()
        .flatten()
        .copied()
        .collect();
    assert_eq!(decode_png(&out.files[2].bytes).pixels, bottom_up);
    assert!(codes(&out).contains(&"game.material_default"));
}

/// A GLB and a `.gltf` exported with the game's look import back to the
/// identical model (the look adds images, textures, a sampler and extras;
/// the importer's lossless path is unchanged).
#[test]
fn exports_with_the_look_import_back_to_the_same_model() {
    let game = game_folder(true);
    for to in [Format::Glb, Format::Gltf] {
        let out = export(
            game.path(),
            ModelLocation::File(game.path().join("loose/turret.msh")),
            to,
        );
        let back = convert(
            &out.main().bytes,
            (to, Format::Msh),
            &Options::default(),
            &Names::same("turret"),
            &NoResources,
        )
        .unwrap();
        assert_eq!(back.main().bytes, model(), "{to:?}");
    }
}

/// The files of an export, as the resources of their import.
struct Files(Vec<mshconv_app::OutputFile>);

impl Resources for Files {}

impl mshconv_app::Inputs for Files {
    fn side_file(&self, name: &str) -> Option<Vec<u8>> {
        self.0
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.bytes.clone())
    }
}

/// An import that brings its look back (`convert_bringing_look`, one parse
/// of the input) gives the model `convert` gives and the look and notes
/// `look_import::read_look` reads, for textured GLB, glTF (PNGs beside) and
/// OBJ (`.mtl` and PNGs beside) exports.
#[test]
fn an_import_brings_its_look_back_from_the_same_parse() {
    let game = game_folder(true);
    for to in [Format::Glb, Format::Gltf, Format::Obj] {
        let out = export(
            game.path(),
            ModelLocation::File(game.path().join("loose/turret.msh")),
            to,
        );
        let input = out.main().bytes.clone();
        let files = Files(out.files);
        let names = Names::same("turret");
        let plain = convert(
            &input,
            (to, Format::Msh),
            &Options::default(),
            &names,
            &files,
        )
        .unwrap();
        let (output, look, notes) =
            mshconv_app::convert_bringing_look(&input, to, &Options::default(), &names, &files)
                .unwrap();
        assert_eq!(output, plain, "{to:?}");
        let (read, read_notes) = mshconv_app::look_import::read_look(&input, to, &files).unwrap();
        assert!(
            !read.materials.is_empty(),
            "{to:?}: a textured export brings materials back"
        );
        assert_eq!(format!("{look:?}"), format!("{read:?}"), "{to:?}");
        assert_eq!(notes, read_notes, "{to:?}");
    }
}

/// Threads asking for one texture at once get one decoded texture.
#[test]
fn threads_share_one_decoded_texture() {
    let game = game_folder(true);
    let dir = GameDir::open(game.path()).unwrap();
    let textures: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| dir.texture("GLASS").unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(textures.iter().all(|t| Arc::ptr_eq(t, &textures[0])));
}

/// Every fixture model exported to GLB with its game folder: each textured
/// material's PNG shows the plan's probe pixels at their places (top row
/// first), and the extras carry the plan's MAT0 version and attributes and
/// the Texm's format, mip count and Page rectangles.
#[test]
fn fixture_models_export_the_plans_pixels_and_fields() {
    let game = root().join("fixtures/small/game");
    let plan: Value =
        serde_json::from_slice(&std::fs::read(game.join("expected.json")).unwrap()).unwrap();
    let mut probes = 0;
    for model in plan["models"].as_array().unwrap() {
        let root_name = model["root"].as_str().unwrap();
        let root_plan = plan["roots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["root"] == root_name)
            .unwrap();
        let dir = game.join(root_name);
        let file = game.join(model["model"]["file"].as_str().unwrap());
        let (at, bytes) = match model["model"]["entry"].as_str() {
            Some(entry) => {
                let archive = std::fs::read(&file).unwrap();
                let parsed = nres::Archive::parse(&archive).unwrap();
                let data = parsed.find_by_name(entry).unwrap().data().to_vec();
                (
                    ModelLocation::Entry {
                        archive: file,
                        entry: entry.to_string(),
                    },
                    data,
                )
            }
            None => {
                let data = std::fs::read(&file).unwrap();
                (ModelLocation::File(file), data)
            }
        };
        let what = format!("{at:?}");
        let res = GameResources {
            inner: &NoResources,
            game: GameDir::open(&dir).unwrap(),
            at,
        };
        let out = convert(
            &bytes,
            (Format::Msh, Format::Glb),
            &Options::default(),
            &Names::same("m"),
            &res,
        )
        .unwrap();
        let (json, bin) = glb_parts(&out.main().bytes);
        for m in model["materials"].as_array().unwrap() {
            if m["status"] != "resolved" || m["used"] != true {
                continue;
            }
            let index = m["material_index"].as_u64().unwrap();
            let material = json["materials"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["extras"]["msh"]["material"] == index)
                .unwrap_or_else(|| panic!("{what}: material {index}"));
            let mat_plan = &root_plan["materials"][m["material_entry"].as_u64().unwrap() as usize];
            let mat0 = &material["extras"]["msh"]["mat0"];
            assert_eq!(mat0["version"], mat_plan["version"], "{what} {index}");
            assert_eq!(mat0["attr1"], mat_plan["attr1"], "{what} {index}");
            assert_eq!(
                mat0["animation_blocks"].as_array().unwrap().len() as u64,
                mat_plan["animation_blocks"].as_u64().unwrap(),
                "{what} {index}"
            );
            let base = &material["pbrMetallicRoughness"]["baseColorTexture"];
            let Some(t_entry) = m["texture_entry"].as_u64() else {
                assert!(base.is_null(), "{what} {index}");
                continue;
            };
            let t_plan = &root_plan["textures"][t_entry as usize];
            let t = base["index"].as_u64().unwrap() as usize;
            let image = &json["images"][json["textures"][t]["source"].as_u64().unwrap() as usize];
            let texm = &image["extras"]["msh"]["texm"];
            assert_eq!(texm["format"], t_plan["format"], "{what} {index}");
            assert_eq!(texm["mip_count"], t_plan["mips"], "{what} {index}");
            assert_eq!(texm["page"], t_plan["page"], "{what} {index}");
            let view = &json["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
            let start = view["byteOffset"].as_u64().unwrap() as usize;
            let len = view["byteLength"].as_u64().unwrap() as usize;
            let png = decode_png(&bin[start..start + len]);
            assert_eq!(png.width, t_plan["width"].as_u64().unwrap() as u32);
            for p in t_plan["probes"].as_array().unwrap() {
                let (x, y) = (p["x"].as_u64().unwrap(), p["y"].as_u64().unwrap());
                let at = ((y * u64::from(png.width) + x) * 4) as usize;
                let want: Vec<u8> = p["rgba"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap() as u8)
                    .collect();
                assert_eq!(&png.pixels[at..at + 4], &want[..], "{what} {index} {p}");
                probes += 1;
            }
        }
    }
    assert!(probes > 20, "{probes}");
}

/// Libraries given as bytes (a service's upload) resolve as the folder's do:
/// the same GLB as the folder export when the same WEAR comes with the model;
/// a library not given is the folder's (its decoded textures shared); a
/// damaged or missing one is a note.
#[test]
fn libraries_given_in_memory_resolve_as_the_folders() {
    use mshconv_app::game::{wear_sibling, GivenLibraries};
    let game = game_folder(true);
    let read = |f: &str| std::fs::read(game.path().join(f)).unwrap();
    let folder = export(
        game.path(),
        ModelLocation::File(game.path().join("loose/turret.msh")),
        Format::Glb,
    );
    let given_wear = ModelLocation::Given {
        model: "turret".into(),
        wear: Some(("TURRET.WEA".into(), read("loose/TURRET.WEA"))),
    };
    let run = |game: Arc<GameDir>, at: ModelLocation| {
        let res = GameResources {
            inner: &NoResources,
            game,
            at,
        };
        convert(
            &model(),
            (Format::Msh, Format::Glb),
            &Options::default(),
            &Names::same("turret"),
            &res,
        )
        .unwrap()
    };
    let libraries = GivenLibraries {
        material: Some(read("material.LIB").into()),
        textures: Some(read("TEXTURES.lib").into()),
    };
    let alone = GameDir::given(libraries.clone(), None);
    assert_eq!(alone.dir(), Path::new(""));
    assert_eq!(alone.lightmap_lib(), None);
    let out = run(alone.clone(), given_wear.clone());
    assert_eq!(out.main().bytes, folder.main().bytes);
    assert_eq!(codes(&out), codes(&folder));
    // Not cached: each call is its own, and none is the folder's.
    let base = GameDir::open(game.path()).unwrap();
    assert!(!Arc::ptr_eq(&alone, &GameDir::given(libraries, None)));
    assert!(!Arc::ptr_eq(
        &alone.texture("steeltex").unwrap(),
        &base.texture("steeltex").unwrap()
    ));

    // Only materials given: the folder's textures, shared with it.
    let mats_only = GameDir::given(
        GivenLibraries {
            material: Some(read("material.LIB").into()),
            textures: None,
        },
        Some(base.clone()),
    );
    assert!(Arc::ptr_eq(
        &mats_only.texture("STEELTEX").unwrap(),
        &base.texture("steeltex").unwrap()
    ));
    assert_eq!(mats_only.dir(), base.dir());
    assert_eq!(
        run(mats_only, given_wear.clone()).main().bytes,
        folder.main().bytes
    );

    // The WEAR sibling of an archive entry, from the archive's bytes.
    let rlb = read("units.rlb");
    let parsed = nres::Archive::parse(&rlb).unwrap();
    let (name, bytes) = wear_sibling(&parsed, "turret.msh").unwrap();
    assert_eq!(name, "turret.wea");
    assert_eq!(bytes, read("loose/TURRET.WEA"));
    assert!(wear_sibling(&parsed, "OTHER.MSH").is_none());

    // Damaged or missing pieces are notes; the export goes on.
    let damaged = GameDir::given(
        GivenLibraries {
            material: Some(b"not an archive".to_vec().into()),
            textures: Some(b"NRes broken".to_vec().into()),
        },
        None,
    );
    let out = run(damaged, given_wear.clone());
    let c = codes(&out);
    assert!(c.contains(&"game.bad_material_lib"), "{c:?}");
    assert!(
        out.report
            .notes
            .iter()
            .any(|n| n.code == "game.bad_material_lib"
                && n.message.contains("the given Material.lib"))
    );
    let none = GameDir::given(GivenLibraries::default(), None);
    let out = run(none.clone(), given_wear);
    assert!(codes(&out).contains(&"game.no_material_lib"));
    let textures_missing = GameDir::given(
        GivenLibraries {
            material: Some(read("material.LIB").into()),
            textures: None,
        },
        None,
    );
    let out = run(
        textures_missing,
        ModelLocation::Given {
            model: "turret".into(),
            wear: Some(("t.wea".into(), read("loose/TURRET.WEA"))),
        },
    );
    let c = codes(&out);
    assert!(c.contains(&"game.no_textures_lib"), "{c:?}");
    let out = run(
        none,
        ModelLocation::Given {
            model: "turret".into(),
            wear: None,
        },
    );
    assert_eq!(codes(&out), ["game.no_wear"]);
}
