/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The PROBE_BW cycle (draft-ietf-ccwg-bbr-06 §5.3.3): DOWN → CRUISE →
 * REFILL → UP → DOWN, and the long-term model it adapts (§5.3.3.9).
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/probe_bw.rs.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_PROBE_BW_H
#define HSCC_BBR3_PROBE_BW_H

static __always_inline void pick_probe_wait(struct bbr3 *b)
{
	b->rounds_since_probe_up = draw_below(2);
	b->bw_probe_wait_us =
		(__u64)bw_probe_wait_base_ms * 1000 + draw_below(bw_probe_wait_rand_ms * 1000);
}

static __always_inline void start_probe_bw_down(struct sock *sk, struct bbr3 *b)
{
	reset_congestion_signals(b);
	b->probe_up_acked_per_inc = INF;
	pick_probe_wait(b);
	b->cycle_stamp = tcp_sk(sk)->tcp_mstamp;
	b->ack_phase = BBR3_ACKS_PROBE_STOPPING;
	start_round(sk, b);
	enter_state(b, BBR3_PROBE_BW_DOWN, probe_down_pacing_gain, default_cwnd_gain);
}

static __always_inline void start_probe_bw_cruise(struct bbr3 *b)
{
	enter_state(b, BBR3_PROBE_BW_CRUISE, PERCENT, default_cwnd_gain);
}

static __always_inline void start_probe_bw_refill(struct sock *sk, struct bbr3 *b)
{
	reset_short_term_model(b);
	b->bw_probe_up_rounds = 0;
	b->bw_probe_up_acked = 0;
	b->prev_probe_precautionary = 0;
	b->ack_phase = BBR3_ACKS_REFILLING;
	start_round(sk, b);
	enter_state(b, BBR3_PROBE_BW_REFILL, PERCENT, default_cwnd_gain);
}

static __always_inline void raise_inflight_longterm_slope(struct sock *sk, struct bbr3 *b)
{
	__u32 growth_this_round = 1U << b->bw_probe_up_rounds;

	b->bw_probe_up_rounds = hscc_min(b->bw_probe_up_rounds + 1, 30U);
	b->probe_up_acked_per_inc = hscc_max(tcp_sk(sk)->snd_cwnd / growth_this_round, 1U);
}

static __always_inline void start_probe_bw_up(struct sock *sk, struct bbr3 *b,
					       const struct bbr3_sample *s)
{
	b->ack_phase = BBR3_ACKS_PROBE_STARTING;
	start_round(sk, b);
	reset_full_bw(b);
	b->full_bw = s->delivery_rate;
	enter_state(b, BBR3_PROBE_BW_UP, probe_up_pacing_gain, probe_up_cwnd_gain);
	raise_inflight_longterm_slope(sk, b);
}

static __always_inline void enter_probe_bw(struct sock *sk, struct bbr3 *b)
{
	b->cwnd_gain = default_cwnd_gain;
	start_probe_bw_down(sk, b);
}

static __always_inline bool is_probing_bw(const struct bbr3 *b)
{
	return b->state == BBR3_STARTUP || b->state == BBR3_PROBE_BW_REFILL || b->state == BBR3_PROBE_BW_UP;
}

static __always_inline __u32 inflight_with_headroom(const struct bbr3 *b)
{
	__u32 room;

	if (b->inflight_longterm == INF)
		return INF;
	room = hscc_max(pct(b->inflight_longterm, headroom), 1U);
	return hscc_max(sat_sub32(b->inflight_longterm, room), min_pipe_cwnd);
}

static __always_inline bool is_time_to_probe_bw(struct sock *sk, struct bbr3 *b)
{
	__u32 rounds = hscc_min(target_inflight(sk, b), reno_rounds_max);

	if (tcp_sk(sk)->tcp_mstamp > b->cycle_stamp + b->bw_probe_wait_us ||
	    b->rounds_since_probe_up >= rounds) {
		start_probe_bw_refill(sk, b);
		return true;
	}
	return false;
}

