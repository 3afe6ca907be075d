//! The least rate of a request body (`--min-rate`): while a body arrives, at
//! least `bytes` of it must come in every `per`. The first span starts when
//! the body's reading begins (it is also the client's grace to start); each
//! next one starts when the one before it is checked. A body that ends within
//! a span is never checked. A body slower than that is refused 408
//! `request.too_slow` at the end of the span it fell short in, so a client
//! that trickles a body (or sends most of it and stalls) holds its connection
//! and what it sent of the body budget for at most one span more, not for
//! the whole `--timeout`.

use crate::config::MinRate;
use tokio::time::Instant;

/// A body fell short of the least rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooSlow;

/// The pace of one body: the current span and what arrived in it.
#[derive(Debug, Clone)]
pub struct Pace {
    rate: MinRate,
    span_end: Instant,
    arrived: usize,
}

impl Pace {
    /// A body whose reading begins at `now`.
    pub fn new(rate: MinRate, now: Instant) -> Pace {
        Pace {
            rate,
            span_end: now + rate.per,
            arrived: 0,
        }
    }

    /// When the current span ends: a read of the body waits no longer.
    pub fn span_end(&self) -> Instant {
        self.span_end
    }

    /// Counts `n` bytes that arrived.
    pub fn arrived(&mut self, n: usize) {
        self.arrived = self.arrived.saturating_add(n);
    }

    /// Checks the span once it has ended (at `now`): enough arrived in it, and
    /// the next span begins now; or [`TooSlow`]. Before its end, nothing.
    pub fn check(&mut self, now: Instant) -> Result<(), TooSlow> {
        if now < self.span_end {
            return Ok(());
        }
        if self.arrived < self.rate.bytes {
            return Err(TooSlow);
        }
        self.span_end = now + self.rate.per;
        self.arrived = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_span_needs_the_least_bytes_and_the_next_begins_when_one_is_checked() {
        let rate = MinRate {
            bytes: 100,
            per: Duration::from_secs(10),
        };
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let mut pace = Pace::new(rate, start);
        assert_eq!(pace.span_end(), at(10));
        // Within the first span nothing is checked, however little arrived.
        assert_eq!(pace.check(at(9)), Ok(()));
        pace.arrived(60);
        pace.arrived(40);
        // 100 bytes in the first span: enough; the next span runs 12..22.
        assert_eq!(pace.check(at(12)), Ok(()));
        assert_eq!(pace.span_end(), at(22));
        // What arrived before does not count for the next span.
        pace.arrived(99);
        assert_eq!(pace.check(at(21)), Ok(()));
        assert_eq!(pace.check(at(22)), Err(TooSlow));
        // A body that sends nothing at all is refused at the first span's end.
        let mut silent = Pace::new(rate, start);
        assert_eq!(silent.check(at(10)), Err(TooSlow));
    }
}
