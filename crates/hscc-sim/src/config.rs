//! What a run is made of: links, topology, flows, duration, seed, outputs.
//! Plain data with serde, validated by [`SimConfig::validate`] with errors
//! that name the field, the value and what is allowed.

use core::fmt;

use hscc_cc::{CcError, CcParams, ParamError};
use serde::Serialize;

use crate::capture::CaptureConfig;
use crate::limits::{
    MAX_FLOWS, MAX_LINKS, MAX_NODES, MAX_QUEUE_PACKETS, MAX_ROUTE_WORK, MAX_TRACE_VALUES,
    MAX_UDP_FLOWS, MAX_WEB_PAIRS,
};
use crate::packet::{DEFAULT_MSS, HEADER_BYTES};
use crate::queue::QueueConfig;
use crate::tcp::rtt::MAX_RTO;
use crate::time::{secs, Time, MS, SEC, US};
use crate::udp::{UdpConfig, UdpPattern};
use crate::web::{SizeDist, WebConfig, WebModel};

/// Largest [`FlowConfig::init_ssthresh`], segments.
pub const MAX_INIT_SSTHRESH: u32 = 1_000_000_000;

/// Largest web response size or mean, bytes (1 TB).
const MAX_WEB_SIZE: u64 = 1_000_000_000_000;

/// A DropTail queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    /// At most this many packets waiting.
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Where a link's random loss acts (docs/links-and-web.md §1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LossPoint {
    /// Drawn when a packet is offered, before the queue: a lost packet takes
    /// no queue space and no transmission time (Dummynet's `plr`, ns-2's
    /// `ErrorModel` in front of a link's queue).
    #[default]
    BeforeQueue,
    /// Drawn when a packet reaches the far end, after the queue: a lost packet
    /// has waited in the queue and used the link's transmission time (ns-3's
    /// `PointToPointNetDevice` receive error model).
    AfterQueue,
}

/// Largest link-layer framing overhead, bytes.
pub const MAX_FRAMING: u32 = 65_535;
/// Shortest and longest service tick of a link (Dummynet's 1/HZ), ps.
pub const MIN_TICK: Time = US;
/// Longest service tick, ps.
pub const MAX_TICK: Time = SEC;

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkConfig {
    /// Rate, bit/s.
    pub rate_bps: u64,
    /// Propagation delay, ps.
    pub delay: Time,
    /// Queue limit.
    pub buffer: Buffer,
    /// Bernoulli loss probability per packet, in [0, 1].
    pub loss: f64,
    /// Standard deviation of Gaussian delay jitter, ps (packet order is kept
    /// unless `jitter_reorders`).
    pub jitter: Time,
    /// Where random loss acts: before the queue (default) or at the far end.
    pub loss_point: LossPoint,
    /// Link-layer bytes added to every packet for serialization and byte
    /// buffers (PPP 2, Ethernet 38 with preamble and gap); 0 by default.
    pub framing: u32,
    /// Draw each packet's propagation delay independently (delay + N(0, jitter²),
    /// truncated at 0), so packets may overtake each other; off by default.
    pub jitter_reorders: bool,
    /// Serve the queue in clock ticks of this length, as Dummynet does at
    /// HZ = 1/tick; 0 (default) serves it continuously.
    pub tick: Time,
    /// Queue discipline: DropTail (default) or an AQM ([`QueueConfig`]); the
    /// buffer is its hard limit. An AQM link cannot be tick-served or reorder.
    pub queue: QueueConfig,
}

impl LinkConfig {
    /// A lossless, jitter-free link.
    pub fn new(rate_bps: u64, delay: Time, buffer: Buffer) -> LinkConfig {
        LinkConfig {
            rate_bps,
            delay,
            buffer,
            loss: 0.0,
            jitter: 0,
            loss_point: LossPoint::BeforeQueue,
            framing: 0,
            jitter_reorders: false,
            tick: 0,
            queue: QueueConfig::DropTail,
        }
    }

    /// The same link with random loss `p`.
    pub fn with_loss(mut self, p: f64) -> LinkConfig {
        self.loss = p;
        self
    }

    /// The same link with queue discipline `q`.
    pub fn with_queue(mut self, q: QueueConfig) -> LinkConfig {
        self.queue = q;
        self
    }
}

/// Loss recovery without SACK or with SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Window during recovery: cwnd = ssthresh from the start (RFC 6675 §5 / RFC 6582).
    Classic,
    /// Proportional Rate Reduction (RFC 6937, Linux's default).
    Prr,
}

