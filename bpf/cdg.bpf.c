/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * CAIA Delay-Gradient, CDG (Hayes & Armitage, IFIP Networking 2011; Linux
 * 6.12 tcp_cdg.c): hscc-cc crates/hscc-cc/src/algos/cdg.rs. Per RTT round,
 * the changes of the smallest and largest RTT sample, summed over `window`
 * rounds, make a gradient; a positive one backs off with probability
 * 1 - e^(-gradient·backoff_factor/10^6), through CWR to cwnd·backoff_beta,
 * remembering a shadow window; Reno's growth, HyStart in slow start.
 *
 * Linux keeps the gradient window in a kcalloc'ed array; here it is a
 * socket-local storage value (2 KiB for the largest window), created by
 * init, freed by release; a socket whose value could not be allocated runs
 * as Linux's does when kcalloc fails.
 *
 * Linux's tcp_enter_cwr is not a kfunc: in user space the shim's stand-in
 * asks the sender for CWR as the Rust does (TcpCc::enter_cwr); in the kernel
 * the backoff reduces at once and ends the reduction with it (docs/kernel.md).
 *
 * C's signed overflow is undefined and BPF (before v4) has no signed
 * division: the s32 arithmetic below wraps through u32, and sdiv32 divides
 * truncating toward zero, as Rust's wrapping_* and / do.
 */
#include "hscc.h"

#define HYSTART_ACK_TRAIN 1 /* Linux HYSTART_ACK_TRAIN */
#define HYSTART_DELAY 2     /* Linux HYSTART_DELAY */
#define CDG_UNKNOWN 0       /* Linux enum cdg_state */
#define CDG_NONFULL 1
#define CDG_FULL 2
#define CDG_BACKOFF 3
#define CDG_WINDOW_MAX 256 /* Linux tcp_cdg_register: window <= 256 */

/* Cdg::bpf_globals. */
#define CDG_GLOBALS(X)            \
	X(__u32, window)          \
	X(__u32, backoff_beta)    \
	X(__u32, backoff_factor)  \
	X(__u32, hystart_detect)  \
	X(__u32, use_ineff)       \
	X(bool, use_shadow)       \
	X(bool, use_tolerance)
HSCC_GLOBALS(cdg, CDG_GLOBALS)

/* Linux struct cdg_minmax (v64: both zero). */
struct cdg_minmax {
	__s32 min;
	__s32 max;
};

/* Rust's Cdg state (Linux struct cdg, the gradients apart). */
struct cdg {
	struct cdg_minmax rtt;      /* this round's smallest and largest RTT sample, us */
	struct cdg_minmax rtt_prev; /* the previous round's */
	struct cdg_minmax gsum;     /* sums of the window's gradients */
	bool gfilled;               /* the window has filled once */
	__u8 tail;                  /* next slot of the gradients */
	__u8 state;                 /* CDG_* */
	__u8 delack;                /* delayed-ACK filter credit */
	__u32 rtt_seq;              /* the round ends past this sequence number */
	__u32 shadow_wnd;           /* shadow window, segments */
	__u16 backoff_cnt;          /* backoffs since one was effectual */
	__u16 sample_cnt;           /* HyStart delay samples this round */
	__s32 delay_min;            /* smallest round minimum in slow start, us */
	__u32 last_ack;             /* HyStart ACK train: last ACK, us */
	__u32 round_start;          /* HyStart ACK train: its start, us */
};
HSCC_CA_PRIV_FITS(struct cdg);

/* Rust's Cdg::gradients (Linux's kcalloc'ed array). */
struct cdg_gradients {
	struct cdg_minmax g[CDG_WINDOW_MAX];
};
HSCC_SK_STORAGE(struct cdg_gradients, cdg_gradients)

static __always_inline bool minmax_zero(const struct cdg_minmax *m)
{
	return m->min == 0 && m->max == 0;
}

static __always_inline __s32 wsub32(__s32 a, __s32 b)
{
	return (__s32)((__u32)a - (__u32)b);
}

static __always_inline __s32 wadd32(__s32 a, __s32 b)
{
	return (__s32)((__u32)a + (__u32)b);
}

