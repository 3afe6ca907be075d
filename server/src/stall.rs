//! Answers the client does not take: a connection whose answer could not be
//! written for a whole `--min-rate` period (the client took none of it) is
//! closed, and its answer dropped. An answer holds its bytes in the body
//! budget until written (`crate::middleware`), so without this a client that
//! never reads its answer held that part of the budget for as long as it
//! kept the connection open, and a few such clients refused every upload.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A connection whose writes fail (`TimedOut`) once one has waited `limit`
/// for the client to take a byte; reads pass through.
#[derive(Debug)]
pub(crate) struct WriteStall<S> {
    io: S,
    limit: Duration,
    /// Armed while a write waits; cleared by any byte written.
    waiting: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteStall<S> {
    /// `io`, whose writes may wait at most `limit` for the client.
    pub(crate) fn new(io: S, limit: Duration) -> Self {
        WriteStall {
            io,
            limit,
            waiting: None,
        }
    }

    /// What a write got: a result clears the wait; a wait past the limit
    /// is `TimedOut`.
    fn after<T>(&mut self, cx: &mut Context<'_>, got: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if got.is_ready() {
            self.waiting = None;
            return got;
        }
        let limit = self.limit;
        let waiting = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match waiting.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client took none of its answer for {limit:?}"),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteStall<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteStall<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let got = Pin::new(&mut this.io).poll_write(cx, buf);
        this.after(cx, got)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let got = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.after(cx, got)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let got = Pin::new(&mut this.io).poll_flush(cx);
        this.after(cx, got)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A pipe of 1 KiB: while the reader takes 512 bytes every 20 ms (well
    /// within the limit) the writer never fails; once it takes nothing, the
    /// next write that waits fails `TimedOut`, with what the pipe held left.
    #[tokio::test]
    async fn a_write_the_client_takes_nothing_of_fails_at_the_limit() {
        let (near, mut far) = tokio::io::duplex(1024);
        let mut io = WriteStall::new(near, Duration::from_millis(500));
        let chunk = [7u8; 8 * 1024];
        let reader = async {
            let mut buf = [0u8; 512];
            for _ in 0..14 {
                tokio::time::sleep(Duration::from_millis(20)).await;
                far.read_exact(&mut buf).await.unwrap();
            }
            far
        };
        let writer = async {
            io.write_all(&chunk[..8 * 1024]).await.unwrap();
        };
        let (mut far, ()) = tokio::join!(reader, writer);
        // 8 KiB written, 7 KiB taken: 1 KiB fills the pipe. Nothing more is taken.
        let e = tokio::time::timeout(Duration::from_secs(30), io.write_all(&chunk))
            .await
            .expect("the write fails within the guard time")
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        drop(io);
        let mut rest = Vec::new();
        far.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest.len(), 1024, "what the pipe held");
    }
}
