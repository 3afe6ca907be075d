//! Every sample and every format: bytes -> value -> bytes is the identity;
//! pixels convert to RGBA8 and back to the same bits.

use mshconv_material::mat0::{TimelineMode, MAX_VERSION};
use mshconv_material::texm::{
    encode_level, level_size, narrow, widen, PixelFormat, Rgba8Image, FORMATS,
};
use mshconv_material::{cp1251, samples, Mat0, Texm, Wear};

#[test]
fn wear_samples_round_trip() {
    for (name, bytes) in samples::wear() {
        let wear = Wear::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(wear.write().unwrap(), bytes, "{name}");
    }
}

#[test]
fn wear_fields_are_read_by_position() {
    let wear = Wear::parse(b"3\r\n0 TANK_BODY\r\n1 TANK_TRACK\r\n27 GLASS\r\n").unwrap();
    assert_eq!(wear.material_name(2), Some("GLASS"));
    assert_eq!(wear.materials[2].legacy_id, "27");
    assert_eq!(wear.material_name(3), None);
    assert!(wear.lightmaps.is_none());

    let lm = Wear::parse(&samples::wear()[2].1).unwrap();
    let block = lm.lightmaps.as_ref().unwrap();
    assert_eq!(block.rows.len(), 2);
    assert_eq!(block.rows[1].name, "LM_1");

    let cyr = Wear::parse(&samples::wear()[4].1).unwrap();
    assert_eq!(cyr.materials[0].name, "MAT_АБВ");
    assert_eq!(cyr.count.digits, "02");
    assert_eq!(cyr.trailer, "\r\n \r\n");
}

#[test]
fn edited_wear_is_written_canonically_where_edited() {
    let mut wear = Wear::parse(b"1\r\n0 A\r\n").unwrap();
    wear.materials
        .push(mshconv_material::wear::WearRow::new("1", "Ёлка"));
    let bytes = wear.write().unwrap();
    assert_eq!(bytes, b"2\r\n0 A\r\n1 \xa8\xeb\xea\xe0\r\n");
    assert_eq!(Wear::parse(&bytes).unwrap(), wear_with_digits(wear, "2"));
}

fn wear_with_digits(mut wear: Wear, digits: &str) -> Wear {
    wear.count.digits = digits.into();
    wear
}

#[test]
fn cp1251_table_matches_encoding_rs_and_is_a_bijection() {
    for b in 0..=255u8 {
        let input = [b];
        let ours = cp1251::decode(&input);
        let theirs = encoding_rs::WINDOWS_1251
            .decode_without_bom_handling(&input)
            .0
            .into_owned();
        assert_eq!(ours, theirs, "byte 0x{b:02x}");
        assert_eq!(cp1251::encode(&ours).unwrap(), vec![b]);
    }
}

#[test]
fn mat0_samples_round_trip() {
    for (name, version, bytes) in samples::mat0() {
        let m = Mat0::parse(&bytes, version).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.write().unwrap(), bytes, "{name}");
    }
}

#[test]
fn mat0_fields() {
    let (_, v, bytes) = &samples::mat0()[2];
    let m = Mat0::parse(bytes, *v).unwrap();
    assert_eq!(m.phases.len(), 3);
    assert_eq!(m.texture(), Some(&b"FIRE_0"[..]));
    assert_eq!(&m.phases[0].texture_name[7..], b"garbage!!");
    assert_eq!(m.metadata.d, Some(7));
    assert_eq!(m.animation_blocks[0].mode(), Some(TimelineMode::PingPong));
    assert_eq!(m.animation_blocks[0].interpolation_mask(), 0b101);
    assert_eq!(
        m.animation_blocks[1].mode(),
        Some(TimelineMode::RandomOffset)
    );
    assert_eq!(m.animation_blocks[0].keys[1].k2, 65535);

    let (_, v, bytes) = &samples::mat0()[0];
    let old = Mat0::parse(bytes, *v).unwrap();
    assert_eq!(old.metadata.effective(), [255, 255, 0x3F80_0000, 0]);
    assert_eq!(bytes.len(), 4 + 34);
    // The same bytes under a version that stores more prefix fields read differently.
    assert!(Mat0::parse(bytes, 4).is_err() || Mat0::parse(bytes, 4).unwrap().phases.len() != 1);
    for version in 0..=MAX_VERSION {
        let m = Mat0 {
            version,
            metadata: {
                let mut md = mshconv_material::mat0::Metadata::default();
                if version >= 2 {
                    md.a = Some(1);
                    md.b = Some(2);
                }
                if version >= 3 {
                    md.c = Some(3);
                }
                if version >= 4 {
                    md.d = Some(4);
                }
                md
            },
            phases: vec![mshconv_material::mat0::Phase::new(b"T")],
            animation_blocks: vec![],
        };
        let bytes = m.write().unwrap();
        assert_eq!(
            Mat0::parse(&bytes, version).unwrap(),
            m,
            "version {version}"
        );
    }
}

