/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * FAST TCP (Jin, Wei & Low, INFOCOM 2004 §IV; ns-2.35 tcp-fast.cc): hscc-cc
 * crates/hscc-cc/src/algos/fast.rs. Every (other) round, at most every 10 ms,
 * w ← min{2w, (1 − γ)·w + γ·(baseRTT/avgRTT·w + α)} (eq. 7), in 1/1024
 * segment between updates; multiplicative increase while the queueing delay
 * is below mi_threshold; Reno's loss response. baseRTT and avgRTT come from
 * pkts_acked's samples, avgRTT µs << 16 with weight 1/max(256, cwnd/3).
 *
 * `pacing` writes sk_pacing_rate = cwnd·MSS/avgRTT as the Rust one does, and
 * the conformance tests compare it; in the kernel, though, tcp_cong_control
 * recomputes sk_pacing_rate after cong_avoid (tcp_update_pacing_rate), so
 * the program's rate does not survive there (docs/kernel.md).
 */
#include "hscc.h"

#define AVG_SHIFT 16          /* fractional bits of avgRTT */
#define W_SHIFT 10            /* fractional bits of the window between updates */
#define GAMMA_SHIFT 10        /* fractional bits of γ */
#define RATIO_SHIFT 20        /* fractional bits of baseRTT/avgRTT */
#define AVG_MIN_WEIGHT 256    /* smallest avgRTT weight denominator (ns-2) */
#define MIN_UPDATE_US 10000   /* ns-2 cwnd_update_period_ 0.01 s */

/* Fast::bpf_globals. */
#define FAST_GLOBALS(X)              \
	X(__u32, alpha)              \
	X(__u32, gamma)              \
	X(__u32, period)             \
	X(__u32, mi_threshold_us)    \
	X(bool, pacing)
HSCC_GLOBALS(fast, FAST_GLOBALS)

/* Rust's Fast state (the parameters are the globals). */
struct fast {
	__u64 avg_rtt;        /* average RTT, µs << 16 (0 before the first sample) */
	__u64 last_update_us; /* last window update or multiplicative increase, µs */
	__u64 cwnd_fp;        /* window set by the last update, segments << 10 */
	__u32 base_rtt;       /* smallest RTT sample, µs (~0 before the first) */
	__u32 beg_snd_nxt;    /* snd_nxt when the current round began */
	__u32 rounds;         /* rounds ended since the last state change */
};
HSCC_CA_PRIV_FITS(struct fast);

static __always_inline __u64 sat_add64(__u64 a, __u64 b)
{
	return a + b < a ? ~0ULL : a + b;
}

/* Fast::update_window: the FAST window update (eq. 7) in fixed point. */
static __always_inline void update_window(struct fast *ca, struct tcp_sock *tp)
{
	__u64 avg = hscc_max(ca->avg_rtt >> AVG_SHIFT, 1ULL);
	__u64 ratio = (hscc_min((__u64)ca->base_rtt, avg) << RATIO_SHIFT) / avg;
	__u64 w = ca->cwnd_fp, target, g = gamma, next, max;

	if ((w + (1 << (W_SHIFT - 1))) >> W_SHIFT != tp->snd_cwnd)
		w = (__u64)tp->snd_cwnd << W_SHIFT;
	target = ((w * ratio) >> RATIO_SHIFT) + ((__u64)alpha << W_SHIFT);
	next = (((1ULL << GAMMA_SHIFT) - g) * w + g * target) >> GAMMA_SHIFT;
	max = (__u64)tp->snd_cwnd_clamp << W_SHIFT;
	ca->cwnd_fp = hscc_min(hscc_max(hscc_min(next, 2 * w), 2ULL << W_SHIFT), max);
	tp->snd_cwnd = (__u32)hscc_min((ca->cwnd_fp + (1 << (W_SHIFT - 1))) >> W_SHIFT,
				       (__u64)tp->snd_cwnd_clamp);
}

