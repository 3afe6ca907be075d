//! MAT0: one material (an entry of `Material.lib`; the entry's `attr2` is
//! the payload version, `attr1` runtime flags this crate does not read).
//!
//! ```text
//! u16 phase_count
//! u16 animation_block_count            < MAX_ANIMATION_BLOCKS
//! version-gated prefix (PREFIX_FIELDS)
//! phase_count x Phase (34 bytes)
//! animation_block_count x { u32 header; u16 key_count; key_count x { u16 k0, k1, k2 } }
//! ```
//!
//! The payload ends exactly after the last block. Everything whose meaning
//! is not known is kept raw: the 18 phase parameters, the metadata values,
//! the bytes of a texture name after its NUL, the keys.

use crate::error::{Error, ErrorKind, Result};

/// `MAT0` as an NRes `type_id`.
pub const MAT0_TYPE_ID: u32 = 0x3054_414D;

/// **Uncertain.** The newest payload version (`attr2`) this reader accepts.
/// Every MAT0 of the retail data the public notes checked has version 6,
/// laid out like version 4; a later version might add fields, so it is
/// refused (`mat0.bad_version`) rather than misread.
pub const MAX_VERSION: u32 = 6;

/// `animation_block_count` must be below this.
pub const MAX_ANIMATION_BLOCKS: u16 = 20;

/// **Uncertain meaning.** The bytes of a phase's parameters (colour,
/// lighting and transparency coefficients): kept raw.
pub const PHASE_PARAMETER_BYTES: usize = 18;

/// The bytes of a phase's texture name (NUL-terminated; empty = untextured).
pub const TEXTURE_NAME_BYTES: usize = 16;

/// The size of one phase record.
pub const PHASE_BYTES: usize = PHASE_PARAMETER_BYTES + TEXTURE_NAME_BYTES;

/// One field of the version-gated prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixField {
    /// Its name.
    pub name: &'static str,
    /// The first version that stores it.
    pub since_version: u32,
    /// Its size in bytes (1 or 4).
    pub size: usize,
    /// What the runtime uses when the version does not store it.
    pub default: u32,
}

/// The prefix after the two counts, in file order: which version stores
/// which field, and the runtime's default when it is absent. The meaning of
/// the values is **uncertain** (kept raw). `metadata_c`'s default is the bits
/// of `1.0f32`.
#[rustfmt::skip]
pub const PREFIX_FIELDS: [PrefixField; 4] = [
    PrefixField { name: "metadata_a", since_version: 2, size: 1, default: 255 },
    PrefixField { name: "metadata_b", since_version: 2, size: 1, default: 255 },
    PrefixField { name: "metadata_c", since_version: 3, size: 4, default: 0x3F80_0000 },
    PrefixField { name: "metadata_d", since_version: 4, size: 4, default: 0 },
];

/// The animation block header's low bits: the timeline mode.
pub const TIMELINE_MODE_MASK: u32 = 0b111;

/// **Uncertain.** The shift that turns the header into the interpolation
/// mask over the 18 parameters (bit k of the mask = parameter k).
pub const INTERPOLATION_MASK_SHIFT: u32 = 3;

/// A timeline mode (the low 3 bits of a block header).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimelineMode {
    /// Loop over the phases.
    Loop,
    /// Forth and back.
    PingPong,
    /// Play once and hold the last phase.
    OneShotClamp,
    /// Loop from a random offset.
    RandomOffset,
}

/// **Uncertain.** Mode value -> mode. The public notes name these four
/// families for modes 0..3 without settling the boundaries; values 4..7 are
/// unknown (kept raw, [`AnimationBlock::mode`] gives `None`).
pub const TIMELINE_MODES: [(u32, TimelineMode); 4] = [
    (0, TimelineMode::Loop),
    (1, TimelineMode::PingPong),
    (2, TimelineMode::OneShotClamp),
    (3, TimelineMode::RandomOffset),
];

/// The metadata of the version-gated prefix: `Some` exactly for the fields
/// the version stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Metadata {
    /// `metadata_a` (versions 2 and later).
    pub a: Option<u8>,
    /// `metadata_b` (versions 2 and later).
    pub b: Option<u8>,
    /// `metadata_c` (versions 3 and later), raw 32 bits.
    pub c: Option<u32>,
    /// `metadata_d` (versions 4 and later), raw 32 bits.
    pub d: Option<u32>,
}

