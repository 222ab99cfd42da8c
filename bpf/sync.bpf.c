/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Sync-TCP (Wu, Chan, Ananda, Ganjihal, IEEE ICNP 2009 §IV, §V): hscc-cc
 * crates/hscc-cc/src/algos/sync/, function for function, state field for
 * field, in the same fixed point (times in µs, srtt µs Q8, λ Q8, β Q16,
 * α Q10, rates in bytes/s). Its window law (α of eq. 6 every T_win in
 * Probing, β of eq. 5 after Waiting or a loss) and its state machine
 * (Legacy, Probing, Waiting, Emptying; the switches between legacy TCP and
 * Sync-TCP, rerouting) are exact. The Rust file documents the law, the
 * constants, their sources and the choices where the paper is silent.
 *
 * What needs more than the hooks, in the kernel:
 * - State. Rust's state is 12 64-bit times and rates and a few counters,
 *   128 bytes: more than icsk_ca_priv's 104. It lives in a
 *   socket-local storage map (HSCC_SK_STORAGE), created by init, freed with
 *   the socket (and deleted in release). Should the kernel fail to allocate
 *   it, the socket runs Reno's hooks.
 * - Pacing (§IV.A.1). Like the Rust cong_avoid, this one writes
 *   sk_pacing_rate = cwnd·mss/srtt in Sync-TCP mode (0 in legacy mode), and
 *   the conformance tests compare it. The kernel, though, recomputes
 *   sk_pacing_rate itself after every cong_avoid (tcp_update_pacing_rate:
 *   1.2·cwnd·mss/srtt with its own srtt in congestion avoidance) and paces
 *   only a socket with sk_pacing_status = SK_PACING_NEEDED or under the fq
 *   qdisc. So in the kernel Sync-TCP's own rate is overwritten: the flow is
 *   paced by the kernel's rate under fq, and not paced at all without it
 *   (this kernel has no fq). Owning the rate needs cong_control, and then
 *   the recovery's window reduction (PRR), which the kernel does not export
 *   to BPF: not done.
 * - Nothing crosses flows: the synchronisation the paper builds comes from
 *   every flow seeing the same queue (§IV.B), not from shared state. The
 *   delay-signal counters (signals, last_signal_us) are kept for hscc-sim's
 *   measurements; nothing in the kernel reads them.
 */
#include "hscc.h"

/* SyncTcp::bpf_globals. */
#define SYNC_GLOBALS(X)              \
	X(__u64, t_sample_us)        \
	X(__u64, t_win_us)           \
	X(__u64, t_wait_us)          \
	X(__u32, th_qd_us)           \
	X(__u32, th_emptied_us)      \
	X(__u32, lambda_init_q8)     \
	X(__u32, lambda_reroute_q8)  \
	X(__u32, beta_min_q16)       \
	X(__u32, beta_max_q16)       \
	X(__u32, beta_max_loss_q16)  \
	X(bool, switching)           \
	X(__u64, t2s_bytes_s)        \
	X(__u64, s2t_bytes_s)        \
	X(__u32, s2t_share_q16)      \
	X(__u64, s2t_window_us)      \
	X(__u64, t2s_hold_us)        \
	X(bool, s2t_slow_start)
HSCC_GLOBALS(sync, SYNC_GLOBALS)

/* Rust's SyncState. */
enum sync_state {
	SYNC_LEGACY = 0,
	SYNC_PROBING = 1,
	SYNC_WAITING = 2,
	SYNC_EMPTYING = 3,
};

/* Rust's SyncTcp state (its configuration is the globals above). */
struct sync {
	__u8 state;              /* enum sync_state */
	bool fresh;              /* a sample detection has not looked at yet */
	bool has_low_since;      /* Rust's low_since_us is Some */
	bool regime;             /* the last reduction ended two emptied epochs */
	bool has_last_signal;    /* Rust's last_signal_us is Some */
	__u32 brtt_us;           /* min of all samples (~0 = ∞) */
	__u32 brtt_epoch_us;     /* min since the last reduction (~0 = ∞) */
	__u32 lambda_q8;         /* λ, Q8 */
	__u32 starved_runs;      /* starved episodes in a row */
	__u32 signals;           /* delay-detected congestion signals */
	__u64 since_us;          /* when the current state was entered */
	__u64 next_sample_us;    /* earliest time of the next RTT sample */
	__u64 srtt_q8;           /* srtt of eq. 4, µs Q8 (0 before a sample) */
	__u64 next_inc_us;       /* time of the next α increase */
	__u64 next_s2t_us;       /* time of the next Sync → legacy check */
	__u64 ref_bytes_s;       /* reference rate of the Sync → legacy test */
	__u64 low_since_us;      /* since when every check found the rate low */
	__u64 floor_bytes_s;     /* legacy → Sync needs this rate ... */
	__u64 floor_until_us;    /* ... until then */
	__u64 sync_since_us;     /* when the current Sync-TCP episode began */
	__u64 cwnd_frac_q10;     /* fraction of a segment of α not yet added */
	__u64 last_signal_us;    /* time of the last delay signal */
};

