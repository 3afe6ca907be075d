//! What the integration tests share: a real server on a loopback socket,
//! fixtures, and checks of problem documents.

#![allow(dead_code)]

use mshconv_server::{AppState, Config};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

#[path = "../../../crates/mshconv/tests/common/by_bytes.rs"]
pub mod by_bytes;

/// A generous guard for anything that should happen "promptly": a test that
/// hits it fails instead of hanging; it is never a speed assertion.
pub const GUARD: Duration = Duration::from_secs(60);

/// A server spawned in the test, on 127.0.0.1 with a port of its own.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The bound address.
    pub addr: SocketAddr,
    /// The server's state (to read its metrics directly).
    pub state: AppState,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<std::io::Result<()>>>,
}

/// A configuration for tests: loopback, port 0, 4 job slots.
pub fn config() -> Config {
    Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        max_jobs: 4,
        ..Config::default()
    }
}

impl TestServer {
    /// Binds 127.0.0.1:0 and serves `config` until [`TestServer::stop`].
    pub async fn start(config: Config) -> TestServer {
        let listener = tokio::net::TcpListener::bind(config.addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = AppState::new(config);
        let (tx, rx) = oneshot::channel::<()>();
        let handle = tokio::spawn(mshconv_server::serve(listener, state.clone(), async move {
            let _ = rx.await;
        }));
        TestServer {
            base: format!("http://{addr}"),
            addr,
            state,
            shutdown: Some(tx),
            handle: Some(handle),
        }
    }

    /// The URL of a path (with its query).
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base)
    }

    /// Begins a graceful shutdown.
    pub fn trigger_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Shuts down and waits (within [`GUARD`]) for the server to return.
    pub async fn stop(mut self) {
        self.trigger_shutdown();
        let handle = self.handle.take().unwrap();
        tokio::time::timeout(GUARD, handle)
            .await
            .expect("the server stops within the guard time")
            .expect("the server task does not panic")
            .expect("the server returns Ok");
    }

    /// Waits (polling, within [`GUARD`]) until `n` jobs hold a slot.
    pub async fn wait_for_jobs(&self, n: u64) {
        let metrics = self.state.metrics();
        tokio::time::timeout(GUARD, async {
            while metrics.jobs_in_flight() != n {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{n} jobs in flight within the guard time"));
    }
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fixture's bytes, by path from the repository root.
pub fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The animated fixture the README converts.
pub const WALKER: &str = "fixtures/small/models/m095_walker.msh";
/// An archive of models.
pub const ARCHIVE: &str = "fixtures/small/archives/small.rlb";
/// A damaged model: batch 0's index count is 4.
pub const DAMAGED: &str = "fixtures/small/damaged/anim4__batch0_index_count_4.msh";

/// An HTTP client (no proxies: loopback only).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(GUARD)
        .build()
        .unwrap()
}

/// A multipart form with `bytes` as the field `file` named `file_name`.
pub fn form(bytes: Vec<u8>, file_name: &str) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_string()),
    )
}

/// Checks that a response is a problem document with this status and code,
/// naming the request id, and returns it.
pub async fn problem(response: reqwest::Response, status: u16, code: &str) -> serde_json::Value {
    assert_eq!(response.status().as_u16(), status, "status");
    let ct = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(ct, "application/problem+json");
    let id = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_string();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["status"], status, "{body}");
    assert_eq!(body["instance"], id.as_str(), "{body}");
    assert_eq!(body["type"], format!("urn:mshconv:error:{code}"), "{body}");
    assert!(
        body["title"].is_string() && body["detail"].is_string(),
        "{body}"
    );
    body
}

/// The GLB the library makes of `bytes` with default options and this name.
pub fn library_glb(bytes: &[u8], name: &str) -> Vec<u8> {
    let options = mshconv_gltf::ExportOptions {
        name: name.to_string(),
        ..Default::default()
    };
    mshconv_gltf::msh_to_gltf(bytes, &options).unwrap().0
}

/// Reads one raw HTTP/1.1 response from `stream`, until the server closes or
/// the `Content-Length` body is complete: its status, head and body, or `None`
/// when the server closed without a complete head. Fails the test when neither
/// happens within [`GUARD`].
pub async fn read_raw_response(
    stream: &mut tokio::net::TcpStream,
) -> Option<(u16, String, Vec<u8>)> {
    use tokio::io::AsyncReadExt as _;
    let mut data = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let read = async {
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            data.extend_from_slice(&buf[..n]);
            if let Some(end) = find(&data, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&data[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok());
                if length.is_some_and(|len| data.len() >= end + 4 + len) {
                    return;
                }
            }
        }
    };
    tokio::time::timeout(GUARD, read)
        .await
        .expect("the server answers or closes within the guard time");
    let end = find(&data, b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&data[..end]).to_string();
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, head, data[end + 4..].to_vec()))
}

/// `target/<profile>/mshconv`, beside this test's `deps/` folder, if built.
pub fn cli_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let cli = exe
        .parent()?
        .parent()?
        .join(format!("mshconv{}", std::env::consts::EXE_SUFFIX));
    cli.is_file().then_some(cli)
}

/// The first position of `needle` in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The real binary, listening on a port of its own; ended when dropped.
pub struct Binary {
    /// The process.
    pub child: std::process::Child,
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    /// Its log lines, kept (and dropped unread) while it runs.
    _lines: std::sync::mpsc::Receiver<String>,
}

/// The real binary with `args` (`RUST_LOG=info`, no `MSHCONV_ADDR`), and
/// its log lines (stdout) as they come: read all along, so that the binary
/// never blocks on its log, also once nobody listens.
pub fn spawn_server(args: &[&str]) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    spawn_limited(Limit::None, args)
}

