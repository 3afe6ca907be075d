//! `mshconv textures export/import` and `mshconv materials export/import`
//! over copies of the fixture game folder (`fixtures/small/game`):
//! unchanged files leave the libraries byte-identical, an edit changes only
//! its entry (after a `.bak`), new PNGs and materials are added, `--dry-run`
//! writes nothing, damaged files give their documented error codes
//! (docs/LIBRARY_FILES.md).

mod common;

use common::{copy_game, entry_rows, files, run, write_png};
use mshconv_material::mat0::MAT0_TYPE_ID;
use mshconv_material::texm::{PixelFormat, Rgba8Image};
use mshconv_material::{Mat0, Texm};
use std::path::{Path, PathBuf};

/// `(name, type_id, [attr1, attr2, attr3], payload)` of every entry of the library `lib`.
fn entries(lib: &Path) -> Vec<(String, u32, [u32; 3], Vec<u8>)> {
    entry_rows(&std::fs::read(lib).unwrap())
}

fn read_png(path: &Path) -> Rgba8Image {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        info.color_type,
        png::ColorType::Rgba,
        "exported PNGs are RGBA"
    );
    buf.truncate(info.buffer_size());
    Rgba8Image {
        width: info.width,
        height: info.height,
        pixels: buf,
    }
}

/// A copy of the game folder in `tmp/g`, its textures exported to `tmp/tex`.
fn exported(tmp: &Path) -> (PathBuf, PathBuf) {
    let game = tmp.join("g");
    copy_game(&game);
    run(tmp, &["textures", "export", "g/Textures.lib", "tex"]).expect(0);
    (game, tmp.join("tex"))
}

#[test]
fn textures_export_then_import_unchanged_leaves_the_game_folder_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let before = files(&game);
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tex.join("textures.json")).unwrap()).unwrap();
    let records = index["textures"].as_array().unwrap();
    let lib = entries(&game.join("Textures.lib"));
    assert_eq!(
        records.len(),
        lib.len(),
        "every fixture texture is exported"
    );
    for (record, (name, _, attributes, data)) in records.iter().zip(&lib) {
        let texm = Texm::parse(data).unwrap();
        assert_eq!(record["entry"], name.as_str());
        assert_eq!(record["pixel_format"], texm.format.code());
        assert_eq!(record["mip_levels"], texm.levels.len());
        assert_eq!(record["flags5"], texm.flags5);
        assert_eq!(record["attributes"], serde_json::json!(attributes));
        assert_eq!(record["page"].is_null(), texm.page.is_none(), "{name}");
        let png = read_png(&tex.join(record["file"].as_str().unwrap()));
        assert_eq!(png, texm.decode_rgba8().unwrap(), "{name}: mip 0 decoded");
    }
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(
        r.stdout
            .contains("0 replaced, 0 added, 11 unchanged: nothing to write"),
        "{}",
        r.stdout
    );
    assert_eq!(files(&game), before, "nothing written, no backup");
}

#[test]
fn an_edited_png_replaces_only_its_entry_after_a_backup() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let lib_path = game.join("Textures.lib");
    let original = std::fs::read(&lib_path).unwrap();
    let before = entries(&lib_path);
    let png_path = tex.join("TANK_BODY.0.png");
    let mut image = read_png(&png_path);
    // Red and blue are exact in 565: the edit survives the encoding.
    for p in image.pixels.chunks_exact_mut(4).take(100) {
        p.copy_from_slice(&[255, 0, 255, 255]);
    }
    write_png(&png_path, &image);
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(
        r.stdout
            .contains("Textures.lib: replace TANK_BODY.0 (565 64 x 64, 7 mips)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("1 replaced, 0 added, 10 unchanged"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("note[look.backup]"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(game.join("Textures.lib.bak")).unwrap(),
        original
    );
    let after = entries(&lib_path);
    assert_eq!(after.len(), before.len());
    for (a, b) in after.iter().zip(&before) {
        assert_eq!(
            (&a.0, a.1, a.2),
            (&b.0, b.1, b.2),
            "names, types, attributes, order kept"
        );
        if a.0 == "TANK_BODY.0" {
            let (new, old) = (Texm::parse(&a.3).unwrap(), Texm::parse(&b.3).unwrap());
            assert_eq!(new.decode_rgba8().unwrap(), image, "the edit is in");
            assert_eq!(
                (new.format, new.levels.len()),
                (old.format, old.levels.len())
            );
            assert_ne!(new.levels[1], old.levels[1], "mips rebuilt from the edit");
        } else {
            assert_eq!(a.3, b.3, "{} untouched", a.0);
        }
    }
    // The same folder again: nothing left to change, the backup kept.
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(r.stdout.contains("nothing to write"), "{}", r.stdout);
    assert_eq!(
        std::fs::read(game.join("Textures.lib.bak")).unwrap(),
        original
    );
}

