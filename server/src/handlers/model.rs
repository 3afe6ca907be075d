//! The endpoints that read one model and answer JSON: `/v1/validate`,
//! `/v1/inspect`, `/v1/pose`, and `/v1/archive/list` for an archive. They
//! share one skeleton (`model_job`): pick the model (an archive's entry or
//! the upload), run the work as a job, answer its document.

use super::respond;
use crate::body::Upload;
use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::extract::{FromQuery, Params, Query};
use crate::{AppState, RequestContext};
use axum::extract::State;
use axum::response::Response;
use axum::Extension;
use mshconv_app::names::stem;
use mshconv_app::{archive, report, Format};
use serde::Serialize;

/// Options of `/v1/validate` and `/v1/inspect`.
#[derive(Debug, Clone, Default)]
pub struct ModelQuery {
    /// Tolerant mode: report damage instead of refusing the model.
    pub tolerant: bool,
    /// The model inside an uploaded archive.
    pub entry: Option<String>,
    /// The label the report shows; default: the upload's file name.
    pub name: Option<String>,
}

impl FromQuery for ModelQuery {
    const OWN: &'static [&'static str] = &["tolerant", "entry", "name"];
    fn parse(mut q: Query) -> Result<Self, ApiError> {
        Ok(ModelQuery {
            tolerant: q.flag("tolerant")?,
            entry: q.take("entry"),
            name: q.take("name"),
        })
    }
}

/// Options of `/v1/pose`.
#[derive(Debug, Clone, Default)]
pub struct PoseQuery {
    /// Time in frames (negative, NaN and infinities are allowed).
    pub time: f32,
    /// Tolerant mode.
    pub tolerant: bool,
    /// The model inside an uploaded archive.
    pub entry: Option<String>,
    /// The label errors show; default: the upload's file name.
    pub name: Option<String>,
}

impl FromQuery for PoseQuery {
    const OWN: &'static [&'static str] = &["time", "tolerant", "entry", "name"];
    fn parse(mut q: Query) -> Result<Self, ApiError> {
        let time = q.require("time", "the time in frames")?;
        let time = time.parse().map_err(|_| {
            ApiError::bad_request(
                ServerCode::RequestQuery,
                format!("time={time:?}: the time is a number of frames"),
            )
        })?;
        Ok(PoseQuery {
            time,
            tolerant: q.flag("tolerant")?,
            entry: q.take("entry"),
            name: q.take("name"),
        })
    }
}

/// Options of `/v1/archive/list`.
#[derive(Debug, Clone, Default)]
pub struct ArchiveQuery {
    /// Parse the archive tolerantly (list what can be read of a damaged one).
    pub tolerant: bool,
}

impl FromQuery for ArchiveQuery {
    const OWN: &'static [&'static str] = &["tolerant"];
    fn parse(mut q: Query) -> Result<Self, ApiError> {
        Ok(ArchiveQuery {
            tolerant: q.flag("tolerant")?,
        })
    }
}

/// An uploaded archive, parsed, and the name of the entry asked for as the
/// archive spells it.
pub(super) type Entry<'a> = (nres::Archive<'a>, String);

/// An archive's model entry, or the bytes as they are; an archive of models
/// without `entry=` is refused with the list of its models. With `entry=`,
/// the archive parsed comes along (its `.WEA` sibling is looked up in it,
/// not in a second parse) with the entry's name.
pub(super) fn select<'a>(
    bytes: &'a [u8],
    entry: Option<&str>,
    tolerant: bool,
) -> Result<(&'a [u8], Option<Entry<'a>>), ApiError> {
    let Some(name) = entry else {
        if let Ok(parsed) = nres::Archive::parse(bytes) {
            if archive::is_model_archive(&parsed) {
                return Err(archive::entry_required(
                    &parsed,
                    "the upload",
                    "name one with entry=NAME, or use /v1/archive/convert for all of them",
                )
                .into());
            }
        }
        return Ok((bytes, None));
    };
    let (parsed, name, data) = archive::entry_in(
        bytes,
        name,
        tolerant,
        "POST it to /v1/archive/list to see them",
    )?;
    Ok((data, Some((parsed, name))))
}

/// What the model is called: `name=`, else the entry's stem, else the upload's
/// file stem, else `model` (the CLI's rule: the input's file stem).
pub(super) fn model_name(name: Option<&str>, entry: Option<&str>, upload: &Upload) -> String {
    name.map(str::to_string)
        .or_else(|| entry.and_then(stem))
        .or_else(|| upload.filename.as_deref().and_then(stem))
        .unwrap_or_else(|| "model".to_string())
}

/// The label reports show: `name=`, else the upload's file name, else `upload`;
/// `LABEL:ENTRY` for an archive entry.
fn label(name: Option<&str>, entry: Option<&str>, upload: &Upload) -> String {
    let base = name
        .or(upload.filename.as_deref())
        .unwrap_or("upload")
        .to_string();
    match entry {
        Some(e) => format!("{base}:{e}"),
        None => base,
    }
}

