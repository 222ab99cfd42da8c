/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * BIC-TCP (Xu, Harfoush, Rhee, INFOCOM 2004; Linux tcp_bic.c): hscc-cc
 * crates/hscc-cc/src/algos/bic.rs. Binary search towards W_max, then max
 * probing, as cnt = segments acknowledged per +1 (tcp_cong_avoid_ai),
 * recomputed when cwnd changes or every HZ/32; on loss W_max = cwnd (fast
 * convergence: cwnd·(1 + β)/2) and ssthresh = cwnd·β. The Rust file gives
 * the table of regions, the constants and their sources.
 */
#include "hscc.h"

#define BETA_SCALE 1024     /* Linux BICTCP_BETA_SCALE */
#define BICTCP_B 4          /* Linux BICTCP_B */
#define ACK_RATIO_SHIFT 4   /* Linux ACK_RATIO_SHIFT */

/* Bic::bpf_globals. */
#define BIC_GLOBALS(X)                   \
	X(__u32, beta)                   \
	X(__u32, max_increment)          \
	X(__u32, smooth_part)            \
	X(__u32, low_window)             \
	X(bool, fast_convergence)        \
	X(__u32, initial_ssthresh)       \
	X(bool, delayed_ack_correction)
HSCC_GLOBALS(bic, BIC_GLOBALS)

/* Rust's Bic state (Linux struct bictcp). */
struct bic {
	__u32 cnt;           /* segments acknowledged per +1 segment */
	__u32 last_max_cwnd; /* W_max, segments; 0 = none yet */
	__u32 last_cwnd;     /* cwnd when cnt was last computed */
	__u32 last_time;     /* when cnt was last computed, jiffies */
	__u32 delayed_ack;   /* segments per ACK << 4, EWMA gain 1/16 */
};
HSCC_CA_PRIV_FITS(struct bic);

/* Bic::reset. */
static __always_inline void bic_reset(struct bic *ca)
{
	ca->cnt = 0;
	ca->last_max_cwnd = 0;
	ca->last_cwnd = 0;
	ca->last_time = 0;
	ca->delayed_ack = 2 << ACK_RATIO_SHIFT;
}

/* Bic::update (Linux bictcp_update): recompute cnt for this cwnd. */
static __always_inline void bic_update(struct bic *ca, __u32 cwnd, __u32 now)
{
	__u64 w, wmax, b = BICTCP_B, smax = max_increment, cnt;

	if (ca->last_cwnd == cwnd && (__s32)(now - ca->last_time) <= (__s32)(HSCC_HZ / 32))
		return;
	ca->last_cwnd = cwnd;
	ca->last_time = now;

	if (cwnd <= low_window) {
		ca->cnt = cwnd;
		return;
	}
	w = cwnd;
	wmax = ca->last_max_cwnd;
	if (w < wmax) {
		__u64 dist = (wmax - w) / b;

		if (dist > smax)
			cnt = w / smax;                  /* linear increase */
		else if (dist <= 1)
			cnt = w * smooth_part / b;       /* close to W_max: S_min */
		else
			cnt = w / dist;                  /* binary search */
	} else if (w < wmax + b) {
		cnt = w * smooth_part / b;               /* just past W_max */
	} else if (w < wmax + smax * (b - 1)) {
		cnt = w * (b - 1) / (w - wmax);          /* max probing, accelerating */
	} else {
		cnt = w / smax;                          /* linear increase */
	}
	/* No W_max yet (slow start or very low utilisation): >= 5 % per RTT. */
	if (ca->last_max_cwnd == 0)
		cnt = hscc_min(cnt, 20ULL);
	if (delayed_ack_correction)
		cnt = (cnt << ACK_RATIO_SHIFT) / ca->delayed_ack;
	ca->cnt = (__u32)hscc_clamp(cnt, 1ULL, 0xffffffffULL);
}

SEC("struct_ops")
void BPF_PROG(bic_init, struct sock *sk)
{
	struct bic *ca = inet_csk_ca(sk);

	bic_reset(ca);
	if (initial_ssthresh != 0)
		tcp_sk(sk)->snd_ssthresh = initial_ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(bic_ssthresh, struct sock *sk)
{
	struct bic *ca = inet_csk_ca(sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	if (cwnd < ca->last_max_cwnd && fast_convergence)
		ca->last_max_cwnd = (__u32)((__u64)cwnd * (BETA_SCALE + beta) / (2 * BETA_SCALE));
	else
		ca->last_max_cwnd = cwnd;
	if (cwnd <= low_window)
		return hscc_max(cwnd >> 1, 2U);
	return hscc_max((__u32)((__u64)cwnd * beta / BETA_SCALE), 2U);
}

SEC("struct_ops")
void BPF_PROG(bic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bic *ca = inet_csk_ca(sk);

	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	bic_update(ca, tp->snd_cwnd, tcp_jiffies32(tp));
	tcp_cong_avoid_ai(tp, ca->cnt, acked);
}

SEC("struct_ops")
void BPF_PROG(bic_set_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Loss)
		bic_reset(inet_csk_ca(sk));
}

SEC("struct_ops")
void BPF_PROG(bic_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct bic *ca = inet_csk_ca(sk);

	if (hscc_ca_state(sk) == TCP_CA_Open) {
		/* ratio = 15/16·ratio + sample/16, in units of 1/16. */
		__u32 d = ca->delayed_ack;

		ca->delayed_ack = sat_add32(d, s->pkts_acked) - (d >> ACK_RATIO_SHIFT);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(bic_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_bic = {
	.init = (void *)bic_init,
	.ssthresh = (void *)bic_ssthresh,
	.cong_avoid = (void *)bic_cong_avoid,
	.set_state = (void *)bic_set_state,
	.pkts_acked = (void *)bic_pkts_acked,
	.undo_cwnd = (void *)bic_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_bic",
};
