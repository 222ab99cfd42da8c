/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Compound TCP (Tan, Song, Zhang, Sridharan, IEEE INFOCOM 2006; γ
 * auto-tuning from the authors' PFLDnet 2006 slides), with CTCP-NWR and
 * Lachlan Andrew's tcp_compound.c choices as switches: hscc-cc
 * crates/hscc-cc/src/algos/ctcp.rs, function for function, state field for
 * field, in the same fixed point (α Q16, β Q10, k Q24, ζ and γ Q8, w^k Q8 by
 * log2/exp2 in Q30). The Rust file documents the law (win = cwnd + dwnd,
 * eq. 5 once per round), the constants, their sources and the choices where
 * the paper is silent.
 *
 * bpf/ctcp-la.bpf.c is this file under another name: the Rust CtcpLa is
 * Ctcp with its parameters mapped, so both programs run this code.
 */
#include "hscc.h"

#ifndef CTCP_OPS
#define CTCP_OPS hscc_ctcp
#define CTCP_OPS_NAME "hscc_ctcp"
#endif

/* Ctcp::bpf_globals. */
#define CTCP_GLOBALS(X)               \
	X(__u32, alpha_q16)           \
	X(__u32, beta_q10)            \
	X(__u32, k_q24)               \
	X(__u32, zeta_q8)             \
	X(__u32, lowwnd)              \
	X(__u32, min_samples)         \
	X(bool, rtt_min_filter)       \
	X(__u32, sample_interval_us)  \
	X(bool, nwr)                  \
	X(bool, gamma_auto)           \
	X(__u32, gamma_min_q8)        \
	X(__u32, gamma_wlow)          \
	X(bool, gamma_tube)           \
	X(__u32, gamma_max_q8)        \
	X(__u32, gamma_lambda_shift)  \
	X(bool, pace_dwnd)            \
	X(bool, win_sent)             \
	X(__u32, gamma_init_q8)
HSCC_GLOBALS(ctcp, CTCP_GLOBALS)

/* Rust's Ctcp state (its configuration is the globals above). */
struct ctcp {
	__u32 cwnd;            /* Reno (loss-based) component, segments */
	__u32 dwnd;            /* delay-based component, segments */
	__u32 gamma_q8;        /* γ in force, packets Q8 */
	__u32 base_rtt_us;     /* baseRTT, µs (~0 before the first sample) */
	__u32 beg_snd_nxt;     /* snd_nxt when the round began */
	__u32 beg_snd_una;     /* left edge of the data the round acknowledges */
	__u32 beg_cwnd;        /* Reno component when the round began */
	bool has_diff_reno;    /* Rust's diff_reno_q8 is Some */
	__u64 diff_reno_q8;    /* [LA13] Reno backlog of the last measured round */
	__u32 dwnd_left;       /* paced increments still to apply */
	__u32 incr_interval;   /* one paced increment per incr_interval + 1 ACKs */
	__u32 acks_since_inc;  /* ACKs since the last paced increment */
	__u32 cnt_rtt;         /* samples this round */
	__u64 sum_rtt_us;      /* sum of this round's samples */
	__u32 min_rtt_us;      /* minimum of this round's samples */
	__u32 acked_since_sample;
	__u32 max_round_rtt_us; /* largest round RTT since the last loss */
	__u32 prior_cwnd;      /* cwnd before the last reduction (undo) */
	__u32 prior_dwnd;      /* dwnd before the last reduction (undo) */
};
HSCC_CA_PRIV_FITS(struct ctcp);

/* 2^(2^−(i+1)) in Q30, for pow_q8 (Rust's EXP2_Q30). */
static const __u64 EXP2_Q30[30] = {
	1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106, 1079572136, 1076653033,
	1075196443, 1074468888, 1074105294, 1073923544, 1073832680, 1073787251, 1073764537, 1073753181,
	1073747502, 1073744663, 1073743244, 1073742534, 1073742179, 1073742001, 1073741913, 1073741868,
	1073741846, 1073741835, 1073741830, 1073741827, 1073741825, 1073741825,
};

/* 31 − leading_zeros(w) for w ≥ 1, without a loop. */
static __always_inline __u32 ilog2_32(__u32 w)
{
	__u32 n = 0;

	if (w >> 16) {
		n += 16;
		w >>= 16;
	}
	if (w >> 8) {
		n += 8;
		w >>= 8;
	}
	if (w >> 4) {
		n += 4;
		w >>= 4;
	}
	if (w >> 2) {
		n += 2;
		w >>= 2;
	}
	if (w >> 1)
		n += 1;
	return n;
}

/* log2(w) in Q30 for w ≥ 1, by repeated squaring (30 fraction bits). */
static __always_inline __u64 log2_q30(__u32 w)
{
	__u32 n = ilog2_32(w);
	__u64 x = (__u64)w << (31 - n); /* Q31 in [1, 2) */
	__u64 frac = 0;
	int i;

	/* Without a branch in the loop (x < 2^33, so x >> 32 is the bit): the
	 * verifier, which knows w, would otherwise walk every path. */
	for (i = 0; i < 30; i++) {
		__u64 bit;

		x = (x * x) >> 31;
		bit = x >> 32;
		x >>= bit;
		frac |= bit << (29 - i);
	}
	return ((__u64)n << 30) | frac;
}

/* w^k in Q8 (rounded), k in Q24 (≤ 1), via 2^(k·log2 w). */
static __always_inline __u64 pow_q8(__u32 w, __u32 k)
{
	__u64 y, r = 1ULL << 30;
	int i;

	if (w == 0)
		return 0;
	y = ((__u64)k * log2_q30(w)) >> 24; /* Q30, < 32 */
	/* r·2^30 >> 30 = r where the bit is clear: no branch, as above. */
	for (i = 0; i < 30; i++) {
		__u64 mask = 0 - ((y >> (29 - i)) & 1);

		r = (r * ((EXP2_Q30[i] & mask) | ((1ULL << 30) & ~mask))) >> 30;
	}
	return ((r << (y >> 30)) + (1ULL << 21)) >> 22;
}

/* (α·win^k − 1)⁺, floored to whole segments (eq. 5, first line). */
static __always_inline __u32 dwnd_increase(__u32 win)
{
	__u64 inc_q8 = ((__u64)alpha_q16 * pow_q8(win, k_q24)) >> 16;

	return (__u32)hscc_min(sat_sub64(inc_q8, 256) >> 8, 0xffffffffULL);
}

/* Adopt changes the sender made to snd_cwnd: a reduction is shared in
 * proportion ([LA13]), an increase goes to the Reno part. */
static __always_inline void sync(struct ctcp *ca, const struct tcp_sock *tp)
{
	__u64 total = (__u64)ca->cwnd + ca->dwnd;
	__u32 snd_cwnd = tp->snd_cwnd;

	if ((__u64)snd_cwnd < total)
		ca->dwnd = (__u32)((__u64)ca->dwnd * snd_cwnd / total);
	ca->cwnd = snd_cwnd - ca->dwnd;
}

static __always_inline void restart_round(struct ctcp *ca, const struct tcp_sock *tp)
{
	ca->beg_snd_nxt = tp->snd_nxt;
	ca->beg_snd_una = tp->snd_una;
	ca->beg_cwnd = ca->cwnd;
	ca->cnt_rtt = 0;
	ca->sum_rtt_us = 0;
	ca->min_rtt_us = ~0U;
}

/* Start over after a loss recovery, a timeout or an idle restart ([LA13]
 * ctcp_enable): a fresh round, no γ-tuning sample, no pending increase. */
static __always_inline void restart(struct ctcp *ca, const struct tcp_sock *tp)
{
	restart_round(ca, tp);
	ca->has_diff_reno = false;
	ca->diff_reno_q8 = 0;
	ca->dwnd_left = 0;
	ca->acks_since_inc = 0;
}

/* Put the split into snd_cwnd, dwnd limited by the clamp. */
static __always_inline void apply(struct ctcp *ca, struct tcp_sock *tp)
{
	ca->dwnd = hscc_min(ca->dwnd, sat_sub32(tp->snd_cwnd_clamp, ca->cwnd));
	tp->snd_cwnd = ca->cwnd + ca->dwnd;
}

/* [LA13] pacing: one pending increment per incr_interval + 1 ACKs. */
static __always_inline void pace(struct ctcp *ca, struct tcp_sock *tp)
{
	ca->acks_since_inc += 1;
	if (ca->acks_since_inc > ca->incr_interval) {
		ca->acks_since_inc = 0;
		ca->dwnd_left -= 1;
		ca->dwnd = sat_add32(ca->dwnd, 1);
		apply(ca, tp);
	}
}

/* End of a round: eq. 5, first two lines. */
static __always_inline void end_round(struct ctcp *ca, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 win = ca->cwnd + ca->dwnd;
	__u32 mss = tp->mss_cache;
	__u32 w = win, rtt = 0;
	bool measured = false;

	/* [LA13]: what pacing has not applied yet is added at the round end. */
	ca->dwnd = sat_add32(ca->dwnd, ca->dwnd_left);
	ca->dwnd_left = 0;
	/* The nominal window (paper) or the segments the round's ACKs covered. */
	if (win_sent && mss > 0)
		w = (ca->beg_snd_nxt - ca->beg_snd_una) / mss;
	if (ca->cnt_rtt > min_samples) {
		if (rtt_min_filter)
			rtt = ca->min_rtt_us;
		else
			rtt = (__u32)(ca->sum_rtt_us / ca->cnt_rtt);
		ca->max_round_rtt_us = hscc_max(ca->max_round_rtt_us, rtt);
		measured = true;
	}
	if (tcp_in_slow_start(tp) || win < lowwnd) {
		ca->dwnd = 0;
	} else if (measured && tcp_is_cwnd_limited(sk)) {
		__u64 queued = rtt - hscc_min(ca->base_rtt_us, rtt);
		__u64 diff_q8 = sat_mul64((__u64)w * queued, 256) / rtt;

		/* [LA13]: the Reno part's own backlog, for γ tuning at the next loss. */
		ca->diff_reno_q8 = sat_mul64((__u64)ca->beg_cwnd * queued, 256) / rtt;
		ca->has_diff_reno = true;
		if (diff_q8 < ca->gamma_q8) {
			__u32 inc = dwnd_increase(w);

			if (pace_dwnd && inc > 0) {
				/* [LA13]: one +1 per win/(2·inc) ACKs of the next round. */
				ca->dwnd_left = inc;
				ca->incr_interval = hscc_max(win / (2 * inc), 1U);
				ca->acks_since_inc = 0;
			} else {
				ca->dwnd = sat_add32(ca->dwnd, inc);
			}
		} else if (!nwr) {
			__u64 dec = ((__u64)zeta_q8 * diff_q8) >> 16;

			ca->dwnd = (__u32)sat_sub64(ca->dwnd, dec);
		}
	}
	apply(ca, tp);
}

/* Slides: γ = max(γ_min, W_low·(RTTmax − RTTmin)/RTTmax), at each loss. */
static __always_inline void tune_gamma(struct ctcp *ca)
{
	__u64 max = ca->max_round_rtt_us, min = ca->base_rtt_us;

	if (max > min) {
		__u64 g_q8 = (((__u64)gamma_wlow * (max - min)) << 8) / max;

		ca->gamma_q8 = (__u32)hscc_max(g_q8, (__u64)gamma_min_q8);
	}
	ca->max_round_rtt_us = 0;
}

/* [LA13] γ tuning at a loss, if a round was measured since the last one:
 * g = ⌊¾·diff_reno⌋, γ ← γ + ⌊(g − γ)·λ⌋ in whole packets, clipped to
 * [γ_min, γ_max]. Signed arithmetic shifts, as Rust's on i64. */
static __always_inline void tune_gamma_tube(struct ctcp *ca)
{
	__s64 g, gamma, next;
	__u64 next_q8;

	if (!ca->has_diff_reno)
		return;
	ca->has_diff_reno = false;
	g = (__s64)hscc_min(sat_mul64(ca->diff_reno_q8, 3) >> 10, 0x7fffffffffffffffULL);
	gamma = ca->gamma_q8 >> 8;
	next = gamma + ((g - gamma) >> gamma_lambda_shift);
	next_q8 = (__u64)(next > 0 ? next : 0) << 8;
	ca->gamma_q8 = (__u32)hscc_min(hscc_max(next_q8, (__u64)gamma_min_q8), (__u64)gamma_max_q8);
}

SEC("struct_ops")
void BPF_PROG(ctcp_init, struct sock *sk)
{
	struct ctcp *ca = inet_csk_ca(sk);

	/* Ctcp::new, then Ctcp::init. */
	ca->gamma_q8 = gamma_init_q8;
	ca->base_rtt_us = ~0U;
	ca->incr_interval = 0;
	ca->acked_since_sample = 0;
	ca->max_round_rtt_us = 0;
	ca->prior_cwnd = 0;
	ca->prior_dwnd = 0;
	ca->cwnd = tcp_sk(sk)->snd_cwnd;
	ca->dwnd = 0;
	restart(ca, tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(ctcp_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ctcp *ca = inet_csk_ca(sk);
	__u8 state = hscc_ca_state(sk);
	__u32 srtt = tp->srtt_us >> 3;
	__u64 spacing = 0;
	__u32 rtt;

	/* §V: no sampling during loss recovery; M ≈ RTT/δ samples per window,
	 * uniformly over its packets: one per win·δ/srtt segments. */
	if (state == TCP_CA_Recovery || state == TCP_CA_Loss)
		return;
	ca->acked_since_sample = sat_add32(ca->acked_since_sample, s->pkts_acked);
	if (srtt)
		spacing = (__u64)tp->snd_cwnd * sample_interval_us / srtt;
	if (s->rtt_us < 0 || (__u64)ca->acked_since_sample < spacing)
		return;
	ca->acked_since_sample = 0;
	rtt = hscc_max((__u32)s->rtt_us, 1U);
	ca->base_rtt_us = hscc_min(ca->base_rtt_us, rtt);
	ca->min_rtt_us = hscc_min(ca->min_rtt_us, rtt);
	ca->sum_rtt_us += rtt;
	ca->cnt_rtt += 1;
}

SEC("struct_ops")
void BPF_PROG(ctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ctcp *ca = inet_csk_ca(sk);

	sync(ca, tp);
	if (ca->dwnd_left > 0 && tcp_is_cwnd_limited(sk))
		pace(ca, tp);
	if (after(ack, ca->beg_snd_nxt)) {
		__u32 edge = ca->beg_snd_nxt;

		end_round(ca, sk);
		restart_round(ca, tp);
		ca->beg_snd_una = edge;
	}
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked) {
			ca->cwnd = tp->snd_cwnd - ca->dwnd;
			return;
		}
	}
	/* eq. 2: the Reno part gains 1/(cwnd + dwnd) per segment acknowledged. */
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);
	ca->cwnd = tp->snd_cwnd - ca->dwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(ctcp_ssthresh, struct sock *sk)
{
	struct ctcp *ca = inet_csk_ca(sk);
	__u64 win, target;
	__u32 half;

	sync(ca, tcp_sk(sk));
	ca->prior_cwnd = ca->cwnd;
	ca->prior_dwnd = ca->dwnd;
	if (gamma_tube)
		tune_gamma_tube(ca);
	else if (gamma_auto)
		tune_gamma(ca);
	/* eq. 5, third line: cwnd halves, dwnd fills up to win·(1 − β). */
	win = (__u64)ca->cwnd + ca->dwnd;
	target = (win * (1024 - hscc_min(beta_q10, 1024U))) >> 10;
	half = ca->cwnd / 2;
	ca->dwnd = (__u32)sat_sub64(target, half);
	ca->cwnd = hscc_max(half, sat_sub32(2, ca->dwnd));
	return ca->cwnd + ca->dwnd;
}

SEC("struct_ops")
void BPF_PROG(ctcp_set_state, struct sock *sk, __u8 new_state)
{
	struct ctcp *ca = inet_csk_ca(sk);
	__u8 old = hscc_ca_state(sk);

	if (new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss ||
	    old == TCP_CA_Recovery || old == TCP_CA_Loss)
		restart(ca, tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(ctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct ctcp *ca = inet_csk_ca(sk);

	/* Timeout (§III.B) and idle restart: the delay component starts over;
	 * it is re-enabled once slow start has ended. */
	if (ev == CA_EVENT_LOSS || ev == CA_EVENT_CWND_RESTART) {
		ca->dwnd = 0;
		restart(ca, tcp_sk(sk));
	}
}

SEC("struct_ops")
__u32 BPF_PROG(ctcp_undo_cwnd, struct sock *sk)
{
	struct ctcp *ca = inet_csk_ca(sk);
	/* Linux Reno: max(cwnd, prior_cwnd), with the pre-loss split restored. */
	__u32 total = hscc_max(tcp_sk(sk)->snd_cwnd, ca->prior_cwnd + ca->prior_dwnd);

	ca->dwnd = ca->prior_dwnd;
	ca->cwnd = total - ca->dwnd;
	return total;
}

SEC(".struct_ops")
struct tcp_congestion_ops CTCP_OPS = {
	.init = (void *)ctcp_init,
	.ssthresh = (void *)ctcp_ssthresh,
	.cong_avoid = (void *)ctcp_cong_avoid,
	.set_state = (void *)ctcp_set_state,
	.cwnd_event = (void *)ctcp_cwnd_event,
	.pkts_acked = (void *)ctcp_pkts_acked,
	.undo_cwnd = (void *)ctcp_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = CTCP_OPS_NAME,
};
