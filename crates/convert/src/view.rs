//! The export view: one model opened and validated once, with what every
//! export reads of it the same way, and what every export returns.
//!
//! The application layer builds one [`ExportView`] per conversion from MSH
//! and hands it to the chosen format's `export(&view, &options)`; the notes
//! of the game's look are derived from the same view
//! ([`ExportView::materials_drawn`]), so nothing opens the model twice.

use crate::error::Result;
use crate::geometry;
use crate::look::{Look, SideFiles};
use crate::report::Report;
use msh::anim::{Pose, SampleError};
use msh::ModelRef;
use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::rc::Rc;

/// A model as every export sees it, built once by [`ExportView::new`].
pub struct ExportView<'m> {
    /// The MSH file's bytes (the glTF export carries them for the way back).
    pub bytes: &'m [u8],
    /// The opened model: its container (for the container's facts) and its
    /// typed tables, validated strictly.
    pub opened: msh::Opened<'m>,
    /// Res6 in native order, read once (shared with the exporters' meshes).
    pub indices: Rc<[u16]>,
    /// Whether the triangles wind clockwise seen from their normals' side
    /// ([`geometry::clockwise`]): every export then writes them reversed.
    pub clockwise: bool,
    /// Whether Res15 is shown as a second UV set ([`geometry::stream15_is_uv`]).
    pub stream15_uv: bool,
    /// Every MSH material index a batch draws with, sorted.
    pub materials_drawn: BTreeSet<u16>,
    /// The game's look, when the export is given one, and the stem of its
    /// side image files (`{image_stem}_{texture}.png`).
    pub look: Option<(&'m Look, &'m str)>,
    /// Every node's rest pose, read once when an export first asks
    /// ([`ExportView::rest_poses`]).
    rest: OnceCell<std::result::Result<Rc<[Pose]>, SampleError>>,
}

impl<'m> ExportView<'m> {
    /// Opens `bytes` strictly (a model that fails validation is refused with
    /// the validator's code) and reads what every export shares.
    pub fn new(bytes: &'m [u8]) -> Result<Self> {
        let opened = msh::open(bytes, msh::Mode::Strict)?;
        let view = &opened.view;
        let indices: Rc<[u16]> = view.indices.iter().map(|i| i.get()).collect();
        let clockwise = geometry::clockwise(view, &indices);
        let stream15_uv = view.stream15.is_some_and(geometry::stream15_is_uv);
        let materials_drawn = view
            .batches
            .iter()
            .map(|b| b.material_index.get())
            .collect();
        Ok(ExportView {
            bytes,
            opened,
            indices,
            clockwise,
            stream15_uv,
            materials_drawn,
            look: None,
            rest: OnceCell::new(),
        })
    }

    /// The view with the game's look (an empty look exports as none).
    pub fn with_look(mut self, look: &'m Look, image_stem: &'m str) -> Self {
        self.look = Some((look, image_stem));
        self
    }

    /// The model's typed tables.
    pub fn model(&self) -> &ModelRef<'m> {
        &self.opened.view
    }

    /// Every node's rest pose, in node order: its fallback key, what the
    /// game shows when it does not animate ([`msh::pose::rest_poses`]); read
    /// from the model once, whichever exports ask. A legacy node table has
    /// no decoded nodes, and no rest poses.
    pub fn rest_poses(&self) -> Result<Rc<[Pose]>> {
        let rest = self
            .rest
            .get_or_init(|| msh::pose::rest_poses(self.model()).map(Rc::from));
        Ok(rest.clone().map_err(msh::Error::from)?)
    }
}

/// What an export makes: the main file, the files it names (an `.obj`'s
/// `.mtl`, PNG textures), and its report.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    /// The main file's bytes.
    pub main: Vec<u8>,
    /// `(file name, bytes)` of each file beside it, in the order the main
    /// file names them.
    pub side: SideFiles,
    /// What the export approximated or decided.
    pub report: Report,
}

/// What an import makes of a file, from one parse: the model, the clip list
/// its animations recorded, the look it brings back (when asked for), and
/// its report.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The MSH file.
    pub msh: Vec<u8>,
    /// The clips the animations became on the MSH timeline (glTF), to be
    /// written beside the model.
    pub clips: Option<crate::ClipList>,
    /// The look the file brings back, by MSH material index (the notes of
    /// reading it in its `notes`).
    pub look: Option<crate::imported_look::ImportedLook>,
    /// What the import approximated or decided.
    pub report: Report,
}
