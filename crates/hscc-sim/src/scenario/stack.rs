//! Reference-stack profiles: `stack = "linux"`, `"linux2.6"`, `"ns2"` or `"ns3"`, at the top of a
//! scenario (every flow's) or in a `[[flows]]` entry (its own). A profile is
//! one table — knob, value, the source line of the reference stack that fixes
//! it — and fills, when a scenario is read, each knob a flow entry leaves out:
//! any knob the scenario sets wins. The field reference (docs/scenario.md,
//! `hscc fields`) prints these tables ([`profiles_json`]); `hscc check` prints
//! what a profile set ([`stack_uses`]).
//!
//! Without `stack`, a flow keeps hscc's own defaults (each field's default),
//! so that every existing scenario gives the results it gave.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::spec::{FlowSpec, ScenarioSpec};

/// A reference TCP stack whose behaviour a flow takes: the knobs of its
/// profile that the scenario leaves out (see "Reference stacks" below).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// Linux 6.x with its default sysctls.
    Linux,
    /// Linux 2.6.31 (2009) with its default sysctls.
    #[serde(rename = "linux2.6")]
    Linux26,
    /// ns-2.35's Sack1 agent and TCPSink with their defaults.
    Ns2,
    /// ns-3 (3.44) as validation/ns3 runs it.
    Ns3,
}

/// One row of a profile: a flow knob, its value and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Setting {
    /// The flow field (`min_rto`), or an algorithm parameter (`params.hystart`).
    pub knob: &'static str,
    /// The value as a scenario writes it, JSON (`"200ms"`, `10`, `true`).
    pub value: &'static str,
    /// Only flows of this algorithm (its canonical name); every flow when absent.
    pub algorithm: Option<&'static str>,
    /// The line of the reference stack's source (or the harness) that fixes the value.
    pub source: &'static str,
}

const fn all(knob: &'static str, value: &'static str, source: &'static str) -> Setting {
    Setting {
        knob,
        value,
        algorithm: None,
        source,
    }
}

const fn only(
    algorithm: &'static str,
    knob: &'static str,
    value: &'static str,
    source: &'static str,
) -> Setting {
    Setting {
        knob,
        value,
        algorithm: Some(algorithm),
        source,
    }
}

/// Linux 6.x: its sysctl defaults (net/ipv4/tcp_ipv4.c `tcp_sk_init`) and constants.
const LINUX: &[Setting] = &[
    all(
        "loss_detection",
        "\"rack\"",
        "net/ipv4/tcp_ipv4.c tcp_sk_init: sysctl_tcp_recovery = TCP_RACK_LOSS_DETECTION",
    ),
    all(
        "recovery",
        "\"prr\"",
        "net/ipv4/tcp_input.c tcp_cwnd_reduction: PRR (RFC 6937)",
    ),
    all(
        "rto_estimator",
        "\"linux\"",
        "net/ipv4/tcp_input.c tcp_rtt_estimator and tcp_set_rto",
    ),
    all(
        "min_rto",
        "\"200ms\"",
        "include/net/tcp.h: #define TCP_RTO_MIN ((unsigned)(HZ/5))",
    ),
    all(
        "init_cwnd",
        "10",
        "include/net/tcp.h: #define TCP_INIT_CWND 10",
    ),
    all(
        "reordering",
        "3",
        "net/ipv4/tcp_ipv4.c tcp_sk_init: sysctl_tcp_reordering = TCP_FASTRETRANS_THRESH",
    ),
    all(
        "sack",
        "true",
        "net/ipv4/tcp_ipv4.c tcp_sk_init: sysctl_tcp_sack = 1",
    ),
    all(
        "timestamps",
        "true",
        "net/ipv4/tcp_ipv4.c tcp_sk_init: sysctl_tcp_timestamps = 1",
    ),
    all(
        "random_ts_offset",
        "true",
        "net/ipv4/tcp_ipv4.c tcp_v4_init_ts_off: secure_tcp_ts_off() when sysctl_tcp_timestamps = 1",
    ),
    all(
        "mss",
        "1448",
        "1500-byte Ethernet MTU − 40 header bytes − TCPOLEN_TSTAMP_ALIGNED (12; net/ipv4/tcp_output.c tcp_current_mss)",
    ),
    all(
        "ack_counting",
        "\"segments\"",
        "net/ipv4/tcp_cong.c tcp_reno_cong_avoid: tcp_slow_start(tp, acked), tcp_cong_avoid_ai(tp, cwnd, acked)",
    ),
    all(
        "ssthresh_from",
        "\"cwnd\"",
        "net/ipv4/tcp_cong.c tcp_reno_ssthresh: max(tcp_snd_cwnd(tp) >> 1U, 2U)",
    ),
    all(
        "delayed_ack",
        "true",
        "net/ipv4/tcp_input.c __tcp_ack_snd_check: ACK at once only after more than one full frame",
    ),
    all(
        "delack_segments",
        "2",
        "net/ipv4/tcp_input.c __tcp_ack_snd_check: rcv_nxt − rcv_wup > rcv_mss",
    ),
    all(
        "delack_timeout",
        "\"40ms\"",
        "include/net/tcp.h: #define TCP_DELACK_MIN ((unsigned)(HZ/25))",
    ),
    all(
        "ecn",
        "false",
        "net/ipv4/tcp_ipv4.c tcp_sk_init: sysctl_tcp_ecn = 2 (ECN only when the peer asks)",
    ),
    only(
        "cubic",
        "params.hystart",
        "true",
        "net/ipv4/tcp_cubic.c: static int hystart __read_mostly = 1",
    ),
];

