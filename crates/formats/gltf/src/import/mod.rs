//! glTF 2.0 / GLB -> MSH.
//!
//! Files this exporter wrote (`scenes[0].extras.msh.format` is `mshconv/1`)
//! whose structure is intact are rebuilt exactly (`lossless.rs`): every table
//! comes from the glTF content, what glTF cannot hold from the extras, so an
//! unedited file gives the original bytes back and an edit made in glTF is an
//! edit in the MSH. Everything else (Blender exports with changed topology,
//! foreign assets) goes through `generic.rs` and the shared assembler.
//! Terrain models come back only from an unedited export (`terrain.rs`).

mod clips;
mod dense;
pub mod draco;
mod extensions;
mod generic;
mod lenient;
pub mod limits;
mod linear;
pub mod look;
mod lossless;
mod mesh;
pub mod meshopt;
pub(crate) mod read;
mod recognise;
mod skin;
mod terrain;
mod unused;

pub use read::Resolver;

use super::extras::{self as ex, ModelExtras};
use crate::assemble::AssembleOptions;
use crate::codes::Code;
use crate::error::Result;
use crate::options::{Axis, Rotation};
use crate::report::Report;
use mshconv_convert::view::Imported;

pub use mshconv_convert::plugin::AnimationChoice;

/// Options of the glTF -> MSH import. `None` means: what the file records
/// (`scenes[0].extras.msh.options`), else the export defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ImportOptions {
    /// Game frames per second of the glTF timeline.
    pub fps: Option<f32>,
    /// Up axis of the glTF file.
    pub axis: Option<Axis>,
    /// Rotation reading to undo.
    pub rotation: Option<Rotation>,
    /// Which animation(s) to take.
    pub animation: AnimationChoice,
    /// Key reduction tolerances.
    pub assemble: AssembleOptions,
    /// The model the file was exported from, when at hand: a file another
    /// tool rewrote is recognised against it when the file records its
    /// fingerprint (`extras.msh.original_fingerprint`) and not the file
    /// itself (docs/GLTF.md, "The original").
    pub original: Option<mshconv_convert::Original>,
}

/// The options in force after the file's recorded ones are applied.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Resolved {
    pub fps: f32,
    pub axis: Axis,
    pub rotation: Rotation,
}

impl Resolved {
    /// The options of the export that wrote a file with these `extras` (its
    /// shown LOD and group, this timeline and frame), as a GLB with `clips`.
    pub fn export_options(
        &self,
        extras: &ModelExtras,
        clips: Option<mshconv_convert::ClipList>,
    ) -> crate::ExportOptions {
        crate::ExportOptions {
            lod: extras.options.lod,
            group: extras.options.group,
            fps: self.fps,
            axis: self.axis,
            rotation: self.rotation,
            format: crate::GltfFormat::Glb,
            name: crate::ExportOptions::default().name,
            clips,
            embed_original: false,
        }
    }
}

/// Converts glTF or GLB bytes to MSH bytes. `resolver` provides side-car
/// buffer files by plain file name (return `None` to refuse them).
pub fn import(
    bytes: &[u8],
    options: &ImportOptions,
    resolver: Resolver<'_>,
) -> Result<(Vec<u8>, Report)> {
    import_with_clips(bytes, options, resolver).map(|(msh, _, report)| (msh, report))
}

/// [`import`], and the clips the animations became on the MSH timeline
/// (docs/GLTF.md, "Clips"): the clips an export with `--clips` recorded, at
/// their frames; else, when there are two or more, the animations as laid
/// end to end; `None` for a single animation or none. The report lists them
/// (`import.clip_list`).
pub fn import_with_clips(
    bytes: &[u8],
    options: &ImportOptions,
    resolver: Resolver<'_>,
) -> Result<(Vec<u8>, Option<mshconv_convert::ClipList>, Report)> {
    let (msh, laid, report) = import_model(bytes, options, resolver)?;
    with_clips(msh, laid, report)
}

/// [`import_with_clips`] and the look ([`look::read_look`]) from one parse of
/// the document: the model, its clip list, its look (the notes of reading
/// it in `look.notes`) and the import's report.
pub fn import_with_look(
    bytes: &[u8],
    options: &ImportOptions,
    resolver: Resolver<'_>,
) -> Result<Imported> {
    let source = read::parse(bytes, resolver)?;
    let (msh, laid, report) = import_source(&source, bytes.len(), options)?;
    let (msh, clips, report) = with_clips(msh, laid, report)?;
    let look = look::look_of(&source, resolver)?;
    Ok(Imported {
        msh,
        clips,
        look: Some(look),
        report,
    })
}

