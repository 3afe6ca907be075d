//! Resource type numbers, their strides and the entry orders seen in retail files (FORMAT.md section 2).

/// Res1: node table.
pub const NODES: u32 = 1;
/// Res2: model header and slot table.
pub const SLOTS: u32 = 2;
/// Res3: positions.
pub const POSITIONS: u32 = 3;
/// Res4: packed normals.
pub const NORMALS: u32 = 4;
/// Res5: packed UV0.
pub const UV0: u32 = 5;
/// Res6: index buffer.
pub const INDICES: u32 = 6;
/// Res7: triangle descriptors.
pub const TRI_DESCS: u32 = 7;
/// Res8: animation keys.
pub const ANIM_KEYS: u32 = 8;
/// Res9: service stream, unknown, carried through.
pub const SERVICE: u32 = 9;
/// Res10: node names.
pub const NAMES: u32 = 10;
/// Res11: terrain material table (terrain models only).
pub const TERRAIN_MATERIALS: u32 = 11;
/// Res13: batch table.
pub const BATCHES: u32 = 13;
/// Res14: terrain table (terrain models only).
pub const TERRAIN_EXTRA: u32 = 14;
/// Res15: extra per-vertex stream, 8 bytes (likely UV1).
pub const STREAM15: u32 = 15;
/// Res16: tangent/bitangent, two interleaved 4-byte streams.
pub const STREAM16: u32 = 16;
/// Res17: auxiliary data, unknown, carried through.
pub const AUX17: u32 = 17;
/// Res18: per-vertex 4-byte stream (likely colour).
pub const STREAM18: u32 = 18;
/// Res19: animation frame map.
pub const ANIM_MAP: u32 = 19;
/// Res20: auxiliary table, unknown, carried through.
pub const AUX20: u32 = 20;
/// Res21: terrain triangles (terrain models only).
pub const TERRAIN_TRIS: u32 = 21;

/// Stride of the standard node record.
pub const NODE_STRIDE: u32 = 38;
/// Stride of the legacy node record (one retail file, `MTCHECK.MSH`).
pub const LEGACY_NODE_STRIDE: u32 = 24;
/// Size of the Res2 model header.
pub const MODEL_HEADER_SIZE: usize = 0x8C;

/// Entry order of 414 of the 435 retail models.
pub const ORDER_COMMON: [u32; 14] = [1, 2, 3, 4, 5, 15, 13, 6, 7, 8, 19, 9, 10, 17];
/// Entry order of the 21 retail models that have Res18 and Res20.
pub const ORDER_WITH_18_20: [u32; 16] = [1, 2, 3, 4, 5, 18, 15, 13, 6, 7, 8, 19, 9, 10, 17, 20];

/// Record size of a fixed-stride resource, `None` for variable or unknown ones.
pub fn record_size(type_id: u32) -> Option<usize> {
    Some(match type_id {
        NODES => 38,
        SLOTS => 68,
        POSITIONS => 12,
        NORMALS | UV0 | STREAM18 => 4,
        INDICES => 2,
        TRI_DESCS => 16,
        ANIM_KEYS => 24,
        BATCHES => 20,
        STREAM15 | STREAM16 => 8,
        ANIM_MAP => 2,
        _ => return None,
    })
}

/// The value `attr3` must have for a known resource (for Res8 it is 4, not a stride).
pub fn expected_attr3(type_id: u32) -> Option<u32> {
    Some(match type_id {
        NODES => NODE_STRIDE,
        SLOTS => 68,
        POSITIONS => 12,
        NORMALS | UV0 | STREAM18 => 4,
        INDICES => 2,
        TRI_DESCS => 16,
        ANIM_KEYS => 4,
        NAMES => 0,
        BATCHES => 20,
        STREAM15 | STREAM16 => 8,
        ANIM_MAP => 2,
        _ => return None,
    })
}

/// Whether the model library decodes this resource (others are carried as raw payloads).
pub fn is_typed(type_id: u32) -> bool {
    matches!(
        type_id,
        NODES
            | SLOTS
            | POSITIONS
            | NORMALS
            | UV0
            | INDICES
            | TRI_DESCS
            | ANIM_KEYS
            | NAMES
            | BATCHES
            | STREAM15
            | STREAM16
            | STREAM18
            | ANIM_MAP
    )
}

/// A short human name of a resource type, for messages.
pub fn describe(type_id: u32) -> &'static str {
    match type_id {
        NODES => "node table",
        SLOTS => "model header and slots",
        POSITIONS => "positions",
        NORMALS => "normals",
        UV0 => "UV0",
        INDICES => "index buffer",
        TRI_DESCS => "triangle descriptors",
        ANIM_KEYS => "animation keys",
        SERVICE => "service stream",
        NAMES => "node names",
        TERRAIN_MATERIALS => "terrain materials",
        BATCHES => "batch table",
        TERRAIN_EXTRA => "terrain table",
        STREAM15 => "vertex stream 15",
        STREAM16 => "tangent stream 16",
        AUX17 => "auxiliary data 17",
        STREAM18 => "vertex stream 18",
        ANIM_MAP => "animation frame map",
        AUX20 => "auxiliary table 20",
        TERRAIN_TRIS => "terrain triangles",
        _ => "unknown resource",
    }
}