/* a / b for b > 0, truncating toward zero (C's and Rust's signed division). */
static __always_inline __s32 sdiv32(__s32 a, __u32 b)
{
	if (a >= 0)
		return (__s32)((__u32)a / b);
	return -(__s32)((0U - (__u32)a) / b);
}

/* cdg.rs min_not_zero (Linux min_not_zero). */
static __always_inline __s32 min_not_zero(__s32 x, __s32 y)
{
	if (x == 0)
		return y;
	if (y == 0)
		return x;
	return x < y ? x : y;
}

/* cdg.rs div_round_closest_64 (Linux DIV_ROUND_CLOSEST(x, 64)). */
static __always_inline __s32 div_round_closest_64(__s32 x)
{
	if (x > 0)
		return sdiv32(wadd32(x, 32), 64);
	return sdiv32(wsub32(x, 32), 64);
}

/* cdg.rs nexp_u32's table: exp(-x)*65536-1 for x = 0, 0.000256, 0.000512, ... */
static __always_inline __u32 nexp_v(__u32 i)
{
	switch (i) {
	case 0: return 65535;
	case 1: return 65518;
	case 2: return 65501;
	case 3: return 65468;
	case 4: return 65401;
	case 5: return 65267;
	case 6: return 65001;
	case 7: return 64470;
	case 8: return 63422;
	case 9: return 61378;
	case 10: return 57484;
	case 11: return 50423;
	case 12: return 38795;
	case 13: return 22965;
	case 14: return 8047;
	case 15: return 987;
	default: return 14;
	}
}

/* cdg.rs nexp_u32 (Linux nexp_u32): exp(-ux/10^6) * U32_MAX. */
static __always_inline __u32 nexp_u32(__u32 ux)
{
	__u32 msb = ux >> 8;
	__u32 res, i;

	/* Cut off when ux >= 2^24. */
	if (msb > 0xffff)
		return 0;
	/* The first eight bits, linearly. */
	res = 0xffffffffU - (ux & 0xff) * (0xffffffffU / 1000000);
	/* e^(x + y + ...) = e^x * e^y * ...: at most 16 factors (msb < 2^16). */
	for (i = 1; i <= 16 && msb; i++, msb >>= 1) {
		__u32 y = nexp_v((msb & 1) ? i : 0) + 1;

		res = (__u32)(((__u64)res * y) >> 16);
	}
	return res;
}

/* Cdg::hystart_update (Linux tcp_cdg_hystart_update). */
static __always_inline void cdg_hystart_update(struct sock *sk, struct cdg *ca)
{
	struct tcp_sock *tp = tcp_sk(sk);

	ca->delay_min = min_not_zero(ca->delay_min, ca->rtt.min);
	if (ca->delay_min == 0)
		return;
	if (hystart_detect & HYSTART_ACK_TRAIN) {
		__u32 now_us = (__u32)tp->tcp_mstamp;

		if (ca->last_ack == 0 || !tcp_is_cwnd_limited(sk)) {
			ca->last_ack = now_us;
			ca->round_start = now_us;
		} else if (before(now_us, ca->last_ack + 3000)) {
			__u32 base_owd = hscc_max((__u32)ca->delay_min / 2U, 125U);

			ca->last_ack = now_us;
			if (after(now_us, ca->round_start + base_owd)) {
				tp->snd_ssthresh = hscc_max(tp->snd_cwnd, 2U);
				return;
			}
		}
	}
	if (hystart_detect & HYSTART_DELAY) {
		if (ca->sample_cnt < 8) {
			ca->sample_cnt++;
		} else {
			__u32 dm = (__u32)ca->delay_min;
			__s32 thresh = (__s32)hscc_max(dm + dm / 8, 125U);

			if (ca->rtt.min > thresh)
				tp->snd_ssthresh = hscc_max(tp->snd_cwnd, 2U);
		}
	}
}

