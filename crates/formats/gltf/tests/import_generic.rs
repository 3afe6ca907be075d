//! The generic import path (what Blender's default export, which drops every
//! extra, leaves): our export with all `extras` removed imports into a valid
//! MSH with the same node names, hierarchy, rest poses, per-slot geometry and
//! materials, and the engine's animation at every integer frame.

mod common;

use msh::{Mode, ModelKind, ModelRef};
use mshconv_gltf::ImportOptions;
use mshconv_gltf::{gltf_to_msh, msh_to_gltf};
use mshconv_gltf::{ExportOptions, GltfFormat};

fn strip_extras(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.remove("extras");
            map.values_mut().for_each(strip_extras);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(strip_extras),
        _ => {}
    }
}

/// Original node indices in the order the generic import lays nodes out:
/// depth first from the roots, children in index order.
fn traversal(view: &ModelRef<'_>) -> Vec<usize> {
    let n = view.nodes.len();
    let mut children = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, node) in view.nodes.iter().enumerate() {
        match node.parent() {
            Some(p) => children[p as usize].push(i),
            None => roots.push(i),
        }
    }
    let mut order = Vec::new();
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    order
}

/// A slot's (lod, group) and its batches as (material, triangle positions).
type SlotGeometry = ((usize, usize), Vec<(u16, Vec<[[f32; 3]; 3]>)>);

/// Per (lod, group): the slot's batches as (material, triangle positions).
fn geometry(view: &ModelRef<'_>, node: usize) -> Vec<SlotGeometry> {
    let mut out = Vec::new();
    for lod in 0..3 {
        for group in 0..5 {
            let Some(s) = view.nodes[node].slot(lod, group) else {
                continue;
            };
            let slot = view.slots[s as usize];
            let mut by_material: std::collections::BTreeMap<u16, Vec<[[f32; 3]; 3]>> =
                Default::default();
            let (bs, bc) = (
                slot.batch_start.get() as usize,
                slot.batch_count.get() as usize,
            );
            for b in &view.batches[bs..bs + bc] {
                let (is, ic) = (b.index_start.get() as usize, b.index_count.get() as usize);
                for t in view.indices[is..is + ic].chunks_exact(3) {
                    let tri = [0, 1, 2].map(|k| {
                        view.positions[(b.base_vertex.get() + t[k].get() as u32) as usize]
                            .map(|c| c.get())
                    });
                    by_material
                        .entry(b.material_index.get())
                        .or_default()
                        .push(tri);
                }
            }
            let mut batches: Vec<(u16, Vec<[[f32; 3]; 3]>)> = by_material.into_iter().collect();
            for (_, tris) in &mut batches {
                tris.retain(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
            }
            if batches.iter().any(|(_, t)| !t.is_empty()) {
                out.push(((lod, group), batches));
            }
        }
    }
    out
}

#[test]
fn extras_free_gltf_imports_with_names_hierarchy_geometry_and_animation() {
    let mut failures = Vec::new();
    let mut compared_frames = 0;
    for (name, bytes) in common::valid_fixtures() {
        let original = msh::open(&bytes, Mode::Strict).unwrap();
        if original.view.kind != Some(ModelKind::Standard) || original.view.nodes.is_empty() {
            continue;
        }
        // Degenerate quaternions and non-canonical animation are shown approximated by design.
        let (gltf, report) = msh_to_gltf(
            &bytes,
            &ExportOptions {
                format: GltfFormat::Gltf,
                ..Default::default()
            },
        )
        .unwrap();
        if report.has("export.degenerate_quaternion") {
            continue;
        }
        let mut doc: serde_json::Value = serde_json::from_slice(&gltf).unwrap();
        strip_extras(&mut doc);
        let stripped = serde_json::to_vec(&doc).unwrap();
        let (back, _) = match gltf_to_msh(&stripped, &ImportOptions::default(), &|_| None) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let imported = match msh::open(&back, Mode::Strict) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{name}: the import is not valid: {e}"));
                continue;
            }
        };
        let (a, b) = (&original.view, &imported.view);
        let order = traversal(a);
        if b.nodes.len() != order.len() {
            failures.push(format!(
                "{name}: {} nodes, expected {}",
                b.nodes.len(),
                order.len()
            ));
            continue;
        }
        let mut new_of = vec![0usize; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of[old] = new;
        }
        let raw_names: Vec<Option<&[u8]>> = (0..a.nodes.len()).map(|i| a.node_name(i)).collect();
        let shown = mshconv_convert::names::node_names(&raw_names);
        for (new, &old) in order.iter().enumerate() {
            let expect_name = a.node_name(old).unwrap_or(b"");
            let got_name = b.node_name(new).unwrap_or(b"");
            // Names over 63 bytes or not UTF-8 need custom properties (documented).
            if expect_name != got_name && !shown[old].1 {
                failures.push(format!(
                    "{name} node {old}: name {:?} became {:?}",
                    String::from_utf8_lossy(expect_name),
                    String::from_utf8_lossy(got_name)
                ));
            }
            let expect_parent = a.nodes[old].parent().map(|p| new_of[p as usize] as u16);
            if b.nodes[new].parent() != expect_parent {
                failures.push(format!(
                    "{name} node {old}: parent {:?} became {:?}",
                    expect_parent,
                    b.nodes[new].parent()
                ));
            }
            let (ga, gb) = (geometry(a, old), geometry(b, new));
            let same = ga.len() == gb.len()
                && ga.iter().zip(&gb).all(|((ka, ba), (kb, bb))| {
                    ka == kb
                        && ba.len() == bb.len()
                        && ba.iter().zip(bb).all(|((ma, ta), (mb, tb))| {
                            ma == mb
                                && ta.len() == tb.len()
                                && ta.iter().zip(tb).all(|(x, y)| {
                                    (0..3)
                                        .all(|v| (0..3).all(|c| (x[v][c] - y[v][c]).abs() <= 1e-5))
                                })
                        })
                });
            if !same {
                failures.push(format!(
                    "{name} node {old}: geometry per LOD/group/material differs"
                ));
            }
        }
        // Animation (and rest poses): each node's engine pose at every integer frame,
        // rotation within one i16 step (up to sign), translation within 1e-4.
        let frames = a.frame_count.max(1) + 1;
        for f in 0..=frames {
            let la = msh::pose::local_poses(a, f as f32).unwrap();
            let lb = msh::pose::local_poses(b, f as f32).unwrap();
            for (new, &old) in order.iter().enumerate() {
                let (pa, pb) = (la[old], lb[new]);
                let dt = (0..3)
                    .map(|k| (pa.translation[k] - pb.translation[k]).abs())
                    .fold(0.0, f32::max);
                let same = (0..4)
                    .map(|k| (pa.rotation[k] - pb.rotation[k]).abs())
                    .fold(0.0, f32::max);
                let flip = (0..4)
                    .map(|k| (pa.rotation[k] + pb.rotation[k]).abs())
                    .fold(0.0, f32::max);
                let scale = pa.translation.iter().map(|c| c.abs()).fold(1.0, f32::max);
                if dt > 1e-4 * scale || same.min(flip) > 1.0 / 32767.0 + 1e-6 {
                    failures.push(format!(
                        "{name} node {old} frame {f}: translation off by {dt:.2e}, rotation by {:.2} i16 steps",
                        same.min(flip) * 32767.0
                    ));
                    break;
                }
            }
            compared_frames += 1;
        }
    }
    common::fail_if_any("generic import", failures.into_iter().take(40).collect());
    assert!(compared_frames > 500, "{compared_frames}");
}