#[test]
fn texm_samples_round_trip() {
    for (name, bytes) in samples::texm() {
        let t = Texm::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.write().unwrap(), bytes, "{name}");
    }
}

#[test]
fn every_format_decodes_and_encodes_back_to_the_same_bits() {
    for (name, t) in samples::texm_values() {
        for level in 0..t.levels.len() {
            let image = t.decode_level_rgba8(level).unwrap();
            let (w, h) = level_size(t.width, t.height, level as u32);
            assert_eq!((image.width, image.height), (w, h));
            assert_eq!(image.pixels.len(), (w * h * 4) as usize);
            let back = encode_level(
                t.format,
                t.palette.as_deref(),
                w,
                h,
                &image.pixels,
                Some(&t.levels[level]),
            )
            .unwrap();
            assert_eq!(back, t.levels[level], "{name} level {level}");
            // Without the reference too, except what RGBA8 cannot say.
            if t.format != PixelFormat::Rgb888 {
                let again = encode_level(t.format, t.palette.as_deref(), w, h, &image.pixels, None)
                    .unwrap();
                assert_eq!(
                    again, t.levels[level],
                    "{name} level {level} without reference"
                );
            }
        }
        let mut edited = t.clone();
        let image = t.decode_rgba8().unwrap();
        edited.set_level_rgba8(0, &image.pixels).unwrap();
        assert_eq!(edited, t, "{name}");
    }
}

#[test]
fn every_pixel_value_of_the_16_bit_formats_comes_back() {
    for format in [
        PixelFormat::Rgb565,
        PixelFormat::Rgb556,
        PixelFormat::Argb4444,
        PixelFormat::La88,
    ] {
        let raw: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let t = Texm {
            width: 256,
            height: 256,
            flags4: 0,
            flags5: 0,
            unknown6: 0,
            format,
            palette: None,
            levels: vec![raw.clone()],
            page: None,
        };
        let image = t.decode_rgba8().unwrap();
        let back = encode_level(format, None, 256, 256, &image.pixels, None).unwrap();
        assert_eq!(back, raw, "{format:?}");
    }
}

#[test]
fn known_pixels_decode_as_documented() {
    let px = |format: PixelFormat, bytes: &[u8]| {
        let t = Texm {
            width: 1,
            height: 1,
            flags4: 0,
            flags5: 0,
            unknown6: 0,
            format,
            palette: (format == PixelFormat::Indexed8).then(samples::palette),
            levels: vec![bytes.to_vec()],
            page: None,
        };
        t.decode_rgba8().unwrap().pixels
    };
    assert_eq!(
        px(PixelFormat::Rgb565, &0xF800u16.to_le_bytes()),
        [255, 0, 0, 255]
    );
    assert_eq!(
        px(PixelFormat::Rgb565, &0x07E0u16.to_le_bytes()),
        [0, 255, 0, 255]
    );
    // 0b10000 in 5 bits -> 0b10000100 by bit repetition.
    assert_eq!(
        px(PixelFormat::Rgb565, &(0b10000u16 << 11).to_le_bytes()),
        [132, 0, 0, 255]
    );
    assert_eq!(
        px(PixelFormat::Rgb556, &0x003Fu16.to_le_bytes()),
        [0, 0, 255, 255]
    );
    assert_eq!(
        px(PixelFormat::Rgb556, &0x07C0u16.to_le_bytes()),
        [0, 255, 0, 255]
    );
    assert_eq!(
        px(PixelFormat::Argb4444, &0x8421u16.to_le_bytes()),
        [0x44, 0x22, 0x11, 0x88]
    );
    assert_eq!(
        px(PixelFormat::La88, &0x7F40u16.to_le_bytes()),
        [0x7F, 0x7F, 0x7F, 0x40]
    );
    assert_eq!(
        px(PixelFormat::Rgb888, &[0x11, 0x22, 0x33, 0x99]),
        [0x11, 0x22, 0x33, 255]
    );
    assert_eq!(
        px(PixelFormat::Argb8888, &[0x40, 0x11, 0x22, 0x33]),
        [0x11, 0x22, 0x33, 0x40]
    );
    assert_eq!(px(PixelFormat::Indexed8, &[3]), [3, 252, 21, 254]);
}

