/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * BBR v1 (Cardwell et al., ACM Queue 14(5) 2016; Linux tcp_bbr.c): hscc-cc
 * crates/hscc-cc/src/algos/bbr/, function for function, in Linux's fixed
 * point (bandwidth in packets/µs << 24, gains in 1/256). The Rust module's
 * documentation gives the model, the constants and their sources, and what
 * differs from Linux; this file keeps the same choices (the TSO goal's
 * constants, the start phase drawn from bpf_get_prandom_u32 by reciprocal
 * scaling) so that both compute the same windows and pacing rates.
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

#ifdef HSCC_USER
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

static __always_inline __u32 bbr_max_bw(const struct hscc_bbr *bbr)
{
	return bbr->bw.s[0].v;
}

static __always_inline __u32 bbr_bw(const struct hscc_bbr *bbr)
{
	return bbr->lt_use_bw ? bbr->lt_bw : bbr_max_bw(bbr);
}

static __always_inline __u32 bbr_extra_acked(const struct hscc_bbr *bbr)
{
	return hscc_max(bbr->extra_acked[0], bbr->extra_acked[1]);
}

static __always_inline __u64 bbr_rate_bytes_per_sec(struct sock *sk, __u64 rate, __u32 gain)
{
	rate *= tcp_sk(sk)->mss_cache;
	rate *= gain;
	rate >>= BBR_SCALE;
	rate *= USEC_PER_SEC / 100 * (100 - pacing_margin_percent);
	return rate >> BW_SCALE;
}

static __always_inline __u64 bbr_bw_to_pacing_rate(struct sock *sk, __u32 bw, __u32 gain)
{
	__u64 rate = bbr_rate_bytes_per_sec(sk, bw, gain);

	return hscc_min(rate, (__u64)sk->sk_max_pacing_rate);
}

static __always_inline void bbr_init_pacing_rate_from_rtt(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 rtt_us;
	__u64 bw;

	if (tp->srtt_us) {
		rtt_us = hscc_max(tp->srtt_us >> 3, 1U);
		bbr->has_seen_rtt = 1;
	} else {
		rtt_us = USEC_PER_MSEC;
	}
	bw = (__u64)tp->snd_cwnd * BW_UNIT / rtt_us;
	sk->sk_pacing_rate = bbr_bw_to_pacing_rate(sk, (__u32)bw, high_gain);
}

static __always_inline void bbr_set_pacing_rate(struct sock *sk, struct hscc_bbr *bbr, __u32 bw,
						__u32 gain)
{
	__u64 rate = bbr_bw_to_pacing_rate(sk, bw, gain);

	if (!bbr->has_seen_rtt && tcp_sk(sk)->srtt_us)
		bbr_init_pacing_rate_from_rtt(sk, bbr);
	if (bbr->full_bw_reached || rate > sk->sk_pacing_rate)
		sk->sk_pacing_rate = rate;
}

static __always_inline __u32 bbr_min_tso_segs_of(struct sock *sk)
{
	return sk->sk_pacing_rate < (MIN_TSO_RATE >> 3) ? 1 : 2;
}

static __always_inline __u32 bbr_tso_segs_goal(struct sock *sk)
{
	__u32 mss = tcp_sk(sk)->mss_cache;
	__u32 bytes, segs;

	bytes = hscc_min(sk->sk_pacing_rate >> HSCC_SK_PACING_SHIFT,
			 (__u64)(GSO_LEGACY_MAX_SIZE - 1 - HSCC_MAX_TCP_HEADER));
	segs = hscc_max(mss ? bytes / mss : 0, bbr_min_tso_segs_of(sk));
	return hscc_min(segs, 0x7FU);
}

static __always_inline void bbr_save_cwnd(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (bbr->prev_ca_state < TCP_CA_Recovery && bbr->mode != BBR_PROBE_RTT)
		bbr->prior_cwnd = tp->snd_cwnd;
	else
		bbr->prior_cwnd = hscc_max(bbr->prior_cwnd, tp->snd_cwnd);
}

