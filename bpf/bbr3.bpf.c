/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * BBRv3 as draft-ietf-ccwg-bbr-06 specifies it: hscc-cc
 * crates/hscc-cc/src/algos/bbr3/, function for function, in the same units
 * (packets, bandwidth in packets/µs << 24, gains in percent). The Rust
 * module's documentation gives the model, the draft sections of every
 * constant, and where hscc's hooks differ from the draft's events. The
 * simulator gives RS.tx_in_flight and RS.lost in the rate_sample and each
 * lost packet to skb_marked_lost, as Google's v3 kernel does; a mainline
 * kernel has neither, so there (no HSCC_SIMULATOR) the program estimates both
 * and takes the losses since the last ACK as one burst. This file keeps
 * the state, the helpers of mod.rs and the hooks; the parts are headers in
 * bbr3/, one per file of the Rust module.
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
	__u32 lost_reported;
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

/* A state of the machine and the two gains it runs with, set together. */
static __always_inline void enter_state(struct bbr3 *b, __u8 state, __u32 pacing_gain,
				       __u32 cwnd_gain)
{
	b->state = state;
	b->pacing_gain = pacing_gain;
	b->cwnd_gain = cwnd_gain;
}

/*
 * The parts, one per file of hscc-cc's bbr3/, in an order where each uses
 * the ones above it; the parts call each other both ways as the Rust impl
 * blocks do, so these of probe_bw.h are declared ahead.
 */
static __always_inline void start_probe_bw_down(struct sock *sk, struct bbr3 *b);
static __always_inline void start_probe_bw_refill(struct sock *sk, struct bbr3 *b);
static __always_inline void enter_probe_bw(struct sock *sk, struct bbr3 *b);
static __always_inline bool is_probing_bw(const struct bbr3 *b);
static __always_inline __u32 inflight_with_headroom(const struct bbr3 *b);

#include "bbr3/filters.h"
#include "bbr3/pacing.h"
#include "bbr3/bandwidth.h"
#include "bbr3/cwnd.h"
#include "bbr3/startup.h"
#include "bbr3/congestion.h"
#include "bbr3/probe_bw.h"
#include "bbr3/ack_aggregation.h"
#include "bbr3/probe_rtt.h"

static __always_inline void sample_of(struct sock *sk, struct bbr3 *b,
				      const struct rate_sample *rs, struct bbr3_sample *s)
{
	s->delivered = rs->delivered > 0 ? (__u32)rs->delivered : 0;
	s->delivery_rate = 0;
	if (rs->delivered > 0 && rs->interval_us > 0)
		s->delivery_rate = (__u32)hscc_min((__u64)s->delivered * BW_UNIT /
						   (__u64)rs->interval_us, 0xffffffffULL);
#ifdef HSCC_SIMULATOR
	/* A delivered packet's stamp counts the packet itself. */
	if (rs->delivered > 0 && rs->tx_in_flight > 0) {
		s->tx_in_flight = rs->tx_in_flight;
		s->lost = (__u32)rs->lost;
		return;
	}
#endif
	estimate_tx_in_flight_and_lost(sk, b, rs, s);
}

SEC("struct_ops")
void BPF_PROG(bbr3_main, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct bbr3 *b = bbr3_of(sk);
	struct bbr3_sample s;
	__u8 ca_state = hscc_ca_state(sk);
	__u32 newly_lost, unreported;

	if (!b)
		return;
	sample_of(sk, b, rs, &s);
	/* Marked lost since the last ACK (by this ACK or by a timer); those
	 * skb_marked_lost did not report are taken as one burst. */
	newly_lost = tcp_sk(sk)->lost - b->lost_seen;
	unreported = newly_lost - b->lost_reported;
	b->lost_seen = tcp_sk(sk)->lost;
	b->lost_reported = 0;
	if (newly_lost > 0)
		b->loss_events_in_round = sat_add32(b->loss_events_in_round, 1);
	if (unreported > 0)
		handle_lost_packet(sk, b, &s, unreported, rs->is_app_limited);
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

#ifdef HSCC_SIMULATOR
/* Google's v3 kernel's hook, which the simulator calls and a mainline kernel lacks. */
SEC("struct_ops")
void BPF_PROG(bbr3_skb_marked_lost, struct sock *sk, const struct sk_buff *skb)
{
	struct bbr3 *b = bbr3_of(sk);
	const struct tcp_skb_cb *scb = TCP_SKB_CB(skb);
	struct bbr3_sample s = {
		/* P's own stamp; C.lost already counts P. */
		.tx_in_flight = scb->tx.in_flight,
		.lost = tcp_sk(sk)->lost - scb->tx.lost,
	};

	if (!b)
		return;
	b->lost_reported++;
	handle_lost_packet(sk, b, &s, 1, scb->tx.is_app_limited);
}
#endif

SEC(".struct_ops")
struct tcp_congestion_ops hscc_bbr3 = {
	.init = (void *)bbr3_init,
	.release = (void *)bbr3_release,
	.cong_control = (void *)bbr3_main,
	.undo_cwnd = (void *)bbr3_undo_cwnd,
	.cwnd_event = (void *)bbr3_cwnd_event,
	.ssthresh = (void *)bbr3_ssthresh,
	.set_state = (void *)bbr3_set_state,
#ifdef HSCC_SIMULATOR
	.skb_marked_lost = (void *)bbr3_skb_marked_lost,
#endif
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_bbr3",
};
