//! What a web source measured: response times binned by size, sessions, and their summaries.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::time::{Time, NS};

/// Number of response-size bins: [2^k, 2^(k+1)) bytes for k < 40.
const BINS: usize = 40;

/// Response times of completed transfers, binned by size.
#[derive(Clone, Debug)]
pub struct WebStats {
    /// Transfers started (session model: objects, i.e. requests).
    pub started: u64,
    /// Transfers completed (session model: responses fully received).
    pub completed: u64,
    /// Arrivals refused because every web slot was busy ([`crate::limits::MAX_WEB_SLOTS`]).
    pub refused: u64,
    /// Sessions that arrived (session model).
    pub sessions_started: u64,
    /// Sessions whose last response arrived.
    pub sessions_completed: u64,
    /// Sessions refused on arrival because too many were in progress.
    pub sessions_refused: u64,
    /// Sessions ended early because a transfer of theirs was refused.
    pub sessions_aborted: u64,
    bins: Vec<Option<Histogram<u64>>>,
    session_times: Option<Histogram<u64>>,
}

impl Default for WebStats {
    fn default() -> Self {
        WebStats {
            started: 0,
            completed: 0,
            refused: 0,
            sessions_started: 0,
            sessions_completed: 0,
            sessions_refused: 0,
            sessions_aborted: 0,
            bins: vec![None; BINS],
            session_times: None,
        }
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 10_000_000_000_000, 3).expect("valid bounds")
}

impl WebStats {
    /// A transfer of `size` bytes completed in `response`.
    pub fn record(&mut self, size: u64, response: Time) {
        self.completed += 1;
        let k = (63 - size.max(1).leading_zeros() as usize).min(BINS - 1);
        let h = self.bins[k].get_or_insert_with(histogram);
        h.saturating_record((response / NS).max(1));
    }

    /// A session completed in `time`.
    pub fn record_session(&mut self, time: Time) {
        self.sessions_completed += 1;
        self.session_times
            .get_or_insert_with(histogram)
            .saturating_record((time / NS).max(1));
    }

    /// Per size bin: response-time summary.
    pub fn summary(&self) -> Vec<WebBin> {
        self.bins
            .iter()
            .enumerate()
            .filter_map(|(k, h)| {
                let h = h.as_ref()?;
                Some(WebBin {
                    size_min: 1 << k,
                    size_max: (1u64 << (k + 1)) - 1,
                    count: h.len(),
                    mean_s: h.mean() * 1e-9,
                    median_s: h.value_at_quantile(0.5) as f64 * 1e-9,
                    p90_s: h.value_at_quantile(0.9) as f64 * 1e-9,
                })
            })
            .collect()
    }

    /// Session times (session model).
    pub fn sessions(&self) -> SessionSummary {
        let h = self.session_times.as_ref();
        SessionSummary {
            started: self.sessions_started,
            completed: self.sessions_completed,
            refused: self.sessions_refused,
            aborted: self.sessions_aborted,
            mean_s: h.map_or(0.0, |h| h.mean() * 1e-9),
            median_s: h.map_or(0.0, |h| h.value_at_quantile(0.5) as f64 * 1e-9),
            p90_s: h.map_or(0.0, |h| h.value_at_quantile(0.9) as f64 * 1e-9),
        }
    }
}

/// Response times of the transfers whose size falls in one bin.
#[derive(Clone, Debug, Serialize)]
pub struct WebBin {
    /// Smallest size in the bin, bytes.
    pub size_min: u64,
    /// Largest size in the bin, bytes.
    pub size_max: u64,
    /// Completed transfers.
    pub count: u64,
    /// Mean response time, s.
    pub mean_s: f64,
    /// Median response time, s.
    pub median_s: f64,
    /// 90th-percentile response time, s.
    pub p90_s: f64,
}

/// Sessions of a web source (session model).
#[derive(Clone, Debug, Serialize)]
pub struct SessionSummary {
    /// Sessions that arrived.
    pub started: u64,
    /// Sessions whose last response arrived.
    pub completed: u64,
    /// Sessions refused on arrival (too many in progress).
    pub refused: u64,
    /// Sessions ended early because one of their transfers was refused.
    pub aborted: u64,
    /// Mean session time (arrival to the last byte of the last response), s.
    pub mean_s: f64,
    /// Median session time, s.
    pub median_s: f64,
    /// 90th-percentile session time, s.
    pub p90_s: f64,
}

/// Summary of one web source.
#[derive(Clone, Debug, Serialize)]
pub struct WebResult {
    /// Source index.
    pub id: u32,
    /// Transfers started (session model: objects).
    pub started: u64,
    /// Transfers completed (session model: objects whose response arrived).
    pub completed: u64,
    /// Arrivals refused because every web slot was busy.
    pub refused: u64,
    /// Response times by size (session model: per object, request to last response byte).
    pub bins: Vec<WebBin>,
    /// Session times (session model; null for transfers).
    pub sessions: Option<SessionSummary>,
}
