//! A TCP flow entry (`[[flows]]`): its endpoints, its algorithm and every TCP
//! knob, with the defaults a reference stack ([`crate::scenario::stack`]) may replace.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::endpoints::with_endpoints;
use super::{default_algorithm, yes, zero_time};
use crate::config::{
    AckCounting, JitterUnit, LossDetection, Recovery, ReductionFloor, SsthreshFrom,
};
use crate::packet::DEFAULT_MSS;
use crate::scenario::dist::DistSpec;
use crate::scenario::quantity::{Bytes, ParamValue, Seconds};
use crate::scenario::stack::Stack;
use crate::tcp::rtt::{RtoEstimator, RtoRestart, RttSampling};
use crate::time::secs;
use hscc_model::flow;

with_endpoints! {
/// A TCP flow, or `count` identical ones. Hosts are named in the topology's
/// own terms: `pair` (dumbbell), `long` or `cross` (parking lot), `src` and `dst` (graph).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    src: "Graph: sending node.",
    dst: "Graph: receiving node.",
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
    /// Reference TCP stack of this flow, overriding the scenario's `stack`: "linux", "linux2.6", "ns2", "ns2-linux", "ns3" or "windows2008". Its profile (see "Reference stacks") sets each knob below that this entry leaves out; a knob the entry sets wins.
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
    /// Loss detection and recovery: "rack" (Linux's since 4.18: RACK-TLP, RFC 8985, with D-SACK, undo, F-RTO and reordering adaptation) or "dupack" (the papers' era, ns-2's agents: three duplicate ACKs, RFC 6675 / 6582, a lost retransmission waits for the RTO; by default without D-SACK, undo, F-RTO or adaptation). The five knobs below override either. Without SACK, NewReno's duplicate ACKs either way.
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
    /// Tail loss probes (RFC 8985 §7; Linux tcp_early_retrans = 3): about two RTTs without an ACK send a probe, whose SACK lets RACK find a lost tail without the RTO. With "rack" only (ns-2's TCP-Linux agent, whose losses "rack" models, sends none). Default: true with "rack", false with "dupack".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlp: Option<bool>,
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
    /// Which ACKs give the RTO estimator an RTT sample, and which segment's: "ack" (every ACK that acknowledges or SACKs data never retransmitted, the newest such segment's, else its echoed timestamp's), "linux" (Linux 6.x: the oldest segment the ACK newly acknowledges, none past a retransmitted one (Karn), else the lowest newly SACKed, else the echo in whole milliseconds; the minimum RTT and the algorithm take the newest) or "per_rtt" (ns-2.35's Agent/TCP: one segment timed per round trip, the first new one sent while none is timed, sampled when the cumulative ACK covers it; a timeout or a fast retransmission stops the timing, Karn's rule; the backoff ends only with a sample; with timestamps, every ACK that advances the cumulative ACK gives one from its echo). The algorithm keeps every ACK's sample either way.
    #[serde(default)]
    pub rtt_sampling: RttSampling,
    /// Clock tick of the RTO estimator: 0 (none: exact times) or ns-2's `tcpTick_` (10ms): each sample counted in whole ticks, at least one (the ticks the clock crossed since the segment left; rounded from an echoed timestamp), SRTT and RTTVAR kept in eighths and quarters of a tick as ns-2's rtt_update keeps them, RTO = whole ticks of SRTT + 4·RTTVAR, at least min_rto, backed off, at least two ticks. With rto_estimator = "rfc6298" only; at most 1s.
    #[serde(default)]
    pub rto_tick: Seconds,
    /// Which ACKs restart the retransmission timer: "new_data" (an ACK that acknowledges new data: RFC 6298 §5.3, Linux, ns-3, ns-2's Agent/TCP) or "every_ack" (every ACK not below the cumulative ACK, duplicates included: ns-2.35's Agent/TCP/Linux, whose timer a recovery's duplicate ACKs keep from firing).
    #[serde(default)]
    pub rto_restart: RtoRestart,
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

fn one() -> usize {
    1
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
