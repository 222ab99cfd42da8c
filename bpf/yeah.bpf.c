/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * YeAH-TCP (Baiocchi, Castellani & Vacirca, PFLDnet 2007; Linux 6.12
 * tcp_yeah.c with tcp_vegas.c's RTT sampling): hscc-cc
 * crates/hscc-cc/src/algos/yeah.rs. Once per round, the Vegas queue estimate
 * Q = cwnd·(RTT − baseRTT)/RTT picks Scalable's increase (Q ≤ 80 and little
 * queueing delay) or Reno's, draining Q when it exceeds 80; a loss removes
 * Q (within cwnd/8 .. cwnd/2) unless 16 rounds in a row were Reno's (then
 * halves).
 */
#include "hscc.h"

#define TCP_YEAH_ALPHA 80U      /* Linux TCP_YEAH_ALPHA */
#define TCP_YEAH_GAMMA 1U       /* Linux TCP_YEAH_GAMMA */
#define TCP_YEAH_DELTA 3        /* Linux TCP_YEAH_DELTA */
#define TCP_YEAH_EPSILON 1      /* Linux TCP_YEAH_EPSILON */
#define TCP_YEAH_PHY 8U         /* Linux TCP_YEAH_PHY */
#define TCP_YEAH_RHO 16U        /* Linux TCP_YEAH_RHO */
#define TCP_YEAH_ZETA 50U       /* Linux TCP_YEAH_ZETA */
#define TCP_SCALABLE_AI_CNT 100U /* Linux tcp_yeah.c */
#define DOING_RENO_MAX 0xffffffU /* Linux tcp_yeah_cong_avoid */
#define RTT_NONE 0x7fffffffU    /* Linux vegas_enable, tcp_vegas_init */

/* No parameters (Linux's module has none). */
#define YEAH_GLOBALS(X)
HSCC_GLOBALS(yeah, YEAH_GLOBALS)

/* Rust's VegasRtt (Linux struct vegas, tcp_vegas.h). */
struct vegas_rtt {
	__u32 beg_snd_nxt;   /* right edge of the current round */
	__u32 beg_snd_una;   /* left edge of the current round (unused, as Linux) */
	__u32 beg_snd_cwnd;  /* cwnd at the round's start (unused, as Linux) */
	bool doing_vegas_now; /* sampling on (Open state) */
	__u16 cnt_rtt;       /* RTT samples in the round (wraps, as Linux) */
	__u32 min_rtt;       /* smallest sample + 1 in the round, us */
	__u32 base_rtt;      /* smallest sample + 1 ever, us */
};

/* Rust's Yeah state (Linux struct yeah). */
struct yeah {
	struct vegas_rtt vegas;
	__u32 last_q;         /* queue estimate of the last evaluated round */
	__u32 doing_reno_now; /* consecutive slow (Reno) rounds */
	__u32 reno_count;     /* estimated Reno window */
	__u32 fast_count;     /* consecutive fast rounds since the last reset */
};
HSCC_CA_PRIV_FITS(struct yeah);

/* VegasRtt::enable (Linux vegas_enable). */
static __always_inline void vegas_enable(struct vegas_rtt *v, const struct tcp_sock *tp)
{
	v->doing_vegas_now = true;
	v->beg_snd_nxt = tp->snd_nxt;
	v->cnt_rtt = 0;
	v->min_rtt = RTT_NONE;
}

/* VegasRtt::init (Linux tcp_vegas_init). */
static __always_inline void vegas_init(struct vegas_rtt *v, const struct tcp_sock *tp)
{
	v->base_rtt = RTT_NONE;
	vegas_enable(v, tp);
}

SEC("struct_ops")
void BPF_PROG(yeah_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct yeah *ca = inet_csk_ca(sk);

	/* Yeah::new (zeroes, as the kernel's icsk_ca_priv), then Yeah::init. */
	ca->vegas.beg_snd_una = 0;
	ca->vegas.beg_snd_cwnd = 0;
	ca->fast_count = 0;
	vegas_init(&ca->vegas, tp);
	ca->doing_reno_now = 0;
	ca->last_q = 0;
	ca->reno_count = 2;
	/*
	 * Linux (and Rust) cap snd_cwnd_clamp at 0xffffffff/128 here; a program
	 * may not write the clamp (bpf_tcp_ca_btf_struct_access), and no window
	 * comes near 2^25 segments: nothing to do.
	 */
}

SEC("struct_ops")
void BPF_PROG(yeah_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct yeah *ca = inet_csk_ca(sk);
	__u32 vrtt;

	/* Linux tcp_vegas_pkts_acked. */
	if (s->rtt_us < 0)
		return;
	/* Never a zero RTT or baseRTT. */
	vrtt = (__u32)s->rtt_us + 1;
	if (vrtt < ca->vegas.base_rtt)
		ca->vegas.base_rtt = vrtt;
	ca->vegas.min_rtt = hscc_min(ca->vegas.min_rtt, vrtt);
	ca->vegas.cnt_rtt++;
}