/// The clips the animations became, listed in the report.
fn with_clips(
    msh: Vec<u8>,
    laid: Laid,
    mut report: Report,
) -> Result<(Vec<u8>, Option<mshconv_convert::ClipList>, Report)> {
    let clips = (laid.clips.len() > 1 || laid.recorded)
        .then(|| mshconv_convert::ClipList::new(laid.clips))
        .transpose()?;
    if let Some(list) = &clips {
        report.note(
            Code::ImportClipList.code(),
            format!(
                "clips: {}",
                list.clips()
                    .iter()
                    .map(|c| format!("{} {}..{} {}", c.name, c.first, c.last, c.mode))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
    Ok((msh, clips, report))
}

/// Where the animations went on the MSH timeline.
#[derive(Debug, Default)]
pub(crate) struct Laid {
    /// The clips, in animation order.
    pub clips: Vec<mshconv_convert::Clip>,
    /// Whether they are the clips an export recorded, at their frames.
    pub recorded: bool,
}

/// The import, with where its animations went.
fn import_model(
    bytes: &[u8],
    options: &ImportOptions,
    resolver: Resolver<'_>,
) -> Result<(Vec<u8>, Laid, Report)> {
    import_source(&read::parse(bytes, resolver)?, bytes.len(), options)
}

/// The model of a parsed document (`file_len`: the file's size, which bounds
/// what its compressed data may decode to).
fn import_source(
    source: &read::Source<'_>,
    file_len: usize,
    options: &ImportOptions,
) -> Result<(Vec<u8>, Laid, Report)> {
    let recorded: Option<ModelExtras> = source
        .doc
        .scenes()
        .next()
        .and_then(|s| super::extras::unwrap(s.extras()));
    let recorded = recorded.filter(|m| m.format == ex::Format::V1);
    let resolved = Resolved {
        fps: options
            .fps
            .or(recorded.as_ref().map(|m| m.options.fps))
            .unwrap_or(24.0),
        axis: options
            .axis
            .or_else(|| recorded.as_ref().and_then(|m| m.options.axis.axis()))
            .unwrap_or_default(),
        rotation: options
            .rotation
            .or_else(|| {
                recorded
                    .as_ref()
                    .and_then(|m| m.options.rotation.rotation())
            })
            .unwrap_or_default(),
    };
    if !(resolved.fps.is_finite() && resolved.fps > 0.0 && resolved.fps <= 1000.0) {
        return Err(mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::BadOption,
            Code::OptionInvalid.code(),
            format!("fps {} is out of range", resolved.fps),
        ));
    }
    let mut report = Report::default();
    for (code, message) in &source.notes {
        report.note(code, message.clone());
    }
    if let Some(extras) = recorded.as_ref().filter(|m| m.kind == ex::Kind::Terrain) {
        // Every table is in the extras; the options do not apply.
        return Ok((
            terrain::rebuild(source, extras, (file_len, options.original.as_deref()))?,
            Laid::default(),
            report,
        ));
    }
    if let Some(extras) = &recorded {
        let same_frame = ex::UpAxis::from(resolved.axis) == extras.options.axis
            && ex::RotationReading::from(resolved.rotation) == extras.options.rotation
            && resolved.fps == extras.options.fps;
        if same_frame && options.animation == AnimationChoice::All {
            // The exact rebuild must prove itself: content that no longer fits the
            // recorded layout (edited, or damaged) falls through to the generic path.
            let rebuilt = lossless::rebuild(source, extras, &resolved)?.and_then(|model| {
                let bytes = model.to_bytes().map_err(|e| e.to_string())?;
                match msh::open(&bytes, msh::Mode::Strict) {
                    Ok(_) => Ok(bytes),
                    Err(e) => Err(format!(
                        "its content no longer fits the recorded layout ({})",
                        e.code()
                    )),
                }
            });
            // With clips: the clip animations must be unedited too.
            let rebuilt = match rebuilt {
                Ok(bytes) => {
                    clips::unedited(source, &bytes, extras, &resolved)?.map(|clips| (bytes, clips))
                }
                Err(why) => Err(why),
            };
            match rebuilt {
                Ok((bytes, clips)) => {
                    let laid = Laid {
                        recorded: clips.is_some(),
                        clips: clips.unwrap_or_default(),
                    };
                    return Ok((bytes, laid, report));
                }
                Err(why) => {
                    // Rewritten by another tool: the original it carries (or
                    // was given), part by part.
                    let no_original = match recognise::recognise(
                        source,
                        extras,
                        &resolved,
                        &options.assemble,
                        (file_len, options.original.as_deref()),
                    )? {
                        Ok(r) => {
                            report.notes.extend(r.report.notes);
                            check_valid(&r.msh)?;
                            return Ok((r.msh, r.laid, report));
                        }
                        Err(why) => why,
                    };
                    report.note(
                        Code::ImportRebuilt.code(),
                        format!("the file was written by mshconv but {why}; the model was rebuilt from its content"),
                    );
                    if let Some((code, message)) = no_original {
                        report.note(code.code(), message);
                    }
                }
            }
        }
    }
    if recorded.is_none() && looks_exported_without_extras(source) {
        report.note(
            Code::ImportCustomPropertiesMissing.code(),
            "the file looks like an mshconv export saved without Custom Properties (Blender's default glTF export drops them): \
             the model was rebuilt from its content, without the original node order, the unknown per-node, per-slot and per-batch fields, \
             the entry names and layout, the normals' fourth bytes, the triangle records' unknown fields, the original animation keys \
             and the resources glTF cannot hold (Res9, Res17, Res20, unknown types); \
             tick Include > Custom Properties in Blender's glTF export to get the original bytes back",
        );
    }
    let (scene, laid) = generic::scene(
        source,
        recorded.as_ref(),
        &resolved,
        &options.animation,
        &mut report,
    )?;
    let (model, assembled) = crate::assemble::assemble(&scene, &options.assemble)?;
    // Each stage is let go once the next is built: the peak holds two, not all.
    drop(scene);
    // The meshes without normals or UVs are noted by glTF mesh (mesh.rs),
    // not by the pieces the assembler made of them on every node.
    let counted_here = [
        Code::ImportNormalsComputed.code(),
        Code::ImportUvsZero.code(),
    ];
    let noted = |code: &str| counted_here.contains(&code) && report.has(code);
    let assembled: Vec<_> = assembled
        .notes
        .into_iter()
        .filter(|n| !noted(n.code))
        .collect();
    report.notes.extend(assembled);
    let bytes = model.to_bytes()?;
    drop(model);
    // The assembler builds valid models by construction; this holds it to that.
    check_valid(&bytes)?;
    Ok((bytes, laid, report))
}

/// Whether a file without the export's scene extras still has its slot
/// nodes (`<node>|L<lod>G<group>`) or slot meshes (`slot<k>`): an export
/// another tool saved without them.
fn looks_exported_without_extras(source: &read::Source<'_>) -> bool {
    let slot_mesh = |name: &str| {
        let name = super::names::strip_blender_suffix(name);
        name.strip_prefix("slot")
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
    };
    source
        .doc
        .nodes()
        .any(|n| n.name().and_then(super::names::slot_suffix).is_some())
        || source.doc.meshes().any(|m| m.name().is_some_and(slot_mesh))
}

/// Refuses a result that is not a valid model (`import.invalid_result`).
fn check_valid(bytes: &[u8]) -> Result<()> {
    match msh::open(bytes, msh::Mode::Strict) {
        Ok(_) => Ok(()),
        Err(e) => Err(mshconv_convert::Error::new(
            mshconv_convert::ErrorKind::InvalidInput,
            Code::ImportInvalidResult.code(),
            format!("the glTF could not be turned into a valid model: {e}"),
        )),
    }
}

/// The refusal of a file whose data uses `extension`, which this build leaves
/// out (the cargo feature `feature` of mshconv-gltf is off): the code of an
/// `extensionsRequired` entry the importer does not know.
#[cfg(not(all(feature = "draco", feature = "meshopt")))]
fn left_out(extension: &str, feature: &str) -> mshconv_convert::Error {
    mshconv_convert::Error::new(
        mshconv_convert::ErrorKind::Unsupported,
        Code::GltfExtensionRequired.code(),
        format!("the file uses {extension}: this build of the importer leaves it out (mshconv-gltf without its {feature:?} feature), and its data cannot be read without it"),
    )
}
