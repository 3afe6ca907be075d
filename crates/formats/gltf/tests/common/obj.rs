//! Helpers of the OBJ tests: the posed triangles of a model, per node name and
//! material, computed independently of the exporter, and their comparison.

use std::collections::BTreeMap;

/// One corner: position (game frame), UV0, normal (unit, game frame; `None` without Res4).
pub type Corner = ([f32; 3], [f32; 2], Option<[f32; 3]>);
/// Triangles per (node name, material index).
pub type Geometry = BTreeMap<(Vec<u8>, u16), Vec<[Corner; 3]>>;

/// How a model's node names become keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// The name the OBJ export writes, mapped back as the importer does
    /// (`#<index>` and Blender's `.NNN` removed).
    AsExported,
    /// The Res10 bytes as they are (an imported model).
    Raw,
}

/// The triangles of slot `(lod, group)` of every node, posed by the rest pose
/// through the hierarchy (world space, game frame).
pub fn posed_triangles(
    bytes: &[u8],
    lod: usize,
    group: usize,
    rotation: msh::pose::Rotation,
    names: Names,
) -> Geometry {
    let opened = msh::open(bytes, msh::Mode::Strict).expect("a valid model");
    let view = opened.view;
    let poses = msh::pose::rest_poses(&view).unwrap();
    let world = msh::pose::compose(&view, &poses, rotation);
    let raw: Vec<Option<&[u8]>> = (0..view.nodes.len()).map(|i| view.node_name(i)).collect();
    let exported = mshconv_convert::names::node_names(&raw);
    let mut out = Geometry::new();
    for (i, node) in view.nodes.iter().enumerate() {
        let Some(slot) = node.slot(lod, group) else {
            continue;
        };
        let s = view.slots[slot as usize];
        let name = match names {
            Names::AsExported => mshconv_convert::names::node_name_from_gltf(&exported[i].0)
                .as_bytes()
                .to_vec(),
            Names::Raw => raw[i].unwrap_or(&[]).to_vec(),
        };
        let w = world[i];
        let (bs, bc) = (s.batch_start.get() as usize, s.batch_count.get() as usize);
        for b in &view.batches[bs..bs + bc] {
            let start = b.index_start.get() as usize;
            let idx = &view.indices[start..start + b.index_count.get() as usize];
            for t in idx.chunks_exact(3) {
                let corner = |k: usize| -> Corner {
                    let v = (b.base_vertex.get() + t[k].get() as u32) as usize;
                    let p = w
                        .point(view.positions[v].map(|c| c.get() as f64))
                        .map(|c| c as f32);
                    let uv = view.uv0.map_or([0.0, 0.0], |u| u[v].decode());
                    let n = view.normals.map(|ns| {
                        let n = w.vector(ns[v].decode().map(f64::from));
                        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                        if len > 1e-12 {
                            n.map(|c| (c / len) as f32)
                        } else {
                            let z = w.vector([0.0, 0.0, 1.0]);
                            let l = (z[0] * z[0] + z[1] * z[1] + z[2] * z[2]).sqrt();
                            z.map(|c| (c / l) as f32)
                        }
                    });
                    (p, uv, n)
                };
                out.entry((name.clone(), b.material_index.get()))
                    .or_default()
                    .push([corner(0), corner(1), corner(2)]);
            }
        }
    }
    out.retain(|_, t| !t.is_empty());
    out
}

/// Reverses every triangle (the exporter's `obj.winding_flipped`).
pub fn reversed(g: &Geometry) -> Geometry {
    g.iter()
        .map(|(k, tris)| (k.clone(), tris.iter().map(|t| [t[0], t[2], t[1]]).collect()))
        .collect()
}

/// A sort key on a 1/4096 grid, so values within float noise sort alike.
fn key(c: &Corner) -> [i64; 5] {
    [c.0[0], c.0[1], c.0[2], c.1[0], c.1[1]].map(|x| (x as f64 * 4096.0).round() as i64)
}

/// Each triangle turned to start at its smallest corner (winding kept), the list sorted.
fn canonical(tris: &[[Corner; 3]]) -> Vec<[Corner; 3]> {
    let mut out: Vec<[Corner; 3]> = tris
        .iter()
        .map(|t| {
            let first = (0..3).min_by_key(|&k| key(&t[k])).unwrap();
            [t[first], t[(first + 1) % 3], t[(first + 2) % 3]]
        })
        .collect();
    out.sort_by_key(|t| [key(&t[0]), key(&t[1]), key(&t[2])]);
    out
}

fn close(a: f32, b: f32, tolerance: f32) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(1.0)
}

/// Differences between two geometries: same keys, same triangle multisets with
/// positions within `tolerance` (relative above 1), UVs exact to `uv_tolerance`,
/// and normals within `normal_tolerance` where both sides have them.
pub fn compare(
    expected: &Geometry,
    actual: &Geometry,
    tolerance: f32,
    uv_tolerance: f32,
    normal_tolerance: f32,
) -> Vec<String> {
    let mut problems = Vec::new();
    let show = |k: &(Vec<u8>, u16)| format!("{:?}/mat{}", String::from_utf8_lossy(&k.0), k.1);
    let expected_keys: Vec<String> = expected.keys().map(show).collect();
    let actual_keys: Vec<String> = actual.keys().map(show).collect();
    if expected_keys != actual_keys {
        problems.push(format!(
            "node/material keys differ: expected {expected_keys:?}, got {actual_keys:?}"
        ));
        return problems;
    }
    for (k, e) in expected {
        let a = &actual[k];
        if e.len() != a.len() {
            problems.push(format!(
                "{}: {} triangles expected, {} found",
                show(k),
                e.len(),
                a.len()
            ));
            continue;
        }
        let (e, a) = (canonical(e), canonical(a));
        for (te, ta) in e.iter().zip(&a) {
            let ok = te.iter().zip(ta).all(|(ce, ca)| {
                (0..3).all(|j| close(ce.0[j], ca.0[j], tolerance))
                    && (0..2).all(|j| (ce.1[j] - ca.1[j]).abs() <= uv_tolerance)
                    && match (ce.2, ca.2) {
                        (Some(ne), Some(na)) => {
                            (0..3).all(|j| (ne[j] - na[j]).abs() <= normal_tolerance)
                        }
                        _ => true,
                    }
            });
            if !ok {
                problems.push(format!("{}: triangle {te:?} came back as {ta:?}", show(k)));
                break;
            }
        }
    }
    problems
}
