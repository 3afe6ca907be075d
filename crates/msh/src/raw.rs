//! On-disk records of the MSH resources, field by field as FORMAT.md section 2 gives them.
//!
//! All types have alignment 1 and little-endian fields, so tables are viewed in
//! place, and an owned table is a `Vec` of the same records (written back with
//! `as_bytes`, which keeps every bit, NaN payloads included).

use zerocopy::little_endian::{F32, I16, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// "None" in every u16 index field (parent, map start, slot, link).
pub const NONE: u16 = 0xFFFF;
/// Number of LODs per node.
pub const LODS: usize = 3;
/// Number of groups per LOD.
pub const GROUPS: usize = 5;
/// Slot references per node (`LODS * GROUPS`).
pub const SLOTS_PER_NODE: usize = LODS * GROUPS;

macro_rules! record {
    ($(#[$m:meta])* $name:ident, $size:expr) => {
        const _: () = assert!(core::mem::size_of::<$name>() == $size);
        impl $name {
            /// Size of the record in bytes.
            pub const SIZE: usize = $size;
        }
    };
}

/// Res1 record: one node of the rigid hierarchy (38 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Node38 {
    /// Flags; bits `0x40` and (high byte) `0x8` are tested by the game; meaning unknown.
    pub hdr0: U16,
    /// Parent node index, [`NONE`] for a root; always smaller than the node's own index.
    pub parent: U16,
    /// First word of this node's block in Res19, [`NONE`] when not animated.
    pub anim_map_start: U16,
    /// Index in Res8 of this node's last key, its static/fallback pose.
    pub fallback_key: U16,
    /// `slot[lod * 5 + group]`: index into the Res2 slot table, [`NONE`] for no geometry.
    pub slots: [U16; SLOTS_PER_NODE],
}
record!(Node38, 38);

impl Node38 {
    /// Parent index, `None` for a root.
    pub fn parent(&self) -> Option<u16> {
        some(self.parent.get())
    }
    /// Map start, `None` when the node is not animated.
    pub fn map_start(&self) -> Option<u16> {
        some(self.anim_map_start.get())
    }
    /// Slot drawn for `(lod, group)`, `None` for no geometry or out-of-range arguments.
    pub fn slot(&self, lod: usize, group: usize) -> Option<u16> {
        if lod >= LODS || group >= GROUPS {
            return None;
        }
        some(self.slots[lod * GROUPS + group].get())
    }
}

/// The 140-byte model header at the start of Res2: 35 floats of global bounds.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct ModelHeader {
    /// Eight corner points of a global hull.
    pub hull: [[F32; 3]; 8],
    /// Global bounding sphere centre.
    pub sphere_center: [F32; 3],
    /// Global bounding sphere radius.
    pub sphere_radius: F32,
    /// Capsule bound: first end point.
    pub capsule_a: [F32; 3],
    /// Capsule bound: second end point.
    pub capsule_b: [F32; 3],
    /// Capsule bound: radius.
    pub capsule_radius: F32,
}
record!(ModelHeader, 0x8C);

/// Res2 slot record: the geometry of one node at one LOD/group (68 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Slot68 {
    /// First triangle descriptor (Res7) of the slot.
    pub tri_start: U16,
    /// Number of triangle descriptors.
    pub tri_count: U16,
    /// First batch (Res13) of the slot.
    pub batch_start: U16,
    /// Number of batches.
    pub batch_count: U16,
    /// Node-local bounding box minimum.
    pub aabb_min: [F32; 3],
    /// Node-local bounding box maximum.
    pub aabb_max: [F32; 3],
    /// Node-local bounding sphere centre.
    pub sphere_center: [F32; 3],
    /// Node-local bounding sphere radius.
    pub sphere_radius: F32,
    /// Unknown; kept byte for byte.
    pub opaque: [U32; 5],
}
record!(Slot68, 68);

/// Res13 record: one draw call (20 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Batch20 {
    /// Flags; meaning unknown.
    pub batch_flags: U16,
    /// Material index.
    pub material_index: U16,
    /// Unknown; kept byte for byte.
    pub opaque4: U16,
    /// Unknown (possibly a node index); kept byte for byte.
    pub opaque6: U16,
    /// Number of indices (a multiple of 3).
    pub index_count: U16,
    /// First index, in elements of Res6.
    pub index_start: U32,
    /// Unknown; kept byte for byte.
    pub opaque14: U16,
    /// Added to every index to find the vertex.
    pub base_vertex: U32,
}
record!(Batch20, 20);

