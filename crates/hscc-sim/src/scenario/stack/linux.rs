//! The "linux" profile: Linux 6.x with its default sysctls, row by row, and
//! the lookup by which other profiles share its rows.

use super::{all, only, Setting};

/// Linux 6.x: its sysctl defaults (net/ipv4/tcp_ipv4.c `tcp_sk_init`) and constants.
pub(super) const LINUX: &[Setting] = &[
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
        "rtt_sampling",
        "\"linux\"",
        "net/ipv4/tcp_input.c tcp_clean_rtx_queue: seq_rtt_us from first_ackt (the oldest newly acknowledged segment), ca_rtt_us from last_ackt; tcp_ack_update_rtt: tcp_rtt_estimator(sk, seq_rtt_us), tcp_update_rtt_min(sk, ca_rtt_us)",
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
pub(super) const fn from_linux(knob: &str) -> Setting {
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

/// What the "linux" profile is, and what it leaves to the scenario.
pub(super) const ABOUT: &str = concat!(
        "Linux 6.x with its default sysctls, as the testbed's kernel runs it (docs/validation/kernel.md): ",
        "RACK-TLP, PRR, Linux's RTO estimator (fed the oldest newly acknowledged segment's RTT) with its 200 ms minimum, delayed ACKs every two segments, ",
        "per-segment growth, CUBIC with HyStart. Not set: `quick_acks`, the segments Linux's receiver ",
        "ACKs one by one while it opens its window (net/ipv4/tcp_input.c tcp_grow_window: a quick ACK ",
        "for each segment that raises rcv_ssthresh toward min(window_clamp, tcp_space), 2 segments at ",
        "a time), which depends on the receiver's buffer limit and autotuning, not on the scenario: ",
        "set it to about (clamp − 64 KB) / (2 · MSS), as `hscc testbed run` reports it ",
        "(receivers.window_opening). `host_jitter` keeps hscc's default."
);
