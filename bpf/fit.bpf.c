/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP-FIT (Wang, Wen, Zhang, Han, IEEE INFOCOM 2011 §III, §V): hscc-cc
 * crates/hscc-cc/src/algos/fit.rs, function for function, in the same fixed
 * point (α Q16). One window behaving as N Reno flows: +N per window
 * acknowledged (eq. 1), w·(3N − 1)/(3N + 1) at a loss (or MulTCP's
 * w·(2N − 1)/(2N)), N updated at each loss by eq. 2 from the loss-free
 * period that ended. The Rust file documents the law, the constants, their
 * sources and the choices where the paper is silent.
 *
 * α shared between connections (alpha_shared, §V.B: the mean over the TCP-FIT
 * connections of (rtt_max − rtt_min)/rtt_max): Rust's AlphaPool, which a
 * simulation shares among its flows as a kernel module would share a
 * global, is here a global of the program (.bss): every socket of one
 * registration (hscc_fit, in every namespace) is a member once it has ended
 * a loss-free period, and leaves it when it closes (release). Sum and count
 * are updated with atomic adds and read with plain loads, as Rust's two
 * relaxed atomics: a reader racing an update may see one of the two changed,
 * for the length of that update. Loading hscc_fit again starts an empty
 * pool; sockets still open on an unloaded registration keep theirs.
 */
#include "hscc.h"

/* Fit::bpf_globals. */
#define FIT_GLOBALS(X)            \
	X(bool, alpha_auto)       \
	X(bool, alpha_shared)     \
	X(__u32, alpha_fixed_q16) \
	X(bool, n_fixed)          \
	X(__u32, n_init)          \
	X(bool, multcp)
HSCC_GLOBALS(fit, FIT_GLOBALS)

/* Rust's AlphaPool: the members' values, Q16, and how many there are (the
 * count's field name is read through BTF by tests/python/test_kernel.py). */
struct alpha_pool {
	__u64 sum_q16;
	__u64 sessions;
};
HSCC_SHARED(struct alpha_pool, pool)

/* Rust's Fit state (its configuration is the globals above). */
struct fit {
	__u32 alpha_q16;       /* α in force, Q16 */
	__u32 n;               /* virtual Reno flows N (≥ 1) */
	__u32 rtt_min_us;      /* minimum RTT sample (~0 before the first) */
	__u32 lfp_cnt;         /* RTT samples in the current LFP */
	__u64 lfp_rtt_sum_us;  /* sum of the current LFP's samples */
	__u32 lfp_rtt_max_us;  /* largest sample of the current LFP */
	__u32 alpha_cnt;       /* LFPs in alpha_sum_q16 */
	__u64 alpha_sum_q16;   /* sum of per-LFP (max − min)/max, Q16 */
	__u32 last_rtt_avg_us; /* rtt̄ of the last completed LFP (0 before) */
	bool member;           /* Rust's Member::q16 is Some: counted in the pool */
	__u32 member_q16;      /* the value the pool counts for this socket */
};
HSCC_CA_PRIV_FITS(struct fit);

/* AlphaPool::alpha_q16: the mean of the members' values (own before any). */
static __always_inline __u32 pool_alpha_q16(__u32 own)
{
	__u64 n = pool.sessions;

	return n > 0 ? (__u32)(pool.sum_q16 / n) : own;
}

/* AlphaPool::update: take a member's old value out, put its new one in.
 * Subtraction is the addition of the two's complement (BPF's atomic add). */
static __always_inline void pool_update(bool had_old, __u32 old, bool has_new, __u32 new)
{
	if (had_old) {
		__sync_fetch_and_add(&pool.sum_q16, -(__u64)old);
		__sync_fetch_and_add(&pool.sessions, -1ULL);
	}
	if (has_new) {
		__sync_fetch_and_add(&pool.sum_q16, (__u64)new);
		__sync_fetch_and_add(&pool.sessions, 1ULL);
	}
}

/* Member::set. */
static __always_inline void member_set(struct fit *ca, __u32 q16)
{
	pool_update(ca->member, ca->member_q16, true, q16);
	ca->member = true;
	ca->member_q16 = q16;
}

/* Fit::decreased: w·(3N − 1)/(3N + 1), or MulTCP's w·(2N − 1)/(2N); floored. */
static __always_inline __u32 decreased(const struct fit *ca, __u32 w)
{
	__u64 n = ca->n, num, den;

	if (multcp) {
		num = 2 * n - 1;
		den = 2 * n;
	} else {
		num = 3 * n - 1;
		den = 3 * n + 1;
	}
	return (__u32)((__u64)w * num / den);
}