/// How the binary's memory is limited. With a limit, a helper starts it and
/// then becomes it (`exec`): the child's id is the server's.
#[derive(Debug, Clone, Copy)]
pub enum Limit<'a> {
    /// No limit.
    None,
    /// At most this many bytes of virtual memory (`RLIMIT_AS`, set by
    /// util-linux's `prlimit`): an allocation past it fails, and the process
    /// aborts. It counts memory reserved, not used.
    AddressSpace(u64),
    /// In this memory cgroup (its folder) from its first instruction, as a
    /// container runs it: a shell writes its own id into the cgroup's
    /// `cgroup.procs`, then becomes the binary. The cgroup's limit counts
    /// the memory used; past it the kernel reclaims, then kills.
    Cgroup(&'a std::path::Path),
}

/// [`spawn_server`] under `limit`.
pub fn spawn_limited(
    limit: Limit,
    args: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    let server = env!("CARGO_BIN_EXE_mshconv-server");
    let mut command = match limit {
        Limit::None => std::process::Command::new(server),
        Limit::AddressSpace(bytes) => {
            let mut c = std::process::Command::new("prlimit");
            c.arg(format!("--as={bytes}")).arg("--").arg(server);
            c
        }
        Limit::Cgroup(dir) => {
            let mut c = std::process::Command::new("sh");
            c.arg("-c")
                .arg(r#"echo $$ > "$0" && exec "$@""#)
                .arg(dir.join("cgroup.procs"))
                .arg(server);
            c
        }
    };
    let mut child = command
        .args(args)
        .env("RUST_LOG", "info")
        .env_remove("MSHCONV_ADDR")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

impl Binary {
    /// Starts it with `args` (and `--addr 127.0.0.1:0`), once it says where it listens.
    pub fn start(args: &[&str]) -> Binary {
        Binary::start_limited(Limit::None, args)
    }

    /// [`Binary::start`] under `limit` ([`spawn_limited`]).
    pub fn start_limited(limit: Limit, args: &[&str]) -> Binary {
        let args: Vec<&str> = ["--addr", "127.0.0.1:0"]
            .iter()
            .chain(args)
            .copied()
            .collect();
        let (child, lines) = spawn_limited(limit, &args);
        let deadline = std::time::Instant::now() + GUARD;
        let addr = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = lines
                .recv_timeout(left)
                .expect("the binary says where it listens");
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .parse()
                    .unwrap();
            }
        };
        Binary {
            child,
            addr,
            _lines: lines,
        }
    }

    /// The peak resident memory so far (VmHWM), in bytes.
    pub fn peak_memory(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().strip_suffix("kB"))
            .and_then(|v| v.trim().parse().ok())
            .expect("VmHWM in /proc/PID/status");
        kb * 1024
    }

    /// The URL of a path (with its query).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        // The process this test started, by its handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The game's look for the walker: a WEAR whose every row (as many as the
/// walker's material indices need) names `GREEN`, a `Material.lib` with
/// `GREEN` (texture `GREEN_TEX`), a `Textures.lib` with `GREEN_TEX`, `image`
/// in `format`: the WEAR's, `Material.lib`'s and `Textures.lib`'s bytes.
pub fn walker_look(
    image: &mshconv_material::texm::Rgba8Image,
    format: mshconv_material::texm::PixelFormat,
) -> [Vec<u8>; 3] {
    use mshconv_material::mat0::{Mat0, Phase, MAT0_TYPE_ID};
    use mshconv_material::texm::TEXM_MAGIC;
    use mshconv_material::{wear::WearRow, Texm, Wear};
    use nres::{OwnedArchive, OwnedEntry, WriteMode};
    let walker = fixture(WALKER);
    let opened = msh::open(&walker, msh::Mode::Strict).unwrap();
    let rows = opened
        .view
        .batches
        .iter()
        .map(|b| b.material_index.get())
        .max()
        .unwrap()
        + 1;
    let wear = Wear::new(
        (0..rows)
            .map(|i| WearRow::new(i.to_string(), "GREEN"))
            .collect(),
    );
    let library = |entry: OwnedEntry| {
        let mut a = OwnedArchive::new();
        a.push(entry);
        a.write(WriteMode::Canonical).unwrap()
    };
    let mat0 = Mat0 {
        phases: vec![Phase::new(b"GREEN_TEX")],
        ..Mat0::default()
    };
    let texm = Texm::from_rgba8(image, format, None).unwrap();
    [
        wear.write().unwrap(),
        library(OwnedEntry::new(MAT0_TYPE_ID, "GREEN", mat0.write().unwrap()).unwrap()),
        library(OwnedEntry::new(TEXM_MAGIC, "GREEN_TEX", texm.write().unwrap()).unwrap()),
    ]
}

/// The files of a zip, by name, in order.
pub fn zip_files(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    (0..archive.len())
        .map(|i| {
            let mut f = archive.by_index(i).unwrap();
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut data).unwrap();
            (f.name().to_string(), data)
        })
        .collect()
}

/// `count` model entries `E00000.MSH`, ... all on one `payload`: the
/// shape that made writers copy it once per entry.
pub fn shared_archive(payload: &[u8], count: usize) -> Vec<u8> {
    let entries: Vec<(String, std::ops::Range<u32>)> = (0..count)
        .map(|i| (format!("E{i:05}.MSH"), 0..payload.len() as u32))
        .collect();
    by_bytes::archive_by_bytes(payload, &entries)
}