static __always_inline __u32 bbr_bdp(const struct hscc_bbr *bbr, __u32 bw, __u32 gain)
{
	__u64 w;

	if (bbr->min_rtt_us == ~0U)
		return TCP_INIT_CWND;
	w = (__u64)bw * bbr->min_rtt_us;
	return (__u32)((((w * gain) >> BBR_SCALE) + BW_UNIT - 1) / BW_UNIT);
}

static __always_inline __u32 bbr_quantization_budget(struct sock *sk, const struct hscc_bbr *bbr,
						     __u32 cwnd)
{
	cwnd += 3 * bbr_tso_segs_goal(sk);
	cwnd = (cwnd + 1) & ~1U;
	if (bbr->mode == BBR_PROBE_BW && bbr->cycle_idx == 0)
		cwnd += 2;
	return cwnd;
}

static __always_inline __u32 bbr_inflight(struct sock *sk, const struct hscc_bbr *bbr, __u32 bw,
					  __u32 gain)
{
	return bbr_quantization_budget(sk, bbr, bbr_bdp(bbr, bw, gain));
}

static __always_inline __u32 bbr_packets_in_net_at_edt(struct sock *sk, const struct hscc_bbr *bbr,
						       __u32 inflight_now)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 now_ns = tp->tcp_clock_cache;
	__u64 edt_ns = hscc_max(tp->tcp_wstamp_ns, now_ns);
	__u64 interval_us = (edt_ns - now_ns) / 1000;
	__u32 interval_delivered = (__u32)(((__u64)bbr_bw(bbr) * interval_us) >> BW_SCALE);
	__u32 inflight_at_edt = inflight_now;

	if (bbr->pacing_gain > BBR_UNIT)
		inflight_at_edt += bbr_tso_segs_goal(sk);
	if (interval_delivered >= inflight_at_edt)
		return 0;
	return inflight_at_edt - interval_delivered;
}

static __always_inline __u32 bbr_ack_aggregation_cwnd(const struct hscc_bbr *bbr)
{
	__u32 max_aggr_cwnd, aggr_cwnd;

	if (!extra_acked_gain || !bbr->full_bw_reached)
		return 0;
	max_aggr_cwnd = (__u32)(((__u64)bbr_bw(bbr) * extra_acked_max_us) / BW_UNIT);
	aggr_cwnd = (extra_acked_gain * bbr_extra_acked(bbr)) >> BBR_SCALE;
	return hscc_min(aggr_cwnd, max_aggr_cwnd);
}

static __always_inline bool bbr_set_cwnd_to_recover_or_restore(struct sock *sk,
							       struct hscc_bbr *bbr,
							       const struct rate_sample *rs,
							       __u32 acked, __u32 *new_cwnd)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u8 prev_state = bbr->prev_ca_state, state = hscc_ca_state(sk);
	__u32 cwnd = tp->snd_cwnd;

	if (rs->losses > 0) {
		__s32 c = (__s32)(cwnd - (__u32)rs->losses);

		cwnd = c > 1 ? (__u32)c : 1;
	}
	if (state == TCP_CA_Recovery && prev_state != TCP_CA_Recovery) {
		bbr->packet_conservation = 1;
		bbr->next_rtt_delivered = tp->delivered;
		cwnd = tcp_packets_in_flight(tp) + acked;
	} else if (prev_state >= TCP_CA_Recovery && state < TCP_CA_Recovery) {
		cwnd = hscc_max(cwnd, bbr->prior_cwnd);
		bbr->packet_conservation = 0;
	}
	bbr->prev_ca_state = state;
	if (bbr->packet_conservation) {
		*new_cwnd = hscc_max(cwnd, tcp_packets_in_flight(tp) + acked);
		return true;
	}
	*new_cwnd = cwnd;
	return false;
}

