/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pacing and the send quantum (draft-ietf-ccwg-bbr-06 §5.6.2–5.6.3,
 * §5.5.8.1): the pacing rate for a gain, less the pacing margin, never
 * lowered before the pipe is full; the send quantum and the offload budget.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/pacing.rs.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_PACING_H
#define HSCC_BBR3_PACING_H

static __always_inline __u64 send_quantum_bytes(struct sock *sk)
{
	__u64 q = hscc_min(sk->sk_pacing_rate / 1000, SEND_QUANTUM_MAX_BYTES);

	return hscc_max(q, 2 * (__u64)tcp_sk(sk)->mss_cache);
}

static __always_inline __u32 offload_budget(struct sock *sk)
{
	__u64 mss = tcp_sk(sk)->mss_cache;

	return mss ? (__u32)(3 * send_quantum_bytes(sk) / mss) : 0;
}

static __always_inline __u64 pacing_rate_for(struct sock *sk, __u32 bw, __u32 gain)
{
	__u64 rate = (__u64)bw * tcp_sk(sk)->mss_cache * gain / PERCENT;
	__u64 margin = 1000000ULL / PERCENT * (PERCENT - pacing_margin_percent);

	return hscc_min((rate * margin) >> BW_SCALE, (__u64)sk->sk_max_pacing_rate);
}

static __always_inline void init_pacing_rate(struct sock *sk, const struct bbr3 *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rtt_us = tp->srtt_us ? hscc_max(tp->srtt_us >> 3, 1U) : NOMINAL_RTT_US;
	__u32 bw = (__u32)hscc_min((__u64)b->initial_cwnd * BW_UNIT / rtt_us, 0xffffffffULL);
	__u64 rate = (__u64)bw * tp->mss_cache * startup_pacing_gain / PERCENT;

	sk->sk_pacing_rate = hscc_min((rate * 1000000ULL) >> BW_SCALE, (__u64)sk->sk_max_pacing_rate);
}

static __always_inline void set_pacing_rate_with_gain(struct sock *sk, const struct bbr3 *b,
						      __u32 gain)
{
	__u64 rate = pacing_rate_for(sk, b->bw, gain);

	if (b->full_bw_reached || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

#endif
