//! `POST /v1/convert` (one model) and `POST /v1/archive/convert` (every model
//! of an archive, as a zip).

use super::model::{model_name, require_msh, select};
use super::respond;
use crate::body::Upload;
use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::extract::{format_param, with_clips, FromQuery, Params, Query};
use crate::zip::{TooLarge, Zip};
use crate::{AppState, RequestContext};
use axum::extract::State;
use axum::response::Response;
use axum::Extension;
use mshconv_app::game::{find_in_folder, TEXTURES_LIB};
use mshconv_app::names::{safe_stem, stem};
use mshconv_app::{
    archive, Format, GameDir, GameResources, GivenMtl, Names, NoResources, Options, Resources,
    ZipRule,
};
use serde::Serialize;

/// `/v1/convert`'s query, checked.
#[derive(Debug, Clone)]
pub struct ConvertRequest {
    to: Format,
    from: Option<Format>,
    options: Options,
    entry: Option<String>,
    name: Option<String>,
    /// For `to=obj`: the one file asked for (`obj` is the first, `mtl` the second).
    part: Option<usize>,
}

impl FromQuery for ConvertRequest {
    const OWN: &'static [&'static str] = &["to", "from", "entry", "name", "part"];
    fn takes(option: &mshconv_app::OptionSpec) -> bool {
        crate::extract::convert_options(option)
    }
    fn parse(mut q: Query) -> Result<Self, ApiError> {
        let to = format_param("to", &q.require("to", "the output format")?)?;
        let from = q
            .take("from")
            .map(|f| format_param("from", &f))
            .transpose()?;
        let part = match q.take("part") {
            None => None,
            Some(p) => match to.spec().parts.iter().position(|part| *part == p) {
                Some(index) => Some(index),
                None => return Err(bad_part(&p)),
            },
        };
        let options = q.options(Self::takes)?;
        let entry = q.take("entry");
        if let Some(from) = from {
            from.check_direction(to)?;
            if entry.is_some() && from != Format::Msh {
                return Err(ApiError::bad_request(
                    ServerCode::RequestQuery,
                    "entry= names a model inside an .rlb archive; the input is not one",
                ));
            }
        }
        Ok(ConvertRequest {
            to,
            from,
            options,
            entry,
            name: q.take("name"),
            part,
        })
    }
}

/// The refusal of a `part=` the output format does not have: it names the
/// parts of each format that has them (`part is obj or mtl, and only with to=obj`).
pub(crate) fn bad_part(part: &str) -> ApiError {
    let with: Vec<String> = mshconv_app::FORMATS
        .iter()
        .filter(|row| !row.parts.is_empty())
        .map(|row| {
            let parts = mshconv_app::format::or_list(row.parts);
            format!("{parts}, and only with to={}", row.name)
        })
        .collect();
    ApiError::bad_request(
        ServerCode::RequestQuery,
        format!("part={part:?}: part is {}", with.join("; or ")),
    )
}

/// `POST /v1/convert`.
pub async fn convert(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<ConvertRequest>,
    upload: Upload,
) -> Result<Response, ApiError> {
    let to = q.to;
    let (from, _) = mshconv_app::input_format(q.from, None, &upload.bytes)?;
    from.check_direction(to)?;
    upload.look.check_applies(from, to, true)?;
    // The game's look: only an MSH model's export takes it.
    let folder = state.game().filter(|_| from.takes_look(to));
    let game = crate::game::game(folder, &upload.look);
    if q.entry.is_some() && from != Format::Msh {
        return Err(ApiError::bad_request(
            ServerCode::RequestQuery,
            format!(
                "entry= names a model inside an .rlb archive; the input is {}",
                from.name()
            ),
        ));
    }
    let mut options = with_clips(q.options, upload.clips.as_deref())?;
    // A glTF's original, when the upload gives it (docs/GLTF.md, "The original").
    options.original = upload.original.as_deref().map(Into::into);
    let result = state
        .run_job(&ctx, move || {
            let (bytes, entry) = select(&upload.bytes, q.entry.as_deref(), false)?;
            let name = model_name(
                q.name.as_deref(),
                entry.as_ref().map(|(_, e)| e.as_str()),
                &upload,
            );
            let names = Names {
                file: safe_stem(&name),
                model: name,
            };
            let mtl = GivenMtl(upload.mtl.as_ref().map(|m| m.to_vec()));
            let archive = entry.as_ref().map(|(parsed, e)| (parsed, e.as_str()));
            let game_resources = game.map(|game| GameResources {
                inner: &mtl,
                game,
                at: crate::game::location(&upload.look, &names.model, archive),
            });
            let resources: &dyn Resources = match &game_resources {
                Some(r) => r,
                None => &mtl,
            };
            let mut output = mshconv_app::convert(bytes, (from, to), &options, &names, resources)?;
            // The format's zip rule: an OBJ and its .mtl, or a .gltf or .usda
            // with its PNG files, come as a zip of them.
            let zipped = q.part.is_none()
                && match to.spec().zip {
                    ZipRule::Never => false,
                    ZipRule::Always => true,
                    ZipRule::WithSideFiles => output.files.len() > 1,
                };
            let (file_name, body, content_type) = match q.part {
                None if zipped => {
                    let mut zip = Zip::new();
                    for file in &output.files {
                        zip.add(&file.name, &file.bytes);
                    }
                    let zip = zip.finish().map_err(too_big)?;
                    (format!("{}.zip", names.file), zip, mshconv_app::ZIP)
                }
                part => {
                    let index = part.unwrap_or(0);
                    if index >= output.files.len() {
                        return Err(ApiError::internal(
                            "a conversion gave fewer files than expected",
                        ));
                    }
                    let file = output.files.swap_remove(index);
                    (file.name, file.bytes, to.media_type())
                }
            };
            Ok((file_name, body, content_type, output.report))
        })
        .await
        .and_then(|r| r);
    let metrics = state.metrics();
    match result {
        Ok((file_name, body, content_type, report)) => {
            metrics.conversion(from.name(), to.name(), "ok");
            // At debug: the request's own "answered" line (info) is enough per request.
            tracing::debug!(
                from = from.name(),
                to = to.name(),
                notes = report.notes.len(),
                "converted"
            );
            Ok(respond::file(
                body,
                content_type,
                &file_name,
                Some(&report),
                Some(from),
            ))
        }
        Err(e) => {
            let code = e.code.as_str();
            let unlabelled = if code == ServerCode::ServerTimeout.code() {
                Some("timeout")
            } else if code == mshconv_app::ErrorCode::Internal.code() {
                Some("internal")
            } else {
                None
            };
            if let Some(outcome) = e.outcome.or(unlabelled) {
                metrics.conversion(from.name(), to.name(), outcome);
            }
            Err(e)
        }
    }
}