/// [`LINUX`]'s row for `knob` (every algorithm's), for a profile that shares it:
/// resolved when compiling, so a knob missing from [`LINUX`] fails the build.
const fn from_linux(knob: &str) -> Setting {
    let mut i = 0;
    while i < LINUX.len() {
        if LINUX[i].algorithm.is_none() && same(LINUX[i].knob, knob) {
            return LINUX[i];
        }
        i += 1;
    }
    panic!("Linux 6.x's profile has no row for this knob");
}

/// `a == b` where a `const fn` may compare (`str`'s `==` is not const).
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Linux 2.6.31 (September 2009): its sysctl defaults and constants, cited
/// from that release's net/ipv4 sources; the rows it shares with 6.x, value and
/// source alike, are [`LINUX`]'s ([`from_linux`]).
const LINUX_2_6: &[Setting] = &[
    all(
        "loss_detection",
        "\"dupack\"",
        "net/ipv4/tcp_input.c tcp_time_to_recover: recovery after tp->reordering duplicate ACKs (RACK came in 4.4, tail loss probes in 3.10)",
    ),
    all(
        "reordering",
        "3",
        "net/ipv4/tcp.c: sysctl_tcp_reordering = TCP_FASTRETRANS_THRESH",
    ),
    all(
        "max_reordering",
        "127",
        "net/ipv4/tcp_input.c tcp_update_reordering: min(TCP_MAX_REORDERING, metric), include/net/tcp.h: #define TCP_MAX_REORDERING 127",
    ),
    all(
        "dsack",
        "true",
        "net/ipv4/tcp_input.c: int sysctl_tcp_dsack __read_mostly = 1",
    ),
    all(
        "undo",
        "true",
        "net/ipv4/tcp_input.c tcp_try_undo_recovery, tcp_try_undo_dsack, tcp_try_undo_partial, tcp_try_undo_loss",
    ),
    all(
        "frto",
        "true",
        "net/ipv4/tcp_input.c: int sysctl_tcp_frto __read_mostly = 2 (SACK-enhanced F-RTO)",
    ),
    all(
        "recovery",
        "\"rate_halving\"",
        "net/ipv4/tcp_input.c tcp_fastretrans_alert: tcp_cwnd_down(sk, flag) on every ACK of a recovery (PRR replaced it in 3.2)",
    ),
    only(
        "reno",
        "reduction_floor",
        "\"half_ssthresh\"",
        "net/ipv4/tcp_cong.c tcp_reno: .min_cwnd = tcp_reno_min_cwnd (snd_ssthresh / 2)",
    ),
    only(
        "highspeed",
        "reduction_floor",
        "\"half_ssthresh\"",
        "net/ipv4/tcp_highspeed.c tcp_highspeed: .min_cwnd = tcp_reno_min_cwnd",
    ),
    only(
        "illinois",
        "reduction_floor",
        "\"half_ssthresh\"",
        "net/ipv4/tcp_illinois.c tcp_illinois: .min_cwnd = tcp_reno_min_cwnd",
    ),
    only(
        "vegas",
        "reduction_floor",
        "\"half_ssthresh\"",
        "net/ipv4/tcp_vegas.c tcp_vegas: .min_cwnd = tcp_reno_min_cwnd",
    ),
    only(
        "hybla",
        "reduction_floor",
        "\"half_ssthresh\"",
        "net/ipv4/tcp_hybla.c tcp_hybla: .min_cwnd = tcp_reno_min_cwnd",
    ),
    from_linux("rto_estimator"),
    from_linux("min_rto"),
    all(
        "init_cwnd",
        "3",
        "net/ipv4/tcp_input.c tcp_init_cwnd: 3 segments for an MSS of 1096 to 1460 bytes (RFC 3390; 10 from 2.6.39)",
    ),
    all(
        "sack",
        "true",
        "net/ipv4/tcp_input.c: int sysctl_tcp_sack __read_mostly = 1",
    ),
    all(
        "timestamps",
        "true",
        "net/ipv4/tcp_input.c: int sysctl_tcp_timestamps __read_mostly = 1",
    ),
    all(
        "random_ts_offset",
        "false",
        "net/ipv4/tcp_output.c tcp_syn_build_options: TSval = tcp_time_stamp, jiffies with no per-connection offset (4.10 added it)",
    ),
    from_linux("mss"),
    all(
        "ack_counting",
        "\"acks\"",
        "net/ipv4/tcp_cong.c: sysctl_tcp_abc = 0, so tcp_slow_start and tcp_reno_cong_avoid count one per ACK (per acknowledged segment from 3.18)",
    ),
    all(
        "ssthresh_from",
        "\"cwnd\"",
        "net/ipv4/tcp_cong.c tcp_reno_ssthresh: max(tp->snd_cwnd >> 1U, 2U)",
    ),
    from_linux("delayed_ack"),
    from_linux("delack_segments"),
    from_linux("delack_timeout"),
    all(
        "ecn",
        "false",
        "net/ipv4/tcp_input.c: sysctl_tcp_ecn, the sender does not ask for ECN",
    ),
    only(
        "cubic",
        "params.hystart",
        "true",
        "net/ipv4/tcp_cubic.c (CUBIC 2.3, from 2.6.29): static int hystart __read_mostly = 1",
    ),
];

