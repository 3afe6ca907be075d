//! Terrain models come back from the extras alone: every table travels raw
//! there (the meshes only show them), so the model is rebuilt byte for byte
//! whatever the import options say. That needs an unedited export: the
//! recorded accessors and buffer length must hold, and the meshes and nodes
//! must be the ones the exporter writes for the rebuilt model (positions,
//! normals, UVs, indices, materials, placement). Anything else is refused with
//! `import.terrain_edited`: turning edited geometry back into Res21/Res11/Res14
//! is not supported (those tables are only partly understood). A file written
//! before terrain geometry was shown (no meshes) has nothing to compare.

use super::read::{self, Source};
use super::{lossless, Resolved};
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::export_options::{ExportOptions, GltfFormat};
use crate::extras::ModelExtras;

fn refuse(why: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::Unsupported,
        Code::ImportTerrainEdited.code(),
        format!(
            "this terrain model's glTF {why}; importing a terrain from edited geometry is not supported (its Res21/Res11/Res14 tables come back only from an unedited mshconv export)"
        ),
    )
}

/// The MSH bytes of the terrain model an unedited export of it records.
/// `input_len` is the file's size (it bounds the original it may carry),
/// `given` the original the import was given, if any.
pub(super) fn rebuild(
    src: &Source<'_>,
    extras: &ModelExtras,
    (input_len, given): (usize, Option<&[u8]>),
) -> Result<Vec<u8>> {
    let options = ExportOptions {
        lod: extras.options.lod,
        group: extras.options.group,
        fps: extras.options.fps,
        axis: extras.options.axis.axis().unwrap_or_default(),
        rotation: extras.options.rotation.rotation().unwrap_or_default(),
        format: GltfFormat::Glb,
        name: src
            .doc
            .scenes()
            .next()
            .and_then(|s| s.name().map(str::to_string))
            .unwrap_or_else(|| ExportOptions::default().name),
        clips: None,
        embed_original: false,
    };
    let resolved = Resolved {
        fps: options.fps,
        axis: options.axis,
        rotation: options.rotation,
    };
    let model = match lossless::rebuild(src, extras, &resolved)? {
        Ok(model) => model,
        // Another tool (Blender) rebuilt the buffers: unedited, it still shows
        // what the original's export shows.
        Err(why) => {
            return match super::recognise::terrain(src, extras, &options, (input_len, given))? {
                Ok(bytes) => Ok(bytes),
                Err(None) => Err(refuse(format_args!("was changed: {why}"))),
                Err(Some((code, _))) => Err(refuse(format_args!(
                    "was rewritten by another tool ({why}) and the model it was exported from is not at hand ({}: write it over that model, or give it with --original FILE / original=)",
                    code.code()
                ))),
            }
        }
    };
    let bytes = model.to_bytes()?;
    if let Err(e) = msh::open(&bytes, msh::Mode::Strict) {
        return Err(refuse(format_args!(
            "records tables that do not form a valid model ({})",
            e.code()
        )));
    }
    if src.doc.meshes().len() > 0 {
        let (glb, _) = crate::export::export(&bytes, &options)?;
        let expected = read::parse(&glb, &|_| None)?;
        if let Some(why) = difference(src, &expected)? {
            return Err(refuse(format_args!("was changed: {why}")));
        }
    }
    Ok(bytes)
}

/// The first way `src` differs from `expected` in what the terrain export
/// shows (meshes, materials, nodes), if any.
fn difference(src: &Source<'_>, expected: &Source<'_>) -> Result<Option<String>> {
    let (a, b) = (&src.doc, &expected.doc);
    if a.meshes().len() != b.meshes().len() || a.nodes().len() != b.nodes().len() {
        return Ok(Some(format!(
            "{} meshes and {} nodes where the export wrote {} and {}",
            a.meshes().len(),
            a.nodes().len(),
            b.meshes().len(),
            b.nodes().len()
        )));
    }
    for (ma, mb) in a.meshes().zip(b.meshes()) {
        let changed = || Ok(Some(format!("mesh {} differs", ma.index())));
        if ma.primitives().len() != mb.primitives().len() {
            return changed();
        }
        for (pa, pb) in ma.primitives().zip(mb.primitives()) {
            if pa.material().name() != pb.material().name()
                || pa.mode() != pb.mode()
                || pa.attributes().len() != pb.attributes().len()
            {
                return changed();
            }
            for (semantic, xb) in pb.attributes() {
                let Some(xa) = pa.get(&semantic) else {
                    return changed();
                };
                if src.raw(&xa)? != expected.raw(&xb)? {
                    return changed();
                }
            }
            match (pa.indices(), pb.indices()) {
                (Some(ia), Some(ib)) if src.indices(&ia)? == expected.indices(&ib)? => {}
                _ => return changed(),
            }
        }
    }
    for (na, nb) in a.nodes().zip(b.nodes()) {
        let children = |n: &gltf::Node<'_>| n.children().map(|c| c.index()).collect::<Vec<_>>();
        if na.mesh().map(|m| m.index()) != nb.mesh().map(|m| m.index())
            || children(&na) != children(&nb)
            || na.transform().decomposed() != nb.transform().decomposed()
        {
            return Ok(Some(format!("node {} differs", na.index())));
        }
    }
    Ok(None)
}
