//! The scenario format: every field a scenario file may have, its default and
//! its meaning. This is the one definition — the engine reads it, the Python
//! package validates through it, and the field reference (docs/scenario.md,
//! `hscc fields`) is generated from these doc comments by [`schema`](super::schema).
//!
//! Quantities take units (see [`super::quantity`]); a scenario read and
//! serialized again is in SI numbers with every default filled in.

mod endpoints;
mod flows;
mod network;
mod output;
mod traffic;

pub use flows::FlowSpec;
pub use network::*;
pub use output::*;
pub use traffic::*;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::dist::DistSpec;
use crate::scenario::quantity::Seconds;
use crate::scenario::stack::Stack;

// Defaults that TCP flows and web sources share.
fn zero_time() -> DistSpec<Seconds> {
    DistSpec::Fixed(Seconds(0.0))
}

fn default_algorithm() -> String {
    "reno".into()
}

fn yes() -> bool {
    true
}

/// A whole experiment: network, traffic, duration, seed and outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Short name, used in run directory names (default: the file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the scenario shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Simulated time, e.g. "60s".
    pub duration: Seconds,
    /// Seed of every random choice (0 to 2^64 − 1).
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Reference TCP stack of every TCP flow (web traffic keeps its own settings): "linux", "linux2.6", "ns2", "ns2-linux", "ns3" or "windows2008". Its profile (see "Reference stacks") sets each TCP knob a flow leaves out; a flow's own `stack`, and any knob it sets, win. Absent: hscc's defaults, each field's default below (RACK-TLP and PRR as Linux, RFC 6298's RTO estimator with Linux's 200 ms minimum, no quick ACKs, CUBIC without HyStart), unchanged so that a scenario without `stack` gives the results it always gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Stack>,
    /// The network.
    pub topology: TopologySpec,
    /// TCP flows.
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// UDP flows.
    #[serde(default)]
    pub udp: Vec<UdpSpec>,
    /// VoIP calls.
    #[serde(default)]
    pub voip: Vec<VoipSpec>,
    /// Web-like traffic.
    #[serde(default)]
    pub web: Vec<WebSpec>,
    /// Scheduled link changes.
    #[serde(default)]
    pub changes: Vec<ChangeSpec>,
    /// Sampling interval and traces.
    #[serde(default)]
    pub output: OutputSpec,
}

fn one_u64() -> u64 {
    1
}
