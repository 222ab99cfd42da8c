/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP Westwood+ (Mascolo, Casetti, Gerla et al., MobiCom 2001; Grieco &
 * Mascolo, CCR 34(2) 2004; Linux tcp_westwood.c): hscc-cc
 * crates/hscc-cc/src/algos/westwood.rs. Reno growth; after a loss ssthresh
 * (and, when recovery completes, cwnd) = bandwidth estimate × RTTmin.
 *
 * The hooks give no bandwidth, so it is estimated as Linux's module does:
 * in_ack_event counts the bytes each ACK acknowledges (snd_una's advance;
 * on the slow path a duplicate ACK counts one MSS, discounted later), and
 * closes a sampling interval every max(RTT, 50 ms) into two 7/8 EWMAs; the
 * RTT comes from pkts_acked's samples, in jiffies.
 */
#include "hscc.h"

#define WESTWOOD_GLOBALS(X)
HSCC_GLOBALS(westwood, WESTWOOD_GLOBALS)

/* Rust's Westwood state. */
struct westwood {
	__u64 bw_ns_est;    /* first-stage bandwidth estimate, bytes per jiffy */
	__u64 bw_est;       /* bandwidth estimate, bytes per jiffy */
	__u64 bk;           /* bytes acknowledged in the current interval */
	__u32 rtt_win_sx;   /* start of the current interval, jiffies */
	__u32 snd_una;      /* snd_una at the previous ACK */
	__u32 cumul_ack;    /* bytes of the last ACK after the duplicate-ACK correction */
	__u32 accounted;    /* bytes credited for duplicate ACKs, not yet covered */
	__u32 rtt;          /* last RTT sample, jiffies */
	__u32 rtt_min;      /* smallest RTT sample, jiffies */
	bool first_ack;     /* the next ACK only aligns snd_una */
	bool reset_rtt_min; /* the next sample replaces rtt_min (after a timeout) */
};
HSCC_CA_PRIV_FITS(struct westwood);

/* westwood.rs usecs_to_jiffies (rounds up). */
static __always_inline __u32 usecs_to_jiffies(__u32 us)
{
	__u64 per = USEC_PER_SEC / HSCC_HZ;

	return (__u32)(((__u64)us + per - 1) / per);
}

/* Westwood::filter (Linux westwood_filter): feed the sample bk/Δt. */
static __always_inline void westwood_filter(struct westwood *ca, __u32 delta)
{
	__u64 sample = ca->bk / delta;

	if (ca->bw_ns_est == 0 && ca->bw_est == 0) {
		ca->bw_ns_est = sample;
		ca->bw_est = sample;
	} else {
		ca->bw_ns_est = (7 * ca->bw_ns_est + sample) >> 3;
		ca->bw_est = (7 * ca->bw_est + ca->bw_ns_est) >> 3;
	}
}

/* Westwood::update_window (Linux westwood_update_window). */
static __always_inline void update_window(struct westwood *ca, const struct tcp_sock *tp)
{
	__u32 now, delta;

	/* The first ACK only aligns snd_una: its bytes precede the interval. */
	if (ca->first_ack) {
		ca->snd_una = tp->snd_una;
		ca->first_ack = false;
	}
	now = tcp_jiffies32(tp);
	delta = now - ca->rtt_win_sx;
	/* Intervals shorter than 50 ms keep building the sample. */
	if (ca->rtt != 0 && delta > hscc_max(ca->rtt, (__u32)(HSCC_HZ / 20))) {
		westwood_filter(ca, delta);
		ca->bk = 0;
		ca->rtt_win_sx = now;
	}
}

/* Westwood::update_rtt_min. */
static __always_inline void update_rtt_min(struct westwood *ca)
{
	if (ca->reset_rtt_min) {
		ca->rtt_min = ca->rtt;
		ca->reset_rtt_min = false;
	} else {
		ca->rtt_min = hscc_min(ca->rtt_min, ca->rtt);
	}
}

/* Westwood::acked_count (Linux westwood_acked_count): bytes this slow-path ACK stands for. */
static __always_inline __u32 acked_count(struct westwood *ca, const struct tcp_sock *tp)
{
	__u32 mss = tp->mss_cache;

	ca->cumul_ack = tp->snd_una - ca->snd_una;
	if (ca->cumul_ack == 0) {
		/* Duplicate ACK: one segment left the network. */
		ca->accounted = sat_add32(ca->accounted, mss);
		ca->cumul_ack = mss;
	}
	if (ca->cumul_ack > mss) {
		/* Partial or delayed ACK: discount what duplicate ACKs counted. */
		if (ca->accounted >= ca->cumul_ack) {
			ca->accounted -= ca->cumul_ack;
			ca->cumul_ack = mss;
		} else {
			ca->cumul_ack -= ca->accounted;
			ca->accounted = 0;
		}
	}
	ca->snd_una = tp->snd_una;
	return ca->cumul_ack;
}

/* Westwood::bw_rttmin (Linux tcp_westwood_bw_rttmin): bw_est·RTTmin in segments, >= 2. */
static __always_inline __u32 bw_rttmin(const struct westwood *ca, const struct tcp_sock *tp)
{
	__u64 w = sat_mul64(ca->bw_est, ca->rtt_min) / hscc_max(tp->mss_cache, 1U);

	return (__u32)hscc_clamp(w, 2ULL, (__u64)hscc_max(tp->snd_cwnd_clamp, 2U));
}

SEC("struct_ops")
void BPF_PROG(westwood_init, struct sock *sk)
{
	struct westwood *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->rtt = 20 * HSCC_HZ;
	ca->rtt_min = 20 * HSCC_HZ;
	ca->rtt_win_sx = tcp_jiffies32(tp);
	ca->snd_una = tp->snd_una;
	ca->first_ack = true;
	ca->reset_rtt_min = true;
}

SEC("struct_ops")
__u32 BPF_PROG(westwood_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(westwood_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
void BPF_PROG(westwood_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct westwood *ca = inet_csk_ca(sk);

	if (s->rtt_us > 0)
		ca->rtt = usecs_to_jiffies((__u32)s->rtt_us);
}

SEC("struct_ops")
void BPF_PROG(westwood_in_ack_event, struct sock *sk, __u32 flags)
{
	struct westwood *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	update_window(ca, tp);
	if (flags & CA_ACK_SLOWPATH) {
		ca->bk += acked_count(ca, tp);
	} else {
		/* Fast path: a plain cumulative ACK. */
		ca->bk += (__u32)(tp->snd_una - ca->snd_una);
		ca->snd_una = tp->snd_una;
	}
	update_rtt_min(ca);
}

SEC("struct_ops")
void BPF_PROG(westwood_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct westwood *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	if (ev == CA_EVENT_COMPLETE_CWR) {
		tp->snd_ssthresh = bw_rttmin(ca, tp);
		tp->snd_cwnd = tp->snd_ssthresh;
	} else if (ev == CA_EVENT_LOSS) {
		tp->snd_ssthresh = bw_rttmin(ca, tp);
		/* Re-learn RTTmin from the next sample. */
		ca->reset_rtt_min = true;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(westwood_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_westwood = {
	.init = (void *)westwood_init,
	.ssthresh = (void *)westwood_ssthresh,
	.cong_avoid = (void *)westwood_cong_avoid,
	.pkts_acked = (void *)westwood_pkts_acked,
	.in_ack_event = (void *)westwood_in_ack_event,
	.cwnd_event = (void *)westwood_cwnd_event,
	.undo_cwnd = (void *)westwood_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_westwood",
};
