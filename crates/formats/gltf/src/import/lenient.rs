//! Reading the glTF document as the glTF 2.0 specification allows, where
//! `gltf-json`'s parser and validation are stricter (docs/GLTF.md, "What the
//! importer accepts").
//!
//! The document is first parsed as it is (the fast path every file this
//! exporter wrote takes). Only when that fails is it read as plain JSON,
//! normalised ([`normalise`]) and parsed again; when that fails too, the first
//! error is the one reported, so a broken file is refused as before.
//!
//! Normalised: integral numbers written as floats (`1.0`) where integers
//! belong; a scene without `nodes`; an animation channel whose target has no
//! `node` (`KHR_animation_pointer`: the channel is left out, noted); a texture
//! without `source` (its image from `EXT_texture_webp`, `KHR_texture_basisu`,
//! `MSFT_texture_dds` or `EXT_texture_avif`, else no image: noted).
//! Accessors without `bufferView` pass (they are zeros, see `read.rs`), so do
//! primitives without `POSITION` (left out, see `mesh.rs`), and
//! `extensionsRequired` is checked here against what the importer honours.

use super::extensions::Extensions;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use serde::Deserialize;
use serde_json::Value;

/// A note raised while reading the document: (code, message).
pub(crate) type Note = (&'static str, String);

/// The document, the extension data the importer reads itself, and the notes.
pub(crate) struct Parsed {
    /// The document, checked.
    pub doc: gltf::Document,
    /// The extension objects the importer uses.
    pub extensions: Extensions,
    /// What was normalised or ignored.
    pub notes: Vec<Note>,
}

fn invalid(code: &str, message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, code, message)
}

/// Extensions whose images a texture may take instead of `source`.
const IMAGE_EXTENSIONS: [&str; 4] = [
    "EXT_texture_webp",
    "KHR_texture_basisu",
    "MSFT_texture_dds",
    "EXT_texture_avif",
];

/// Extensions the importer decodes, or may leave out without changing the
/// geometry, so a file that requires them is still read.
const HONOURED: [&str; 12] = [
    "KHR_mesh_quantization",
    "KHR_node_visibility",
    "EXT_mesh_gpu_instancing",
    "EXT_meshopt_compression",
    "KHR_draco_mesh_compression",
    "KHR_texture_transform",
    "KHR_lights_punctual",
    "KHR_animation_pointer",
    "EXT_texture_webp",
    "KHR_texture_basisu",
    "MSFT_texture_dds",
    "KHR_xmp_json_ld",
];

/// Reads the JSON document (UTF-8 already checked, its size bounded by
/// `limits::check_json`).
pub(crate) fn document(json: &str) -> Result<Parsed> {
    let strict = serde_json::from_str::<gltf_json::Root>(json)
        .map_err(|e| {
            invalid(
                Code::GltfInvalid.code(),
                format!("not a valid glTF document: {e}"),
            )
        })
        .and_then(|root| {
            // Without extensions, the base colour's `texCoord` is all they hold
            // (a material reading set 1 without any extension).
            let other_set = root.materials.iter().any(|m| {
                m.pbr_metallic_roughness
                    .base_color_texture
                    .as_ref()
                    .is_some_and(|t| t.tex_coord != 0)
            });
            let extensions = if root.extensions_used.is_empty() && !other_set {
                Extensions::default()
            } else {
                Extensions::read(serde_json::from_str(json))?
            };
            finish(root, extensions, Vec::new())
        });
    let first = match strict {
        Ok(parsed) => return Ok(parsed),
        // Refusals of what the document means (a bad index, a required
        // extension) stand; only what normalising can mend is read again.
        Err(e) if e.code() != Code::GltfInvalid.code() => return Err(e),
        Err(e) => e,
    };
    let Ok(mut value) = serde_json::from_str::<Value>(json) else {
        return Err(first);
    };
    let mut notes = Vec::new();
    normalise(&mut value, &mut notes);
    let Ok(root) = gltf_json::Root::deserialize(&value) else {
        return Err(first);
    };
    let extensions = Extensions::read(Extensions::deserialize(&value))?;
    match finish(root, extensions, notes) {
        Err(e) if e.code() == Code::GltfInvalid.code() => Err(first),
        other => other,
    }
}

