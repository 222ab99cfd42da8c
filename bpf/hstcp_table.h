/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * RFC 3649 Appendix B as Linux tcp_highspeed.c has it: hscc-cc highspeed.rs
 * HSTCP_AIMD_VALS, hstcp_ai and hstcp_md. Row i covers windows above row
 * i-1's up to cwnd: a(w) = i + 1, b(w) = md/256. The conformance crate checks
 * this copy against the Rust table entry by entry.
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

#endif /* HSCC_HSTCP_TABLE_H */