impl Metadata {
    /// The values the runtime uses: stored ones, else the defaults of
    /// [`PREFIX_FIELDS`].
    pub fn effective(&self) -> [u32; 4] {
        [
            self.a.map_or(PREFIX_FIELDS[0].default, u32::from),
            self.b.map_or(PREFIX_FIELDS[1].default, u32::from),
            self.c.unwrap_or(PREFIX_FIELDS[2].default),
            self.d.unwrap_or(PREFIX_FIELDS[3].default),
        ]
    }

    fn present(&self) -> [bool; 4] {
        [
            self.a.is_some(),
            self.b.is_some(),
            self.c.is_some(),
            self.d.is_some(),
        ]
    }
}

/// One phase: raw parameters and a texture name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Phase {
    /// The 18 parameter bytes, raw.
    pub parameters: [u8; PHASE_PARAMETER_BYTES],
    /// The 16 name bytes, raw (bytes after the NUL kept).
    pub texture_name: [u8; TEXTURE_NAME_BYTES],
}

impl Phase {
    /// A phase with zero parameters naming `texture` (at most 15 bytes are kept).
    pub fn new(texture: &[u8]) -> Self {
        let mut texture_name = [0; TEXTURE_NAME_BYTES];
        let n = texture.len().min(TEXTURE_NAME_BYTES - 1);
        texture_name[..n].copy_from_slice(&texture[..n]);
        Phase {
            parameters: [0; PHASE_PARAMETER_BYTES],
            texture_name,
        }
    }

    /// The texture name: the bytes before the first NUL (all 16 without one).
    /// Empty means deliberately untextured.
    pub fn texture(&self) -> &[u8] {
        let n = self
            .texture_name
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(TEXTURE_NAME_BYTES);
        &self.texture_name[..n]
    }
}

/// One key of an animation block (raw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Key {
    /// First value.
    pub k0: u16,
    /// Second value.
    pub k1: u16,
    /// Third value.
    pub k2: u16,
}

/// One animation block.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AnimationBlock {
    /// The raw header: timeline mode and interpolation mask.
    pub header: u32,
    /// The keys.
    pub keys: Vec<Key>,
}

impl AnimationBlock {
    /// The raw mode value (0..=7).
    pub fn mode_bits(&self) -> u32 {
        self.header & TIMELINE_MODE_MASK
    }

    /// The mode, when [`TIMELINE_MODES`] names the value.
    pub fn mode(&self) -> Option<TimelineMode> {
        let bits = self.mode_bits();
        TIMELINE_MODES
            .iter()
            .find(|(v, _)| *v == bits)
            .map(|(_, m)| *m)
    }

    /// The interpolation mask over the parameters.
    pub fn interpolation_mask(&self) -> u32 {
        self.header >> INTERPOLATION_MASK_SHIFT
    }
}