/// ns-2.35's Agent/TCP/Sack1 and Agent/TCPSink/Sack1: their defaults
/// (tcl/lib/ns-default.tcl) and code (tcp/tcp.cc, tcp-sack1.cc, tcp-sink.cc).
const NS2: &[Setting] = &[
    all(
        "loss_detection",
        "\"dupack\"",
        "tcp/tcp-sack1.cc Sack1TcpAgent::recv: fast retransmit at numdupacks_ duplicate ACKs; no RACK, undo, D-SACK (Agent/TCPSink set generateDSacks_ false) or F-RTO (Agent/TCP set frto_enabled_ 0)",
    ),
    all(
        "reordering",
        "3",
        "tcl/lib/ns-default.tcl: Agent/TCP set numdupacks_ 3",
    ),
    all(
        "recovery",
        "\"sack1\"",
        "tcp/tcp-sack1.cc Sack1TcpAgent::dupack_action: pipe_ = maxseq_ - highest_ack_ - numdupacks(cwnd_), slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF); recv: --pipe_ per ACK; send_much: while pipe_ < cwnd_",
    ),
    all(
        "rto_estimator",
        "\"rfc6298\"",
        "tcl/lib/ns-default.tcl: Agent/TCP set rfc2988_ true (tcp/tcp.cc rtt_update: srtt + 4 rttvar, in tcpTick_ = 10 ms ticks)",
    ),
    all(
        "min_rto",
        "\"200ms\"",
        "tcl/lib/ns-default.tcl: Agent/TCP set minrto_ 0.2",
    ),
    all(
        "rtt_sampling",
        "\"per_rtt\"",
        "tcp/tcp.cc TcpAgent::output (l. 778-785): a new segment (seqno > maxseq_) sent while !rtt_active_ is timed (rtt_seq_, rtt_ts_); newack (l. 1390-1402): the ACK with seqno >= rtt_seq_ ends it, t_backoff_ = 1, rtt_update(now - rtt_ts_); reset_rtx_timer (l. 965-973, at a timeout and a fast retransmission): rtt_active_ = 0",
    ),
    only(
        "cubic",
        "rto_tick",
        "\"1ms\"",
        "tcp/tcp-linux.cc LinuxTcpAgent::install_congestion_control (l. 747): tcp_tick_ = 1.0/(double)JIFFY_RATIO, 1000 (tcp/linux/ns-linux-util.h l. 29)",
    ),
    only(
        "ctcp",
        "rto_tick",
        "\"1ms\"",
        "tcp/tcp-linux.cc LinuxTcpAgent::install_congestion_control (l. 747): tcp_tick_ = 1.0/(double)JIFFY_RATIO, 1000 (tcp/linux/ns-linux-util.h l. 29)",
    ),
    all(
        "rto_tick",
        "\"10ms\"",
        "tcl/lib/ns-default.tcl: Agent/TCP set tcpTick_ 0.01; tcp/tcp.cc rtt_update (l. 565-608): t_rtt_ in whole ticks, t_srtt_ and t_rttvar_ with T_SRTT_BITS 3 and T_RTTVAR_BITS 2, t_rtxcur_ in ticks; rtt_timeout (l. 529-563): minrto_ before the backoff, at least 2 ticks",
    ),
    all(
        "init_cwnd",
        "2",
        "tcl/lib/ns-default.tcl: Agent/TCP set windowInit_ 2",
    ),
    all(
        "sack",
        "true",
        "Agent/TCP/Sack1 with Agent/TCPSink/Sack1 (maxSackBlocks_ 3)",
    ),
    all(
        "timestamps",
        "false",
        "tcl/lib/ns-default.tcl: Agent/TCP set timestamps_ false",
    ),
    all(
        "mss",
        "1000",
        "tcl/lib/ns-default.tcl: Agent/TCP set packetSize_ 1000",
    ),
    all(
        "ack_counting",
        "\"acks\"",
        "tcp/tcp.cc TcpAgent::opencwnd, once per ACK: cwnd_ += 1 in slow start, increase_num_ / cwnd_ after",
    ),
    all(
        "ssthresh_from",
        "\"cwnd\"",
        "tcp/tcp.cc TcpAgent::slowdown: halfwin = windowd() / 2, windowd() = min(cwnd_, wnd_)",
    ),
    all(
        "delayed_ack",
        "false",
        "tcp/tcp-sink.cc TcpSink::recv: an ACK per packet (delayed ACKs only with Agent/TCPSink/DelAck)",
    ),
    all(
        "delack_segments",
        "2",
        "tcp/tcp-sink.cc DelAckSink::recv, when named: the second in-order packet is ACKed at once",
    ),
    all(
        "delack_timeout",
        "\"100ms\"",
        "tcl/lib/ns-default.tcl: Agent/TCPSink/DelAck set interval_ 100ms",
    ),
    all(
        "quick_acks",
        "0",
        "tcp/tcp-sink.cc: no quick-ACK mode",
    ),
    all(
        "host_jitter",
        "\"0s\"",
        "tcl/lib/ns-default.tcl: Agent/TCP set overhead_ 0 (a script sets it to break ties between flows)",
    ),
    all(
        "jitter_unit",
        "\"send\"",
        "tcp/tcp-sack1.cc Sack1TcpAgent::send_much: with overhead_ > 0 a send waits delsnd_timer_ (Random::uniform(overhead_)), then sends all the window allows",
    ),
    all(
        "ecn",
        "false",
        "tcl/lib/ns-default.tcl: Agent/TCP set ecn_ 0",
    ),
    only(
        "highspeed",
        "params.response",
        "1",
        "tcp/tcp.cc opencwnd and slowdown, windowOption_ 8: increase_param() and decrease_param() from RFC 3649's formulas",
    ),
];