#[test]
fn widening_and_narrowing() {
    assert_eq!(widen(31, 5), 255);
    assert_eq!(widen(63, 6), 255);
    assert_eq!(widen(15, 4), 255);
    assert_eq!(widen(0b00001, 5), 0b00001000);
    assert_eq!(widen(7, 4), 0x77);
    for bits in 4..=8 {
        for v in 0..(1u32 << bits) {
            assert_eq!(narrow(widen(v, bits), bits), v, "{bits} bits, {v}");
        }
        // Narrowing is monotonic and rounds to the nearest value.
        for x in 0..=255u8 {
            let n = narrow(x, bits);
            let err = (i32::from(widen(n, bits)) - i32::from(x)).abs();
            for m in 0..(1u32 << bits) {
                assert!(err <= (i32::from(widen(m, bits)) - i32::from(x)).abs() + 1);
            }
        }
    }
}

#[test]
fn rgba8_encodes_to_every_format() {
    let pixels: Vec<u8> = (0..6 * 4).map(|i| (i * 41 % 256) as u8).collect();
    let image = Rgba8Image {
        width: 3,
        height: 2,
        pixels,
    };
    for (code, format, bpp) in FORMATS {
        let palette = (format == PixelFormat::Indexed8).then(|| *samples::palette());
        let t = Texm::from_rgba8(&image, format, palette).unwrap();
        assert_eq!(t.levels[0].len(), 6 * bpp);
        let bytes = t.write().unwrap();
        assert_eq!(u32::from_le_bytes(bytes[28..32].try_into().unwrap()), code);
        let back = Texm::parse(&bytes).unwrap();
        assert_eq!(back, t);
        let decoded = back.decode_rgba8().unwrap();
        if format == PixelFormat::Argb8888 {
            assert_eq!(decoded, image);
        }
    }
    assert!(Texm::from_rgba8(&image, PixelFormat::Indexed8, None).is_err());
}

#[test]
fn a_mip_chain_is_built_from_rgba8() {
    use mshconv_material::texm::downsample;
    let pixels: Vec<u8> = (0..5 * 3)
        .flat_map(|i| [i as u8 * 10, 255 - i as u8, 7, 255])
        .collect();
    let image = Rgba8Image {
        width: 5,
        height: 3,
        pixels,
    };
    let half = downsample(&image);
    assert_eq!((half.width, half.height), (2, 1));
    // Pixel (0, 0) of level 1 is the mean of source (0..2, 0..2): red 0, 10, 50, 60.
    assert_eq!(half.pixels[0], 30);
    let one = downsample(&downsample(&half));
    assert_eq!((one.width, one.height, one.pixels.len()), (1, 1, 4));
    for (_, format, _) in FORMATS {
        let palette = (format == PixelFormat::Indexed8).then(|| *samples::palette());
        let t = Texm::from_rgba8_with_mips(&image, format, palette, 4).unwrap();
        assert_eq!(t.levels.len(), 4);
        let bytes = t.write().unwrap();
        assert_eq!(Texm::parse(&bytes).unwrap(), t);
    }
    assert_eq!(
        Texm::from_rgba8_with_mips(&image, PixelFormat::Rgb565, None, 0)
            .unwrap_err()
            .code(),
        "texm.zero_mips"
    );
}
