//! The endpoints. Each reads its query and upload, does the model work as a
//! job (a slot of the semaphore, on the blocking pool), and answers with the
//! right media type, or with an [`ApiError`].

use crate::body::{read_upload, sanitize, stem, Upload};
use crate::error::ApiError;
use crate::format::{self, sniff, Format};
use crate::zip::Zip;
use crate::{AppState, RequestContext};
use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use mshconv_convert::gltf::AnimationChoice;
use mshconv_convert::{Axis, Report, Rotation};
use serde::{Deserialize, Serialize};

/// Header with the conversion's report notes as a JSON array of
/// `{"code", "message"}` (non-ASCII characters escaped as `\uXXXX`).
pub const NOTES_HEADER: &str = "x-mshconv-notes";
/// Header with the number of notes the conversion made (all of them, also when
/// [`NOTES_HEADER`] had to leave some out).
pub const NOTES_COUNT_HEADER: &str = "x-mshconv-notes-count";
/// Header naming the input format the conversion read (sniffed or `from=`).
pub const FROM_HEADER: &str = "x-mshconv-from";
/// Most bytes [`NOTES_HEADER`] carries: notes are left out from the end until
/// the JSON fits (the count header still says how many there were).
pub const MAX_NOTES_HEADER: usize = 8 * 1024;

fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(v)| v)
        .map_err(|e| ApiError::bad_request("request.query", e.body_text()))
}

/// Conversion options, named as the CLI's flags.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConvertQuery {
    /// Output format: `glb`, `gltf`, `obj` or `msh`.
    pub to: String,
    /// Input format; sniffed from the bytes when absent.
    pub from: Option<String>,
    /// LOD shown (glTF) or written (OBJ).
    pub lod: Option<u8>,
    /// Group shown (glTF) or written (OBJ).
    pub group: Option<u8>,
    /// Frames per second of the glTF timeline.
    pub fps: Option<f32>,
    /// `y-up` or `z-up`.
    pub axis: Option<String>,
    /// `conjugate` or `stored`.
    pub rotation: Option<String>,
    /// glTF -> MSH: `all`, `none`, an index or a name.
    pub animation: Option<String>,
    /// The model inside an uploaded archive.
    pub entry: Option<String>,
    /// The model's name (scene name, file names); default: the upload's file stem.
    pub name: Option<String>,
    /// For `to=obj`: `obj` or `mtl` for that file alone instead of a zip of both.
    pub part: Option<String>,
}

/// Options of `/v1/archive/convert`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveConvertQuery {
    /// `glb`, `gltf` or `obj`.
    pub to: String,
    /// LOD shown (glTF) or written (OBJ).
    pub lod: Option<u8>,
    /// Group shown (glTF) or written (OBJ).
    pub group: Option<u8>,
    /// Frames per second of the glTF timeline.
    pub fps: Option<f32>,
    /// `y-up` or `z-up`.
    pub axis: Option<String>,
    /// `conjugate` or `stored`.
    pub rotation: Option<String>,
    /// The zip's name; default: the upload's file stem.
    pub name: Option<String>,
}

/// Options of `/v1/validate` and `/v1/inspect`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelQuery {
    /// Tolerant mode: report damage instead of refusing the model.
    #[serde(default)]
    pub tolerant: bool,
    /// The model inside an uploaded archive.
    pub entry: Option<String>,
    /// The label the report shows; default: the upload's file name.
    pub name: Option<String>,
}

/// Options of `/v1/pose`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoseQuery {
    /// Time in frames (negative, NaN and infinities are allowed).
    pub time: f32,
    /// Tolerant mode.
    #[serde(default)]
    pub tolerant: bool,
    /// The model inside an uploaded archive.
    pub entry: Option<String>,
    /// The label errors show; default: the upload's file name.
    pub name: Option<String>,
}

/// Options of `/v1/archive/list`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveQuery {
    /// Parse the archive tolerantly (list what can be read of a damaged one).
    #[serde(default)]
    pub tolerant: bool,
}

/// The options every MSH export and import takes, parsed.
#[derive(Debug, Clone, Default)]
struct Options {
    lod: u8,
    group: u8,
    fps: Option<f32>,
    axis: Option<Axis>,
    rotation: Option<Rotation>,
    animation: AnimationChoice,
}