/// How a SACK sender decides that a segment is lost before the RTO (Linux
/// sysctl `net.ipv4.tcp_recovery`, bit `TCP_RACK_LOSS_DETECTION`). Without
/// SACK the sender uses NewReno's duplicate-ACK rule either way, as Linux does
/// (`tcp_identify_packet_loss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LossDetection {
    /// RACK-TLP (RFC 8985, Linux since 4.18 by default): a segment is lost
    /// once a segment sent after it was delivered and a reordering window has
    /// passed; tail loss probes (Linux `tcp_early_retrans` = 3) repair tail
    /// losses without the RTO, and lost retransmissions are detected the same
    /// way as lost originals.
    Rack,
    /// The duplicate-ACK threshold (RFC 6675 `IsLost` with DupThresh =
    /// the flow's reordering degree, Linux `tcp_update_scoreboard`): the
    /// papers' era. A lost retransmission waits for the RTO.
    DupAck,
}

/// Bound of `reordering` and `max_reordering` in a scenario: only nonsense is
/// refused (Linux bounds neither sysctl), a million segments is beyond any
/// window hscc runs.
pub const MAX_REORDERING: u32 = 1_000_000;

/// What the congestion control's `cong_avoid(ack, acked)` is told was
/// acknowledged. `cong_avoid` runs only for an ACK that advances `snd_una`
/// outside recovery, in either mode; `pkts_acked` always gets the number of
/// segments cumulatively acknowledged, and `cong_control`'s rate sample the
/// segments delivered (as ns-3 passes the segment count to `PktsAcked`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AckCounting {
    /// `acked` = segments newly acknowledged by the ACK, cumulatively or by
    /// SACK: Linux since 3.18 (appropriate byte counting, RFC 3465 without its
    /// L limit). Slow start doubles cwnd per RTT with delayed ACKs.
    #[default]
    Segments,
    /// `acked` = 1 for every ACK that advances `snd_una`, however many
    /// segments it covers: ns-2's TCP agents, ns-3's `TcpNewReno` (its
    /// `SlowStart` adds one segment per ACK, `CongestionAvoidance` one
    /// MSS²/cwnd per ACK) and Linux before ABC. With an ACK every two segments,
    /// slow start grows ×1.5 per RTT and congestion avoidance +½ segment per RTT.
    Acks,
}

/// What a loss's window reduction starts from: the algorithm's `ssthresh`
/// sees this as `snd_cwnd` when a recovery, a CWR or a timeout begins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SsthreshFrom {
    /// The congestion window (Linux: every `ssthresh` hook reads `snd_cwnd`).
    #[default]
    Cwnd,
    /// The RFC 6675 pipe, packets_out − SACKed − lost + retransmitted, after
    /// the ACK's SACK and loss marking: ns-3's `GetSsThresh(tcb,
    /// BytesInFlight())` in `EnterRecovery`, `EnterCwr` and `ReTxTimeout`, which
    /// its NewReno, HighSpeed and Scalable reduce from (its LinuxReno, CUBIC,
    /// BIC and Vegas read cwnd). At a fast retransmit at least three segments
    /// are SACKed and one is lost, so the reduction is deeper by those.
    Pipe,
}

/// A delay drawn once per connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DelayDist {
    /// Always this delay, ps.
    Fixed(Time),
    /// Uniform on [min, max], ps.
    Uniform {
        /// Smallest delay, ps.
        min: Time,
        /// Largest delay, ps.
        max: Time,
    },
}

impl Default for DelayDist {
    fn default() -> Self {
        DelayDist::Fixed(0)
    }
}

impl DelayDist {
    /// Largest delay it can draw.
    pub fn max(&self) -> Time {
        match *self {
            DelayDist::Fixed(d) => d,
            DelayDist::Uniform { max, .. } => max,
        }
    }

    /// Mean delay.
    pub fn mean(&self) -> Time {
        match *self {
            DelayDist::Fixed(d) => d,
            DelayDist::Uniform { min, max } => min + (max - min) / 2,
        }
    }
}

