/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * H-TCP (Leith & Shorten, PFLDnet 2004; Linux tcp_htcp.c): hscc-cc
 * crates/hscc-cc/src/algos/htcp.rs. The increase α grows with the time since
 * the last congestion event, the backoff β = RTT_min/RTT_max adapts to the
 * path (β_min after a bandwidth switch), both ×128 as Linux; RTTs in
 * jiffies from the per-ACK samples of pkts_acked, as Linux's module takes
 * them. The Rust file gives the law, the constants and the deviations.
 */
#include "hscc.h"

#define ALPHA_BASE (1U << 7)      /* α = 1.0 ×128 (Linux ALPHA_BASE) */
#define MAX_FACTOR (1ULL << 20)   /* largest α(Δ) factor (htcp.rs) */

/* Htcp::bpf_globals (its Config). */
#define HTCP_GLOBALS(X)            \
	X(__u32, delta_l_ms)       \
	X(__u32, beta_min)         \
	X(__u32, beta_max)         \
	X(bool, rtt_scaling)       \
	X(bool, bandwidth_switch)
HSCC_GLOBALS(htcp, HTCP_GLOBALS)

/* Rust's Htcp state (Linux struct htcp). */
struct htcp {
	__u32 alpha;          /* increase per RTT ×128, with the 2(1 − β) factor */
	__u32 beta;           /* backoff ×128 */
	__u32 pkts_acked;     /* segments acknowledged by the current ACK */
	__u32 packetcount;    /* segments in the current throughput sample */
	__u32 min_rtt;        /* RTT_min, jiffies (0 = none) */
	__u32 max_rtt;        /* RTT_max, jiffies */
	__u32 last_cong;      /* last congestion event, jiffies */
	__u32 undo_last_cong; /* values before the last reduction, for undo */
	__u32 undo_max_rtt;
	__u32 undo_old_max_b;
	__u32 min_b;          /* throughput, segments/s */
	__u32 max_b;
	__u32 old_max_b;
	__u32 bi;
	__u32 lasttime;       /* start of the throughput sample, jiffies */
	bool modeswitch;      /* adaptive β allowed */
	bool undo_valid;
};
HSCC_CA_PRIV_FITS(struct htcp);

/* htcp.rs ms_to_jiffies: ⌈ms·HZ/1000⌉ (Linux msecs_to_jiffies). */
static __always_inline __u32 ms_to_jiffies(__u32 ms)
{
	return (__u32)(((__u64)ms * HSCC_HZ + 999) / 1000);
}

/* Htcp::cong_time: jiffies since the last congestion event. */
static __always_inline __u32 cong_time(const struct htcp *ca, const struct tcp_sock *tp)
{
	return tcp_jiffies32(tp) - ca->last_cong;
}

/* Htcp::reset. */
static __always_inline void htcp_reset(struct htcp *ca, const struct tcp_sock *tp)
{
	ca->undo_valid = true;
	ca->undo_last_cong = ca->last_cong;
	ca->undo_max_rtt = ca->max_rtt;
	ca->undo_old_max_b = ca->old_max_b;
	ca->last_cong = tcp_jiffies32(tp);
}

/* Htcp::measure_rtt (Linux measure_rtt). */
static __always_inline void measure_rtt(struct htcp *ca, struct sock *sk, __u32 rtt)
{
	if (ca->min_rtt > rtt || ca->min_rtt == 0)
		ca->min_rtt = rtt;
	if (hscc_ca_state(sk) == TCP_CA_Open) {
		ca->max_rtt = hscc_max(ca->max_rtt, ca->min_rtt);
		if (ca->max_rtt < rtt && rtt <= ca->max_rtt + ms_to_jiffies(20))
			ca->max_rtt = rtt;
	}
}

/* Htcp::measure_throughput (Linux measure_achieved_throughput). */
static __always_inline void measure_throughput(struct htcp *ca, struct sock *sk, __u32 pkts_acked)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u32 now = tcp_jiffies32(tp);
	__u8 state = hscc_ca_state(sk);
	__u32 a, elapsed;
	bool window_done;

	if (state != TCP_CA_Open && state != TCP_CA_Disorder) {
		ca->packetcount = 0;
		ca->lasttime = now;
		return;
	}
	ca->packetcount = sat_add32(ca->packetcount, pkts_acked);
	/* About a window acknowledged (Linux wraps cwnd − α to "never" when α > cwnd). */
	a = hscc_max(ca->alpha >> 7, 1U);
	window_done = tp->snd_cwnd >= a && ca->packetcount >= tp->snd_cwnd - a;
	elapsed = now - ca->lasttime;
	if (window_done && elapsed >= ca->min_rtt && ca->min_rtt > 0) {
		__u64 c = (__u64)ca->packetcount * HSCC_HZ / elapsed;
		__u32 cur = (__u32)hscc_min(c, 0xffffffffULL);

		if (cong_time(ca, tp) / ca->min_rtt <= 3) {
			/* Just after a backoff. */
			ca->min_b = cur;
			ca->max_b = cur;
			ca->bi = cur;
		} else {
			ca->bi = (__u32)((3 * (__u64)ca->bi + cur) / 4);
			ca->max_b = hscc_max(ca->max_b, ca->bi);
			ca->min_b = hscc_min(ca->min_b, ca->max_b);
		}
		ca->packetcount = 0;
		ca->lasttime = now;
	}
}