/// Issue 39: alpha painted into the opaque 565 texture gives the same bytes
/// (its mips kept) and is noted as dropped, and a colour painted into the
/// palette texture is noted.
#[test]
fn alpha_on_an_opaque_png_keeps_the_entry_and_a_palette_repaint_is_noted() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let before = files(&game);
    let png_path = tex.join("TANK_BODY.0.png");
    let mut image = read_png(&png_path);
    for p in image.pixels.chunks_exact_mut(4).take(2000) {
        p[3] = 90;
    }
    write_png(&png_path, &image);
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(r.stdout.contains("nothing to write"), "{}", r.stdout);
    assert!(
        r.stderr.contains(
            "note[look.alpha_dropped]: texture \"TANK_BODY.0\" is opaque (format 565): alpha painted into it was dropped: 2000 of 4096 pixels, at most 165 off in a channel"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(files(&game), before);
    let png_path = tex.join("PAL_CAMO.png");
    let mut image = read_png(&png_path);
    for p in image.pixels.chunks_exact_mut(4).take(5) {
        p.copy_from_slice(&[128, 128, 128, 255]);
    }
    write_png(&png_path, &image);
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(
        r.stderr
            .contains("note[look.palette_reduced]: texture \"PAL_CAMO\"")
            && r.stderr.contains(": 5 of 1024 pixels"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("1 replaced"), "{}", r.stdout);
}

#[test]
fn a_new_png_becomes_a_new_texture_by_the_look_imports_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let before = entries(&game.join("Textures.lib"));
    let image = Rgba8Image {
        width: 100,
        height: 40,
        pixels: [10, 200, 30, 128].repeat(100 * 40),
    };
    write_png(&tex.join("new rock.png"), &image);
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(
        r.stdout
            .contains("Textures.lib: add new_rock (8888 128 x 32, 8 mips, from new rock.png)"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("note[look.name_fitted]"), "{}", r.stderr);
    assert!(
        r.stderr.contains("note[look.texture_resized]"),
        "{}",
        r.stderr
    );
    let after = entries(&game.join("Textures.lib"));
    assert_eq!(
        &after[..before.len()],
        &before[..],
        "the other entries untouched"
    );
    let (name, type_id, _, data) = &after[before.len()];
    assert_eq!(
        (name.as_str(), *type_id),
        ("new_rock", mshconv_material::texm::TEXM_MAGIC)
    );
    let texm = Texm::parse(data).unwrap();
    assert_eq!(texm.format, PixelFormat::Argb8888);
    assert_eq!((texm.width, texm.height, texm.levels.len()), (128, 32, 8));
    // Exported over the folder, the new PNG's name differs: said so.
    let r = run(
        tmp.path(),
        &["textures", "export", "g/Textures.lib", "tex", "--force"],
    )
    .expect(0);
    assert!(
        r.stderr.contains(
            "note[textures.other_png]: tex/new rock.png is not one of the library's textures"
        ),
        "{}",
        r.stderr
    );
    // Imported again, the stray PNG is the texture it became (12 records and
    // it unchanged): nothing to write.
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(
        r.stdout.contains("0 added, 13 unchanged: nothing to write"),
        "{}",
        r.stdout
    );
    // Exported again, it has a record; importing that changes nothing.
    let again = tmp.path().join("tex2");
    run(
        tmp.path(),
        &["textures", "export", "g/Textures.lib", "tex2"],
    )
    .expect(0);
    assert!(again.join("new_rock.png").exists());
    let r = run(
        tmp.path(),
        &["textures", "import", "tex2", "g/Textures.lib"],
    )
    .expect(0);
    assert!(r.stdout.contains("nothing to write"), "{}", r.stdout);
}

#[test]
fn dry_run_lists_the_changes_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let png_path = tex.join("ROCK_888.png");
    let mut image = read_png(&png_path);
    image.pixels[0] ^= 0xff;
    write_png(&png_path, &image);
    write_png(
        &tex.join("EXTRA.png"),
        &Rgba8Image {
            width: 4,
            height: 4,
            pixels: vec![255; 64],
        },
    );
    let before = files(&game);
    let r = run(
        tmp.path(),
        &["textures", "import", "tex", "g/Textures.lib", "--dry-run"],
    )
    .expect(0);
    assert!(
        r.stdout.contains("Textures.lib: replace ROCK_888"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("Textures.lib: add EXTRA (565 4 x 4, 3 mips"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("after a backup to g/Textures.lib.bak"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("1 replaced, 1 added, 10 unchanged (dry run, nothing written)"),
        "{}",
        r.stdout
    );
    assert_eq!(files(&game), before);
}

#[test]
fn a_changed_header_field_changes_only_that_field() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let before = entries(&game.join("Textures.lib"));
    let path = tex.join("textures.json");
    let mut index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    index["textures"][3]["flags4"] = 7.into();
    index["textures"][3]["attributes"] = serde_json::json!([1, 2, 3]);
    std::fs::write(&path, serde_json::to_vec_pretty(&index).unwrap()).unwrap();
    run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    let after = entries(&game.join("Textures.lib"));
    for (i, (a, b)) in after.iter().zip(&before).enumerate() {
        if i == 3 {
            let (new, old) = (Texm::parse(&a.3).unwrap(), Texm::parse(&b.3).unwrap());
            assert_eq!(new.flags4, 7);
            assert_eq!(a.2, [1, 2, 3]);
            assert_eq!(new.levels, old.levels, "the pixels are not re-encoded");
        } else {
            assert_eq!(a, b);
        }
    }
}

#[test]
fn a_damaged_textures_json_names_the_file_texture_and_field() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let before = files(&game);
    let path = tex.join("textures.json");
    let good = std::fs::read_to_string(&path).unwrap();
    let bad = good.replacen("\"pixel_format\": 565", "\"pixel_format\": 123", 1);
    assert_ne!(bad, good);
    std::fs::write(&path, bad).unwrap();
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(1);
    assert!(r.stderr.contains("error[textures.bad_index]: tex/textures.json: \"TANK_BODY.0\": field \"pixel_format\": 123 is not one of"), "{}", r.stderr);
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(1);
    assert!(
        r.stderr
            .contains("error[textures.bad_index]: tex/textures.json: not valid JSON"),
        "{}",
        r.stderr
    );
    std::fs::remove_file(&path).unwrap();
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(2);
    assert!(
        r.stderr.contains("error[textures.no_index]"),
        "{}",
        r.stderr
    );
    assert_eq!(files(&game), before);
}

/// The exported material file, parsed.
fn material_file(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A copy of the game folder in `tmp/g`, its materials exported to
/// `tmp/m.json`; the folder's files before.
fn materials_exported(tmp: &Path) -> (PathBuf, Files) {
    let game = tmp.join("g");
    copy_game(&game);
    let before = files(&game);
    run(tmp, &["materials", "export", "g/Material.lib", "m.json"]).expect(0);
    (game, before)
}

type Files = std::collections::BTreeMap<PathBuf, Vec<u8>>;

#[test]
fn every_material_field_is_exported_and_an_unchanged_file_leaves_the_library_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, before) = materials_exported(tmp.path());
    let file = material_file(&tmp.path().join("m.json"));
    let records = file["materials"].as_array().unwrap();
    let lib = entries(&game.join("Material.lib"));
    let mat0s: Vec<_> = lib.iter().filter(|e| e.1 == MAT0_TYPE_ID).collect();
    assert_eq!(records.len(), mat0s.len());
    for (r, (name, _, [attr1, attr2, attr3], data)) in records.iter().zip(mat0s) {
        let m = Mat0::parse(data, *attr2).unwrap();
        assert_eq!(r["entry"], name.as_str());
        assert_eq!(
            (&r["attr1"], &r["attr3"], &r["version"]),
            (&(*attr1).into(), &(*attr3).into(), &(*attr2).into())
        );
        let meta = &r["metadata"];
        assert_eq!(meta["a"].as_u64(), m.metadata.a.map(u64::from), "{name}");
        assert_eq!(meta["b"].as_u64(), m.metadata.b.map(u64::from), "{name}");
        assert_eq!(meta["c"].as_u64(), m.metadata.c.map(u64::from), "{name}");
        assert_eq!(meta["d"].as_u64(), m.metadata.d.map(u64::from), "{name}");
        let phases = r["phases"].as_array().unwrap();
        assert_eq!(phases.len(), m.phases.len());
        for (p, phase) in phases.iter().zip(&m.phases) {
            assert_eq!(p["texture"].as_str().unwrap().as_bytes(), phase.texture());
            assert_eq!(p["parameters"], serde_json::json!(phase.parameters));
        }
        let blocks = r["animation_blocks"].as_array().unwrap();
        assert_eq!(blocks.len(), m.animation_blocks.len());
        for (b, block) in blocks.iter().zip(&m.animation_blocks) {
            assert_eq!(b["timeline_mode"], block.mode_bits());
            assert_eq!(b["interpolation_mask"], block.interpolation_mask());
            let keys: Vec<[u16; 3]> = block.keys.iter().map(|k| [k.k0, k.k1, k.k2]).collect();
            assert_eq!(b["keys"], serde_json::json!(keys));
        }
    }
    assert!(
        records
            .iter()
            .any(|r| !r["animation_blocks"].as_array().unwrap().is_empty()),
        "the fixture has animated materials"
    );
    let r = run(
        tmp.path(),
        &["materials", "import", "m.json", "g/Material.lib"],
    )
    .expect(0);
    assert!(r.stdout.contains("nothing to write"), "{}", r.stdout);
    assert_eq!(files(&game), before);
}

#[test]
fn an_edited_material_is_rewritten_alone_and_a_new_one_added() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, _) = materials_exported(tmp.path());
    let lib_path = game.join("Material.lib");
    let original = std::fs::read(&lib_path).unwrap();
    let before = entries(&lib_path);
    let path = tmp.path().join("m.json");
    let mut file = material_file(&path);
    let records = file["materials"].as_array_mut().unwrap();
    let glass = records.iter().position(|r| r["entry"] == "GLASS").unwrap();
    records[glass]["phases"][0]["parameters"][0] = 1.into();
    records[glass]["animation_blocks"][0]["keys"][0][1] = 999.into();
    let mut new = records[0].clone();
    new["entry"] = "shiny steel".into();
    new["phases"][0]["texture"] = "ROCK_888".into();
    records.push(new);
    std::fs::write(&path, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
    let r = run(
        tmp.path(),
        &[
            "materials",
            "import",
            "m.json",
            "g/Material.lib",
            "--dry-run",
        ],
    )
    .expect(0);
    assert!(
        r.stdout.contains("Material.lib: replace GLASS"),
        "{}",
        r.stdout
    );
    assert_eq!(
        std::fs::read(&lib_path).unwrap(),
        original,
        "--dry-run writes nothing"
    );
    let r = run(
        tmp.path(),
        &["materials", "import", "m.json", "g/Material.lib"],
    )
    .expect(0);
    assert!(
        r.stdout
            .contains("Material.lib: add shiny_steel (version 4, 1 phase, texture ROCK_888)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 replaced, 1 added"), "{}", r.stdout);
    assert!(r.stderr.contains("note[look.name_fitted]"), "{}", r.stderr);
    assert_eq!(
        std::fs::read(game.join("Material.lib.bak")).unwrap(),
        original
    );
    let after = entries(&lib_path);
    assert_eq!(after.len(), before.len() + 1);
    for (a, b) in after.iter().zip(&before) {
        if a.0 == "GLASS" {
            let m = Mat0::parse(&a.3, a.2[1]).unwrap();
            assert_eq!(m.phases[0].parameters[0], 1);
            assert_eq!(m.animation_blocks[0].keys[0].k1, 999);
            assert_eq!(a.2, b.2, "attributes kept");
        } else {
            assert_eq!(a, b, "{} untouched", a.0);
        }
    }
    let (name, type_id, attrs, data) = after.last().unwrap();
    assert_eq!(
        (name.as_str(), *type_id, attrs[1]),
        ("shiny_steel", MAT0_TYPE_ID, 4)
    );
    assert_eq!(
        Mat0::parse(data, 4).unwrap().texture(),
        Some(&b"ROCK_888"[..])
    );
    // The same file again: the fitted name is the material brought back.
    let r = run(
        tmp.path(),
        &["materials", "import", "m.json", "g/Material.lib"],
    )
    .expect(0);
    assert!(r.stdout.contains("nothing to write"), "{}", r.stdout);
}