/// A TCP flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowConfig {
    /// Sending host (node index).
    pub src: u32,
    /// Receiving host (node index).
    pub dst: u32,
    /// Congestion control and its parameters.
    pub cc: CcParams,
    /// Start time.
    pub start: Time,
    /// Time to stop sending new data (None: until the end of the run).
    pub stop: Option<Time>,
    /// Bytes to transfer (None: unlimited bulk transfer).
    pub size: Option<u64>,
    /// Maximum segment size, payload bytes.
    pub mss: u32,
    /// Receiver window, bytes (None: unlimited).
    pub rwnd: Option<u64>,
    /// SACK-based loss recovery (RFC 6675); NewReno (RFC 6582) when off.
    pub sack: bool,
    /// Window reduction during recovery.
    pub recovery: Recovery,
    /// Loss detection with SACK (see [`LossDetection`]).
    pub loss_detection: LossDetection,
    /// The receiver reports duplicate segments in a D-SACK block (RFC 2883;
    /// Linux sysctl `tcp_dsack`, default 1).
    pub dsack: bool,
    /// Undo of spurious window reductions (Linux `tcp_try_undo_*`, always on in
    /// Linux): by D-SACKs covering every retransmission (RFC 3708) and by the
    /// timestamp echo showing the original arrived (Eifel, RFC 3522); the
    /// algorithm restores cwnd with `undo_cwnd`. F-RTO's undo of a spurious
    /// timeout comes with `frto`.
    pub undo: bool,
    /// F-RTO (RFC 5682 SACK-enhanced version, Linux sysctl `tcp_frto` = 2, the
    /// default): after a timeout, new data is sent before more retransmissions
    /// and the reduction is undone if never-retransmitted data is acknowledged.
    pub frto: bool,
    /// Initial reordering degree, segments: the duplicate-ACK threshold
    /// (Linux sysctl `tcp_reordering`, default 3 = RFC 5681's DupThresh).
    pub reordering: u32,
    /// Largest reordering degree the sender adapts to when it sees reordering
    /// (Linux sysctl `tcp_max_reordering`, default 300; equal to `reordering`:
    /// no adaptation, a fixed DupThresh as in RFC 6675).
    pub max_reordering: u32,
    /// Initial congestion window, segments (RFC 6928 / Linux: 10).
    pub init_cwnd: u32,
    /// Minimum retransmission timeout (Linux: 200 ms; RFC 6298: 1 s).
    pub min_rto: Time,
    /// Initial retransmission timeout (RFC 6298 §2.1: 1 s).
    pub initial_rto: Time,
    /// How the RTO follows the RTT samples (RFC 6298's or Linux's estimator).
    pub rto_estimator: crate::tcp::rtt::RtoEstimator,
    /// TCP timestamps (RFC 7323): RTT samples from TSecr when segments were retransmitted.
    pub timestamps: bool,
    /// Delayed ACKs at the receiver.
    pub delayed_ack: bool,
    /// Segments per delayed ACK.
    pub delack_segments: u32,
    /// Delayed-ACK timer (Linux's minimum: 40 ms).
    pub delack_timeout: Time,
    /// New data segments the receiver acknowledges one by one before its
    /// delayed ACKs start: Linux's window opening (`tcp_grow_window`), 0 off.
    pub quick_acks: u64,
    /// Pace at Linux's default rate (2× cwnd/srtt in slow start, 1.2× after) when the algorithm sets no rate.
    pub pacing: bool,
    /// Host processing jitter, ps (default 8 µs, at most 1 s): each segment
    /// reaches the sender's first link after a delay drawn uniformly from
    /// [0, host_jitter] (never before the segment ahead of it), from the flow's
    /// own seeded random stream. Real hosts hand segments to the wire with
    /// microseconds of variation (scheduling, softirq, interrupt coalescing,
    /// NIC queues). Without it, flows started together tie at every packet of
    /// their first window and the tie goes to the flow created first; the
    /// resulting DropTail phase pattern (Floyd & Jacobson 1992) is then the
    /// same for every seed. 8 µs is ns-2's `overhead_` as TCP-Africa used it.
    /// 0 turns it off (the order of before: ties in creation order).
    pub host_jitter: Time,
    /// Start-up jitter, ps (default 0 = off, at most one hour): the flow
    /// starts at `start` plus a delay drawn uniformly from [0, start_jitter]
    /// (flow's own seeded stream; never at or past `stop`, nor past the end of
    /// the run), for flows launched together by separate processes or hosts.
    /// Off by default: even 1 ms at 700 Mbit/s decides which of 8 flows lose
    /// most in their common slow start (mean Jain index at 60 s 0.77 instead of
    /// 0.99 over 8 seeds, docs/fairness.md): a change of results, not a
    /// removal of bias. Web
    /// transfers ignore it (their arrivals are already random).
    pub start_jitter: Time,
    /// Initial slow-start threshold, segments (None: unlimited, Linux's
    /// default; else 2 to 10^9; ns-3 `TcpSocket::InitialSlowStartThreshold`),
    /// for every algorithm. Set before the algorithm's `init`, which may
    /// override it: BIC's `initial_ssthresh` and CUBIC's (with HyStart off)
    /// win when nonzero, in Linux's order (route-metric ssthresh, then
    /// `tcp_init_congestion_control`).
    pub init_ssthresh: Option<u32>,
    /// How acknowledged data is counted for window growth (`cong_avoid`'s `acked`).
    pub ack_counting: AckCounting,
    /// What a loss's reduction starts from (the `ssthresh` hook's `snd_cwnd`).
    pub ssthresh_from: SsthreshFrom,
    /// Extra one-way delay between this flow's sender and the network, in both
    /// directions (data leaving the sender, ACKs reaching it), without a queue
    /// and keeping the flow's packet order: drawn once per connection from the
    /// flow's own seeded stream, for a web transfer from the transfer's
    /// (Sync-TCP's "background clouds" with access delays uniform on
    /// [5, 25] ms). Base RTT = path RTT + 2 × the draw. Default Fixed(0);
    /// at most one hour, min ≤ max.
    pub access_delay: DelayDist,
    /// ECN (RFC 3168) on both ends: new data is sent ECN-capable, the receiver
    /// echoes CE marks with ECE until it sees CWR, and the sender reduces its
    /// window once per window of data on ECE (Linux `tcp_enter_cwr`). Default
    /// off: Linux's `tcp_ecn = 2` answers ECN but does not ask for it.
    pub ecn: bool,
    /// Log every congestion-control hook call of this flow (docs/traces.md;
    /// configured flows only, not web transfers).
    pub cc_log: bool,
}

