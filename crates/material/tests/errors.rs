//! Damaged inputs: each gives its stable code at its byte offset.

use mshconv_material::mat0::{AnimationBlock, Key, Metadata, Phase};
use mshconv_material::texm::{PixelFormat, PAGE_MAGIC};
use mshconv_material::wear::WearRow;
use mshconv_material::{samples, Error, ErrorKind, Mat0, Texm, Wear};

fn located(r: Result<impl std::fmt::Debug, Error>) -> (&'static str, Option<u64>) {
    let e = r.unwrap_err();
    assert!(e.to_string().starts_with(e.code()));
    (e.code(), e.offset())
}

#[test]
fn codes_are_unique_and_namespaced() {
    let mut codes: Vec<_> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
    assert!(codes
        .iter()
        .all(|c| c.starts_with("wear.") || c.starts_with("mat0.") || c.starts_with("texm.")));
    codes.sort();
    codes.dedup();
    assert_eq!(codes.len(), ErrorKind::ALL.len());
}

#[test]
fn damaged_wear() {
    let cases: &[(&[u8], &str, u64)] = &[
        (b"", "wear.bad_count", 0),
        (b"\r\n", "wear.bad_count", 0),
        (b"x\r\n0 A\r\n", "wear.bad_count", 0),
        (b"1 2\r\n0 A\r\n", "wear.bad_count", 2),
        (b"1234567890\r\n", "wear.bad_count", 0),
        (b"0\r\n", "wear.zero_count", 0),
        (b"2\r\n0 A\r\n", "wear.missing_row", 8),
        (b"1\r\n0\r\n", "wear.bad_row", 3),
        (b"1\r\n0 A B\r\n", "wear.bad_row", 7),
        (b"1\r\n\r\n", "wear.bad_row", 3),
        (b"1\r\n0 A\r\n1 B\r\n", "wear.trailing_text", 8),
        (
            b"1\r\n0 A\r\nLIGHTMAPS\r\n0\r\n",
            "wear.missing_separator",
            8,
        ),
        (b"1\r\n0 A\r\n\r\nLIGHTMAP\r\n0\r\n", "wear.bad_marker", 10),
        (
            b"1\r\n0 A\r\n\r\n\r\nLIGHTMAPS\r\n0\r\n",
            "wear.trailing_text",
            12,
        ),
        (b"1\r\n0 A\r\n\r\nLIGHTMAPS\r\n", "wear.bad_count", 21),
        (
            b"1\r\n0 A\r\n\r\nLIGHTMAPS\r\n2\r\n0 L\r\n",
            "wear.missing_row",
            29,
        ),
        (
            b"1\r\n0 A\r\n\r\nLIGHTMAPS\r\n0\r\nX\r\n",
            "wear.trailing_text",
            24,
        ),
        (b"1\r\n0 A\rB\r\n", "wear.bad_byte", 6),
        (b"1\r\n0 A\0\r\n", "wear.bad_byte", 6),
    ];
    for (bytes, code, offset) in cases {
        assert_eq!(
            located(Wear::parse(bytes)),
            (*code, Some(*offset)),
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn unwritable_wear() {
    let code = |w: &Wear| w.write().unwrap_err().code();
    assert_eq!(code(&Wear::new(vec![])), "wear.zero_count");
    assert_eq!(
        code(&Wear::new(vec![WearRow::new("0", "漢")])),
        "wear.unencodable"
    );
    assert_eq!(
        code(&Wear::new(vec![WearRow::new("0", "A B")])),
        "wear.bad_layout"
    );
    assert_eq!(
        code(&Wear::new(vec![WearRow::new("", "A")])),
        "wear.bad_layout"
    );
    let mut row = WearRow::new("0", "A");
    row.between.clear();
    assert_eq!(code(&Wear::new(vec![row])), "wear.bad_layout");
    let mut w = Wear::parse(b"2\n5 A\n6 B").unwrap();
    w.materials.push(WearRow::new("7", "C"));
    assert_eq!(code(&w), "wear.bad_layout");
    let mut w = Wear::parse(b"1\r\n0 A\r\n").unwrap();
    w.trailer = "x".into();
    assert_eq!(code(&w), "wear.bad_layout");
}

fn mat0_v4() -> Vec<u8> {
    Mat0 {
        version: 4,
        metadata: Metadata {
            a: Some(1),
            b: Some(2),
            c: Some(3),
            d: Some(4),
        },
        phases: vec![Phase::new(b"A")],
        animation_blocks: vec![AnimationBlock {
            header: 0,
            keys: vec![Key::default(); 2],
        }],
    }
    .write()
    .unwrap()
}

#[test]
fn damaged_mat0() {
    let good = mat0_v4();
    // 4 counts + 10 prefix + 34 phase + 6 header + 12 keys.
    assert_eq!(good.len(), 66);
    assert_eq!(
        located(Mat0::parse(&good, 7)),
        ("mat0.bad_version", Some(0))
    );
    assert_eq!(
        located(Mat0::parse(&good[..1], 4)),
        ("mat0.truncated", Some(0))
    );
    assert_eq!(
        located(Mat0::parse(&good[..3], 4)),
        ("mat0.truncated", Some(2))
    );
    assert_eq!(
        located(Mat0::parse(&good[..9], 4)),
        ("mat0.truncated", Some(6))
    );
    assert_eq!(
        located(Mat0::parse(&good[..13], 4)),
        ("mat0.truncated", Some(10))
    );
    assert_eq!(
        located(Mat0::parse(&good[..40], 4)),
        ("mat0.truncated", Some(14))
    );
    assert_eq!(
        located(Mat0::parse(&good[..50], 4)),
        ("mat0.truncated", Some(48))
    );
    assert_eq!(
        located(Mat0::parse(&good[..65], 4)),
        ("mat0.truncated", Some(54))
    );
    let mut long = good.clone();
    long.push(0);
    assert_eq!(
        located(Mat0::parse(&long, 4)),
        ("mat0.trailing_bytes", Some(66))
    );
    let mut many = good.clone();
    many[2..4].copy_from_slice(&20u16.to_le_bytes());
    assert_eq!(
        located(Mat0::parse(&many, 4)),
        ("mat0.too_many_blocks", Some(2))
    );
    let mut huge = good.clone();
    huge[0..2].copy_from_slice(&u16::MAX.to_le_bytes());
    assert_eq!(located(Mat0::parse(&huge, 4)), ("mat0.truncated", Some(14)));
    // Read as version 0, the same bytes leave the prefix over: not a valid MAT0.
    assert!(Mat0::parse(&good, 0).is_err());
}

#[test]
fn unwritable_mat0() {
    let mut m = Mat0::parse(&mat0_v4(), 4).unwrap();
    m.metadata.d = None;
    assert_eq!(m.write().unwrap_err().code(), "mat0.bad_layout");
    let mut m = Mat0::parse(&mat0_v4(), 4).unwrap();
    m.version = 1;
    assert_eq!(m.write().unwrap_err().code(), "mat0.bad_layout");
    let mut m = Mat0::parse(&mat0_v4(), 4).unwrap();
    m.animation_blocks = vec![AnimationBlock::default(); 20];
    assert_eq!(m.write().unwrap_err().code(), "mat0.too_many_blocks");
    let mut m = Mat0::parse(&mat0_v4(), 4).unwrap();
    m.version = 99;
    assert_eq!(m.write().unwrap_err().code(), "mat0.bad_version");
}

fn header(width: u32, height: u32, mips: u32, format: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [0x6D78_6554, width, height, mips, 0, 0, 0, format] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[test]
fn damaged_texm() {
    assert_eq!(located(Texm::parse(&[])), ("texm.truncated", Some(0)));
    assert_eq!(
        located(Texm::parse(&header(1, 1, 1, 8888)[..31])),
        ("texm.truncated", Some(31))
    );
    let mut magic = header(1, 1, 1, 8888);
    magic[0] = b't';
    assert_eq!(located(Texm::parse(&magic)), ("texm.bad_magic", Some(0)));
    assert_eq!(
        located(Texm::parse(&header(0, 1, 1, 8888))),
        ("texm.zero_size", Some(4))
    );
    assert_eq!(
        located(Texm::parse(&header(1, 0, 1, 8888))),
        ("texm.zero_size", Some(8))
    );
    assert_eq!(
        located(Texm::parse(&header(1, 1, 0, 8888))),
        ("texm.zero_mips", Some(12))
    );
    assert_eq!(
        located(Texm::parse(&header(1, 1, 1, 555))),
        ("texm.bad_format", Some(28))
    );
    // The palette of format 0 is missing.
    assert_eq!(
        located(Texm::parse(&header(1, 1, 1, 0))),
        ("texm.truncated", Some(32))
    );
    // Level 1 of a 4 x 2 565 image does not fit.
    let mut t = header(4, 2, 2, 565);
    t.extend_from_slice(&[0; 16 + 3]);
    assert_eq!(located(Texm::parse(&t)), ("texm.truncated", Some(48)));
    // The claims that overflow: 2^32 - 1 squared, 4 bytes a pixel; u32::MAX levels.
    assert_eq!(
        located(Texm::parse(&header(u32::MAX, u32::MAX, 1, 8888))),
        ("texm.truncated", Some(32))
    );
    let mut levels = header(1, 1, u32::MAX, 88);
    levels.extend_from_slice(&[0; 10]);
    assert_eq!(located(Texm::parse(&levels)), ("texm.truncated", Some(42)));
    // After the chain: not a Page chunk, a short one, a wrong count.
    let mut base = header(1, 1, 1, 8888);
    base.extend_from_slice(&[1, 2, 3, 4]);
    let mut tail = base.clone();
    tail.extend_from_slice(b"Pag");
    assert_eq!(located(Texm::parse(&tail)), ("texm.bad_page", Some(36)));
    let mut tail = base.clone();
    tail.extend_from_slice(b"PAGE\0\0\0\0");
    assert_eq!(located(Texm::parse(&tail)), ("texm.bad_page", Some(36)));
    let mut tail = base.clone();
    tail.extend_from_slice(&PAGE_MAGIC.to_le_bytes());
    tail.extend_from_slice(&2u32.to_le_bytes());
    tail.extend_from_slice(&[0; 8]);
    assert_eq!(
        located(Texm::parse(&tail)),
        ("texm.bad_page_size", Some(40))
    );
    let mut tail = base.clone();
    tail.extend_from_slice(&PAGE_MAGIC.to_le_bytes());
    tail.extend_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        located(Texm::parse(&tail)),
        ("texm.bad_page_size", Some(40))
    );
    // Every sample, cut anywhere, is an error with an offset within the
    // input (or, cut just before its Page chunk, a valid texture without it).
    for (name, bytes) in samples::texm() {
        for len in 0..bytes.len() {
            match Texm::parse(&bytes[..len]) {
                Ok(t) => {
                    assert!(t.page.is_none(), "{name} cut to {len}");
                    assert_eq!(t.write().unwrap(), &bytes[..len]);
                }
                Err(e) => assert!(
                    e.offset().unwrap() <= len as u64,
                    "{name} cut to {len}: {e}"
                ),
            }
        }
    }
}

#[test]
fn unwritable_texm() {
    let (_, t) = samples::texm_values().remove(1);
    let mut bad = t.clone();
    bad.levels[1].pop();
    assert_eq!(bad.write().unwrap_err().code(), "texm.bad_layout");
    let mut bad = t.clone();
    bad.palette = Some(samples::palette());
    assert_eq!(bad.write().unwrap_err().code(), "texm.bad_layout");
    let mut bad = t.clone();
    bad.levels.clear();
    assert_eq!(bad.write().unwrap_err().code(), "texm.zero_mips");
    let mut bad = t.clone();
    bad.width = 0;
    assert_eq!(bad.write().unwrap_err().code(), "texm.zero_size");
    let mut bad = t.clone();
    assert_eq!(
        bad.set_level_rgba8(0, &[0; 3]).unwrap_err().code(),
        "texm.bad_layout"
    );
    assert_eq!(
        bad.set_level_rgba8(9, &[0; 4]).unwrap_err().code(),
        "texm.bad_layout"
    );
    assert_eq!(t.format, PixelFormat::Rgb565);
    let empty = mshconv_material::texm::Rgba8Image {
        width: 0,
        height: 3,
        pixels: vec![],
    };
    assert_eq!(
        Texm::from_rgba8(&empty, PixelFormat::Rgb565, None)
            .unwrap_err()
            .code(),
        "texm.zero_size"
    );
    // Sizes whose byte counts overflow 64 bits are errors, not panics.
    let mut huge = t.clone();
    huge.width = u32::MAX;
    huge.height = u32::MAX;
    assert_eq!(huge.write().unwrap_err().code(), "texm.bad_layout");
    assert_eq!(huge.decode_rgba8().unwrap_err().code(), "texm.bad_layout");
    let e = mshconv_material::texm::encode_level(
        PixelFormat::Argb8888,
        None,
        u32::MAX,
        u32::MAX,
        &[0; 4],
        None,
    );
    assert_eq!(e.unwrap_err().code(), "texm.bad_layout");
}

#[test]
fn every_cut_wear_and_mat0_is_an_error_or_a_valid_shorter_table() {
    for (name, bytes) in samples::wear() {
        for len in 0..bytes.len() {
            match Wear::parse(&bytes[..len]) {
                Ok(w) => assert_eq!(w.write().unwrap(), &bytes[..len], "{name} cut to {len}"),
                Err(e) => assert!(
                    e.offset().unwrap() <= len as u64,
                    "{name} cut to {len}: {e}"
                ),
            }
        }
    }
    for (name, version, bytes) in samples::mat0() {
        for len in 0..bytes.len() {
            let e = Mat0::parse(&bytes[..len], version).unwrap_err();
            assert!(
                e.offset().unwrap() <= len as u64,
                "{name} cut to {len}: {e}"
            );
        }
    }
}

#[test]
fn docs_list_every_code() {
    let materials = include_str!("../../../docs/MATERIALS.md");
    for kind in ErrorKind::ALL {
        let row = format!("| `{}` |", kind.code());
        assert!(
            materials.contains(&row),
            "docs/MATERIALS.md does not list {row}"
        );
    }
}
