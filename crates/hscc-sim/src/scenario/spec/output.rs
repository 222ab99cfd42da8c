//! What a run records: time series, the congestion-control log and packet captures.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::quantity::Seconds;

/// The time series a run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TraceKind {
    /// Throughput, cwnd and sRTT of every flow.
    Flows,
    /// Queue length, drops and delay of every monitored link.
    Queues,
}

/// What a run records beyond the summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Time-series sampling interval.
    #[serde(default = "default_sample_interval")]
    pub sample_interval: Seconds,
    /// Time series to keep: "flows", "queues"; [] for none.
    #[serde(default = "default_traces")]
    pub traces: Vec<TraceKind>,
    /// Per-ACK congestion-control log of chosen flows, e.g. { flows = ["cubic 0"] }: every hook call with the sender state it saw and what it changed, in cc_log.parquet (docs/traces.md). Off when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_log: Option<CcLogSpec>,
    /// Packet captures for Wireshark (none by default; docs/traces.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcap: Option<PcapSpec>,
}

impl Default for OutputSpec {
    fn default() -> Self {
        OutputSpec {
            sample_interval: default_sample_interval(),
            traces: default_traces(),
            cc_log: None,
            pcap: None,
        }
    }
}

/// Which flows the per-ACK congestion-control log records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CcLogSpec {
    /// TCP flows by their label in the tables: "ALGORITHM INDEX" (e.g. "ctcp 0", INDEX counting every TCP flow), or the entry's `label` ("LABEL #k" with a `count`).
    pub flows: Vec<String>,
}

/// Packet captures (pcap, IPv4/TCP headers) of chosen flows and links, and a
/// drop log of the chosen links (docs/traces.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Flows by label, as in the results ("ctcp 0"; "LABEL #k" of a counted
    /// entry): each captured at its sending host, to `flow-INDEX-LABEL.pcap`.
    #[serde(default)]
    pub flows: Vec<String>,
    /// Links by name ("bottleneck:fwd"): each captured at its input, dropped
    /// packets included, to `link-INDEX-NAME.pcap`; their drops go to `drops.parquet`.
    #[serde(default)]
    pub links: Vec<String>,
    /// Bytes kept of each packet, 80 to 65535 (headers whole; payload bytes are zeros).
    #[serde(default = "default_snaplen")]
    pub snaplen: u32,
}

fn default_snaplen() -> u32 {
    128
}

fn default_sample_interval() -> Seconds {
    Seconds(0.1)
}
fn default_traces() -> Vec<TraceKind> {
    vec![TraceKind::Flows, TraceKind::Queues]
}
