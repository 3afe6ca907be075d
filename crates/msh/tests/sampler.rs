//! Golden tests for the engine sampler (FORMAT.md section 3): frame index,
//! fallback rules, exact-key branches, slerp weights, blending, matrix.

use msh::anim::{blend, frame_index, sample, slerp, to_matrix, Pose, SampleError, Slerp, Tracks};
use msh::raw::{AnimKey24, Node38, NONE};
use zerocopy::little_endian::U16;
use zerocopy::FromZeros;

const S: f32 = 1.0 / 32767.0;

fn key(t: f32, pos: [f32; 3], q: [i16; 4]) -> AnimKey24 {
    AnimKey24::new(pos, t, q)
}

fn node(map_start: u16, fallback: u16) -> Node38 {
    let mut n = Node38::new_zeroed();
    n.parent = NONE.into();
    n.anim_map_start = map_start.into();
    n.fallback_key = fallback.into();
    n
}

/// Node 0: keys 0..=3 at times 0, 2, 5, 9 (fallback 3), canonical map over 10 frames.
fn fixture() -> (Vec<AnimKey24>, Vec<U16>) {
    let keys = vec![
        key(0.0, [0.0, 0.0, 0.0], [0, 0, 0, 32767]),
        key(2.0, [2.0, 4.0, -2.0], [0, 0, 12539, 30273]),
        key(5.0, [5.0, 10.0, -5.0], [0, 0, 23170, 23170]),
        key(9.0, [9.0, 18.0, -9.0], [0, 0, 32767, 0]),
    ];
    let map = [0u16, 0, 1, 1, 1, 2, 2, 2, 2, 3].map(U16::new).to_vec();
    (keys, map)
}

fn sample_at(t: f32) -> Pose {
    let (keys, map) = fixture();
    let tracks = Tracks {
        keys: &keys,
        map: &map,
        frame_count: 10,
    };
    sample(&tracks, 0, &node(0, 3), t).unwrap()
}

fn bits(q: [f32; 4]) -> [u32; 4] {
    q.map(f32::to_bits)
}

#[test]
fn frame_index_is_fistp_of_single_precision_t_minus_half() {
    assert_eq!(frame_index(3.0), 2, "3.0 - 0.5 = 2.5 rounds half to even");
    assert_eq!(frame_index(4.0), 4, "4.0 - 0.5 = 3.5 rounds half to even");
    assert_eq!(frame_index(2.9), 2);
    assert_eq!(frame_index(0.0), 0);
    assert_eq!(frame_index(-0.5), u32::MAX, "-1 wraps as unsigned");
    assert_eq!(
        frame_index(-3.0),
        (-4i32) as u32,
        "-3.5 rounds half to even: -4"
    );
    assert_eq!(
        frame_index(1.0e30),
        0,
        "beyond i64: integer indefinite, low word 0"
    );
}

#[test]
fn exact_key_hits_return_the_stored_key_bit_for_bit() {
    let (keys, _) = fixture();
    // t = 2.0: frame round(1.5) = 2, map[2] = 1, t == time(k1).
    let p = sample_at(2.0);
    assert!(!p.fallback);
    assert_eq!(p.key, 1);
    assert_eq!(bits(p.rotation), bits(keys[1].quat_wxyz()));
    assert_eq!(p.translation, [2.0, 4.0, -2.0]);
    // t = 5.0: frame round(4.5) = 4, map[4] = 1, k0 = key 1, t == time(k1 = key 2).
    let p = sample_at(5.0);
    assert_eq!(p.key, 2);
    assert_eq!(bits(p.rotation), bits(keys[2].quat_wxyz()));
    // t = 0: frame 0, key 0 exactly.
    assert_eq!(sample_at(0.0).key, 0);
}

#[test]
fn interpolation_between_keys_uses_lerp_and_engine_slerp() {
    let (keys, _) = fixture();
    for t in [3.0f32, 4.0, 2.5, 4.75] {
        let p = sample_at(t);
        let a = (t - 2.0) / (5.0 - 2.0);
        let expected_pos: [f32; 3] = std::array::from_fn(|i| {
            let (p0, p1) = (keys[1].position()[i], keys[2].position()[i]);
            p0 + (p1 - p0) * a
        });
        assert_eq!(p.translation, expected_pos, "t = {t}");
        assert_eq!(
            bits(p.rotation),
            bits(slerp(keys[1].quat_wxyz(), keys[2].quat_wxyz(), a)),
            "t = {t}"
        );
        assert!(!p.fallback);
    }
}

