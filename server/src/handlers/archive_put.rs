//! `POST /v1/archive/put`: put a model into an `.rlb` archive, as the game
//! will read it, and answer the new archive.
//!
//! The multipart body has the archive (`archive`) and the model (`file`: an
//! `.msh`, or a `.glb`/`.gltf`/`.obj`, which goes through
//! `mshconv_app::convert` to MSH first with the query's options; an `.obj`
//! may bring its `mtl`). `entry=` names the model entry: the entry of that
//! name (compared as the game compares, ASCII case-insensitively) gets the new
//! payload and keeps its type, attributes, name and place (`replaced`), or a
//! new MSH entry is added at the end with the sort table updated, so that the
//! game's binary search finds it (`added`). Every other entry keeps its bytes,
//! name and order, and the archive keeps its layout
//! (`mshconv_app::archive::Editor`).
//!
//! The model goes in as MSH, so the entry's name must be a model's name (it
//! ends in `.msh`, as the game's are, and as `archive/convert` and the page
//! find models): another name is refused (`request.entry_not_model`) rather
//! than renamed, so that what is written is exactly what was asked for. An
//! `.msh` upload is opened strictly first: a damaged model is not put into
//! the game's archive (422 with the validator's code). An entry name is
//! printable ASCII (`archive.bad_name`): the game's names are Windows-1251
//! bytes and a query is UTF-8, so nothing else would be stored as typed; the
//! name field's length (35 bytes) is the editor's check (`archive.bad_name`).
//!
//! A `.glb`, `.gltf` or `.obj` brings its look back as the CLI's
//! `--game-dir` does ([`super::put_look`]) when the server has `--game-dir`
//! or the upload has the fields `materials`/`textures`: the model's WEAR goes
//! into the archive beside it, and the answer is the archive alone when no
//! library changed, else a zip of the archive and the changed libraries;
//! `x-mshconv-changed` names the files that changed and `look.entry` notes
//! say what each library gains.
//!
//! A replaced entry that loses parts of its model (nodes, slots, LODs,
//! groups, frames: an OBJ over an animated model) is said with the CLI's
//! note `archive.entry_loses` (`mshconv_app::archive::entry_loses_in`).

use super::{put_look, respond};
use crate::body::ArchiveUpload;
use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::extract::{format_param, FromQuery, Params, Query};
use crate::zip::Zip;
use crate::{AppState, RequestContext};
use axum::extract::State;
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;
use axum::Extension;
use mshconv_app::archive::{Editor, Placed};
use mshconv_app::game::wear_name;
use mshconv_app::names::{safe_stem, stem};
use mshconv_app::{Format, GivenMtl, Names, Options};
use mshconv_convert::imported_look::ImportedLook;
use mshconv_convert::Report;
use mshconv_material::WEAR_TYPE_ID;

/// Header saying what the put did: `replaced` or `added`.
pub const PLACED_HEADER: &str = "x-mshconv-placed";
/// Header naming the entry the model went into, as the archive spells it
/// (a replaced entry keeps its own spelling); left out when the name is not
/// header-safe.
pub const ENTRY_HEADER: &str = "x-mshconv-entry";

/// Header naming the files the put changed, comma-separated: the archive,
/// and `Textures.lib`/`Material.lib` when the look changed them.
pub const CHANGED_HEADER: &str = "x-mshconv-changed";

/// How the refusal of an entry the archive lacks says to add it.
const HOW_TO_ADD: &str = "send add=true (on the web page: tick \"Add it as a new model\")";

/// `/v1/archive/put`'s query, checked.
#[derive(Debug, Clone)]
pub struct ArchivePutRequest {
    entry: String,
    add: bool,
    from: Option<Format>,
    options: Options,
}

impl FromQuery for ArchivePutRequest {
    const OWN: &'static [&'static str] = &["entry", "add", "from"];
    fn takes(option: &mshconv_app::OptionSpec) -> bool {
        crate::extract::import_options(option)
    }
    fn parse(mut q: Query) -> Result<Self, ApiError> {
        let add = q.flag("add")?;
        let entry = match q.take("entry") {
            Some(e) if !e.is_empty() => e,
            _ => {
                return Err(ApiError::bad_request(
                    mshconv_app::ErrorCode::RequestEntryRequired,
                    "name the model entry to replace or add with entry=NAME.MSH (POST the archive to /v1/archive/list to see its entries)",
                ))
            }
        };
        mshconv_app::archive::check_model_entry_name(&entry)?;
        let from = q
            .take("from")
            .map(|f| format_param("from", &f))
            .transpose()?;
        if let Some(from) = from {
            if from != Format::Msh {
                from.check_direction(Format::Msh)?;
            }
        }
        let options = q.options(Self::takes)?;
        Ok(ArchivePutRequest {
            entry,
            add,
            from,
            options,
        })
    }
}