/// `output.too_large`: the zip would pass its limit.
pub(super) fn too_big(e: TooLarge) -> ApiError {
    let detail = if e.limit >= u64::from(u32::MAX) {
        "the output would be over the 4 GiB a zip without zip64 holds".to_string()
    } else {
        format!(
            "the zip of every model would be over {} bytes (32 MiB + 2 x the upload and the game folder's Textures.lib, the service's bound on one answer): convert the models one at a time (/v1/convert?entry=NAME) or with `mshconv batch`",
            e.limit
        )
    };
    ApiError::unprocessable(ServerCode::OutputTooLarge, detail)
}

/// The fixed part of [`answer_limit`].
const ANSWER_BASE: u64 = 32 << 20;

/// The most bytes `/v1/archive/convert`'s zip (with `report.json`) may
/// hold: 32 MiB + 2 x the upload (every field) + 2 x the `Textures.lib` of
/// the service's `--game-dir` when its textures are used (`folder_textures`,
/// 0 otherwise). With the body and its multipart copy, one request stays
/// within 64 MiB + 4 x its body + 2 x that library (docs/ROBUSTNESS.md)
/// whatever the archive's models make: many small models can each export
/// far more than their bytes (the bound on an export's repeats has a fixed
/// part), and every model embeds the textures it shows.
fn answer_limit(upload: &Upload, folder_textures: u64) -> u64 {
    let look = &upload.look;
    let fields = [
        Some(&upload.bytes),
        upload.mtl.as_ref(),
        upload.clips.as_ref(),
        look.wear.as_ref().map(|(b, _)| b),
        look.materials.as_ref(),
        look.textures.as_ref(),
    ];
    let upload_len: u64 = fields.iter().flatten().map(|b| b.len() as u64).sum();
    ANSWER_BASE + 2 * upload_len + 2 * folder_textures
}

/// The size of the `Textures.lib` of `folder` (the service's `--game-dir`),
/// when the answer's textures come from it (the upload gives none).
fn folder_textures(folder: Option<&GameDir>, upload: &Upload) -> u64 {
    match folder {
        Some(game) if upload.look.textures.is_none() => find_in_folder(game.dir(), TEXTURES_LIB)
            .and_then(|p| std::fs::metadata(p).ok())
            .map_or(0, |m| m.len()),
        _ => 0,
    }
}

/// `/v1/archive/convert`'s query, checked.
#[derive(Debug, Clone)]
pub struct ArchiveConvertRequest {
    to: Format,
    options: Options,
    name: Option<String>,
}

impl FromQuery for ArchiveConvertRequest {
    const OWN: &'static [&'static str] = &["to", "name"];
    fn takes(option: &mshconv_app::OptionSpec) -> bool {
        crate::extract::archive_options(option)
    }
    fn parse(mut q: Query) -> Result<Self, ApiError> {
        let to = format_param("to", &q.require("to", "the output format")?)?;
        Format::Msh.check_direction(to)?;
        let options = q.options(Self::takes)?;
        Ok(ArchiveConvertRequest {
            to,
            options,
            name: q.take("name"),
        })
    }
}

/// One entry of `report.json` in the zip of `/v1/archive/convert`.
#[derive(Debug, Serialize)]
struct EntryReport {
    entry: String,
    files: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<EntryError>,
    notes: Vec<mshconv_convert::Note>,
}

