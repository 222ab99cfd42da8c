/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The bandwidth estimate (Linux bbr_update_bw): packet-timed rounds and
 * the windowed max of delivery-rate samples; the long-term rate replaces it
 * while a policer is estimated (lt_bw.h).
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/bandwidth.rs.
 * The windowed max filter is win_minmax.h (minmax.rs).
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_BANDWIDTH_H
#define HSCC_BBR_BANDWIDTH_H

static __always_inline __u32 bbr_max_bw(const struct hscc_bbr *bbr)
{
	return bbr->bw.s[0].v;
}

static __always_inline __u32 bbr_bw(const struct hscc_bbr *bbr)
{
	return bbr->lt_use_bw ? bbr->lt_bw : bbr_max_bw(bbr);
}

static __always_inline void bbr_update_bw(struct sock *sk, struct hscc_bbr *bbr,
					  const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 bw;

	bbr->round_start = 0;
	if (rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (!before(rs->prior_delivered, bbr->next_rtt_delivered)) {
		bbr->next_rtt_delivered = tp->delivered;
		bbr->rtt_cnt++;
		bbr->round_start = 1;
		bbr->packet_conservation = 0;
	}
	bbr_lt_bw_sampling(sk, bbr, (__u32)rs->losses, rs->is_app_limited);
	bw = (__u64)rs->delivered * BW_UNIT / (__u64)rs->interval_us;
	if (!rs->is_app_limited || bw >= bbr_max_bw(bbr))
		minmax_running_max(&bbr->bw, bw_rtts, bbr->rtt_cnt, (__u32)bw);
}

#endif
