/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP Low Priority (Kuzmanovic & Knightly, IEEE/ACM ToN 14(4) 2006; Linux
 * tcp_lp.c with timestamps at TCP_TS_HZ): hscc-cc crates/hscc-cc/src/algos/lp.rs.
 * The one-way delay of each ACK from its timestamps (tsval scaled by the
 * estimated remote timestamp rate, less tsecr) is smoothed; when it passes
 * 15 % of its min-max range cwnd halves, or drops to 1 within 3 RTTs of the
 * previous indication, and Reno growth stops for those 3 RTTs. Linux's
 * integer types are kept: u32 products and differences wrap before they are
 * widened to s64.
 */
#include "hscc.h"

#define LP_RESOL TCP_TS_HZ

#define LP_VALID_RHZ (1U << 0)
#define LP_VALID_OWD (1U << 1)
#define LP_WITHIN_THR (1U << 3)
#define LP_WITHIN_INF (1U << 4)

/* Linux's tcp_lp.c has no module parameters. */
#define LP_GLOBALS(X)
HSCC_GLOBALS(lp, LP_GLOBALS)

/* Linux struct lp. */
struct lp {
	__u32 flag;
	__u32 sowd;            /* smoothed one-way delay << 3 */
	__u32 owd_min;
	__u32 owd_max;
	__u32 owd_max_rsv;
	__u32 remote_hz;
	__u32 remote_ref_time;
	__u32 local_ref_time;
	__u32 last_drop;
	__u32 inference;
};
HSCC_CA_PRIV_FITS(struct lp);

SEC("struct_ops")
void BPF_PROG(lp_init, struct sock *sk)
{
	struct lp *lp = inet_csk_ca(sk);

	lp->flag = 0;
	lp->sowd = 0;
	lp->owd_min = 0xffffffff;
	lp->owd_max = 0;
	lp->owd_max_rsv = 0;
	lp->remote_hz = 0;
	lp->remote_ref_time = 0;
	lp->local_ref_time = 0;
	lp->last_drop = 0;
	lp->inference = 0;
}

SEC("struct_ops")
void BPF_PROG(lp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct lp *lp = inet_csk_ca(sk);

	if (!(lp->flag & LP_WITHIN_INF))
		tcp_reno_cong_avoid(sk, ack, acked);
}

/* Linux tcp_lp_remote_hz_estimator. */
static __always_inline __u32 lp_remote_hz_estimator(struct lp *lp, const struct tcp_sock *tp)
{
	__s64 rhz = (__u32)(lp->remote_hz << 6);
	__s64 m = 0;

	if (lp->remote_ref_time == 0 || lp->local_ref_time == 0)
		goto out;
	if (tp->rx_opt.rcv_tsval == lp->remote_ref_time ||
	    tp->rx_opt.rcv_tsecr == lp->local_ref_time)
		goto out;
	/* u32 throughout (the divisor is nonzero: the tsecr differ). */
	m = (__u32)(TCP_TS_HZ * (tp->rx_opt.rcv_tsval - lp->remote_ref_time)) /
	    (tp->rx_opt.rcv_tsecr - lp->local_ref_time);
	if (rhz > 0) {
		m -= rhz >> 6;
		rhz += m;
	} else {
		rhz = m << 6;
	}
out:
	if ((rhz >> 6) > 0)
		lp->flag |= LP_VALID_RHZ;
	else
		lp->flag &= ~LP_VALID_RHZ;
	lp->remote_ref_time = tp->rx_opt.rcv_tsval;
	lp->local_ref_time = tp->rx_opt.rcv_tsecr;
	return (__u32)(rhz >> 6);
}

/* Linux tcp_lp_owd_calculator; a remote rate of 0 scales by 0 (lp.rs). */
static __always_inline __u32 lp_owd_calculator(struct lp *lp, const struct tcp_sock *tp)
{
	__u32 owd = 0;
	__u32 scale;

	lp->remote_hz = lp_remote_hz_estimator(lp, tp);
	if (lp->flag & LP_VALID_RHZ) {
		scale = lp->remote_hz ? LP_RESOL / lp->remote_hz : 0;
		owd = tp->rx_opt.rcv_tsval * scale -
		      tp->rx_opt.rcv_tsecr * (LP_RESOL / TCP_TS_HZ);
	}
	if (owd > 0)
		lp->flag |= LP_VALID_OWD;
	else
		lp->flag &= ~LP_VALID_OWD;
	return owd;
}

/* Linux tcp_lp_rtt_sample. */
static __always_inline void lp_rtt_sample(struct lp *lp, const struct tcp_sock *tp)
{
	__s64 mowd = lp_owd_calculator(lp, tp);

	if (!(lp->flag & LP_VALID_RHZ) || !(lp->flag & LP_VALID_OWD))
		return;
	if (mowd < (__s64)lp->owd_min)
		lp->owd_min = (__u32)mowd;
	/* Always forget the largest: owd_max is the one below it. */
	if (mowd > (__s64)lp->owd_max) {
		if (mowd > (__s64)lp->owd_max_rsv) {
			if (lp->owd_max_rsv == 0)
				lp->owd_max = (__u32)mowd;
			else
				lp->owd_max = lp->owd_max_rsv;
			lp->owd_max_rsv = (__u32)mowd;
		} else {
			lp->owd_max = (__u32)mowd;
		}
	}
	if (lp->sowd != 0) {
		mowd -= lp->sowd >> 3;
		lp->sowd = (__u32)((__s64)lp->sowd + mowd);
	} else {
		lp->sowd = (__u32)(mowd << 3);
	}
}

SEC("struct_ops")
void BPF_PROG(lp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct lp *lp = inet_csk_ca(sk);
	__u32 now = tcp_time_stamp_ms(tp);
	__u32 delta;

	if (sample->rtt_us > 0)
		lp_rtt_sample(lp, tp);
	delta = now - tp->rx_opt.rcv_tsecr;
	if ((__s32)delta > 0)
		lp->inference = 3 * delta;
	if (lp->last_drop && (now - lp->last_drop < lp->inference))
		lp->flag |= LP_WITHIN_INF;
	else
		lp->flag &= ~LP_WITHIN_INF;
	if (lp->sowd >> 3 < lp->owd_min + 15 * (lp->owd_max - lp->owd_min) / 100)
		lp->flag |= LP_WITHIN_THR;
	else
		lp->flag &= ~LP_WITHIN_THR;
	if (lp->flag & LP_WITHIN_THR)
		return;
	/* Restart the range from the smoothed delay (Linux's FIXME). */
	lp->owd_min = lp->sowd >> 3;
	lp->owd_max = lp->sowd >> 2;
	lp->owd_max_rsv = lp->sowd >> 2;
	if (lp->flag & LP_WITHIN_INF)
		tp->snd_cwnd = 1;
	else
		tp->snd_cwnd = hscc_max(tp->snd_cwnd >> 1, 1U);
	lp->last_drop = now;
}

SEC("struct_ops")
__u32 BPF_PROG(lp_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(lp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_lp = {
	.init = (void *)lp_init,
	.ssthresh = (void *)lp_ssthresh,
	.cong_avoid = (void *)lp_cong_avoid,
	.pkts_acked = (void *)lp_pkts_acked,
	.undo_cwnd = (void *)lp_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_lp",
};
