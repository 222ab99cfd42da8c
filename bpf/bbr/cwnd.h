/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The congestion window (Linux bbr_set_cwnd and its helpers): cwnd_gain
 * BDPs plus the ACK-aggregation allowance and the TSO quantization budget;
 * packet conservation in Recovery's first round and the saved cwnd restored.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr/cwnd.rs.
 * Part of bbr.bpf.c, which includes it after its state and the helpers
 * of bbr/mod.rs.
 */
#ifndef HSCC_BBR_CWND_H
#define HSCC_BBR_CWND_H

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

#endif
