//! The endpoints. A handler gets its query parsed ([`Params`]) and its upload
//! read ([`Upload`]) by the extractors, does the model work as a job (a slot
//! of the semaphore, on the blocking pool) through the application layer, and
//! answers with the right media type, or with an [`ApiError`].
//!
//! - [`convert`](mod@convert): `/v1/convert` and `/v1/archive/convert`;
//! - [`archive_put`](mod@archive_put): `/v1/archive/put`, with
//!   [`put_look`]: the look a glTF or OBJ carries into the game's libraries;
//! - [`model`]: `/v1/validate`, `/v1/inspect`, `/v1/pose`, `/v1/archive/list`;
//! - [`service`]: health, readiness, metrics, the OpenAPI document, 404/405;
//! - [`respond`]: the response shapes (files with their notes, JSON).
//!
//! [`Params`]: crate::extract::Params
//! [`Upload`]: crate::body::Upload
//! [`ApiError`]: crate::ApiError

pub mod archive_put;
pub mod convert;
pub mod model;
pub mod put_look;
pub mod respond;
pub mod service;

pub use archive_put::archive_put;
pub use convert::{archive_convert, convert};
pub use model::{archive_list, inspect, pose, validate};
pub use respond::{notes_header, FROM_HEADER, MAX_NOTES_HEADER, NOTES_COUNT_HEADER, NOTES_HEADER};
pub use service::{healthz, method_not_allowed, metrics, not_found, openapi, readyz};