/// Default [`FlowConfig::host_jitter`]: 8 µs (see the field).
pub const DEFAULT_HOST_JITTER: Time = 8 * crate::time::US;

impl FlowConfig {
    /// A bulk flow with Linux-like defaults.
    pub fn bulk(src: u32, dst: u32, cc: CcParams) -> FlowConfig {
        FlowConfig {
            src,
            dst,
            cc,
            start: 0,
            stop: None,
            size: None,
            mss: DEFAULT_MSS,
            rwnd: None,
            sack: true,
            recovery: Recovery::Prr,
            loss_detection: LossDetection::Rack,
            dsack: true,
            undo: true,
            frto: true,
            reordering: 3,
            max_reordering: 300,
            init_cwnd: 10,
            min_rto: 200 * MS,
            initial_rto: SEC,
            rto_estimator: crate::tcp::rtt::RtoEstimator::Rfc6298,
            timestamps: true,
            delayed_ack: true,
            delack_segments: 2,
            delack_timeout: 40 * MS,
            quick_acks: 0,
            pacing: false,
            host_jitter: DEFAULT_HOST_JITTER,
            start_jitter: 0,
            init_ssthresh: None,
            ack_counting: AckCounting::Segments,
            ssthresh_from: SsthreshFrom::Cwnd,
            access_delay: DelayDist::Fixed(0),
            ecn: false,
            cc_log: false,
        }
    }

    /// The same flow without the seeded randomness of host timing (host and
    /// start-up jitter 0): events at the same time run in the order they were
    /// created, as before these knobs existed. For tests that compute exact times.
    pub fn without_jitter(mut self) -> FlowConfig {
        self.host_jitter = 0;
        self.start_jitter = 0;
        self
    }

    /// Linux's loss detection and recovery (the sysctl defaults of Linux 6.x):
    /// RACK-TLP, D-SACK, undo, F-RTO, reordering degree 3 adapting up to 300.
    pub fn with_linux_recovery(self) -> FlowConfig {
        FlowConfig {
            loss_detection: LossDetection::Rack,
            dsack: true,
            undo: true,
            frto: true,
            reordering: 3,
            max_reordering: 300,
            ..self
        }
    }

    /// RFC 6675 / RFC 6582 recovery alone: three duplicate ACKs (a fixed
    /// DupThresh), no D-SACK, no undo, no F-RTO; a lost retransmission waits
    /// for the RTO. ns-2's SACK and NewReno agents; hscc before RACK.
    pub fn with_classic_recovery(self) -> FlowConfig {
        FlowConfig {
            loss_detection: LossDetection::DupAck,
            dsack: false,
            undo: false,
            frto: false,
            reordering: 3,
            max_reordering: 3,
            ..self
        }
    }

    /// Bytes of a full-sized segment on the wire.
    pub fn wire_size(&self) -> u32 {
        self.mss + HEADER_BYTES
    }
}

/// A unidirectional link between two nodes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    /// Name for reports (e.g. "bottleneck").
    pub name: String,
    /// Node it leaves.
    pub from: u32,
    /// Node it reaches.
    pub to: u32,
    /// Rate, delay, buffer, loss, jitter.
    pub cfg: LinkConfig,
    /// Record queue traces and the queuing-delay distribution.
    pub monitor: bool,
}

/// Nodes and unidirectional links.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Topology {
    /// Node names.
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<LinkSpec>,
}