impl Options {
    fn parse(
        lod: Option<u8>,
        group: Option<u8>,
        fps: Option<f32>,
        axis: Option<&str>,
        rotation: Option<&str>,
        animation: Option<&str>,
    ) -> Result<Options, ApiError> {
        let bad = |e: mshconv_convert::BadOption| ApiError::bad_request("option.invalid", e.0);
        Ok(Options {
            lod: lod.unwrap_or(0),
            group: group.unwrap_or(0),
            fps,
            axis: axis.map(str::parse).transpose().map_err(bad)?,
            rotation: rotation
                .map(mshconv_convert::parse_rotation)
                .transpose()
                .map_err(bad)?,
            // As the CLI reads --animation.
            animation: match animation {
                None | Some("all") => AnimationChoice::All,
                Some("none") => AnimationChoice::None,
                Some(s) => s.parse::<usize>().map_or_else(
                    |_| AnimationChoice::Name(s.to_string()),
                    AnimationChoice::Index,
                ),
            },
        })
    }
}

/// A conversion's output: one file, or an `.obj` and its `.mtl`.
struct Converted {
    /// The files, named `{name}.{ext}` (sanitised).
    files: Vec<(String, Vec<u8>)>,
    /// The notes.
    report: Report,
}
/// An archive's model entry, or the bytes as they are.
fn select<'a>(
    bytes: &'a [u8],
    entry: Option<&str>,
    tolerant: bool,
) -> Result<(&'a [u8], Option<String>), ApiError> {
    let Some(name) = entry else {
        if let Ok(archive) = nres::Archive::parse(bytes) {
            // An outer archive: no node table of its own, models inside.
            if archive.find_by_type(msh::resource::NODES).is_none() {
                let models: Vec<String> = archive.nested_models().map(|e| e.name()).collect();
                if !models.is_empty() {
                    let shown: Vec<&str> = models.iter().take(5).map(String::as_str).collect();
                    return Err(ApiError::bad_request(
                        "request.entry_required",
                        format!(
                            "the upload is an archive of {} models ({}{}): name one with entry=NAME, or use /v1/archive/convert for all of them",
                            models.len(),
                            shown.join(", "),
                            if models.len() > shown.len() { ", ..." } else { "" }
                        ),
                    ));
                }
            }
        }
        return Ok((bytes, None));
    };
    let archive = if tolerant {
        nres::Archive::parse_tolerant(bytes)?.0
    } else {
        nres::Archive::parse(bytes)?
    };
    // The game's lookup first, then a linear scan (as the CLI does).
    let found = archive.find_by_name(name).or_else(|| {
        archive
            .entries()
            .find(|e| nres::cmp_names(e.name_bytes(), name.as_bytes()).is_eq())
    });
    match found {
        Some(e) => Ok((e.data(), Some(e.name()))),
        None => Err(ApiError::bad_request(
            "input.no_such_entry",
            format!(
                "the archive has no entry named {name:?} ({} entries; POST it to /v1/archive/list to see them)",
                archive.len()
            ),
        )),
    }
}

/// What the model is called: `name=`, else the entry's stem, else the upload's
/// file stem, else `model` (the CLI's rule: the input's file stem).
fn model_name(name: Option<&str>, entry: Option<&str>, upload: &Upload) -> String {
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

/// For `to=` of a model endpoint: formats this endpoint can write from `from`.
fn check_direction(from: Format, to: Format) -> Result<(), ApiError> {
    match (from, to) {
        (Format::Msh, Format::Glb | Format::Gltf | Format::Obj)
        | (Format::Glb | Format::Gltf | Format::Obj, Format::Msh) => Ok(()),
        _ => Err(ApiError::bad_request(
            "convert.unsupported_direction",
            format!(
                "converting {} to {} is not available; supported: msh -> glb/gltf/obj, glb/gltf/obj -> msh",
                from.name(),
                to.name()
            ),
        )),
    }
}

/// The library error; when the input is an MSH that strict opening refuses
/// with the same code (the conversion's first step), with the location that
/// opening knows: the container error's offset, or the validator's findings.
fn conversion_error(e: mshconv_convert::Error, msh_input: Option<&[u8]>) -> ApiError {
    if e.kind() == mshconv_convert::ErrorKind::InvalidInput {
        if let Some(Err(opening)) = msh_input.map(|b| msh::open(b, msh::Mode::Strict)) {
            if opening.code() == e.code() {
                let mut located = ApiError::from(opening);
                located.detail = e.message().to_string();
                return located;
            }
        }
    }
    ApiError::from(e)
}

/// The `outcome` label of `mshconv_conversions_total` for a library error.
fn outcome(kind: mshconv_convert::ErrorKind) -> &'static str {
    match kind {
        mshconv_convert::ErrorKind::InvalidInput => "invalid_input",
        mshconv_convert::ErrorKind::Unsupported => "unsupported",
        mshconv_convert::ErrorKind::BadOption => "bad_option",
        mshconv_convert::ErrorKind::Output => "output",
    }
}

