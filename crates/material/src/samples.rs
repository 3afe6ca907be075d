//! Small, valid sample inputs built in code (no retail file exists in this
//! repository or may be added): for the tests, the documentation and the
//! fuzz targets' seeds (`cargo run -p mshconv-material --example seeds`).

use crate::mat0::{AnimationBlock, Key, Mat0, Metadata, Phase};
use crate::texm::{PageRect, PixelFormat, Texm, FORMATS, PALETTE_ENTRIES};

/// WEAR texts: name and bytes.
pub fn wear() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("one_row", b"1\r\n0 DEFAULT\r\n".to_vec()),
        (
            "three_rows",
            b"3\r\n0 TANK_BODY\r\n1 TANK_TRACK\r\n27 GLASS\r\n".to_vec(),
        ),
        (
            "lightmaps",
            b"2\r\n0 LAND_A\r\n1 LAND_B\r\n\r\nLIGHTMAPS\r\n2\r\n0 LM_0\r\n1 LM_1\r\n".to_vec(),
        ),
        ("lf_no_final_newline", b"2\n5 A\n6 B".to_vec()),
        (
            "spacing_and_trailer",
            b" 02 \r\n 0\tMAT_\xc0\xc1\xc2 \r\n1  X\r\n\r\n \r\n".to_vec(),
        ),
        (
            "empty_lightmaps",
            b"1\r\n0 M\r\n  \r\nLIGHTMAPS\r\n0\r\n".to_vec(),
        ),
    ]
}

/// MAT0 payloads: name, version (`attr2`) and bytes.
pub fn mat0() -> Vec<(&'static str, u32, Vec<u8>)> {
    let mut out = Vec::new();
    let mut plain = Mat0 {
        version: 0,
        metadata: Metadata::default(),
        phases: vec![Phase::new(b"TEX_A")],
        animation_blocks: vec![],
    };
    out.push(("v0_one_phase", 0, plain.write().expect("valid")));
    plain.version = 2;
    plain.metadata = Metadata {
        a: Some(1),
        b: Some(2),
        c: None,
        d: None,
    };
    out.push(("v2", 2, plain.write().expect("valid")));
    let mut parameters = [0u8; 18];
    for (i, p) in parameters.iter_mut().enumerate() {
        *p = i as u8 * 13;
    }
    let animated = Mat0 {
        version: 6,
        metadata: Metadata {
            a: Some(255),
            b: Some(0),
            c: Some(0x3F80_0000),
            d: Some(7),
        },
        phases: vec![
            Phase {
                parameters,
                texture_name: *b"FIRE_0\0garbage!!",
            },
            Phase::new(b"FIRE_1"),
            Phase::new(b""),
        ],
        animation_blocks: vec![
            AnimationBlock {
                header: (0b101 << 3) | 1,
                keys: vec![
                    Key {
                        k0: 0,
                        k1: 0,
                        k2: 0,
                    },
                    Key {
                        k0: 10,
                        k1: 1,
                        k2: 65535,
                    },
                ],
            },
            AnimationBlock {
                header: 3,
                keys: vec![],
            },
        ],
    };
    out.push(("v6_animated", 6, animated.write().expect("valid")));
    let untextured = Mat0 {
        version: 3,
        metadata: Metadata {
            a: Some(9),
            b: Some(8),
            c: Some(1),
            d: None,
        },
        phases: vec![],
        animation_blocks: vec![AnimationBlock {
            header: 2,
            keys: vec![Key::default()],
        }],
    };
    out.push(("v3_no_phase", 3, untextured.write().expect("valid")));
    out
}

/// A palette of distinct colours (entry i is `(i, 255 - i, i * 7, 255 - i / 2)`).
pub fn palette() -> Box<[[u8; 4]; PALETTE_ENTRIES]> {
    let mut p = Box::new([[0u8; 4]; PALETTE_ENTRIES]);
    for (i, e) in p.iter_mut().enumerate() {
        let i = i as u8;
        *e = [i, 255 - i, i.wrapping_mul(7), 255 - i / 2];
    }
    p
}

/// A texture of each format with a full mip chain (5 x 3 -> 2 x 1 -> 1 x 1),
/// deterministic pixel bytes, and for some a `Page` chunk.
pub fn texm_values() -> Vec<(String, Texm)> {
    let mut out = Vec::new();
    for (code, format, bpp) in FORMATS {
        let (w, h) = (5u32, 3u32);
        let levels = (0..3)
            .map(|l| {
                let (lw, lh) = crate::texm::level_size(w, h, l);
                (0..lw as usize * lh as usize * bpp)
                    .map(|i| (i as u32 * 37 + l * 11 + code) as u8)
                    .collect()
            })
            .collect();
        let t = Texm {
            width: w,
            height: h,
            flags4: code,
            flags5: 1,
            unknown6: 0xDEAD_BEEF,
            format,
            palette: (format == PixelFormat::Indexed8).then(palette),
            levels,
            page: (code % 2 == 0).then(|| {
                vec![
                    PageRect {
                        x: 0,
                        width: 2,
                        y: 0,
                        height: 3,
                    },
                    PageRect {
                        x: 2,
                        width: 3,
                        y: -1,
                        height: 1,
                    },
                ]
            }),
        };
        out.push((format!("format_{code}"), t));
    }
    out
}

/// Texm payloads: name and bytes (those of [`texm_values`], plus a 1 x 1 one
/// with an empty `Page` chunk).
pub fn texm() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = texm_values()
        .into_iter()
        .map(|(n, t)| (n, t.write().expect("valid")))
        .collect();
    let tiny = Texm {
        width: 1,
        height: 1,
        flags4: 0,
        flags5: 0,
        unknown6: 0,
        format: PixelFormat::Argb8888,
        palette: None,
        levels: vec![vec![1, 2, 3, 4]],
        page: Some(vec![]),
    };
    out.push(("tiny_empty_page".into(), tiny.write().expect("valid")));
    out
}
