//! The scenario format: every field a scenario file may have, its default and
//! its meaning. This is the one definition — the engine reads it, the Python
//! package validates through it, and the field reference (docs/scenario.md,
//! `hscc fields`) is generated from these doc comments by [`schema`](super::schema).
//!
//! Quantities take units (see [`super::quantity`]); a scenario read and
//! serialized again is in SI numbers with every default filled in.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::dist::DistSpec;
use super::quantity::{BufferSpec, Bytes, ParamValue, Probability, Rate, Seconds};
use super::stack::Stack;
use crate::config::{
    AckCounting, JitterUnit, LossDetection, LossPoint, Recovery, ReductionFloor, SsthreshFrom,
};
use crate::packet::DEFAULT_MSS;
use crate::tcp::rtt::{RtoEstimator, RttSampling};
use crate::time::secs;
use hscc_model::flow;

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

/// A TCP flow, or `count` identical ones. Hosts are named in the topology's
/// own terms: `pair` (dumbbell), `long` or `cross` (parking lot), `src` and `dst` (graph).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Dumbbell: index of the host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<usize>,
    /// Parking lot: index of the long (end-to-end) host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long: Option<usize>,
    /// Parking lot: [bottleneck, index] of a cross host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross: Option<(usize, usize)>,
    /// Graph: sending node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    /// Graph: receiving node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
    /// Name in tables and plots (default "ALGORITHM INDEX"; "LABEL #k" for each of `count` flows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Send from the receiving host to the sending host.
    #[serde(default)]
    pub reverse: bool,
    /// Congestion control (see `hscc algorithms`).
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// The algorithm's parameters.
    #[serde(default)]
    pub params: BTreeMap<String, ParamValue>,
    /// Identical flows to create.
    #[serde(default = "one")]
    pub count: usize,
    /// Start time: a time, or a distribution drawn from the seed once per flow (each of `count` its own draw): { dist = "uniform", min, max }, or { dist = "exponential", mean } cut off at the flow's stop or the run's end. The drawn start is the flows table's `start_s` (with any start_jitter).
    #[serde(default = "zero_time")]
    pub start: DistSpec<Seconds>,
    /// Stop sending new data at this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Seconds>,
    /// Bytes to transfer (unlimited when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<Bytes>,
    /// Reference TCP stack of this flow, overriding the scenario's `stack`: "linux", "linux2.6", "ns2" or "ns3". Its profile (see "Reference stacks") sets each knob below that this entry leaves out; a knob the entry sets wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Stack>,
    /// Maximum segment size, bytes (1448: 1500-byte packets with timestamps).
    #[serde(default = "default_mss")]
    pub mss: Bytes,
    /// Receiver window, bytes, up to TCP's largest, 65535 x 2^14 (about 1.07 GB), which a flow without it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rwnd: Option<Bytes>,
    /// SACK loss recovery (RFC 6675); NewReno (RFC 6582) when false.
    #[serde(default = "yes")]
    pub sack: bool,
    /// Window reduction in recovery: "prr" (RFC 6937, Linux), "classic" (cwnd = ssthresh at once; RFC 6675's pipe, which falls by every segment marked lost), "sack1" (ns-2.35's Agent/TCP/Sack1, tcp/tcp-sack1.cc: cwnd = ssthresh at once and a pipe that starts at the segments outstanding less the duplicate-ACK threshold and falls by one per ACK, two per partial ACK, so recovery is ACK-clocked however many segments were lost; SACK only) or "rate_halving" (Linux up to 3.1, tcp_input.c tcp_cwnd_down: cwnd falls by one every second ACK down to `reduction_floor` and never above the segments in flight + 1; at the end cwnd = min(cwnd, ssthresh)).
    #[serde(default)]
    pub recovery: Recovery,
    /// The lowest window "rate_halving" steps down to (Linux up to 3.1, tcp_cwnd_min: the algorithm's min_cwnd): "ssthresh" (a module without min_cwnd, such as CUBIC 2.3) or "half_ssthresh" (tcp_reno_min_cwnd: Reno, HighSpeed, Illinois, Vegas, Hybla). Only with recovery = "rate_halving".
    #[serde(default)]
    pub reduction_floor: ReductionFloor,
    /// Loss detection and recovery: "rack" (Linux's since 4.18: RACK-TLP, RFC 8985, with D-SACK, undo, F-RTO and reordering adaptation) or "dupack" (the papers' era, ns-2's agents: three duplicate ACKs, RFC 6675 / 6582, a lost retransmission waits for the RTO; by default without D-SACK, undo, F-RTO or adaptation). The four knobs below override either. Without SACK, NewReno's duplicate ACKs either way.
    #[serde(default)]
    pub loss_detection: LossDetection,
    /// The receiver reports duplicate segments in D-SACK blocks (RFC 2883; Linux tcp_dsack = 1). Default: true with "rack", false with "dupack".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    /// Undo spurious window reductions shown by D-SACKs or timestamps (Eifel; Linux always does). Default: true with "rack", false with "dupack".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// F-RTO after a timeout (RFC 5682; Linux tcp_frto = 2): new data before more retransmissions, the timeout undone if never-retransmitted data is acknowledged. Default: true with "rack", false with "dupack".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frto: Option<bool>,
    /// Initial reordering degree, segments: the duplicate-ACK threshold (Linux tcp_reordering = 3).
    #[serde(default = "default_reordering")]
    pub reordering: u32,
    /// Largest reordering degree the sender adapts to on seeing reordering (Linux tcp_max_reordering = 300). Default: 300 with "rack", `reordering` (a fixed threshold) with "dupack".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_reordering: Option<u32>,
    /// Initial window, segments (RFC 6928 / Linux: 10), at most the receiver window (Linux tcp_init_cwnd).
    #[serde(default = "default_iw")]
    pub init_cwnd: u32,
    /// Minimum retransmission timeout (Linux: 200ms; RFC 6298 and ns-3: 1s).
    #[serde(default = "default_min_rto")]
    pub min_rto: Seconds,
    /// Retransmission-timeout estimator: "rfc6298" (RTO = max(min_rto, SRTT + 4·RTTVAR); ns-2, ns-3) or "linux" (Linux's tcp_rtt_estimator: RTO = SRTT + the largest deviation of the last round trip, never less than SRTT + min_rto; a retransmission waiting behind a steady queue does not time out).
    #[serde(default)]
    pub rto_estimator: RtoEstimator,
    /// Which ACKs give the RTO estimator an RTT sample: "ack" (every ACK that acknowledges or SACKs data never retransmitted, else its echoed timestamp; Linux, ns-3) or "per_rtt" (ns-2.35's Agent/TCP: one segment timed per round trip, the first new one sent while none is timed, sampled when the cumulative ACK covers it; a timeout or a fast retransmission stops the timing, Karn's rule; the backoff ends only with a sample; with timestamps, every ACK that advances the cumulative ACK gives one from its echo). The algorithm keeps every ACK's sample either way.
    #[serde(default)]
    pub rtt_sampling: RttSampling,
    /// Clock tick of the RTO estimator: 0 (none: exact times) or ns-2's `tcpTick_` (10ms): each sample counted in whole ticks, at least one (the ticks the clock crossed since the segment left; rounded from an echoed timestamp), SRTT and RTTVAR kept in eighths and quarters of a tick as ns-2's rtt_update keeps them, RTO = whole ticks of SRTT + 4·RTTVAR, at least min_rto, backed off, at least two ticks. With rto_estimator = "rfc6298" only; at most 1s.
    #[serde(default)]
    pub rto_tick: Seconds,
    /// Initial slow-start threshold, segments, for every algorithm (unlimited when absent, as in Linux; ns-3's InitialSlowStartThreshold). BIC's and CUBIC's own `initial_ssthresh` parameters win when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_ssthresh: Option<u32>,
    /// What window growth counts: "segments" newly acknowledged (Linux's appropriate byte counting) or "acks", one per ACK that advances (ns-2, ns-3's NewReno, Linux before 3.18).
    #[serde(default)]
    pub ack_counting: AckCounting,
    /// What a loss's window reduction starts from: "cwnd" (Linux) or "pipe", the segments in flight after SACK and loss marking (RFC 6675; ns-3's NewReno, HighSpeed and Scalable: `GetSsThresh(tcb, BytesInFlight())`).
    #[serde(default)]
    pub ssthresh_from: SsthreshFrom,
    /// Delayed ACKs at the receiver: an ACK every `delack_segments` full segments, or at the timer.
    #[serde(default = "yes")]
    pub delayed_ack: bool,
    /// Segments per delayed ACK (RFC 1122 / Linux / ns-3's DelAckCount: 2).
    #[serde(default = "default_delack_segments")]
    pub delack_segments: u32,
    /// Delayed-ACK timer (Linux's minimum: 40ms).
    #[serde(default = "default_delack")]
    pub delack_timeout: Seconds,
    /// New data segments the receiver acknowledges one by one before its delayed ACKs start, as Linux's does while it opens its receive window (`tcp_grow_window`: a quick ACK for each segment that raises rcv_ssthresh, by two segments, toward the window clamp: about (clamp − initial window) / (2·MSS) segments; `hscc testbed run` reports its receivers' as `receivers.window_opening`). 0: delayed ACKs from the first segment (ns-2, ns-3).
    #[serde(default)]
    pub quick_acks: u64,
    /// Pace at Linux's default rate when the algorithm sets no rate.
    #[serde(default)]
    pub pacing: bool,
    /// TCP timestamps (RFC 7323).
    #[serde(default = "yes")]
    pub timestamps: bool,
    /// The receiver's TSval carries a random offset, per connection, as Linux's does (`tcp_timestamps = 1`: `secure_tcp_ts_off`); false: both ends' timestamp clocks read the run's time in ms, as ns-3's. Only algorithms that read the timestamps see it (lp, ledbat; ledbat, as ns-3 has it, needs false).
    #[serde(default = "yes")]
    pub random_ts_offset: bool,
    /// Host processing jitter: each segment leaves the host after a delay uniform in [0, host_jitter], in order, drawn from the seed; it breaks the ties of flows started together (ns-2's `overhead_` as TCP-Africa set it: 8us). 0 turns it off.
    #[serde(default = "default_host_jitter")]
    pub host_jitter: Seconds,
    /// What one draw of host_jitter delays: "segment" (each segment its own, in order) or "send" (ns-2's `overhead_`: a send waits one draw, then every segment the window allows leaves together; sends asked for while it waits join it).
    #[serde(default)]
    pub jitter_unit: JitterUnit,
    /// Start-up jitter: the flow starts at `start` plus a delay uniform in [0, start_jitter], drawn from the seed (flows launched by separate processes).
    #[serde(default)]
    pub start_jitter: Seconds,
    /// Extra one-way delay of this connection in both directions, without a queue, drawn once per connection: a time, or { dist = "uniform", min, max } (Sync-TCP's access delays U[5, 25] ms).
    #[serde(default = "zero_time")]
    pub access_delay: DistSpec<Seconds>,
    /// ECN (RFC 3168) on both ends: data is sent ECN-capable, CE marks are echoed, and the sender reduces once per window on an echo (Linux's tcp_enter_cwr). Off by default, as Linux's tcp_ecn = 2 does not ask for it.
    #[serde(default)]
    pub ecn: bool,
}