/// Checks a parsed document and builds it.
fn finish(
    mut root: gltf_json::Root,
    extensions: Extensions,
    mut notes: Vec<Note>,
) -> Result<Parsed> {
    check_what_gltf_json_skips(&root)?;
    super::unused::ignore(&mut root, &extensions, &mut notes);
    check_required(&root)?;
    validate(&root)?;
    note_ignored(&root, &extensions, &mut notes);
    Ok(Parsed {
        doc: gltf::Document::from_json_without_validation(root),
        extensions,
        notes,
    })
}

/// `gltf-json`'s validation, less the points where it is stricter than the
/// specification: an accessor without `bufferView` (zeros), a primitive
/// without `POSITION` (it draws nothing), and an
/// `extensionsRequired` entry it does not know (checked by [`check_required`]).
fn validate(root: &gltf_json::Root) -> Result<()> {
    use gltf_json::validation::{Error as V, Validate};
    let mut errors = Vec::new();
    root.validate(root, gltf_json::Path::new, &mut |path, error| {
        let path = path();
        let p = path.as_str();
        let lenient = match error {
            V::Missing => {
                (p.starts_with("accessors[") && p.ends_with("].bufferView"))
                    // A primitive without positions draws nothing (a
                    // validator warning): left out with a note (mesh.rs).
                    || (p.starts_with("meshes[") && p.ends_with(".attributes[\"POSITION\"]"))
            }
            V::Unsupported => p.starts_with("extensionsRequired["),
            _ => false,
        };
        if !lenient {
            errors.push((path, error));
        }
    });
    if errors.is_empty() {
        return Ok(());
    }
    Err(invalid(
        Code::GltfInvalid.code(),
        format!(
            "not a valid glTF document: {}",
            gltf::Error::Validation(errors)
        ),
    ))
}

/// An `extensionsRequired` entry the importer cannot honour is refused by name.
fn check_required(root: &gltf_json::Root) -> Result<()> {
    for (i, name) in root.extensions_required.iter().enumerate() {
        let honoured = HONOURED.contains(&name.as_str()) || name.starts_with("KHR_materials_");
        if honoured {
            continue;
        }
        return Err(Error::new(
            ErrorKind::Unsupported,
            Code::GltfExtensionRequired.code(),
            format!("/extensionsRequired/{i}: the file requires {name}: the importer does not know it, and a file that requires it cannot be read without it"),
        ));
    }
    Ok(())
}

/// One note per extension the importer leaves out (cameras are noted by the
/// generic path, which leaves them out).
fn note_ignored(root: &gltf_json::Root, extensions: &Extensions, notes: &mut Vec<Note>) {
    for name in &root.extensions_used {
        let what = if name == "KHR_materials_pbrSpecularGlossiness" {
            "the diffuse texture and factor were read as the base colour; specular and glossiness are not kept (MSH materials are the game's)"
        } else if name.starts_with("KHR_materials_") && name != "KHR_materials_variants" {
            "material properties beyond the base colour are not kept (MSH materials are the game's)"
        } else if name == "KHR_materials_variants" {
            "only the default material of each primitive is imported"
        } else if name == "KHR_lights_punctual" {
            "lights are not part of an MSH model"
        } else if name == "KHR_texture_basisu" {
            "KTX2 (Basis Universal) images are not decoded"
        } else {
            continue;
        };
        notes.push((
            Code::ImportExtensionIgnored.code(),
            format!("{name}: {what}"),
        ));
    }
    if extensions.transforms_baked() {
        notes.push((
            Code::ImportTextureTransformBaked.code(),
            "KHR_texture_transform of the base colour textures was baked into the texture coordinates".to_string(),
        ));
    }
}

/// The references gltf-json's validation does not check (or checks only after
/// indexing with them), which the `gltf` crate's accessors would index or
/// unwrap unchecked: refused here, before the document is built.
fn check_what_gltf_json_skips(root: &gltf_json::Root) -> Result<()> {
    // gltf-json's own validation indexes the POSITION accessor without a range
    // check (a panic on a bad index): check every attribute's accessor first.
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some(a) = prim
                .attributes
                .values()
                .find(|a| a.value() >= root.accessors.len())
            {
                return Err(invalid(
                    Code::GltfBadIndex.code(),
                    format!(
                        "meshes[{m}].primitives[{p}] names accessor {}, which does not exist",
                        a.value()
                    ),
                ));
            }
        }
    }
    // Nor does it look at animation channels (their target node and path); the
    // `gltf` accessors then index and unwrap them unchecked.
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let problem = if ch.target.node.value() >= root.nodes.len() {
                format!(
                    "targets node {}, which does not exist",
                    ch.target.node.value()
                )
            } else if ch.target.path == gltf_json::validation::Checked::Invalid {
                "targets an unknown property (path)".to_string()
            } else {
                continue;
            };
            return Err(invalid(
                Code::GltfBadIndex.code(),
                format!("animations[{a}].channels[{c}] {problem}"),
            ));
        }
    }
    // An image is a URI or a buffer view; the `gltf` crate unwraps the URI of
    // one that has neither.
    if let Some(i) = root
        .images
        .iter()
        .position(|im| im.uri.is_none() && im.buffer_view.is_none())
    {
        return Err(invalid(
            Code::GltfInvalid.code(),
            format!("/images/{i}: an image needs a uri or a bufferView"),
        ));
    }
    Ok(())
}

