//! Reading an upload: the body size limit, the time limit, raw bodies and
//! `multipart/form-data`, the upload's file name (which names the model: `mshconv_app::names`).
//!
//! The limit is enforced without reading the whole body: a `Content-Length`
//! over it is answered 413 before the body is read (a client that sent
//! `Expect: 100-continue` is answered at once and never sends it), and a body
//! without one is read only until it passes the limit. A client caught in the
//! middle of sending gets a bounded linger (at most 1 MiB more is read and
//! dropped, for at most a second) so that it reads the 413 instead of a reset
//! connection.
//!
//! Every body also reserves its bytes in the service's body budget
//! ([`crate::budget`]) as they arrive (a `Content-Length` more than the budget
//! has free is answered at once, like one over the limit): one that does not
//! fit is answered 503 `server.busy`; one that does keeps its [`Charge`] in
//! the upload until its request is done with it. And it must arrive at the
//! least rate (`--min-rate`, [`crate::pace`]), else 408 `request.too_slow`.

use crate::budget::{BodyBudget, Charge, Reservation};
use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::game::LookFields;
use crate::pace::Pace;
use crate::RequestContext;
use axum::body::Body;
use axum::http::{header, HeaderMap};
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use mshconv_app::OptionName;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::time::Instant;

/// After a body has passed the limit, at most this many more bytes are read
/// and dropped before the 413 goes out (so a client still sending the end of
/// a slightly-too-large body reads the answer instead of a reset connection).
const LINGER_BYTES: usize = 1 << 20;
/// And for at most this long.
const LINGER_TIME: Duration = Duration::from_secs(1);

/// An uploaded model.
#[derive(Debug, Clone)]
pub struct Upload {
    /// The model's bytes.
    pub bytes: Bytes,
    /// The file name the multipart part gave, if any.
    pub filename: Option<String>,
    /// An `.mtl` for an `.obj` (the multipart field `mtl`).
    pub mtl: Option<Bytes>,
    /// The model's look: the multipart fields `wear`, `materials`, `textures`.
    pub look: LookFields,
    /// A clip list for an MSH -> glTF export (the multipart field `clips`:
    /// JSON, or the text form `idle=0..10:loop`).
    pub clips: Option<Bytes>,
    /// A glTF's original for an import to MSH (the multipart field
    /// `original`: the model it was exported from).
    pub original: Option<Bytes>,
    /// The body's bytes in the body budget, held as long as the upload.
    pub charge: Charge,
}

/// The body's declared length, if it declares one.
fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// True when the client waits for `100 Continue` before sending the body.
fn expects_continue(headers: &HeaderMap) -> bool {
    headers
        .get(header::EXPECT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("100-continue"))
}

/// Reads the whole body, up to `limit` bytes, before the request's deadline
/// and at no less than its least rate ([`crate::pace`]), each chunk's bytes
/// reserved in `budget` as it arrives (a declared length only has to fit in
/// what is free when the reading begins): the body and what it holds of the
/// budget.
pub async fn read_body(
    headers: &HeaderMap,
    mut body: Body,
    limit: usize,
    budget: &BodyBudget,
    ctx: &RequestContext,
) -> Result<(Bytes, Charge), ApiError> {
    let declared = content_length(headers);
    let refused_early = declared.and_then(|n| {
        if n > limit as u64 {
            Some(ApiError::too_large(limit))
        } else {
            budget.admits(n).err()
        }
    });
    if let Some(refused) = refused_early {
        // A client that waits for `100 Continue` sends nothing more: answer at
        // once. One that is sending gets a bounded linger, so it can read the answer.
        if !expects_continue(headers) {
            linger(body, ctx).await;
        }
        return Err(refused);
    }
    let mut reservation = Reservation::default();
    let mut pace = Pace::new(ctx.min_rate, Instant::now());
    // Room for the declared length at once, never moved as it fills; its
    // pages become memory only as the bytes are written (what the budget counts).
    let mut buf = BytesMut::with_capacity(declared.map_or(0, |n| n as usize));
    loop {
        let until = pace.span_end().min(ctx.deadline);
        let frame = match tokio::time::timeout_at(until, body.frame()).await {
            Err(_) if Instant::now() >= ctx.deadline => {
                return Err(ApiError::body_timeout(ctx.timeout))
            }
            Err(_) => None,
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err(ApiError::bad_request(
                    ServerCode::RequestBody,
                    format!("the request body could not be read: {e}"),
                ))
            }
            Ok(Some(Ok(frame))) => frame.into_data().ok(),
        };
        if let Some(data) = frame {
            ctx.bytes_in.fetch_add(data.len() as u64, Ordering::Relaxed);
            pace.arrived(data.len());
            let len = buf.len() + data.len();
            let refused = if len > limit {
                Some(ApiError::too_large(limit))
            } else {
                budget.reserve(&mut reservation, len).err()
            };
            if let Some(refused) = refused {
                // What it held is free before the linger: other bodies may use it.
                drop((reservation, buf));
                linger(body, ctx).await;
                return Err(refused);
            }
            buf.extend_from_slice(&data);
        }
        if pace.check(Instant::now()).is_err() {
            return Err(ApiError::too_slow(ctx.min_rate));
        }
    }
    Ok((buf.freeze(), reservation.into_charge()))
}

