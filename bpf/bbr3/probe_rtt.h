/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The min-RTT filters and PROBE_RTT (draft-ietf-ccwg-bbr-06 §5.3.4).
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/probe_rtt.rs.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_PROBE_RTT_H
#define HSCC_BBR3_PROBE_RTT_H

static __always_inline void update_min_rtt(struct sock *sk, struct bbr3 *b,
					   const struct rate_sample *rs)
{
	__u64 now = tcp_sk(sk)->tcp_mstamp;
	__u64 interval = (__u64)probe_rtt_interval_sec * 1000000;
	__u64 filter_len = (__u64)min_rtt_filter_len_sec * 1000000;

	b->probe_rtt_expired = now > b->probe_rtt_min_stamp + interval;
	if (rs->rtt_us >= 0 &&
	    ((__u64)rs->rtt_us < (__u64)b->probe_rtt_min_delay || b->probe_rtt_expired)) {
		b->probe_rtt_min_delay = (__u32)hscc_min(rs->rtt_us, (long)INF - 1);
		b->probe_rtt_min_stamp = now;
	}
	if (b->probe_rtt_min_delay < b->min_rtt_us || now > b->min_rtt_stamp + filter_len) {
		b->min_rtt_us = b->probe_rtt_min_delay;
		b->min_rtt_stamp = b->probe_rtt_min_stamp;
	}
}

static __always_inline void exit_probe_rtt(struct sock *sk, struct bbr3 *b)
{
	reset_short_term_model(b);
	if (b->full_bw_reached) {
		start_probe_bw_down(sk, b);
		start_probe_bw_cruise(b);
	} else {
		enter_startup(b);
	}
}

static __always_inline void check_probe_rtt_done(struct sock *sk, struct bbr3 *b)
{
	__u64 now = tcp_sk(sk)->tcp_mstamp;

	if (b->probe_rtt_done_stamp && now > b->probe_rtt_done_stamp) {
		b->probe_rtt_min_stamp = now;
		restore_cwnd(sk, b);
		exit_probe_rtt(sk, b);
	}
}

static __always_inline void handle_probe_rtt(struct sock *sk, struct bbr3 *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 mark = tp->delivered + tcp_packets_in_flight(tp);

	/* Linux's delivered-count mark (bbr3/mod.rs: a flag in hscc). */
	tp->app_limited = mark ? mark : 1;
	if (!b->probe_rtt_done_stamp && tcp_packets_in_flight(tp) <= probe_rtt_cwnd(b)) {
		b->probe_rtt_done_stamp = tp->tcp_mstamp + (__u64)probe_rtt_duration_ms * 1000;
		b->probe_rtt_round_done = 0;
		start_round(sk, b);
	} else if (b->probe_rtt_done_stamp) {
		if (b->round_start)
			b->probe_rtt_round_done = 1;
		if (b->probe_rtt_round_done)
			check_probe_rtt_done(sk, b);
	}
}

static __always_inline void check_probe_rtt(struct sock *sk, struct bbr3 *b,
					    const struct rate_sample *rs)
{
	if (b->state != BBR3_PROBE_RTT && b->probe_rtt_expired && !b->idle_restart) {
		enter_state(b, BBR3_PROBE_RTT, PERCENT, probe_rtt_cwnd_gain);
		save_cwnd(sk, b);
		b->probe_rtt_done_stamp = 0;
		b->ack_phase = BBR3_ACKS_PROBE_STOPPING;
		start_round(sk, b);
	}
	if (b->state == BBR3_PROBE_RTT)
		handle_probe_rtt(sk, b);
	if (rs->delivered > 0)
		b->idle_restart = 0;
}

#endif
