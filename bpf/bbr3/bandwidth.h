/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packet-timed rounds (draft-ietf-ccwg-bbr-06 §5.5.1).
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/bandwidth.rs.
 * UpdateMaxBw is inline in congestion.h's update_congestion_signals.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_BANDWIDTH_H
#define HSCC_BBR3_BANDWIDTH_H

static __always_inline void start_round(struct sock *sk, struct bbr3 *b)
{
	b->next_round_delivered = tcp_sk(sk)->delivered;
}

static __always_inline void update_round(struct sock *sk, struct bbr3 *b,
					 const struct rate_sample *rs)
{
	if (rs->delivered > 0 && !before(rs->prior_delivered, b->next_round_delivered)) {
		start_round(sk, b);
		b->round_count++;
		b->rounds_since_probe_up = sat_add32(b->rounds_since_probe_up, 1);
		b->round_start = 1;
	} else {
		b->round_start = 0;
	}
}

#endif
