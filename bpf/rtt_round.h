/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Per-round RTT bookkeeping of Linux tcp_vegas.c: hscc-cc vegas.rs RttRound
 * (shared by Vegas and Veno there and here). baseRTT is the smallest sample
 * ever, min_rtt the smallest of the round, each sample + 1 µs so neither is
 * ever 0; a round ends when the data sent at its start is acknowledged.
 */
#ifndef HSCC_RTT_ROUND_H
#define HSCC_RTT_ROUND_H

/* vegas.rs RTT_NONE: no sample yet, as Linux's 0x7fffffff. */
#define RTT_NONE 0x7fffffffU

struct rtt_round {
	__u32 base_rtt;    /* smallest RTT sample ever + 1, µs (baseRTT) */
	__u32 min_rtt;     /* smallest RTT sample + 1 in the current round, µs */
	__u32 cnt_rtt;     /* RTT samples taken in the current round */
	__u32 beg_snd_nxt; /* snd_nxt when the current round began */
};

/* RttRound::default. */
static __always_inline void rtt_round_default(struct rtt_round *r)
{
	r->base_rtt = RTT_NONE;
	r->min_rtt = RTT_NONE;
	r->cnt_rtt = 0;
	r->beg_snd_nxt = 0;
}

/* RttRound::sample (Linux tcp_vegas_pkts_acked); rtt_us < 0 is no sample. */
static __always_inline void rtt_round_sample(struct rtt_round *r, __s32 rtt_us)
{
	__u32 vrtt;

	if (rtt_us < 0)
		return;
	/* Never allow a zero RTT or baseRTT. */
	vrtt = sat_add32((__u32)rtt_us, 1);
	r->base_rtt = hscc_min(r->base_rtt, vrtt);
	r->min_rtt = hscc_min(r->min_rtt, vrtt);
	r->cnt_rtt = sat_add32(r->cnt_rtt, 1);
}

/* RttRound::start: the round ends when data sent from now on is acknowledged. */
static __always_inline void rtt_round_start(struct rtt_round *r, __u32 snd_nxt)
{
	r->beg_snd_nxt = snd_nxt;
	r->cnt_rtt = 0;
	r->min_rtt = RTT_NONE;
}

/* RttRound::ended. */
static __always_inline bool rtt_round_ended(const struct rtt_round *r, __u32 ack)
{
	return after(ack, r->beg_snd_nxt);
}

#endif /* HSCC_RTT_ROUND_H */
