//! The document written out: its JSON text, and the GLB container around it.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::options::GltfFormat;
use crate::report::Report;
use crate::{extras as ex, json_text};
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
    /// The extras kept typed, for the JSON writer.
    pub fn typed(&self) -> json_text::Typed<'_> {
        json_text::Typed {
            scene: Some(&self.scene_extras),
            meshes: &self.mesh_extras,
            nodes: &self.node_extras,
        }
    }

    /// The `.gltf` JSON or the `.glb` file.
    pub(super) fn encode(self, format: GltfFormat) -> Result<(Vec<u8>, Report)> {
        // A GLB's JSON is written after room for the file and chunk headers.
        let is_glb = format == GltfFormat::Glb;
        let mut text = if is_glb {
            vec![0; GLB_HEAD]
        } else {
            Vec::new()
        };
        json_text::write(&self.root, self.typed(), &mut text).map_err(|e| {
            Error::new(
                ErrorKind::Output,
                Code::ExportJson.code(),
                format!("could not write the glTF JSON: {e}"),
            )
        })?;
        let out = if is_glb { glb(text, self.bin)? } else { text };
        Ok((out, self.report))
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