/// ns-3 as validation/ns3 runs it: ns-3's attribute defaults
/// (src/internet/model/tcp-socket.cc, tcp-socket-base.cc) and the
/// harness's segment size; each algorithm as its ns-3 class (reno: TcpNewReno).
const NS3: &[Setting] = &[
    all(
        "loss_detection",
        "\"dupack\"",
        "tcp-socket-base.cc: ReTxThreshold UintegerValue(3); no RACK, undo or F-RTO",
    ),
    all(
        "recovery",
        "\"prr\"",
        "tcp-socket-base.cc: RecoveryType TypeIdValue(TcpPrrRecovery::GetTypeId())",
    ),
    all(
        "rto_estimator",
        "\"rfc6298\"",
        "tcp-socket-base.cc: m_rto = Max(srtt + Max(m_clockGranularity, 4 rttvar), m_minRto)",
    ),
    all(
        "min_rto",
        "\"1s\"",
        "tcp-socket-base.cc: MinRto TimeValue(Seconds(1.0))",
    ),
    all(
        "init_cwnd",
        "10",
        "tcp-socket.cc: InitialCwnd UintegerValue(10)",
    ),
    all(
        "sack",
        "true",
        "tcp-socket-base.cc: Sack BooleanValue(true)",
    ),
    all(
        "timestamps",
        "true",
        "tcp-socket-base.cc: Timestamp BooleanValue(true)",
    ),
    all(
        "random_ts_offset",
        "false",
        "tcp-option-ts.cc TcpOptionTS::NowToTsValue: Simulator::Now() in ms, no offset",
    ),
    all(
        "mss",
        "1448",
        "validation/ns3 sets SegmentSize 1448 (tcp-socket.cc's default is 536)",
    ),
    all(
        "delayed_ack",
        "true",
        "tcp-socket.cc: DelAckCount UintegerValue(2)",
    ),
    all(
        "delack_segments",
        "2",
        "tcp-socket.cc: DelAckCount UintegerValue(2)",
    ),
    all(
        "delack_timeout",
        "\"200ms\"",
        "tcp-socket.cc: DelAckTimeout TimeValue(Seconds(0.2))",
    ),
    all(
        "quick_acks",
        "0",
        "tcp-socket-base.cc ReceivedData: delayed ACKs from the first segment, no quick-ACK mode",
    ),
    all(
        "host_jitter",
        "\"0s\"",
        "ns-3's nodes send at once: no processing delay",
    ),
    all("ecn", "false", "tcp-socket-base.cc: UseEcn, Off by default"),
    only(
        "reno",
        "ack_counting",
        "\"acks\"",
        "tcp-congestion-ops.cc TcpNewReno::SlowStart: m_cWnd += m_segmentSize once per ACK",
    ),
    only(
        "reno",
        "ssthresh_from",
        "\"pipe\"",
        "tcp-congestion-ops.cc TcpNewReno::GetSsThresh: max(2 segments, bytesInFlight / 2)",
    ),
    only(
        "highspeed",
        "ssthresh_from",
        "\"pipe\"",
        "tcp-highspeed.cc TcpHighSpeed::GetSsThresh: from bytesInFlight",
    ),
    only(
        "scalable",
        "ssthresh_from",
        "\"pipe\"",
        "tcp-scalable.cc TcpScalable::GetSsThresh: from bytesInFlight",
    ),
    only(
        "ledbat",
        "ssthresh_from",
        "\"pipe\"",
        "tcp-ledbat.cc TcpLedbat inherits TcpNewReno::GetSsThresh: max(2 segments, bytesInFlight / 2)",
    ),
    only(
        "scalable",
        "params.a",
        "0.02",
        "tcp-scalable.cc: AIFactor UintegerValue(50), +1 segment per 50 acknowledged",
    ),
    only(
        "scalable",
        "params.low_window",
        "50",
        "tcp-scalable.cc CongestionAvoidance: min(cwnd, AIFactor)",
    ),
    only(
        "scalable",
        "params.legacy_decrease",
        "false",
        "tcp-scalable.cc: MdFactor DoubleValue(0.125), at every window",
    ),
    only(
        "cubic",
        "params.hystart",
        "true",
        "tcp-cubic.cc: HyStart BooleanValue(true)",
    ),
    only(
        "vegas",
        "params.alpha",
        "2",
        "tcp-vegas.cc: Alpha UintegerValue(2)",
    ),
    only(
        "vegas",
        "params.beta",
        "4",
        "tcp-vegas.cc: Beta UintegerValue(4)",
    ),
    only(
        "vegas",
        "params.gamma",
        "1",
        "tcp-vegas.cc: Gamma UintegerValue(1)",
    ),
    only(
        "vegas",
        "params.paper_diff",
        "true",
        "tcp-vegas.cc IncreaseWindow: diff = cwnd − cwnd · baseRtt / rtt",
    ),
    only(
        "vegas",
        "params.smoothed_rtt",
        "true",
        "tcp-vegas.cc PktsAcked: an RTT sample on every ACK, the smoothed RTT of TcpSocketBase",
    ),
];