/// A scheduled change of a link's rate or propagation delay (rerouting, Sync-TCP §V.C).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkChange {
    /// When.
    pub at: Time,
    /// Which link (index).
    pub link: u32,
    /// New rate, bit/s.
    pub rate_bps: Option<u64>,
    /// New propagation delay.
    pub delay: Option<Time>,
}

/// Everything a run needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimConfig {
    /// Nodes and links.
    pub topology: Topology,
    /// Long-lived or finite TCP flows, each with its own results.
    pub flows: Vec<FlowConfig>,
    /// UDP flows (CBR, on/off, Poisson; VoIP is a CBR pair).
    pub udp: Vec<UdpConfig>,
    /// Web-like traffic sources (short TCP transfers created as they arrive).
    pub web: Vec<WebConfig>,
    /// Scheduled link changes.
    pub changes: Vec<LinkChange>,
    /// Simulated duration.
    pub duration: Time,
    /// Run seed.
    pub seed: u64,
    /// Interval of the time series (None: no traces).
    pub sample_interval: Option<Time>,
    /// Packet captures (none by default; [`crate::capture`]).
    #[serde(skip_serializing_if = "CaptureConfig::is_empty")]
    pub capture: CaptureConfig,
}

impl Default for SimConfig {
    /// Nothing to simulate yet: fill in topology, flows and duration.
    fn default() -> Self {
        SimConfig {
            topology: Topology::default(),
            flows: Vec::new(),
            udp: Vec::new(),
            web: Vec::new(),
            changes: Vec::new(),
            duration: SEC,
            seed: 1,
            sample_interval: None,
            capture: CaptureConfig::default(),
        }
    }
}

/// A rejected configuration value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Which field (e.g. `flows[2].mss`).
    pub field: String,
    /// The value given.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is not allowed ({})",
            self.field, self.value, self.allowed
        )
    }
}

impl std::error::Error for ConfigError {}

fn check(
    ok: bool,
    field: impl FnOnce() -> String,
    value: impl fmt::Display,
    allowed: &str,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            field: field(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        })
    }
}

/// A number as a person writes it: 0.25, 3e-300, 1e+30 (never 300 zeros).
pub(crate) fn num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// An algorithm's rejected parameter as an error on the field `at(name)`.
pub(crate) fn param_error(at: &dyn Fn(&str) -> String, e: &CcError) -> ConfigError {
    match e {
        CcError::Param {
            error:
                ParamError::Invalid {
                    name,
                    value,
                    allowed,
                },
            ..
        } => ConfigError {
            field: at(name),
            value: value.to_string(),
            allowed: allowed.clone(),
        },
        other => ConfigError {
            field: at("algorithm"),
            value: String::new(),
            allowed: other.to_string(),
        },
    }
}

/// A source (flow, UDP, web) or a change active from `start` (to `stop`):
/// it must begin before the run ends, or it would silently do nothing.
pub(crate) fn check_period(
    at: &dyn Fn(&str) -> String,
    start: Time,
    stop: Option<Time>,
    duration: Time,
) -> Result<(), ConfigError> {
    let end = format!(
        "a time before the end of the run (duration = {} s)",
        secs(duration)
    );
    check(
        start < duration,
        || at("start"),
        format!("{} s", secs(start)),
        &end,
    )?;
    if let Some(stop) = stop {
        check(
            stop > start,
            || at("stop"),
            format!("{} s", secs(stop)),
            "after start",
        )?;
    }
    Ok(())
}

/// Whether web sizes drawn from `d` stay within 1 byte to 1 TB on average.
fn size_ok(d: &SizeDist) -> bool {
    let mean_ok = |m: f64| (1.0..=MAX_WEB_SIZE as f64).contains(&m);
    match *d {
        SizeDist::Fixed(b) => (1..=MAX_WEB_SIZE).contains(&b),
        SizeDist::Exponential { mean } => mean_ok(mean),
        SizeDist::Pareto { shape, mean } => shape.is_finite() && shape > 1.0 && mean_ok(mean),
        SizeDist::PackmimeRequest | SizeDist::PackmimeResponse => true,
    }
}

/// A tick-served link counts its delay in whole ticks, as Dummynet does
/// (`p->delay = delay_ms * hz / 1000`): refuse a delay it would truncate.
fn check_whole_ticks(
    delay: Time,
    tick: Time,
    field: &dyn Fn() -> String,
) -> Result<(), ConfigError> {
    let allowed = format!("a whole number of ticks ({} s each): a tick-served link counts its delay in ticks, as Dummynet does", secs(tick));
    check(
        delay.is_multiple_of(tick),
        field,
        format!("{} s", secs(delay)),
        &allowed,
    )
}

