/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Responding to loss (draft-ietf-ccwg-bbr-06 §5.3.1.3, §5.5.10, §5.5.11):
 * the loss-rate test, the long-term bound a probe that went too high
 * leaves, the short-term bounds, STARTUP's exit on high loss, the undo of a
 * spurious recovery, and the estimate of RS.tx_in_flight and RS.lost for a
 * rate_sample without them (a mainline kernel's).
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/congestion.rs.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_CONGESTION_H
#define HSCC_BBR3_CONGESTION_H

static __always_inline void reset_congestion_signals(struct bbr3 *b)
{
	b->is_loss_in_round = 0;
	b->bw_latest = 0;
	b->inflight_latest = 0;
}

static __always_inline void reset_short_term_model(struct bbr3 *b)
{
	b->bw_shortterm = INF;
	b->inflight_shortterm = INF;
}

static __always_inline __u32 lost_at(const struct bbr3 *b, __u32 d)
{
	__u32 d0 = b->lost_mark_delivered[0], d1 = b->lost_mark_delivered[1];
	__u32 l0 = b->lost_mark_lost[0], l1 = b->lost_mark_lost[1];
	__u64 span, into;

	if (!before(d, d1))
		return l1;
	if (before(d, d0) || d1 == d0)
		return l0;
	span = d1 - d0;
	into = d - d0;
	return l0 + (__u32)((__u64)(l1 - l0) * into / span);
}

static __always_inline void estimate_tx_in_flight_and_lost(struct sock *sk, struct bbr3 *b,
							   const struct rate_sample *rs,
							   struct bbr3_sample *s)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 lost;

	if (rs->delivered <= 0) {
		s->tx_in_flight = 0;
		s->lost = 0;
		return;
	}
	lost = tp->lost - lost_at(b, rs->prior_delivered);
	if (!before(rs->prior_delivered, b->lost_mark_next)) {
		b->lost_mark_delivered[0] = b->lost_mark_delivered[1];
		b->lost_mark_lost[0] = b->lost_mark_lost[1];
		b->lost_mark_delivered[1] = tp->delivered;
		b->lost_mark_lost[1] = tp->lost;
		b->lost_mark_next = tp->delivered;
	}
	s->tx_in_flight = sat_add32((__u32)rs->delivered, lost);
	s->lost = lost;
}

static __always_inline bool is_inflight_too_high(const struct bbr3_sample *s)
{
	return (__u64)s->lost * PERCENT > (__u64)s->tx_in_flight * loss_thresh;
}

/* a / d truncated toward zero, as Rust's i64 division: BPF has no signed division. */
static __always_inline __s64 sdiv_trunc(__s64 a, __u64 d)
{
	return a < 0 ? -(__s64)((__u64)(-a) / d) : (__s64)((__u64)a / d);
}

static __always_inline __u32 inflight_at_loss(const struct bbr3_sample *s, __u32 size)
{
	__s64 thresh = loss_thresh, sz = hscc_min(size, s->lost);
	__s64 inflight_prev = (__s64)s->tx_in_flight - sz;
	__s64 lost_prev = (__s64)s->lost - sz;
	__s64 lost_prefix = sdiv_trunc(thresh * inflight_prev - PERCENT * lost_prev, PERCENT - thresh);
	__s64 at_loss = inflight_prev + lost_prefix;

	if (at_loss < 0)
		return 0;
	return (__u32)hscc_min(at_loss, (__s64)INF - 1);
}

static __always_inline __u32 target_inflight(struct sock *sk, const struct bbr3 *b)
{
	return hscc_min(bdp_multiple(b, b->bw, PERCENT), tcp_sk(sk)->snd_cwnd);
}

static __always_inline void save_state_upon_loss(struct sock *sk, struct bbr3 *b)
{
	save_cwnd(sk, b);
	b->undo_state = BBR3_UNDO_NONE;
	b->undo_bw_shortterm = b->bw_shortterm;
	b->undo_inflight_shortterm = b->inflight_shortterm;
	b->undo_inflight_longterm = b->inflight_longterm;
}

static __always_inline void note_loss(struct sock *sk, struct bbr3 *b)
{
	if (!b->is_loss_in_round) {
		b->loss_round_delivered = tcp_sk(sk)->delivered;
		save_state_upon_loss(sk, b);
	}
	b->is_loss_in_round = 1;
}