fn default_delack_segments() -> u32 {
    flow::DEFAULT_DELACK_SEGMENTS
}
fn default_reordering() -> u32 {
    flow::DEFAULT_REORDERING
}

fn default_host_jitter() -> Seconds {
    Seconds(secs(flow::DEFAULT_HOST_JITTER))
}
fn zero_time() -> DistSpec<Seconds> {
    DistSpec::Fixed(Seconds(0.0))
}

fn default_algorithm() -> String {
    "reno".into()
}
fn one() -> usize {
    1
}
fn yes() -> bool {
    true
}
fn default_mss() -> Bytes {
    Bytes(DEFAULT_MSS as u64)
}
fn default_iw() -> u32 {
    flow::DEFAULT_INIT_CWND
}
fn default_min_rto() -> Seconds {
    Seconds(secs(flow::DEFAULT_MIN_RTO))
}
fn default_delack() -> Seconds {
    Seconds(secs(flow::DEFAULT_DELACK_TIMEOUT))
}

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

/// A UDP flow: constant bit rate, on/off, or Poisson arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// Dumbbell: index of the host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<usize>,
    /// Parking lot: index of the long host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long: Option<usize>,
    /// Parking lot: [bottleneck, index] of a cross host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross: Option<(usize, usize)>,
    /// Graph: sending node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    /// Graph: receiving node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
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

fn default_udp_size() -> u32 {
    1500
}

/// A two-way VoIP call: a CBR flow each way (src → dst, then dst → src).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoipSpec {
    /// Dumbbell: index of the host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<usize>,
    /// Parking lot: index of the long host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long: Option<usize>,
    /// Parking lot: [bottleneck, index] of a cross host pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross: Option<(usize, usize)>,
    /// Graph: one end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<String>,
    /// Graph: the other end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<String>,
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
    /// Reference TCP stack of every TCP flow (web traffic keeps its own settings): "linux", "linux2.6", "ns2" or "ns3". Its profile (see "Reference stacks") sets each TCP knob a flow leaves out; a flow's own `stack`, and any knob it sets, win. Absent: hscc's defaults, each field's default below (RACK-TLP and PRR as Linux, RFC 6298's RTO estimator with Linux's 200 ms minimum, no quick ACKs, CUBIC without HyStart), unchanged so that a scenario without `stack` gives the results it always gave.
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
