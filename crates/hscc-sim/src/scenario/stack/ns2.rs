//! The "ns2" profile: ns-2.35's Sack1 agent and sink with their defaults, row by row.

use super::{all, only, Setting};

/// ns-2.35's Agent/TCP/Sack1 and Agent/TCPSink/Sack1: their defaults
/// (tcl/lib/ns-default.tcl) and code (tcp/tcp.cc, tcp-sack1.cc, tcp-sink.cc).
pub(super) const NS2: &[Setting] = &[
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
        "cubic",
        "params.version_2_1",
        "true",
        "tcp/linux/src/tcp_cubic.c: Linux 2.6.22's CUBIC, version 2.1, the only CUBIC ns-2.35 has (Agent/TCP/Linux, select_ca cubic)",
    ),
    only(
        "cubic",
        "params.beta",
        "0.7998046875",
        "tcp/linux/src/tcp_cubic.c: static int beta = 819; /* = 819/1024 (BICTCP_BETA_SCALE) */",
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

/// What the "ns2" profile is, and what it leaves to the scenario.
pub(super) const ABOUT: &str = concat!(
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
        "settings but for that agent's 1 ms ticks and, for cubic, its module (Linux 2.6.22's ",
        "CUBIC v2.1, β = 819/1024); `stack = \"ns2-linux\"` gives a flow that agent's other rules too."
);
