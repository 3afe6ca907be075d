//! # mshconv-material: the look of *Parkan: Iron Strategy*'s models
//!
//! A model's batches hold only a `material_index`. The game turns it into a
//! look through three resources outside the model, each read and written
//! here, losslessly (bytes -> value -> bytes is the identity) and strictly
//! (typed errors with stable codes and byte offsets):
//!
//! - [`wear`]: the WEAR text table beside a model (`material_index` -> material name);
//! - [`mat0`]: a MAT0 material of `Material.lib` (phases naming textures, animation blocks);
//! - [`texm`]: a Texm image of `Textures.lib` / `LightMap.lib` (every pixel
//!   format, the palette, the mip chain, the `Page` chunk), with RGBA8
//!   decoding and encoding.
//!
//! Nothing is allocated in proportion to a count the input claims before
//! that count is checked against the input's length. The formats, and
//! each uncertain point with the constant or table that isolates it, are in
//! `docs/MATERIALS.md`.
//!
//! ```
//! use mshconv_material::{Mat0, Texm, Wear};
//! use mshconv_material::texm::{PixelFormat, Rgba8Image};
//!
//! let wear = Wear::parse(b"1\r\n0 STEEL\r\n").unwrap();
//! assert_eq!(wear.material_name(0), Some("STEEL"));
//! assert_eq!(wear.write().unwrap(), b"1\r\n0 STEEL\r\n");
//!
//! let image = Rgba8Image { width: 1, height: 1, pixels: vec![255, 0, 0, 255] };
//! let texm = Texm::from_rgba8(&image, PixelFormat::Rgb565, None).unwrap();
//! let bytes = texm.write().unwrap();
//! assert_eq!(Texm::parse(&bytes).unwrap().decode_rgba8().unwrap(), image);
//! # let _ = Mat0::parse(&[0, 0, 0, 0], 0).unwrap();
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cp1251;
mod error;
pub mod mat0;
pub mod samples;
pub mod texm;
pub mod wear;

pub use error::{Error, ErrorKind, Result};
pub use mat0::Mat0;
pub use texm::Texm;
pub use wear::Wear;

/// `WEAR` as an NRes `type_id`.
pub const WEAR_TYPE_ID: u32 = 0x5241_4557;
