//! A TCP flow as configured: endpoints, algorithm, segment size, loss
//! recovery and detection, ACK counting, host delays, start and stop, with
//! every default and range.

use std::ops::RangeInclusive;

use hscc_cc::CcParams;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{check, param_error, ConfigError};
use crate::packet::{DEFAULT_MSS, HEADER_BYTES};
use crate::tcp::{RtoEstimator, RtoRestart, RttSampling, MAX_RTO};
use crate::time::{secs, Time, MS, SEC, US};

/// Largest [`FlowConfig::init_ssthresh`], segments.
pub const MAX_INIT_SSTHRESH: u32 = 1_000_000_000;

/// Loss recovery without SACK or with SACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Proportional Rate Reduction (RFC 6937, Linux's default).
    #[default]
    Prr,
    /// Window during recovery: cwnd = ssthresh from the start (RFC 6675 §5 / RFC 6582).
    Classic,
    /// ns-2.35's Agent/TCP/Sack1 (tcp/tcp-sack1.cc): cwnd = ssthresh from the
    /// start, and a pipe counted down by one per ACK decides what is sent, so
    /// recovery is ACK-clocked however many segments were lost. SACK only.
    Sack1,
    /// Linux ≤ 3.1's rate halving (net/ipv4/tcp_input.c `tcp_cwnd_down`):
    /// cwnd falls by one every second ACK until it reaches the
    /// [`ReductionFloor`], and never stays above the segments in flight + 1;
    /// at the end cwnd = min(cwnd, ssthresh) (`tcp_complete_cwr`).
    #[serde(rename = "rate_halving")]
    RateHalving,
}

/// The lowest window rate halving steps down to (Linux ≤ 3.1 `tcp_cwnd_min`:
/// the module's `min_cwnd` hook, else `snd_ssthresh`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReductionFloor {
    /// `snd_ssthresh`: a module without `min_cwnd` (CUBIC 2.3, Veno).
    #[default]
    Ssthresh,
    /// `snd_ssthresh / 2` (`tcp_reno_min_cwnd`: Reno, HighSpeed, Illinois,
    /// Vegas, Hybla), so a gentle ssthresh does not stop the halving.
    HalfSsthresh,
}

/// How a SACK sender decides that a segment is lost before the RTO (Linux
/// sysctl `net.ipv4.tcp_recovery`, bit `TCP_RACK_LOSS_DETECTION`). Without
/// SACK the sender uses NewReno's duplicate-ACK rule either way, as Linux does
/// (`tcp_identify_packet_loss`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LossDetection {
    /// RACK-TLP (RFC 8985, Linux since 4.18 by default): a segment is lost
    /// once a segment sent after it was delivered and a reordering window has
    /// passed; tail loss probes (Linux `tcp_early_retrans` = 3) repair tail
    /// losses without the RTO, and lost retransmissions are detected the same
    /// way as lost originals.
    #[default]
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

/// What one draw of the host jitter delays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum JitterUnit {
    /// Each segment draws its own delay (kept in order).
    #[default]
    Segment,
    /// One draw per sending opportunity, as ns-2's `overhead_`
    /// (`Sack1TcpAgent::send_much`: a send waits `Random::uniform(overhead_)`,
    /// then every segment the window allows leaves at that instant; sends
    /// asked for while it waits join it).
    Send,
}

/// What the congestion control's `cong_avoid(ack, acked)` is told was
/// acknowledged. `cong_avoid` runs only for an ACK that advances `snd_una`
/// outside recovery, in either mode; `pkts_acked` always gets the number of
/// segments cumulatively acknowledged, and `cong_control`'s rate sample the
/// segments delivered (as ns-3 passes the segment count to `PktsAcked`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// Receiver window, bytes (None: TCP's largest, [`MAX_WINDOW_BYTES`]).
    pub rwnd: Option<u64>,
    /// SACK-based loss recovery (RFC 6675); NewReno (RFC 6582) when off.
    pub sack: bool,
    /// Window reduction during recovery.
    pub recovery: Recovery,
    /// The floor of a rate-halving reduction (only with [`Recovery::RateHalving`]).
    pub reduction_floor: ReductionFloor,
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
    /// Tail loss probes (RFC 8985 §7, Linux sysctl `tcp_early_retrans` = 3, the
    /// default): about two RTTs without an ACK send a probe, whose SACK lets
    /// RACK find a lost tail without the RTO. With [`LossDetection::Rack`] only.
    pub tlp: bool,
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
    pub rto_estimator: RtoEstimator,
    /// Which ACKs give the estimator a sample: every one (Linux) or one timed
    /// segment per round trip (ns-2).
    pub rtt_sampling: RttSampling,
    /// Clock tick of the RTO estimator, ps: 0 (none) or ns-2's `tcpTick_`
    /// (10 ms), with SRTT and RTTVAR kept in whole ticks as ns-2's
    /// `rtt_update` keeps them. Only with the RFC 6298 estimator.
    pub rto_tick: Time,
    /// Which ACKs restart the retransmission timer: those of new data
    /// (RFC 6298) or every one (ns-2's TCP-Linux agent).
    pub rto_restart: RtoRestart,
    /// TCP timestamps (RFC 7323): RTT samples from TSecr when segments were retransmitted.
    pub timestamps: bool,
    /// The receiver's TSval carries a random offset of its own, per connection
    /// (Linux `tcp_timestamps = 1`); else both ends' timestamp clocks are the run's.
    pub random_ts_offset: bool,
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
    /// What one draw of `host_jitter` delays: each segment, or each send (ns-2).
    pub jitter_unit: JitterUnit,
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
pub const DEFAULT_HOST_JITTER: Time = 8 * US;
/// Segment sizes a flow may have, bytes: the largest fills a 65 535-byte IP
/// packet behind 40 bytes of headers.
pub const MSS_RANGE: RangeInclusive<u32> = 64..=65_495;
/// [`MSS_RANGE`] as an error message says it.
pub const MSS_ALLOWED: &str = "64 to 65495 bytes";
/// Default [`FlowConfig::init_cwnd`], segments (RFC 6928; Linux `TCP_INIT_CWND`).
pub const DEFAULT_INIT_CWND: u32 = 10;
/// TCP's largest receive window, bytes: 65 535 scaled by the largest shift,
/// 14 (RFC 7323 §2.3). A flow without `rwnd` has this one, as a Linux receiver
/// with unlimited buffers would, so what a sender may have in flight (and
/// hold in memory) is bounded whatever its algorithm sets cwnd to.
pub const MAX_WINDOW_BYTES: u64 = 65_535 << 14;
/// Default [`FlowConfig::min_rto`] (Linux `TCP_RTO_MIN`).
pub const DEFAULT_MIN_RTO: Time = 200 * MS;
/// Default [`FlowConfig::delack_segments`] (RFC 1122; Linux; ns-3's DelAckCount).
pub const DEFAULT_DELACK_SEGMENTS: u32 = 2;
/// Default [`FlowConfig::delack_timeout`] (Linux `TCP_DELACK_MIN`).
pub const DEFAULT_DELACK_TIMEOUT: Time = 40 * MS;
/// Default [`FlowConfig::reordering`], segments (Linux `tcp_reordering`).
pub const DEFAULT_REORDERING: u32 = 3;
/// [`FlowConfig::max_reordering`] with RACK, segments (Linux `tcp_max_reordering`).
pub const LINUX_MAX_REORDERING: u32 = 300;

