/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP-Africa (King, Baraniuk, Riedi, IEEE INFOCOM 2005 §III): hscc-cc
 * crates/hscc-cc/src/algos/africa.rs, in the same fixed point (α Q16, aRTT
 * in µs Q8). HighSpeed's increase while W·(aRTT − minRTT) < α·aRTT (eq. 6
 * negated: fewer than α own packets queued), Reno's otherwise; HighSpeed's
 * decrease b(W) in both modes; a(W) and b(W) from RFC 3649's table, or
 * with `response` 1 from its formulas at the current window (hstcp_table.h,
 * the RFC's constants), snd_cwnd_cnt then counting 2^-10 segment in every
 * mode. The Rust file documents the law, the constants, their sources and
 * the choices where the paper is silent.
 */
#include "hscc.h"
#include "hstcp_table.h"

/* Africa::bpf_globals. */
#define AFRICA_GLOBALS(X)        \
	X(__u64, alpha_q16)      \
	X(__s64, gain_q16)       \
	X(bool, mimd)            \
	X(bool, stcp_decrease)   \
	X(bool, per_ack)         \
	X(__u32, response)
HSCC_GLOBALS(africa, AFRICA_GLOBALS)

/* HstcpFormula::RFC. */
static const struct hstcp_formula hstcp_rfc = HSTCP_FORMULA_RFC;

/* Rust's Africa state. */
struct africa {
	__u64 artt_q8;    /* aRTT, µs Q8 (0 before the first sample) */
	__u32 min_rtt_us; /* minRTT, µs (~0 before the first sample) */
	bool fast;        /* mode of the last congestion-avoidance step */
};
HSCC_CA_PRIV_FITS(struct africa);

SEC("struct_ops")
void BPF_PROG(africa_init, struct sock *sk)
{
	struct africa *ca = inet_csk_ca(sk);

	/* Africa::new */
	ca->artt_q8 = 0;
	ca->min_rtt_us = ~0U;
	ca->fast = false;
}

SEC("struct_ops")
void BPF_PROG(africa_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct africa *ca = inet_csk_ca(sk);
	__u32 rtt;
	__u64 rtt_q8;

	if (s->rtt_us < 0)
		return;
	rtt = s->rtt_us > 0 ? (__u32)s->rtt_us : 1;
	rtt_q8 = (__u64)rtt << 8;
	if (ca->artt_q8 == 0) {
		ca->artt_q8 = rtt_q8;
	} else {
		/* An arithmetic shift, as Rust's on i64: the step rounds down. */
		__s64 step = (((__s64)rtt_q8 - (__s64)ca->artt_q8) * gain_q16) >> 16;

		ca->artt_q8 = (__u64)((__s64)ca->artt_q8 + step);
	}
	if (ca->min_rtt_us > rtt)
		ca->min_rtt_us = rtt;
}

/* Africa::no_congestion: eq. 6 negated, W·(aRTT − minRTT) < α·aRTT. */
static __always_inline bool no_congestion(const struct africa *ca, __u32 w)
{
	__u64 min_q8 = (__u64)ca->min_rtt_us << 8;
	__u64 queued = sat_mul64(w, sat_sub64(ca->artt_q8, min_q8));

	return queued < (sat_mul64(alpha_q16, ca->artt_q8) >> 16);
}

SEC("struct_ops")
void BPF_PROG(africa_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct africa *ca = inet_csk_ca(sk);
	__u32 w, s;

	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	w = tp->snd_cwnd;
	ca->fast = no_congestion(ca, w);
	/* With the formulas snd_cwnd_cnt counts 2^-s segment in every mode. */
	s = response ? hstcp_credit_shift(hscc_max(w, 1U)) : 0;
	if (ca->fast && !mimd) {
		__u32 per = per_ack ? 1 : acked;

		if (response)
			hstcp_formula_cong_avoid_ai(&hstcp_rfc, tp, per);
		else
			tcp_cong_avoid_ai(tp, w, sat_mul32(per, hstcp_ai(w)));
	} else if (ca->fast) {
		tcp_cong_avoid_ai(tp, hscc_min(w, 100U) << s, sat_mul32(acked, 1U << s));
	} else {
		tcp_cong_avoid_ai(tp, hscc_max(w, 1U) << s, sat_mul32(acked, 1U << s));
	}
}

SEC("struct_ops")
__u32 BPF_PROG(africa_ssthresh, struct sock *sk)
{
	__u32 w = tcp_sk(sk)->snd_cwnd;
	__u32 cut;

	if (response && !stcp_decrease)
		return hstcp_formula_ssthresh(&hstcp_rfc, w);
	if (stcp_decrease)
		cut = w >> 3;
	else
		cut = (__u32)(((__u64)w * hstcp_md(w)) >> 8);
	return hscc_max(w - cut, 2U);
}

SEC("struct_ops")
__u32 BPF_PROG(africa_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_africa = {
	.init = (void *)africa_init,
	.ssthresh = (void *)africa_ssthresh,
	.cong_avoid = (void *)africa_cong_avoid,
	.pkts_acked = (void *)africa_pkts_acked,
	.undo_cwnd = (void *)africa_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_africa",
};