impl Stack {
    /// Every profile, in the order the reference lists them.
    pub const ALL: [Stack; 4] = [Stack::Linux, Stack::Linux26, Stack::Ns2, Stack::Ns3];

    /// The name a scenario writes.
    pub fn name(self) -> &'static str {
        match self {
            Stack::Linux => "linux",
            Stack::Linux26 => "linux2.6",
            Stack::Ns2 => "ns2",
            Stack::Ns3 => "ns3",
        }
    }

    /// The profile named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Stack> {
        Stack::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The profile's table.
    pub fn settings(self) -> &'static [Setting] {
        match self {
            Stack::Linux => LINUX,
            Stack::Linux26 => LINUX_2_6,
            Stack::Ns2 => NS2,
            Stack::Ns3 => NS3,
        }
    }

    /// What the profile is, and what it leaves to the scenario.
    pub fn about(self) -> &'static str {
        match self {
            Stack::Linux => concat!(
                "Linux 6.x with its default sysctls, as the testbed's kernel runs it (docs/validation/kernel.md): ",
                "RACK-TLP, PRR, Linux's RTO estimator with its 200 ms minimum, delayed ACKs every two segments, ",
                "per-segment growth, CUBIC with HyStart. Not set: `quick_acks`, the segments Linux's receiver ",
                "ACKs one by one while it opens its window (net/ipv4/tcp_input.c tcp_grow_window: a quick ACK ",
                "for each segment that raises rcv_ssthresh toward min(window_clamp, tcp_space), 2 segments at ",
                "a time), which depends on the receiver's buffer limit and autotuning, not on the scenario: ",
                "set it to about (clamp − 64 KB) / (2 · MSS), as `hscc testbed run` reports it ",
                "(receivers.window_opening). `host_jitter` keeps hscc's default."
            ),
            Stack::Linux26 => concat!(
                "Linux 2.6.31 (2009) with its default sysctls, as far as hscc's knobs express it: ",
                "three duplicate ACKs, rate halving (cwnd one segment lower every second ACK, never above ",
                "the segments in flight + 1, min(cwnd, ssthresh) at the end), D-SACK and timestamp undo, ",
                "F-RTO, an initial window of 3, Linux's RTO estimator with its 200 ms minimum, delayed ACKs ",
                "every two segments, growth per ACK (tcp_abc = 0), CUBIC 2.3 with HyStart. Rate halving stops ",
                "at the algorithm's min_cwnd: ssthresh / 2 for the modules that name tcp_reno_min_cwnd (rows ",
                "below), ssthresh for those that name none (CUBIC, Veno, and algorithms from outside that ",
                "kernel). Not modelled: FACK (tcp_fack = 1: a segment is lost once the highest SACKed one is ",
                "`reordering` segments above it; hscc counts SACKed segments above it, RFC 6675), ",
                "tcp_moderate_cwnd (cwnd at most in flight + 3 on a dubious ACK outside recovery), the ",
                "F-RTO and undo details of that release (hscc follows Linux 6.x's), jiffy timestamps and ",
                "Westwood's own min_cwnd. Not set: `quick_acks` and `host_jitter`, as for \"linux\"."
            ),
            Stack::Ns2 => concat!(
                "ns-2.35's Agent/TCP/Sack1 and Agent/TCPSink/Sack1 with their defaults, as TCP-Africa's ",
                "and Sync-TCP's simulations ran: three duplicate ACKs, the window halved at once, ",
                "RFC 6298's RTO with a 200 ms minimum, an initial window of 2, 1000-byte segments without ",
                "timestamps, growth per ACK, an ACK per packet (`delayed_ack = true` is ns-2's DelAck sink: ",
                "every second packet or 100 ms), no host jitter (`overhead_ = 0`), HighSpeed from RFC 3649's ",
                "formulas (windowOption_ 8), one segment timed per round trip for the RTO, in 10 ms ticks ",
                "(`tcpTick_`). Not modelled: ns-2's SYN (`syn_` and `delay_growth_` true: ",
                "data starts one RTT after the flow's start), the random phase of its tick clock ",
                "(`boot_time_`), its 3 s ",
                "initial RTO (`rtxcur_init_`) and its 40-byte headers (hscc's packets carry mss + 52 bytes). ",
                "Not set: ns-2's receiver window, `window_ = 20` packets unless a script sets it (set `rwnd`); ",
                "algorithms ns-2 runs as TCP-Linux (`Agent/TCP/Linux`: cubic, compound, …) take the same ",
                "settings, which that agent shares in part, but for its 1 ms ticks (its estimator also damps ",
                "RTTVAR as Linux does, which hscc does not model)."
            ),
            Stack::Ns3 => concat!(
                "ns-3 (3.44) as validation/ns3 matches it (docs/validation/ns3.md): its TcpSocketBase ",
                "(three duplicate ACKs, PRR, RFC 6298's RTO with a 1 s minimum, delayed ACKs every two ",
                "segments or 200 ms), the harness's 1448-byte segments, and each algorithm as its ns-3 ",
                "class (reno as TcpNewReno: growth per ACK, the reduction from bytes in flight). The ",
                "links' ns-3 settings are link fields a flow profile cannot set: `framing = 2` (PPP) on ",
                "every link and `loss_point = \"after_queue\"` where there is random loss."
            ),
        }
    }
}

