/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * BBRv3 as draft-ietf-ccwg-bbr-06 specifies it: hscc-cc
 * crates/hscc-cc/src/algos/bbr3/, function for function, in the same units
 * (packets, bandwidth in packets/µs << 24, gains in percent). The Rust
 * module's documentation gives the model, the draft sections of every
 * constant, and where hscc's hooks differ from the draft's events (the
 * estimate of RS.tx_in_flight and RS.lost, which the kernel's rate_sample
 * does not carry either; the per-loss step at the next ACK).
 *
 * It owns cwnd and pacing through cong_control, as bbr.bpf.c. Its state
 * (about 230 bytes) is larger than icsk_ca_priv, so it lives in a
 * socket-local storage map, as Sync-TCP's; a socket whose value could not
 * be allocated keeps its cwnd and pacing rate.
 */
#include "hscc.h"
#include "win_minmax.h"

#define BW_SCALE 24
#define BW_UNIT (1ULL << BW_SCALE)
#define PERCENT 100
#define INF 0xffffffffU
#define SEND_QUANTUM_MAX_BYTES (64ULL * 1024)
#define NOMINAL_RTT_US 1000ULL

/* bbr3/mod.rs State; BBR3_UNDO_NONE is Option::None of undo_state. */
enum bbr3_state {
	BBR3_STARTUP,
	BBR3_DRAIN,
	BBR3_PROBE_BW_DOWN,
	BBR3_PROBE_BW_CRUISE,
	BBR3_PROBE_BW_REFILL,
	BBR3_PROBE_BW_UP,
	BBR3_PROBE_RTT,
	BBR3_UNDO_NONE,
};

/* bbr3/mod.rs AckPhase. */
enum bbr3_ack_phase {
	BBR3_ACKS_INIT,
	BBR3_ACKS_REFILLING,
	BBR3_ACKS_PROBE_STARTING,
	BBR3_ACKS_PROBE_FEEDBACK,
	BBR3_ACKS_PROBE_STOPPING,
};

/* Bbr3::bpf_globals: Bbr3Params. */
#define BBR3_GLOBALS(X)                 \
	X(__u32, startup_pacing_gain)   \
	X(__u32, default_cwnd_gain)     \
	X(__u32, drain_pacing_gain)     \
	X(__u32, probe_down_pacing_gain) \
	X(__u32, probe_up_pacing_gain)  \
	X(__u32, probe_up_cwnd_gain)    \
	X(__u32, probe_rtt_cwnd_gain)   \
	X(__u32, pacing_margin_percent) \
	X(__u32, loss_thresh)           \
	X(__u32, beta)                  \
	X(__u32, headroom)              \
	X(__u32, min_pipe_cwnd)         \
	X(__u32, full_bw_thresh)        \
	X(__u32, full_bw_cnt)           \
	X(__u32, startup_full_loss_cnt) \
	X(__u32, drain_max_rounds)      \
	X(__u32, extra_acked_filter_len) \
	X(__u32, min_rtt_filter_len_sec) \
	X(__u32, probe_rtt_interval_sec) \
	X(__u32, probe_rtt_duration_ms) \
	X(__u32, bw_probe_wait_base_ms) \
	X(__u32, bw_probe_wait_rand_ms) \
	X(__u32, reno_rounds_max)
HSCC_GLOBALS(bbr3, BBR3_GLOBALS)

/* bbr3/mod.rs Sample: what the draft's RS carries beyond the rate_sample. */
struct bbr3_sample {
	__u32 delivery_rate;
	__u32 delivered;
	__u32 tx_in_flight;
	__u32 lost;
};

