//! Every endpoint over a real loopback socket: raw and multipart uploads,
//! media types, file names, notes, request ids, and the errors 400/404/405/415/422.
//!
//! The tests are in `api/`, by topic: [`convert`], [`models`] (validate,
//! inspect, pose, archives), [`service`] (health, metrics, OpenAPI, routing)
//! and [`errors`]; the helpers they share are here.

mod common;

#[path = "api/convert.rs"]
mod convert;
#[path = "api/errors.rs"]
mod errors;
#[path = "api/models.rs"]
mod models;
#[path = "api/service.rs"]
mod service;

use common::*;
use std::collections::BTreeSet;

fn header(r: &reqwest::Response, name: &str) -> String {
    r.headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
        .to_string()
}