/// The look an upload brought back and the notes of reading it.
type Brought = (ImportedLook, Report);

/// The model as MSH (`mshconv_app::model_as_msh`), named after the entry;
/// with `look`, also the look it brings back and the notes of reading it,
/// from the same parse (`mshconv_app::model_as_msh_bringing_look`).
fn model_as_msh(
    upload: &crate::body::Upload,
    from: Format,
    entry: &str,
    options: &Options,
    look: bool,
) -> Result<(Vec<u8>, Report, Option<Brought>), ApiError> {
    let name = stem(entry).unwrap_or_else(|| "model".to_string());
    let names = Names {
        file: safe_stem(&name),
        model: name,
    };
    let mtl = GivenMtl(upload.mtl.as_ref().map(|m| m.to_vec()));
    if look {
        let (msh, report, look, notes) =
            mshconv_app::model_as_msh_bringing_look(&upload.bytes, from, options, &names, &mtl)?;
        return Ok((msh, report, Some((look, notes))));
    }
    let (msh, report) = mshconv_app::model_as_msh(&upload.bytes, from, options, &names, &mtl)?;
    Ok((msh, report, None))
}

/// What the job made: the archive, what the put did, the entry's name, the
/// report, and the libraries the look changed (file name, bytes).
struct Put {
    archive: Vec<u8>,
    placed: Placed,
    entry: String,
    report: Report,
    libraries: Vec<(String, Vec<u8>)>,
}

