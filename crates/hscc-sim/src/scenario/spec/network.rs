//! The network: links and their queues, host pairs, the topology kinds, and
//! link changes scheduled during a run.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::config::LossPoint;
use crate::scenario::quantity::{BufferSpec, Bytes, Probability, Rate, Seconds};

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpecIn {
    /// Rate, e.g. "100Mbps".
    pub rate: Rate,
    /// One-way propagation delay, e.g. "5ms".
    pub delay: Seconds,
    /// Queue limit (DropTail): "1500pkts", "64KB" or "0.5bdp" (link rate × the longest base RTT of the flows crossing it).
    #[serde(default = "default_buffer")]
    pub buffer: BufferSpec,
    /// Random loss probability per packet, e.g. 1e-6.
    #[serde(default)]
    pub loss: Probability,
    /// Gaussian delay jitter (standard deviation), e.g. "1ms"; packet order is kept unless `jitter_reorders`.
    #[serde(default)]
    pub jitter: Seconds,
    /// Draw each packet's delay independently (delay + N(0, jitter²), at least 0), so packets may overtake each other (TCP-FIT's emulated delay noise).
    #[serde(default)]
    pub jitter_reorders: bool,
    /// Where random loss acts: "before_queue" (Dummynet, ns-2: a lost packet uses neither queue nor link) or "after_queue" (ns-3's receive error model: it has used both).
    #[serde(default)]
    pub loss_point: LossPoint,
    /// Link-layer bytes added to every packet on this link (ns-3 point-to-point PPP: 2; Ethernet with preamble and gap: 38).
    #[serde(default)]
    pub framing: u32,
    /// Serve the queue in clock ticks of this length, as Dummynet does at HZ = 1/tick (its test beds: "1ms"); 0 serves it continuously. The delay must then be a whole number of ticks.
    #[serde(default)]
    pub tick: Seconds,
    /// Queue discipline, e.g. { kind = "codel", target = "5ms" } or { kind = "red", ecn = true }; DropTail when absent. The buffer is its hard limit.
    #[serde(default, skip_serializing_if = "QueueSpec::is_droptail")]
    pub queue: QueueSpec,
}

/// A queue discipline and its parameters; each one left out takes the default
/// of its source (RFC, Linux qdisc, Floyd's RED recommendations; see docs/queues.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    /// "droptail" (default), "red" (Floyd & Jacobson, gentle), "codel" (RFC 8289), "fq_codel" (RFC 8290), "pie" (RFC 8033) or "step" (CE-mark at an instantaneous queue of K, as DCTCP's switches).
    #[serde(default)]
    pub kind: QueueKindSpec,
    /// CE-mark ECN-capable packets instead of dropping them (default: on for fq_codel, off for the others, as in Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// codel, fq_codel: acceptable standing delay (5ms); pie: target delay (15ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Seconds>,
    /// codel, fq_codel: how long the delay may stay above target before drops start, and the control law's base (100ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Seconds>,
    /// fq_codel: number of flow queues (1024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    /// fq_codel: bytes a flow sends per round (1514).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<Bytes>,
    /// fq_codel: most packets dropped from the fattest flow when the buffer is full (64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_batch: Option<u32>,
    /// pie: interval of the drop-probability updates (15ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<Seconds>,
    /// pie: gain on the delay's distance from target, 1/s, a multiple of 1/16 (0.125).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// pie: gain on the delay's change, 1/s, a multiple of 1/16 (1.25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// red: lower threshold of the average queue, packets (5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
    /// red: upper threshold, packets (15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// red: drop probability at max_th (0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<Probability>,
    /// red: weight of the average queue (0.002).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<f64>,
    /// red: gentle mode, the probability rising from max_p to 1 between max_th and 2 max_th (true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gentle: Option<bool>,
    /// red: above the random region, drop even ECN-capable packets (true, as ns-2; Linux marks unless harddrop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harddrop: Option<bool>,
    /// red: typical packet size for the decay of the average over idle time (500B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_pktsize: Option<Bytes>,
    /// step: CE-mark an arriving ECN-capable packet when at least this many packets wait (K; one of k_packets, k_bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_packets: Option<u64>,
    /// step: CE-mark an arriving ECN-capable packet when at least this many bytes wait (K in bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k_bytes: Option<Bytes>,
}

