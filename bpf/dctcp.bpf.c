/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * DCTCP (Alizadeh et al., SIGCOMM 2010; RFC 8257; Linux 6.12 tcp_dctcp.c):
 * hscc-cc crates/hscc-cc/src/algos/dctcp.rs. α, the fraction of segments
 * delivered with an ECN echo, in 1/1024 units, is updated once per window
 * from delivered/delivered_ce with gain 2^-dctcp_shift_g; an echo cuts to
 * cwnd·(1 − α/2), a loss halves, growth is Reno's. Flagged
 * TCP_CONG_NEEDS_ECN, as Linux's: the kernel turns ECN on for the
 * connection. The receiver's half of dctcp_ece_ack_update (its ACKs) is the
 * simulator's (hscc-sim tcp/ecn.rs); here the ECN events keep ce_state only,
 * as in Rust.
 */
#include "hscc.h"

#define DCTCP_MAX_ALPHA 1024U /* Linux DCTCP_MAX_ALPHA */

/* Dctcp::bpf_globals. */
#define DCTCP_GLOBALS(X) X(__u32, dctcp_shift_g) X(__u32, dctcp_alpha_on_init)
HSCC_GLOBALS(dctcp, DCTCP_GLOBALS)

/* Rust's Dctcp state (Linux struct dctcp without PLB and prior_rcv_nxt). */
struct dctcp {
	__u32 old_delivered;
	__u32 old_delivered_ce;
	__u32 alpha;
	__u32 next_seq;
	__u32 ce_state;
	__u32 loss_cwnd;
};
HSCC_CA_PRIV_FITS(struct dctcp);

/* Linux min_not_zero. */
static __always_inline __u32 min_not_zero(__u32 x, __u32 y)
{
	if (x == 0)
		return y;
	if (y == 0)
		return x;
	return hscc_min(x, y);
}

/* Dctcp::reset (Linux dctcp_reset). */
static __always_inline void dctcp_reset(const struct tcp_sock *tp, struct dctcp *ca)
{
	ca->next_seq = tp->snd_nxt;
	ca->old_delivered = tp->delivered;
	ca->old_delivered_ce = tp->delivered_ce;
}

/* Dctcp::react_to_loss (Linux dctcp_react_to_loss). */
static __always_inline void dctcp_react_to_loss(struct sock *sk)
{
	struct dctcp *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	ca->loss_cwnd = tp->snd_cwnd;
	tp->snd_ssthresh = hscc_max(tp->snd_cwnd >> 1U, 2U);
}

SEC("struct_ops")
void BPF_PROG(dctcp_init, struct sock *sk)
{
	struct dctcp *ca = inet_csk_ca(sk);

	ca->alpha = hscc_min(dctcp_alpha_on_init, DCTCP_MAX_ALPHA);
	ca->loss_cwnd = 0;
	ca->ce_state = 0;
	dctcp_reset(tcp_sk(sk), ca);
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_ssthresh, struct sock *sk)
{
	struct dctcp *ca = inet_csk_ca(sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	ca->loss_cwnd = cwnd;
	return hscc_max(cwnd - ((cwnd * ca->alpha) >> 11U), 2U);
}

SEC("struct_ops")
void BPF_PROG(dctcp_update_alpha, struct sock *sk, __u32 flags)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct dctcp *ca = inet_csk_ca(sk);
	__u32 delivered, delivered_ce, alpha;

	if (before(tp->snd_una, ca->next_seq))
		return;
	delivered = tp->delivered - ca->old_delivered;
	delivered_ce = tp->delivered_ce - ca->old_delivered_ce;
	alpha = ca->alpha;
	alpha -= min_not_zero(alpha, alpha >> dctcp_shift_g);
	if (delivered_ce) {
		/* F·g in 1/1024 units: delivered_ce·2^(10−g)/delivered. */
		delivered_ce <<= (10 - dctcp_shift_g);
		delivered_ce /= hscc_max(1U, delivered);
		alpha = hscc_min(alpha + delivered_ce, DCTCP_MAX_ALPHA);
	}
	ca->alpha = alpha;
	dctcp_reset(tp, ca);
}

SEC("struct_ops")
void BPF_PROG(dctcp_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Recovery && new_state != hscc_ca_state(sk))
		dctcp_react_to_loss(sk);
}

SEC("struct_ops")
void BPF_PROG(dctcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct dctcp *ca = inet_csk_ca(sk);

	switch (ev) {
	case CA_EVENT_ECN_IS_CE:
		ca->ce_state = 1;
		break;
	case CA_EVENT_ECN_NO_CE:
		ca->ce_state = 0;
		break;
	case CA_EVENT_LOSS:
		dctcp_react_to_loss(sk);
		break;
	default:
		break;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(dctcp_cwnd_undo, struct sock *sk)
{
	const struct dctcp *ca = inet_csk_ca(sk);

	return hscc_max(tcp_sk(sk)->snd_cwnd, ca->loss_cwnd);
}

SEC("struct_ops")
void BPF_PROG(dctcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_dctcp = {
	.init = (void *)dctcp_init,
	.in_ack_event = (void *)dctcp_update_alpha,
	.cwnd_event = (void *)dctcp_cwnd_event,
	.ssthresh = (void *)dctcp_ssthresh,
	.cong_avoid = (void *)dctcp_cong_avoid,
	.undo_cwnd = (void *)dctcp_cwnd_undo,
	.set_state = (void *)dctcp_state,
	.flags = TCP_CONG_NON_RESTRICTED | TCP_CONG_NEEDS_ECN,
	.name = "hscc_dctcp",
};
