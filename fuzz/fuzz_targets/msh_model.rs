//! MSH model and validator: opening never panics in either mode; a file strict
//! mode accepts round-trips byte for byte through the owned model, and the
//! engine sampler never reads out of range on it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use msh::{Mode, Model, ModelKind};

fuzz_target!(|data: &[u8]| {
    let _ = msh::validate_bytes(data);
    if let Ok(opened) = msh::open(data, Mode::Tolerant) {
        for t in [-1.0f32, 0.0, 0.5, 3.0, 1e9] {
            let _ = msh::pose::local_poses(&opened.view, t);
        }
    }
    if let Ok(model) = Model::from_bytes(data) {
        let _ = model.to_bytes();
        let _ = msh::validate(&model.view());
    }
    if let Ok(opened) = msh::open(data, Mode::Strict) {
        let model = Model::from_bytes(data).expect("a strictly valid file reads as a model");
        assert_eq!(model.to_bytes().unwrap(), data, "strictly valid file does not round-trip");
        if opened.view.kind == Some(ModelKind::Standard) {
            for t in [-1.0f32, 0.0, 0.5, 2.0, 3.0, 7.25, 1e9, f32::NAN] {
                msh::pose::local_poses(&opened.view, t).expect("strictly valid file samples in range");
            }
        }
    }
});
