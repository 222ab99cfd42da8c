/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The min-RTT filter and PROBE_RTT (Linux bbr_update_min_rtt).
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/probe_rtt.rs.
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_PROBE_RTT_H
#define HSCC_BBR_PROBE_RTT_H

static __always_inline void bbr_check_probe_rtt_done(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!(bbr->probe_rtt_done_stamp && after(tcp_jiffies32(tp), bbr->probe_rtt_done_stamp)))
		return;
	bbr->min_rtt_stamp = tcp_jiffies32(tp);
	tp->snd_cwnd = hscc_max(tp->snd_cwnd, bbr->prior_cwnd);
	bbr_reset_mode(sk, bbr);
}

/* Linux msecs_to_jiffies at HSCC_HZ. */
static __always_inline __u32 msecs_to_jiffies(__u32 ms)
{
	return (__u32)(((__u64)ms * HSCC_HZ + 999) / 1000);
}

static __always_inline void bbr_update_min_rtt(struct sock *sk, struct hscc_bbr *bbr,
					       const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 now = tcp_jiffies32(tp);
	bool filter_expired = after(now, bbr->min_rtt_stamp + min_rtt_win_sec * HSCC_HZ);

	if (rs->rtt_us >= 0 &&
	    (rs->rtt_us <= (__s64)bbr->min_rtt_us || (filter_expired && !rs->is_ack_delayed))) {
		bbr->min_rtt_us = (__u32)rs->rtt_us;
		bbr->min_rtt_stamp = now;
	}
	if (probe_rtt_mode_ms > 0 && filter_expired && !bbr->idle_restart &&
	    bbr->mode != BBR_PROBE_RTT) {
		bbr->mode = BBR_PROBE_RTT;
		bbr_save_cwnd(sk, bbr);
		bbr->probe_rtt_done_stamp = 0;
	}
	if (bbr->mode == BBR_PROBE_RTT) {
		__u32 mark = tp->delivered + tcp_packets_in_flight(tp);

		/* Linux's delivered-count mark (bbr/mod.rs: a flag in hscc). */
		tp->app_limited = mark ? mark : 1;
		if (!bbr->probe_rtt_done_stamp && tcp_packets_in_flight(tp) <= cwnd_min_target) {
			bbr->probe_rtt_done_stamp = now + msecs_to_jiffies(probe_rtt_mode_ms);
			bbr->probe_rtt_round_done = 0;
			bbr->next_rtt_delivered = tp->delivered;
		} else if (bbr->probe_rtt_done_stamp) {
			if (bbr->round_start)
				bbr->probe_rtt_round_done = 1;
			if (bbr->probe_rtt_round_done)
				bbr_check_probe_rtt_done(sk, bbr);
		}
	}
	if (rs->delivered > 0)
		bbr->idle_restart = 0;
}

#endif
