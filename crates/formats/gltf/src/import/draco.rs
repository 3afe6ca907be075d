//! `KHR_draco_mesh_compression`: a primitive's indices and attributes stored
//! as one Draco bitstream in a buffer view, decoded with `draco-core` (a pure
//! Rust decoder with caller-set ceilings on what a stream may decode to).
//!
//! Each decoded attribute is written in its glTF accessor's component type,
//! so the rest of the importer reads it as any accessor (normalized integers
//! are dequantized there). The accessor's count must be the decoded point
//! count, and the indices accessor's the decoded corner count.

use super::extensions::Extensions;
use super::limits;
use super::read::Source;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use gltf::accessor::{DataType, Dimensions};
use std::collections::HashMap;

/// A decoded Draco mesh: triangles over `points` points, and each attribute's
/// values (as `f32`, per point) by its unique id.
#[derive(Debug)]
pub struct Decoded {
    /// How many points the mesh has.
    pub points: usize,
    /// The triangles, as point indices (each below `points`).
    pub faces: Vec<[u32; 3]>,
    /// The attributes' values, `components` per point, by unique id.
    pub attributes: HashMap<u32, (usize, Vec<f32>)>,
}

fn invalid(message: String) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        Code::GltfDracoInvalid.code(),
        message,
    )
}

/// Decodes one Draco mesh bitstream; refuses one whose attributes would take
/// more than `max_bytes`, before they are allocated.
#[cfg(feature = "draco")]
pub fn decode(bytes: &[u8], max_bytes: usize) -> Result<Decoded> {
    let limits = draco_core::DecodeLimits::default()
        .with_max_decoded_bytes(max_bytes as u64)
        .with_max_points(1 << 22)
        .with_max_faces(1 << 22);
    let mut buffer = draco_core::DecoderBuffer::new(bytes).with_limits(limits);
    let mut mesh = draco_core::Mesh::new();
    draco_core::MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| match e.kind() {
            draco_core::ErrorKind::LimitExceeded => Error::new(
                ErrorKind::Unsupported,
                Code::GltfDecodedTooLarge.code(),
                format!("the Draco data decodes to more than this file may: {e}"),
            ),
            _ => invalid(format!("the Draco data does not decode: {e}")),
        })?;
    let points = mesh.num_points();
    let faces: Vec<[u32; 3]> = mesh.faces().iter().map(|f| f.map(|p| p.0)).collect();
    if let Some(bad) = faces.iter().flatten().find(|&&p| p as usize >= points) {
        return Err(invalid(format!(
            "a Draco face names point {bad} of {points}"
        )));
    }
    // Every attribute is read per point: at most the decoded bytes again.
    let mut attributes = HashMap::new();
    for id in 0..mesh.num_attributes() {
        let a = mesh.attribute(id);
        let components = usize::from(a.num_components());
        attributes.insert(a.unique_id(), (components, a.read_f32s(points, components)));
    }
    Ok(Decoded {
        points,
        faces,
        attributes,
    })
}

