/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP-Illinois (Liu, Başar & Srikant, VALUETOOLS 2006; Linux
 * tcp_illinois.c): hscc-cc crates/hscc-cc/src/algos/illinois.rs. An AIMD
 * (per ACK cwnd += α/cwnd, on loss cwnd·(1 − β)) whose α (<< 7) and β (<< 6)
 * are set once per round from the round's mean queueing delay against the
 * largest seen. The RTT samples come from pkts_acked, as Linux's module
 * takes them.
 */
#include "hscc.h"

#define ALPHA_SHIFT 7
#define ALPHA_BASE (1U << ALPHA_SHIFT)        /* α = 1 (Reno) */
#define BETA_SHIFT 6
#define BETA_BASE (1U << (BETA_SHIFT - 1))    /* β = 1/2 (Reno) */
/* Largest RTT sample used, µs (Linux RTT_MAX = U32_MAX / ALPHA_MAX). */
#define RTT_MAX (0xffffffffU / (10U << ALPHA_SHIFT))

/* Illinois::bpf_globals. */
#define ILLINOIS_GLOBALS(X)    \
	X(__u32, alpha_min)    \
	X(__u32, alpha_max)    \
	X(__u32, beta_min)     \
	X(__u32, beta_max)     \
	X(__u32, win_thresh)   \
	X(__u32, theta)
HSCC_GLOBALS(illinois, ILLINOIS_GLOBALS)

/* Rust's Illinois state (the parameters are the globals). */
struct illinois {
	__u64 sum_rtt;  /* sum of the round's RTT samples, µs */
	__u32 cnt_rtt;  /* samples in the round */
	__u32 base_rtt; /* smallest RTT sample ever, µs */
	__u32 max_rtt;  /* largest RTT sample ever, µs */
	__u32 end_seq;  /* snd_nxt at the start of the round */
	__u32 alpha;    /* additive increase, segments per RTT << 7 */
	__u32 beta;     /* decrease factor << 6 */
	__u32 acked;    /* segments acknowledged by the current ACK */
	__u32 rtt_low;  /* consecutive rounds with average delay <= d1 */
	bool rtt_above; /* average delay above d1 since α was last α_max */
};
HSCC_CA_PRIV_FITS(struct illinois);

/* Illinois::rtt_reset (Linux rtt_reset): begin a round. */
static __always_inline void rtt_reset(struct illinois *ca, const struct tcp_sock *tp)
{
	ca->end_seq = tp->snd_nxt;
	ca->cnt_rtt = 0;
	ca->sum_rtt = 0;
}

/* Illinois::alpha_for (Linux alpha()): α for average delay da, maximum dm (µs). */
static __always_inline __u32 alpha_for(struct illinois *ca, __u32 da, __u32 dm)
{
	__u32 d1 = dm / 100;
	__u64 amin = alpha_min, amax = alpha_max, dmx, dax;

	if (da <= d1) {
		/* Never left the low-delay zone: full speed. */
		if (!ca->rtt_above)
			return alpha_max;
		/* Wait for θ good rounds so one lucky round cannot jump α. */
		ca->rtt_low += 1;
		if (ca->rtt_low < theta)
			return ca->alpha;
		ca->rtt_low = 0;
		ca->rtt_above = false;
		return alpha_max;
	}
	ca->rtt_above = true;
	/* α = k1/(k2 + da), rearranged for integers (illinois.rs). */
	dmx = dm - d1;
	dax = da - d1;
	return (__u32)(dmx * amax / (dmx + dax * (amax - amin) / amin));
}

/*
 * Illinois::beta_for (Linux beta()): β for average delay da, maximum dm (µs).
 * Rust's (bmin·d3 − bmax·d2 + (bmax − bmin)·da)/(d3 − d2) in i64 is, for
 * d2 < da < d3, bmin·(d3 − da) + bmax·(da − d2) over d3 − d2: both
 * non-negative, so the unsigned division (BPF has no signed one) is the same.
 */
