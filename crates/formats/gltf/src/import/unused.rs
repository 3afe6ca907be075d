//! Objects nothing uses (issue 42). The specification makes an object no
//! other object names harmless: a viewer never reads it. A value `gltf-json`
//! cannot read in one (an enumeration outside its list, which the Khronos
//! validator only warns about) is set to a valid value and noted
//! (`import.unused_ignored`), instead of refusing the file. The objects that
//! hold such values: accessors, buffer views, samplers, materials, meshes
//! (a primitive's mode) and cameras.

use super::extensions::Extensions;
use super::lenient::Note;
use crate::codes::Code;
use gltf_json::validation::Checked::{self, Invalid, Valid};

/// Which objects of each kind something uses.
struct Used {
    accessors: Vec<bool>,
    views: Vec<bool>,
    samplers: Vec<bool>,
    materials: Vec<bool>,
    meshes: Vec<bool>,
    cameras: Vec<bool>,
}

/// Marks `i` in `set` (an index past the set is left to the validation).
fn mark(set: &mut [bool], i: usize) {
    if let Some(u) = set.get_mut(i) {
        *u = true;
    }
}

impl Used {
    /// What the nodes, animations, skins and extensions of `root` reach.
    fn of(root: &gltf_json::Root, extensions: &Extensions) -> Used {
        let mut used = Used {
            accessors: vec![false; root.accessors.len()],
            views: vec![false; root.buffer_views.len()],
            samplers: vec![false; root.samplers.len()],
            materials: vec![false; root.materials.len()],
            meshes: vec![false; root.meshes.len()],
            cameras: vec![false; root.cameras.len()],
        };
        let mut skins = vec![false; root.skins.len()];
        for (n, node) in root.nodes.iter().enumerate() {
            if let Some(m) = &node.mesh {
                mark(&mut used.meshes, m.value());
            }
            if let Some(c) = &node.camera {
                mark(&mut used.cameras, c.value());
            }
            if let Some(s) = &node.skin {
                mark(&mut skins, s.value());
            }
            for a in extensions
                .instancing(n)
                .into_iter()
                .flat_map(|i| i.attributes.values())
            {
                mark(&mut used.accessors, *a);
            }
        }
        for (skin, _) in root.skins.iter().zip(&skins).filter(|(_, &u)| u) {
            if let Some(a) = &skin.inverse_bind_matrices {
                mark(&mut used.accessors, a.value());
            }
        }
        for sampler in root.animations.iter().flat_map(|a| &a.samplers) {
            mark(&mut used.accessors, sampler.input.value());
            mark(&mut used.accessors, sampler.output.value());
        }
        let meshes = root.meshes.iter().zip(used.meshes.clone());
        for prim in meshes.filter(|(_, u)| *u).flat_map(|(m, _)| &m.primitives) {
            for a in prim.attributes.values().chain(&prim.indices) {
                mark(&mut used.accessors, a.value());
            }
            for t in prim.targets.iter().flatten() {
                for a in [&t.positions, &t.normals, &t.tangents]
                    .into_iter()
                    .flatten()
                {
                    mark(&mut used.accessors, a.value());
                }
            }
            if let Some(m) = &prim.material {
                mark(&mut used.materials, m.value());
            }
        }
        // Every view an object names is read, used or not, so stays checked.
        for a in &root.accessors {
            if let Some(v) = &a.buffer_view {
                mark(&mut used.views, v.value());
            }
            if let Some(s) = &a.sparse {
                mark(&mut used.views, s.indices.buffer_view.value());
                mark(&mut used.views, s.values.buffer_view.value());
            }
        }
        for v in root.images.iter().filter_map(|i| i.buffer_view.as_ref()) {
            mark(&mut used.views, v.value());
        }
        let mut textures = vec![false; root.textures.len()];
        for (m, _) in root
            .materials
            .iter()
            .zip(&used.materials)
            .filter(|(_, &u)| u)
        {
            let pbr = &m.pbr_metallic_roughness;
            let infos = [
                &pbr.base_color_texture,
                &pbr.metallic_roughness_texture,
                &m.emissive_texture,
            ];
            for t in infos.into_iter().flatten() {
                mark(&mut textures, t.index.value());
            }
            if let Some(t) = &m.normal_texture {
                mark(&mut textures, t.index.value());
            }
            if let Some(t) = &m.occlusion_texture {
                mark(&mut textures, t.index.value());
            }
        }
        for (t, _) in root.textures.iter().zip(&textures).filter(|(_, &u)| u) {
            if let Some(s) = &t.sampler {
                mark(&mut used.samplers, s.value());
            }
        }
        used
    }
}

