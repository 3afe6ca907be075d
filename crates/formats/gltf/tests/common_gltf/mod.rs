//! Shared test helpers that need this crate (the glTF export or import); the
//! format-neutral ones, in `common/`, are shared with the OBJ and USD tests.

#![allow(dead_code)]

pub mod draco;
pub mod gltf_transform;