/// One conversion, on the blocking pool. The model is called `name` (the
/// glTF scene name); the files are `{file}.{ext}` (`file` is sanitised).
fn convert_files(
    bytes: &[u8],
    mtl: Option<&[u8]>,
    (from, to): (Format, Format),
    options: &Options,
    name: &str,
    file: &str,
) -> Result<Converted, ApiError> {
    let msh_input = (from == Format::Msh).then_some(bytes);
    let fail = |e: mshconv_convert::Error| {
        let kind = e.kind();
        let mut err = conversion_error(e, msh_input);
        err.outcome = Some(outcome(kind));
        err
    };
    let (files, report) = match (from, to) {
        (Format::Msh, Format::Glb | Format::Gltf) => {
            let export = mshconv_convert::ExportOptions {
                lod: options.lod,
                group: options.group,
                fps: options.fps.unwrap_or(24.0),
                axis: options.axis.unwrap_or_default(),
                rotation: options.rotation.unwrap_or_default(),
                format: if to == Format::Glb {
                    mshconv_convert::GltfFormat::Glb
                } else {
                    mshconv_convert::GltfFormat::Gltf
                },
                name: name.to_string(),
            };
            let (out, report) = mshconv_convert::msh_to_gltf(bytes, &export).map_err(fail)?;
            (vec![(format!("{file}.{}", to.name()), out)], report)
        }
        (Format::Glb | Format::Gltf, Format::Msh) => {
            let import = mshconv_convert::gltf::ImportOptions {
                fps: options.fps,
                axis: options.axis,
                rotation: options.rotation,
                animation: options.animation.clone(),
                ..Default::default()
            };
            // An upload has no folder: side-car buffers are never read.
            let (out, report) =
                mshconv_convert::gltf_to_msh(bytes, &import, &|_: &str| None).map_err(fail)?;
            (vec![(format!("{file}.msh"), out)], report)
        }
        (Format::Msh, Format::Obj) => {
            let export = mshconv_convert::ObjExportOptions {
                lod: options.lod,
                group: options.group,
                axis: options.axis.unwrap_or_default(),
                rotation: options.rotation.unwrap_or_default(),
                mtl_name: format!("{file}.mtl"),
            };
            let (out, report) = mshconv_convert::msh_to_obj(bytes, &export).map_err(fail)?;
            (
                vec![(format!("{file}.obj"), out.obj), (out.mtl_name, out.mtl)],
                report,
            )
        }
        (Format::Obj, Format::Msh) => {
            let import = mshconv_convert::ObjImportOptions {
                axis: options.axis.unwrap_or_default(),
            };
            let (out, report) = mshconv_convert::obj_to_msh(bytes, mtl, &import).map_err(fail)?;
            (vec![(format!("{file}.msh"), out)], report)
        }
        _ => {
            return Err(check_direction(from, to)
                .err()
                .unwrap_or_else(|| ApiError::internal("unchecked direction")))
        }
    };
    Ok(Converted { files, report })
}

fn too_big() -> ApiError {
    ApiError::unprocessable(
        "output.too_large",
        "the output would be over the 4 GiB a zip without zip64 holds",
    )
}

