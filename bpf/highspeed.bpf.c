/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * HighSpeed TCP (RFC 3649; Linux tcp_highspeed.c): hscc-cc
 * crates/hscc-cc/src/algos/highspeed.rs. An AIMD whose a(w) and b(w) come
 * from a table indexed by cwnd: w += a(w)/w per acknowledged segment (RFC,
 * default) or a(w) once per ACK with at most +1 (Linux, per_ack); on loss
 * w·(1 − b(w)), b scaled by 256, re-indexed at the current cwnd.
 *
 * `response` 1 (the formula mode) instead evaluates the RFC §5 formulas at
 * the current window as ns-2 does (hstcp_table.h, highspeed.rs HstcpFormula),
 * with the constants of the parameter set in the formula_* globals;
 * snd_cwnd_cnt then counts 2^-10 segment.
 *
 * The table: with the RFC's four constants, RFC 3649 App. B as
 * bpf/hstcp_table.h has it (shared with TCP-Africa; `rows` = 0); with any
 * other constants, the table HighSpeed::new generates from the RFC §5
 * formulas (floating point, so in Rust), given row by row at load time in
 * the array globals table_cwnd[] and table_md[] (`rows` of them).
 */
#include "hscc.h"
#include "hstcp_table.h"

/* highspeed.rs MAX_ROWS: most rows a generated table has. */
#define HSTCP_MAX_ROWS 1024

/* HighSpeed::bpf_globals. */
#define HIGHSPEED_GLOBALS(X)              \
	X(bool, per_ack)                  \
	X(__u32, response)                \
	X(__u32, formula_low_window)      \
	X(__u32, formula_log2_low_q16)    \
	X(__u32, formula_log2_cap_q16)    \
	X(__u64, formula_b_drop_q32)      \
	X(__s64, formula_k_q32)           \
	X(__u32, rows)
HSCC_GLOBALS(highspeed, HIGHSPEED_GLOBALS)
#define HIGHSPEED_ARRAYS(X)                          \
	X(__u32, table_cwnd, HSTCP_MAX_ROWS)         \
	X(__u32, table_md, HSTCP_MAX_ROWS)
HSCC_GLOBAL_ARRAYS(highspeed, HIGHSPEED_ARRAYS)

/* Rust's HighSpeed state. */
struct highspeed {
	__u32 ai; /* table index tracking cwnd; a(w) = ai + 1 */
};
HSCC_CA_PRIV_FITS(struct highspeed);

/*
 * highspeed.rs table_index: the first row whose window is >= cwnd, or the
 * last. The generated table strictly increases, so a binary search finds
 * what Rust's partition_point does; 11 halvings cover 1024 rows.
 */
static __always_inline __u32 table_index(__u32 cwnd)
{
	__u32 lo = 0, hi = rows, k;

	if (rows == 0)
		return hstcp_index(cwnd);
	for (k = 0; k < 11 && lo < hi; k++) {
		__u32 mid = (lo + hi) / 2;

		if (table_cwnd[mid & (HSTCP_MAX_ROWS - 1)] < cwnd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return hscc_min(lo, rows - 1);
}

/* b(w)·256 of row i. */
static __always_inline __u32 table_md_at(__u32 i)
{
	if (rows == 0)
		return hstcp_aimd_vals[i & 127].md;
	return table_md[i & (HSTCP_MAX_ROWS - 1)];
}

/* The formula's constants (HighSpeed::bpf_globals). */
static __always_inline struct hstcp_formula formula(void)
{
	struct hstcp_formula f = {
		.low_window = formula_low_window,
		.log2_low_q16 = formula_log2_low_q16,
		.log2_cap_q16 = formula_log2_cap_q16,
		.b_drop_q32 = formula_b_drop_q32,
		.k_q32 = formula_k_q32,
	};

	return f;
}

/* HighSpeed::update_ai. */
static __always_inline void update_ai(struct highspeed *ca, __u32 cwnd)
{
	ca->ai = table_index(cwnd);
}

SEC("struct_ops")
void BPF_PROG(highspeed_init, struct sock *sk)
{
	struct highspeed *ca = inet_csk_ca(sk);

	ca->ai = 0;
}

SEC("struct_ops")
__u32 BPF_PROG(highspeed_ssthresh, struct sock *sk)
{
	struct highspeed *ca = inet_csk_ca(sk);
	__u64 cwnd = tcp_sk(sk)->snd_cwnd;
	__u64 md;

	if (response) {
		struct hstcp_formula f = formula();

		return hstcp_formula_ssthresh(&f, (__u32)cwnd);
	}
	update_ai(ca, cwnd);
	md = table_md_at(ca->ai);
	return hscc_max((__u32)(cwnd - ((cwnd * md) >> 8)), 2U);
}

SEC("struct_ops")
void BPF_PROG(highspeed_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct highspeed *ca = inet_csk_ca(sk);
	__u32 w;

	if (per_ack) {
		/* Linux: slow start's leftover is dropped; a(w) per ACK, at most +1. */
		if (!hscc_in_congestion_avoidance(sk, acked))
			return;
		if (response) {
			struct hstcp_formula f = formula();

			if (tp->snd_cwnd < tp->snd_cwnd_clamp)
				hstcp_formula_cong_avoid_per_ack(&f, tp);
			return;
		}
		update_ai(ca, tp->snd_cwnd);
		if (tp->snd_cwnd < tp->snd_cwnd_clamp) {
			tp->snd_cwnd_cnt = sat_add32(tp->snd_cwnd_cnt, ca->ai + 1);
			if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
				tp->snd_cwnd_cnt -= tp->snd_cwnd;
				tp->snd_cwnd += 1;
			}
		}
		return;
	}
	/* RFC 3649: w += a(w)/w for each acknowledged segment. */
	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	if (response) {
		struct hstcp_formula f = formula();

		hstcp_formula_cong_avoid_ai(&f, tp, acked);
		return;
	}
	update_ai(ca, tp->snd_cwnd);
	w = tp->snd_cwnd;
	tcp_cong_avoid_ai(tp, w, sat_mul32(acked, ca->ai + 1));
}

SEC("struct_ops")
__u32 BPF_PROG(highspeed_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_highspeed = {
	.init = (void *)highspeed_init,
	.ssthresh = (void *)highspeed_ssthresh,
	.cong_avoid = (void *)highspeed_cong_avoid,
	.undo_cwnd = (void *)highspeed_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_highspeed",
};