impl FlowConfig {
    /// The receiver's window, bytes: `rwnd`, else TCP's largest.
    pub fn window_bytes(&self) -> u64 {
        self.rwnd.unwrap_or(MAX_WINDOW_BYTES)
    }

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
            reduction_floor: ReductionFloor::Ssthresh,
            loss_detection: LossDetection::Rack,
            dsack: true,
            undo: true,
            frto: true,
            tlp: true,
            reordering: DEFAULT_REORDERING,
            max_reordering: LINUX_MAX_REORDERING,
            init_cwnd: DEFAULT_INIT_CWND,
            min_rto: DEFAULT_MIN_RTO,
            initial_rto: SEC,
            rto_estimator: RtoEstimator::Rfc6298,
            rtt_sampling: RttSampling::Ack,
            rto_tick: 0,
            rto_restart: RtoRestart::NewData,
            timestamps: true,
            random_ts_offset: true,
            delayed_ack: true,
            delack_segments: DEFAULT_DELACK_SEGMENTS,
            delack_timeout: DEFAULT_DELACK_TIMEOUT,
            quick_acks: 0,
            pacing: false,
            host_jitter: DEFAULT_HOST_JITTER,
            jitter_unit: JitterUnit::Segment,
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
            tlp: true,
            reordering: DEFAULT_REORDERING,
            max_reordering: LINUX_MAX_REORDERING,
            ..self
        }
    }

    /// RFC 6675 / RFC 6582 recovery alone: three duplicate ACKs (a fixed
    /// DupThresh), no D-SACK, no undo, no F-RTO, no probes; a lost retransmission waits
    /// for the RTO. ns-2's SACK and NewReno agents; hscc before RACK.
    pub fn with_classic_recovery(self) -> FlowConfig {
        FlowConfig {
            loss_detection: LossDetection::DupAck,
            dsack: false,
            undo: false,
            frto: false,
            tlp: false,
            reordering: DEFAULT_REORDERING,
            max_reordering: DEFAULT_REORDERING,
            ..self
        }
    }

    /// Bytes of a full-sized segment on the wire.
    pub fn wire_size(&self) -> u32 {
        self.mss + HEADER_BYTES
    }
}

impl FlowConfig {
    /// Check the values the engine cannot run with (every TCP flow, long-lived
    /// or a web template); `at` names a field in errors.
    pub fn validate(&self, at: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
        let f = self;
        check(MSS_RANGE.contains(&f.mss), || at("mss"), f.mss, MSS_ALLOWED)?;
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
            f.rto_tick <= SEC,
            || at("rto_tick"),
            format!("{} s", secs(f.rto_tick)),
            "0 (no tick) to 1 s",
        )?;
        check(
            f.rto_tick == 0 || f.rto_estimator == RtoEstimator::Rfc6298,
            || at("rto_tick"),
            format!("{} s with rto_estimator = \"linux\"", secs(f.rto_tick)),
            "0 with the \"linux\" estimator (ticks are ns-2's, for \"rfc6298\")",
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
        check(
            f.sack || f.recovery != Recovery::Sack1,
            || at("recovery"),
            "\"sack1\"",
            "\"prr\" or \"classic\" without SACK (\"sack1\" needs sack = true)",
        )?;
        if let Some(w) = f.rwnd {
            check(
                (f.mss as u64..=MAX_WINDOW_BYTES).contains(&w),
                || at("rwnd"),
                w,
                "one MSS to 65535 x 2^14 = 1073725440 bytes, TCP's largest window",
            )?;
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