/// The notes as header-safe JSON (ASCII only), at most [`MAX_NOTES_HEADER`]
/// bytes: the first notes that fit, in order.
pub fn notes_header(report: &Report) -> String {
    let mut json = String::from("[");
    for note in &report.notes {
        let Ok(one) = serde_json::to_string(note) else {
            continue;
        };
        let one = ascii_json(&one);
        // `,` or nothing before it, `]` after it.
        if json.len() + one.len() + 2 > MAX_NOTES_HEADER {
            break;
        }
        if json.len() > 1 {
            json.push(',');
        }
        json.push_str(&one);
    }
    json.push(']');
    json
}

/// JSON with every non-ASCII character written as `\uXXXX` (valid JSON: such
/// characters only occur inside strings).
fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

fn attachment(file_name: &str) -> HeaderValue {
    // file_name is sanitised: ASCII letters, digits, '.', '-', '_'.
    HeaderValue::from_str(&format!("attachment; filename=\"{file_name}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

fn file_response(
    body: Vec<u8>,
    content_type: &'static str,
    file_name: &str,
    report: Option<&Report>,
    from: Option<Format>,
) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_DISPOSITION, attachment(file_name));
    if let Some(report) = report {
        if let Ok(v) = HeaderValue::from_str(&notes_header(report)) {
            headers.insert(HeaderName::from_static(NOTES_HEADER), v);
        }
        headers.insert(
            HeaderName::from_static(NOTES_COUNT_HEADER),
            HeaderValue::from(report.notes.len()),
        );
    }
    if let Some(from) = from {
        headers.insert(
            HeaderName::from_static(FROM_HEADER),
            HeaderValue::from_static(from.name()),
        );
    }
    response
}

fn json_response<T: Serialize>(value: &T) -> Result<Response, ApiError> {
    let mut body = serde_json::to_vec_pretty(value)
        .map_err(|e| ApiError::internal(format!("JSON serialisation failed: {e}")))?;
    body.push(b'\n');
    Ok((
        [(header::CONTENT_TYPE, HeaderValue::from_static(format::JSON))],
        body,
    )
        .into_response())
}

/// Refuses an upload that is clearly another model format on an endpoint
/// that reads MSH only (415); anything else goes to the MSH reader, whose
/// errors say what is wrong.
fn require_msh(bytes: &[u8], what: &str) -> Result<(), ApiError> {
    match sniff(bytes) {
        Some(f @ (Format::Glb | Format::Gltf | Format::Obj)) => Err(ApiError::unknown_format(
            format!(
                "{what} reads .msh models and .rlb archives; this upload looks like {}: convert it with /v1/convert?to=msh first",
                f.name()
            ),
        )),
        _ => Ok(()),
    }
}

/// `POST /v1/convert`.
pub async fn convert(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    q: Result<Query<ConvertQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let to = Format::from_query("to", &q.to)?;
    let given_from = q
        .from
        .as_deref()
        .map(|f| Format::from_query("from", f))
        .transpose()?;
    let part = match q.part.as_deref() {
        None => None,
        Some(p @ ("obj" | "mtl")) if to == Format::Obj => Some(p.to_string()),
        Some(p) => {
            return Err(ApiError::bad_request(
                "request.query",
                format!("part={p:?}: part is obj or mtl, and only with to=obj"),
            ))
        }
    };
    let options = Options::parse(
        q.lod,
        q.group,
        q.fps,
        q.axis.as_deref(),
        q.rotation.as_deref(),
        q.animation.as_deref(),
    )?;
    if let Some(from) = given_from {
        check_direction(from, to)?;
    }
    if q.entry.is_some() && given_from.is_some_and(|f| f != Format::Msh) {
        return Err(ApiError::bad_request(
            "request.query",
            "entry= names a model inside an .rlb archive; the input is not one",
        ));
    }
    let upload = read_upload(&headers, body, state.config().max_body, &ctx).await?;
    let from = match given_from.or_else(|| sniff(&upload.bytes)) {
        Some(f) => f,
        None => {
            return Err(ApiError::unknown_format(
                "the upload is not an MSH model or archive (NRes), a GLB, a glTF (JSON) or an OBJ (text); give from= if it is one",
            ))
        }
    };
    check_direction(from, to)?;
    if q.entry.is_some() && from != Format::Msh {
        return Err(ApiError::bad_request(
            "request.query",
            format!(
                "entry= names a model inside an .rlb archive; the input is {}",
                from.name()
            ),
        ));
    }
    let entry = q.entry.clone();
    let name_param = q.name.clone();
    let result = state
        .run_job(&ctx, move || {
            let (bytes, entry_name) = select(&upload.bytes, entry.as_deref(), false)?;
            let name = model_name(name_param.as_deref(), entry_name.as_deref(), &upload);
            let out = convert_files(
                bytes,
                upload.mtl.as_deref(),
                (from, to),
                &options,
                &name,
                &sanitize(&name),
            )?;
            let mut files = out.files;
            let (file_name, body, content_type) = match (to, part.as_deref()) {
                (Format::Obj, None) => {
                    let zip_name = format!("{}.zip", sanitize(&name));
                    let mut zip = Zip::new();
                    for (file, data) in &files {
                        zip.add(file, data);
                    }
                    (zip_name, zip.finish().map_err(|_| too_big())?, format::ZIP)
                }
                (_, part) => {
                    // One file: the first, or for part=mtl the second.
                    let index = usize::from(part == Some("mtl"));
                    if index >= files.len() {
                        return Err(ApiError::internal(
                            "a conversion gave fewer files than expected",
                        ));
                    }
                    let (file, data) = files.swap_remove(index);
                    (file, data, to.media_type())
                }
            };
            Ok((file_name, body, content_type, out.report))
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
            Ok(file_response(
                body,
                content_type,
                &file_name,
                Some(&report),
                Some(from),
            ))
        }
        Err(e) => {
            if let Some(outcome) = e.outcome.or(match e.code.as_str() {
                "server.timeout" => Some("timeout"),
                "internal" => Some("internal"),
                _ => None,
            }) {
                metrics.conversion(from.name(), to.name(), outcome);
            }
            Err(e)
        }
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
    q: Result<Query<ArchiveConvertQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let to = Format::from_query("to", &q.to)?;
    check_direction(Format::Msh, to)?;
    let options = Options::parse(
        q.lod,
        q.group,
        q.fps,
        q.axis.as_deref(),
        q.rotation.as_deref(),
        None,
    )?;
    let upload = read_upload(&headers, body, state.config().max_body, &ctx).await?;
    require_msh(&upload.bytes, "/v1/archive/convert")?;
    let zip_name = sanitize(&model_name(q.name.as_deref(), None, &upload));
    let metrics = state.metrics();
    let (zip, summary) = state
        .run_job(&ctx, move || -> Result<(Vec<u8>, ArchiveReport), ApiError> {
            let archive = nres::Archive::parse(&upload.bytes)?;
            // Model entries may share payloads (valid NRes): each would be
            // converted, and zipped, once per entry. Past the upload's own size
            // they are refused rather than multiplied.
            let shared: u64 = archive.nested_models().map(|e| e.data().len() as u64).sum();
            if shared > upload.bytes.len() as u64 {
                return Err(ApiError::unprocessable(
                    "archive.entries_overlap",
                    format!(
                        "the archive's model entries share their bytes: together they are {shared} bytes of a {}-byte upload, so each shared model would be converted once per entry; repack it with one entry per model",
                        upload.bytes.len()
                    ),
                ));
            }
            let mut zip = Zip::new();
            // Lowercased file names in use (the zip's names compare case-insensitively).
            let mut used: std::collections::HashSet<String> = std::collections::HashSet::new();
            let mut report = ArchiveReport {
                to: to.name(),
                models: 0,
                converted: 0,
                failed: 0,
                entries: Vec::new(),
            };
            for entry in archive.nested_models() {
                report.models += 1;
                let entry_name = entry.name();
                let name = stem(&entry_name).unwrap_or_else(|| "model".to_string());
                // Distinct file names: a repeated (case-insensitive) stem gets the entry index.
                let mut unique = sanitize(&name);
                if used.contains(&unique.to_ascii_lowercase()) {
                    unique = format!("{unique}-{}", entry.index());
                }
                used.insert(unique.to_ascii_lowercase());
                // The scene keeps the entry's stem; the files get the unique name.
                let result = convert_files(
                    entry.data(),
                    None,
                    (Format::Msh, to),
                    &options,
                    &name,
                    &unique,
                );
                match result {
                    Ok(out) => {
                        metrics.conversion("msh", to.name(), "ok");
                        let mut files = Vec::new();
                        for (file, data) in &out.files {
                            zip.add(file, data);
                            files.push(file.clone());
                        }
                        report.converted += 1;
                        report.entries.push(EntryReport {
                            entry: entry_name,
                            files,
                            error: None,
                            notes: out.report.notes,
                        });
                    }
                    Err(e) => {
                        let e = e.into_problem();
                        metrics.conversion("msh", to.name(), e.outcome.unwrap_or("invalid_input"));
                        report.failed += 1;
                        report.entries.push(EntryReport {
                            entry: entry_name,
                            files: Vec::new(),
                            error: Some(EntryError {
                                code: e.code,
                                message: e.detail,
                                path: e.path,
                                offset: e.offset,
                            }),
                            notes: Vec::new(),
                        });
                    }
                }
            }
            if report.models == 0 {
                return Err(ApiError::unprocessable(
                    "archive.no_models",
                    format!(
                        "the archive has no model entries (names ending in .msh) among its {} entries",
                        archive.len()
                    ),
                ));
            }
            let mut json = serde_json::to_vec_pretty(&report)
                .map_err(|e| ApiError::internal(format!("report.json: {e}")))?;
            json.push(b'\n');
            zip.add("report.json", &json);
            Ok((zip.finish().map_err(|_| too_big())?, report))
        })
        .await??;
    tracing::info!(
        to = to.name(),
        models = summary.models,
        converted = summary.converted,
        failed = summary.failed,
        "archive converted"
    );
    Ok(file_response(
        zip,
        format::ZIP,
        &format!("{zip_name}.zip"),
        None,
        Some(Format::Msh),
    ))
}

/// `POST /v1/validate`: the report, 200 whether or not the model is valid.
pub async fn validate(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    q: Result<Query<ModelQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let upload = read_upload(&headers, body, state.config().max_body, &ctx).await?;
    let result = state
        .run_job(&ctx, move || {
            let (bytes, entry) = select(&upload.bytes, q.entry.as_deref(), q.tolerant)?;
            let mode = msh::Mode::from_tolerant(q.tolerant);
            Ok::<_, ApiError>(msh::inspect::check(
                &label(q.name.as_deref(), entry.as_deref(), &upload),
                bytes,
                mode,
            ))
        })
        .await??;
    json_response(&result)
}

/// `POST /v1/inspect`.
pub async fn inspect(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    q: Result<Query<ModelQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let upload = read_upload(&headers, body, state.config().max_body, &ctx).await?;
    require_msh(&upload.bytes, "/v1/inspect")?;
    let inspection = state
        .run_job(&ctx, move || {
            let (bytes, entry) = select(&upload.bytes, q.entry.as_deref(), q.tolerant)?;
            let mode = msh::Mode::from_tolerant(q.tolerant);
            let opened = msh::open(bytes, mode)?;
            Ok::<_, ApiError>(msh::inspect::inspect(
                &label(q.name.as_deref(), entry.as_deref(), &upload),
                &opened,
            ))
        })
        .await??;
    json_response(&inspection)
}

/// `POST /v1/pose`.
pub async fn pose(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    q: Result<Query<PoseQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let upload = read_upload(&headers, body, state.config().max_body, &ctx).await?;
    require_msh(&upload.bytes, "/v1/pose")?;
    let doc = state
        .run_job(&ctx, move || {
            let (bytes, entry) = select(&upload.bytes, q.entry.as_deref(), q.tolerant)?;
            let mode = msh::Mode::from_tolerant(q.tolerant);
            let opened = msh::open(bytes, mode)?;
            let view = &opened.view;
            if let Some(what) = msh::inspect::not_poseable(view.kind) {
                return Err(ApiError::unprocessable(
                    "msh.unsupported",
                    format!(
                        "{} is {what}: its nodes are not decoded, so they cannot be posed",
                        label(q.name.as_deref(), entry.as_deref(), &upload)
                    ),
                ));
            }
            let poses = msh::pose::local_poses(view, q.time).map_err(msh::Error::from)?;
            Ok(msh::inspect::PoseDoc::new(view, q.time, &poses))
        })
        .await??;
    json_response(&doc)
}

/// `POST /v1/archive/list`.
pub async fn archive_list(
    State(state): State<AppState>,
    Extension(ctx): Extension<RequestContext>,
    q: Result<Query<ArchiveQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let q = query(q)?;
    let upload = read_upload(&headers, body, state.config().max_body, &ctx).await?;
    require_msh(&upload.bytes, "/v1/archive/list")?;
    let rows = state
        .run_job(&ctx, move || {
            let archive = if q.tolerant {
                nres::Archive::parse_tolerant(&upload.bytes)?.0
            } else {
                nres::Archive::parse(&upload.bytes)?
            };
            Ok::<_, ApiError>(msh::inspect::entry_rows(&archive))
        })
        .await??;
    json_response(&rows)
}

/// `GET /healthz`: the process is up.
pub async fn healthz() -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(format::JSON))],
        "{\"status\":\"ok\"}\n",
    )
        .into_response()
}