/// Rewrites what the specification allows and `gltf-json` refuses into what
/// both accept.
fn normalise(root: &mut Value, notes: &mut Vec<Note>) {
    integral_floats(root);
    let Some(obj) = root.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(scenes)) = obj.get_mut("scenes") {
        for scene in scenes.iter_mut().filter_map(Value::as_object_mut) {
            scene
                .entry("nodes")
                .or_insert_with(|| Value::Array(Vec::new()));
        }
    }
    let mut pointers = 0usize;
    if let Some(Value::Array(anims)) = obj.get_mut("animations") {
        for anim in anims.iter_mut() {
            if let Some(Value::Array(channels)) = anim.get_mut("channels") {
                let before = channels.len();
                channels.retain(|c| c.get("target").is_none_or(|t| t.get("node").is_some()));
                pointers += before - channels.len();
            }
        }
    }
    if pointers > 0 {
        notes.push((
            Code::ImportChannelIgnored.code(),
            format!("{pointers} animation channel(s) target no node (KHR_animation_pointer): they were left out"),
        ));
    }
    textures_without_source(obj, notes);
}

/// Integral numbers written as floats become integers, except inside `extras`
/// (application data, read as written).
fn integral_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                *v = if f >= 0.0 {
                    Value::from(f as u64)
                } else {
                    Value::from(f as i64)
                };
            }
        }
        Value::Array(items) => items.iter_mut().for_each(integral_floats),
        Value::Object(map) => map
            .iter_mut()
            .filter(|(k, _)| k.as_str() != "extras")
            .for_each(|(_, v)| integral_floats(v)),
        _ => {}
    }
}

/// A texture without `source` takes its image from an image extension; one
/// with no image at all is given an empty placeholder image (so the document
/// holds together) and the materials' core slots stop naming it.
fn textures_without_source(obj: &mut serde_json::Map<String, Value>, notes: &mut Vec<Note>) {
    let image_count = obj
        .get("images")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let mut imageless = Vec::new();
    if let Some(Value::Array(textures)) = obj.get_mut("textures") {
        for (t, tex) in textures.iter_mut().enumerate() {
            let Some(tex) = tex.as_object_mut() else {
                continue;
            };
            if tex.contains_key("source") {
                continue;
            }
            let from_extension = IMAGE_EXTENSIONS.iter().find_map(|name| {
                let source = tex.get("extensions")?.get(*name)?.get("source")?;
                source
                    .as_u64()
                    .filter(|&s| (s as usize) < image_count)
                    .map(|s| (*name, s))
            });
            match from_extension {
                Some((_, s)) => {
                    tex.insert("source".into(), Value::from(s));
                }
                None => imageless.push(t),
            }
        }
    }
    if imageless.is_empty() {
        return;
    }
    let placeholder = image_count;
    let images = obj
        .entry("images")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Some(images) = images.as_array_mut() {
        images.push(
            serde_json::json!({"uri": "data:image/png;base64,", "name": "mshconv: no image"}),
        );
    }
    if let Some(Value::Array(textures)) = obj.get_mut("textures") {
        for &t in &imageless {
            if let Some(tex) = textures.get_mut(t).and_then(Value::as_object_mut) {
                tex.insert("source".into(), Value::from(placeholder));
            }
        }
    }
    if let Some(Value::Array(materials)) = obj.get_mut("materials") {
        for material in materials.iter_mut() {
            forget_textures(material, &imageless);
        }
    }
    notes.push((
        Code::ImportTextureWithoutImage.code(),
        format!(
            "texture(s) {imageless:?} have no image (no source, no image extension): materials use no texture there"
        ),
    ));
}