static __always_inline void handle_inflight_too_high(struct sock *sk, struct bbr3 *b,
						     bool is_app_limited, __u32 tx_in_flight)
{
	b->prev_probe_too_high = 1;
	b->is_bw_probe_sample = 0;
	if (!is_app_limited)
		b->inflight_longterm = hscc_max(tx_in_flight, pct(target_inflight(sk, b), beta));
	if (b->state == BBR3_PROBE_BW_UP) {
		b->undo_state = BBR3_PROBE_BW_UP;
		start_probe_bw_down(sk, b);
	}
}

/* congestion.rs handle_lost_packet: a lost packet P of `size` packets with sample s. */
static __always_inline void handle_lost_packet(struct sock *sk, struct bbr3 *b,
					       const struct bbr3_sample *s, __u32 size,
					       bool is_app_limited)
{
	note_loss(sk, b);
	if (!b->is_bw_probe_sample)
		return;
	if (is_inflight_too_high(s))
		handle_inflight_too_high(sk, b, is_app_limited, inflight_at_loss(s, size));
}

static __always_inline void handle_spurious_loss_detection(struct sock *sk, struct bbr3 *b)
{
	restore_cwnd(sk, b);
	b->is_loss_in_round = 0;
	reset_full_bw(b);
	b->bw_shortterm = hscc_max(b->bw_shortterm, b->undo_bw_shortterm);
	b->inflight_shortterm = hscc_max(b->inflight_shortterm, b->undo_inflight_shortterm);
	b->inflight_longterm = hscc_max(b->inflight_longterm, b->undo_inflight_longterm);
	if (b->undo_state == BBR3_STARTUP && b->state != BBR3_STARTUP) {
		b->full_bw_reached = 0;
		if (b->state != BBR3_PROBE_RTT)
			enter_startup(b);
	} else if (b->undo_state == BBR3_PROBE_BW_UP && b->state != BBR3_PROBE_BW_UP &&
		   b->state != BBR3_PROBE_RTT) {
		start_probe_bw_refill(sk, b);
	}
	b->undo_state = BBR3_UNDO_NONE;
}

static __always_inline void check_startup_high_loss(struct sock *sk, struct bbr3 *b,
						    const struct bbr3_sample *s)
{
	if (!b->loss_round_start)
		return;
	if (b->state == BBR3_STARTUP && !b->full_bw_reached && hscc_ca_state(sk) == TCP_CA_Recovery &&
	    b->loss_events_in_round >= startup_full_loss_cnt && is_inflight_too_high(s)) {
		b->undo_state = BBR3_STARTUP;
		b->full_bw_now = 1;
		b->full_bw_reached = 1;
		b->inflight_longterm = hscc_max(bdp_multiple(b, b->bw, PERCENT), b->inflight_latest);
	}
	b->loss_events_in_round = 0;
}

static __always_inline void update_latest_delivery_signals(struct sock *sk, struct bbr3 *b,
							   const struct rate_sample *rs,
							   const struct bbr3_sample *s)
{
	b->loss_round_start = 0;
	b->bw_latest = hscc_max(b->bw_latest, s->delivery_rate);
	b->inflight_latest = hscc_max(b->inflight_latest, s->delivered);
	if (rs->delivered > 0 && !before(rs->prior_delivered, b->loss_round_delivered)) {
		b->loss_round_delivered = tcp_sk(sk)->delivered;
		b->loss_round_start = 1;
	}
}

static __always_inline void advance_latest_delivery_signals(struct bbr3 *b,
							    const struct bbr3_sample *s)
{
	if (b->loss_round_start) {
		b->bw_latest = s->delivery_rate;
		b->inflight_latest = s->delivered;
	}
}

static __always_inline void adapt_lower_bounds_from_congestion(struct sock *sk, struct bbr3 *b)
{
	if (is_probing_bw(b) || !b->is_loss_in_round)
		return;
	if (b->bw_shortterm == INF)
		b->bw_shortterm = max_bw(b);
	if (b->inflight_shortterm == INF)
		b->inflight_shortterm = tcp_sk(sk)->snd_cwnd;
	b->bw_shortterm = hscc_max(b->bw_latest, pct(b->bw_shortterm, beta));
	b->inflight_shortterm = hscc_max(b->inflight_latest, pct(b->inflight_shortterm, beta));
}

static __always_inline void update_congestion_signals(struct sock *sk, struct bbr3 *b,
						      const struct rate_sample *rs,
						      const struct bbr3_sample *s)
{
	/* UpdateMaxBw */
	update_round(sk, b, rs);
	if (s->delivery_rate > 0 && (s->delivery_rate >= max_bw(b) || !rs->is_app_limited))
		max_bw_update(b, b->cycle_count, s->delivery_rate);
	if (!b->loss_round_start)
		return;
	adapt_lower_bounds_from_congestion(sk, b);
	b->is_loss_in_round = 0;
}

#endif
