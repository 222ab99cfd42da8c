/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP Veno (Fu & Liew, IEEE JSAC 21(2) 2003; Linux tcp_veno.c): hscc-cc
 * crates/hscc-cc/src/algos/veno.rs. Reno whose increase and decrease depend
 * on the Vegas backlog N = cwnd·(RTT − baseRTT)/RTT, kept doubled as Linux
 * (V_PARAM_SHIFT 1), against β: below it +1 per RTT and a loss cuts by 1/5,
 * at or above it +1 every other RTT and a loss halves. The RTT samples come
 * from pkts_acked (rtt_round.h), as Linux's module takes them.
 */
#include "hscc.h"
#include "rtt_round.h"

#define V_PARAM_SHIFT 1 /* Linux V_PARAM_SHIFT */

/* Veno::bpf_globals. */
#define VENO_GLOBALS(X) X(__u32, beta)
HSCC_GLOBALS(veno, VENO_GLOBALS)

/* Rust's Veno state. */
struct veno {
	struct rtt_round rtt; /* baseRTT, the minimum since the previous ACK, samples */
	__u32 diff;           /* last backlog estimate, segments << V_PARAM_SHIFT */
	bool doing_veno_now;  /* the Veno rules apply (Open state) */
	bool inc;             /* congestive state: the next "RTT" of ACKs increases cwnd */
};
HSCC_CA_PRIV_FITS(struct veno);

/* Veno::enable (Linux veno_enable). */
static __always_inline void veno_enable(struct veno *ca)
{
	ca->doing_veno_now = true;
	ca->rtt.min_rtt = RTT_NONE;
}

/* Veno::restart (Linux tcp_veno_init). */
static __always_inline void veno_restart(struct veno *ca)
{
	ca->rtt.base_rtt = RTT_NONE;
	ca->inc = true;
	veno_enable(ca);
}

SEC("struct_ops")
void BPF_PROG(veno_init, struct sock *sk)
{
	struct veno *ca = inet_csk_ca(sk);

	/* Veno::new, then Veno::init. */
	rtt_round_default(&ca->rtt);
	ca->diff = 0;
	veno_restart(ca);
}

SEC("struct_ops")
void BPF_PROG(veno_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct veno *ca = inet_csk_ca(sk);

	rtt_round_sample(&ca->rtt, s->rtt_us);
}

SEC("struct_ops")
void BPF_PROG(veno_set_state, struct sock *sk, __u8 new_state)
{
	struct veno *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Open)
		veno_enable(ca);
	else
		ca->doing_veno_now = false;
}

SEC("struct_ops")
void BPF_PROG(veno_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	if (ev == CA_EVENT_CWND_RESTART || ev == CA_EVENT_TX_START)
		veno_restart(inet_csk_ca(sk));
}

SEC("struct_ops")
void BPF_PROG(veno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct veno *ca = inet_csk_ca(sk);

	if (!ca->doing_veno_now) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (ca->rtt.cnt_rtt <= 2) {
		tcp_reno_cong_avoid(sk, ack, acked);
	} else {
		/* diff = 2·cwnd − 2·cwnd·baseRTT/RTT = 2·N. */
		__u64 cwnd = tp->snd_cwnd;
		__u64 target = ((cwnd * ca->rtt.base_rtt) << V_PARAM_SHIFT) / ca->rtt.min_rtt;
		bool grow = true;

		ca->diff = (__u32)hscc_min(sat_sub64(cwnd << V_PARAM_SHIFT, target), 0xffffffffULL);
		if (tcp_in_slow_start(tp)) {
			acked = tcp_slow_start(tp, acked);
			grow = acked > 0;
		}
		if (grow) {
			if (ca->diff < beta) {
				/* Non-congestive: Reno, +1 per RTT. */
				__u32 w = tp->snd_cwnd;

				tcp_cong_avoid_ai(tp, w, acked);
			} else if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
				/* Congestive: +1 every other window of ACKs. */
				if (ca->inc && tp->snd_cwnd < tp->snd_cwnd_clamp) {
					tp->snd_cwnd += 1;
					ca->inc = false;
				} else {
					ca->inc = true;
				}
				tp->snd_cwnd_cnt = 0;
			} else {
				tp->snd_cwnd_cnt = sat_add32(tp->snd_cwnd_cnt, acked);
			}
		}
		tp->snd_cwnd = hscc_clamp(tp->snd_cwnd, 2U, hscc_max(tp->snd_cwnd_clamp, 2U));
	}
	/* The next decision uses only samples from the next ACK on. */
	ca->rtt.min_rtt = RTT_NONE;
}

SEC("struct_ops")
__u32 BPF_PROG(veno_ssthresh, struct sock *sk)
{
	struct veno *ca = inet_csk_ca(sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;

	if (ca->diff < beta)
		/* Random loss: cut by 1/5. */
		return hscc_max((__u32)((__u64)cwnd * 4 / 5), 2U);
	return hscc_max(cwnd >> 1, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(veno_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_veno = {
	.init = (void *)veno_init,
	.ssthresh = (void *)veno_ssthresh,
	.cong_avoid = (void *)veno_cong_avoid,
	.set_state = (void *)veno_set_state,
	.cwnd_event = (void *)veno_cwnd_event,
	.pkts_acked = (void *)veno_pkts_acked,
	.undo_cwnd = (void *)veno_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_veno",
};
