//! The budget of request bodies held in memory across all requests
//! (`--max-buffered`): every body is read whole before its job runs, so
//! without it many uploads at once could hold `--max-connections` x
//! `--max-body` bytes. A body reserves its bytes as they arrive, before it
//! keeps them (the bytes received, not the `Content-Length` declared: a
//! client that declares 64 MiB and sends a byte a second holds 1 KiB, not
//! 64 MiB), and keeps them until its request is done with it ([`Charge`],
//! dropped with the upload, also by work that runs on past its deadline). A
//! body that does not fit is answered 503 `server.busy` with `Retry-After`,
//! at once; what it held is free again before its answer goes out.
//!
//! A successful answer to a POST holds its bytes in the same budget until
//! they are sent ([`BodyBudget::hold`], `crate::middleware`): a client that
//! reads the head of its answer and never the rest kept the whole answer in
//! memory, outside every bound, so that clients that never read their
//! answers could fill any memory (issue 38). One that does not fit is 503
//! `server.busy` as well.

use crate::codes::ServerCode;
use crate::error::ApiError;
use axum::http::StatusCode;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The budget's unit: bytes are reserved in whole KiB.
const UNIT: usize = 1024;

/// The service's body budget.
#[derive(Debug, Clone)]
pub struct BodyBudget {
    units: Arc<Semaphore>,
    bytes: usize,
}

/// What one request holds of the budget; freed when dropped (with every clone).
#[derive(Debug, Clone, Default)]
pub struct Charge {
    /// Held, never read: dropping the last clone frees the bytes.
    _permit: Option<Arc<OwnedSemaphorePermit>>,
}

/// The bytes a body has reserved while it is read.
#[derive(Debug, Default)]
pub struct Reservation {
    permit: Option<OwnedSemaphorePermit>,
    bytes: usize,
}

impl BodyBudget {
    /// A budget of `bytes` (rounded up to whole KiB).
    pub fn new(bytes: usize) -> BodyBudget {
        let units = bytes.div_ceil(UNIT).clamp(1, Semaphore::MAX_PERMITS);
        BodyBudget {
            units: Arc::new(Semaphore::new(units)),
            bytes,
        }
    }

    /// The budget in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Bytes not reserved now.
    pub fn available(&self) -> usize {
        self.units.available_permits().saturating_mul(UNIT)
    }

    /// 503 `server.busy` at once when `bytes` (a declared `Content-Length`)
    /// are more than the budget has free now; nothing is reserved.
    pub fn admits(&self, bytes: u64) -> Result<(), ApiError> {
        if bytes > self.available() as u64 {
            return Err(self.busy());
        }
        Ok(())
    }

    /// Grows `reservation` to hold at least `bytes`; 503 `server.busy` when the
    /// budget has not that much free (what the reservation held stays held).
    pub fn reserve(&self, reservation: &mut Reservation, bytes: usize) -> Result<(), ApiError> {
        if bytes <= reservation.bytes {
            return Ok(());
        }
        let more = (bytes - reservation.bytes).div_ceil(UNIT);
        let permit = u32::try_from(more)
            .ok()
            .and_then(|n| Arc::clone(&self.units).try_acquire_many_owned(n).ok())
            .ok_or_else(|| self.busy())?;
        reservation.bytes += more * UNIT;
        match &mut reservation.permit {
            Some(held) => held.merge(permit),
            None => reservation.permit = Some(permit),
        }
        Ok(())
    }

    /// Holds `bytes` (at most the whole budget) for an answer until the
    /// charge is dropped; 503 `server.busy` when they do not fit now.
    pub fn hold(&self, bytes: usize) -> Result<Charge, ApiError> {
        let mut reservation = Reservation::default();
        self.reserve(&mut reservation, bytes.min(self.bytes))?;
        Ok(reservation.into_charge())
    }

    /// 503 `server.busy`: the bodies held now leave no room for this one.
    fn busy(&self) -> ApiError {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ServerCode::ServerBusy,
            format!(
                "the service holds as many request bodies and unsent answers as its budget allows ({} MiB, --max-buffered); retry shortly",
                self.bytes >> 20
            ),
        );
        e.retry_after = Some(1);
        e
    }
}

impl Reservation {
    /// The bytes reserved (whole KiB).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The reservation, kept for as long as the body's bytes are.
    pub fn into_charge(self) -> Charge {
        Charge {
            _permit: self.permit.map(Arc::new),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_held_until_dropped_and_refused_past_the_budget() {
        let budget = BodyBudget::new(10 * UNIT);
        let mut a = Reservation::default();
        budget.reserve(&mut a, 3 * UNIT + 1).unwrap();
        assert_eq!(budget.available(), 6 * UNIT);
        budget.reserve(&mut a, 2 * UNIT).unwrap(); // already held
        assert_eq!(budget.available(), 6 * UNIT);
        let mut b = Reservation::default();
        let e = budget.reserve(&mut b, 7 * UNIT).unwrap_err();
        assert_eq!((e.status.as_u16(), e.code.as_str()), (503, "server.busy"));
        assert_eq!(e.retry_after, Some(1));
        budget.reserve(&mut b, 6 * UNIT).unwrap();
        assert_eq!(budget.available(), 0);
        let charge = a.into_charge();
        let copy = charge.clone();
        drop(charge);
        assert_eq!(budget.available(), 0, "a clone still holds it");
        drop(copy);
        assert_eq!(budget.available(), 4 * UNIT);
        drop(b);
        assert_eq!(budget.available(), 10 * UNIT);
    }

    #[test]
    fn answers_hold_their_bytes_at_most_the_whole_budget() {
        let budget = BodyBudget::new(10 * UNIT);
        let answer = budget.hold(4 * UNIT + 1).unwrap();
        assert_eq!(budget.available(), 5 * UNIT);
        let e = budget.hold(6 * UNIT).unwrap_err();
        assert_eq!((e.status.as_u16(), e.code.as_str()), (503, "server.busy"));
        drop(answer);
        // Larger than the budget: all of it, and nothing else beside it.
        let whole = budget.hold(40 * UNIT).unwrap();
        assert_eq!(budget.available(), 0);
        budget.hold(1).unwrap_err();
        drop(whole);
        assert_eq!(budget.available(), 10 * UNIT);
    }

    #[test]
    fn a_declared_length_is_admitted_only_while_it_fits_and_reserves_nothing() {
        let budget = BodyBudget::new(10 * UNIT);
        budget.admits(10 * UNIT as u64).unwrap();
        assert_eq!(budget.available(), 10 * UNIT);
        let mut a = Reservation::default();
        budget.reserve(&mut a, 4 * UNIT).unwrap();
        budget.admits(6 * UNIT as u64).unwrap();
        let e = budget.admits(6 * UNIT as u64 + 1).unwrap_err();
        assert_eq!((e.status.as_u16(), e.code.as_str()), (503, "server.busy"));
        assert!(budget.admits(u64::MAX).is_err());
    }
}