HSCC_SK_STORAGE(struct sync, sync_storage)

static __always_inline struct sync *sync_of(struct sock *sk)
{
	return bpf_sk_storage_get(&sync_storage, sk, 0, 0);
}

/* α of eq. 6 in Q10: max((1 + t + t⁴/32)·(Th_qd − qd)/Th_qd, 1). */
static __always_inline __u64 alpha_q10(__u64 t_us, __u32 qd_us, __u32 th_qd)
{
	__u64 t = (hscc_min(t_us, 512000000ULL) << 10) / 1000000; /* s, Q10 */
	__u64 t2 = (t * t) >> 10;
	__u64 t4 = (t2 * t2) >> 10;
	__u64 poly = 1024 + t + t4 / 32;
	__u64 headroom = sat_sub32(th_qd, qd_us);

	return hscc_max(poly * headroom / hscc_max(th_qd, 1U), 1024ULL);
}

static __always_inline __u32 srtt_us(const struct sync *ca)
{
	return (__u32)(ca->srtt_q8 >> 8);
}

/* qd = srtt − brtt, µs. */
static __always_inline __u32 qd_us(const struct sync *ca)
{
	return sat_sub32(srtt_us(ca), ca->brtt_us);
}

/* Rate estimate cwnd·mss/srtt, bytes/s (0 before the first sample). */
static __always_inline __u64 rate(const struct sync *ca, const struct tcp_sock *tp)
{
	__u32 srtt = srtt_us(ca);

	if (srtt == 0)
		return 0;
	return sat_mul64((__u64)tp->snd_cwnd * tp->mss_cache, 1000000) / srtt;
}

static __always_inline void enter(struct sync *ca, __u8 state, __u64 now)
{
	ca->state = state;
	ca->since_us = now;
	ca->fresh = false;
}

static __always_inline void enter_sync(struct sync *ca, struct tcp_sock *tp)
{
	__u64 now = tp->tcp_mstamp;

	enter(ca, SYNC_PROBING, now);
	ca->next_inc_us = now + t_win_us;
	ca->cwnd_frac_q10 = 0;
	ca->lambda_q8 = lambda_init_q8;
	ca->brtt_epoch_us = ~0U;
	tp->snd_ssthresh = hscc_max(tp->snd_cwnd, 2U);
	ca->ref_bytes_s = rate(ca, tp);
	ca->has_low_since = false;
	ca->next_s2t_us = now + t_win_us;
	/* Back in Sync-TCP above the floor: the legacy traffic has gone. */
	if (now < ca->floor_until_us)
		ca->starved_runs = 0;
	ca->sync_since_us = now;
}

static __always_inline void enter_legacy(struct sync *ca, const struct tcp_sock *tp)
{
	enter(ca, SYNC_LEGACY, tp->tcp_mstamp);
	ca->brtt_us = ~0U; /* §V.C: relearn the propagation delay */
}

/* Sync → legacy test, once per T_win in every Sync-TCP state: true when the
 * rate has been below max(Th_s2t, s2t_share·reference) at every check for
 * s2t_window (the flow is starved, §V, §V.A). */
static __always_inline bool starved(struct sync *ca, const struct tcp_sock *tp)
{
	__u64 now = tp->tcp_mstamp, share;

	if (!switching || now < ca->next_s2t_us)
		return false;
	ca->next_s2t_us += t_win_us;
	if (ca->next_s2t_us <= now)
		ca->next_s2t_us = now + t_win_us;
	share = mul_q16(ca->ref_bytes_s, s2t_share_q16);
	/* Slow start after a timeout is a transient, not starvation. */
	if (tcp_in_slow_start(tp) || rate(ca, tp) >= hscc_max(s2t_bytes_s, share)) {
		ca->has_low_since = false;
		return false;
	}
	if (!ca->has_low_since) {
		ca->has_low_since = true;
		ca->low_since_us = now;
	}
	return now - ca->low_since_us >= s2t_window_us;
}

/* A starved Sync-TCP flow goes back to legacy TCP; until t2s_hold has
 * passed it returns only at a rate of reference/s2t_share. */
