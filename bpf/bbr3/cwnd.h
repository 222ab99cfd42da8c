/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The congestion window (draft-ietf-ccwg-bbr-06 §5.6.4): BDP multiples,
 * the quantization budget, cwnd grown towards BBR.max_inflight and bounded
 * by the model; the last known good cwnd saved and restored.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/cwnd.rs.
 * update_max_inflight is inline in set_cwnd.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_CWND_H
#define HSCC_BBR3_CWND_H

static __always_inline __u32 bdp_multiple(const struct bbr3 *b, __u32 bw, __u32 gain)
{
	__u64 w, d = BW_UNIT * PERCENT;

	if (b->min_rtt_us == INF)
		return b->initial_cwnd;
	w = sat_mul64((__u64)bw * b->min_rtt_us, gain);
	w = w / d + (w % d != 0);
	return (__u32)hscc_min(w, (__u64)INF - 1);
}

static __always_inline __u32 quantization_budget(struct sock *sk, const struct bbr3 *b, __u32 cap)
{
	cap = hscc_max(cap, offload_budget(sk));
	cap = hscc_max(cap, min_pipe_cwnd);
	if (b->state == BBR3_PROBE_BW_UP)
		cap = sat_add32(cap, 2);
	return cap;
}

static __always_inline __u32 inflight_for(struct sock *sk, const struct bbr3 *b, __u32 bw,
					  __u32 gain)
{
	return quantization_budget(sk, b, bdp_multiple(b, bw, gain));
}

static __always_inline void save_cwnd(struct sock *sk, struct bbr3 *b)
{
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	if (!in_loss_recovery(hscc_ca_state(sk)) && b->state != BBR3_PROBE_RTT)
		b->prior_cwnd = cwnd;
	else
		b->prior_cwnd = hscc_max(b->prior_cwnd, cwnd);
}

static __always_inline void restore_cwnd(struct sock *sk, const struct bbr3 *b)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_cwnd = hscc_max(tp->snd_cwnd, b->prior_cwnd);
}

static __always_inline __u32 probe_rtt_cwnd(const struct bbr3 *b)
{
	return hscc_max(bdp_multiple(b, b->bw, probe_rtt_cwnd_gain), min_pipe_cwnd);
}

static __always_inline __u32 cwnd_cap(const struct bbr3 *b)
{
	__u32 cap = INF;

	if (is_probe_bw(b->state) && b->state != BBR3_PROBE_BW_CRUISE)
		cap = b->inflight_longterm;
	else if (b->state == BBR3_PROBE_RTT || b->state == BBR3_PROBE_BW_CRUISE)
		cap = inflight_with_headroom(b);
	cap = hscc_min(cap, b->inflight_shortterm);
	return hscc_max(cap, min_pipe_cwnd);
}

static __always_inline void set_cwnd(struct sock *sk, struct bbr3 *b,
				     const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, cap;

	cap = sat_add32(bdp_multiple(b, b->bw, b->cwnd_gain), b->extra_acked.s[0].v);
	b->max_inflight = quantization_budget(sk, b, cap);
	if (b->full_bw_reached)
		cwnd = hscc_min(sat_add32(cwnd, rs->acked_sacked), b->max_inflight);
	else if (cwnd < b->max_inflight || tp->delivered < b->initial_cwnd)
		cwnd = sat_add32(cwnd, rs->acked_sacked);
	cwnd = hscc_max(cwnd, min_pipe_cwnd);
	if (b->state == BBR3_PROBE_RTT)
		cwnd = hscc_min(cwnd, probe_rtt_cwnd(b));
	cwnd = hscc_min(cwnd, cwnd_cap(b));
	tp->snd_cwnd = hscc_min(cwnd, tp->snd_cwnd_clamp);
}

#endif
