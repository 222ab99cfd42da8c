/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * BBR v1 (Cardwell et al., ACM Queue 14(5) 2016; Linux tcp_bbr.c): hscc-cc
 * crates/hscc-cc/src/algos/bbr/, function for function, in Linux's fixed
 * point (bandwidth in packets/µs << 24, gains in 1/256). The Rust module's
 * documentation gives the model, the constants and their sources, and what
 * differs from Linux; this file keeps the same choices (the TSO goal's
 * constants, the start phase drawn from bpf_get_prandom_u32 by reciprocal
 * scaling) so that both compute the same windows and pacing rates. This file
 * keeps the state, the helpers of mod.rs and the hooks; the parts are headers
 * in bbr/, one per file of the Rust module (its minmax.rs is win_minmax.h).
 *
 * Unlike the other programs it owns cwnd and pacing through cong_control, as
 * Linux's module does; docs/kernel.md says what struct_ops lets it write.
 */
#include "hscc.h"
#include "win_minmax.h"

#define BW_SCALE 24
#define BW_UNIT (1ULL << BW_SCALE)
#define BBR_SCALE 8
#define BBR_UNIT (1 << BBR_SCALE)
#define CYCLE_LEN 8
#define CYCLE_RAND 7
#define MIN_TSO_RATE 1200000ULL
#define ACK_EPOCH_ACKED_RESET_THRESH (1U << 20)
#define TCP_INIT_CWND 10
#define GSO_LEGACY_MAX_SIZE 65536
/* bbr/pacing.rs MAX_TCP_HEADER: an x86-64 distribution kernel's. */
#define HSCC_MAX_TCP_HEADER 320
#define HSCC_SK_PACING_SHIFT 10
#define USEC_PER_MSEC 1000ULL

#ifdef HSCC_SIMULATOR
/* Linux enum bbr_mode (the kernel build has it from vmlinux.h). */
enum bbr_mode {
	BBR_STARTUP,
	BBR_DRAIN,
	BBR_PROBE_BW,
	BBR_PROBE_RTT,
};
#endif

/* Bbr::bpf_globals: BbrParams as Linux's constants. */
#define BBR_GLOBALS(X)                   \
	X(__u32, high_gain)              \
	X(__u32, drain_gain)             \
	X(__u32, cwnd_gain)              \
	X(__u32, bw_rtts)                \
	X(__u32, min_rtt_win_sec)        \
	X(__u32, probe_rtt_mode_ms)      \
	X(__u32, pacing_margin_percent)  \
	X(__u32, cwnd_min_target)        \
	X(__u32, full_bw_thresh)         \
	X(__u32, full_bw_cnt)            \
	X(__u32, lt_intvl_min_rtts)      \
	X(__u32, lt_loss_thresh)         \
	X(__u32, lt_bw_ratio)            \
	X(__u32, lt_bw_diff)             \
	X(__u32, lt_bw_max_rtts)         \
	X(__u32, extra_acked_gain)       \
	X(__u32, extra_acked_win_rtts)   \
	X(__u32, extra_acked_max_us)
HSCC_GLOBALS(bbr, BBR_GLOBALS)

/*
 * Linux bbr_pacing_gain[]: 5/4, 3/4, then six phases of 1. A function, not a
 * constant array: clang would put one in a mergeable-constant section libbpf
 * cannot load.
 */
static __always_inline __u32 bbr_pacing_gain(__u32 idx)
{
	return idx == 0 ? BBR_UNIT * 5 / 4 : idx == 1 ? BBR_UNIT * 3 / 4 : BBR_UNIT;
}

/* Linux struct bbr, field for field (named apart from vmlinux.h's). */
struct hscc_bbr {
	__u32 min_rtt_us;
	__u32 min_rtt_stamp;
	__u32 probe_rtt_done_stamp;
	struct minmax bw;
	__u32 rtt_cnt;
	__u32 next_rtt_delivered;
	__u64 cycle_mstamp;
	__u32 mode : 3, prev_ca_state : 3, packet_conservation : 1, round_start : 1,
		idle_restart : 1, probe_rtt_round_done : 1, unused : 13, lt_is_sampling : 1,
		lt_rtt_cnt : 7, lt_use_bw : 1;
	__u32 lt_bw;
	__u32 lt_last_delivered;
	__u32 lt_last_stamp;
	__u32 lt_last_lost;
	__u32 pacing_gain : 10, cwnd_gain : 10, full_bw_reached : 1, full_bw_cnt : 2,
		cycle_idx : 3, has_seen_rtt : 1, unused_b : 5;
	__u32 prior_cwnd;
	__u32 full_bw;
	__u64 ack_epoch_mstamp;
	__u16 extra_acked[2];
	__u32 ack_epoch_acked : 20, extra_acked_win_rtts : 5, extra_acked_win_idx : 1,
		unused_c : 6;
};
HSCC_CA_PRIV_FITS(struct hscc_bbr);