/* bbr3/mod.rs Bbr3, field for field. */
struct bbr3 {
	__u64 min_rtt_stamp;
	__u64 probe_rtt_min_stamp;
	__u64 probe_rtt_done_stamp;
	__u64 extra_acked_interval_start;
	__u64 bw_probe_wait_us;
	__u64 cycle_stamp;
	struct minmax extra_acked;
	__u32 round_count;
	__u32 next_round_delivered;
	__u32 drain_start_round;
	__u32 cycle_count;
	__u32 max_bw_slots[2];
	__u32 bw;
	__u32 bw_shortterm;
	__u32 min_rtt_us;
	__u32 probe_rtt_min_delay;
	__u32 prior_cwnd;
	__u32 extra_acked_delivered;
	__u32 max_inflight;
	__u32 inflight_longterm;
	__u32 inflight_shortterm;
	__u32 bw_latest;
	__u32 inflight_latest;
	__u32 loss_round_delivered;
	__u32 loss_events_in_round;
	__u32 full_bw;
	__u32 full_bw_count;
	__u32 bw_probe_up_acked;
	__u32 probe_up_acked_per_inc;
	__u32 bw_probe_up_rounds;
	__u32 rounds_since_probe_up;
	__u32 undo_bw_shortterm;
	__u32 undo_inflight_shortterm;
	__u32 undo_inflight_longterm;
	__u32 lost_mark_delivered[2];
	__u32 lost_mark_lost[2];
	__u32 lost_mark_next;
	__u32 initial_cwnd;
	__u32 lost_seen;
	__u32 pacing_gain;
	__u32 cwnd_gain;
	__u8 state;
	__u8 ack_phase;
	__u8 undo_state;
	__u8 prev_ca_state;
	__u8 round_start;
	__u8 idle_restart;
	__u8 probe_rtt_expired;
	__u8 probe_rtt_round_done;
	__u8 loss_round_start;
	__u8 is_loss_in_round;
	__u8 full_bw_reached;
	__u8 full_bw_now;
	__u8 is_bw_probe_sample;
	__u8 prev_probe_too_high;
	__u8 prev_probe_precautionary;
};

HSCC_SK_STORAGE(struct bbr3, bbr3_storage)

static __always_inline struct bbr3 *bbr3_of(struct sock *sk)
{
	return bpf_sk_storage_get(&bbr3_storage, sk, 0, 0);
}

static __always_inline __u32 pct(__u32 x, __u32 p)
{
	return (__u32)hscc_min((__u64)x * p / PERCENT, (__u64)INF - 1);
}

static __always_inline bool is_probe_bw(__u8 state)
{
	return state == BBR3_PROBE_BW_DOWN || state == BBR3_PROBE_BW_CRUISE || state == BBR3_PROBE_BW_REFILL ||
	       state == BBR3_PROBE_BW_UP;
}

static __always_inline bool in_loss_recovery(__u8 ca_state)
{
	return ca_state >= TCP_CA_Recovery;
}

/* A uniform draw in 0..n by reciprocal scaling of a 32-bit draw. */
static __always_inline __u32 draw_below(__u32 n)
{
	return (__u32)(((__u64)bpf_get_prandom_u32() * n) >> 32);
}

/* filters.rs MaxBwFilter (constant indices: the verifier's taste). */
static __always_inline __u32 max_bw(const struct bbr3 *b)
{
	return hscc_max(b->max_bw_slots[0], b->max_bw_slots[1]);
}

static __always_inline void max_bw_update(struct bbr3 *b, __u32 cycle, __u32 sample)
{
	if (cycle & 1)
		b->max_bw_slots[1] = hscc_max(b->max_bw_slots[1], sample);
	else
		b->max_bw_slots[0] = hscc_max(b->max_bw_slots[0], sample);
}

static __always_inline void max_bw_advance(struct bbr3 *b)
{
	b->cycle_count++;
	if (b->cycle_count & 1)
		b->max_bw_slots[1] = 0;
	else
		b->max_bw_slots[0] = 0;
}

static __always_inline __u32 bdp_multiple(const struct bbr3 *b, __u32 bw, __u32 gain)
{
	__u64 w, d = BW_UNIT * PERCENT;

	if (b->min_rtt_us == INF)
		return b->initial_cwnd;
	w = sat_mul64((__u64)bw * b->min_rtt_us, gain);
	w = w / d + (w % d != 0);
	return (__u32)hscc_min(w, (__u64)INF - 1);
}

static __always_inline __u64 send_quantum_bytes(struct sock *sk)
{
	__u64 q = hscc_min(sk->sk_pacing_rate / 1000, SEND_QUANTUM_MAX_BYTES);

	return hscc_max(q, 2 * (__u64)tcp_sk(sk)->mss_cache);
}

static __always_inline __u32 offload_budget(struct sock *sk)
{
	__u64 mss = tcp_sk(sk)->mss_cache;

	return mss ? (__u32)(3 * send_quantum_bytes(sk) / mss) : 0;
}

