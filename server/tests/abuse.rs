//! Abuse over a real loopback socket (issue 12): a flood of malformed and
//! random requests mixed with valid ones, oversized and endless bodies, slow
//! uploads and slowloris heads, a thousand connections at once against the
//! real binary (its peak memory read from /proc), glTF URIs that point at
//! files or at a listener of the test's, archives that claim gigabytes, and
//! slow bodies against the body budget (issue 38).
//! docs/ROBUSTNESS.md says what each test proves.
//!
//! Random choices come from a fixed seed (SplitMix64), so every run sends the
//! same requests. Waits are for events, each under a generous guard that fails
//! the test instead of hanging; nothing asserts speed.
//!
//! The tests are in `abuse/`, by topic: [`flood`] (the mixed flood),
//! [`http`] (bodies, heads and slow clients), [`connections`] (a thousand
//! connections against the real binary), [`payloads`] (glTF URIs,
//! archives) and [`slow`] (slow clients and many large uploads against the
//! body budget); the helpers they share are here.

mod common;

#[path = "abuse/connections.rs"]
mod connections;
#[path = "abuse/flood.rs"]
mod flood;
#[path = "abuse/http.rs"]
mod http;
#[path = "abuse/payloads.rs"]
mod payloads;
#[path = "abuse/slow.rs"]
mod slow;

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Sends raw bytes on a new connection and ends the sending side (writing may
/// fail once the server has answered and closed), then reads what comes back.
async fn raw(addr: std::net::SocketAddr, request: &[u8]) -> Option<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let _ = stream.write_all(request).await;
    let _ = stream.shutdown().await;
    read_raw_response(&mut stream)
        .await
        .map(|(status, _, body)| (status, body))
}

/// The JSON documents the service writes: pretty, with a final newline.
fn json_bytes<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec_pretty(value).unwrap();
    v.push(b'\n');
    v
}