SEC("struct_ops")
void BPF_PROG(yeah_set_state, struct sock *sk, __u8 new_state)
{
	struct yeah *ca = inet_csk_ca(sk);

	/* Linux tcp_vegas_state. */
	if (new_state == TCP_CA_Open)
		vegas_enable(&ca->vegas, tcp_sk(sk));
	else
		ca->vegas.doing_vegas_now = false;
}

SEC("struct_ops")
void BPF_PROG(yeah_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct yeah *ca = inet_csk_ca(sk);

	/* Linux tcp_vegas_cwnd_event. */
	if (ev == CA_EVENT_CWND_RESTART || ev == CA_EVENT_TX_START)
		vegas_init(&ca->vegas, tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(yeah_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct yeah *ca = inet_csk_ca(sk);
	bool grow = true;

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		grow = acked > 0;
	}
	if (grow) {
		if (ca->doing_reno_now == 0) {
			/* Scalable. */
			__u32 w = hscc_min(tp->snd_cwnd, TCP_SCALABLE_AI_CNT);

			tcp_cong_avoid_ai(tp, w, acked);
		} else {
			/* Reno. */
			__u32 w = tp->snd_cwnd;

			tcp_cong_avoid_ai(tp, w, acked);
		}
	}
	/* do_vegas: once per round. */
	if (after(ack, ca->vegas.beg_snd_nxt)) {
		/* More than 2 samples: at least one not from a delayed ACK. */
		if (ca->vegas.cnt_rtt > 2) {
			__u32 rtt = ca->vegas.min_rtt;
			__u32 excess = rtt - ca->vegas.base_rtt;
			/* Segments queued beyond the bandwidth-delay product. */
			__u32 queue = (__u32)((__u64)tp->snd_cwnd * excess / rtt);

			if (queue > TCP_YEAH_ALPHA || excess > ca->vegas.base_rtt / TCP_YEAH_PHY) {
				if (queue > TCP_YEAH_ALPHA && tp->snd_cwnd > ca->reno_count) {
					__u32 reduction = hscc_min(queue / TCP_YEAH_GAMMA,
								   tp->snd_cwnd >> TCP_YEAH_EPSILON);

					tp->snd_cwnd -= reduction;
					tp->snd_cwnd = hscc_max(tp->snd_cwnd, ca->reno_count);
					tp->snd_ssthresh = tp->snd_cwnd;
				}
				if (ca->reno_count <= 2)
					ca->reno_count = hscc_max(tp->snd_cwnd >> 1, 2U);
				else
					ca->reno_count++;
				ca->doing_reno_now = hscc_min(ca->doing_reno_now + 1, DOING_RENO_MAX);
			} else {
				ca->fast_count++;
				if (ca->fast_count > TCP_YEAH_ZETA) {
					ca->reno_count = 2;
					ca->fast_count = 0;
				}
				ca->doing_reno_now = 0;
			}
			ca->last_q = queue;
		}
		/* The extent of this round, for the end of the next. */
		ca->vegas.beg_snd_una = ca->vegas.beg_snd_nxt;
		ca->vegas.beg_snd_nxt = tp->snd_nxt;
		ca->vegas.beg_snd_cwnd = tp->snd_cwnd;
		ca->vegas.cnt_rtt = 0;
		ca->vegas.min_rtt = RTT_NONE;
	}
}

SEC("struct_ops")
__u32 BPF_PROG(yeah_ssthresh, struct sock *sk)
{
	struct yeah *ca = inet_csk_ca(sk);
	__u32 cwnd = tcp_sk(sk)->snd_cwnd;
	__u32 reduction;

	if (ca->doing_reno_now < TCP_YEAH_RHO) {
		reduction = hscc_min(ca->last_q, hscc_max(cwnd >> 1, 2U));
		reduction = hscc_max(reduction, cwnd >> TCP_YEAH_DELTA);
	} else {
		reduction = hscc_max(cwnd >> 1, 2U);
	}
	ca->fast_count = 0;
	ca->reno_count = hscc_max(ca->reno_count >> 1, 2U);
	/* Linux's max_t(int, cwnd - reduction, 2): a negative difference gives 2. */
	return (__u32)hscc_max((__s32)(cwnd - reduction), 2);
}

SEC("struct_ops")
__u32 BPF_PROG(yeah_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_yeah = {
	.init = (void *)yeah_init,
	.ssthresh = (void *)yeah_ssthresh,
	.cong_avoid = (void *)yeah_cong_avoid,
	.set_state = (void *)yeah_set_state,
	.cwnd_event = (void *)yeah_cwnd_event,
	.pkts_acked = (void *)yeah_pkts_acked,
	.undo_cwnd = (void *)yeah_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_yeah",
};