impl LinkConfig {
    /// Check rate, loss and buffer; `at` names the link in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check(
            self.rate_bps > 0 && self.rate_bps <= 10_000_000_000_000,
            || format!("{at}.rate"),
            self.rate_bps,
            "1 bit/s to 10 Tbit/s",
        )?;
        check(
            (0.0..=1.0).contains(&self.loss),
            || format!("{at}.loss"),
            self.loss,
            "a probability from 0 to 1",
        )?;
        check(
            self.delay <= 3600 * SEC,
            || format!("{at}.delay"),
            format!("{} s", secs(self.delay)),
            "at most one hour",
        )?;
        check(
            self.jitter <= 3600 * SEC,
            || format!("{at}.jitter"),
            format!("{} s", secs(self.jitter)),
            "at most one hour",
        )?;
        check(
            self.framing <= MAX_FRAMING,
            || format!("{at}.framing"),
            format!("{} bytes", self.framing),
            "0 to 65535 bytes",
        )?;
        if self.tick != 0 {
            check(
                (MIN_TICK..=MAX_TICK).contains(&self.tick),
                || format!("{at}.tick"),
                format!("{} s", secs(self.tick)),
                "0 (continuous) or 1 us to 1 s",
            )?;
            check_whole_ticks(self.delay, self.tick, &|| format!("{at}.delay"))?;
        }
        match self.buffer {
            Buffer::Packets(n) => check(
                (1..=MAX_QUEUE_PACKETS).contains(&n),
                || format!("{at}.buffer"),
                format!("{n} packets"),
                "1 to 10^8 packets",
            )?,
            Buffer::Bytes(n) => check(
                n >= 1,
                || format!("{at}.buffer"),
                format!("{n} bytes"),
                "at least 1 byte",
            )?,
        }
        if self.queue.is_aqm() {
            let aqm = "0 with a queue discipline other than droptail (an AQM decides at dequeue; a tick-served or reordering link fixes departures at enqueue)";
            check(
                self.tick == 0,
                || format!("{at}.tick"),
                format!("{} s", secs(self.tick)),
                aqm,
            )?;
            check(
                !self.jitter_reorders,
                || format!("{at}.jitter_reorders"),
                "true",
                &aqm.replace("0 with", "false with"),
            )?;
        }
        self.queue.validate(&format!("{at}.queue"))
    }
}

