//! The extractors: the query, parsed into the application layer's types before
//! the body is read ([`Params`]), and the upload ([`Upload`]), read within the
//! body limit and the request's time limit. A handler receives both ready.

use crate::body::{read_upload, Upload};
use crate::codes::ServerCode;
use crate::error::ApiError;
use crate::{AppState, RequestContext};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use mshconv_app::{OptionSpec, Options, OPTIONS};

/// A query that becomes typed values: its parameters are split
/// ([`Query::new`]: a key given twice is `request.query`, a key the endpoint
/// does not take is `request.unknown_parameter`), then
/// [`FromQuery::parse`] takes and checks its values.
pub trait FromQuery: Sized {
    /// The endpoint's own parameters, besides the conversion options.
    const OWN: &'static [&'static str];
    /// Which conversion options ([`OPTIONS`]) the endpoint takes.
    fn takes(_option: &OptionSpec) -> bool {
        false
    }
    /// The typed values, or the 400 that says which one is wrong.
    fn parse(query: Query) -> Result<Self, ApiError>;
}

/// Every parameter an endpoint takes: its own, then its options' query names.
pub fn keys<T: FromQuery>() -> Vec<&'static str> {
    let options = OPTIONS
        .iter()
        .filter(|row| T::takes(row))
        .map(|row| row.query);
    T::OWN.iter().copied().chain(options).collect()
}

/// The options of `/v1/convert`: every one.
pub fn convert_options(_option: &OptionSpec) -> bool {
    true
}

/// The options of `/v1/archive/convert`: the export's, but one model's (`clips`).
pub fn archive_options(option: &OptionSpec) -> bool {
    option.export && !option.one_model
}

/// The options of `/v1/archive/put`: the import's.
pub fn import_options(option: &OptionSpec) -> bool {
    option.import
}

/// A query's parameters, each given once and each one the endpoint takes;
/// the endpoint takes them out by name.
#[derive(Debug, Clone, Default)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// The parameters, checked against the keys the endpoint takes.
    pub fn new(pairs: Vec<(String, String)>, keys: &[&str]) -> Result<Query, ApiError> {
        for (i, (key, _)) in pairs.iter().enumerate() {
            if !keys.contains(&key.as_str()) {
                return Err(ApiError::bad_request(
                    ServerCode::RequestUnknownParameter,
                    format!(
                        "unknown query parameter {key:?}: this endpoint takes {}",
                        keys.join(", ")
                    ),
                ));
            }
            if pairs[..i].iter().any(|(k, _)| k == key) {
                return Err(ApiError::bad_request(
                    ServerCode::RequestQuery,
                    format!("{key}= is given twice; give it once"),
                ));
            }
        }
        Ok(Query(pairs))
    }

    /// The value of `key`, taken out.
    pub fn take(&mut self, key: &str) -> Option<String> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.swap_remove(i).1)
    }

    /// The value of `key`, which the endpoint needs.
    pub fn require(&mut self, key: &str, what: &str) -> Result<String, ApiError> {
        self.take(key).ok_or_else(|| {
            ApiError::bad_request(
                ServerCode::RequestQuery,
                format!("{key}= is missing: {what}"),
            )
        })
    }

    /// A `true`/`false` parameter; absent, false.
    pub fn flag(&mut self, key: &str) -> Result<bool, ApiError> {
        match self.take(key).as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(ApiError::bad_request(
                ServerCode::RequestQuery,
                format!("{key}={other:?}: {key} is true or false"),
            )),
        }
    }

    /// The conversion options the endpoint takes (`takes`), each parsed and
    /// range-checked by the application layer ([`Options::set`], as the
    /// CLI's flags), in the table's order.
    pub fn options(&mut self, takes: fn(&OptionSpec) -> bool) -> Result<Options, ApiError> {
        let mut options = Options::default();
        for row in OPTIONS.iter().filter(|row| takes(row)) {
            if let Some(value) = self.take(row.query) {
                options.set(row.name, &value)?;
            }
        }
        Ok(options)
    }
}

/// A parsed query ([`FromQuery`]). Extracted from the request's parts, so it
/// runs before the body is read: a malformed query is refused at once.
#[derive(Debug, Clone)]
pub struct Params<T>(pub T);

impl<S: Send + Sync, T: FromQuery> FromRequestParts<S> for Params<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(pairs) =
            axum::extract::Query::<Vec<(String, String)>>::from_request_parts(parts, state)
                .await
                .map_err(|e| ApiError::bad_request(ServerCode::RequestQuery, e.body_text()))?;
        T::parse(Query::new(pairs, &keys::<T>())?).map(Params)
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

/// The options with the upload's multipart field `clips` (JSON or the text
/// form), checked as `clips=` is; given both ways it is `request.query`.
pub fn with_clips(mut options: Options, field: Option<&[u8]>) -> Result<Options, ApiError> {
    let Some(field) = field else {
        return Ok(options);
    };
    let row = mshconv_app::OptionName::Clips.spec();
    let name = row.field.unwrap_or(row.query);
    if options.clips.is_some() {
        return Err(ApiError::bad_request(
            ServerCode::RequestQuery,
            format!(
                "the clips are given twice: as {}= and as the multipart field `{name}`; give one",
                row.query
            ),
        ));
    }
    let text = std::str::from_utf8(field).map_err(|_| {
        ApiError::bad_request(
            mshconv_convert::codes::Code::ClipsInvalid,
            format!("the multipart field `{name}` is not UTF-8 text"),
        )
    })?;
    options.set(row.name, text)?;
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
