/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8) 1995; Linux tcp_vegas.c):
 * hscc-cc crates/hscc-cc/src/algos/vegas.rs. Once per round, from the
 * round's smallest RTT and the smallest ever (baseRTT), diff =
 * cwnd·(RTT − baseRTT)/baseRTT segments queued: +1 below α, −1 above β, hold
 * between; slow start is left once diff > γ. Only in the Open state; Reno's
 * loss response. The RTT samples come from pkts_acked, as Linux's module
 * takes them.
 */
#include "hscc.h"
#include "rtt_round.h"

/* Vegas::bpf_globals. */
#define VEGAS_GLOBALS(X)   \
	X(__u32, alpha)    \
	X(__u32, beta)     \
	X(__u32, gamma)    \
	X(__u32, paper_diff) \
	X(__u32, smoothed_rtt)
HSCC_GLOBALS(vegas, VEGAS_GLOBALS)

/* Rust's Vegas state. */
struct vegas {
	struct rtt_round round; /* RTT samples and round boundary */
	bool doing_vegas_now;   /* the per-round logic runs (Open state) */
};
HSCC_CA_PRIV_FITS(struct vegas);

/* Vegas::enable (Linux vegas_enable): start a fresh round. */
static __always_inline void vegas_enable(struct vegas *ca, const struct tcp_sock *tp)
{
	ca->doing_vegas_now = true;
	rtt_round_start(&ca->round, tp->snd_nxt);
}

/* Vegas::restart (Linux tcp_vegas_init): also forget baseRTT. */
static __always_inline void vegas_restart(struct vegas *ca, const struct tcp_sock *tp)
{
	ca->round.base_rtt = RTT_NONE;
	vegas_enable(ca, tp);
}

/* vegas.rs tcp_current_ssthresh: max(ssthresh, ¾·cwnd) outside a reduction. */
static __always_inline __u32 tcp_current_ssthresh(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u8 state = hscc_ca_state(sk);

	if (state == TCP_CA_CWR || state == TCP_CA_Recovery)
		return tp->snd_ssthresh;
	return hscc_max(tp->snd_ssthresh, (tp->snd_cwnd >> 1) + (tp->snd_cwnd >> 2));
}

/* Vegas::adjust: the once-per-round decision from a round with > 2 samples. */
static __always_inline void vegas_adjust(struct vegas *ca, struct sock *sk, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u64 rtt = ca->round.min_rtt;
	__u64 base = ca->round.base_rtt;
	__u64 cwnd = tp->snd_cwnd;
	/* Window that would have given the actual rate at baseRTT, and the
	 * segments queued beyond it. */
	__u64 target = cwnd * base / rtt;
	/* paper_diff: the paper's (and ns-3's) cwnd − target; Linux's otherwise. */
	__u64 diff = paper_diff ? cwnd - target : cwnd * (rtt - base) / base;

	if (diff > gamma && tcp_in_slow_start(tp)) {
		/* Too fast: match the actual rate (+1 for the truncation) and
		 * continue in congestion avoidance. */
		tp->snd_cwnd = hscc_min(tp->snd_cwnd, (__u32)hscc_min(target + 1, 0xffffffffULL));
		tp->snd_ssthresh = hscc_max(hscc_min(tp->snd_ssthresh, tp->snd_cwnd), 2U);
	} else if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
	} else if (diff > beta) {
		tp->snd_cwnd -= 1;
		tp->snd_ssthresh = hscc_max(hscc_min(tp->snd_ssthresh, tp->snd_cwnd), 2U);
	} else if (diff < alpha) {
		tp->snd_cwnd += 1;
	}
	tp->snd_cwnd = hscc_clamp(tp->snd_cwnd, 2U, hscc_max(tp->snd_cwnd_clamp, 2U));
	tp->snd_ssthresh = tcp_current_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(vegas_init, struct sock *sk)
{
	struct vegas *ca = inet_csk_ca(sk);

	/* Vegas::new, then Vegas::init. */
	rtt_round_default(&ca->round);
	vegas_restart(ca, tcp_sk(sk));
}

SEC("struct_ops")
__u32 BPF_PROG(vegas_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(vegas_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct vegas *ca = inet_csk_ca(sk);
	struct tcp_sock *tp = tcp_sk(sk);

	/* smoothed_rtt: ns-3 passes the smoothed RTT on every ACK; Linux the sample. */
	if (!smoothed_rtt)
		rtt_round_sample(&ca->round, s->rtt_us);
	else if (tp->srtt_us > 0)
		rtt_round_sample(&ca->round, (__s32)(tp->srtt_us >> 3));
}

SEC("struct_ops")
void BPF_PROG(vegas_set_state, struct sock *sk, __u8 new_state)
{
	struct vegas *ca = inet_csk_ca(sk);

	if (new_state == TCP_CA_Open)
		vegas_enable(ca, tcp_sk(sk));
	else
		ca->doing_vegas_now = false;
}

SEC("struct_ops")
void BPF_PROG(vegas_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	if (ev == CA_EVENT_CWND_RESTART || ev == CA_EVENT_TX_START)
		vegas_restart(inet_csk_ca(sk), tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(vegas_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct vegas *ca = inet_csk_ca(sk);

	if (!ca->doing_vegas_now) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if (rtt_round_ended(&ca->round, ack)) {
		/* Samples of the round just ended decide; the next round ends
		 * when what is sent from now on is acknowledged. */
		if (ca->round.cnt_rtt <= 2)
			/* Probably only delayed ACKs: behave as Reno. */
			tcp_reno_cong_avoid(sk, ack, acked);
		else
			vegas_adjust(ca, sk, acked);
		rtt_round_start(&ca->round, tp->snd_nxt);
	} else if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(vegas_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_vegas = {
	.init = (void *)vegas_init,
	.ssthresh = (void *)vegas_ssthresh,
	.cong_avoid = (void *)vegas_cong_avoid,
	.set_state = (void *)vegas_set_state,
	.cwnd_event = (void *)vegas_cwnd_event,
	.pkts_acked = (void *)vegas_pkts_acked,
	.undo_cwnd = (void *)vegas_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_vegas",
};