static __always_inline void bbr_set_cwnd(struct sock *sk, struct hscc_bbr *bbr,
					 const struct rate_sample *rs, __u32 acked, __u32 bw,
					 __u32 gain)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd = tp->snd_cwnd, target_cwnd;

	if (acked && !bbr_set_cwnd_to_recover_or_restore(sk, bbr, rs, acked, &cwnd)) {
		target_cwnd = bbr_bdp(bbr, bw, gain);
		target_cwnd += bbr_ack_aggregation_cwnd(bbr);
		target_cwnd = bbr_quantization_budget(sk, bbr, target_cwnd);
		if (bbr->full_bw_reached)
			cwnd = hscc_min(cwnd + acked, target_cwnd);
		else if (cwnd < target_cwnd || tp->delivered < TCP_INIT_CWND)
			cwnd = cwnd + acked;
		cwnd = hscc_max(cwnd, cwnd_min_target);
	}
	tp->snd_cwnd = hscc_min(cwnd, tp->snd_cwnd_clamp);
	if (bbr->mode == BBR_PROBE_RTT)
		tp->snd_cwnd = hscc_min(tp->snd_cwnd, cwnd_min_target);
}

static __always_inline bool bbr_is_next_cycle_phase(struct sock *sk, const struct hscc_bbr *bbr,
						    const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	bool is_full_length =
		stamp_us_delta(tp->delivered_mstamp, bbr->cycle_mstamp) > bbr->min_rtt_us;
	__u32 inflight, bw;

	if (bbr->pacing_gain == BBR_UNIT)
		return is_full_length;
	inflight = bbr_packets_in_net_at_edt(sk, bbr, rs->prior_in_flight);
	bw = bbr_max_bw(bbr);
	if (bbr->pacing_gain > BBR_UNIT)
		return is_full_length &&
		       (rs->losses || inflight >= bbr_inflight(sk, bbr, bw, bbr->pacing_gain));
	return is_full_length || inflight <= bbr_inflight(sk, bbr, bw, BBR_UNIT);
}

static __always_inline void bbr_advance_cycle_phase(struct sock *sk, struct hscc_bbr *bbr)
{
	bbr->cycle_idx = (bbr->cycle_idx + 1) & (CYCLE_LEN - 1);
	bbr->cycle_mstamp = tcp_sk(sk)->delivered_mstamp;
}

static __always_inline void bbr_reset_probe_bw_mode(struct sock *sk, struct hscc_bbr *bbr)
{
	__u32 r = (__u32)(((__u64)bpf_get_prandom_u32() * CYCLE_RAND) >> 32);

	bbr->mode = BBR_PROBE_BW;
	bbr->cycle_idx = (CYCLE_LEN - 1 - r) & (CYCLE_LEN - 1);
	bbr_advance_cycle_phase(sk, bbr);
}

static __always_inline void bbr_reset_mode(struct sock *sk, struct hscc_bbr *bbr)
{
	if (!bbr->full_bw_reached)
		bbr->mode = BBR_STARTUP;
	else
		bbr_reset_probe_bw_mode(sk, bbr);
}

static __always_inline void bbr_reset_lt_bw_sampling_interval(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);

	bbr->lt_last_stamp = (__u32)(tp->delivered_mstamp / USEC_PER_MSEC);
	bbr->lt_last_delivered = tp->delivered;
	bbr->lt_last_lost = tp->lost;
	bbr->lt_rtt_cnt = 0;
}

static __always_inline void bbr_reset_lt_bw_sampling(struct sock *sk, struct hscc_bbr *bbr)
{
	bbr->lt_bw = 0;
	bbr->lt_use_bw = 0;
	bbr->lt_is_sampling = 0;
	bbr_reset_lt_bw_sampling_interval(sk, bbr);
}

static __always_inline void bbr_lt_bw_interval_done(struct sock *sk, struct hscc_bbr *bbr, __u32 bw)
{
	if (bbr->lt_bw) {
		__s32 d = (__s32)(bw - bbr->lt_bw);
		__u32 diff = d < 0 ? -(__u32)d : (__u32)d;

		if (diff * BBR_UNIT <= lt_bw_ratio * bbr->lt_bw ||
		    bbr_rate_bytes_per_sec(sk, diff, BBR_UNIT) <= lt_bw_diff) {
			bbr->lt_bw = (__u32)(((__u64)bw + bbr->lt_bw) >> 1);
			bbr->lt_use_bw = 1;
			bbr->pacing_gain = BBR_UNIT;
			bbr->lt_rtt_cnt = 0;
			return;
		}
	}
	bbr->lt_bw = bw;
	bbr_reset_lt_bw_sampling_interval(sk, bbr);
}