static __always_inline void starved_to_legacy(struct sync *ca, struct tcp_sock *tp)
{
	__u64 now = tp->tcp_mstamp;

	ca->floor_bytes_s = s2t_share_q16 ? div_ceil_q16(ca->ref_bytes_s, s2t_share_q16) : 0;
	/* A Sync-TCP episode longer than the hold was not one of a series. */
	if (now - ca->sync_since_us >= t2s_hold_us)
		ca->starved_runs = 0;
	ca->starved_runs = hscc_min(ca->starved_runs + 1, 7U);
	ca->floor_until_us = now + (t2s_hold_us << ((ca->starved_runs - 1) & 7));
	if (s2t_slow_start)
		tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	enter_legacy(ca, tp);
}

/* λ update, rerouting rule, then β of eq. 5 (Q16) bounded by beta_max.
 * Also sets regime: this epoch and the one before emptied the queue. */
static __always_inline __u32 reduction(struct sync *ca, __u32 beta_max)
{
	__u64 cut = 0, beta;
	__u32 srtt = srtt_us(ca);

	ca->regime = false;
	if (ca->brtt_epoch_us != ~0U) {
		if (sat_sub32(ca->brtt_epoch_us, ca->brtt_us) > th_emptied_us) {
			ca->lambda_q8 = sat_add32(ca->lambda_q8, 256);
		} else {
			ca->regime = ca->lambda_q8 == lambda_init_q8;
			ca->lambda_q8 = lambda_init_q8;
		}
		if (ca->lambda_q8 > lambda_reroute_q8 && ca->brtt_epoch_us > ca->brtt_us) {
			ca->brtt_us = ca->brtt_epoch_us;
			ca->lambda_q8 = lambda_init_q8;
		}
	}
	ca->brtt_epoch_us = ~0U;
	/* λ·qd/srtt in Q16 (no sample yet: no cut, β at its upper bound). */
	if (srtt)
		cut = sat_mul64((__u64)ca->lambda_q8 * qd_us(ca), 256) / srtt;
	beta = sat_sub64(65536, cut);
	return (__u32)hscc_clamp(beta, (__u64)beta_min_q16, (__u64)hscc_max(beta_max, beta_min_q16));
}

/* Probing: detection on each fresh sample, α increase every T_win. */
static __always_inline void probe(struct sync *ca, struct tcp_sock *tp)
{
	__u64 now = tp->tcp_mstamp, a, cwnd;

	if (ca->fresh) {
		ca->fresh = false;
		if (qd_us(ca) > th_qd_us) {
			enter(ca, SYNC_WAITING, now);
			ca->signals += 1;
			ca->has_last_signal = true;
			ca->last_signal_us = now;
			return;
		}
	}
	if (now < ca->next_inc_us)
		return;
	ca->next_inc_us += t_win_us;
	if (ca->next_inc_us <= now)
		ca->next_inc_us = now + t_win_us;
	if (!tp->app_limited) {
		a = ca->cwnd_frac_q10 + alpha_q10(now - ca->since_us, qd_us(ca), th_qd_us);
		ca->cwnd_frac_q10 = a & 1023;
		cwnd = (__u64)tp->snd_cwnd + (a >> 10);
		tp->snd_cwnd = (__u32)hscc_min(cwnd, (__u64)tp->snd_cwnd_clamp);
	}
}

/* cwnd·β (β Q16), rounded, at least 2. */
static __always_inline __u32 scaled(__u32 cwnd, __u32 beta_q16)
{
	return hscc_max((__u32)(((__u64)cwnd * beta_q16 + (1 << 15)) >> 16), 2U);
}

SEC("struct_ops")
void BPF_PROG(sync_init, struct sock *sk)
{
	struct sync *ca = bpf_sk_storage_get(&sync_storage, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);

	if (!ca)
		return;
	/* SyncTcp::new (the fields not set here are 0). */
	ca->state = SYNC_LEGACY;
	ca->fresh = false;
	ca->has_low_since = false;
	ca->regime = false;
	ca->has_last_signal = false;
	ca->brtt_us = ~0U;
	ca->brtt_epoch_us = ~0U;
	ca->lambda_q8 = lambda_init_q8;
	ca->starved_runs = 0;
	ca->signals = 0;
	ca->since_us = 0;
	ca->next_sample_us = 0;
	ca->srtt_q8 = 0;
	ca->next_inc_us = 0;
	ca->next_s2t_us = 0;
	ca->ref_bytes_s = 0;
	ca->low_since_us = 0;
	ca->floor_bytes_s = 0;
	ca->floor_until_us = 0;
	ca->sync_since_us = 0;
	ca->cwnd_frac_q10 = 0;
	ca->last_signal_us = 0;
}

