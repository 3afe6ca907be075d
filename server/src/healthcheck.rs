//! `mshconv-server --healthcheck`: asks a running service's `GET /healthz`
//! with a minimal HTTP/1.1 request over std's blocking socket, so the
//! container image needs no curl.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

/// How long the check waits for the connection and for the answer.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// The address to ask: `addr`, with an unspecified IP (`0.0.0.0`, `::`) as
/// the loopback address of the same family.
pub fn target(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port())
        }
        _ => addr,
    }
}

/// Asks `GET /healthz` at `addr`; `Ok` when the answer is 200, otherwise
/// what went wrong.
pub fn check(addr: SocketAddr) -> Result<(), String> {
    let addr = target(addr);
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT)
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(TIMEOUT)))
        .map_err(|e| format!("cannot set socket time-outs: {e}"))?;
    let request =
        format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nUser-Agent: mshconv-server-healthcheck\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("cannot send to {addr}: {e}"))?;
    let mut head = Vec::new();
    let mut buf = [0u8; 512];
    // The status line is all that is needed.
    while !head.contains(&b'\n') && head.len() < 4096 {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(e) => return Err(format!("no answer from {addr}: {e}")),
        }
    }
    let text = String::from_utf8_lossy(&head);
    let status_line = text.lines().next().unwrap_or("");
    match status_line.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        _ => Err(format!("{addr} answered {status_line:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_becomes_loopback() {
        let t = target("0.0.0.0:8080".parse().unwrap());
        assert_eq!(t, "127.0.0.1:8080".parse().unwrap());
        let t = target("[::]:9".parse().unwrap());
        assert_eq!(t, "[::1]:9".parse().unwrap());
        let t = target("10.1.2.3:9".parse().unwrap());
        assert_eq!(t, "10.1.2.3:9".parse().unwrap());
    }

    #[test]
    fn nothing_listening_is_an_error() {
        // Bind, learn the port, close: nothing listens there any more.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        assert!(check(port).is_err());
    }
}