static __always_inline __u32 beta_for(__u32 da, __u32 dm)
{
	__u32 d2 = dm / 10, d3;

	if (da <= d2)
		return beta_min;
	d3 = (__u32)(8 * (__u64)dm / 10);
	if (da >= d3 || d3 <= d2)
		return beta_max;
	/* Linear from (d2, β_min) to (d3, β_max). */
	return (__u32)(((__u64)beta_min * (d3 - da) + (__u64)beta_max * (da - d2)) / (d3 - d2));
}

/* Illinois::update_params (Linux update_params), once per round. */
static __always_inline void update_params(struct illinois *ca, const struct tcp_sock *tp)
{
	if (tp->snd_cwnd < win_thresh) {
		ca->alpha = ALPHA_BASE;
		ca->beta = BETA_BASE;
	} else if (ca->cnt_rtt > 0) {
		__u32 dm = ca->max_rtt - ca->base_rtt;
		__u32 avg = (__u32)(ca->sum_rtt / ca->cnt_rtt);
		__u32 da = sat_sub32(avg, ca->base_rtt);

		/* Illinois::set_delays. */
		ca->alpha = alpha_for(ca, da, dm);
		ca->beta = beta_for(da, dm);
	}
	rtt_reset(ca, tp);
}

SEC("struct_ops")
void BPF_PROG(illinois_init, struct sock *sk)
{
	struct illinois *ca = inet_csk_ca(sk);

	ca->alpha = alpha_max;
	ca->beta = BETA_BASE;
	ca->base_rtt = 0x7fffffff;
	ca->max_rtt = 0;
	ca->acked = 0;
	ca->rtt_low = 0;
	ca->rtt_above = false;
	rtt_reset(ca, tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(illinois_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct illinois *ca = inet_csk_ca(sk);
	__u32 rtt;

	ca->acked = s->pkts_acked;
	if (s->rtt_us < 0)
		return;
	/* Cap bogus values so the α arithmetic cannot wrap. */
	rtt = hscc_min((__u32)s->rtt_us, RTT_MAX);
	ca->base_rtt = hscc_min(ca->base_rtt, rtt);
	ca->max_rtt = hscc_max(ca->max_rtt, rtt);
	ca->cnt_rtt = sat_add32(ca->cnt_rtt, 1);
	ca->sum_rtt += rtt;
}

SEC("struct_ops")
void BPF_PROG(illinois_set_state, struct sock *sk, __u8 new_state)
{
	struct illinois *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss) {
		ca->alpha = ALPHA_BASE;
		ca->beta = BETA_BASE;
		ca->rtt_low = 0;
		ca->rtt_above = false;
		rtt_reset(ca, tcp_sk(sk));
	}
}

SEC("struct_ops")
void BPF_PROG(illinois_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct illinois *ca = inet_csk_ca(sk);
	__u64 delta;

	if (after(ack, ca->end_seq))
		update_params(ca, tp);
	if (!hscc_in_congestion_avoidance(sk, acked))
		return;
	/* cwnd += α/cwnd per segment: +delta/cwnd once delta = cnt·α >= cwnd. */
	tp->snd_cwnd_cnt = sat_add32(tp->snd_cwnd_cnt, ca->acked);
	ca->acked = 1;
	delta = ((__u64)tp->snd_cwnd_cnt * ca->alpha) >> ALPHA_SHIFT;
	if (delta >= tp->snd_cwnd) {
		__u64 inc = delta / tp->snd_cwnd;

		tp->snd_cwnd = (__u32)hscc_min((__u64)tp->snd_cwnd + inc, (__u64)tp->snd_cwnd_clamp);
		tp->snd_cwnd_cnt = 0;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(illinois_ssthresh, struct sock *sk)
{
	struct illinois *ca = inet_csk_ca(sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;
	__u64 decr = ((__u64)cwnd * ca->beta) >> BETA_SHIFT;

	return hscc_max(cwnd - (__u32)decr, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(illinois_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_illinois = {
	.init = (void *)illinois_init,
	.ssthresh = (void *)illinois_ssthresh,
	.cong_avoid = (void *)illinois_cong_avoid,
	.set_state = (void *)illinois_set_state,
	.pkts_acked = (void *)illinois_pkts_acked,
	.undo_cwnd = (void *)illinois_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_illinois",
};
