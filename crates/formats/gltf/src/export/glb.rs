//! The document written out: its JSON text, and the GLB container around it.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::export_options::GltfFormat;
use crate::extras::{self as ex, wrap};
use crate::report::Report;
use gltf_json as json;

/// An exported document before it is written out.
pub(crate) struct Document {
    /// The JSON tree (meshes and the MSH nodes without their `msh` extras:
    /// those are typed beside it).
    pub root: json::Root,
    /// `extras.msh` of the scene: the model's.
    pub scene_extras: ex::ModelExtras,
    /// `extras.msh` of each mesh, in mesh order.
    pub mesh_extras: Vec<ex::SlotExtras>,
    /// `extras.msh` of the first nodes, in node order.
    pub node_extras: Vec<ex::NodeMsh>,
    /// Buffer 0, 4-byte aligned, when there is one.
    pub bin: Option<Vec<u8>>,
    /// What the export noticed.
    pub report: Report,
    /// Files the document names by URI (a `.gltf`'s PNG textures).
    pub side_files: Vec<(String, Vec<u8>)>,
}

impl Document {
    /// The tree with the typed `msh` extras in it: each mesh's and node's
    /// `extras` set to `{"msh": typed}` (one whose `extras` is already set
    /// keeps its own), and the first scene's to the model's.
    fn into_root(self) -> (json::Root, Option<Vec<u8>>, Report) {
        let mut root = self.root;
        for (m, e) in root.meshes.iter_mut().zip(&self.mesh_extras) {
            if m.extras.is_none() {
                m.extras = wrap(e);
            }
        }
        for (n, e) in root.nodes.iter_mut().zip(&self.node_extras) {
            if n.extras.is_none() {
                n.extras = wrap(e);
            }
        }
        if let Some(scene) = root.scenes.first_mut() {
            if scene.extras.is_none() {
                scene.extras = wrap(&self.scene_extras);
            }
        }
        (root, self.bin, self.report)
    }

    /// The `.gltf` JSON or the `.glb` file: the JSON by serde_json through
    /// gltf-json's derived `Serialize` (docs/GLTF.md, "How the JSON is
    /// written").
    pub(super) fn encode(self, format: GltfFormat) -> Result<(Vec<u8>, Report)> {
        // A GLB's JSON is written after room for the file and chunk headers.
        let is_glb = format == GltfFormat::Glb;
        let mut text = if is_glb {
            vec![0; GLB_HEAD]
        } else {
            Vec::new()
        };
        let (root, bin, report) = self.into_root();
        serde_json::to_writer(&mut text, &root).map_err(|e| {
            Error::new(
                ErrorKind::Output,
                Code::ExportJson.code(),
                format!("could not write the glTF JSON: {e}"),
            )
        })?;
        let out = if is_glb { glb(text, bin)? } else { text };
        Ok((out, report))
    }
}

/// The GLB file header and the JSON chunk's header, before the JSON.
pub(super) const GLB_HEAD: usize = 20;

/// The GLB: header, JSON chunk (padded with spaces), BIN chunk (already
/// 4-byte aligned). `head` is the JSON after [`GLB_HEAD`] bytes of room for
/// the headers. Assembled in the binary buffer's own allocation, which has
/// room for it as a rule (the bytes move once; no second buffer as large).
pub(super) fn glb(mut head: Vec<u8>, bin: Option<Vec<u8>>) -> Result<Vec<u8>> {
    let json_len = (head.len() - GLB_HEAD).div_ceil(4) * 4;
    let bin_len = bin.as_ref().map_or(0, Vec::len);
    let total = GLB_HEAD + json_len + if bin.is_some() { 8 + bin_len } else { 0 };
    let too_large = |what: usize| {
        u32::try_from(what).map_err(|_| {
            Error::new(
                ErrorKind::Output,
                Code::ExportGlb.code(),
                format!("the GLB would be {total} bytes, more than a GLB can hold (4 GiB)"),
            )
        })
    };
    head[0..4].copy_from_slice(b"glTF");
    head[4..8].copy_from_slice(&2u32.to_le_bytes());
    head[8..12].copy_from_slice(&too_large(total)?.to_le_bytes());
    head[12..16].copy_from_slice(&too_large(json_len)?.to_le_bytes());
    head[16..20].copy_from_slice(b"JSON");
    head.resize(GLB_HEAD + json_len, b' ');
    let Some(mut bin) = bin else {
        return Ok(head);
    };
    head.extend_from_slice(&too_large(bin_len)?.to_le_bytes());
    head.extend_from_slice(b"BIN\0");
    if bin.capacity() < total {
        // No room: the binary chunk is appended to the head (one copy).
        head.reserve_exact(bin_len);
        head.extend_from_slice(&bin);
        return Ok(head);
    }
    // The bytes move up by the head's length (one memmove), the head goes in front.
    bin.resize(bin_len + head.len(), 0);
    bin.copy_within(0..bin_len, head.len());
    bin[..head.len()].copy_from_slice(&head);
    Ok(bin)
}