/// Sets `field` to `valid` when it is `Invalid`; whether it was.
fn mend<T>(field: &mut Checked<T>, valid: T) -> bool {
    let invalid = matches!(field, Invalid);
    if invalid {
        *field = Valid(valid);
    }
    invalid
}

/// Sets an optional `field` to `None` when it is `Invalid`; whether it was.
fn drop_invalid<T>(field: &mut Option<Checked<T>>) -> bool {
    let invalid = matches!(field, Some(Invalid));
    if invalid {
        *field = None;
    }
    invalid
}

/// Mends the values `gltf-json` cannot read in objects nothing uses, each
/// noted by its JSON pointer; one note in all.
pub(crate) fn ignore(root: &mut gltf_json::Root, extensions: &Extensions, notes: &mut Vec<Note>) {
    use gltf_json::accessor::{ComponentType, GenericComponentType, Type};
    let used = Used::of(root, extensions);
    let mut pointers: Vec<String> = Vec::new();
    let mut objects = 0usize;
    let mut record = |object: String, fields: &[(&str, bool)]| {
        let before = pointers.len();
        pointers.extend(
            fields
                .iter()
                .filter(|(_, mended)| *mended)
                .map(|(f, _)| format!("{object}/{f}")),
        );
        objects += usize::from(pointers.len() > before);
    };
    let unused = |set: &[bool]| -> Vec<usize> { (0..set.len()).filter(|&i| !set[i]).collect() };
    for i in unused(&used.accessors) {
        let a = &mut root.accessors[i];
        let component = mend(
            &mut a.component_type,
            GenericComponentType(ComponentType::F32),
        );
        let ty = mend(&mut a.type_, Type::Scalar);
        record(
            format!("/accessors/{i}"),
            &[("componentType", component), ("type", ty)],
        );
    }
    for i in unused(&used.views) {
        let target = drop_invalid(&mut root.buffer_views[i].target);
        record(format!("/bufferViews/{i}"), &[("target", target)]);
    }
    for i in unused(&used.samplers) {
        use gltf_json::texture::WrappingMode::Repeat;
        let s = &mut root.samplers[i];
        let fields = [
            ("magFilter", drop_invalid(&mut s.mag_filter)),
            ("minFilter", drop_invalid(&mut s.min_filter)),
            ("wrapS", mend(&mut s.wrap_s, Repeat)),
            ("wrapT", mend(&mut s.wrap_t, Repeat)),
        ];
        record(format!("/samplers/{i}"), &fields);
    }
    for i in unused(&used.materials) {
        let alpha = mend(
            &mut root.materials[i].alpha_mode,
            gltf_json::material::AlphaMode::Opaque,
        );
        record(format!("/materials/{i}"), &[("alphaMode", alpha)]);
    }
    for i in unused(&used.meshes) {
        let modes: Vec<(String, bool)> = root.meshes[i]
            .primitives
            .iter_mut()
            .enumerate()
            .map(|(p, prim)| {
                let mended = mend(&mut prim.mode, gltf_json::mesh::Mode::Triangles);
                (format!("primitives/{p}/mode"), mended)
            })
            .collect();
        let fields: Vec<(&str, bool)> = modes.iter().map(|(f, m)| (f.as_str(), *m)).collect();
        record(format!("/meshes/{i}"), &fields);
    }
    for i in unused(&used.cameras) {
        use gltf_json::camera::Type as Camera;
        let c = &mut root.cameras[i];
        let kind = match (&c.perspective, &c.orthographic) {
            (Some(_), _) => Camera::Perspective,
            _ => Camera::Orthographic,
        };
        let mended = mend(&mut c.type_, kind);
        // A camera of no known type may have neither projection: one of the
        // type it now has stands in (nothing reads it).
        if mended && c.perspective.is_none() && c.orthographic.is_none() {
            c.orthographic = Some(gltf_json::camera::Orthographic {
                xmag: 1.0,
                ymag: 1.0,
                zfar: 1.0,
                znear: 0.0,
                extensions: None,
                extras: Default::default(),
            });
        }
        record(format!("/cameras/{i}"), &[("type", mended)]);
    }
    if pointers.is_empty() {
        return;
    }
    notes.push((
        Code::ImportUnusedIgnored.code(),
        format!(
            "{} values outside the glTF lists (the Khronos validator warns of them), ignored: {}",
            crate::report::counted(
                objects,
                "object nothing uses holds",
                "objects nothing uses hold"
            ),
            crate::report::few(&pointers)
        ),
    ));
}
