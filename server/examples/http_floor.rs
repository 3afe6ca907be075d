//! The HTTP floor of the service benchmark (bench/run.sh, part (d)): what bare
//! HTTP costs on this machine, with nothing of the service around it.
//!
//! `POST /v1/convert` reads the whole request body and answers 200 with
//! `<glb_bytes>` bytes of `model/gltf-binary` (the size of the GLB the real
//! service returns for the bench's model). No conversion, no middleware, no
//! access log, no limits or timers: only axum's routing and the body read and
//! sent, over the same stack as `mshconv-server` (this package's axum, hyper
//! and tokio with the same features; hyper's HTTP/1 connection per accepted
//! socket with keep-alive, as `serve.rs` does; tokio's multi-thread runtime
//! with its default worker count, one per CPU, as `main.rs` builds it). Any
//! other path or method gets axum's empty 404/405.
//!
//! Listens on 127.0.0.1 only, until killed.
//!
//! `cargo run --release -p mshconv-server --example http_floor -- PORT GLB_BYTES`
#![forbid(unsafe_code)]

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::Router;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use std::net::{Ipv4Addr, SocketAddr};
use std::process::ExitCode;

/// The answer to every request: the body read whole (the same as the
/// service's handler has it before converting), then the fixed GLB-sized
/// body, shared (no copy per request).
async fn convert(State(glb): State<Bytes>, body: Bytes) -> impl IntoResponse {
    std::hint::black_box(body);
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "model/gltf-binary")],
        glb,
    )
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(port), Some(size)) = (
        args.first().and_then(|s| s.parse::<u16>().ok()),
        args.get(1).and_then(|s| s.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: http_floor PORT GLB_BYTES");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("http_floor: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async move {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("http_floor: cannot listen on {addr}: {e}");
                return ExitCode::from(1);
            }
        };
        let app = Router::new()
            .route("/v1/convert", post(convert))
            .with_state(Bytes::from(vec![0u8; size]));
        let service = TowerToHyperService::new(app);
        eprintln!("http_floor: http://{addr}/v1/convert answers {size} bytes");
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _peer)) => stream,
                Err(e) => {
                    // Out of descriptors and the like: wait a little, as axum's accept does.
                    eprintln!("http_floor: accept: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            };
            let service = service.clone();
            tokio::spawn(async move {
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    })
}