/// The stack a flow entry takes: its own, or the scenario's.
fn effective(s: &ScenarioSpec, f: &FlowSpec) -> Option<Stack> {
    f.stack.or(s.stack)
}

/// The canonical name of the algorithm `name` (itself when unknown: the build names the error).
fn canonical(name: &str) -> String {
    hscc_cc::CcParams::from_name(name).map_or_else(|_| name.to_string(), |c| c.name().to_string())
}

/// The scenario text with every flow entry's profile knobs filled in where the
/// entry leaves them out; `None` when no entry takes a profile (or the text is
/// not a JSON table: the reader names the error).
pub(super) fn fill(text: &str) -> Option<String> {
    let mut scenario: Value = serde_json::from_str(text).ok()?;
    let top = scenario.get("stack").map(named);
    let flows = scenario.get_mut("flows")?.as_array_mut()?;
    let mut changed = false;
    for flow in flows.iter_mut().filter_map(Value::as_object_mut) {
        let stack = match flow.get("stack") {
            Some(own) => named(own),
            None => top.flatten(),
        };
        // An unknown name stays for the reader to refuse, naming the field.
        let Some(stack) = stack else { continue };
        let algorithm = canonical(
            flow.get("algorithm")
                .and_then(Value::as_str)
                .unwrap_or("reno"),
        );
        for s in stack.settings() {
            if s.algorithm.is_some_and(|a| a != algorithm) {
                continue;
            }
            changed |= fill_knob(flow, s);
        }
    }
    changed.then(|| scenario.to_string())
}

fn named(v: &Value) -> Option<Stack> {
    v.as_str().and_then(Stack::from_name)
}

/// Set the knob of `s` in `flow` unless the flow sets it; whether it did.
fn fill_knob(flow: &mut Map<String, Value>, s: &Setting) -> bool {
    let value: Value = serde_json::from_str(s.value).expect("a profile's values are JSON");
    let (table, key) = match s.knob.split_once('.') {
        Some((outer, key)) => {
            let Some(table) = flow
                .entry(outer)
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
            else {
                return false; // not a table: the reader names the error
            };
            (table, key)
        }
        None => (flow, s.knob),
    };
    if table.contains_key(key) {
        return false;
    }
    table.insert(key.to_string(), value);
    true
}

/// What a profile set in one flow entry (see [`stack_uses`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StackUse {
    /// The entry's index in `flows`.
    pub flow: usize,
    /// The profile.
    pub stack: Stack,
    /// The profile's knobs for this entry's algorithm, as the profile writes them.
    pub settings: Vec<Setting>,
    /// The knobs the scenario sets to another value: (knob, its value, normalized JSON).
    pub overridden: Vec<(&'static str, Value)>,
}

/// For each flow entry that takes a profile: the profile's knobs, and those
/// the scenario sets otherwise.
pub fn stack_uses(s: &ScenarioSpec) -> Vec<StackUse> {
    s.flows
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let stack = effective(s, f)?;
            let algorithm = canonical(&f.algorithm);
            let flow = serde_json::to_value(f).expect("a flow always serializes");
            let settings: Vec<Setting> = stack
                .settings()
                .iter()
                .filter(|s| s.algorithm.is_none_or(|a| a == algorithm))
                .copied()
                .collect();
            let overridden = settings
                .iter()
                .filter_map(|s| {
                    let ours = knob(&flow, s.knob)?;
                    (Some(ours) != normalized(s).as_ref()).then(|| (s.knob, ours.clone()))
                })
                .collect();
            Some(StackUse {
                flow: i,
                stack,
                settings,
                overridden,
            })
        })
        .collect()
}

/// The knob's value in a serialized flow.
fn knob<'a>(flow: &'a Value, knob: &str) -> Option<&'a Value> {
    knob.split('.').try_fold(flow, |v, k| v.get(k))
}

/// The setting's value as a normalized flow holds it (SI numbers).
fn normalized(s: &Setting) -> Option<Value> {
    let mut flow = Map::new();
    fill_knob(&mut flow, s);
    let spec: FlowSpec = serde_json::from_value(Value::Object(flow)).ok()?;
    knob(&serde_json::to_value(spec).ok()?, s.knob).cloned()
}