impl QueueSpec {
    /// Whether this is plain DropTail with nothing set.
    pub fn is_droptail(&self) -> bool {
        *self == QueueSpec::default()
    }
}

/// The queue disciplines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueueKindSpec {
    /// First in, first out; drop the arriving packet when full.
    #[default]
    Droptail,
    /// Random Early Detection, gentle.
    Red,
    /// Controlled Delay.
    Codel,
    /// Flow-queue CoDel.
    FqCodel,
    /// Proportional Integral controller Enhanced.
    Pie,
    /// Step marking at K (DCTCP's switch).
    Step,
}

fn default_buffer() -> BufferSpec {
    BufferSpec::Bdp(1.0)
}

/// The access links of one sender/receiver host pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// Access-link rate.
    #[serde(default = "default_access_rate")]
    pub rate: Rate,
    /// One-way delay of the sender's access link (or give `rtt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Seconds>,
    /// Dumbbell only: the pair's base RTT, setting delay = rtt/2 − bottleneck delay − recv_delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<Seconds>,
    /// One-way delay of the receiver's access link.
    #[serde(default)]
    pub recv_delay: Seconds,
    /// Access-link queue limit, in packets or bytes.
    #[serde(default = "default_access_buffer")]
    pub buffer: BufferSpec,
}

fn default_access_rate() -> Rate {
    Rate(10e9)
}
fn default_access_buffer() -> BufferSpec {
    BufferSpec::Packets(100_000)
}

/// A link between two named nodes (both directions).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    /// One end (node name).
    pub a: String,
    /// The other end (node name).
    pub b: String,
    /// Direction a → b.
    pub fwd: LinkSpecIn,
    /// Direction b → a (default: the same as fwd).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rev: Option<LinkSpecIn>,
    /// Record queue statistics and traces for both directions.
    #[serde(default)]
    pub monitor: bool,
}

/// The network: `kind = "dumbbell"`, `"parking_lot"` or `"graph"`.
// Each kind is its own struct so that an error inside it can be traced to its
// field path (serde buffers internally tagged enums, which loses the path; see
// `ScenarioSpec::from_json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(
    clippy::large_enum_variant,
    reason = "parsed once per scenario; a dumbbell holds two links' queue fields"
)]
pub enum TopologySpec {
    /// Host pairs on either side of one bottleneck (monitored in both directions).
    Dumbbell(DumbbellSpec),
    /// A chain of bottlenecks (each monitored), crossed by long and cross traffic.
    ParkingLot(ParkingLotSpec),
    /// Any graph of named nodes; routes are shortest paths.
    Graph(GraphSpec),
}

/// Host pairs on either side of one bottleneck. Links are named "bottleneck:fwd",
/// "bottleneck:rev", "access-s0:fwd", "access-d0:fwd", ….
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// The left-to-right bottleneck.
    pub bottleneck: LinkSpecIn,
    /// The right-to-left bottleneck (default: the bottleneck without its loss); give it a `loss` for random loss in the ACK direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<LinkSpecIn>,
    /// Host pairs; traffic names them by index.
    pub pairs: Vec<PairSpec>,
}

/// A chain of `hops` bottlenecks, named "bottleneck0:fwd", ….
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// Number of bottlenecks.
    pub hops: usize,
    /// Every bottleneck, both directions.
    pub link: LinkSpecIn,
    /// Access links of every host pair (give `delay`, not `rtt`).
    pub access: PairSpec,
    /// Host pairs crossing every bottleneck.
    pub long: usize,
    /// Host pairs crossing one bottleneck, per bottleneck.
    pub cross: usize,
}

/// Any graph of named nodes. A link a = "A", b = "B" is named "A-B:fwd" / "A-B:rev".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// Node names.
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<GraphLink>,
}

/// A scheduled change of one link's rate and/or delay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangeSpec {
    /// When.
    pub at: Seconds,
    /// Link name, e.g. "bottleneck:fwd".
    pub link: String,
    /// New rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// New propagation delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Seconds>,
}