static __always_inline void bbr_lt_bw_sampling(struct sock *sk, struct hscc_bbr *bbr,
					       __u32 losses, bool is_app_limited)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 lost, delivered, t;
	__u64 bw;

	if (bbr->lt_use_bw) {
		if (bbr->mode == BBR_PROBE_BW && bbr->round_start) {
			bbr->lt_rtt_cnt = (bbr->lt_rtt_cnt + 1) & 0x7f;
			if (bbr->lt_rtt_cnt >= lt_bw_max_rtts) {
				bbr_reset_lt_bw_sampling(sk, bbr);
				bbr_reset_probe_bw_mode(sk, bbr);
			}
		}
		return;
	}
	if (!bbr->lt_is_sampling) {
		if (!losses)
			return;
		bbr_reset_lt_bw_sampling_interval(sk, bbr);
		bbr->lt_is_sampling = 1;
	}
	if (is_app_limited) {
		bbr_reset_lt_bw_sampling(sk, bbr);
		return;
	}
	if (bbr->round_start)
		bbr->lt_rtt_cnt = (bbr->lt_rtt_cnt + 1) & 0x7f;
	if (bbr->lt_rtt_cnt < lt_intvl_min_rtts)
		return;
	if (bbr->lt_rtt_cnt > 4 * lt_intvl_min_rtts) {
		bbr_reset_lt_bw_sampling(sk, bbr);
		return;
	}
	if (!losses)
		return;
	lost = tp->lost - bbr->lt_last_lost;
	delivered = tp->delivered - bbr->lt_last_delivered;
	if (!delivered || (lost << BBR_SCALE) < lt_loss_thresh * delivered)
		return;
	t = (__u32)(tp->delivered_mstamp / USEC_PER_MSEC) - bbr->lt_last_stamp;
	if ((__s32)t < 1)
		return;
	if (t >= ~0U / USEC_PER_MSEC) {
		bbr_reset_lt_bw_sampling(sk, bbr);
		return;
	}
	t *= USEC_PER_MSEC;
	bw = (__u64)delivered * BW_UNIT / t;
	bbr_lt_bw_interval_done(sk, bbr, (__u32)bw);
}

static __always_inline void bbr_update_bw(struct sock *sk, struct hscc_bbr *bbr,
					  const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 bw;

	bbr->round_start = 0;
	if (rs->delivered < 0 || rs->interval_us <= 0)
		return;
	if (!before(rs->prior_delivered, bbr->next_rtt_delivered)) {
		bbr->next_rtt_delivered = tp->delivered;
		bbr->rtt_cnt++;
		bbr->round_start = 1;
		bbr->packet_conservation = 0;
	}
	bbr_lt_bw_sampling(sk, bbr, (__u32)rs->losses, rs->is_app_limited);
	bw = (__u64)rs->delivered * BW_UNIT / (__u64)rs->interval_us;
	if (!rs->is_app_limited || bw >= bbr_max_bw(bbr))
		minmax_running_max(&bbr->bw, bw_rtts, bbr->rtt_cnt, (__u32)bw);
}

/*
 * extra_acked[extra_acked_win_idx], by constant indices: the verifier refuses
 * a variable offset into the socket.
 */
static __always_inline __u32 extra_acked_cur(const struct hscc_bbr *bbr)
{
	return bbr->extra_acked_win_idx ? bbr->extra_acked[1] : bbr->extra_acked[0];
}

static __always_inline void extra_acked_set(struct hscc_bbr *bbr, __u16 v)
{
	if (bbr->extra_acked_win_idx)
		bbr->extra_acked[1] = v;
	else
		bbr->extra_acked[0] = v;
}