/* Cdg::grad (Linux tcp_cdg_grad). */
static __always_inline __s32 cdg_grad(struct sock *sk, struct cdg *ca)
{
	struct cdg_gradients *gr = bpf_sk_storage_get(&cdg_gradients, sk, 0, 0);
	__s32 gmin = wsub32(ca->rtt.min, ca->rtt_prev.min);
	__s32 gmax = wsub32(ca->rtt.max, ca->rtt_prev.max);
	__s32 grad;

	if (gr) {
		__u32 t = ca->tail & (CDG_WINDOW_MAX - 1);

		ca->gsum.min = wadd32(ca->gsum.min, wsub32(gmin, gr->g[t].min));
		ca->gsum.max = wadd32(ca->gsum.max, wsub32(gmax, gr->g[t].max));
		gr->g[t].min = gmin;
		gr->g[t].max = gmax;
		ca->tail = (__u8)((ca->tail + 1) & (window - 1));
		gmin = ca->gsum.min;
		gmax = ca->gsum.max;
	}
	/* Sums, not averages: the division by window is dropped. */
	grad = gmin > 0 ? gmin : gmax;
	/* Extrapolate while the window fills. */
	if (!ca->gfilled) {
		if (!gr && window > 1)
			grad = (__s32)((__u32)grad * window);
		else if (ca->tail == 0)
			ca->gfilled = true;
		else
			grad = sdiv32((__s32)((__u32)grad * window), ca->tail);
	}
	/* The backoff was effectual. */
	if (gmin <= -32 || gmax <= -32)
		ca->backoff_cnt = 0;
	if (use_tolerance) {
		/* Small variations count as none. */
		gmin = div_round_closest_64(gmin);
		gmax = div_round_closest_64(gmax);
		if (gmin > 0 && gmax <= 0)
			ca->state = CDG_FULL;
		else if ((gmin > 0 && gmax > 0) || gmax < 0)
			ca->state = CDG_NONFULL;
	}
	return grad;
}

/* Cdg::ssthresh (Linux tcp_cdg_ssthresh). */
static __always_inline __u32 cdg_ssthresh_of(struct cdg *ca, const struct tcp_sock *tp)
{
	__u32 cwnd = tp->snd_cwnd;

	if (ca->state == CDG_BACKOFF)
		return hscc_max((cwnd * hscc_min(backoff_beta, 1024U)) >> 10, 2U);
	if (ca->state == CDG_NONFULL && use_tolerance)
		return hscc_max(cwnd, 2U);
	ca->shadow_wnd = hscc_min(ca->shadow_wnd >> 1, cwnd);
	if (use_shadow)
		return hscc_max(hscc_max(ca->shadow_wnd, cwnd >> 1), 2U);
	return hscc_max(cwnd >> 1, 2U);
}

/* Cdg::cwnd_event's CompleteCwr (Linux tcp_cdg_cwnd_event). */
static __always_inline void cdg_complete_cwr(struct cdg *ca, const struct tcp_sock *tp)
{
	ca->state = CDG_UNKNOWN;
	ca->rtt_seq = tp->snd_nxt;
	ca->rtt_prev = ca->rtt;
	ca->rtt.min = 0;
	ca->rtt.max = 0;
}

/* Cdg::backoff (Linux tcp_cdg_backoff). */
static __always_inline bool cdg_backoff(struct sock *sk, struct cdg *ca, __u32 grad)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (bpf_get_prandom_u32() <= nexp_u32(grad * backoff_factor))
		return false;
	if (use_ineff) {
		ca->backoff_cnt++;
		if (ca->backoff_cnt > use_ineff)
			return false;
	}
	ca->shadow_wnd = hscc_max(ca->shadow_wnd, tp->snd_cwnd);
	ca->state = CDG_BACKOFF;
#ifdef HSCC_USER
	tcp_enter_cwr(sk);
#else
	/* No tcp_enter_cwr for programs: reduce at once, and end the reduction. */
	tp->snd_ssthresh = cdg_ssthresh_of(ca, tp);
	tp->snd_cwnd = tp->snd_ssthresh;
	tp->snd_cwnd_cnt = 0;
	cdg_complete_cwr(ca, tp);
#endif
	return true;
}