/* Htcp::beta_update (Linux htcp_beta_update). */
static __always_inline void beta_update(struct htcp *ca)
{
	if (bandwidth_switch) {
		__u64 max_b = ca->max_b, old = ca->old_max_b;

		ca->old_max_b = ca->max_b;
		if (!(4 * old <= 5 * max_b && 5 * max_b <= 6 * old)) {
			ca->beta = beta_min;
			ca->modeswitch = false;
			return;
		}
	}
	if (ca->modeswitch && ca->min_rtt > ms_to_jiffies(10) && ca->max_rtt != 0) {
		ca->beta = hscc_clamp((ca->min_rtt << 7) / ca->max_rtt, beta_min, beta_max);
	} else {
		ca->beta = beta_min;
		ca->modeswitch = true;
	}
}

/* Htcp::alpha_update (Linux htcp_alpha_update): 2(1 − β)·α(Δ), RTT-scaled. */
static __always_inline void alpha_update(struct htcp *ca, const struct tcp_sock *tp)
{
	__u64 hz = HSCC_HZ;
	__u64 diff = cong_time(ca, tp);
	__u64 delta_l = ms_to_jiffies(delta_l_ms);
	__u64 factor = 1;

	if (diff > delta_l) {
		diff -= delta_l;
		factor = hscc_min(1 + (10 * diff + (diff / 2) * (diff / 2) / hz) / hz, MAX_FACTOR);
	}
	if (rtt_scaling && ca->min_rtt != 0) {
		/* (100 ms / RTT_min) << 3, clamped to [0.5, 10] << 3. */
		__u64 scale = hscc_clamp((hz << 3) / (10 * (__u64)ca->min_rtt), 1ULL << 2, 10ULL << 3);

		factor = hscc_max((factor << 3) / scale, 1ULL);
	}
	ca->alpha = (__u32)(2 * factor * (ALPHA_BASE - ca->beta));
	if (ca->alpha == 0)
		ca->alpha = ALPHA_BASE;
}

SEC("struct_ops")
void BPF_PROG(htcp_init, struct sock *sk)
{
	struct htcp *ca = inet_csk_ca(sk);

	/* Htcp::fresh: everything 0 but α = 1, β = β_min, last_cong = now. */
	__builtin_memset(ca, 0, sizeof(*ca));
	ca->alpha = ALPHA_BASE;
	ca->beta = beta_min;
	ca->pkts_acked = 1;
	ca->last_cong = tcp_jiffies32(tcp_sk(sk));
}

SEC("struct_ops")
__u32 BPF_PROG(htcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct htcp *ca = inet_csk_ca(sk);

	beta_update(ca);
	alpha_update(ca, tp);
	/* Slowly fading memory of RTT_max, for route changes. */
	if (ca->min_rtt > 0 && ca->max_rtt > ca->min_rtt)
		ca->max_rtt = ca->min_rtt + (ca->max_rtt - ca->min_rtt) * 95 / 100;
	return hscc_max((__u32)(((__u64)tp->snd_cwnd * ca->beta) >> 7), 2U);
}

SEC("struct_ops")
void BPF_PROG(htcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct htcp *ca = inet_csk_ca(sk);

	if (!hscc_in_congestion_avoidance(sk, acked))
		return;
	/* cwnd += α/cwnd per segment, one step per ACK at most. */
	if ((((__u64)tp->snd_cwnd_cnt * ca->alpha) >> 7) >= tp->snd_cwnd) {
		if (tp->snd_cwnd < tp->snd_cwnd_clamp)
			tp->snd_cwnd += 1;
		tp->snd_cwnd_cnt = 0;
		alpha_update(ca, tp);
	} else {
		tp->snd_cwnd_cnt = sat_add32(tp->snd_cwnd_cnt, ca->pkts_acked);
	}
	ca->pkts_acked = 1;
}

SEC("struct_ops")
void BPF_PROG(htcp_set_state, struct sock *sk, __u8 new_state)
{
	struct htcp *ca = inet_csk_ca(sk);

	switch (new_state) {
	case TCP_CA_Open:
		if (ca->undo_valid) {
			ca->last_cong = tcp_jiffies32(tcp_sk(sk));
			ca->undo_valid = false;
		}
		break;
	case TCP_CA_CWR:
	case TCP_CA_Recovery:
	case TCP_CA_Loss:
		htcp_reset(ca, tcp_sk(sk));
		break;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(htcp_undo_cwnd, struct sock *sk)
{
	struct htcp *ca = inet_csk_ca(sk);

	if (ca->undo_valid) {
		ca->last_cong = ca->undo_last_cong;
		ca->max_rtt = ca->undo_max_rtt;
		ca->old_max_b = ca->undo_old_max_b;
		ca->undo_valid = false;
	}
	return tcp_reno_undo_cwnd(sk);
}

SEC("struct_ops")
void BPF_PROG(htcp_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct htcp *ca = inet_csk_ca(sk);

	if (hscc_ca_state(sk) == TCP_CA_Open)
		ca->pkts_acked = s->pkts_acked;
	if (s->rtt_us > 0) {
		__u32 us_per_jiffy = USEC_PER_SEC / HSCC_HZ;

		measure_rtt(ca, sk, ((__u32)s->rtt_us + us_per_jiffy - 1) / us_per_jiffy);
	}
	if (bandwidth_switch)
		measure_throughput(ca, sk, s->pkts_acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_htcp = {
	.init = (void *)htcp_init,
	.ssthresh = (void *)htcp_ssthresh,
	.cong_avoid = (void *)htcp_cong_avoid,
	.set_state = (void *)htcp_set_state,
	.undo_cwnd = (void *)htcp_undo_cwnd,
	.pkts_acked = (void *)htcp_pkts_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_htcp",
};
