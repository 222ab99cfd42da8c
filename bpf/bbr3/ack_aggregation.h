/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ACK aggregation (draft-ietf-ccwg-bbr-06 §5.5.9): BBR.extra_acked, the
 * windowed max of data ACKed beyond what BBR.bw explains.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/ack_aggregation.rs.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_ACK_AGGREGATION_H
#define HSCC_BBR3_ACK_AGGREGATION_H

static __always_inline void update_ack_aggregation(struct sock *sk, struct bbr3 *b,
						   const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 interval = sat_sub64(tp->tcp_mstamp, b->extra_acked_interval_start);
	__u32 expected = (__u32)hscc_min(sat_mul64(b->bw, interval) >> BW_SCALE, (__u64)INF);
	__u32 extra;

	if (b->extra_acked_delivered <= expected) {
		b->extra_acked_delivered = 0;
		b->extra_acked_interval_start = tp->tcp_mstamp;
		expected = 0;
	}
	b->extra_acked_delivered = sat_add32(b->extra_acked_delivered, rs->acked_sacked);
	extra = hscc_min(b->extra_acked_delivered - expected, tp->snd_cwnd);
	minmax_running_max(&b->extra_acked, b->full_bw_reached ? extra_acked_filter_len : 1,
			   b->round_count, extra);
}

#endif
