/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * RFC 3649 Appendix B as Linux tcp_highspeed.c has it: hscc-cc highspeed.rs
 * HSTCP_AIMD_VALS, hstcp_ai and hstcp_md. Row i covers windows above row
 * i-1's up to cwnd: a(w) = i + 1, b(w) = md/256. The conformance crate checks
 * this copy against the Rust table entry by entry. Below the table, the RFC
 * 3649 section 5 formulas in fixed point (highspeed.rs HstcpFormula), which
 * the conformance crate checks against Rust's window by window.
 */
#ifndef HSCC_HSTCP_TABLE_H
#define HSCC_HSTCP_TABLE_H

#define HSTCP_ROWS 72

struct hstcp_aimd_val {
	__u32 cwnd;
	__u32 md;
};

static const struct hstcp_aimd_val hstcp_aimd_vals[HSTCP_ROWS] = {
	{38, 128},    {118, 112},   {221, 104},   {347, 98},    {495, 93},    {663, 89},
	{851, 86},    {1058, 83},   {1284, 81},   {1529, 78},   {1793, 76},   {2076, 74},
	{2378, 72},   {2699, 71},   {3039, 69},   {3399, 68},   {3778, 66},   {4177, 65},
	{4596, 64},   {5036, 62},   {5497, 61},   {5979, 60},   {6483, 59},   {7009, 58},
	{7558, 57},   {8130, 56},   {8726, 55},   {9346, 54},   {9991, 53},   {10661, 52},
	{11358, 52},  {12082, 51},  {12834, 50},  {13614, 49},  {14424, 48},  {15265, 48},
	{16137, 47},  {17042, 46},  {17981, 45},  {18955, 45},  {19965, 44},  {21013, 43},
	{22101, 43},  {23230, 42},  {24402, 41},  {25618, 41},  {26881, 40},  {28193, 39},
	{29557, 39},  {30975, 38},  {32450, 38},  {33986, 37},  {35586, 36},  {37253, 36},
	{38992, 35},  {40808, 35},  {42707, 34},  {44694, 33},  {46776, 33},  {48961, 32},
	{51258, 32},  {53677, 31},  {56230, 30},  {58932, 30},  {61799, 29},  {64851, 28},
	{68113, 28},  {71617, 27},  {75401, 26},  {79517, 26},  {84035, 25},  {89053, 24},
};

/* highspeed.rs table_index: the first row whose window is >= cwnd, or the last. */
static __always_inline __u32 hstcp_index(__u32 cwnd)
{
	__u32 i;

	for (i = 0; i < HSTCP_ROWS - 1; i++) {
		if (hstcp_aimd_vals[i].cwnd >= cwnd)
			break;
	}
	return i;
}

/* a(w): segments added per RTT at window cwnd. */
static __always_inline __u32 hstcp_ai(__u32 cwnd)
{
	return hstcp_index(cwnd) + 1;
}

/* b(w) scaled by 256. */
static __always_inline __u32 hstcp_md(__u32 cwnd)
{
	return hstcp_aimd_vals[hstcp_index(cwnd) & 127].md;
}

/*
 * The formula mode (`response` = 1): RFC 3649 §5's a(w) and b(w) at the
 * current window, as ns-2's HSTCP evaluates them, in the integer arithmetic
 * of highspeed.rs HstcpFormula, operation for operation. The Rust file
 * documents the method and its error against ns-2's double precision.
 */

/* highspeed.rs A_SHIFT: a(w) in Q10; snd_cwnd_cnt's fraction bits. */
#define HSTCP_A_SHIFT 10

/* highspeed.rs LOG2_1_5_Q24: log2(1.5) in Q24. */
#define HSTCP_LOG2_1_5_Q24 9814042LL

/* highspeed.rs EXP2_STEPS_Q30: 2^(2^-(i+1)) in Q30, rounded. */
static const __u64 hstcp_exp2_steps_q30[24] = {
	1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106,
	1079572136, 1076653033, 1075196443, 1074468888, 1074105294, 1073923544,
	1073832680, 1073787251, 1073764537, 1073753181, 1073747502, 1073744663,
	1073743244, 1073742534, 1073742179, 1073742001, 1073741913, 1073741868,
};

/* highspeed.rs HstcpFormula: the constants of one parameter set. */
struct hstcp_formula {
	__u32 low_window;
	__u32 log2_low_q16;
	__u32 log2_cap_q16;
	__u64 b_drop_q32;
	__s64 k_q32;
};

/* highspeed.rs HstcpFormula::RFC: the RFC's constants (TCP-Africa's). */
#define HSTCP_FORMULA_RFC { 38, 343928, 1129911, 154872712ULL, 3423921373LL }

/*
 * highspeed.rs log2_q16: log2(w) in Q16, w = 0 counting as 1. Branch-free,
 * so that the verifier walks one path, not one per fraction bit.
 */
static __always_inline __u32 hstcp_log2_q16(__u32 w)
{
	__u32 n, x, t, frac = 0, i;
	__u64 m, bit;

	w = hscc_max(w, 1U);
	/* n = 31 - leading zeros (BPF has no such instruction): t = 1 iff the
	 * upper half of x's remaining bits is non-zero. */
	x = w;
	t = ((x >> 16) + 0xffff) >> 16;
	n = t << 4;
	x >>= t << 4;
	t = ((x >> 8) + 0xff) >> 8;
	n += t << 3;
	x >>= t << 3;
	t = ((x >> 4) + 0xf) >> 4;
	n += t << 2;
	x >>= t << 2;
	t = ((x >> 2) + 3) >> 2;
	n += t << 1;
	x >>= t << 1;
	n += x >> 1;
	m = ((__u64)w << 30) >> n;
	for (i = 0; i < 16; i++) {
		m = (m * m) >> 30; /* in [2^30, 2^32) */
		bit = m >> 31;
		m >>= bit;
		frac |= (__u32)bit << (15 - i);
	}
	return (n << 16) | frac;
}