static __always_inline __u32 quantization_budget(struct sock *sk, const struct bbr3 *b, __u32 cap)
{
	cap = hscc_max(cap, offload_budget(sk));
	cap = hscc_max(cap, min_pipe_cwnd);
	if (b->state == BBR3_PROBE_BW_UP)
		cap = sat_add32(cap, 2);
	return cap;
}

static __always_inline __u32 inflight_for(struct sock *sk, const struct bbr3 *b, __u32 bw,
					  __u32 gain)
{
	return quantization_budget(sk, b, bdp_multiple(b, bw, gain));
}

static __always_inline __u64 pacing_rate_for(struct sock *sk, __u32 bw, __u32 gain)
{
	__u64 rate = (__u64)bw * tcp_sk(sk)->mss_cache * gain / PERCENT;
	__u64 margin = 1000000ULL / PERCENT * (PERCENT - pacing_margin_percent);

	return hscc_min((rate * margin) >> BW_SCALE, (__u64)sk->sk_max_pacing_rate);
}

static __always_inline void init_pacing_rate(struct sock *sk, const struct bbr3 *b)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rtt_us = tp->srtt_us ? hscc_max(tp->srtt_us >> 3, 1U) : NOMINAL_RTT_US;
	__u32 bw = (__u32)hscc_min((__u64)b->initial_cwnd * BW_UNIT / rtt_us, 0xffffffffULL);
	__u64 rate = (__u64)bw * tp->mss_cache * startup_pacing_gain / PERCENT;

	sk->sk_pacing_rate = hscc_min((rate * 1000000ULL) >> BW_SCALE, (__u64)sk->sk_max_pacing_rate);
}

