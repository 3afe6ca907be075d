//! The game's look in the service (docs/MATERIALS.md, "The service and the
//! web page"): the game folder of `--game-dir` ([`crate::AppState::game`])
//! and the upload's multipart fields `wear`, `materials` and `textures`
//! ([`LookFields`]) become the resources of an MSH -> glTF/GLB/OBJ/USDA export
//! ([`game`], [`location`]).
//!
//! - Without a game folder and without a field, nothing changes: the export
//!   is byte for byte what it was.
//! - A library given in the upload is used instead of the folder's (or
//!   without one); one not given is the folder's, whose decoded textures are
//!   shared by every request ([`GameDir::given`]).
//! - The model's WEAR is the field `wear`, else (a model inside an uploaded
//!   `.rlb`) the archive's `.WEA` sibling entry. A single uploaded `.msh` has
//!   no sibling: without `wear` it is exported untextured, with the note
//!   `game.no_wear`.
//! - A damaged field is a note (`game.bad_wear`, `game.bad_material_lib`,
//!   `game.bad_textures_lib`, ...), as a damaged file is in the CLI: the
//!   export goes on without what it lacks.

use crate::codes::ServerCode;
use crate::error::ApiError;
use bytes::Bytes;
use mshconv_app::game::{wear_name, wear_sibling, GivenLibraries, LibraryBytes};
use mshconv_app::{Format, GameDir, ModelLocation};
use std::sync::Arc;

/// The multipart fields of the look, in the order [`LookFields::from_parts`] takes them.
pub const FIELDS: [&str; 3] = ["wear", "materials", "textures"];

/// The upload's look: the multipart fields `wear` (a WEAR text),
/// `materials` (a `Material.lib`) and `textures` (a `Textures.lib`).
#[derive(Debug, Clone, Default)]
pub struct LookFields {
    /// The WEAR and the file name its part gave.
    pub wear: Option<(Bytes, Option<String>)>,
    /// The `Material.lib`.
    pub materials: Option<Bytes>,
    /// The `Textures.lib`.
    pub textures: Option<Bytes>,
}

/// A multipart field read: its bytes and the file name its part gave.
type Part = Option<(Bytes, Option<String>)>;

impl LookFields {
    /// The fields from the parts named [`FIELDS`], in that order.
    pub fn from_parts([wear, materials, textures]: [Part; 3]) -> Self {
        LookFields {
            wear,
            materials: materials.map(|(b, _)| b),
            textures: textures.map(|(b, _)| b),
        }
    }

    /// True when no field was given.
    pub fn is_empty(&self) -> bool {
        self.wear.is_none() && self.materials.is_none() && self.textures.is_none()
    }

    /// Refuses the fields on a conversion they cannot change (400
    /// `request.multipart`): they give an MSH model's look to its glTF, GLB
    /// or OBJ export, and nothing else. With `one_model` false (every model of
    /// an archive) a `wear` is refused too: each model has its own.
    pub fn check_applies(&self, from: Format, to: Format, one_model: bool) -> Result<(), ApiError> {
        if self.is_empty() {
            return Ok(());
        }
        if !from.takes_look(to) {
            let exports = mshconv_app::FORMATS
                .iter()
                .filter(|row| row.takes_look)
                .map(|row| row.format);
            return Err(ApiError::bad_request(
                ServerCode::RequestMultipart,
                format!(
                    "the fields wear, materials and textures give an MSH model's look to its {} export; this conversion is {} -> {}",
                    Format::names_text(exports),
                    from.name(),
                    to.name()
                ),
            ));
        }
        if !one_model && self.wear.is_some() {
            return Err(ApiError::bad_request(
                ServerCode::RequestMultipart,
                "the field `wear` is one model's WEAR: each model of an archive gets its .WEA sibling entry",
            ));
        }
        Ok(())
    }
}

/// The game of one conversion: `None` (the export as always) without a game
/// folder and without a field; the folder's shared state when no library is
/// given; else the given libraries over the folder's ([`GameDir::given`]).
pub fn game(folder: Option<Arc<GameDir>>, fields: &LookFields) -> Option<Arc<GameDir>> {
    let no_library = fields.materials.is_none() && fields.textures.is_none();
    if no_library && (folder.is_some() || fields.wear.is_none()) {
        return folder;
    }
    // The upload's buffers, shared: a 58 MiB Textures.lib is not copied.
    let libraries = GivenLibraries {
        material: fields.materials.clone().map(LibraryBytes::new),
        textures: fields.textures.clone().map(LibraryBytes::new),
    };
    Some(GameDir::given(libraries, folder))
}

/// Where the look finds the WEAR of the model named `model`: the field
/// `wear` (named by its part's file name, else `{model}.wea`), else the
/// sibling entry of `entry` in the uploaded `archive` (parsed once per
/// request by the caller, not once per model).
pub fn location(
    fields: &LookFields,
    model: &str,
    archive: Option<(&nres::Archive<'_>, &str)>,
) -> ModelLocation {
    let wear = match &fields.wear {
        Some((bytes, file_name)) => {
            let name = file_name
                .as_deref()
                .and_then(|f| f.rsplit(['/', '\\']).next())
                .filter(|f| !f.is_empty())
                .map_or_else(|| wear_name(&format!("{model}.msh")), str::to_string);
            Some((name, bytes.to_vec()))
        }
        None => archive.and_then(|(parsed, entry)| wear_sibling(parsed, entry)),
    };
    ModelLocation::Given {
        model: archive.map_or_else(|| model.to_string(), |(_, entry)| entry.to_string()),
        wear,
    }
}
