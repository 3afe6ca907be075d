//! Property tests: built values round-trip through bytes, and whatever
//! bytes parse write back to themselves.

use mshconv_material::mat0::{AnimationBlock, Key, Metadata, Phase, MAX_VERSION};
use mshconv_material::texm::{encode_level, level_size, PageRect, PixelFormat, FORMATS};
use mshconv_material::wear::{LineEnding, WearRow};
use mshconv_material::{samples, Mat0, Texm, Wear};
use proptest::prelude::*;

fn ending() -> impl Strategy<Value = LineEnding> {
    prop_oneof![Just(LineEnding::CrLf), Just(LineEnding::Lf)]
}

fn row() -> impl Strategy<Value = WearRow> {
    (
        "[0-9]{1,4}",
        "[A-Za-z0-9_.АБВЁяё№-]{1,12}",
        "[ \t]{0,2}",
        "[ \t]{1,3}",
        "[ \t]{0,2}",
        ending(),
    )
        .prop_map(|(id, name, before, between, after, ending)| WearRow {
            legacy_id: id,
            name,
            before,
            between,
            after,
            ending,
        })
}

proptest! {
    #[test]
    fn built_wear_round_trips(
        materials in prop::collection::vec(row(), 1..6),
        lightmaps in prop::option::of(prop::collection::vec(row(), 0..4)),
        trailer in prop::sample::select(vec!["", "\r\n", "\n", " \r\n\r\n"]),
    ) {
        let mut wear = Wear::new(materials);
        wear.count.digits = wear.materials.len().to_string();
        wear.lightmaps = lightmaps.map(|rows| mshconv_material::wear::Lightmaps {
            count: mshconv_material::wear::CountLine { digits: rows.len().to_string(), ..Default::default() },
            rows,
            ..Default::default()
        });
        wear.trailer = trailer.into();
        let bytes = wear.write().unwrap();
        let back = Wear::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &wear);
        prop_assert_eq!(back.write().unwrap(), bytes);
    }

    #[test]
    fn parsed_wear_writes_back(bytes in prop::collection::vec(
        prop::sample::select(b"0123 \t\r\nLIGHTMAPSab\xc0".to_vec()), 0..40)) {
        if let Ok(w) = Wear::parse(&bytes) {
            prop_assert_eq!(w.write().unwrap(), bytes);
        }
    }

    #[test]
    fn built_mat0_round_trips(
        version in 0..=MAX_VERSION,
        meta in any::<(u8, u8, u32, u32)>(),
        phases in prop::collection::vec((any::<[u8; 18]>(), any::<[u8; 16]>()), 0..5),
        blocks in prop::collection::vec((any::<u32>(), prop::collection::vec(any::<(u16, u16, u16)>(), 0..4)), 0..19),
    ) {
        let m = Mat0 {
            version,
            metadata: Metadata {
                a: (version >= 2).then_some(meta.0),
                b: (version >= 2).then_some(meta.1),
                c: (version >= 3).then_some(meta.2),
                d: (version >= 4).then_some(meta.3),
            },
            phases: phases.into_iter().map(|(parameters, texture_name)| Phase { parameters, texture_name }).collect(),
            animation_blocks: blocks.into_iter().map(|(header, keys)| AnimationBlock {
                header,
                keys: keys.into_iter().map(|(k0, k1, k2)| Key { k0, k1, k2 }).collect(),
            }).collect(),
        };
        let bytes = m.write().unwrap();
        prop_assert_eq!(Mat0::parse(&bytes, version).unwrap(), m);
    }

    #[test]
    fn parsed_mat0_writes_back(version in 0..8u32, bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        if let Ok(m) = Mat0::parse(&bytes, version) {
            prop_assert_eq!(m.write().unwrap(), bytes);
        }
    }

    #[test]
    fn built_texm_round_trips(
        format in 0..FORMATS.len(),
        width in 1u32..9,
        height in 1u32..9,
        mips in 1usize..6,
        seed in any::<u64>(),
        flags in any::<(u32, u32, u32)>(),
        page in prop::option::of(prop::collection::vec(any::<(i16, i16, i16, i16)>(), 0..4)),
    ) {
        let (_, format, bpp) = FORMATS[format];
        let mut state = seed;
        let mut next = || { state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); (state >> 33) as u8 };
        let levels = (0..mips).map(|l| {
            let (w, h) = level_size(width, height, l as u32);
            (0..w as usize * h as usize * bpp).map(|_| next()).collect()
        }).collect();
        let t = Texm {
            width, height, flags4: flags.0, flags5: flags.1, unknown6: flags.2, format,
            palette: (format == PixelFormat::Indexed8).then(samples::palette),
            levels,
            page: page.map(|p| p.into_iter().map(|(x, width, y, height)| PageRect { x, width, y, height }).collect()),
        };
        let bytes = t.write().unwrap();
        let back = Texm::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &t);
        let image = back.decode_rgba8().unwrap();
        let again = encode_level(format, back.palette.as_deref(), width, height, &image.pixels, Some(&back.levels[0])).unwrap();
        prop_assert_eq!(&again, &t.levels[0]);
    }
}
