//! The "ns3" profile: ns-3 (3.44) as validation/ns3 runs it, row by row.

use super::{all, only, Setting};

/// ns-3 as validation/ns3 runs it: ns-3's attribute defaults
/// (src/internet/model/tcp-socket.cc, tcp-socket-base.cc) and the
/// harness's segment size; each algorithm as its ns-3 class (reno: TcpNewReno).
pub(super) const NS3: &[Setting] = &[
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

/// What the "ns3" profile is, and what it leaves to the scenario.
pub(super) const ABOUT: &str = concat!(
    "ns-3 (3.44) as validation/ns3 matches it (docs/validation/ns3.md): its TcpSocketBase ",
    "(three duplicate ACKs, PRR, RFC 6298's RTO with a 1 s minimum, delayed ACKs every two ",
    "segments or 200 ms), the harness's 1448-byte segments, and each algorithm as its ns-3 ",
    "class (reno as TcpNewReno: growth per ACK, the reduction from bytes in flight). The ",
    "links' ns-3 settings are link fields a flow profile cannot set: `framing = 2` (PPP) on ",
    "every link and `loss_point = \"after_queue\"` where there is random loss."
);