#[derive(Debug, Serialize)]
struct EntryError {
    code: String,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    offset: Option<u64>,
}

/// `report.json`.
#[derive(Debug, Serialize)]
struct ArchiveReport {
    to: &'static str,
    models: usize,
    converted: usize,
    failed: usize,
    entries: Vec<EntryReport>,
}

/// `POST /v1/archive/convert`.
pub async fn archive_convert(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    Params(q): Params<ArchiveConvertRequest>,
    upload: Upload,
) -> Result<Response, ApiError> {
    require_msh(&upload.bytes, "/v1/archive/convert")?;
    let to = q.to;
    upload.look.check_applies(Format::Msh, to, false)?;
    let folder = state.game().filter(|_| Format::Msh.takes_look(to));
    let folder_textures = folder_textures(folder.as_deref(), &upload);
    let game = crate::game::game(folder, &upload.look);
    let zip_name = safe_stem(&model_name(q.name.as_deref(), None, &upload));
    let metrics = state.metrics();
    let (zip, summary) = state
        .run_job(&ctx, move || -> Result<(Vec<u8>, ArchiveReport), ApiError> {
            let parsed = nres::Archive::parse(&upload.bytes)?;
            let models = archive::models(&parsed);
            archive::check_models_disjoint(&models)?;
            let limit = answer_limit(&upload, folder_textures);
            let mut zip = Zip::with_limit(limit);
            // What the report holds so far (as compact JSON): it counts
            // against the same limit.
            let mut report_bytes = 0u64;
            // Lowercased file names in use (the zip's names compare case-insensitively).
            let mut used: std::collections::HashSet<String> = std::collections::HashSet::new();
            let mut report = ArchiveReport {
                to: to.name(),
                models: models.len(),
                converted: 0,
                failed: 0,
                entries: Vec::new(),
            };
            for model in &models {
                let Some(entry) = parsed.entry(model.index) else {
                    continue;
                };
                let name = stem(&model.name).unwrap_or_else(|| "model".to_string());
                // Distinct file names: a repeated (case-insensitive) stem gets the entry index.
                let mut unique = safe_stem(&name);
                if used.contains(&unique.to_ascii_lowercase()) {
                    unique = format!("{unique}-{}", model.index);
                }
                used.insert(unique.to_ascii_lowercase());
                // The scene keeps the entry's stem; the files get the unique name.
                let names = Names {
                    model: name,
                    file: unique,
                };
                let archive = Some((&parsed, model.name.as_str()));
                let game_resources = game.clone().map(|game| GameResources {
                    inner: &NoResources,
                    game,
                    at: crate::game::location(&upload.look, &names.model, archive),
                });
                let resources: &dyn Resources = match &game_resources {
                    Some(r) => r,
                    None => &NoResources,
                };
                let result = mshconv_app::convert(
                    entry.data(),
                    (Format::Msh, to),
                    &q.options,
                    &names,
                    resources,
                );
                let entry_report = match result {
                    Ok(out) => {
                        metrics.conversion("msh", to.name(), "ok");
                        let mut files = Vec::new();
                        for file in &out.files {
                            zip.add(&file.name, &file.bytes);
                            files.push(file.name.clone());
                        }
                        report.converted += 1;
                        EntryReport {
                            entry: model.name.clone(),
                            files,
                            error: None,
                            notes: out.report.notes,
                        }
                    }
                    Err(e) => {
                        let e = ApiError::from(e).into_problem();
                        metrics.conversion("msh", to.name(), e.outcome.unwrap_or("invalid_input"));
                        report.failed += 1;
                        EntryReport {
                            entry: model.name.clone(),
                            files: Vec::new(),
                            error: Some(EntryError {
                                code: e.code,
                                message: e.detail,
                                path: e.path,
                                offset: e.offset,
                            }),
                            notes: Vec::new(),
                        }
                    }
                };
                report_bytes += serde_json::to_vec(&entry_report).map_or(0, |j| j.len() as u64);
                report.entries.push(entry_report);
                // Past the limit, the rest is not converted.
                if zip.failed() || report_bytes > limit {
                    return Err(too_big(TooLarge { limit }));
                }
            }
            if report.models == 0 {
                return Err(ApiError::unprocessable(
                    ServerCode::ArchiveNoModels,
                    format!(
                        "the archive has no model entries (names ending in .msh) among its {} entries",
                        parsed.len()
                    ),
                ));
            }
            let mut json = serde_json::to_vec_pretty(&report)
                .map_err(|e| ApiError::internal(format!("report.json: {e}")))?;
            json.push(b'\n');
            zip.add("report.json", &json);
            Ok((zip.finish().map_err(too_big)?, report))
        })
        .await??;
    tracing::info!(
        to = to.name(),
        models = summary.models,
        converted = summary.converted,
        failed = summary.failed,
        "archive converted"
    );
    Ok(respond::file(
        zip,
        mshconv_app::ZIP,
        &format!("{zip_name}.zip"),
        None,
        Some(Format::Msh),
    ))
}