/// Removes a material's core texture slots that name one of `textures`.
fn forget_textures(material: &mut Value, textures: &[usize]) {
    let names = |info: &Value| {
        info.get("index")
            .and_then(Value::as_u64)
            .is_some_and(|i| textures.contains(&(i as usize)))
    };
    for (parent, slot) in [
        (None, "normalTexture"),
        (None, "occlusionTexture"),
        (None, "emissiveTexture"),
        (Some("pbrMetallicRoughness"), "baseColorTexture"),
        (Some("pbrMetallicRoughness"), "metallicRoughnessTexture"),
    ] {
        let holder = match parent {
            Some(p) => material.get_mut(p),
            None => Some(&mut *material),
        };
        if let Some(holder) = holder.and_then(Value::as_object_mut) {
            if holder.get(slot).is_some_and(names) {
                holder.remove(slot);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Parsed> {
        document(json)
    }

    const BASE: &str = r#""asset":{"version":"2.0"}"#;

    #[test]
    fn floats_where_integers_belong_are_read() {
        let json = format!(
            r#"{{{BASE},"scene":0.0,"scenes":[{{"nodes":[0.0]}}],"nodes":[{{"name":"a","extras":{{"k":1.0}}}}]}}"#
        );
        let p = parse(&json).unwrap();
        assert_eq!(p.doc.scenes().next().unwrap().nodes().count(), 1);
        // Extras stay as written.
        let extras = p.doc.nodes().next().unwrap().extras().as_ref().unwrap();
        assert_eq!(extras.get(), r#"{"k":1.0}"#);
        // A fractional count is not an integer.
        let json = format!(r#"{{{BASE},"scenes":[{{"nodes":[0.5]}}],"nodes":[{{}}]}}"#);
        assert_eq!(parse(&json).err().unwrap().code(), "gltf.invalid");
    }

    #[test]
    fn scene_without_nodes_and_pointer_channels() {
        let json = format!(
            r#"{{{BASE},"scenes":[{{}}],"nodes":[{{}}],"accessors":[],
            "animations":[{{"channels":[{{"sampler":0,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/nodes/0/translation"}}}}}}}}],"samplers":[]}}]}}"#
        );
        let p = parse(&json).unwrap();
        assert_eq!(p.doc.scenes().next().unwrap().nodes().count(), 0);
        assert_eq!(p.doc.animations().next().unwrap().channels().count(), 0);
        assert!(p.notes.iter().any(|n| n.0 == "import.channel_ignored"));
    }

    #[test]
    fn textures_take_extension_images_or_none() {
        let json = format!(
            r#"{{{BASE},"images":[{{"uri":"a.webp"}}],
            "textures":[{{"extensions":{{"EXT_texture_webp":{{"source":0}}}}}},{{}}],
            "materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":1}}}},"normalTexture":{{"index":0}}}}]}}"#
        );
        let p = parse(&json).unwrap();
        let t: Vec<_> = p.doc.textures().map(|t| t.source().index()).collect();
        assert_eq!(t, [0, 1]);
        let m = p.doc.materials().next().unwrap();
        assert!(m.pbr_metallic_roughness().base_color_texture().is_none());
        assert_eq!(m.normal_texture().unwrap().texture().index(), 0);
        assert!(p
            .notes
            .iter()
            .any(|n| n.0 == "import.texture_without_image"));
    }

    #[test]
    fn required_extensions_are_honoured_or_refused_by_name() {
        for (name, ok) in [
            ("KHR_mesh_quantization", true),
            ("KHR_materials_clearcoat", true),
            ("KHR_draco_mesh_compression", true),
            ("EXT_mesh_gpu_instancing", true),
            ("EXT_unknown_thing", false),
        ] {
            let json = format!(
                r#"{{{BASE},"extensionsUsed":["{name}"],"extensionsRequired":["{name}"]}}"#
            );
            match parse(&json) {
                Ok(_) => assert!(ok, "{name}"),
                Err(e) => {
                    assert!(!ok, "{name}");
                    assert_eq!(e.code(), "gltf.extension_required");
                    assert!(e.to_string().contains(name));
                }
            }
        }
    }

    #[test]
    fn broken_documents_keep_their_first_error() {
        for json in [
            "[]",
            "{",
            r#"{"asset":{"version":"2.0"},"nodes":[{"children":[5]}]}"#,
        ] {
            assert_eq!(parse(json).err().unwrap().code(), "gltf.invalid", "{json}");
        }
    }
}