/* End of an updating period: α sample (§V.B), then eq. 2. */
static __always_inline void end_lfp(struct fit *ca)
{
	__u64 avg, min;

	if (ca->lfp_cnt == 0)
		return;
	avg = ca->lfp_rtt_sum_us / ca->lfp_cnt;
	min = ca->rtt_min_us;
	ca->last_rtt_avg_us = (__u32)avg;
	if (alpha_auto) {
		__u64 max = ca->lfp_rtt_max_us;
		__u32 own;

		ca->alpha_sum_q16 += ((max - min) << 16) / max;
		ca->alpha_cnt += 1;
		own = (__u32)(ca->alpha_sum_q16 / ca->alpha_cnt);
		/* Fit::attach: a pool member if alpha_auto and alpha_shared. */
		if (alpha_shared) {
			member_set(ca, own);
			ca->alpha_q16 = pool_alpha_q16(own);
		} else {
			ca->alpha_q16 = own;
		}
	}
	if (!n_fixed) {
		/* Q ⋛ α·w̄/N  ⇔  N·(rtt̄ − rtt_min) ⋛ α·rtt̄ */
		__u64 q = sat_mul64(sat_mul64(ca->n, avg - min), 1 << 16);
		__u64 target = (__u64)ca->alpha_q16 * avg;

		if (q < target)
			ca->n = sat_add32(ca->n, 1);
		else if (q > target)
			ca->n = hscc_max(ca->n - 1, 1U);
	}
	ca->lfp_rtt_sum_us = 0;
	ca->lfp_cnt = 0;
	ca->lfp_rtt_max_us = 0;
}

SEC("struct_ops")
void BPF_PROG(fit_init, struct sock *sk)
{
	struct fit *ca = inet_csk_ca(sk);

	/* Fit::new (init is Linux's default: nothing more). */
	ca->alpha_q16 = alpha_fixed_q16;
	ca->n = n_init;
	ca->rtt_min_us = ~0U;
	ca->lfp_cnt = 0;
	ca->lfp_rtt_sum_us = 0;
	ca->lfp_rtt_max_us = 0;
	ca->alpha_cnt = 0;
	ca->alpha_sum_q16 = 0;
	ca->last_rtt_avg_us = 0;
	ca->member = false;
	ca->member_q16 = 0;
}

/* Member's Drop: a socket that closes leaves the pool. */
SEC("struct_ops")
void BPF_PROG(fit_release, struct sock *sk)
{
	struct fit *ca = inet_csk_ca(sk);

	pool_update(ca->member, ca->member_q16, false, 0);
	ca->member = false;
}

SEC("struct_ops")
void BPF_PROG(fit_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct fit *ca = inet_csk_ca(sk);
	__u8 state = hscc_ca_state(sk);
	__u32 rtt;

	if (s->rtt_us < 0 || state == TCP_CA_Recovery || state == TCP_CA_Loss)
		return;
	rtt = hscc_max((__u32)s->rtt_us, 1U);
	ca->rtt_min_us = hscc_min(ca->rtt_min_us, rtt);
	ca->lfp_rtt_max_us = hscc_max(ca->lfp_rtt_max_us, rtt);
	ca->lfp_rtt_sum_us += rtt;
	ca->lfp_cnt += 1;
}

SEC("struct_ops")
void BPF_PROG(fit_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct fit *ca = inet_csk_ca(sk);

	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	/* eq. 1: +N per window acknowledged. */
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, sat_mul32(acked, ca->n));
}

SEC("struct_ops")
__u32 BPF_PROG(fit_ssthresh, struct sock *sk)
{
	struct fit *ca = inet_csk_ca(sk);
	__u32 ssthresh = hscc_max(decreased(ca, tcp_sk(sk)->snd_cwnd), 2U);

	end_lfp(ca);
	return ssthresh;
}

SEC("struct_ops")
__u32 BPF_PROG(fit_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_fit = {
	.init = (void *)fit_init,
	.release = (void *)fit_release,
	.ssthresh = (void *)fit_ssthresh,
	.cong_avoid = (void *)fit_cong_avoid,
	.pkts_acked = (void *)fit_pkts_acked,
	.undo_cwnd = (void *)fit_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_fit",
};
