// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Data of bpf/ the Rust side checks: the shim's struct tcp_sock layout
 * (for the #[repr(C)] mirror), the HighSpeed table and formula, and hscc.h's
 * replacements for Rust's u128 arithmetic. */
#include "hscc.h"
#include "hstcp_table.h"

__thread __u64 hscc_prandom_state;

/* The connection's generator state, in and out of a hook call. */
void hscc_user_prandom_set(__u64 state)
{
	hscc_prandom_state = state;
}

__u64 hscc_user_prandom_get(void)
{
	return hscc_prandom_state;
}

void hscc_user_layout(size_t *out)
{
	hscc_user_layout_fill(out);
}

/* hstcp_table.h's rows as (cwnd, md) pairs; returns the row count. */
int hscc_user_hstcp_table(__u32 *out)
{
	for (int i = 0; i < HSTCP_ROWS; i++) {
		out[2 * i] = hstcp_aimd_vals[i].cwnd;
		out[2 * i + 1] = hstcp_aimd_vals[i].md;
	}
	return HSTCP_ROWS;
}

/* hstcp_table.h's formula at window w for the constants f. */
void hscc_user_hstcp_formula(__u32 w, const struct hstcp_formula *f, __u32 *log2_q16,
			     __u32 *a_q10, __u64 *b_q32, __u32 *ssthresh)
{
	*log2_q16 = hstcp_log2_q16(w);
	*a_q10 = hstcp_formula_a_q10(f, w);
	*b_q32 = hstcp_formula_b_q32(f, w);
	*ssthresh = hstcp_formula_ssthresh(f, w);
}

/* hstcp_table.h's HSTCP_FORMULA_RFC. */
void hscc_user_hstcp_formula_rfc(struct hstcp_formula *out)
{
	static const struct hstcp_formula rfc = HSTCP_FORMULA_RFC;

	*out = rfc;
}

__u64 hscc_user_mul_q16(__u64 a, __u32 b)
{
	return mul_q16(a, b);
}

__u64 hscc_user_div_ceil_q16(__u64 a, __u32 d)
{
	return div_ceil_q16(a, d);
}
