//! The "linux2.6" profile: Linux 2.6.31 with its default sysctls, row by row.

use super::linux::from_linux;
use super::{all, only, Setting};

/// Linux 2.6.31 (September 2009): its sysctl defaults and constants, cited
/// from that release's net/ipv4 sources; the rows it shares with 6.x, value and
/// source alike, are [`LINUX`](super::linux::LINUX)'s ([`from_linux`]).
pub(super) const LINUX_2_6: &[Setting] = &[
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

/// What the "linux2.6" profile is, and what it leaves to the scenario.
pub(super) const ABOUT: &str = concat!(
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
);