/// `GET /readyz`: 200 while the service takes work, 503 once it is shutting down.
pub async fn readyz(State(state): State<AppState>) -> Result<Response, ApiError> {
    if state.is_shutting_down() {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "server.shutting_down",
            "the service is shutting down: it finishes the requests in flight and takes no new work",
        );
        e.retry_after = Some(1);
        return Err(e);
    }
    json_response(&serde_json::json!({
        "status": "ready",
        "jobs_in_flight": state.metrics().jobs_in_flight(),
        "max_jobs": state.config().max_jobs,
    }))
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        state.metrics().render(state.config().max_jobs),
    )
        .into_response()
}

/// `GET /openapi.json`: the checked-in document, byte for byte.
pub async fn openapi() -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(format::JSON))],
        crate::OPENAPI,
    )
        .into_response()
}

/// Any path no route has.
pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "request.not_found",
        "no such endpoint; GET /openapi.json lists them",
    )
}

/// A route with another method.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "request.method_not_allowed",
        "this endpoint does not take this method; GET /openapi.json lists them",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_header_is_ascii_json_and_bounded() {
        let mut report = Report::default();
        report.note("a.b", "caf\u{e9} \u{1F600} \"quoted\"");
        let h = notes_header(&report);
        assert!(h.is_ascii());
        let v: serde_json::Value = serde_json::from_str(&h).unwrap();
        assert_eq!(v[0]["message"], "caf\u{e9} \u{1F600} \"quoted\"");
        for i in 0..2000 {
            report.note("x.y", format!("note {i}"));
        }
        let h = notes_header(&report);
        assert!(h.len() <= MAX_NOTES_HEADER);
        let v: serde_json::Value = serde_json::from_str(&h).unwrap();
        assert!(v.as_array().unwrap().len() < report.notes.len());
        assert!(HeaderValue::from_str(&h).is_ok());
    }

    #[test]
    fn options_as_the_cli_reads_them() {
        let o = Options::parse(
            Some(1),
            None,
            Some(30.0),
            Some("z-up"),
            Some("stored"),
            Some("2"),
        )
        .unwrap();
        assert_eq!((o.lod, o.group, o.fps), (1, 0, Some(30.0)));
        assert_eq!(o.axis, Some(Axis::ZUp));
        assert_eq!(o.rotation, Some(Rotation::Stored));
        assert_eq!(o.animation, AnimationChoice::Index(2));
        let o = Options::parse(None, None, None, None, None, Some("walk")).unwrap();
        assert_eq!(o.animation, AnimationChoice::Name("walk".into()));
        let e = Options::parse(None, None, None, Some("x-up"), None, None).unwrap_err();
        assert_eq!(
            (e.status.as_u16(), e.code.as_str()),
            (400, "option.invalid")
        );
    }

    #[test]
    fn names() {
        let upload = Upload {
            bytes: Default::default(),
            filename: Some("dir/tank.msh".into()),
            mtl: None,
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
