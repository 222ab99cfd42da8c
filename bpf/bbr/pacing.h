/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pacing (Linux bbr_set_pacing_rate and its helpers): the pacing rate from
 * a bandwidth and a gain, less the pacing margin, never lowered before the
 * pipe is full; and the TSO burst size the pacing rate allows.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/pacing.rs.
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_PACING_H
#define HSCC_BBR_PACING_H

static __always_inline __u64 bbr_rate_bytes_per_sec(struct sock *sk, __u64 rate, __u32 gain)
{
	rate *= tcp_sk(sk)->mss_cache;
	rate *= gain;
	rate >>= BBR_SCALE;
	rate *= USEC_PER_SEC / 100 * (100 - pacing_margin_percent);
	return rate >> BW_SCALE;
}

static __always_inline __u64 bbr_bw_to_pacing_rate(struct sock *sk, __u32 bw, __u32 gain)
{
	__u64 rate = bbr_rate_bytes_per_sec(sk, bw, gain);

	return hscc_min(rate, (__u64)sk->sk_max_pacing_rate);
}

static __always_inline void bbr_init_pacing_rate_from_rtt(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 rtt_us;
	__u64 bw;

	if (tp->srtt_us) {
		rtt_us = hscc_max(tp->srtt_us >> 3, 1U);
		bbr->has_seen_rtt = 1;
	} else {
		rtt_us = USEC_PER_MSEC;
	}
	bw = (__u64)tp->snd_cwnd * BW_UNIT / rtt_us;
	sk->sk_pacing_rate = bbr_bw_to_pacing_rate(sk, (__u32)bw, high_gain);
}

static __always_inline void bbr_set_pacing_rate(struct sock *sk, struct hscc_bbr *bbr, __u32 bw,
						__u32 gain)
{
	__u64 rate = bbr_bw_to_pacing_rate(sk, bw, gain);

	if (!bbr->has_seen_rtt && tcp_sk(sk)->srtt_us)
		bbr_init_pacing_rate_from_rtt(sk, bbr);
	if (bbr->full_bw_reached || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

static __always_inline __u32 bbr_min_tso_segs_of(struct sock *sk)
{
	return sk->sk_pacing_rate < (MIN_TSO_RATE >> 3) ? 1 : 2;
}

static __always_inline __u32 bbr_tso_segs_goal(struct sock *sk)
{
	__u32 mss = tcp_sk(sk)->mss_cache;
	__u32 bytes, segs;

	bytes = hscc_min(sk->sk_pacing_rate >> HSCC_SK_PACING_SHIFT,
			 (__u64)(GSO_LEGACY_MAX_SIZE - 1 - HSCC_MAX_TCP_HEADER));
	segs = hscc_max(mss ? bytes / mss : 0, bbr_min_tso_segs_of(sk));
	return hscc_min(segs, 0x7FU);
}

#endif
