/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The modes other than PROBE_RTT: STARTUP until the bandwidth stops
 * growing, DRAIN until the flight is one BDP, PROBE_BW's gain cycle; and
 * each mode's pacing and cwnd gains.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/state.rs.
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_STATE_H
#define HSCC_BBR_STATE_H

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

#endif
