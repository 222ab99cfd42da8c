// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Data of bpf/ the Rust side checks: the shim's struct tcp_sock layout
 * (for the #[repr(C)] mirror), the HighSpeed table, and hscc.h's
 * replacements for Rust's u128 arithmetic. */
#include "hscc.h"
#include "hstcp_table.h"

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

__u64 hscc_user_mul_q16(__u64 a, __u32 b)
{
	return mul_q16(a, b);
}

__u64 hscc_user_div_ceil_q16(__u64 a, __u32 d)
{
	return div_ceil_q16(a, d);
}