/// `POST /v1/archive/put`.
pub async fn archive_put(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<ArchivePutRequest>,
    upload: ArchiveUpload,
) -> Result<Response, ApiError> {
    let (from, _) = mshconv_app::input_format(q.from, None, &upload.model.bytes)?;
    if from != Format::Msh {
        from.check_direction(Format::Msh)?;
    }
    let archive_stem = safe_stem(
        &upload
            .archive_name
            .as_deref()
            .and_then(stem)
            .unwrap_or_else(|| "archive".to_string()),
    );
    let file_name = format!("{archive_stem}.rlb");
    // The libraries the look goes into (none: the put as it always was).
    let (libs, recovered) = put_look::libraries(from, state.game().as_deref(), &upload.model.look)?;
    // The other models of the folder whose libraries the look goes into.
    let fields = &upload.model.look;
    let folder = match (
        fields.materials.is_none() && fields.textures.is_none(),
        state.game(),
    ) {
        (true, Some(game)) => Some(game.dir().to_path_buf()),
        _ => None,
    };
    let metrics = state.metrics();
    let job_metrics = metrics.clone();
    let shown = file_name.clone();
    let result = state
        .run_job(&ctx, move || -> Result<Put, ApiError> {
            // The archive first: a damaged one, or a name it lacks without
            // add=true, is said before any conversion.
            let mut editor = Editor::open(&upload.archive)?;
            editor.placement(&q.entry, q.add, HOW_TO_ADD)?;
            // The entry replaced is a glTF's original (docs/GLTF.md, "The original").
            let options = match from {
                Format::Msh => q.options.clone(),
                _ => q.options.clone().or_original(|| {
                    let archive = nres::Archive::parse(&upload.archive).ok()?;
                    mshconv_app::original::entry_of(&archive, &q.entry)
                }),
            };
            // Without libraries the look is still read, to say when it was
            // edited since the export and so was not written.
            let brings = mshconv_app::look_import::brings_look(from);
            let converted = model_as_msh(&upload.model, from, &q.entry, &options, brings);
            if from != Format::Msh {
                let outcome = match &converted {
                    Ok(_) => "ok",
                    Err(e) => e.outcome.unwrap_or("invalid_input"),
                };
                job_metrics.conversion(from.name(), Format::Msh.name(), outcome);
            }
            let (msh, mut report, brought) = converted?;
            report.notes.splice(0..0, recovered);
            // What the entry replaced loses, said as the CLI says it.
            if let Ok(archive) = nres::Archive::parse(&upload.archive) {
                let loses = mshconv_app::archive::entry_loses_in(&archive, &shown, &q.entry, &msh);
                report.notes.extend(loses);
            }
            let look = match (&libs, brought) {
                (Some(libs), Some((look, notes))) => {
                    let plan =
                        put_look::plan(&look, notes, libs, &upload.archive, &q.entry, &mut report)?;
                    let shared =
                        put_look::shared_edits(&plan, libs, folder.as_deref(), &shown, &q.entry);
                    report.notes.extend(shared);
                    Some((put_look::changed_libraries(&plan, libs), plan.wear))
                }
                (None, Some((look, _))) => {
                    report.notes.extend(put_look::not_written(&look));
                    None
                }
                _ => None,
            };
            let placed = editor.put_model(&q.entry, msh, q.add, HOW_TO_ADD)?;
            let libraries = match look {
                Some((libraries, wear)) => {
                    // The WEAR beside the model, as the CLI puts it.
                    editor.put(&wear_name(&q.entry), Some(WEAR_TYPE_ID), wear)?;
                    libraries
                }
                None => Vec::new(),
            };
            let archive = editor.write()?;
            // The entry as the archive now spells it.
            let entry = nres::Archive::parse(&archive)
                .ok()
                .and_then(|a| {
                    mshconv_app::archive::find(&a, &q.entry)
                        .and_then(|i| a.entry(i))
                        .map(|e| e.name())
                })
                .unwrap_or_else(|| q.entry.clone());
            Ok(Put {
                archive,
                placed,
                entry,
                report,
                libraries,
            })
        })
        .await;
    let put = match result {
        Ok(r) => r?,
        Err(e) => {
            if from != Format::Msh && e.code == ServerCode::ServerTimeout.code() {
                metrics.conversion(from.name(), Format::Msh.name(), "timeout");
            }
            return Err(e);
        }
    };
    let placed = match put.placed {
        Placed::Replaced => "replaced",
        Placed::Added => "added",
    };
    tracing::info!(
        from = from.name(),
        placed,
        entry = %put.entry,
        notes = put.report.notes.len(),
        "model put into an archive"
    );
    let mut changed: Vec<&str> = put.libraries.iter().map(|(n, _)| n.as_str()).collect();
    changed.push(&file_name);
    let changed = changed.join(", ");
    let (body, content_type, answer_name) = if put.libraries.is_empty() {
        (put.archive, Format::Msh.media_type(), file_name.clone())
    } else {
        // The archive and the libraries the look changed: one zip.
        let mut zip = Zip::new();
        for (name, bytes) in &put.libraries {
            zip.add(name, bytes);
        }
        zip.add(&file_name, &put.archive);
        let zip = zip.finish().map_err(super::convert::too_big)?;
        (zip, mshconv_app::ZIP, format!("{archive_stem}.zip"))
    };
    let mut response = respond::file(
        body,
        content_type,
        &answer_name,
        Some(&put.report),
        Some(from),
    );
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&changed) {
        headers.insert(HeaderName::from_static(CHANGED_HEADER), v);
    }
    headers.insert(
        HeaderName::from_static(PLACED_HEADER),
        HeaderValue::from_static(placed),
    );
    if let Ok(v) = HeaderValue::from_str(&put.entry) {
        headers.insert(HeaderName::from_static(ENTRY_HEADER), v);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_must_be_a_model_name() {
        let parse = |entry: Option<&str>| {
            let pairs = entry.map(|e| ("entry".to_string(), e.to_string()));
            ArchivePutRequest::parse(Query::new(pairs.into_iter().collect(), &["entry"])?)
        };
        assert_eq!(parse(Some("tank.msh")).unwrap().entry, "tank.msh");
        assert_eq!(parse(Some("TANK.MSH")).unwrap().entry, "TANK.MSH");
        assert_eq!(parse(None).unwrap_err().code, "request.entry_required");
        assert_eq!(parse(Some("")).unwrap_err().code, "request.entry_required");
        assert_eq!(
            parse(Some("\u{422}\u{430}\u{43d}\u{43a}.msh"))
                .unwrap_err()
                .code,
            "archive.bad_name"
        );
        assert_eq!(
            parse(Some("a\tb.msh")).unwrap_err().code,
            "archive.bad_name"
        );
        let e = parse(Some("tank.glb")).unwrap_err();
        assert_eq!(e.code, "request.entry_not_model");
        assert!(e.detail.contains("\"tank.MSH\""), "{}", e.detail);
    }
}