/// Res7 record: one triangle descriptor for collision and picking (16 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct TriDesc16 {
    /// Flags; meaning unknown.
    pub tri_flags: U16,
    /// Neighbour triangle ids, [`NONE`] for none.
    pub links: [U16; 3],
    /// Face normal, component / 32767.
    pub normal: [I16; 3],
    /// Three 2-bit selectors (`(sel >> 0, 2, 4) & 3`, 3 meaning none); meaning unknown.
    pub sel_packed: U16,
}
record!(TriDesc16, 16);

/// Res8 record: one animation key (24 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AnimKey24 {
    /// Translation.
    pub pos: [F32; 3],
    /// Key time in frames (whole numbers in every retail file).
    pub time: F32,
    /// Rotation `qx, qy, qz, qw`, each component / 32767.
    pub quat: [I16; 4],
}
record!(AnimKey24, 24);

impl AnimKey24 {
    /// A key from decoded parts (`quat` as stored: `[qx, qy, qz, qw]`).
    pub fn new(pos: [f32; 3], time: f32, quat: [i16; 4]) -> Self {
        AnimKey24 {
            pos: pos.map(F32::new),
            time: F32::new(time),
            quat: quat.map(I16::new),
        }
    }
    /// Translation as floats.
    pub fn position(&self) -> [f32; 3] {
        self.pos.map(F32::get)
    }
    /// Key time.
    pub fn time(&self) -> f32 {
        self.time.get()
    }
    /// Stored quaternion components `[qx, qy, qz, qw]`.
    pub fn quat_raw(&self) -> [i16; 4] {
        self.quat.map(I16::get)
    }
    /// Quaternion as the engine holds it, `[w, x, y, z]`, each `s * (1.0f32 / 32767.0f32)`.
    pub fn quat_wxyz(&self) -> [f32; 4] {
        let [x, y, z, w] = self.quat_raw();
        [w, x, y, z].map(|s| s as f32 * (1.0f32 / 32767.0f32))
    }
}

/// Res4 record: packed normal, `i8 x, y, z, w` (w unknown, kept).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct PackedNormal(pub [i8; 4]);
record!(PackedNormal, 4);

impl PackedNormal {
    /// `clamp(c / 127, -1, 1)` for x, y, z.
    pub fn decode(&self) -> [f32; 3] {
        // Written out, not `array::map`: this runs per vertex, and the map was
        // not inlined (a call and a guard per element).
        let [x, y, z, _] = self.0;
        let c = |c: i8| NORMAL_COMPONENT[c as u8 as usize];
        [c(x), c(y), c(z)]
    }
    /// `clamp(round(v * 127), -128, 127)` for x, y, z, with the given 4th byte.
    pub fn encode(v: [f32; 3], w: i8) -> Self {
        let e = |c: f32| (c * 127.0).round().clamp(-128.0, 127.0) as i8;
        PackedNormal([e(v[0]), e(v[1]), e(v[2]), w])
    }
}

/// `clamp(c / 127, -1, 1)` for every `c: i8`, indexed by `c as u8`: the same
/// values as the division (computed by it at compile time), as a table lookup.
const NORMAL_COMPONENT: [f32; 256] = {
    let mut table = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8 as i8;
        let v = c as f32 / 127.0;
        table[i] = if v < -1.0 { -1.0 } else { v };
        i += 1;
    }
    table
};

/// Res5 record: packed UV0, `i16 u, v`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct PackedUv(pub [I16; 2]);
record!(PackedUv, 4);

impl PackedUv {
    /// `c / 1024` (exact in f32).
    pub fn decode(&self) -> [f32; 2] {
        let [u, v] = self.0;
        [u.get() as f32 / 1024.0, v.get() as f32 / 1024.0]
    }
    /// `clamp(round(uv * 1024), -32768, 32767)`.
    pub fn encode(uv: [f32; 2]) -> Self {
        PackedUv(uv.map(|c| I16::new((c * 1024.0).round().clamp(-32768.0, 32767.0) as i16)))
    }
}

/// A position, `f32 x, y, z`.
pub type Position = [F32; 3];

/// Res15 record: extra per-vertex stream, 8 raw bytes (likely UV1).
pub type Raw8 = [u8; 8];
/// Res18 record: per-vertex stream, 4 raw bytes (likely colour).
pub type Raw4 = [u8; 4];

fn some(v: u16) -> Option<u16> {
    (v != NONE).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_decoding_is_the_clamped_division_for_every_byte() {
        for c in i8::MIN..=i8::MAX {
            let n = PackedNormal([c, c, c, 0]);
            let expected = (c as f32 / 127.0).clamp(-1.0, 1.0);
            assert_eq!(n.decode().map(f32::to_bits), [expected.to_bits(); 3], "{c}");
        }
    }
}