static __always_inline void bbr_update_ack_aggregation(struct sock *sk, struct hscc_bbr *bbr,
						       const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 epoch_us, expected_acked, extra_acked;

	if (!extra_acked_gain || rs->acked_sacked == 0 || rs->delivered < 0 ||
	    rs->interval_us <= 0)
		return;
	if (bbr->round_start) {
		bbr->extra_acked_win_rtts = hscc_min(0x1FU, (__u32)bbr->extra_acked_win_rtts + 1);
		if (bbr->extra_acked_win_rtts >= extra_acked_win_rtts) {
			bbr->extra_acked_win_rtts = 0;
			bbr->extra_acked_win_idx = bbr->extra_acked_win_idx ? 0 : 1;
			extra_acked_set(bbr, 0);
		}
	}
	epoch_us = (__u32)stamp_us_delta(tp->delivered_mstamp, bbr->ack_epoch_mstamp);
	expected_acked = (__u32)(((__u64)bbr_bw(bbr) * epoch_us) / BW_UNIT);
	if (bbr->ack_epoch_acked <= expected_acked ||
	    bbr->ack_epoch_acked + rs->acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH) {
		bbr->ack_epoch_acked = 0;
		bbr->ack_epoch_mstamp = tp->delivered_mstamp;
		expected_acked = 0;
	}
	bbr->ack_epoch_acked = hscc_min(0xFFFFFU, bbr->ack_epoch_acked + rs->acked_sacked);
	extra_acked = bbr->ack_epoch_acked - expected_acked;
	extra_acked = hscc_min(extra_acked, tp->snd_cwnd);
	if (extra_acked > extra_acked_cur(bbr))
		extra_acked_set(bbr, (__u16)extra_acked);
}

static __always_inline void bbr_check_full_bw_reached(struct hscc_bbr *bbr,
						      const struct rate_sample *rs)
{
	__u32 bw_thresh;

	if (bbr->full_bw_reached || !bbr->round_start || rs->is_app_limited)
		return;
	bw_thresh = (__u32)(((__u64)bbr->full_bw * full_bw_thresh) >> BBR_SCALE);
	if (bbr_max_bw(bbr) >= bw_thresh) {
		bbr->full_bw = bbr_max_bw(bbr);
		bbr->full_bw_cnt = 0;
		return;
	}
	bbr->full_bw_cnt = (bbr->full_bw_cnt + 1) & 3;
	bbr->full_bw_reached = bbr->full_bw_cnt >= full_bw_cnt;
}

static __always_inline void bbr_check_drain(struct sock *sk, struct hscc_bbr *bbr)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (bbr->mode == BBR_STARTUP && bbr->full_bw_reached) {
		bbr->mode = BBR_DRAIN;
		tp->snd_ssthresh = bbr_inflight(sk, bbr, bbr_max_bw(bbr), BBR_UNIT);
	}
	if (bbr->mode == BBR_DRAIN &&
	    bbr_packets_in_net_at_edt(sk, bbr, tcp_packets_in_flight(tp)) <=
		    bbr_inflight(sk, bbr, bbr_max_bw(bbr), BBR_UNIT))
		bbr_reset_probe_bw_mode(sk, bbr);
}

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

static __always_inline void bbr_update_gains(struct hscc_bbr *bbr)
{
	switch (bbr->mode) {
	case BBR_STARTUP:
		bbr->pacing_gain = high_gain;
		bbr->cwnd_gain = high_gain;
		break;
	case BBR_DRAIN:
		bbr->pacing_gain = drain_gain;
		bbr->cwnd_gain = high_gain;
		break;
	case BBR_PROBE_BW:
		bbr->pacing_gain = bbr->lt_use_bw ? BBR_UNIT : bbr_pacing_gain(bbr->cycle_idx);
		bbr->cwnd_gain = cwnd_gain;
		break;
	default:
		bbr->pacing_gain = BBR_UNIT;
		bbr->cwnd_gain = BBR_UNIT;
		break;
	}
}

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