static __always_inline bool is_time_to_cruise(struct sock *sk, const struct bbr3 *b)
{
	__u32 inflight = tcp_packets_in_flight(tcp_sk(sk));

	return inflight <= inflight_with_headroom(b) &&
	       inflight <= inflight_for(sk, b, max_bw(b), PERCENT);
}

static __always_inline bool is_time_to_go_down(struct sock *sk, struct bbr3 *b,
					       const struct bbr3_sample *s)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (b->prev_probe_too_high && tcp_packets_in_flight(tp) >= b->inflight_longterm) {
		b->prev_probe_precautionary = 1;
		return true;
	}
	if (HSCC_BITFIELD(tp, is_cwnd_limited) && tp->snd_cwnd >= b->inflight_longterm) {
		reset_full_bw(b);
		b->full_bw = s->delivery_rate;
	} else if (b->full_bw_now) {
		return true;
	}
	return false;
}

static __always_inline void probe_inflight_longterm_upward(struct sock *sk, struct bbr3 *b,
							   const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 delta;

	if (!HSCC_BITFIELD(tp, is_cwnd_limited) || tp->snd_cwnd < b->inflight_longterm)
		return;
	b->bw_probe_up_acked = sat_add32(b->bw_probe_up_acked, rs->acked_sacked);
	if (b->bw_probe_up_acked >= b->probe_up_acked_per_inc) {
		delta = b->bw_probe_up_acked / b->probe_up_acked_per_inc;
		b->bw_probe_up_acked -= delta * b->probe_up_acked_per_inc;
		b->inflight_longterm = hscc_min(sat_add32(b->inflight_longterm, delta), INF - 1);
	}
	if (b->round_start)
		raise_inflight_longterm_slope(sk, b);
}

static __always_inline bool adapt_long_term_model(struct sock *sk, struct bbr3 *b,
						  const struct rate_sample *rs,
						  const struct bbr3_sample *s)
{
	if (b->ack_phase == BBR3_ACKS_PROBE_STARTING && b->round_start)
		b->ack_phase = BBR3_ACKS_PROBE_FEEDBACK;
	if (b->ack_phase == BBR3_ACKS_PROBE_STOPPING && b->round_start) {
		b->is_bw_probe_sample = 0;
		b->ack_phase = BBR3_ACKS_INIT;
		if (is_probe_bw(b->state) && !rs->is_app_limited)
			max_bw_advance(b);
		if (is_probe_bw(b->state) && b->prev_probe_precautionary && !b->prev_probe_too_high) {
			start_probe_bw_refill(sk, b);
			return true;
		}
	}
	if (!is_inflight_too_high(s)) {
		if (b->inflight_longterm == INF)
			return false;
		if (s->tx_in_flight > b->inflight_longterm)
			b->inflight_longterm = s->tx_in_flight;
		if (b->state == BBR3_PROBE_BW_UP)
			probe_inflight_longterm_upward(sk, b, rs);
	}
	return false;
}

static __always_inline void update_probe_bw_cycle_phase(struct sock *sk, struct bbr3 *b,
							const struct rate_sample *rs,
							const struct bbr3_sample *s)
{
	__u8 state;

	if (!b->full_bw_reached || rs->acked_sacked == 0)
		return;
	if (adapt_long_term_model(sk, b, rs, s))
		return;
	state = b->state;
	if (state == BBR3_PROBE_BW_DOWN) {
		if (is_time_to_probe_bw(sk, b))
			return;
		if (is_time_to_cruise(sk, b))
			start_probe_bw_cruise(b);
	} else if (state == BBR3_PROBE_BW_CRUISE) {
		is_time_to_probe_bw(sk, b);
	} else if (state == BBR3_PROBE_BW_REFILL && b->round_start) {
		b->is_bw_probe_sample = 1;
		start_probe_bw_up(sk, b, s);
	}
	if (state == BBR3_PROBE_BW_UP && is_time_to_go_down(sk, b, s)) {
		b->prev_probe_too_high = 0;
		start_probe_bw_down(sk, b);
	}
}

#endif
