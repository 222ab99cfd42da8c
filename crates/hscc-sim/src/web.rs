//! Web-like traffic: short TCP transfers arriving as a Poisson process.
//!
//! A simplification of the connection-based HTTP model of Cao et al.
//! (INFOCOM 2004) that Sync-TCP's evaluation uses (§III.C, §VI): transfers
//! (responses) arrive as a Poisson process at a given rate; each goes from a
//! server to a client chosen uniformly at random, with a size drawn from a
//! heavy-tailed distribution, over a fresh TCP connection that starts in slow
//! start. Request packets, connection set-up and think times are not modeled:
//! the response time of a transfer is measured from its start at the server to
//! the arrival of its last byte at the client. Transfers are created when they
//! arrive and their slots reused when they finish, so memory is bounded by the
//! transfers in progress, not by the run length.

use hdrhistogram::Histogram;
use rand::Rng as _;
use rand_distr::{Distribution, Exp, Pareto};
use serde::{Deserialize, Serialize};

use crate::config::FlowConfig;
use crate::rng::Rng;
use crate::time::{Time, NS, SEC};

/// Response-size distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    /// Always this many bytes.
    Fixed(u64),
    /// Exponential with this mean (bytes).
    Exponential {
        /// Mean, bytes.
        mean: f64,
    },
    /// Pareto with this shape (> 1) and mean (bytes): heavy-tailed, scale = mean·(shape − 1)/shape.
    Pareto {
        /// Tail index α.
        shape: f64,
        /// Mean, bytes.
        mean: f64,
    },
}

impl SizeDist {
    /// Draw one size (at least 1 byte).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let v = match *self {
            SizeDist::Fixed(n) => n as f64,
            SizeDist::Exponential { mean } => Exp::new(1.0 / mean).expect("positive mean").sample(rng),
            SizeDist::Pareto { shape, mean } => {
                let scale = mean * (shape - 1.0) / shape;
                Pareto::new(scale, shape).expect("positive scale and shape").sample(rng)
            }
        };
        (v.round() as u64).max(1)
    }

    /// The distribution's mean, bytes.
    pub fn mean(&self) -> f64 {
        match *self {
            SizeDist::Fixed(n) => n as f64,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => mean,
        }
    }
}

/// A source of web-like transfers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WebConfig {
    /// Nodes that serve responses (senders).
    pub servers: Vec<u32>,
    /// Nodes that receive them.
    pub clients: Vec<u32>,
    /// Mean arrivals per second (Poisson).
    pub rate: f64,
    /// Response sizes.
    pub size: SizeDist,
    /// TCP settings of every transfer (src, dst and size are set per transfer).
    pub tcp: FlowConfig,
    /// First possible arrival.
    pub start: Time,
    /// No arrivals at or after this time.
    pub stop: Option<Time>,
}

/// Generator state of one web source.
#[derive(Clone, Debug)]
pub struct WebSource {
    /// Configuration.
    pub cfg: WebConfig,
    rng: Rng,
    /// Response-time statistics.
    pub stats: WebStats,
}

/// One transfer to start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Server node.
    pub src: u32,
    /// Client node.
    pub dst: u32,
    /// Bytes.
    pub size: u64,
}

impl WebSource {
    /// A source with its own random stream.
    pub fn new(cfg: WebConfig, rng: Rng) -> WebSource {
        WebSource { cfg, rng, stats: WebStats::default() }
    }

    /// Time of the next arrival after `t`, if before the stop.
    pub fn next_arrival(&mut self, t: Time) -> Option<Time> {
        let gap = Exp::new(self.cfg.rate).expect("positive rate").sample(&mut self.rng);
        let next = t.saturating_add(((gap * SEC as f64).round() as Time).max(1));
        match self.cfg.stop {
            Some(stop) if next >= stop => None,
            _ => Some(next),
        }
    }

    /// Draw the transfer that arrives now.
    pub fn transfer(&mut self) -> Transfer {
        let src = self.cfg.servers[self.rng.random_range(0..self.cfg.servers.len())];
        let dst = self.cfg.clients[self.rng.random_range(0..self.cfg.clients.len())];
        let size = self.cfg.size.sample(&mut self.rng);
        Transfer { src, dst, size }
    }
}

/// Number of response-size bins: [2^k, 2^(k+1)) bytes for k < 40.
const BINS: usize = 40;

/// Response times of completed transfers, binned by size.
#[derive(Clone, Debug)]
pub struct WebStats {
    /// Transfers started.
    pub started: u64,
    /// Transfers completed.
    pub completed: u64,
    /// Arrivals refused because every web slot was busy ([`crate::limits::MAX_WEB_SLOTS`]).
    pub refused: u64,
    bins: Vec<Option<Histogram<u64>>>,
}

impl Default for WebStats {
    fn default() -> Self {
        WebStats { started: 0, completed: 0, refused: 0, bins: vec![None; BINS] }
    }
}

impl WebStats {
    /// A transfer of `size` bytes completed in `response`.
    pub fn record(&mut self, size: u64, response: Time) {
        self.completed += 1;
        let k = (63 - size.max(1).leading_zeros() as usize).min(BINS - 1);
        let h = self.bins[k].get_or_insert_with(|| Histogram::new_with_bounds(1, 10_000_000_000_000, 3).expect("valid bounds"));
        h.saturating_record((response / NS).max(1));
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

/// Summary of one web source.
#[derive(Clone, Debug, Serialize)]
pub struct WebResult {
    /// Source index.
    pub id: u32,
    /// Transfers started.
    pub started: u64,
    /// Transfers completed.
    pub completed: u64,
    /// Arrivals refused because every web slot was busy.
    pub refused: u64,
    /// Response times by size.
    pub bins: Vec<WebBin>,
}