#[test]
fn fallback_rules() {
    let (keys, mut map) = fixture();
    let fb = keys[3].quat_wxyz();
    // Negative time: frame wraps to a huge unsigned value, past frame_count.
    for t in [-0.5f32, -0.25, -100.0] {
        let p = sample_at(t);
        assert!(p.fallback, "t = {t}");
        assert_eq!(bits(p.rotation), bits(fb));
    }
    // Frames at and past frame_count.
    assert!(sample_at(10.0).fallback, "frame 10 == frame_count");
    assert!(sample_at(11.0).fallback);
    // Frame 9's map value is the fallback itself (>= fallback).
    let p = sample_at(9.4);
    assert!(p.fallback);
    assert_eq!(p.key, 3);
    // A non-canonical map value above the fallback also means the fallback.
    map[1] = U16::new(7);
    let tracks = Tracks {
        keys: &keys,
        map: &map,
        frame_count: 10,
    };
    let p = sample(&tracks, 0, &node(0, 3), 1.2).unwrap();
    assert!(p.fallback);
    assert_eq!(p.translation, keys[3].position());
    // A node without a map always uses its fallback key.
    let p = sample(&tracks, 0, &node(NONE, 2), 3.0).unwrap();
    assert!(p.fallback);
    assert_eq!(p.key, 2);
}

#[test]
fn out_of_range_reads_are_errors_not_panics() {
    let (keys, map) = fixture();
    let tracks = Tracks {
        keys: &keys,
        map: &map,
        frame_count: 10,
    };
    assert!(matches!(
        sample(&tracks, 4, &node(NONE, 99), 0.0),
        Err(SampleError::FallbackOutOfRange {
            node: 4,
            key: 99,
            keys: 4
        })
    ));
    assert!(matches!(
        sample(&tracks, 0, &node(5, 3), 7.0),
        Err(SampleError::MapOutOfRange { word: 11, .. })
    ));
    // A map value pointing at the last key: its successor is missing.
    let short = &keys[..2];
    let tracks = Tracks {
        keys: short,
        map: &map,
        frame_count: 10,
    };
    assert!(matches!(
        sample(&tracks, 0, &node(0, 3), 3.0),
        Err(SampleError::KeyOutOfRange { key: 2, .. })
    ));
}

#[test]
fn slerp_near_identity_branch_uses_linear_weights() {
    let q0 = [1.0f32, 0.0, 0.0, 0.0];
    let q1 = [0.999_999_5f32, 0.001, 0.0, 0.0];
    let a = 0.25f32;
    let out = slerp(q0, q1, a);
    let expected: [f32; 4] = std::array::from_fn(|i| (1.0 - a) * q0[i] + a * q1[i]);
    assert_eq!(bits(out), bits(expected));
}

/// FORMAT.md's closed form, written out in full for each call.
fn engine_slerp(q0: [f32; 4], q1: [f32; 4], a: f32) -> [f32; 4] {
    let mut dot = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
    let sign = if dot < 0.0 {
        dot = -dot;
        -1.0f32
    } else {
        1.0
    };
    let (w0, w1) = if 1.0 - dot <= 1e-5 {
        (1.0 - a, a)
    } else {
        let theta = dot.acos();
        let w1 = (a * theta).sin() * (1.0 / theta.sin());
        ((a * theta).cos() - w1 * dot, w1)
    };
    std::array::from_fn(|i| w0 * q0[i] + w1 * sign * q1[i])
}