SEC("struct_ops")
void BPF_PROG(cdg_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = inet_csk_ca(sk);

	/* Cdg::new (zeroes, as the kernel's icsk_ca_priv), then Cdg::init. */
	__builtin_memset(ca, 0, sizeof(*ca));
	if (window > 1)
		bpf_sk_storage_get(&cdg_gradients, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	ca->rtt_seq = tp->snd_nxt;
	ca->shadow_wnd = tp->snd_cwnd;
}

SEC("struct_ops")
void BPF_PROG(cdg_release, struct sock *sk)
{
	bpf_sk_storage_delete(&cdg_gradients, sk);
}

SEC("struct_ops")
void BPF_PROG(cdg_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = inet_csk_ca(sk);
	__u32 prior_snd_cwnd, incr;

	if (tcp_in_slow_start(tp) && hystart_detect)
		cdg_hystart_update(sk, ca);
	if (after(ack, ca->rtt_seq) && !minmax_zero(&ca->rtt)) {
		__s32 grad = 0;

		if (!minmax_zero(&ca->rtt_prev))
			grad = cdg_grad(sk, ca);
		ca->rtt_seq = tp->snd_nxt;
		ca->rtt_prev = ca->rtt;
		ca->rtt.min = 0;
		ca->rtt.max = 0;
		ca->last_ack = 0;
		ca->sample_cnt = 0;
		if (grad > 0 && cdg_backoff(sk, ca, (__u32)grad))
			return;
	}
	if (!tcp_is_cwnd_limited(sk)) {
		ca->shadow_wnd = hscc_min(ca->shadow_wnd, tp->snd_cwnd);
		return;
	}
	prior_snd_cwnd = tp->snd_cwnd;
	tcp_reno_cong_avoid(sk, ack, acked);
	incr = tp->snd_cwnd - prior_snd_cwnd;
	ca->shadow_wnd = hscc_max(ca->shadow_wnd, ca->shadow_wnd + incr);
}

SEC("struct_ops")
void BPF_PROG(cdg_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct cdg *ca = inet_csk_ca(sk);
	__s32 rtt_us = s->rtt_us;

	if (rtt_us <= 0)
		return;
	/* Hayes' filter of delayed ACKs. */
	if (tcp_sk(sk)->sacked_out == 0) {
		if (s->pkts_acked == 1 && ca->delack) {
			/* A delayed ACK counts only if provably below a nonzero minimum. */
			ca->rtt.min = hscc_min(ca->rtt.min, rtt_us);
			ca->delack--;
			return;
		} else if (s->pkts_acked > 1 && ca->delack < 5) {
			ca->delack++;
		}
	}
	ca->rtt.min = min_not_zero(ca->rtt.min, rtt_us);
	ca->rtt.max = hscc_max(ca->rtt.max, rtt_us);
}

SEC("struct_ops")
__u32 BPF_PROG(cdg_ssthresh, struct sock *sk)
{
	return cdg_ssthresh_of(inet_csk_ca(sk), tcp_sk(sk));
}

SEC("struct_ops")
void BPF_PROG(cdg_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cdg *ca = inet_csk_ca(sk);

	if (ev == CA_EVENT_CWND_RESTART) {
		struct cdg_gradients *gr = bpf_sk_storage_get(&cdg_gradients, sk, 0, 0);
		__u32 i;

		/* The window's slots (a loop: BPF has no memset call for 2 KiB). */
		for (i = 0; gr && i < CDG_WINDOW_MAX && i < window; i++) {
			gr->g[i].min = 0;
			gr->g[i].max = 0;
			hscc_barrier_var(i);
		}
		__builtin_memset(ca, 0, sizeof(*ca));
		ca->rtt_seq = tp->snd_nxt;
		ca->shadow_wnd = tp->snd_cwnd;
	} else if (ev == CA_EVENT_COMPLETE_CWR) {
		cdg_complete_cwr(ca, tp);
	}
}

SEC("struct_ops")
__u32 BPF_PROG(cdg_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_cdg = {
	.init = (void *)cdg_init,
	.release = (void *)cdg_release,
	.ssthresh = (void *)cdg_ssthresh,
	.cong_avoid = (void *)cdg_cong_avoid,
	.cwnd_event = (void *)cdg_cwnd_event,
	.pkts_acked = (void *)cdg_pkts_acked,
	.undo_cwnd = (void *)cdg_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_cdg",
};