/// A material that names a texture `Textures.lib` lacks (a typo) is refused,
/// naming the material, the field and the texture, and nothing is written.
#[test]
fn a_material_naming_a_texture_the_library_lacks_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, before) = materials_exported(tmp.path());
    let path = tmp.path().join("m.json");
    let mut file = material_file(&path);
    let records = file["materials"].as_array_mut().unwrap();
    let glass = records.iter().position(|r| r["entry"] == "GLASS").unwrap();
    records[glass]["phases"][0]["texture"] = "NOSUCHTEX".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&file).unwrap()).unwrap();
    for dry_run in [&["--dry-run"][..], &[]] {
        let args = [
            &["materials", "import", "m.json", "g/Material.lib"][..],
            dry_run,
        ]
        .concat();
        let r = run(tmp.path(), &args).expect(1);
        assert!(
            r.stderr.contains(
                "error[materials.no_such_texture]: m.json: \"GLASS\": field \"phases[0].texture\": Textures.lib has no texture \"NOSUCHTEX\""
            ),
            "{}",
            r.stderr
        );
    }
    assert_eq!(files(&game), before);
}

#[test]
fn a_damaged_material_file_names_the_file_material_and_field() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, before) = materials_exported(tmp.path());
    let path = tmp.path().join("m.json");
    let mut file = material_file(&path);
    file["materials"][0]["phases"][0]["parameters"] = serde_json::json!([1, 2]);
    std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let r = run(
        tmp.path(),
        &["materials", "import", "m.json", "g/Material.lib"],
    )
    .expect(1);
    assert!(
        r.stderr.contains(
            "error[materials.bad_file]: m.json: \"TANK_BODY\": field \"phases[0].parameters\""
        ),
        "{}",
        r.stderr
    );
    let mut file = material_file(&tmp.path().join("m.json"));
    file["materials"][0]["phases"][0]["parameters"] = serde_json::json!([0u8; 18].to_vec());
    file["materials"][0]["version"] = 1.into();
    std::fs::write(&path, serde_json::to_vec(&file).unwrap()).unwrap();
    let r = run(
        tmp.path(),
        &["materials", "import", "m.json", "g/Material.lib"],
    )
    .expect(1);
    assert!(
        r.stderr
            .contains("error[materials.bad_file]: m.json: \"TANK_BODY\": field \"metadata\": "),
        "{}",
        r.stderr
    );
    // Exporting over the edited file is refused.
    let r = run(
        tmp.path(),
        &["materials", "export", "g/Material.lib", "m.json"],
    )
    .expect(2);
    assert!(
        r.stderr.contains("error[io.already_exists]"),
        "{}",
        r.stderr
    );
    assert_eq!(files(&game), before);
}