proptest::proptest! {
    /// A pair's terms computed once give the same bits at every weight as the
    /// closed form computed per call (the exporter checks every frame of a
    /// segment with one `Slerp`).
    #[test]
    fn slerp_of_a_pair_is_the_closed_form_at_every_weight(
        q0 in proptest::array::uniform4(-32767i16..=32767),
        q1 in proptest::array::uniform4(-32767i16..=32767),
        near in proptest::bool::ANY,
        weights in proptest::collection::vec(0.0f32..=1.0, 1..16),
    ) {
        let q0 = q0.map(|c| f32::from(c) / 32767.0);
        // Half the pairs a few steps apart, where the linear branch and a tiny
        // angle are taken.
        let q1 = if near {
            std::array::from_fn(|i| q0[i] + f32::from(q1[i] % 4) / 32767.0)
        } else {
            q1.map(|c| f32::from(c) / 32767.0)
        };
        let pair = Slerp::new(q0, q1);
        for a in weights {
            proptest::prop_assert_eq!(bits(pair.at(a)), bits(engine_slerp(q0, q1, a)));
            proptest::prop_assert_eq!(bits(slerp(q0, q1, a)), bits(engine_slerp(q0, q1, a)));
        }
    }
}

#[test]
fn slerp_takes_the_short_way_and_does_not_normalise() {
    // Antipodal keys: dot = -1 flips to 1 (linear branch), weights (1-a, -a): the result is q0.
    let q0 = [0.5f32, 0.5, 0.5, 0.5];
    let q1 = q0.map(|c| -c);
    assert_eq!(slerp(q0, q1, 0.3), q0);
    // 90 degrees about z, halfway: 45 degrees about z.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let out = slerp([1.0, 0.0, 0.0, 0.0], [h, 0.0, 0.0, h], 0.5);
    let c = (std::f32::consts::PI / 8.0).cos();
    let s = (std::f32::consts::PI / 8.0).sin();
    for (got, want) in out.iter().zip([c, 0.0, 0.0, s]) {
        assert!((got - want).abs() < 2e-7, "{out:?}");
    }
    // A non-unit input stays non-unit: no normalisation.
    let out = slerp([2.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], 0.5);
    assert_eq!(out, [2.0, 0.0, 0.0, 0.0]);
}

#[test]
fn blending_two_samples() {
    let pose = |q: [f32; 4], t: [f32; 3]| Pose {
        translation: t,
        rotation: q,
        fallback: false,
        key: 0,
    };
    let a = pose([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0]);
    let b = pose([-1.0, 0.0, 0.0, 0.0], [2.0, 4.0, 6.0]);
    // Antipodal qB is flipped before the slerp: the result stays at identity.
    let (p, q) = blend(Some(a), Some(b), 1.0, 2.0, 0.5).unwrap();
    assert_eq!(q, [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(p, [1.0, 2.0, 3.0]);
    // One side only.
    assert_eq!(
        blend(Some(a), Some(b), 1.0, 2.0, 0.0).unwrap().1,
        a.rotation,
        "weight 0: only A"
    );
    assert_eq!(
        blend(Some(a), Some(b), 1.0, 2.0, 1.0).unwrap().1,
        b.rotation,
        "weight 1: only B"
    );
    assert_eq!(
        blend(Some(a), Some(b), -1.0, 2.0, 0.5).unwrap().0,
        b.translation,
        "tA < 0: only B"
    );
    assert!(blend(Some(a), Some(b), -1.0, -1.0, 0.5).is_none());
}

#[test]
fn quaternion_to_matrix_matches_the_engine_formula() {
    let h = std::f32::consts::FRAC_1_SQRT_2;
    // 90 degrees about z stored as [w,x,y,z] = [h,0,0,h].
    let m = to_matrix([h, 0.0, 0.0, h], [1.0, 2.0, 3.0]);
    let expect = [
        0.0, 1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.0, 1.0,
    ];
    for (got, want) in m.iter().zip(expect) {
        assert!((got - want).abs() < 1e-6, "{m:?}");
    }
}

#[test]
fn stored_components_decode_with_the_single_precision_constant() {
    let k = key(0.0, [0.0; 3], [1, -2, 32767, -32767]);
    let q = k.quat_wxyz();
    assert_eq!(q[0].to_bits(), (-32767.0f32 * S).to_bits());
    assert_eq!(q[1].to_bits(), (1.0f32 * S).to_bits());
    assert_eq!(q[2].to_bits(), (-2.0f32 * S).to_bits());
    assert_eq!(q[3], 32767.0 * S);
}