SEC("struct_ops")
void BPF_PROG(sync_release, struct sock *sk)
{
	bpf_sk_storage_delete(&sync_storage, sk);
}

SEC("struct_ops")
void BPF_PROG(sync_pkts_acked, struct sock *sk, const struct ack_sample *s)
{
	struct sync *ca = sync_of(sk);
	__u64 now = tcp_sk(sk)->tcp_mstamp;
	__u32 rtt;

	/* One sample per T_sample in every state (§IV.A.1, §IV.F). */
	if (!ca || s->rtt_us < 0 || now < ca->next_sample_us)
		return;
	ca->next_sample_us += t_sample_us;
	if (ca->next_sample_us <= now)
		ca->next_sample_us = now + t_sample_us;
	rtt = hscc_max((__u32)s->rtt_us, 1U);
	if (ca->srtt_q8 == 0)
		ca->srtt_q8 = (__u64)rtt << 8;
	else /* eq. 4 with weight T_sample/T_win. */
		ca->srtt_q8 = (ca->srtt_q8 * (t_win_us - t_sample_us) + ((__u64)rtt << 8) * t_sample_us) / t_win_us;
	ca->brtt_us = hscc_min(ca->brtt_us, rtt);
	ca->brtt_epoch_us = hscc_min(ca->brtt_epoch_us, rtt);
	ca->fresh = true;
}

SEC("struct_ops")
void BPF_PROG(sync_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sync *ca = sync_of(sk);
	__u64 now = tp->tcp_mstamp;

	if (!ca) {
		tcp_reno_cong_avoid(sk, ack, acked);
		return;
	}
	if (ca->state != SYNC_LEGACY && starved(ca, tp))
		starved_to_legacy(ca, tp);
	if (ca->state == SYNC_LEGACY) {
		__u64 floor = now < ca->floor_until_us ? ca->floor_bytes_s : 0;
		bool spare;

		tcp_reno_cong_avoid(sk, ack, acked);
		spare = qd_us(ca) <= th_qd_us && rate(ca, tp) >= hscc_max(t2s_bytes_s, floor);
		if (ca->fresh && !tcp_in_slow_start(tp) && (spare || !switching))
			enter_sync(ca, tp);
		ca->fresh = false;
	} else if (tcp_in_slow_start(tp)) {
		/* After a timeout: legacy slow start up to ssthresh. */
		if (tcp_is_cwnd_limited(sk))
			tcp_slow_start(tp, acked);
	} else if (ca->state == SYNC_PROBING) {
		probe(ca, tp);
	} else if (ca->state == SYNC_WAITING) {
		ca->fresh = false;
		if (now - ca->since_us >= t_wait_us) {
			__u32 beta = reduction(ca, beta_max_q16);

			tp->snd_cwnd = hscc_min(scaled(tp->snd_cwnd, beta), tp->snd_cwnd_clamp);
			tp->snd_ssthresh = tp->snd_cwnd;
			if (ca->regime)
				ca->ref_bytes_s = rate(ca, tp);
			enter(ca, SYNC_EMPTYING, now);
		}
	} else {
		ca->fresh = false;
		if (now - ca->since_us >= t_wait_us) {
			enter(ca, SYNC_PROBING, now);
			ca->next_inc_us = now + t_win_us;
		}
	}
	/* Overwritten by the kernel after this hook (see the top of the file). */
	sk->sk_pacing_rate = ca->state == SYNC_LEGACY ? 0 : rate(ca, tp);
}

SEC("struct_ops")
__u32 BPF_PROG(sync_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct sync *ca = sync_of(sk);
	__u32 beta, cwnd;

	if (!ca || ca->state == SYNC_LEGACY)
		return tcp_reno_ssthresh(sk);
	beta = reduction(ca, beta_max_loss_q16);
	enter(ca, SYNC_EMPTYING, tp->tcp_mstamp);
	cwnd = scaled(tp->snd_cwnd, beta);
	if (ca->regime)
		ca->ref_bytes_s = mul_q16(rate(ca, tp), beta);
	return cwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(sync_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_sync = {
	.init = (void *)sync_init,
	.release = (void *)sync_release,
	.ssthresh = (void *)sync_ssthresh,
	.cong_avoid = (void *)sync_cong_avoid,
	.pkts_acked = (void *)sync_pkts_acked,
	.undo_cwnd = (void *)sync_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_sync",
};