/// Refuses an upload that is clearly another model format on an endpoint
/// that reads MSH only (415); anything else goes to the MSH reader, whose
/// errors say what is wrong.
pub(super) fn require_msh(bytes: &[u8], what: &str) -> Result<(), ApiError> {
    match Format::sniff(bytes) {
        Some(f) if f.spec().imported() => Err(ApiError::unknown_format(
            format!(
                "{what} reads .msh models and .rlb archives; this upload looks like {}: convert it with /v1/convert?to=msh first",
                f.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// Which model of the upload a model endpoint reads, and how.
struct Pick {
    entry: Option<String>,
    tolerant: bool,
    name: Option<String>,
    /// The endpoint, when it reads MSH only (a GLB, glTF or OBJ upload is 415).
    msh_only: Option<&'static str>,
}

/// The skeleton of the model endpoints: the model picked from the upload, then
/// `work(label, mode, bytes)` as a job, its document as JSON.
async fn model_job<T, F>(
    state: &AppState,
    ctx: &RequestContext,
    upload: Upload,
    pick: Pick,
    work: F,
) -> Result<Response, ApiError>
where
    T: Serialize + Send + 'static,
    F: FnOnce(&str, msh::Mode, &[u8]) -> Result<T, ApiError> + Send + 'static,
{
    if let Some(endpoint) = pick.msh_only {
        require_msh(&upload.bytes, endpoint)?;
    }
    let doc = state
        .run_job(ctx, move || {
            let (bytes, entry) = select(&upload.bytes, pick.entry.as_deref(), pick.tolerant)?;
            let entry = entry.map(|(_, name)| name);
            let label = label(pick.name.as_deref(), entry.as_deref(), &upload);
            work(&label, msh::Mode::from_tolerant(pick.tolerant), bytes)
        })
        .await??;
    respond::json(&doc)
}

/// `POST /v1/validate`: the report, 200 whether or not the model is valid; a
/// game library (`Material.lib`, `Textures.lib`) is checked by its entries
/// (`report::validate`), as the CLI checks it.
pub async fn validate(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<ModelQuery>,
    upload: Upload,
) -> Result<Response, ApiError> {
    let pick = Pick {
        entry: q.entry,
        tolerant: q.tolerant,
        name: q.name,
        msh_only: None,
    };
    model_job(&state, &ctx, upload, pick, |label, mode, bytes| {
        Ok(report::validate(label, bytes, mode))
    })
    .await
}

/// `POST /v1/inspect`.
pub async fn inspect(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<ModelQuery>,
    upload: Upload,
) -> Result<Response, ApiError> {
    let pick = Pick {
        entry: q.entry,
        tolerant: q.tolerant,
        name: q.name,
        msh_only: Some("/v1/inspect"),
    };
    model_job(&state, &ctx, upload, pick, |label, mode, bytes| {
        let opened = msh::open(bytes, mode)?;
        Ok(report::inspect(label, &opened))
    })
    .await
}

/// `POST /v1/pose`.
pub async fn pose(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<PoseQuery>,
    upload: Upload,
) -> Result<Response, ApiError> {
    let time = q.time;
    let pick = Pick {
        entry: q.entry,
        tolerant: q.tolerant,
        name: q.name,
        msh_only: Some("/v1/pose"),
    };
    model_job(&state, &ctx, upload, pick, move |label, mode, bytes| {
        let opened = msh::open(bytes, mode)?;
        let view = &opened.view;
        if let Some(what) = report::not_poseable(view.kind) {
            return Err(ApiError::unprocessable(
                msh::Code::Unsupported,
                format!("{label} is {what}: its nodes are not decoded, so they cannot be posed"),
            ));
        }
        let poses = msh::pose::local_poses(view, time).map_err(msh::Error::from)?;
        Ok(report::PoseDoc::new(view, time, &poses))
    })
    .await
}

/// `POST /v1/archive/list`.
pub async fn archive_list(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<ArchiveQuery>,
    upload: Upload,
) -> Result<Response, ApiError> {
    require_msh(&upload.bytes, "/v1/archive/list")?;
    let rows = state
        .run_job(&ctx, move || {
            let parsed = if q.tolerant {
                nres::Archive::parse_tolerant(&upload.bytes)?.0
            } else {
                nres::Archive::parse(&upload.bytes)?
            };
            // Serialised here, row by row: no list of every row in memory.
            respond::json_bytes(&report::EntryRows(&parsed))
        })
        .await??;
    Ok(respond::json_response(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let upload = Upload {
            bytes: Default::default(),
            filename: Some("dir/tank.msh".into()),
            mtl: None,
            look: Default::default(),
            clips: None,
            original: None,
            charge: Default::default(),
        };
        assert_eq!(model_name(None, None, &upload), "tank");
        assert_eq!(model_name(Some("x y"), None, &upload), "x y");
        assert_eq!(model_name(None, Some("GATE.MSH"), &upload), "GATE");
        assert_eq!(
            label(None, Some("GATE.MSH"), &upload),
            "dir/tank.msh:GATE.MSH"
        );
        let raw = Upload {
            filename: None,
            ..upload
        };
        assert_eq!(model_name(None, None, &raw), "model");
        assert_eq!(label(None, None, &raw), "upload");
    }
}