/// Reads and drops a bounded rest of a body that is over the limit.
async fn linger(mut body: Body, ctx: &RequestContext) {
    let until = (tokio::time::Instant::now() + LINGER_TIME).min(ctx.deadline);
    let mut dropped = 0usize;
    while dropped < LINGER_BYTES {
        match tokio::time::timeout_at(until, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    ctx.bytes_in.fetch_add(data.len() as u64, Ordering::Relaxed);
                    dropped += data.len();
                }
            }
            _ => break,
        }
    }
}

/// Reads an upload: the raw body, or the `file` (and optional `mtl`) field of
/// a `multipart/form-data` body.
pub async fn read_upload(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
    budget: &BodyBudget,
    ctx: &RequestContext,
) -> Result<Upload, ApiError> {
    let (bytes, charge) = read_body(headers, body, limit, budget, ctx).await?;
    let content_type = content_type(headers);
    let upload = if is_multipart(content_type) {
        multipart(content_type, bytes, charge).await?
    } else {
        Upload {
            bytes,
            filename: None,
            mtl: None,
            look: LookFields::default(),
            clips: None,
            original: None,
            charge,
        }
    };
    if upload.bytes.is_empty() {
        return Err(ApiError::bad_request(
            ServerCode::RequestEmptyBody,
            "the upload is empty: send the model as the request body, or as the multipart field `file`",
        ));
    }
    Ok(upload)
}

/// A multipart field read: its bytes and the file name its part gave.
type Field = (Bytes, Option<String>);

/// Reads the fields `allowed` of a `multipart/form-data` body, each at most
/// once, in the order of `allowed`; any other field is refused with `hint`.
async fn fields<const N: usize>(
    content_type: &str,
    bytes: Bytes,
    allowed: [&str; N],
    hint: &str,
) -> Result<[Option<Field>; N], ApiError> {
    let bad = |e: multer::Error| {
        ApiError::bad_request(
            ServerCode::RequestMultipart,
            format!("the multipart/form-data body is malformed: {e}"),
        )
    };
    let boundary = multer::parse_boundary(content_type).map_err(bad)?;
    let stream = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(bytes) });
    let mut parts = multer::Multipart::new(stream, boundary);
    let mut found: [Option<Field>; N] = std::array::from_fn(|_| None);
    while let Some(field) = parts.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or("").to_string();
        let Some(i) = allowed.iter().position(|a| *a == name) else {
            return Err(ApiError::bad_request(
                ServerCode::RequestMultipart,
                format!("unknown multipart field {name:?}: {hint}"),
            ));
        };
        if found[i].is_some() {
            return Err(ApiError::bad_request(
                ServerCode::RequestMultipart,
                format!("the multipart field {name:?} is given twice"),
            ));
        }
        let filename = field.file_name().map(str::to_string);
        found[i] = Some((field.bytes().await.map_err(bad)?, filename));
    }
    Ok(found)
}

/// Whether the body is `multipart/form-data`.
fn is_multipart(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("multipart/form-data"))
}