impl SimConfig {
    /// Check every value the engine cannot run with.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_caps()?;
        let n = self.topology.nodes.len() as u32;
        for (i, l) in self.topology.links.iter().enumerate() {
            let at = format!("links[{i}]");
            l.cfg.validate(&at)?;
            check(
                l.from < n && l.to < n && l.from != l.to,
                || format!("{at}.from/to"),
                format!("{}->{}", l.from, l.to),
                "two different existing nodes",
            )?;
        }
        check(
            self.duration > 0,
            || "duration".into(),
            self.duration,
            "a positive duration",
        )?;
        if let Some(dt) = self.sample_interval {
            check(
                dt > 0 && dt <= self.duration,
                || "sample_interval".into(),
                format!("{} s", secs(dt)),
                "a positive interval, at most the duration",
            )?;
        }
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            check(f.src < n, || at("src"), f.src, "an existing node")?;
            check(
                f.dst < n && f.dst != f.src,
                || at("dst"),
                f.dst,
                "an existing node other than src",
            )?;
            f.validate(&at)?;
            check_period(&at, f.start, f.stop, self.duration)?;
        }
        for (i, u) in self.udp.iter().enumerate() {
            let at = |k: &str| format!("udp[{i}].{k}");
            check(u.src < n, || at("src"), u.src, "an existing node")?;
            check(
                u.dst < n && u.dst != u.src,
                || at("dst"),
                u.dst,
                "an existing node other than src",
            )?;
            check(
                (28..=65_535).contains(&u.packet_size),
                || at("packet_size"),
                u.packet_size,
                "28 to 65535 bytes",
            )?;
            check(
                u.rate_bps() > 0,
                || at("rate"),
                u.rate_bps(),
                "a positive rate",
            )?;
            check_period(&at, u.start, u.stop, self.duration)?;
            if let UdpPattern::OnOff { on, off, .. } = u.pattern {
                check(
                    on > 0 && off > 0,
                    || at("on/off"),
                    format!("{on}/{off}"),
                    "positive on and off periods",
                )?;
            }
        }
        for (i, w) in self.web.iter().enumerate() {
            let at = |k: &str| format!("web[{i}].{k}");
            check(
                !w.servers.is_empty() && w.servers.iter().all(|&s| s < n),
                || at("servers"),
                format!("{:?}", w.servers),
                "one or more existing nodes",
            )?;
            check(
                !w.clients.is_empty() && w.clients.iter().all(|&c| c < n),
                || at("clients"),
                format!("{:?}", w.clients),
                "one or more existing nodes",
            )?;
            // A transfer from a node to itself has no route: servers and clients are apart.
            check(
                !w.clients.iter().any(|c| w.servers.contains(c)),
                || at("clients"),
                format!("{:?}", w.clients),
                "nodes that are not also servers",
            )?;
            check_period(&at, w.start, w.stop, self.duration)?;
            check(
                w.rate.is_finite() && w.rate >= 1e-6 && w.rate <= 1e7,
                || at("rate"),
                num(w.rate),
                "10^-6 to 10^7 transfers per second",
            )?;
            const SIZES: &str = "a fixed size or a mean from 1 byte to 10^12 bytes (and a Pareto shape above 1), or PackMime's";
            check(
                size_ok(&w.size),
                || at("size"),
                format!("{:?}", w.size),
                SIZES,
            )?;
            if let WebModel::Sessions(m) = &w.model {
                check(
                    size_ok(&m.request_size),
                    || at("request_size"),
                    format!("{:?}", m.request_size),
                    SIZES,
                )?;
                check(
                    (0.0..=1.0).contains(&m.persistent),
                    || at("persistent"),
                    num(m.persistent),
                    "a probability from 0 to 1 (PackMime's HTTP/1.1: 0.09)",
                )?;
            }
            w.tcp.validate(&|k: &str| format!("web[{i}].tcp.{k}"))?;
        }
        self.validate_capture()?;
        let links = self.topology.links.len() as u32;
        for (i, c) in self.changes.iter().enumerate() {
            check(
                c.link < links,
                || format!("changes[{i}].link"),
                c.link,
                "an existing link index",
            )?;
            check_period(
                &|_: &str| format!("changes[{i}].at"),
                c.at,
                None,
                self.duration,
            )?;
            if let Some(r) = c.rate_bps {
                check(
                    r > 0 && r <= 10_000_000_000_000,
                    || format!("changes[{i}].rate"),
                    r,
                    "1 bit/s to 10 Tbit/s",
                )?;
            }
            if let Some(d) = c.delay {
                check(
                    d <= 3600 * SEC,
                    || format!("changes[{i}].delay"),
                    format!("{} s", secs(d)),
                    "at most one hour",
                )?;
                let tick = self.topology.links[c.link as usize].cfg.tick;
                if tick != 0 {
                    check_whole_ticks(d, tick, &|| format!("changes[{i}].delay"))?;
                }
            }
        }
        Ok(())
    }
}

impl SimConfig {
    /// The hard caps of [`crate::limits`] on everything sized by the input.
    pub(crate) fn check_caps(&self) -> Result<(), ConfigError> {
        let t = &self.topology;
        let count = |what: &str, n: usize, max: usize| {
            check(
                n <= max,
                || what.into(),
                format!("{n} {what}"),
                &format!("at most {max} {what}"),
            )
        };
        count("nodes", t.nodes.len(), MAX_NODES)?;
        count("links", t.links.len(), MAX_LINKS)?;
        count("flows", self.flows.len(), MAX_FLOWS)?;
        count("udp", self.udp.len(), MAX_UDP_FLOWS)?;
        for (i, w) in self.web.iter().enumerate() {
            let pairs = w.servers.len().saturating_mul(w.clients.len());
            check(
                pairs <= MAX_WEB_PAIRS,
                || format!("web[{i}].clients"),
                format!("{pairs} server-client pairs"),
                &format!("at most {MAX_WEB_PAIRS} server-client pairs"),
            )?;
        }
        let work = crate::estimate::route_work(self);
        check(work <= MAX_ROUTE_WORK, || "topology".into(), format!("{} nodes and {} links", t.nodes.len(), t.links.len()), &format!("routing the traffic takes {work} steps, above {MAX_ROUTE_WORK}: fewer distinct endpoints or a smaller topology"))?;
        if let Some(dt) = self.sample_interval.filter(|&dt| dt > 0) {
            let samples = self.duration / dt;
            check(
                samples <= 10_000_000,
                || "sample_interval".into(),
                format!("{} s", secs(dt)),
                &format!(
                    "at most 10 million samples per run (duration / {} s = {samples})",
                    secs(dt)
                ),
            )?;
            let series = 1
                + 3 * self.flows.len() as u64
                + 6 * t.links.iter().filter(|l| l.monitor).count() as u64;
            let values = samples.saturating_mul(series);
            check(values <= MAX_TRACE_VALUES, || "sample_interval".into(), format!("{} s", secs(dt)), &format!("at most {MAX_TRACE_VALUES} trace values per run ({samples} samples × {series} series)"))?;
        }
        Ok(())
    }
}

