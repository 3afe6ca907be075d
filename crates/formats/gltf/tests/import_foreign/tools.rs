//! The foreign files made by real tools (Blender, three.js, assimp) import
//! with the geometry and animation their tools compute, materials keep their
//! MSH index names, and quads and n-gons are triangulated.

use super::*;

/// Largest errors seen on one file.
#[derive(Default, Debug)]
struct Measured {
    position: f64,
    translation: f64,
    rotation: f64,
    spec_translation: f64,
    spec_rotation: f64,
    poses: usize,
}

struct Case {
    glb: &'static str,
    reference: &'static str,
    /// Parents as the tool wrote them (OBJ has no hierarchy).
    hierarchy: bool,
    /// Compare with the tool's poses only at key frames (a non-sampled export
    /// whose CUBICSPLINE tangents only approximate Blender's Bezier handles).
    keys_only: bool,
}

const CASES: [Case; 4] = [
    Case {
        glb: "blender_scene.glb",
        reference: "blender_scene.ref.json",
        hierarchy: true,
        keys_only: false,
    },
    Case {
        glb: "blender_scene_extras.glb",
        reference: "blender_scene.ref.json",
        hierarchy: true,
        keys_only: true,
    },
    Case {
        glb: "threejs_scene.glb",
        reference: "threejs_scene.ref.json",
        hierarchy: true,
        keys_only: false,
    },
    Case {
        glb: "assimp_scene.glb",
        reference: "assimp_scene.ref.json",
        hierarchy: false,
        keys_only: false,
    },
];

fn check(case: &Case, failures: &mut Vec<String>) -> (Measured, Report) {
    let glb = read(case.glb);
    let r = reference(case.reference);
    let (bytes, report) = import(&glb);
    let m = open(&bytes);
    let what = |s: &str| format!("{} ({}): {s}", case.glb, r.tool);
    let mut measured = Measured::default();
    let materials = material_map(&report);

    // Names and hierarchy.
    for (name, node) in &r.nodes {
        let Some(i) = m.node(name) else {
            failures.push(what(&format!(
                "node {name:?} is missing; MSH nodes are {:?}",
                m.names
            )));
            continue;
        };
        if case.hierarchy {
            let parent = m.parents[i].map(|p| m.names[p].clone());
            if parent != node.parent {
                failures.push(what(&format!(
                    "{name}: parent {parent:?}, expected {:?}",
                    node.parent
                )));
            }
        }
    }

    // Geometry at frame 0.
    let mut covered = BTreeSet::new();
    for (name, node) in &r.nodes {
        let Some(i) = m.node(name) else { continue };
        covered.insert(i);
        let actual = &m.triangles[i];
        if !node.triangles.is_empty() {
            let expected: Vec<(u16, Tri)> = node
                .triangles
                .iter()
                .zip(&node.materials)
                .map(|(t, mat)| {
                    (
                        expected_material(&materials, mat),
                        std::array::from_fn(|c| [t[3 * c], t[3 * c + 1], t[3 * c + 2]]),
                    )
                })
                .collect();
            let d = match_triangles(&what(name), &expected, actual, failures);
            measured.position = measured.position.max(d);
        } else if !node.polygons.is_empty() {
            let polygons: Vec<(u16, Vec<V3>)> = node
                .polygons
                .iter()
                .zip(&node.materials)
                .map(|(p, mat)| {
                    (
                        expected_material(&materials, mat),
                        p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
                    )
                })
                .collect();
            let d = tile_polygons(&what(name), &polygons, actual, failures);
            measured.position = measured.position.max(d);
        } else if !actual.is_empty() {
            failures.push(what(&format!(
                "{name} has no geometry in the reference but {} triangles",
                actual.len()
            )));
        }
    }
    for (i, t) in m.triangles.iter().enumerate() {
        if !covered.contains(&i) && !t.is_empty() {
            failures.push(what(&format!(
                "node {:?} has geometry the reference does not know",
                m.names[i]
            )));
        }
    }

    // Animation against the tool's own poses.
    for (name, a) in &r.animated {
        let Some(i) = m.node(name) else { continue };
        // A world pose is a key pose where the node and every animated ancestor are on a key.
        let mut on_keys: BTreeSet<u32> = a.keys.iter().copied().collect();
        let mut up = r.nodes.get(name).and_then(|n| n.parent.clone());
        while let Some(p) = up {
            if let Some(pa) = r.animated.get(&p) {
                on_keys.retain(|f| pa.keys.contains(f));
            }
            up = r.nodes.get(&p).and_then(|n| n.parent.clone());
        }
        for (k, &f) in a.frames.iter().enumerate() {
            if case.keys_only && !on_keys.contains(&f) {
                continue;
            }
            let Some(w) = m.world.get(f as usize).map(|w| w[i]) else {
                failures.push(what(&format!(
                    "frame {f} is past the timeline ({} frames)",
                    m.frame_count
                )));
                continue;
            };
            let dt = abs_diff(translation_of(&w), a.translation[k]);
            let dr = quat_diff(
                rotation_of(&w).expect("a rigid MSH node"),
                normalize4(a.rotation[k]),
            );
            measured.translation = measured.translation.max(dt);
            measured.rotation = measured.rotation.max(dr);
            measured.poses += 1;
            if dt > TRANSLATION_TOLERANCE || dr > ROTATION_TOLERANCE {
                failures.push(what(&format!(
                    "{name} at frame {f}: translation off by {dt:e}, rotation by {dr:e}"
                )));
            }
        }
    }

    // Every node at every integer frame against the glTF content sampled by the spec.
    let times: Vec<f64> = (0..=m.frame_count).map(|f| f64::from(f) / r.fps).collect();
    for (f, g) in gltf_world(&glb, &times).iter().enumerate() {
        for (i, name) in m.names.iter().enumerate() {
            let Some(gw) = g.get(name) else { continue };
            let w = &m.world[f][i];
            let dt = abs_diff(translation_of(w), translation_of(gw));
            measured.spec_translation = measured.spec_translation.max(dt);
            if dt > TRANSLATION_TOLERANCE {
                failures.push(what(&format!(
                    "{name} at frame {f}: translation off the glTF's by {dt:e}"
                )));
            }
            if let Some(gq) = rotation_of(gw) {
                let dr = quat_diff(rotation_of(w).unwrap(), gq);
                measured.spec_rotation = measured.spec_rotation.max(dr);
                if dr > ROTATION_TOLERANCE {
                    failures.push(what(&format!(
                        "{name} at frame {f}: rotation off the glTF's by {dr:e}"
                    )));
                }
            }
        }
    }
    (measured, report)
}

