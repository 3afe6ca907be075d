//! Counters and a histogram in the Prometheus text format (version 0.0.4),
//! written by hand: a handful of series does not need a metrics crate.
//!
//! Series (every name starts with `mshconv_`):
//! - `http_requests_total{route,method,status}`: requests answered;
//! - `http_request_duration_seconds{route}`: histogram of the time to answer;
//! - `http_request_bytes_total{route}`, `http_response_bytes_total{route}`:
//!   body bytes read and sent;
//! - `conversions_total{from,to,outcome}`: conversions by formats and outcome
//!   (`ok`, or the failure: `invalid_input`, `unsupported`, `bad_option`,
//!   `output`, `timeout`, `internal`);
//! - `jobs_in_flight`, `jobs_max`: job slots in use and in all;
//! - `jobs_rejected_total`: requests turned away with 503 because every slot was busy.
//!
//! `route` is the route's pattern (`/v1/convert`), or `unmatched` for a path
//! no route has, and `method` is one of the standard methods or `other`, so
//! the label set stays bounded (HTTP lets a client invent any method name).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Upper bounds of the duration histogram's buckets, in seconds.
pub const BUCKETS: [f64; 13] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
];

/// The service's metrics.
#[derive(Debug, Default)]
pub struct Metrics {
    inner: Mutex<Inner>,
    jobs_in_flight: AtomicU64,
    jobs_rejected: AtomicU64,
}

#[derive(Debug, Default)]
struct Inner {
    requests: BTreeMap<(String, String, u16), u64>,
    durations: BTreeMap<String, Histogram>,
    bytes_in: BTreeMap<String, u64>,
    bytes_out: BTreeMap<String, u64>,
    conversions: BTreeMap<(&'static str, &'static str, &'static str), u64>,
}

#[derive(Debug, Default, Clone)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// One answered request, as the request middleware saw it.
#[derive(Debug, Clone)]
pub struct RequestSample<'a> {
    /// Route pattern or `unmatched`.
    pub route: &'a str,
    /// HTTP method.
    pub method: &'a str,
    /// Response status.
    pub status: u16,
    /// Time from arrival to the response.
    pub elapsed: Duration,
    /// Request body bytes read.
    pub bytes_in: u64,
    /// Response body bytes.
    pub bytes_out: u64,
}