/// Every profile as JSON, for the field reference: `[{"name", "about",
/// "settings": [{"knob", "value", "algorithm", "source"}]}]`.
pub fn profiles_json() -> String {
    let profiles: Vec<Value> = Stack::ALL
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name(),
                "about": s.about(),
                "settings": s.settings(),
            })
        })
        .collect();
    serde_json::to_string(&profiles).expect("plain data")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dumbbell scenario with `top` among its top-level fields and these flow entries.
    fn scenario(top: &str, flows: &[&str]) -> String {
        format!(
            r#"{{"duration": 10, {top}
               "topology": {{"kind": "dumbbell",
                  "bottleneck": {{"rate": 100e6, "delay": 0.001}},
                  "pairs": [{{"rate": 1e10, "delay": 0.019}}]}},
               "flows": [{}]}}"#,
            flows.join(", ")
        )
    }

    fn read(json: &str) -> ScenarioSpec {
        ScenarioSpec::from_json(json).unwrap()
    }

    const ALGORITHMS: [&str; 6] = ["reno", "cubic", "highspeed", "scalable", "vegas", "ctcp"];

    /// The table's knobs for `algorithm`, written out as flow fields.
    fn explicit(stack: Stack, algorithm: &str) -> String {
        let mut flow = Map::new();
        for s in stack.settings() {
            if s.algorithm.is_none_or(|a| a == algorithm) {
                fill_knob(&mut flow, s);
            }
        }
        flow.insert("pair".into(), 0.into());
        flow.insert("algorithm".into(), algorithm.into());
        Value::Object(flow).to_string()
    }

    #[test]
    fn a_profile_sets_exactly_the_knobs_of_its_table() {
        for stack in Stack::ALL {
            for algorithm in ALGORITHMS {
                let by_profile = read(&scenario(
                    &format!(r#""stack": "{}","#, stack.name()),
                    &[&format!(r#"{{"pair": 0, "algorithm": "{algorithm}"}}"#)],
                ));
                let by_hand = read(&scenario("", &[&explicit(stack, algorithm)]));
                let mut flow = by_profile.flows[0].clone();
                assert_eq!(by_profile.stack, Some(stack));
                flow.stack = None;
                assert_eq!(flow, by_hand.flows[0], "{stack:?}, {algorithm}");
                // Every value is one the engine takes.
                by_profile.build().unwrap();
            }
        }
    }

    #[test]
    fn every_knob_of_a_table_is_a_flow_field_with_a_valid_value() {
        for stack in Stack::ALL {
            for s in stack.settings() {
                assert!(
                    normalized(s).is_some(),
                    "{stack:?}: {} = {}",
                    s.knob,
                    s.value
                );
                assert!(!s.source.is_empty());
            }
            let knobs: Vec<_> = stack
                .settings()
                .iter()
                .map(|s| (s.knob, s.algorithm))
                .collect();
            let mut unique = knobs.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(knobs.len(), unique.len(), "{stack:?} sets a knob twice");
        }
    }

    #[test]
    fn each_profile_differs_from_the_defaults_where_its_table_says() {
        let s = read(&scenario(
            r#""stack": "linux","#,
            &[r#"{"pair": 0, "algorithm": "cubic"}"#],
        ));
        let plain = read(&scenario("", &[r#"{"pair": 0, "algorithm": "cubic"}"#]));
        let (f, d) = (&s.flows[0], &plain.flows[0]);
        assert_eq!(f.rto_estimator, crate::tcp::rtt::RtoEstimator::Linux);
        assert_eq!(d.rto_estimator, crate::tcp::rtt::RtoEstimator::Rfc6298);
        assert_eq!(f.params["hystart"].0, 1.0);
        assert!(!d.params.contains_key("hystart"));
        assert_eq!(f.min_rto, d.min_rto);
        let ns3 = read(&scenario(r#""stack": "ns3","#, &[r#"{"pair": 0}"#]));
        let f = &ns3.flows[0];
        assert_eq!(
            (f.min_rto.0, f.delack_timeout.0, f.host_jitter.0),
            (1.0, 0.2, 0.0)
        );
        assert_eq!(f.loss_detection, crate::config::LossDetection::DupAck);
        assert_eq!(f.ack_counting, crate::config::AckCounting::Acks);
        let ns2 = read(&scenario(
            r#""stack": "ns2","#,
            &[r#"{"pair": 0, "algorithm": "hstcp"}"#],
        ));
        let f = &ns2.flows[0];
        assert_eq!(
            (f.init_cwnd, f.mss.0, f.timestamps, f.delayed_ack),
            (2, 1000, false, false)
        );
        assert_eq!(f.recovery, crate::config::Recovery::Sack1);
        assert_eq!(
            (f.rtt_sampling, f.rto_tick.0),
            (crate::tcp::rtt::RttSampling::PerRtt, 0.01)
        );
        // An alias names the algorithm of a profile's row.
        assert_eq!(f.params["response"].0, 1.0);
        let old = read(&scenario(
            r#""stack": "linux2.6","#,
            &[r#"{"pair": 0}"#, r#"{"pair": 0, "algorithm": "cubic"}"#],
        ));
        let (reno, cubic) = (&old.flows[0], &old.flows[1]);
        assert_eq!(reno.recovery, crate::config::Recovery::RateHalving);
        assert_eq!(
            (reno.init_cwnd, reno.undo, reno.frto, reno.random_ts_offset),
            (3, Some(true), Some(true), false)
        );
        assert_eq!(reno.ack_counting, crate::config::AckCounting::Acks);
        // tcp_reno_min_cwnd for Reno; CUBIC 2.3 names no min_cwnd, so ssthresh.
        use crate::config::ReductionFloor;
        assert_eq!(reno.reduction_floor, ReductionFloor::HalfSsthresh);
        assert_eq!(cubic.reduction_floor, ReductionFloor::Ssthresh);
        assert_eq!(cubic.params["hystart"].0, 1.0);
    }

    #[test]
    fn a_knob_the_scenario_sets_wins_over_the_profile() {
        let s = read(&scenario(
            r#""stack": "linux","#,
            &[
                r#"{"pair": 0, "algorithm": "cubic", "min_rto": "1s", "rto_estimator": "rfc6298", "params": {"hystart": false, "beta": 0.8}}"#,
            ],
        ));
        let f = &s.flows[0];
        assert_eq!(f.min_rto.0, 1.0);
        assert_eq!(f.rto_estimator, crate::tcp::rtt::RtoEstimator::Rfc6298);
        assert_eq!(f.params["hystart"].0, 0.0);
        assert_eq!(f.params["beta"].0, 0.8);
        // The knobs it leaves out still come from the profile.
        assert_eq!(f.delack_timeout.0, 0.04);
        let uses = stack_uses(&s);
        assert_eq!(uses.len(), 1);
        let over: Vec<_> = uses[0].overridden.iter().map(|(k, _)| *k).collect();
        assert_eq!(over, ["rto_estimator", "min_rto", "params.hystart"]);
        assert_eq!(uses[0].overridden[1].1, serde_json::json!(1.0));
    }

    #[test]
    fn a_flows_own_stack_wins_over_the_scenarios() {
        let s = read(&scenario(
            r#""stack": "linux","#,
            &[r#"{"pair": 0}"#, r#"{"pair": 0, "stack": "ns3"}"#],
        ));
        assert_eq!(s.flows[0].min_rto.0, 0.2);
        assert_eq!(s.flows[0].delack_timeout.0, 0.04);
        assert_eq!(s.flows[1].min_rto.0, 1.0);
        assert_eq!(s.flows[1].delack_timeout.0, 0.2);
        let uses = stack_uses(&s);
        assert_eq!(
            uses.iter().map(|u| (u.flow, u.stack)).collect::<Vec<_>>(),
            [(0, Stack::Linux), (1, Stack::Ns3)]
        );
        assert!(uses.iter().all(|u| u.overridden.is_empty()));
        // A flow entry may take a profile alone.
        let one = read(&scenario(
            "",
            &[r#"{"pair": 0}"#, r#"{"pair": 0, "stack": "ns3"}"#],
        ));
        assert_eq!((one.flows[0].min_rto.0, one.flows[1].min_rto.0), (0.2, 1.0));
    }

    #[test]
    fn an_unknown_stack_is_refused_naming_the_field_and_the_stacks() {
        for (top, flow, field) in [
            (r#""stack": "bsd","#, r#"{"pair": 0}"#, "stack"),
            ("", r#"{"pair": 0, "stack": "bsd"}"#, "flows[0].stack"),
            (
                r#""stack": "linux","#,
                r#"{"pair": 0, "stack": "bsd"}"#,
                "flows[0].stack",
            ),
        ] {
            let e = ScenarioSpec::from_json(&scenario(top, &[flow])).unwrap_err();
            assert_eq!(e.field, field);
            assert_eq!(e.value, "\"bsd\"");
            for name in Stack::ALL.map(Stack::name) {
                assert!(e.allowed.contains(&format!("\"{name}\"")), "{}", e.allowed);
            }
        }
        let e =
            ScenarioSpec::from_json(&scenario(r#""stack": 3,"#, &[r#"{"pair": 0}"#])).unwrap_err();
        assert_eq!(e.field, "stack");
    }

    #[test]
    fn without_stack_a_scenario_reads_as_it_always_did() {
        let text = scenario("", &[r#"{"pair": 0, "algorithm": "cubic"}"#]);
        assert_eq!(fill(&text), None);
        assert!(stack_uses(&read(&text)).is_empty());
    }

    #[test]
    fn the_normalized_scenario_reads_back_the_same() {
        let s = read(&scenario(
            r#""stack": "ns3","#,
            &[
                r#"{"pair": 0, "algorithm": "vegas", "min_rto": 0.5}"#,
                r#"{"pair": 0, "stack": "linux"}"#,
            ],
        ));
        let reread = read(&s.normalized());
        assert_eq!(reread, s);
        assert_eq!(stack_uses(&reread), stack_uses(&s));
    }

    #[test]
    fn the_reference_lists_every_profile() {
        let v: Value = serde_json::from_str(&profiles_json()).unwrap();
        let names: Vec<_> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect();
        assert_eq!(names, Stack::ALL.map(|s| Value::from(s.name())));
        assert_eq!(v[0]["settings"][0]["knob"], "loss_detection");
    }
}
