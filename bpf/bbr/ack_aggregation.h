/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ACK aggregation (Linux bbr_update_ack_aggregation): the windowed max of
 * data ACKed beyond what the estimated rate explains, and the cwnd
 * allowance it buys once the pipe is full.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/ack_aggregation.rs.
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_ACK_AGGREGATION_H
#define HSCC_BBR_ACK_AGGREGATION_H

static __always_inline __u32 bbr_extra_acked(const struct hscc_bbr *bbr)
{
	return hscc_max(bbr->extra_acked[0], bbr->extra_acked[1]);
}

static __always_inline __u32 bbr_ack_aggregation_cwnd(const struct hscc_bbr *bbr)
{
	__u32 max_aggr_cwnd, aggr_cwnd;

	if (!extra_acked_gain || !bbr->full_bw_reached)
		return 0;
	max_aggr_cwnd = (__u32)(((__u64)bbr_bw(bbr) * extra_acked_max_us) / BW_UNIT);
	aggr_cwnd = (extra_acked_gain * bbr_extra_acked(bbr)) >> BBR_SCALE;
	return hscc_min(aggr_cwnd, max_aggr_cwnd);
}

/*
 * extra_acked[extra_acked_win_idx], by constant indices: the verifier refuses
 * a variable offset into the socket.
 */
static __always_inline __u32 extra_acked_cur(const struct hscc_bbr *bbr)
{
	return bbr->extra_acked_win_idx ? bbr->extra_acked[1] : bbr->extra_acked[0];
}

static __always_inline void extra_acked_set(struct hscc_bbr *bbr, __u16 v)
{
	if (bbr->extra_acked_win_idx)
		bbr->extra_acked[1] = v;
	else
		bbr->extra_acked[0] = v;
}

static __always_inline void bbr_update_ack_aggregation(struct sock *sk, struct hscc_bbr *bbr,
						       const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 epoch_us, expected_acked, extra_acked;

	if (!extra_acked_gain || rs->acked_sacked == 0 || rs->delivered < 0 ||
	    rs->interval_us <= 0)
		return;
	if (bbr->round_start) {
		bbr->extra_acked_win_rtts = hscc_min(0x1FU, (__u32)bbr->extra_acked_win_rtts + 1);
		if (bbr->extra_acked_win_rtts >= extra_acked_win_rtts) {
			bbr->extra_acked_win_rtts = 0;
			bbr->extra_acked_win_idx = bbr->extra_acked_win_idx ? 0 : 1;
			extra_acked_set(bbr, 0);
		}
	}
	epoch_us = (__u32)stamp_us_delta(tp->delivered_mstamp, bbr->ack_epoch_mstamp);
	expected_acked = (__u32)(((__u64)bbr_bw(bbr) * epoch_us) / BW_UNIT);
	if (bbr->ack_epoch_acked <= expected_acked ||
	    bbr->ack_epoch_acked + rs->acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH) {
		bbr->ack_epoch_acked = 0;
		bbr->ack_epoch_mstamp = tp->delivered_mstamp;
		expected_acked = 0;
	}
	bbr->ack_epoch_acked = hscc_min(0xFFFFFU, bbr->ack_epoch_acked + rs->acked_sacked);
	extra_acked = bbr->ack_epoch_acked - expected_acked;
	extra_acked = hscc_min(extra_acked, tp->snd_cwnd);
	if (extra_acked > extra_acked_cur(bbr))
		extra_acked_set(bbr, (__u16)extra_acked);
}

#endif