#[test]
fn another_format_or_mip_count_in_textures_json_re_encodes_the_texture() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    let before = entries(&game.join("Textures.lib"));
    let path = tex.join("textures.json");
    let mut index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // TANK_BODY.0 (565, 7 mips) as 8888 with 3 mips.
    assert_eq!(index["textures"][0]["entry"], "TANK_BODY.0");
    index["textures"][0]["pixel_format"] = 8888.into();
    index["textures"][0]["mip_levels"] = 3.into();
    std::fs::write(&path, serde_json::to_vec_pretty(&index).unwrap()).unwrap();
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(0);
    assert!(
        r.stdout
            .contains("Textures.lib: replace TANK_BODY.0 (8888 64 x 64, 3 mips)"),
        "{}",
        r.stdout
    );
    let after = entries(&game.join("Textures.lib"));
    let (new, old) = (
        Texm::parse(&after[0].3).unwrap(),
        Texm::parse(&before[0].3).unwrap(),
    );
    assert_eq!((new.format, new.levels.len()), (PixelFormat::Argb8888, 3));
    // 565 widened to 8 bits is exact in 8888: the picture is the same.
    assert_eq!(new.decode_rgba8().unwrap(), old.decode_rgba8().unwrap());
    assert_eq!(&after[1..], &before[1..], "the other entries untouched");
}

#[test]
fn a_read_only_library_is_refused_before_anything_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let (game, tex) = exported(tmp.path());
    write_png(
        &tex.join("EXTRA.png"),
        &Rgba8Image {
            width: 2,
            height: 2,
            pixels: vec![9; 16],
        },
    );
    let lib = game.join("Textures.lib");
    let mut permissions = std::fs::metadata(&lib).unwrap().permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&lib, permissions).unwrap();
    let before = files(&game);
    let r = run(tmp.path(), &["textures", "import", "tex", "g/Textures.lib"]).expect(2);
    assert!(r.stderr.contains("error[io.read_only]"), "{}", r.stderr);
    assert_eq!(files(&game), before, "no backup, no temporary file");
}
