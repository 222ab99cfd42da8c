/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP Hybla (Caini & Firrincieli, Int. J. Satellite Commun. Netw. 22(5) 2004;
 * Linux 6.12 tcp_hybla.c): hscc-cc crates/hscc-cc/src/algos/hybla.rs. A
 * long-RTT flow grows as one at the reference RTT rtt0 would: with
 * rho = RTT/rtt0 (at least 1, kept << 3), slow start adds 2^rho - 1 segments
 * per ACK and congestion avoidance rho^2/cwnd, fractions kept << 7 until they
 * make a segment. Reno's decrease and undo; Reno outside the Open state.
 */
#include "hscc.h"

#define USEC_PER_MSEC 1000ULL     /* Linux USEC_PER_MSEC */
#define HYBLA_CWND_CLAMP 65535U   /* Linux hybla_init: snd_cwnd_clamp */
#define MINRTT_NONE 0xffffffffU   /* hybla.rs MINRTT_NONE: no smoothed RTT yet */

/* Hybla::bpf_globals. */
#define HYBLA_GLOBALS(X) X(__u32, rtt0)
HSCC_GLOBALS(hybla, HYBLA_GLOBALS)

/* Rust's Hybla state (Linux struct hybla). */
struct hybla {
	bool hybla_en;        /* Hybla's increase applies (Open state) */
	__u32 snd_cwnd_cents; /* fractions of a segment not yet in cwnd, << 7 */
	__u32 rho;            /* rho, integer part */
	__u32 rho2;           /* rho^2, integer part */
	__u32 rho_3ls;        /* rho << 3 */
	__u32 rho2_7ls;       /* rho^2 << 7 */
	__u32 minrtt_us;      /* smallest smoothed RTT seen, us << 3 */
};
HSCC_CA_PRIV_FITS(struct hybla);

/* hybla.rs hybla_fraction (Linux hybla_fraction): 2^(odds/8) << 7, truncated. */
static __always_inline __u32 hybla_fraction(__u32 odds)
{
	switch (odds) {
	case 0: return 128;
	case 1: return 139;
	case 2: return 152;
	case 3: return 165;
	case 4: return 181;
	case 5: return 197;
	case 6: return 215;
	case 7: return 234;
	default: return 128;
	}
}

/*
 * The clamp Linux's init sets (65535), within the socket's own: the same as
 * Rust's snd_cwnd_clamp whenever that is at most 65535, as it is from init on.
 */
static __always_inline __u32 hybla_clamp(const struct tcp_sock *tp)
{
	return hscc_min(tp->snd_cwnd_clamp, HYBLA_CWND_CLAMP);
}

/* Hybla::recalc_param (Linux hybla_recalc_param). */
static __always_inline void hybla_recalc_param(struct hybla *ca, const struct tcp_sock *tp)
{
	__u64 q = (__u64)tp->srtt_us / ((__u64)rtt0 * USEC_PER_MSEC);

	ca->rho_3ls = hscc_max((__u32)q, 8U);
	ca->rho = ca->rho_3ls >> 3;
	ca->rho2_7ls = (ca->rho_3ls * ca->rho_3ls) << 1;
	ca->rho2 = ca->rho2_7ls >> 7;
}

SEC("struct_ops")
void BPF_PROG(hybla_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hybla *ca = inet_csk_ca(sk);

	ca->rho = 0;
	ca->rho2 = 0;
	ca->rho_3ls = 0;
	ca->rho2_7ls = 0;
	ca->snd_cwnd_cents = 0;
	ca->hybla_en = true;
	tp->snd_cwnd = 2;
	/*
	 * Linux (and Rust) set snd_cwnd_clamp = 65535 here; a program may not
	 * write the clamp (bpf_tcp_ca_btf_struct_access), so hybla_clamp()
	 * applies it where cong_avoid uses the clamp.
	 */
	/* 1st rho from the smoothed RTT at hand. */
	hybla_recalc_param(ca, tp);
	/* The smallest smoothed RTT seen ("none" before a sample). */
	ca->minrtt_us = tp->srtt_us == 0 ? MINRTT_NONE : tp->srtt_us;
	tp->snd_cwnd = ca->rho;
}

SEC("struct_ops")
void BPF_PROG(hybla_set_state, struct sock *sk, __u8 new_state)
{
	struct hybla *ca = inet_csk_ca(sk);

	ca->hybla_en = new_state == TCP_CA_Open;
}

SEC("struct_ops")
void BPF_PROG(hybla_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct hybla *ca = inet_csk_ca(sk);
	__u32 rho_fractions, increment, odd;
	bool is_slowstart;

	/* Recompute rho only when this smoothed RTT is the smallest. */
	if (tp->srtt_us < ca->minrtt_us) {
		hybla_recalc_param(ca, tp);
		ca->minrtt_us = tp->srtt_us;
	}
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (!ca->hybla_en) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if (ca->rho == 0)
		hybla_recalc_param(ca, tp);
	rho_fractions = ca->rho_3ls - (ca->rho << 3);
	is_slowstart = tcp_in_slow_start(tp);
	if (is_slowstart) {
		/* INC = 2^rho - 1, << 7: 2^int(rho) * (2^frac(rho) << 7) - 128. */
		increment = ((1U << hscc_min(ca->rho, 16U)) * hybla_fraction(rho_fractions)) - 128;
	} else {
		/* INC = rho^2/W, << 7. */
		increment = tp->snd_cwnd ? ca->rho2_7ls / tp->snd_cwnd : 0;
		if (increment < 128)
			tp->snd_cwnd_cnt += 1;
	}
	odd = increment % 128;
	tp->snd_cwnd += increment >> 7;
	ca->snd_cwnd_cents += odd;
	/* The fractions reached a segment (at most once). */
	if (ca->snd_cwnd_cents >= 128) {
		tp->snd_cwnd += 1;
		ca->snd_cwnd_cents -= 128;
		tp->snd_cwnd_cnt = 0;
	}
	/* No increase for a window of ACKs. */
	if (increment == 0 && odd == 0 && tp->snd_cwnd_cnt >= tp->snd_cwnd) {
		tp->snd_cwnd += 1;
		tp->snd_cwnd_cnt = 0;
	}
	if (is_slowstart)
		tp->snd_cwnd = hscc_min(tp->snd_cwnd, tp->snd_ssthresh);
	tp->snd_cwnd = hscc_min(tp->snd_cwnd, hybla_clamp(tp));
}

SEC("struct_ops")
__u32 BPF_PROG(hybla_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(hybla_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_hybla = {
	.init = (void *)hybla_init,
	.ssthresh = (void *)hybla_ssthresh,
	.cong_avoid = (void *)hybla_cong_avoid,
	.set_state = (void *)hybla_set_state,
	.undo_cwnd = (void *)hybla_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_hybla",
};