/// The body's `Content-Type`, or empty.
fn content_type(headers: &HeaderMap) -> &str {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// The fields of a conversion's multipart upload, in the order
/// [`multipart`] reads them: the model, an OBJ's `.mtl`, the clip list (the
/// field its row of `mshconv_app::OPTIONS` names), the look's three files,
/// a glTF's original.
fn upload_fields() -> [&'static str; 7] {
    let clips = OptionName::Clips.spec().field.unwrap_or("clips");
    [
        "file",
        "mtl",
        clips,
        "wear",
        "materials",
        "textures",
        "original",
    ]
}

async fn multipart(content_type: &str, bytes: Bytes, charge: Charge) -> Result<Upload, ApiError> {
    let allowed = upload_fields();
    let clips_field = allowed[2];
    let [file, mtl, clips, wear, materials, textures, original] = fields(
        content_type,
        bytes,
        allowed,
        &format!("send the model as `file` (and an OBJ's material library as `mtl`, a clip list as `{clips_field}`, a glTF's original model as `original`); a model's look as `wear`, `materials`, `textures`; options go in the query string"),
    )
    .await?;
    let (bytes, filename) = file.ok_or_else(|| {
        ApiError::bad_request(
            ServerCode::RequestMissingFile,
            "the multipart body has no field `file` (curl -F file=@model.msh)",
        )
    })?;
    Ok(Upload {
        bytes,
        filename,
        mtl: mtl.map(|(m, _)| m),
        look: LookFields::from_parts([wear, materials, textures]),
        clips: clips.map(|(c, _)| c),
        original: original.map(|(o, _)| o),
        charge,
    })
}

/// The upload of `POST /v1/archive/put`: an archive and the model to put into it.
#[derive(Debug, Clone)]
pub struct ArchiveUpload {
    /// The archive's bytes (the multipart field `archive`).
    pub archive: Bytes,
    /// The file name the `archive` part gave, if any.
    pub archive_name: Option<String>,
    /// The model (the field `file`, and an OBJ's `mtl`).
    pub model: Upload,
}

/// Reads the upload of `POST /v1/archive/put`: a `multipart/form-data` body
/// with the fields `archive` and `file` (and `mtl` for an `.obj`; the
/// libraries a glTF's or OBJ's look goes into as `materials` and
/// `textures`), nothing else.
pub async fn read_archive_upload(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
    budget: &BodyBudget,
    ctx: &RequestContext,
) -> Result<ArchiveUpload, ApiError> {
    let (bytes, charge) = read_body(headers, body, limit, budget, ctx).await?;
    let content_type = content_type(headers);
    if !is_multipart(content_type) {
        return Err(ApiError::bad_request(
            ServerCode::RequestMultipart,
            "send a multipart/form-data body with the archive as the field `archive` and the model as `file` (curl -F archive=@units.rlb -F file=@tank.msh)",
        ));
    }
    let [archive, file, mtl, materials, textures] = fields(
        content_type,
        bytes,
        ["archive", "file", "mtl", "materials", "textures"],
        "send the archive as `archive`, the model as `file` (and an OBJ's material library as `mtl`, the libraries its look goes into as `materials` and `textures`); options go in the query string",
    )
    .await?;
    let (archive, archive_name) = archive.ok_or_else(|| {
        ApiError::bad_request(
            ServerCode::RequestMissingArchive,
            "the multipart body has no field `archive`: send the .rlb as it (curl -F archive=@units.rlb)",
        )
    })?;
    let (model, filename) = file.ok_or_else(|| {
        ApiError::bad_request(
            ServerCode::RequestMissingFile,
            "the multipart body has no field `file`: send the model as it (curl -F file=@tank.msh)",
        )
    })?;
    if archive.is_empty() {
        return Err(ApiError::bad_request(
            ServerCode::RequestEmptyBody,
            "the field `archive` is empty: send the .rlb archive in it",
        ));
    }
    if model.is_empty() {
        return Err(ApiError::bad_request(
            ServerCode::RequestEmptyBody,
            "the field `file` is empty: send the model in it",
        ));
    }
    Ok(ArchiveUpload {
        archive,
        archive_name,
        model: Upload {
            bytes: model,
            filename,
            mtl: mtl.map(|(m, _)| m),
            look: LookFields::from_parts([None, materials, textures]),
            clips: None,
            original: None,
            charge,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_given_as_a_field_is_read_from_the_upload() {
        let fields = upload_fields();
        let given: Vec<_> = mshconv_app::OPTIONS
            .iter()
            .filter_map(|row| row.field)
            .collect();
        assert!(!given.is_empty());
        for field in given {
            assert!(fields.contains(&field), "{field}");
        }
        // Each field once.
        let mut sorted = fields.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), fields.len());
    }
}
