/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * STARTUP and DRAIN (draft-ietf-ccwg-bbr-06 §5.3.1–5.3.2): the full-pipe
 * test, then DRAIN until the flight is one BDP or its rounds are up.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/startup.rs.
 * enter_drain is inline in bbr3_main.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_STARTUP_H
#define HSCC_BBR3_STARTUP_H

static __always_inline void reset_full_bw(struct bbr3 *b)
{
	b->full_bw = 0;
	b->full_bw_count = 0;
	b->full_bw_now = 0;
}

static __always_inline void enter_startup(struct bbr3 *b)
{
	enter_state(b, BBR3_STARTUP, startup_pacing_gain, default_cwnd_gain);
}

static __always_inline void check_full_bw_reached(struct bbr3 *b, const struct rate_sample *rs,
						  const struct bbr3_sample *s)
{
	if (b->full_bw_now || !b->round_start || rs->is_app_limited)
		return;
	if ((__u64)s->delivery_rate * PERCENT >= (__u64)b->full_bw * full_bw_thresh) {
		reset_full_bw(b);
		b->full_bw = s->delivery_rate;
		return;
	}
	b->full_bw_count = sat_add32(b->full_bw_count, 1);
	b->full_bw_now = b->full_bw_count >= full_bw_cnt;
	if (b->full_bw_now)
		b->full_bw_reached = 1;
}

static __always_inline void check_drain_done(struct sock *sk, struct bbr3 *b)
{
	if (b->state == BBR3_DRAIN &&
	    (tcp_packets_in_flight(tcp_sk(sk)) <= inflight_for(sk, b, b->bw, PERCENT) ||
	     b->round_count > b->drain_start_round + drain_max_rounds))
		enter_probe_bw(sk, b);
}

#endif
