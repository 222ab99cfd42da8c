//! The "windows2008" profile: Windows Server 2008 and Vista's TCP/IP stack
//! with its defaults, row by row.

use super::{all, Setting};

/// A row's source in Microsoft's overview of the stack, whose "enhancements
/// for high-loss environments" are RFC 2582, 2883, 3517 and 4138.
macro_rules! technet {
    ($what:literal) => {
        concat!(
            "Microsoft TechNet cc754287, Next Generation TCP/IP stack (Windows Server 2008, Vista): ",
            $what
        )
    };
}

/// A row's source in the stack's printed timer and window defaults.
macro_rules! supplemental {
    ($what:literal) => {
        concat!(
            "netsh interface tcp show supplemental, template internet (Windows Server 2008 R2, KB2472264): ",
            $what
        )
    };
}

/// A row's source in the stack's printed option defaults.
macro_rules! global {
    ($what:literal) => {
        concat!(
            "netsh interface tcp show global (Windows Server 2008, Vista): ",
            $what
        )
    };
}

/// Windows Server 2008 and Vista (the "Next Generation TCP/IP stack", in which
/// Compound TCP shipped). The stack is closed: each value comes from
/// Microsoft's documentation of its defaults or from the RFC it names.
pub(super) const WINDOWS_2008: &[Setting] = &[
    all(
        "loss_detection",
        "\"dupack\"",
        technet!("RFC 3517 SACK-based loss recovery, IsLost after DupThresh SACKed segments (RACK and tail loss probes came with Windows 10 1709)"),
    ),
    all("reordering", "3", "RFC 3517 §2: DupThresh = 3"),
    all(
        "max_reordering",
        "3",
        "RFC 3517 §2: a fixed DupThresh (no reordering adaptation is documented)",
    ),
    all(
        "recovery",
        "\"classic\"",
        "RFC 3517 §5 step 4 (RFC 2582 without SACK): cwnd = ssthresh as recovery starts; segments sent while pipe < cwnd",
    ),
    all("sack", "true", technet!("RFC 2018 SACK, RFC 3517 recovery")),
    all(
        "dsack",
        "true",
        technet!("RFC 2883, duplicate segments reported in D-SACK blocks"),
    ),
    all(
        "undo",
        "false",
        technet!("D-SACKs show the sender an unnecessary retransmission; an undo of the window (RFC 3708's response) is not documented"),
    ),
    all(
        "frto",
        "true",
        technet!("RFC 4138 F-RTO, spurious retransmission timeouts detected"),
    ),
    all(
        "rto_estimator",
        "\"rfc6298\"",
        "Microsoft's TCP_INITIAL_RTO_PARAMETERS documentation: TCP's retransmission behaviour as RFC 793 and RFC 2988 (RFC 6298's estimator)",
    ),
    all(
        "min_rto",
        "\"300ms\"",
        supplemental!("Minimum RTO (msec) 300"),
    ),
    all(
        "init_cwnd",
        "2",
        supplemental!("Initial Congestion Window (MSS) 2"),
    ),
    all(
        "timestamps",
        "false",
        global!("RFC 1323 Timestamps disabled"),
    ),
    all(
        "mss",
        "1460",
        "1500-byte Ethernet MTU − 40 header bytes, no timestamp option",
    ),
    all(
        "delayed_ack",
        "true",
        "Microsoft KB 328890: TcpAckFrequency, default 2",
    ),
    all(
        "delack_segments",
        "2",
        "Microsoft KB 328890: TcpAckFrequency, default 2",
    ),
    all(
        "delack_timeout",
        "\"200ms\"",
        supplemental!("Delayed Ack Timeout (msec) 200"),
    ),
    all("ecn", "false", global!("ECN Capability disabled")),
];

/// What the "windows2008" profile is, and what it leaves to the scenario.
pub(super) const ABOUT: &str = concat!(
    "Windows Server 2008 and Vista's TCP/IP stack with its defaults, from Microsoft's documentation ",
    "(the stack is closed): three duplicate ACKs and RFC 3517's conservative SACK recovery, D-SACK ",
    "reports without undo, F-RTO, RFC 2988's RTO with a 300 ms minimum, an initial window of 2, ",
    "no timestamps (1460-byte segments), delayed ACKs every two segments or 200 ms. An ",
    "approximation: hscc's F-RTO is Linux's (RFC 5682, the SACK-enhanced RFC 4138), and its ",
    "RTO before the first RTT sample is 1 s (RFC 6298) where RFC 2988's was 3 s. Not set, as ",
    "not documented: how growth is counted (`ack_counting`: hscc's per-segment default), ",
    "`quick_acks` and `host_jitter`. Windows Server 2003 and XP retransmitted after two duplicate ",
    "ACKs (TcpMaxDupAcks = 2) without SACK-based recovery: not this profile."
);