/// A parsed MAT0 payload.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Mat0 {
    /// The payload version (the entry's `attr2`; not stored in the payload).
    pub version: u32,
    /// The version-gated metadata.
    pub metadata: Metadata,
    /// The phases; phase 0 is the material's look in a still picture.
    pub phases: Vec<Phase>,
    /// The animation blocks.
    pub animation_blocks: Vec<AnimationBlock>,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8]> {
        if self.bytes.len() - self.at < n {
            return Err(Error::at(
                ErrorKind::Mat0Truncated,
                self.at,
                format!(
                    "{what} needs {n} bytes, {} remain",
                    self.bytes.len() - self.at
                ),
            ));
        }
        let s = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u16(&mut self, what: &str) -> Result<u16> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

impl Mat0 {
    /// The first non-empty texture name among the phases (what a still
    /// picture shows), if any.
    pub fn texture(&self) -> Option<&[u8]> {
        self.phases
            .iter()
            .map(Phase::texture)
            .find(|t| !t.is_empty())
    }

    /// Parses a MAT0 payload of the given version (the entry's `attr2`).
    pub fn parse(bytes: &[u8], version: u32) -> Result<Mat0> {
        if version > MAX_VERSION {
            return Err(Error::at(
                ErrorKind::Mat0BadVersion,
                0,
                format!("version {version} is past the newest known ({MAX_VERSION})"),
            ));
        }
        let mut r = Reader { bytes, at: 0 };
        let phase_count = usize::from(r.u16("phase_count")?);
        let block_count = r.u16("animation_block_count")?;
        if block_count >= MAX_ANIMATION_BLOCKS {
            return Err(Error::at(
                ErrorKind::Mat0TooManyBlocks,
                2,
                format!(
                    "{block_count} animation blocks (the limit is below {MAX_ANIMATION_BLOCKS})"
                ),
            ));
        }
        let mut values = [None; 4];
        for (slot, field) in values.iter_mut().zip(PREFIX_FIELDS) {
            if version >= field.since_version {
                let v = if field.size == 1 {
                    u32::from(r.take(1, field.name)?[0])
                } else {
                    r.u32(field.name)?
                };
                *slot = Some(v);
            }
        }
        let metadata = Metadata {
            a: values[0].map(|v| v as u8),
            b: values[1].map(|v| v as u8),
            c: values[2],
            d: values[3],
        };
        // Check the whole phase table fits before allocating for it.
        let table = r.take(phase_count * PHASE_BYTES, "the phase table")?;
        let phases = table
            .chunks_exact(PHASE_BYTES)
            .map(|c| {
                let mut p = Phase {
                    parameters: [0; PHASE_PARAMETER_BYTES],
                    texture_name: [0; TEXTURE_NAME_BYTES],
                };
                p.parameters.copy_from_slice(&c[..PHASE_PARAMETER_BYTES]);
                p.texture_name.copy_from_slice(&c[PHASE_PARAMETER_BYTES..]);
                p
            })
            .collect();
        let mut animation_blocks = Vec::with_capacity(usize::from(block_count));
        for i in 0..block_count {
            let header = r.u32(&format!("animation block {i}'s header"))?;
            let key_count = usize::from(r.u16(&format!("animation block {i}'s key_count"))?);
            let raw = r.take(key_count * 6, &format!("animation block {i}'s keys"))?;
            let keys = raw
                .chunks_exact(6)
                .map(|k| Key {
                    k0: u16::from_le_bytes([k[0], k[1]]),
                    k1: u16::from_le_bytes([k[2], k[3]]),
                    k2: u16::from_le_bytes([k[4], k[5]]),
                })
                .collect();
            animation_blocks.push(AnimationBlock { header, keys });
        }
        if r.at != bytes.len() {
            return Err(Error::at(
                ErrorKind::Mat0TrailingBytes,
                r.at,
                format!(
                    "{} bytes after the last animation block",
                    bytes.len() - r.at
                ),
            ));
        }
        Ok(Mat0 {
            version,
            metadata,
            phases,
            animation_blocks,
        })
    }

    /// Writes the payload (the version goes to the entry's `attr2`, not here).
    pub fn write(&self) -> Result<Vec<u8>> {
        let bad = |m: String| Error::new(ErrorKind::Mat0BadLayout, m);
        if self.version > MAX_VERSION {
            return Err(Error::new(
                ErrorKind::Mat0BadVersion,
                format!(
                    "version {} is past the newest known ({MAX_VERSION})",
                    self.version
                ),
            ));
        }
        let phase_count = u16::try_from(self.phases.len())
            .map_err(|_| bad(format!("{} phases (at most 65535)", self.phases.len())))?;
        let block_count = u16::try_from(self.animation_blocks.len())
            .ok()
            .filter(|&n| n < MAX_ANIMATION_BLOCKS)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Mat0TooManyBlocks,
                    format!(
                        "{} animation blocks (the limit is below {MAX_ANIMATION_BLOCKS})",
                        self.animation_blocks.len()
                    ),
                )
            })?;
        for (present, field) in self.metadata.present().into_iter().zip(PREFIX_FIELDS) {
            if present != (self.version >= field.since_version) {
                return Err(bad(format!(
                    "{} is {} but version {} {} it",
                    field.name,
                    if present { "set" } else { "unset" },
                    self.version,
                    if present { "does not store" } else { "stores" }
                )));
            }
        }
        let mut out = Vec::with_capacity(14 + self.phases.len() * PHASE_BYTES);
        out.extend_from_slice(&phase_count.to_le_bytes());
        out.extend_from_slice(&block_count.to_le_bytes());
        let m = &self.metadata;
        out.extend(m.a);
        out.extend(m.b);
        if let Some(c) = m.c {
            out.extend_from_slice(&c.to_le_bytes());
        }
        if let Some(d) = m.d {
            out.extend_from_slice(&d.to_le_bytes());
        }
        for p in &self.phases {
            out.extend_from_slice(&p.parameters);
            out.extend_from_slice(&p.texture_name);
        }
        for (i, b) in self.animation_blocks.iter().enumerate() {
            let n = u16::try_from(b.keys.len()).map_err(|_| {
                bad(format!(
                    "animation block {i} has {} keys (at most 65535)",
                    b.keys.len()
                ))
            })?;
            out.extend_from_slice(&b.header.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
            for k in &b.keys {
                out.extend_from_slice(&k.k0.to_le_bytes());
                out.extend_from_slice(&k.k1.to_le_bytes());
                out.extend_from_slice(&k.k2.to_le_bytes());
            }
        }
        Ok(out)
    }
}