static __always_inline void set_pacing_rate_with_gain(struct sock *sk, const struct bbr3 *b,
						      __u32 gain)
{
	__u64 rate = pacing_rate_for(sk, b->bw, gain);

	if (b->full_bw_reached || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

static __always_inline void start_round(struct sock *sk, struct bbr3 *b)
{
	b->next_round_delivered = tcp_sk(sk)->delivered;
}

static __always_inline void reset_full_bw(struct bbr3 *b)
{
	b->full_bw = 0;
	b->full_bw_count = 0;
	b->full_bw_now = 0;
}

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

/* A state of the machine and the two gains it runs with, set together. */
static __always_inline void enter_state(struct bbr3 *b, __u8 state, __u32 pacing_gain,
				       __u32 cwnd_gain)
{
	b->state = state;
	b->pacing_gain = pacing_gain;
	b->cwnd_gain = cwnd_gain;
}

static __always_inline void enter_startup(struct bbr3 *b)
{
	enter_state(b, BBR3_STARTUP, startup_pacing_gain, default_cwnd_gain);
}

static __always_inline void save_cwnd(struct sock *sk, struct bbr3 *b)
{
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	if (!in_loss_recovery(hscc_ca_state(sk)) && b->state != BBR3_PROBE_RTT)
		b->prior_cwnd = cwnd;
	else
		b->prior_cwnd = hscc_max(b->prior_cwnd, cwnd);
}

static __always_inline void restore_cwnd(struct sock *sk, const struct bbr3 *b)
{
	struct tcp_sock *tp = tcp_sk(sk);

	tp->snd_cwnd = hscc_max(tp->snd_cwnd, b->prior_cwnd);
}

/* congestion.rs */

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

/* probe_bw.rs, the phases' entries. */

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

/* congestion.rs, the reactions. */

static __always_inline void handle_inflight_too_high(struct sock *sk, struct bbr3 *b,
						     const struct rate_sample *rs,
						     __u32 tx_in_flight)
{
	b->prev_probe_too_high = 1;
	b->is_bw_probe_sample = 0;
	if (!rs->is_app_limited)
		b->inflight_longterm = hscc_max(tx_in_flight, pct(target_inflight(sk, b), beta));
	if (b->state == BBR3_PROBE_BW_UP) {
		b->undo_state = BBR3_PROBE_BW_UP;
		start_probe_bw_down(sk, b);
	}
}

static __always_inline void handle_lost_packets(struct sock *sk, struct bbr3 *b,
						const struct rate_sample *rs,
						const struct bbr3_sample *s, __u32 lost)
{
	note_loss(sk, b);
	b->loss_events_in_round = sat_add32(b->loss_events_in_round, 1);
	if (!b->is_bw_probe_sample)
		return;
	if (is_inflight_too_high(s))
		handle_inflight_too_high(sk, b, rs, inflight_at_loss(s, lost));
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

static __always_inline bool is_probing_bw(const struct bbr3 *b)
{
	return b->state == BBR3_STARTUP || b->state == BBR3_PROBE_BW_REFILL || b->state == BBR3_PROBE_BW_UP;
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

/* bandwidth.rs, congestion.rs, ack_aggregation.rs and startup.rs: the model. */

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

/* probe_bw.rs, the cycle. */

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

/* probe_rtt.rs, BBR3_PROBE_RTT. */

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

static __always_inline __u32 probe_rtt_cwnd(const struct bbr3 *b)
{
	return hscc_max(bdp_multiple(b, b->bw, probe_rtt_cwnd_gain), min_pipe_cwnd);
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

/* cwnd.rs and mod.rs, the controls. */

static __always_inline __u32 cwnd_cap(const struct bbr3 *b)
{
	__u32 cap = INF;

	if (is_probe_bw(b->state) && b->state != BBR3_PROBE_BW_CRUISE)
		cap = b->inflight_longterm;
	else if (b->state == BBR3_PROBE_RTT || b->state == BBR3_PROBE_BW_CRUISE)
		cap = inflight_with_headroom(b);
	cap = hscc_min(cap, b->inflight_shortterm);
	return hscc_max(cap, min_pipe_cwnd);
}

static __always_inline void set_cwnd(struct sock *sk, struct bbr3 *b,
				     const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, cap;

	cap = sat_add32(bdp_multiple(b, b->bw, b->cwnd_gain), b->extra_acked.s[0].v);
	b->max_inflight = quantization_budget(sk, b, cap);
	if (b->full_bw_reached)
		cwnd = hscc_min(sat_add32(cwnd, rs->acked_sacked), b->max_inflight);
	else if (cwnd < b->max_inflight || tp->delivered < b->initial_cwnd)
		cwnd = sat_add32(cwnd, rs->acked_sacked);
	cwnd = hscc_max(cwnd, min_pipe_cwnd);
	if (b->state == BBR3_PROBE_RTT)
		cwnd = hscc_min(cwnd, probe_rtt_cwnd(b));
	cwnd = hscc_min(cwnd, cwnd_cap(b));
	tp->snd_cwnd = hscc_min(cwnd, tp->snd_cwnd_clamp);
}

static __always_inline void sample_of(struct sock *sk, struct bbr3 *b,
				      const struct rate_sample *rs, struct bbr3_sample *s)
{
	s->delivered = rs->delivered > 0 ? (__u32)rs->delivered : 0;
	s->delivery_rate = 0;
	if (rs->delivered > 0 && rs->interval_us > 0)
		s->delivery_rate = (__u32)hscc_min((__u64)s->delivered * BW_UNIT /
						   (__u64)rs->interval_us, 0xffffffffULL);
	estimate_tx_in_flight_and_lost(sk, b, rs, s);
}

SEC("struct_ops")
void BPF_PROG(bbr3_main, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct bbr3 *b = bbr3_of(sk);
	struct bbr3_sample s;
	__u8 ca_state = hscc_ca_state(sk);
	__u32 newly_lost;

	if (!b)
		return;
	sample_of(sk, b, rs, &s);
	/* Marked lost since the last ACK: by this ACK or by a timer. */
	newly_lost = tcp_sk(sk)->lost - b->lost_seen;
	b->lost_seen = tcp_sk(sk)->lost;
	if (newly_lost > 0)
		handle_lost_packets(sk, b, rs, &s, newly_lost);
	if (in_loss_recovery(b->prev_ca_state) && !in_loss_recovery(ca_state))
		restore_cwnd(sk, b);
	b->prev_ca_state = ca_state;

	update_latest_delivery_signals(sk, b, rs, &s);
	update_congestion_signals(sk, b, rs, &s);
	update_ack_aggregation(sk, b, rs);
	check_full_bw_reached(b, rs, &s);
	check_startup_high_loss(sk, b, &s);
	if (b->state == BBR3_STARTUP && b->full_bw_reached) {
		/* bbr3/startup.rs enter_drain: ssthresh shows STARTUP is over, as Linux's v3. */
		tcp_sk(sk)->snd_ssthresh = inflight_for(sk, b, max_bw(b), PERCENT);
		enter_state(b, BBR3_DRAIN, drain_pacing_gain, default_cwnd_gain);
		b->drain_start_round = b->round_count;
	}
	check_drain_done(sk, b);
	update_probe_bw_cycle_phase(sk, b, rs, &s);
	update_min_rtt(sk, b, rs);
	check_probe_rtt(sk, b, rs);
	advance_latest_delivery_signals(b, &s);
	b->bw = hscc_min(max_bw(b), b->bw_shortterm);

	set_pacing_rate_with_gain(sk, b, b->pacing_gain);
	set_cwnd(sk, b, rs);
}

SEC("struct_ops")
void BPF_PROG(bbr3_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr3 *b = bpf_sk_storage_get(&bbr3_storage, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (!b)
		return;
	__builtin_memset(b, 0, sizeof(*b));
	b->bw_shortterm = INF;
	b->min_rtt_us = INF;
	b->probe_rtt_min_delay = INF;
	b->inflight_longterm = INF;
	b->inflight_shortterm = INF;
	b->probe_up_acked_per_inc = INF;
	b->undo_state = BBR3_UNDO_NONE;
	b->prev_ca_state = TCP_CA_Open;
	b->initial_cwnd = tp->snd_cwnd;
	b->lost_seen = tp->lost;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	if (tp->srtt_us)
		b->min_rtt_us = tp->srtt_us >> 3;
	b->min_rtt_stamp = tp->tcp_mstamp;
	/* bbr3/mod.rs: the 5-s filter starts as the 10-s one does. */
	b->probe_rtt_min_stamp = tp->tcp_mstamp;
	b->extra_acked_interval_start = tp->tcp_mstamp;
	init_pacing_rate(sk, b);
	enter_startup(b);
	b->lost_mark_delivered[0] = b->lost_mark_delivered[1] = tp->delivered;
	b->lost_mark_lost[0] = b->lost_mark_lost[1] = tp->lost;
	b->lost_mark_next = tp->delivered;
	/* Linux: cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED). */
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

SEC("struct_ops")
void BPF_PROG(bbr3_release, struct sock *sk)
{
	bpf_sk_storage_delete(&bbr3_storage, sk);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_undo_cwnd, struct sock *sk)
{
	struct bbr3 *b = bbr3_of(sk);

	if (b)
		handle_spurious_loss_detection(sk, b);
	return tcp_sk(sk)->snd_cwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(bbr3_ssthresh, struct sock *sk)
{
	struct bbr3 *b = bbr3_of(sk);

	if (b)
		save_state_upon_loss(sk, b);
	return tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops")
void BPF_PROG(bbr3_set_state, struct sock *sk, __u8 new_state)
{
	struct bbr3 *b = bbr3_of(sk);

	if (b && new_state == TCP_CA_Loss && hscc_ca_state(sk) != TCP_CA_Loss)
		note_loss(sk, b);
}

SEC("struct_ops")
void BPF_PROG(bbr3_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct bbr3 *b = bbr3_of(sk);

	if (!b || event != CA_EVENT_TX_START)
		return;
	if (tcp_packets_in_flight(tp) == 0 && tp->app_limited) {
		b->idle_restart = 1;
		b->extra_acked_interval_start = tp->tcp_mstamp;
		if (is_probe_bw(b->state))
			set_pacing_rate_with_gain(sk, b, PERCENT);
		else if (b->state == BBR3_PROBE_RTT)
			check_probe_rtt_done(sk, b);
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_bbr3 = {
	.init = (void *)bbr3_init,
	.release = (void *)bbr3_release,
	.cong_control = (void *)bbr3_main,
	.undo_cwnd = (void *)bbr3_undo_cwnd,
	.cwnd_event = (void *)bbr3_cwnd_event,
	.ssthresh = (void *)bbr3_ssthresh,
	.set_state = (void *)bbr3_set_state,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_bbr3",
};
