//! The "ns2-linux" profile: ns-2.35's TCP-Linux agent (Agent/TCP/Linux) with
//! the Sack1 sink, row by row where it differs from the "ns2" profile.

use std::sync::OnceLock;

use super::{all, ns2, Setting};

/// The rows of the "ns2" profile TCP-Linux replaces or drops: (knob, algorithm).
const REPLACED: &[(&str, Option<&str>)] = &[
    ("loss_detection", None),
    ("reordering", None),
    ("recovery", None),
    ("rto_tick", None),
    ("timestamps", None),
    // TCP-Linux's highspeed is Linux's tcp_highspeed.c, whose a(w) and b(w) come
    // from RFC 3649's table (hscc's default), not the Sack1 agent's formulas.
    ("params.response", Some("highspeed")),
];

/// What TCP-Linux does instead (tcp/tcp-linux.cc, tcp/scoreboard1.cc).
const OWN: &[Setting] = &[
    all(
        "loss_detection",
        "\"rack\"",
        "tcp/scoreboard1.cc: a segment is lost once the highest SACKed one is 4 above it (fack_ - (dupack_threshold + 1)), and a retransmission once a segment sent after it is SACKed, as RACK does once recovery starts",
    ),
    all(
        "reordering",
        "4",
        "tcp/scoreboard1.cc: the 4th duplicate ACK (dupack_threshold fixed at 3, numdupacks_ unused)",
    ),
    all(
        "recovery",
        "\"prr\"",
        "tcp/tcp-linux.cc tcp_fastretrans_alert: cwnd = ssthresh at once, next_pkts_in_flight_ halves the sending rate from the old window down (rate halving; hscc's PRR reduction)",
    ),
    all(
        "rto_tick",
        "\"1ms\"",
        "tcp/tcp-linux.cc LinuxTcpAgent::install_congestion_control: tcp_tick_ = 1.0/(double)JIFFY_RATIO, 1000 (tcp/linux/ns-linux-util.h)",
    ),
    all(
        "timestamps",
        "true",
        "tcp/tcp-linux.cc time_processing: the RTT from each ACK's echo (ts_option_), which its modules' delay measures read",
    ),
    all(
        "rto_restart",
        "\"every_ack\"",
        "tcp/tcp-linux.cc time_processing: renew_timer at every ACK recv takes, duplicates included",
    ),
    all(
        "dsack",
        "false",
        "tcp/tcp-linux.cc: no D-SACK processing (\"We don't have undo yet\")",
    ),
    all("undo", "false", "tcp/tcp-linux.cc enter_loss: \"We don't have undo yet\""),
    all("frto", "false", "tcp/tcp-linux.cc: no F-RTO (\"We haven't done FRTO yet\")"),
    all(
        "tlp",
        "false",
        "tcp/tcp-linux.cc: no tail-loss probe; a lost tail waits for the RTO",
    ),
];

/// The "ns2" rows TCP-Linux keeps, then its own.
pub(super) fn settings() -> &'static [Setting] {
    static TABLE: OnceLock<Vec<Setting>> = OnceLock::new();
    TABLE.get_or_init(|| {
        ns2::NS2
            .iter()
            .filter(|s| !REPLACED.contains(&(s.knob, s.algorithm)))
            .chain(OWN)
            .copied()
            .collect()
    })
}

/// What the "ns2-linux" profile is, and what it leaves to the scenario.
pub(super) const ABOUT: &str = concat!(
    "ns-2.35's TCP-Linux agent (Agent/TCP/Linux, tcp/tcp-linux.cc) with Agent/TCPSink/Sack1 ",
    "echoing timestamps, as papers that built their algorithm in its framework simulated: ",
    "the \"ns2\" profile's sink, segments, initial window, growth per ACK and RTO estimator, ",
    "with TCP-Linux's own rules: loss at the 4th duplicate ACK and a retransmission lost once ",
    "a later segment is SACKed (RACK with reordering = 4), rate halving (PRR), timestamps, ",
    "1 ms ticks, the RTO restarted at every ACK, no D-SACK, undo, F-RTO or tail-loss probe, ",
    "and the algorithms as its Linux 2.6.22 modules: CUBIC v2.1 with β = 819/1024, HighSpeed ",
    "from RFC 3649's table. Not modelled: it bursts up to the window once the flight is below ",
    "it (maxburst_ 0), and its RTO estimator damps RTTVAR's rises as Linux does. Not set: the May 2006 Compound module's rules for `ctcp` (set them by ",
    "hand: docs/validation/ns2.md)."
);
