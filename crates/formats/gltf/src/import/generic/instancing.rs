//! `EXT_mesh_gpu_instancing`: a node's mesh drawn once per instance, each
//! with its own translation, rotation and scale (relative to the node).
//! MSH has no instancing, so each instance becomes a child node of its own
//! holding the mesh, and the node itself keeps no geometry; a result past the
//! format's limits is refused before any geometry is read.

use super::super::read::Source;
use crate::assemble::{MAX_NODES, MAX_TRIANGLES};
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};

/// The code of instances that would not fit an MSH model.
pub const TOO_MANY: &str = Code::GltfInstancesTooMany.code();
/// The code of a malformed `EXT_mesh_gpu_instancing` object.
pub const INVALID: &str = Code::GltfInstancingInvalid.code();

/// One instance's local transform (relative to its node): translation,
/// rotation `[x, y, z, w]`, scale.
pub(super) type Trs = ([f32; 3], [f32; 4], [f32; 3]);

fn invalid(node: usize, what: String) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        INVALID,
        format!("/nodes/{node}/extensions/EXT_mesh_gpu_instancing: {what}"),
    )
}

/// The instances of `node`, `None` when it has no `EXT_mesh_gpu_instancing`
/// or no mesh (then the extension draws nothing more). Missing attributes
/// are the identity; the attributes must have one count.
pub(super) fn instances(src: &Source<'_>, node: &gltf::Node<'_>) -> Result<Option<Vec<Trs>>> {
    let Some(ext) = src.extensions.instancing(node.index()) else {
        return Ok(None);
    };
    if node.mesh().is_none() {
        return Ok(None);
    }
    let n = node.index();
    let accessor = |name: &str| -> Result<Option<gltf::Accessor<'_>>> {
        match ext.attributes.get(name) {
            None => Ok(None),
            Some(&i) => src.doc.accessors().nth(i).map(Some).ok_or_else(|| {
                invalid(
                    n,
                    format!("attribute {name} names accessor {i}, which does not exist"),
                )
            }),
        }
    };
    let t = match accessor("TRANSLATION")? {
        Some(a) => Some(src.floats::<3>(&a)?),
        None => None,
    };
    let r = match accessor("ROTATION")? {
        Some(a) => Some(src.floats::<4>(&a)?),
        None => None,
    };
    let s = match accessor("SCALE")? {
        Some(a) => Some(src.floats::<3>(&a)?),
        None => None,
    };
    let counts: Vec<usize> = [t.as_ref().map(Vec::len), r.as_ref().map(Vec::len)]
        .into_iter()
        .chain([s.as_ref().map(Vec::len)])
        .flatten()
        .collect();
    let Some(&count) = counts.first() else {
        return Err(invalid(
            n,
            "no TRANSLATION, ROTATION or SCALE attribute: the instances have no transforms".into(),
        ));
    };
    if counts.iter().any(|&c| c != count) {
        return Err(invalid(
            n,
            format!("the attributes have different counts ({counts:?})"),
        ));
    }
    Ok(Some(
        (0..count)
            .map(|i| {
                (
                    t.as_ref().map_or([0.0; 3], |v| v[i]),
                    r.as_ref().map_or([0.0, 0.0, 0.0, 1.0], |v| v[i]),
                    s.as_ref().map_or([1.0; 3], |v| v[i]),
                )
            })
            .collect(),
    ))
}

/// The triangles one copy of `mesh` adds at most (from its accessor counts,
/// before anything is read).
pub(super) fn mesh_triangles(mesh: &gltf::Mesh<'_>) -> usize {
    use gltf::mesh::Mode;
    mesh.primitives()
        .map(|p| {
            let count = p
                .indices()
                .or_else(|| p.get(&gltf::Semantic::Positions))
                .map_or(0, |a| a.count());
            match p.mode() {
                Mode::Triangles => count / 3,
                Mode::TriangleStrip | Mode::TriangleFan => count.saturating_sub(2),
                _ => 0,
            }
        })
        .sum()
}

/// Refuses instances that would make more nodes or triangles than an MSH
/// model holds: `nodes` nodes so far, `instances` more copies of a mesh of
/// `triangles` triangles, `triangles_so_far` triangles in earlier instances.
pub(super) fn check_limits(
    node: usize,
    nodes: usize,
    instances: usize,
    triangles: usize,
    triangles_so_far: usize,
) -> Result<()> {
    let total_nodes = nodes.saturating_add(instances);
    let total_triangles = triangles
        .saturating_mul(instances)
        .saturating_add(triangles_so_far);
    if total_nodes > MAX_NODES || total_triangles > MAX_TRIANGLES {
        return Err(Error::new(
            ErrorKind::Unsupported,
            TOO_MANY,
            format!(
                "/nodes/{node}/extensions/EXT_mesh_gpu_instancing: {instances} instances of a mesh of {triangles} triangles make {total_nodes} nodes and {total_triangles} instanced triangles; an MSH model holds at most {MAX_NODES} nodes and {MAX_TRIANGLES} triangles: use fewer instances or a lighter mesh"
            ),
        ));
    }
    Ok(())
}