/// The decoded bytes of every accessor a Draco primitive of the document
/// names, by accessor index, in the accessor's component type.
pub(crate) fn decode_primitives(
    src: &Source<'_>,
    extensions: &Extensions,
    file_bytes: usize,
) -> Result<HashMap<usize, Vec<u8>>> {
    let mut out = HashMap::new();
    let mut left = limits::decoded_limit(file_bytes);
    for mesh in src.doc.meshes() {
        for prim in mesh.primitives() {
            let Some(ext) = extensions.draco(mesh.index(), prim.index()) else {
                continue;
            };
            let at = format!(
                "/meshes/{}/primitives/{}/extensions/KHR_draco_mesh_compression",
                mesh.index(),
                prim.index()
            );
            let view =
                src.doc.views().nth(ext.view).ok_or_else(|| {
                    invalid(format!("{at}/bufferView: no buffer view {}", ext.view))
                })?;
            let decoded = decode(src.view_bytes(&view)?, left)
                .map_err(|e| Error::new(e.kind(), e.code(), format!("{at}: {}", e.message())))?;
            if let Some(indices) = prim.indices() {
                let flat: Vec<f32> = decoded.faces.iter().flatten().map(|&p| p as f32).collect();
                let bytes = typed(&indices, &flat, 1, &format!("{at} (indices)"))?;
                left = left.saturating_sub(bytes.len());
                out.insert(indices.index(), bytes);
            }
            for (semantic, accessor) in prim.attributes() {
                let name = semantic.to_string();
                let Some(&id) = ext.attributes.get(&name) else {
                    continue;
                };
                let (components, values) = decoded.attributes.get(&id).ok_or_else(|| {
                    invalid(format!("{at}/attributes/{name}: no Draco attribute {id}"))
                })?;
                if accessor.count() != decoded.points {
                    return Err(invalid(format!(
                        "{at}/attributes/{name}: the accessor has {} elements, the Draco data {} points",
                        accessor.count(),
                        decoded.points
                    )));
                }
                let bytes = typed(
                    &accessor,
                    values,
                    *components,
                    &format!("{at}/attributes/{name}"),
                )?;
                left = left.saturating_sub(bytes.len());
                out.insert(accessor.index(), bytes);
            }
        }
    }
    Ok(out)
}

/// Decoded values (`have` components each) written as `accessor`'s elements.
fn typed(accessor: &gltf::Accessor<'_>, values: &[f32], have: usize, at: &str) -> Result<Vec<u8>> {
    let want = match accessor.dimensions() {
        Dimensions::Scalar => 1,
        Dimensions::Vec2 => 2,
        Dimensions::Vec3 => 3,
        Dimensions::Vec4 => 4,
        other => {
            return Err(invalid(format!(
                "{at}: a {other:?} accessor cannot be Draco data"
            )))
        }
    };
    let count = values.len() / have.max(1);
    if count != accessor.count() {
        return Err(invalid(format!(
            "{at}: the accessor has {} elements, the Draco data {count}",
            accessor.count()
        )));
    }
    let ty = accessor.data_type();
    let mut out = Vec::with_capacity(count * want * ty.size());
    for element in values.chunks_exact(have.max(1)) {
        for k in 0..want {
            let v = element.get(k).copied().unwrap_or(0.0);
            match ty {
                DataType::F32 => out.extend_from_slice(&v.to_le_bytes()),
                DataType::U8 => out.push(v as u8),
                DataType::I8 => out.push(v as i8 as u8),
                DataType::U16 => out.extend_from_slice(&(v as u16).to_le_bytes()),
                DataType::I16 => out.extend_from_slice(&(v as i16).to_le_bytes()),
                DataType::U32 => out.extend_from_slice(&(v as u32).to_le_bytes()),
            }
        }
    }
    Ok(out)
}

/// Without the `draco` feature: Draco data is refused by name.
#[cfg(not(feature = "draco"))]
pub fn decode(_bytes: &[u8], _max_bytes: usize) -> Result<Decoded> {
    Err(super::left_out("KHR_draco_mesh_compression", "draco"))
}

#[cfg(all(test, not(feature = "draco")))]
mod tests_without {
    #[test]
    fn draco_data_is_refused_by_name_without_the_feature() {
        let e = super::decode(b"DRACO", 1 << 20).unwrap_err();
        assert_eq!(e.code(), "gltf.extension_required");
        assert!(
            e.message().contains("KHR_draco_mesh_compression"),
            "{}",
            e.message()
        );
    }
}

#[cfg(all(test, feature = "draco"))]
mod tests {
    use super::*;

    #[test]
    fn garbage_and_truncated_streams_are_typed_errors() {
        for bytes in [
            &b""[..],
            b"DRACO",
            b"DRACO\x02\x02\x01\x01\x00\x00",
            &[0xff; 64],
        ] {
            let e = decode(bytes, 1 << 20).unwrap_err();
            assert!(
                matches!(e.code(), "gltf.draco_invalid" | "gltf.decoded_too_large"),
                "{e}"
            );
        }
    }
}
