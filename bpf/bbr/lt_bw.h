/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Long-term bandwidth sampling (Linux bbr_lt_bw_sampling and its helpers):
 * the detector of token-bucket policers.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/lt_bw.rs.
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_LT_BW_H
#define HSCC_BBR_LT_BW_H

static __always_inline void bbr_reset_lt_bw_sampling_interval(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);

	bbr->lt_last_stamp = (__u32)(tp->delivered_mstamp / USEC_PER_MSEC);
	bbr->lt_last_delivered = tp->delivered;
	bbr->lt_last_lost = tp->lost;
	bbr->lt_rtt_cnt = 0;
}

static __always_inline void bbr_reset_lt_bw_sampling(struct sock *sk, struct hscc_bbr *bbr)
{
	bbr->lt_bw = 0;
	bbr->lt_use_bw = 0;
	bbr->lt_is_sampling = 0;
	bbr_reset_lt_bw_sampling_interval(sk, bbr);
}

static __always_inline void bbr_lt_bw_interval_done(struct sock *sk, struct hscc_bbr *bbr, __u32 bw)
{
	if (bbr->lt_bw) {
		__s32 d = (__s32)(bw - bbr->lt_bw);
		__u32 diff = d < 0 ? -(__u32)d : (__u32)d;

		if (diff * BBR_UNIT <= lt_bw_ratio * bbr->lt_bw ||
		    bbr_rate_bytes_per_sec(sk, diff, BBR_UNIT) <= lt_bw_diff) {
			bbr->lt_bw = (__u32)(((__u64)bw + bbr->lt_bw) >> 1);
			bbr->lt_use_bw = 1;
			bbr->pacing_gain = BBR_UNIT;
			bbr->lt_rtt_cnt = 0;
			return;
		}
	}
	bbr->lt_bw = bw;
	bbr_reset_lt_bw_sampling_interval(sk, bbr);
}

static __always_inline void bbr_lt_bw_sampling(struct sock *sk, struct hscc_bbr *bbr,
					       __u32 losses, bool is_app_limited)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 lost, delivered, t;
	__u64 bw;

	if (bbr->lt_use_bw) {
		if (bbr->mode == BBR_PROBE_BW && bbr->round_start) {
			bbr->lt_rtt_cnt = (bbr->lt_rtt_cnt + 1) & 0x7f;
			if (bbr->lt_rtt_cnt >= lt_bw_max_rtts) {
				bbr_reset_lt_bw_sampling(sk, bbr);
				bbr_reset_probe_bw_mode(sk, bbr);
			}
		}
		return;
	}
	if (!bbr->lt_is_sampling) {
		if (!losses)
			return;
		bbr_reset_lt_bw_sampling_interval(sk, bbr);
		bbr->lt_is_sampling = 1;
	}
	if (is_app_limited) {
		bbr_reset_lt_bw_sampling(sk, bbr);
		return;
	}
	if (bbr->round_start)
		bbr->lt_rtt_cnt = (bbr->lt_rtt_cnt + 1) & 0x7f;
	if (bbr->lt_rtt_cnt < lt_intvl_min_rtts)
		return;
	if (bbr->lt_rtt_cnt > 4 * lt_intvl_min_rtts) {
		bbr_reset_lt_bw_sampling(sk, bbr);
		return;
	}
	if (!losses)
		return;
	lost = tp->lost - bbr->lt_last_lost;
	delivered = tp->delivered - bbr->lt_last_delivered;
	if (!delivered || (lost << BBR_SCALE) < lt_loss_thresh * delivered)
		return;
	t = (__u32)(tp->delivered_mstamp / USEC_PER_MSEC) - bbr->lt_last_stamp;
	if ((__s32)t < 1)
		return;
	if (t >= ~0U / USEC_PER_MSEC) {
		bbr_reset_lt_bw_sampling(sk, bbr);
		return;
	}
	t *= USEC_PER_MSEC;
	bw = (__u64)delivered * BW_UNIT / t;
	bbr_lt_bw_interval_done(sk, bbr, (__u32)bw);
}

#endif
