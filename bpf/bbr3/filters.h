/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * BBR.max_bw_filter (draft-ietf-ccwg-bbr-06 §5.5.3–5.5.6): the max delivery
 * rate of the current and the previous ProbeBW cycle, two slots.
 *
 * Mirrors hscc-cc's crates/hscc-cc/src/algos/bbr3/filters.rs.
 * Part of bbr3.bpf.c, which includes it after its state and the helpers
 * of bbr3/mod.rs.
 */
#ifndef HSCC_BBR3_FILTERS_H
#define HSCC_BBR3_FILTERS_H

/* filters.rs MaxBwFilter (constant indices: the verifier's taste). */
static __always_inline __u32 max_bw(const struct bbr3 *b)
{
	return hscc_max(b->max_bw_slots[0], b->max_bw_slots[1]);
}

static __always_inline void max_bw_update(struct bbr3 *b, __u32 cycle, __u32 sample)
{
	if (cycle & 1)
		b->max_bw_slots[1] = hscc_max(b->max_bw_slots[1], sample);
	else
		b->max_bw_slots[0] = hscc_max(b->max_bw_slots[0], sample);
}

static __always_inline void max_bw_advance(struct bbr3 *b)
{
	b->cycle_count++;
	if (b->cycle_count & 1)
		b->max_bw_slots[1] = 0;
	else
		b->max_bw_slots[0] = 0;
}

#endif