/* Fast::set_pacing: pacing_rate = cwnd·MSS/avgRTT, bytes per second. */
static __always_inline void set_pacing(const struct fast *ca, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u64 avg = ca->avg_rtt >> AVG_SHIFT, bytes, q, r;

	if (!pacing || avg == 0)
		return;
	bytes = (__u64)tp->snd_cwnd * tp->mss_cache;
	/* bytes·10⁶/avg without overflowing. */
	q = bytes / avg;
	r = bytes % avg;
	sk->sk_pacing_rate = sat_add64(sat_mul64(q, USEC_PER_SEC), r * USEC_PER_SEC / avg);
}

SEC("struct_ops")
void BPF_PROG(fast_init, struct sock *sk)
{
	struct fast *ca = inet_csk_ca(sk);
	const struct tcp_sock *tp = tcp_sk(sk);

	/* Fast::new, then Fast::init. */
	ca->base_rtt = ~0U;
	ca->avg_rtt = 0;
	ca->rounds = 0;
	ca->cwnd_fp = 0;
	ca->beg_snd_nxt = tp->snd_nxt;
	ca->last_update_us = tp->tcp_mstamp;
}

SEC("struct_ops")
__u32 BPF_PROG(fast_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(fast_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct fast *ca = inet_csk_ca(sk);

	if (s->rtt_us >= 0) {
		__u32 rtt = hscc_max((__u32)s->rtt_us, 1U);
		__u64 v = (__u64)rtt << AVG_SHIFT;

		ca->base_rtt = hscc_min(ca->base_rtt, rtt);
		if (ca->avg_rtt == 0) {
			ca->avg_rtt = v;
		} else {
			__u64 weight = hscc_max(tcp_sk(sk)->snd_cwnd / 3, (__u32)AVG_MIN_WEIGHT);

			if (v >= ca->avg_rtt)
				ca->avg_rtt += (v - ca->avg_rtt) / weight;
			else
				ca->avg_rtt -= (ca->avg_rtt - v) / weight;
		}
	}
	set_pacing(ca, sk);
}

SEC("struct_ops")
void BPF_PROG(fast_set_state, struct sock *sk, __u8 new_state)
{
	struct fast *ca = inet_csk_ca(sk);

	/* Whatever the change, judge the new window over a full round first. */
	ca->beg_snd_nxt = tcp_sk(sk)->snd_nxt;
	ca->rounds = 0;
}

SEC("struct_ops")
void BPF_PROG(fast_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct fast *ca = inet_csk_ca(sk);
	bool round_ended = after(ack, ca->beg_snd_nxt);

	if (round_ended) {
		ca->beg_snd_nxt = tp->snd_nxt;
		ca->rounds += 1;
	}
	if (tcp_is_cwnd_limited(sk)) {
		__u64 qdelay = sat_sub64(ca->avg_rtt >> AVG_SHIFT, ca->base_rtt);

		if (qdelay < mi_threshold_us) {
			/* Little queueing: multiplicative increase. */
			tp->snd_cwnd = hscc_min(sat_add32(tp->snd_cwnd, acked), tp->snd_cwnd_clamp);
			ca->last_update_us = tp->tcp_mstamp;
		} else if (round_ended && ca->rounds % period == 0 &&
			   sat_sub64(tp->tcp_mstamp, ca->last_update_us) >= MIN_UPDATE_US) {
			update_window(ca, tp);
			ca->last_update_us = tp->tcp_mstamp;
		}
	}
	set_pacing(ca, sk);
}

SEC("struct_ops")
__u32 BPF_PROG(fast_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_fast = {
	.init = (void *)fast_init,
	.ssthresh = (void *)fast_ssthresh,
	.cong_avoid = (void *)fast_cong_avoid,
	.set_state = (void *)fast_set_state,
	.pkts_acked = (void *)fast_pkts_acked,
	.undo_cwnd = (void *)fast_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_fast",
};
