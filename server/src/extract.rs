//! The extractors: the query, parsed into the application layer's types before
//! the body is read ([`Params`]), and the upload ([`Upload`]), read within the
//! body limit and the request's time limit. A handler receives both ready.

use crate::body::{read_upload, Upload};
use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::{AppState, RequestContext};
use axum::extract::{FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use mshconv_app::{Fps, Group, Lod, Options};
use serde::de::DeserializeOwned;

/// A query that becomes typed values: its syntax is deserialised (a bad one is
/// `request.query`), then [`FromQuery::parse`] checks its values.
pub trait FromQuery: Sized {
    /// The query's syntax.
    type Raw: DeserializeOwned + Send;
    /// The typed values, or the 400 that says which one is wrong.
    fn parse(raw: Self::Raw) -> Result<Self, ApiError>;
}

/// A parsed query ([`FromQuery`]). Extracted from the request's parts, so it
/// runs before the body is read: a malformed query is refused at once.
#[derive(Debug, Clone)]
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: FromQuery> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(raw) = Query::<T::Raw>::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::bad_request(ServerCode::RequestQuery, e.body_text()))?;
        T::parse(raw).map(Params)
    }
}

/// The request's context (which the middleware put there), its parts and its body.
fn split(req: Request) -> Result<(RequestContext, Parts, axum::body::Body), ApiError> {
    let ctx = req
        .extensions()
        .get::<RequestContext>()
        .cloned()
        .ok_or_else(|| ApiError::internal("the request has no context"))?;
    let (parts, body) = req.into_parts();
    Ok((ctx, parts, body))
}

impl FromRequest<AppState> for Upload {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let (ctx, parts, body) = split(req)?;
        let budget = state.body_budget();
        read_upload(&parts.headers, body, state.config().max_body, budget, &ctx).await
    }
}

/// The upload of `POST /v1/archive/put` (`archive`, `file`, `mtl`), read as [`Upload`] is.
impl FromRequest<AppState> for crate::body::ArchiveUpload {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, ApiError> {
        let (ctx, parts, body) = split(req)?;
        let (limit, budget) = (state.config().max_body, state.body_budget());
        crate::body::read_archive_upload(&parts.headers, body, limit, budget, &ctx).await
    }
}

/// The conversion options as the query spells them (`lod=1&fps=30&axis=z-up`):
/// numbers must be numbers (`request.query`); every value is then checked by
/// the application layer (`option.invalid`).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct OptionsQuery {
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
    /// MSH -> glTF: the clip list (`idle=0..10:loop,walk=11..40:loop`, or JSON).
    pub clips: Option<String>,
}

impl OptionsQuery {
    /// The options, checked; `animation` is the import's choice when the
    /// endpoint takes one.
    pub fn options(&self, animation: Option<&str>) -> Result<Options, ApiError> {
        use mshconv_app::OptionName as N;
        let mut options = Options {
            lod: self.lod.map(Lod::new).transpose()?.unwrap_or_default(),
            group: self.group.map(Group::new).transpose()?.unwrap_or_default(),
            fps: self.fps.map(Fps::new).transpose()?,
            ..Options::default()
        };
        let texts = [
            (N::Axis, self.axis.as_deref()),
            (N::Rotation, self.rotation.as_deref()),
            (N::Animation, animation),
            (N::Clips, self.clips.as_deref()),
        ];
        for (name, value) in texts {
            if let Some(value) = value {
                options.set(name, value)?;
            }
        }
        Ok(options)
    }
}

/// The options with the upload's multipart field `clips` (JSON or the text
/// form), checked as `clips=` is; given both ways it is `request.query`.
pub fn with_clips(mut options: Options, field: Option<&[u8]>) -> Result<Options, ApiError> {
    let Some(field) = field else {
        return Ok(options);
    };
    if options.clips.is_some() {
        return Err(ApiError::bad_request(
            ServerCode::RequestQuery,
            "the clips are given twice: as clips= and as the multipart field `clips`; give one",
        ));
    }
    let text = std::str::from_utf8(field).map_err(|_| {
        ApiError::bad_request(
            mshconv_convert::codes::Code::ClipsInvalid,
            "the multipart field `clips` is not UTF-8 text",
        )
    })?;
    options.set(mshconv_app::OptionName::Clips, text)?;
    Ok(options)
}

/// A `from=`/`to=` value, or a 400 naming the parameter.
pub fn format_param(param: &str, text: &str) -> Result<mshconv_app::Format, ApiError> {
    text.parse().map_err(|_| {
        ApiError::bad_request(
            ServerCode::RequestBadFormat,
            format!(
                "{param}={text:?} is not a format: use {}",
                mshconv_app::Format::ALL.map(|f| f.name()).join(", ")
            ),
        )
    })
}