/* highspeed.rs exp2_q30: 2^(frac/2^24) in Q30 for the low 24 bits of frac. */
static __always_inline __u64 hstcp_exp2_q30(__u32 frac)
{
	__u64 m = 1ULL << 30, bit;
	__u32 i;

	for (i = 0; i < 24; i++) {
		bit = (frac >> (23 - i)) & 1;
		m = (m * ((1ULL << 30) + bit * (hstcp_exp2_steps_q30[i] - (1ULL << 30)))) >> 30;
	}
	return m;
}

/* HstcpFormula::dlog_q16: min(log2 w, cap) - log2 Low_Window, Q16. */
static __always_inline __u64 hstcp_formula_dlog_q16(const struct hstcp_formula *f, __u32 w)
{
	__u32 l = hstcp_log2_q16(w);

	if (l > f->log2_cap_q16)
		l = f->log2_cap_q16;
	return l > f->log2_low_q16 ? l - f->log2_low_q16 : 0;
}

/* HstcpFormula::b_at: b in Q32 at d. */
static __always_inline __u64 hstcp_formula_b_at(const struct hstcp_formula *f, __u64 d)
{
	__u64 drop = (f->b_drop_q32 * d) >> 16;

	if (drop > (1ULL << 31) - 1)
		drop = (1ULL << 31) - 1;
	return (1ULL << 31) - drop;
}

/* HstcpFormula::b_q32: b(w) in Q32, 1/2 at w <= Low_Window. */
static __always_inline __u64 hstcp_formula_b_q32(const struct hstcp_formula *f, __u32 w)
{
	if (w <= f->low_window)
		return 1ULL << 31;
	return hstcp_formula_b_at(f, hstcp_formula_dlog_q16(f, w));
}

/* HstcpFormula::a_q10: a(w) in Q10, 1 at w <= Low_Window. */
static __always_inline __u32 hstcp_formula_a_q10(const struct hstcp_formula *f, __u32 w)
{
	__u64 d, b, fb, prod;
	__s64 x, shift;

	if (w <= f->low_window)
		return 1U << HSTCP_A_SHIFT;
	d = hstcp_formula_dlog_q16(f, w);
	b = hstcp_formula_b_at(f, d);
	/* log2(w^2 p(w)), Q24, at most 20; an arithmetic shift as Rust's on i64. */
	x = HSTCP_LOG2_1_5_Q24 + ((f->k_q32 * (__s64)d) >> 24);
	if (x > 20LL << 24)
		x = 20LL << 24;
	/* 2b/(2 - b), Q30. */
	fb = (b << 31) / ((1ULL << 33) - b);
	prod = hstcp_exp2_q30((__u32)(x & 0xffffff)) * fb;
	shift = 50 - (x >> 24);
	if (shift >= 64)
		return 0;
	return (__u32)((prod + (1ULL << (shift - 1))) >> shift);
}

/* HstcpFormula::ssthresh: ns-2's floor(w (1 - b(w))), at least 2. */
static __always_inline __u32 hstcp_formula_ssthresh(const struct hstcp_formula *f, __u32 w)
{
	__u64 wb = (__u64)w * hstcp_formula_b_q32(f, w);
	__u32 cut = (__u32)((wb >> 32) + ((wb & 0xffffffffULL) != 0));

	return hscc_max(w - cut, 2U);
}

/* highspeed.rs credit_shift: snd_cwnd_cnt's fraction bits at window w. */
static __always_inline __u32 hstcp_credit_shift(__u32 w)
{
	__u32 s = HSTCP_A_SHIFT;

	while (s > 0 && (w >> (32 - s)) != 0)
		s--;
	return s;
}

/* HstcpFormula::cong_avoid_ai: w += a(w)/w for each of `segments`. */
static __always_inline void hstcp_formula_cong_avoid_ai(const struct hstcp_formula *f,
							struct tcp_sock *tp, __u32 segments)
{
	__u32 w = hscc_max(tp->snd_cwnd, 1U);
	__u32 s = hstcp_credit_shift(w);
	__u64 credit = ((__u64)segments * hstcp_formula_a_q10(f, w)) >> (HSTCP_A_SHIFT - s);

	tcp_cong_avoid_ai(tp, w << s, credit > 0xffffffffULL ? 0xffffffffU : (__u32)credit);
}

/* HstcpFormula::cong_avoid_per_ack: Linux's per-ACK form, a(w) once, at most +1. */
static __always_inline void hstcp_formula_cong_avoid_per_ack(const struct hstcp_formula *f,
							     struct tcp_sock *tp)
{
	__u32 w = hscc_max(tp->snd_cwnd, 1U);
	__u32 s = hstcp_credit_shift(w);

	tp->snd_cwnd_cnt = sat_add32(tp->snd_cwnd_cnt, hstcp_formula_a_q10(f, w) >> (HSTCP_A_SHIFT - s));
	if (tp->snd_cwnd_cnt >= w << s) {
		tp->snd_cwnd_cnt -= w << s;
		tp->snd_cwnd += 1;
	}
}

#endif /* HSCC_HSTCP_TABLE_H */
