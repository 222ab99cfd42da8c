//! Web traffic as configured: the size distributions, the model (PackMime
//! sessions or plain transfers) and a web source's servers and clients. The
//! engine's sources are `hscc_sim::web`.

use serde::{Deserialize, Serialize};

use crate::flow::FlowConfig;
use crate::time::Time;

/// The means of PackMime-HTTP's size distributions (the tables are
/// `hscc_sim::web::packmime`).
pub mod packmime {
    /// Means of the tables (numerical integration of the knots, checked in
    /// the engine's tests): cache validations, bytes.
    pub const VALIDATION_MEAN: f64 = 152.8;
    /// Mean download response, bytes.
    pub const DOWNLOAD_MEAN: f64 = 11_869.0;
    /// Mean request, bytes: 0.5 · 330.6 + 0.5 · 842.
    pub const REQUEST_MEAN: f64 = 586.3;
    /// Long-run share of downloads among responses as the rate grows (both
    /// run-length shapes → 1: E⌈Exp(3.11)⌉ / (E⌈Exp(0.775)⌉ + E⌈Exp(3.11)⌉)).
    pub const DOWNLOAD_SHARE_LIMIT: f64 = 0.7250;
}

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
    /// PackMime-HTTP's request sizes (Cao et al. 2004): half from a body of
    /// 51–422 bytes, half from a log-scale tail from 424 bytes (tail index
    /// ≈ 1.5); mean ≈ 586 bytes.
    PackmimeRequest,
    /// PackMime-HTTP's response sizes: alternating runs of cache validations
    /// (5–272 bytes) and downloads (median 2.2 kB, tail index ≈ 1.23, mean
    /// ≈ 11.9 kB), run lengths Weibull with shapes that depend on the rate.
    /// Drawn alone (not by a web source), the runs' long-run mix is used.
    PackmimeResponse,
}

impl SizeDist {
    /// The distribution's mean, bytes.
    pub fn mean(&self) -> f64 {
        match *self {
            SizeDist::Fixed(n) => n as f64,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => mean,
            SizeDist::PackmimeRequest => packmime::REQUEST_MEAN,
            SizeDist::PackmimeResponse => {
                let f = packmime::DOWNLOAD_SHARE_LIMIT;
                f * packmime::DOWNLOAD_MEAN + (1.0 - f) * packmime::VALIDATION_MEAN
            }
        }
    }
}

/// How a web source generates traffic.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum WebModel {
    /// Independent responses, `rate` per second, of `size` bytes (no requests).
    #[default]
    Transfers,
    /// Sessions of requests and responses, `rate` per second, responses of `size` bytes.
    Sessions(Sessions),
}

/// The session model's parameters (Cao et al. 2004 / PackMime-HTTP).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sessions {
    /// Request sizes, bytes (every request of a session has the same size, as
    /// in PackMime). Default: PackMime's.
    #[serde(default = "packmime_request")]
    pub request_size: SizeDist,
    /// Probability that a session is persistent (several pages of objects on
    /// one connection each way): PackMime's HTTP/1.1 mode uses 0.09
    /// (`P_PERSISTENT`); 0 (default) is its HTTP/1.0 mode, one request and
    /// response per session, each a fresh transfer.
    #[serde(default)]
    pub persistent: f64,
    /// Wait PackMime's server delay before each response: 1/max(W, 10) s with
    /// W ~ Weibull(shape 0.63, scale 305), at most 0.1 s. Default: on.
    #[serde(default = "yes")]
    pub server_delay: bool,
}

fn packmime_request() -> SizeDist {
    SizeDist::PackmimeRequest
}

fn yes() -> bool {
    true
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions {
            request_size: SizeDist::PackmimeRequest,
            persistent: 0.0,
            server_delay: true,
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
    /// Mean arrivals per second (Poisson): transfers, or sessions.
    pub rate: f64,
    /// Response sizes.
    pub size: SizeDist,
    /// TCP settings of every transfer (src, dst and size are set per transfer).
    pub tcp: FlowConfig,
    /// First possible arrival.
    pub start: Time,
    /// No arrivals at or after this time.
    pub stop: Option<Time>,
    /// Transfers (default) or sessions.
    pub model: WebModel,
}