/// Holds one job slot in the `jobs_in_flight` gauge until dropped.
#[derive(Debug)]
pub struct InFlight(Arc<Metrics>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.jobs_in_flight.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Metrics {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves counts that are still counts.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records an answered request.
    pub fn request(&self, s: &RequestSample<'_>) {
        let mut inner = self.lock();
        *inner
            .requests
            .entry((
                s.route.to_string(),
                method_label(s.method).to_string(),
                s.status,
            ))
            .or_default() += 1;
        let h = inner.durations.entry(s.route.to_string()).or_default();
        let seconds = s.elapsed.as_secs_f64();
        for (count, bound) in h.counts.iter_mut().zip(BUCKETS) {
            if seconds <= bound {
                *count += 1;
            }
        }
        h.count += 1;
        h.sum += seconds;
        *inner.bytes_in.entry(s.route.to_string()).or_default() += s.bytes_in;
        *inner.bytes_out.entry(s.route.to_string()).or_default() += s.bytes_out;
    }

    /// Records one conversion's outcome.
    pub fn conversion(&self, from: &'static str, to: &'static str, outcome: &'static str) {
        *self
            .lock()
            .conversions
            .entry((from, to, outcome))
            .or_default() += 1;
    }

    /// Counts a job in `jobs_in_flight` until the guard is dropped.
    pub fn job_started(self: &Arc<Self>) -> InFlight {
        self.jobs_in_flight.fetch_add(1, Ordering::Relaxed);
        InFlight(Arc::clone(self))
    }

    /// Jobs running now.
    pub fn jobs_in_flight(&self) -> u64 {
        self.jobs_in_flight.load(Ordering::Relaxed)
    }

    /// Counts a request turned away because every slot was busy.
    pub fn job_rejected(&self) {
        self.jobs_rejected.fetch_add(1, Ordering::Relaxed);
    }

    /// The Prometheus text exposition.
    pub fn render(&self, max_jobs: usize) -> String {
        let inner = self.lock();
        let mut s = String::new();
        let family = |s: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(s, "# HELP mshconv_{name} {help}");
            let _ = writeln!(s, "# TYPE mshconv_{name} {kind}");
        };
        family(
            &mut s,
            "http_requests_total",
            "counter",
            "HTTP requests answered, by route, method and status.",
        );
        for ((route, method, status), n) in &inner.requests {
            let _ = writeln!(
                s,
                "mshconv_http_requests_total{{route=\"{}\",method=\"{}\",status=\"{status}\"}} {n}",
                escape(route),
                escape(method)
            );
        }
        family(
            &mut s,
            "http_request_duration_seconds",
            "histogram",
            "Time from a request's arrival to its response, by route.",
        );
        for (route, h) in &inner.durations {
            let route = escape(route);
            for (bound, count) in BUCKETS.iter().zip(h.counts) {
                let _ = writeln!(
                    s,
                    "mshconv_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{bound}\"}} {count}"
                );
            }
            let _ = writeln!(
                s,
                "mshconv_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                s,
                "mshconv_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                s,
                "mshconv_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        for (name, help, map) in [
            (
                "http_request_bytes_total",
                "Request body bytes read, by route.",
                &inner.bytes_in,
            ),
            (
                "http_response_bytes_total",
                "Response body bytes sent, by route.",
                &inner.bytes_out,
            ),
        ] {
            family(&mut s, name, "counter", help);
            for (route, n) in map {
                let _ = writeln!(s, "mshconv_{name}{{route=\"{}\"}} {n}", escape(route));
            }
        }
        family(
            &mut s,
            "conversions_total",
            "counter",
            "Conversions, by input and output format and outcome.",
        );
        for ((from, to, outcome), n) in &inner.conversions {
            let _ = writeln!(
                s,
                "mshconv_conversions_total{{from=\"{from}\",to=\"{to}\",outcome=\"{outcome}\"}} {n}"
            );
        }
        family(&mut s, "jobs_in_flight", "gauge", "Job slots in use.");
        let _ = writeln!(s, "mshconv_jobs_in_flight {}", self.jobs_in_flight());
        family(
            &mut s,
            "jobs_max",
            "gauge",
            "Job slots in all (--max-jobs).",
        );
        let _ = writeln!(s, "mshconv_jobs_max {max_jobs}");
        family(
            &mut s,
            "jobs_rejected_total",
            "counter",
            "Requests answered 503 because every job slot was busy.",
        );
        let _ = writeln!(
            s,
            "mshconv_jobs_rejected_total {}",
            self.jobs_rejected.load(Ordering::Relaxed)
        );
        s
    }
}

/// A label value with `\`, `"` and newlines escaped.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The `method` label: a standard method as it is, anything else `other`.
fn method_label(method: &str) -> &str {
    match method {
        "GET" | "HEAD" | "POST" | "PUT" | "DELETE" | "CONNECT" | "OPTIONS" | "TRACE" | "PATCH" => {
            method
        }
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_format() {
        let m = Arc::new(Metrics::default());
        let sample = |status, ms| RequestSample {
            route: "/v1/convert",
            method: "POST",
            status,
            elapsed: Duration::from_millis(ms),
            bytes_in: 100,
            bytes_out: 7,
        };
        m.request(&sample(200, 3));
        m.request(&sample(200, 700));
        m.request(&sample(422, 20));
        m.conversion("msh", "glb", "ok");
        m.conversion("msh", "glb", "ok");
        let guard = m.job_started();
        m.job_rejected();
        let text = m.render(2);
        for line in [
            "mshconv_http_requests_total{route=\"/v1/convert\",method=\"POST\",status=\"200\"} 2",
            "mshconv_http_requests_total{route=\"/v1/convert\",method=\"POST\",status=\"422\"} 1",
            "mshconv_http_request_duration_seconds_bucket{route=\"/v1/convert\",le=\"0.005\"} 1",
            "mshconv_http_request_duration_seconds_bucket{route=\"/v1/convert\",le=\"0.025\"} 2",
            "mshconv_http_request_duration_seconds_bucket{route=\"/v1/convert\",le=\"1\"} 3",
            "mshconv_http_request_duration_seconds_bucket{route=\"/v1/convert\",le=\"+Inf\"} 3",
            "mshconv_http_request_duration_seconds_count{route=\"/v1/convert\"} 3",
            "mshconv_http_request_bytes_total{route=\"/v1/convert\"} 300",
            "mshconv_http_response_bytes_total{route=\"/v1/convert\"} 21",
            "mshconv_conversions_total{from=\"msh\",to=\"glb\",outcome=\"ok\"} 2",
            "mshconv_jobs_in_flight 1",
            "mshconv_jobs_max 2",
            "mshconv_jobs_rejected_total 1",
            "# TYPE mshconv_http_request_duration_seconds histogram",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        drop(guard);
        assert!(m.render(2).lines().any(|l| l == "mshconv_jobs_in_flight 0"));
    }

    #[test]
    fn invented_methods_share_one_label() {
        let m = Metrics::default();
        for method in ["GET", "FROB", "X-1", "get"] {
            m.request(&RequestSample {
                route: "unmatched",
                method,
                status: 405,
                elapsed: Duration::ZERO,
                bytes_in: 0,
                bytes_out: 0,
            });
        }
        let text = m.render(1);
        assert!(text.contains("method=\"GET\",status=\"405\"} 1"), "{text}");
        assert!(
            text.contains("method=\"other\",status=\"405\"} 3"),
            "{text}"
        );
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
