//! # mshconv_obj: MSH <-> Wavefront OBJ (+ MTL)
//!
//! See `docs/OBJ.md` for the mapping; in short:
//!
//! - export: one LOD/group, every node's geometry posed by its rest pose
//!   through the hierarchy (world space), one `o` per node with geometry, named
//!   as the glTF export names nodes ([`mshconv_convert::names`]), `usemtl mat<k>`
//!   per MSH material index, `v`/`vt`/`vn` and triangles `f v/vt/vn`, and an
//!   `.mtl` with one `newmtl mat<k>` per used index;
//! - import: each `o` (or each `g` when the file has no `o`) becomes a root
//!   node with identity rest pose holding LOD0/group0 geometry, `usemtl mat<k>`
//!   is material `k`, other material names get free indices, polygons are
//!   triangulated, and [`crate::assemble`] builds the MSH.
//!
//! Both directions are written by hand: `docs/OBJ.md` has the measurements that
//! ruled out the `obj-exporter` and `tobj` crates.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(test)]
mod bench;
mod export;
mod import;
pub mod look;
pub mod plugin;
mod triangulate;

pub use export::{export, export_view, export_with_look};
pub use import::{import, to_scene};
pub use plugin::{mtllib_name, Plugin};

// The core's modules, under the names they had when this crate was a module of it.
use mshconv_convert::{
    assemble, axes, codes, error, imported_look, names, options, raster, repeats, report, scene,
    Resolver,
};

use crate::options::{Axis, BadOption, Rotation};
use mshconv_convert::Report;

/// The two files of an OBJ export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjFiles {
    /// The `.obj` text (UTF-8, `\n` line ends).
    pub obj: Vec<u8>,
    /// The `.mtl` text the `.obj` names in its `mtllib` line.
    pub mtl: Vec<u8>,
    /// The file name written in `mtllib` (save `mtl` under this name beside the `.obj`).
    pub mtl_name: String,
}

/// Options of the MSH -> OBJ export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjExportOptions {
    /// LOD written (0..=2, default 0). OBJ holds one LOD/group; the others are not written.
    pub lod: u8,
    /// Group written (0..=4, default 0).
    pub group: u8,
    /// Up axis of the output (default Y up, as Blender's OBJ importer expects
    /// with its defaults: -Z forward, Y up).
    pub axis: Axis,
    /// How a stored rotation turns a node when the rest pose is applied
    /// (default: conjugate, FORMAT.md's reading).
    pub rotation: Rotation,
    /// File name written in the `mtllib` line (default `model.mtl`).
    pub mtl_name: String,
}

impl Default for ObjExportOptions {
    fn default() -> Self {
        ObjExportOptions {
            lod: 0,
            group: 0,
            axis: Axis::YUp,
            rotation: Rotation::Conjugate,
            mtl_name: "model.mtl".to_string(),
        }
    }
}

impl ObjExportOptions {
    /// Checks ranges: lod 0..=2, group 0..=4, an `mtl_name` that is a plain file
    /// name on one line (no folders: callers may save the MTL under it).
    pub fn check(&self) -> Result<(), BadOption> {
        options::check_lod_group(self.lod, self.group)?;
        let name = &self.mtl_name;
        if name.trim().is_empty()
            || name.trim() != name
            || name
                .chars()
                .any(|c| c.is_control() || c == '/' || c == '\\')
            || name == ".."
        {
            return Err(BadOption(format!(
                "the MTL file name must be a plain file name (no folders, control characters or surrounding spaces), not {name:?}"
            )));
        }
        Ok(())
    }
}

/// Options of the OBJ -> MSH import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ObjImportOptions {
    /// Up axis of the OBJ file (default Y up: what Blender writes with its
    /// default settings, -Z forward and Y up). It is undone exactly.
    pub axis: Axis,
}

pub(crate) use mshconv_convert::palette::material_colour;

/// Converts MSH bytes to a Wavefront OBJ and its MTL: the LOD/group chosen in
/// `options`, posed by the rest pose through the hierarchy (world space). The
/// input must pass strict validation; legacy-node and terrain models are
/// `Unsupported`. See `docs/OBJ.md`.
pub fn msh_to_obj(
    msh: &[u8],
    options: &ObjExportOptions,
) -> mshconv_convert::Result<(ObjFiles, Report)> {
    export(msh, options)
}

/// Converts a Wavefront OBJ (and its MTL, if given; it is never looked up by
/// the name in `mtllib`) to MSH bytes: each object becomes a root node with its
/// geometry at LOD 0 group 0. See `docs/OBJ.md`.
pub fn obj_to_msh(
    obj: &[u8],
    mtl: Option<&[u8]>,
    options: &ObjImportOptions,
) -> mshconv_convert::Result<(Vec<u8>, Report)> {
    import(obj, mtl, options)
}

/// [`obj_to_msh`] and the look the `.mtl` brings back ([`look::read_look`]:
/// each `newmtl mat<k>`'s texture, its images from `resolver`; the notes of
/// reading it in `look.notes`); without an `.mtl`, an empty look.
pub fn import_with_look(
    obj: &[u8],
    mtl: Option<&[u8]>,
    options: &ObjImportOptions,
    resolver: Resolver<'_>,
) -> mshconv_convert::Result<mshconv_convert::Imported> {
    let (msh, report) = obj_to_msh(obj, mtl, options)?;
    let mut look = imported_look::ImportedLook::default();
    if let Some(mtl) = mtl {
        let mut notes = Report::default();
        look = look::read_look(mtl, resolver, &mut notes)?;
        notes.notes.append(&mut look.notes);
        look.notes = notes.notes;
    }
    Ok(mshconv_convert::Imported {
        msh,
        clips: None,
        look: Some(look),
        report,
    })
}