static __always_inline __u64 stamp_us_delta(__u64 t1, __u64 t0)
{
	__s64 d = (__s64)(t1 - t0);

	return d > 0 ? (__u64)d : 0;
}

/*
 * The parts, one per file of hscc-cc's bbr/, in an order where each uses the
 * ones above it; bandwidth.h's update calls lt_bw.h's sampling, which resets
 * state.h's modes, so that one is declared ahead.
 */
static __always_inline void bbr_lt_bw_sampling(struct sock *sk, struct hscc_bbr *bbr,
					       __u32 losses, bool is_app_limited);

#include "bbr/pacing.h"
#include "bbr/bandwidth.h"
#include "bbr/ack_aggregation.h"
#include "bbr/cwnd.h"
#include "bbr/state.h"
#include "bbr/lt_bw.h"
#include "bbr/probe_rtt.h"

SEC("struct_ops")
void BPF_PROG(bbr_main, struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs)
{
	struct hscc_bbr *bbr = inet_csk_ca(sk);
	__u32 bw;

	bbr_update_bw(sk, bbr, rs);
	bbr_update_ack_aggregation(sk, bbr, rs);
	if (bbr->mode == BBR_PROBE_BW && bbr_is_next_cycle_phase(sk, bbr, rs))
		bbr_advance_cycle_phase(sk, bbr);
	bbr_check_full_bw_reached(bbr, rs);
	bbr_check_drain(sk, bbr);
	bbr_update_min_rtt(sk, bbr, rs);
	bbr_update_gains(bbr);

	bw = bbr_bw(bbr);
	bbr_set_pacing_rate(sk, bbr, bw, bbr->pacing_gain);
	bbr_set_cwnd(sk, bbr, rs, rs->acked_sacked, bw, bbr->cwnd_gain);
}

SEC("struct_ops")
void BPF_PROG(bbr_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hscc_bbr *bbr = inet_csk_ca(sk);

	__builtin_memset(bbr, 0, sizeof(*bbr));
	bbr->prev_ca_state = TCP_CA_Open;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	bbr->min_rtt_us = tcp_min_rtt(tp);
	bbr->min_rtt_stamp = tcp_jiffies32(tp);
	minmax_reset(&bbr->bw, bbr->rtt_cnt, 0);
	bbr_init_pacing_rate_from_rtt(sk, bbr);
	bbr_reset_lt_bw_sampling(sk, bbr);
	bbr->mode = BBR_STARTUP;
	bbr->ack_epoch_mstamp = tp->tcp_mstamp;
	/* Linux: cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED). */
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
}

SEC("struct_ops")
__u32 BPF_PROG(bbr_sndbuf_expand, struct sock *sk)
{
	return 3;
}

SEC("struct_ops")
__u32 BPF_PROG(bbr_min_tso_segs, struct sock *sk)
{
	return bbr_min_tso_segs_of(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(bbr_undo_cwnd, struct sock *sk)
{
	struct hscc_bbr *bbr = inet_csk_ca(sk);

	bbr->full_bw = 0;
	bbr->full_bw_cnt = 0;
	bbr_reset_lt_bw_sampling(sk, bbr);
	return tcp_sk(sk)->snd_cwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(bbr_ssthresh, struct sock *sk)
{
	bbr_save_cwnd(sk, inet_csk_ca(sk));
	return tcp_sk(sk)->snd_ssthresh;
}

SEC("struct_ops")
void BPF_PROG(bbr_set_state, struct sock *sk, __u8 new_state)
{
	struct hscc_bbr *bbr = inet_csk_ca(sk);

	if (new_state == TCP_CA_Loss) {
		bbr->prev_ca_state = TCP_CA_Loss;
		bbr->full_bw = 0;
		bbr->round_start = 1;
		/* Linux passes a rate_sample of { .losses = 1 }. */
		bbr_lt_bw_sampling(sk, bbr, 1, false);
	}
}

SEC("struct_ops")
void BPF_PROG(bbr_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hscc_bbr *bbr = inet_csk_ca(sk);

	if (event == CA_EVENT_TX_START && tp->app_limited) {
		bbr->idle_restart = 1;
		bbr->ack_epoch_mstamp = tp->tcp_mstamp;
		bbr->ack_epoch_acked = 0;
		if (bbr->mode == BBR_PROBE_BW)
			bbr_set_pacing_rate(sk, bbr, bbr_bw(bbr), BBR_UNIT);
		else if (bbr->mode == BBR_PROBE_RTT)
			bbr_check_probe_rtt_done(sk, bbr);
	}
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_bbr = {
	.init = (void *)bbr_init,
	.cong_control = (void *)bbr_main,
	.sndbuf_expand = (void *)bbr_sndbuf_expand,
	.undo_cwnd = (void *)bbr_undo_cwnd,
	.cwnd_event = (void *)bbr_cwnd_event,
	.ssthresh = (void *)bbr_ssthresh,
	.min_tso_segs = (void *)bbr_min_tso_segs,
	.set_state = (void *)bbr_set_state,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_bbr",
};
