//! A model as interchange formats describe it: named nodes with rest poses,
//! geometry per LOD/group as batches of triangles with per-vertex attributes,
//! and animation as keys. Importers (glTF, OBJ) fill one in; [`crate::assemble`]
//! turns it into a canonical MSH model.
//!
//! Everything here is already in the game's frame (Z up) and rotation reading
//! (quaternions as Res8 stores them, `[x, y, z, w]`): importers undo the axis
//! and rotation options before filling these in.

/// One model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneModel {
    /// Nodes, in any order; parents need not come first (the assembler orders them).
    pub nodes: Vec<SceneNode>,
}

/// One node of the rigid hierarchy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneNode {
    /// Name bytes for Res10 (`None` or empty: no name).
    pub name: Option<Vec<u8>>,
    /// Parent index into [`SceneModel::nodes`].
    pub parent: Option<usize>,
    /// Rest translation.
    pub translation: [f32; 3],
    /// Rest rotation as stored, `[x, y, z, w]`, unit length (quantised by the assembler).
    pub rotation: [f32; 4],
    /// Res1 `hdr0` (unknown flags; 0 when the source has none).
    pub hdr0: u16,
    /// Geometry per LOD/group.
    pub slots: Vec<SceneSlot>,
    /// Animation samples at whole frames, `None` for a static node. The
    /// assembler reduces them to the keys linear interpolation needs.
    pub track: Option<Vec<KeySample>>,
}

/// The geometry a node draws at one LOD/group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneSlot {
    /// LOD 0..=2.
    pub lod: u8,
    /// Group 0..=4.
    pub group: u8,
    /// Draw batches, one material each.
    pub batches: Vec<SceneBatch>,
    /// `Slot68`'s unknown tail (kept from a file this tool wrote; zero otherwise).
    pub opaque: [u32; 5],
}

/// Triangles with one material, in the node's local frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SceneBatch {
    /// MSH material index.
    pub material: u16,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals (unit length), if the source has them; computed otherwise.
    /// A normal that is not finite (NaN or infinity) is one the source does
    /// not know: the model gets one computed from the faces.
    pub normals: Option<Vec<[f32; 3]>>,
    /// UV0, if the source has them; zero otherwise.
    pub uv0: Option<Vec<[f32; 2]>>,
    /// UV1 (Res15 as two floats), if the source has them.
    pub uv1: Option<Vec<[f32; 2]>>,
    /// Vertex colours as RGBA bytes (Res18 is written as B, G, R, A), if any.
    pub colors: Option<Vec<[u8; 4]>>,
    /// Triangles as indices into the vertex arrays, counter-clockwise seen from the front.
    pub triangles: Vec<[u32; 3]>,
    /// `Batch20`'s flags and unknown fields `[batch_flags, opaque4, opaque6, opaque14]`
    /// (kept from a file this tool wrote; zero otherwise).
    pub fields: [u16; 4],
}

/// A pose at one whole frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeySample {
    /// Frame (whole number, from 0).
    pub frame: u32,
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation as stored, `[x, y, z, w]`, unit length.
    pub rotation: [f32; 4],
}