#[test]
fn foreign_files_import_with_geometry_and_animation_as_their_tools_compute_them() {
    let mut failures = Vec::new();
    for case in &CASES {
        let (measured, report) = check(case, &mut failures);
        eprintln!("{}: {measured:?}", case.glb);
        let mut expect = |ok: bool, what: &str| {
            if !ok {
                failures.push(format!("{}: {what}; notes {:?}", case.glb, report.notes));
            }
        };
        // Blender and three.js scenes scale nodes; the assimp file has no scale.
        let scaled = case.glb != "assimp_scene.glb";
        expect(
            report.has("import.scale_baked") == scaled,
            "import.scale_baked",
        );
        if case.reference != "assimp_scene.ref.json" {
            expect(measured.poses >= 6, "too few poses compared");
        }
        if case.glb.starts_with("blender") {
            // Blender writes one animation per object; they play together.
            expect(
                report.has("import.animations_merged"),
                "import.animations_merged",
            );
            expect(!report.has("import.clips"), "no import.clips");
        }
    }
    common::fail_if_any("foreign import", failures);
}

#[test]
fn materials_keep_msh_index_names_and_others_get_free_indices() {
    for (glb, names) in [
        ("blender_scene.glb", &["Steel", "Paint"][..]),
        ("threejs_scene.glb", &["Steel", "Paint"][..]),
        (
            "assimp_scene.glb",
            &["DefaultMaterial", "Paint", "Steel"][..],
        ),
    ] {
        let (_, report) = import(&read(glb));
        let map = material_map(&report);
        let got: BTreeSet<&str> = map.keys().map(String::as_str).collect();
        assert_eq!(
            got,
            names.iter().copied().collect(),
            "{glb}: {:?}",
            report.notes
        );
        let indices: BTreeSet<u16> = map.values().copied().collect();
        assert_eq!(
            indices.len(),
            map.len(),
            "{glb}: indices are distinct: {map:?}"
        );
        assert!(
            !indices.contains(&3),
            "{glb}: index 3 belongs to mat3: {map:?}"
        );
        // The lowest free indices, in the file's material order.
        assert_eq!(
            indices,
            (0..4).filter(|&k| k != 3).take(map.len()).collect(),
            "{glb}: {map:?}"
        );
    }
}

#[test]
fn quads_and_ngons_are_triangulated() {
    // Blender's Hull: 8 polygons (two concave hexagons, six quads) -> 20 triangles;
    // the antenna is one heptagon -> 5 triangles.
    let r = reference("blender_scene.ref.json");
    let m = open(&import(&read("blender_scene.glb")).0);
    for (name, tris) in [("Hull", 20), ("Antenna", 5), ("Turret", 28)] {
        assert_eq!(
            r.nodes[name].triangles.len(),
            tris,
            "{name} in the reference"
        );
        assert_eq!(
            m.triangles[m.node(name).unwrap()].len(),
            tris,
            "{name} imported"
        );
    }
}
