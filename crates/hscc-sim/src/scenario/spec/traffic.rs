//! Traffic other than TCP flow entries: UDP flows, VoIP calls and web sources.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::endpoints::with_endpoints;
use super::{default_algorithm, yes, zero_time};
use crate::config::LossDetection;
use crate::scenario::dist::DistSpec;
use crate::scenario::quantity::{Bytes, ParamValue, Probability, Rate, Seconds};

/// The arrival process of a UDP flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum UdpPatternSpec {
    /// Constant bit rate.
    Cbr,
    /// On/off: `rate` during `on`, silent during `off`.
    Onoff,
    /// Poisson arrivals at `rate` on average.
    Poisson,
}

with_endpoints! {
/// A UDP flow: constant bit rate, on/off, or Poisson arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    src: "Graph: sending node.",
    dst: "Graph: receiving node.",
    /// Name in tables and plots (default "PATTERN INDEX").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// "cbr", "onoff" or "poisson".
    pub pattern: UdpPatternSpec,
    /// Rate on the wire (the peak rate for onoff), e.g. "50Mbps".
    pub rate: Rate,
    /// Onoff: the on period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Seconds>,
    /// Onoff: the off period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<Seconds>,
    /// Bytes on the wire per packet.
    #[serde(default = "default_udp_size")]
    pub packet_size: u32,
    /// Start time: a time, or a distribution drawn from the seed once per flow (as the flows' `start`).
    #[serde(default = "zero_time")]
    pub start: DistSpec<Seconds>,
    /// Stop time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Seconds>,
}
}

fn default_udp_size() -> u32 {
    1500
}

with_endpoints! {
/// A two-way VoIP call: a CBR flow each way (src → dst, then dst → src).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoipSpec {
    src: "Graph: one end.",
    dst: "Graph: the other end.",
    /// Name in tables and plots (default "voip INDEX"; the two directions get → and ←).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Voice codec rate (G.711: 64kbps).
    #[serde(default = "default_voice_rate")]
    pub rate: Rate,
    /// Packet interval.
    #[serde(default = "default_voice_interval")]
    pub interval: Seconds,
    /// IP + UDP + RTP header bytes per packet.
    #[serde(default = "default_voice_header")]
    pub header: u32,
    /// Start time: a time, or a distribution drawn from the seed once per call, both directions starting together (as the flows' `start`).
    #[serde(default = "zero_time")]
    pub start: DistSpec<Seconds>,
    /// Stop time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Seconds>,
}
}

fn default_voice_rate() -> Rate {
    Rate(64_000.0)
}
fn default_voice_interval() -> Seconds {
    Seconds(0.02)
}
fn default_voice_header() -> u32 {
    crate::packet::UDP_HEADER_BYTES
}

/// Web-like traffic: short TCP transfers, or sessions of requests and
/// responses (Cao et al. 2004, PackMime-HTTP), arriving as a Poisson process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Dumbbell: host pairs whose senders serve and whose receivers fetch.
    #[serde(default)]
    pub pairs: Vec<usize>,
    /// Dumbbell: the pairs' receivers serve and their senders fetch (web traffic in the reverse direction).
    #[serde(default)]
    pub reverse: bool,
    /// Graph: serving nodes.
    #[serde(default)]
    pub servers: Vec<String>,
    /// Graph: fetching nodes.
    #[serde(default)]
    pub clients: Vec<String>,
    /// Name in tables (default "web INDEX").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// "transfers" (independent responses, no requests) or "sessions" (PackMime-HTTP: a request, a server delay and a response per object).
    #[serde(default)]
    pub model: WebModelSpec,
    /// Transfers (or sessions) per second.
    pub rate: f64,
    /// Response sizes: a size ("50KB") or a distribution; { dist = "packmime" } is PackMime-HTTP's (default for sessions; Pareto, shape 1.2, mean 12KB for transfers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<DistSpec<Bytes>>,
    /// Sessions: request sizes (default PackMime-HTTP's, { dist = "packmime" }).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_size: Option<DistSpec<Bytes>>,
    /// Sessions: probability that a session is persistent, several pages of objects (PackMime's HTTP/1.1 mode: 0.09; 0 is its HTTP/1.0 mode). A persistent session's requests and responses ride one connection each way for the whole session (each object sent with the window the last left, restarted after an idle RTO); an HTTP/1.0 session's are each a fresh TCP transfer starting in slow start.
    #[serde(default)]
    pub persistent: Probability,
    /// Sessions: wait PackMime's server delay before each response.
    #[serde(default = "yes")]
    pub server_delay: bool,
    /// Congestion control of the transfers.
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Loss detection and recovery of the transfers (see the flows' field of that name).
    #[serde(default)]
    pub loss_detection: LossDetection,
    /// Its parameters.
    #[serde(default)]
    pub params: BTreeMap<String, ParamValue>,
    /// First arrival no earlier than this.
    #[serde(default)]
    pub start: Seconds,
    /// No arrivals from this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Seconds>,
}

/// How a web source generates traffic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WebModelSpec {
    /// Independent responses (no requests).
    #[default]
    Transfers,
    /// Sessions of requests and responses (Cao et al. 2004 / PackMime-HTTP).
    Sessions,
}