impl FlowConfig {
    /// Check the values the engine cannot run with (every TCP flow, long-lived
    /// or a web template); `at` names a field in errors.
    pub fn validate(&self, at: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        let f = self;
        check(
            (64..=65_495).contains(&f.mss),
            || at("mss"),
            f.mss,
            "64 to 65495 bytes",
        )?;
        check(
            (1..=1_000_000).contains(&f.init_cwnd),
            || at("init_cwnd"),
            f.init_cwnd,
            "1 to 1000000 segments",
        )?;
        check(
            f.delack_segments >= 1,
            || at("delack_segments"),
            f.delack_segments,
            "at least 1",
        )?;
        check(
            f.min_rto > 0 && f.initial_rto >= f.min_rto && f.min_rto <= MAX_RTO,
            || at("min_rto"),
            format!("{} s", secs(f.min_rto)),
            "positive, not above initial_rto, at most 120 s (Linux's TCP_RTO_MAX)",
        )?;
        check(
            f.initial_rto <= MAX_RTO,
            || at("initial_rto"),
            format!("{} s", secs(f.initial_rto)),
            "at most 120 s (Linux's TCP_RTO_MAX)",
        )?;
        check(
            f.delack_timeout <= 3600 * SEC,
            || at("delack_timeout"),
            format!("{} s", secs(f.delack_timeout)),
            "at most one hour",
        )?;
        check(
            f.host_jitter <= SEC,
            || at("host_jitter"),
            format!("{} s", secs(f.host_jitter)),
            "0 to 1 s",
        )?;
        check(
            f.start_jitter <= 3600 * SEC,
            || at("start_jitter"),
            format!("{} s", secs(f.start_jitter)),
            "0 to one hour",
        )?;
        if let Some(s) = f.init_ssthresh {
            check(
                (2..=MAX_INIT_SSTHRESH).contains(&s),
                || at("init_ssthresh"),
                s,
                "2 to 10^9 segments (None: unlimited)",
            )?;
        }
        match f.access_delay {
            DelayDist::Fixed(d) => check(
                d <= 3600 * SEC,
                || at("access_delay"),
                format!("{} s", secs(d)),
                "0 to one hour",
            )?,
            DelayDist::Uniform { min, max } => check(
                min <= max && max <= 3600 * SEC,
                || at("access_delay"),
                format!("uniform on [{} s, {} s]", secs(min), secs(max)),
                "0 <= min <= max <= one hour",
            )?,
        }
        if let Some(s) = f.size {
            check(s > 0, || at("size"), s, "at least 1 byte")?;
        }
        if let Some(w) = f.rwnd {
            check(w >= f.mss as u64, || at("rwnd"), w, "at least one MSS")?;
        }
        if let Some(stop) = f.stop {
            check(
                stop > f.start,
                || at("stop"),
                format!("{} s", secs(stop)),
                "after start",
            )?;
        }
        f.cc.check()
            .map_err(|e| param_error(&|k: &str| at(&format!("cc.{k}")), &e))
    }
}

impl SimConfig {
    /// Captures name existing flows and links, each once, with a usable snap length.
    fn validate_capture(&self) -> Result<(), ConfigError> {
        use crate::capture::{CapturePoint, MAX_SNAPLEN, MIN_SNAPLEN};
        let c = &self.capture;
        if c.is_empty() {
            return Ok(());
        }
        let allowed = format!("{MIN_SNAPLEN} to {MAX_SNAPLEN} bytes (IPv4 and the longest TCP header, up to the largest IPv4 packet)");
        check(
            (MIN_SNAPLEN..=MAX_SNAPLEN).contains(&c.snaplen),
            || "capture.snaplen".into(),
            c.snaplen,
            &allowed,
        )?;
        let (mut points, mut names) = (
            std::collections::HashSet::new(),
            std::collections::HashSet::new(),
        );
        for (i, f) in c.files.iter().enumerate() {
            let at = || format!("capture.files[{i}]");
            let ok = match f.at {
                CapturePoint::Flow(k) => (k as usize) < self.flows.len(),
                CapturePoint::Link(l) => (l as usize) < self.topology.links.len(),
            };
            check(ok, at, format!("{:?}", f.at), "an existing flow or link")?;
            check(
                points.insert(f.at),
                at,
                format!("{:?}", f.at),
                "each flow or link captured once",
            )?;
            check(
                crate::scenario::is_file_name(&f.file) && names.insert(&f.file),
                at,
                &f.file,
                "a file name of its own",
            )?;
        }
        Ok(())
    }
}
