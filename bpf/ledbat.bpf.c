/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * LEDBAT (RFC 6817) as ns-3's TcpLedbat (ns-3.47 tcp-ledbat.cc):
 * hscc-cc crates/hscc-cc/src/algos/ledbat.rs. The one-way delay of each ACK
 * (tsval - tsecr) feeds a noise filter (current delay: the minimum of the
 * last few) and a base history (per-minute minima); in congestion avoidance
 * cwnd moves by (target - queue)/target segments per RTT, at most the flight
 * before the ACK plus allowed_increase segments, at least min_cwnd. The
 * window is ns-3's, in bytes, in the state; snd_cwnd shows whole segments.
 * ns-3's doubles become exact integers (128-bit products in two u64 halves).
 */
#include "hscc.h"

#define LEDBAT_VALID_OWD (1U << 1)   /* ns-3 tcp-ledbat.h */
#define LEDBAT_CAN_SS (1U << 3)      /* ns-3 tcp-ledbat.h */
#define NOISE_FILTER_MAX 7           /* ledbat.rs NOISE_FILTER_MAX */
#define BASE_HISTORY_MAX 10          /* ledbat.rs BASE_HISTORY_MAX */
#define ROLLOVER_US 60000000ULL      /* ns-3 UpdateBaseDelay: Seconds(60) */

/* Unrolled for the verifier (clang builds the kernel's object). */
#ifdef __clang__
#define LEDBAT_UNROLL _Pragma("unroll")
#else
#define LEDBAT_UNROLL
#endif

/* Ledbat::bpf_globals. */
#define LEDBAT_GLOBALS(X)                  \
	X(__u32, target_ms)                \
	X(__u32, base_history_len)         \
	X(__u32, noise_filter_len)         \
	X(__u32, gain_q16)                 \
	X(__u32, allowed_increase_q16)     \
	X(bool, slow_start)                \
	X(__u32, min_cwnd)
HSCC_GLOBALS(ledbat, LEDBAT_GLOBALS)

/* Rust's Ledbat state (ns-3 TcpLedbat), bytes and ms. */
struct ledbat {
	__u64 last_rollover_us;
	__u32 cwnd;           /* ns-3 m_cWnd, bytes */
	__u32 ssthresh;       /* ns-3 m_ssThresh, bytes */
	__u32 cwnd_seen;      /* snd_cwnd as last set or seen */
	__u32 ssthresh_seen;  /* snd_ssthresh as last set or seen */
	__u32 flag;
	__u32 acked;          /* segments the last ACK acknowledged cumulatively */
	__u8 noise_len, noise_min, base_len, base_min;
	__u32 noise[NOISE_FILTER_MAX];
	__u32 base[BASE_HISTORY_MAX];
};
HSCC_CA_PRIV_FITS(struct ledbat);

/* ledbat.rs bytes: segments as bytes, saturating. */
static __always_inline __u32 ledbat_bytes(__u32 segments, __u32 mss)
{
	return sat_mul32(segments, mss);
}

/*
 * The state lives in the socket, which a program may write only at constant
 * offsets: the arrays are read and written through loops unrolled over
 * every index (cap is a constant).
 */
#define LEDBAT_GET(buf, cap, k)                                                  \
	({                                                                       \
		__u32 __v = 0;                                                   \
		LEDBAT_UNROLL for (__u32 __j = 0; __j < (cap); __j++)        \
			if (__j == (k))                                          \
				__v = (buf)[__j];                                \
		__v;                                                             \
	})
#define LEDBAT_SET(buf, cap, k, v)                                               \
	do {                                                                     \
		LEDBAT_UNROLL for (__u32 __j = 0; __j < (cap); __j++)        \
			if (__j == (k))                                          \
				(buf)[__j] = (v);                                \
	} while (0)

/*
 * OwdBuf::add (ns-3 AddDelay): append; once maxlen are held drop the oldest
 * and find the smallest again (the first of equals).
 */
#define LEDBAT_ADD_DELAY(buf, cap, lenp, minp, owd, maxlen)                      \
	do {                                                                     \
		__u32 __len = *(lenp), __minv;                                   \
		if (__len == 0) {                                                \
			(buf)[0] = (owd);                                        \
			*(lenp) = 1;                                             \
			*(minp) = 0;                                             \
			break;                                                   \
		}                                                                \
		if (__len + 1 < (maxlen)) {                                      \
			LEDBAT_SET(buf, cap, __len, owd);                        \
			if (LEDBAT_GET(buf, cap, *(minp)) > (owd))               \
				*(minp) = __len;                                 \
			*(lenp) = __len + 1;                                     \
			break;                                                   \
		}                                                                \
		LEDBAT_UNROLL for (__u32 __i = 1; __i < (cap); __i++) {      \
			if (__i < __len) {                                       \
				__u32 __c = (buf)[__i];                          \
				/* A copy clang would make memmove, which BPF lacks. */ \
				hscc_barrier_var(__c);                           \
				(buf)[__i - 1] = __c;                            \
			}                                                        \
		}                                                                \
		LEDBAT_SET(buf, cap, __len - 1, owd);                            \
		*(minp) = 0;                                                     \
		__minv = (buf)[0];                                               \
		LEDBAT_UNROLL for (__u32 __i = 1; __i < (cap); __i++) {      \
			if (__i < __len && (buf)[__i] < __minv) {                \
				*(minp) = __i;                                   \
				__minv = (buf)[__i];                             \
			}                                                        \
		}                                                                \
	} while (0)

#define LEDBAT_MIN_DELAY(buf, cap, len, min) ((len) == 0 ? 0xffffffffU : LEDBAT_GET(buf, cap, min))

/* Ledbat::update_base_delay (ns-3 UpdateBaseDelay). */
static __always_inline void ledbat_update_base_delay(struct ledbat *ca, __u32 owd, __u64 now_us)
{
	__u32 last;

	if (ca->base_len == 0) {
		LEDBAT_ADD_DELAY(ca->base, BASE_HISTORY_MAX, &ca->base_len, &ca->base_min, owd,
				 base_history_len);
		return;
	}
	if (now_us - ca->last_rollover_us > ROLLOVER_US) {
		ca->last_rollover_us = now_us;
		LEDBAT_ADD_DELAY(ca->base, BASE_HISTORY_MAX, &ca->base_len, &ca->base_min, owd,
				 base_history_len);
		return;
	}
	last = (__u32)ca->base_len - 1;
	if (owd < LEDBAT_GET(ca->base, BASE_HISTORY_MAX, last)) {
		LEDBAT_SET(ca->base, BASE_HISTORY_MAX, last, owd);
		if (owd < LEDBAT_GET(ca->base, BASE_HISTORY_MAX, ca->base_min))
			ca->base_min = last;
	}
}

/* a·b as 128 bits (hi, lo). */
static __always_inline void mul_64x64(__u64 a, __u64 b, __u64 *hi, __u64 *lo)
{
	__u64 a0 = a & 0xffffffffULL, a1 = a >> 32, b0 = b & 0xffffffffULL, b1 = b >> 32;
	__u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	__u64 mid = (p00 >> 32) + (p01 & 0xffffffffULL) + (p10 & 0xffffffffULL);

	*lo = (mid << 32) | (p00 & 0xffffffffULL);
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* The borrow out of a − b (Hacker's Delight 2-13): no branch. */
static __always_inline __u64 borrow64(__u64 a, __u64 b, __u64 diff)
{
	return ((~a & b) | ((~a | b) & diff)) >> 63;
}

/*
 * ⌊(hi, lo)/d⌋ up to 2^32 (2^32 for anything at least that), and whether it
 * left a remainder: restoring division, one quotient bit a step, without
 * branches (a branch a bit would have the verifier walk 2^32 paths).
 */
static __always_inline __u64 div_128_sat32(__u64 hi, __u64 lo, __u64 d, bool *rem)
{
	__u64 q = 0;

	/* ≥ d·2^32: saturated. */
	if (hi > (d >> 32) || (hi == (d >> 32) && lo >= (d << 32))) {
		*rem = false;
		return 1ULL << 32;
	}
	LEDBAT_UNROLL for (int i = 31; i >= 0; i--) {
		__u64 dh = i ? d >> (64 - i) : 0, dl = d << i;
		__u64 lo_d = lo - dl, b1 = borrow64(lo, dl, lo_d);
		__u64 t = hi - dh, b2 = borrow64(hi, dh, t);
		__u64 hi_d = t - b1, b3 = borrow64(t, b1, hi_d);
		__u64 ge = (b2 | b3) ^ 1, m = -ge;

		hi = (hi_d & m) | (hi & ~m);
		lo = (lo_d & m) | (lo & ~m);
		q |= ge << i;
	}
	*rem = (hi | lo) != 0;
	return q;
}

/* ledbat.rs ledbat_window: cwnd + p·acked·mss²/(2^16·target·cwnd), floored, in [0, u32::MAX]. */
static __always_inline __u32 ledbat_window(__u32 cwnd, __s64 p, __u32 acked, __u32 mss)
{
	__u64 t = (__u64)target_ms * cwnd;
	__u64 a = p < 0 ? (__u64)(-p) : (__u64)p;
	__u64 hi, lo, q;
	bool rem;

	if (t == 0)
		return cwnd;
	mul_64x64(a, (__u64)acked * ((__u64)mss * mss), &hi, &lo);
	/* target ≤ 60000 < 2^16: t << 16 < 2^64. */
	q = div_128_sat32(hi, lo, t << 16, &rem);
	if (p >= 0)
		return (__u32)hscc_min((__u64)cwnd + q, 0xffffffffULL);
	q += rem;
	if (q > cwnd)
		return 0;
	return cwnd - (__u32)q;
}

/* Ledbat::congestion_avoidance (ns-3 TcpLedbat::CongestionAvoidance). */
static __always_inline void ledbat_congestion_avoidance(struct ledbat *ca, const struct tcp_sock *tp,
							__u32 acked)
{
	__u32 mss = tp->mss_cache, current, base, cwnd, flight, allowed, max_cwnd, adder;
	__s64 offset;

	if (!(ca->flag & LEDBAT_VALID_OWD)) {
		/* TcpNewReno::CongestionAvoidance: max(1, MSS²/cwnd) bytes per ACK. */
		adder = ca->cwnd ? (mss * mss) / ca->cwnd : 0;
		ca->cwnd = sat_add32(ca->cwnd, hscc_max(adder, 1U));
		return;
	}
	current = LEDBAT_MIN_DELAY(ca->noise, NOISE_FILTER_MAX, ca->noise_len, ca->noise_min);
	base = LEDBAT_MIN_DELAY(ca->base, BASE_HISTORY_MAX, ca->base_len, ca->base_min);
	if (current > base)
		offset = (__s64)target_ms - (__s64)(current - base);
	else
		offset = (__s64)target_ms + (__s64)(base - current);
	cwnd = ledbat_window(ca->cwnd, offset * (__s64)gain_q16, acked, mss);
	/* The flight before this ACK, as ns-3's bytesInFlight + segsAcked·MSS. */
	flight = tcp_packets_in_flight(tp) * mss + acked * mss;
	allowed = (__u32)(((__u64)allowed_increase_q16 * mss) >> 16);
	max_cwnd = flight + allowed;
	ca->cwnd = hscc_max(hscc_min(cwnd, max_cwnd), min_cwnd * mss);
	if (ca->cwnd <= ca->ssthresh) {
		ca->ssthresh = ca->cwnd - 1;
		ca->ssthresh_seen = hscc_max(ca->ssthresh / mss, 2U);
	}
}

SEC("struct_ops")
void BPF_PROG(ledbat_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ledbat *ca = inet_csk_ca(sk);

	__builtin_memset(ca, 0, sizeof(*ca));
	ca->cwnd = ledbat_bytes(tp->snd_cwnd, tp->mss_cache);
	ca->ssthresh = ledbat_bytes(tp->snd_ssthresh, tp->mss_cache);
	ca->cwnd_seen = tp->snd_cwnd;
	ca->ssthresh_seen = tp->snd_ssthresh;
	ca->flag = slow_start ? LEDBAT_CAN_SS : 0;
}

SEC("struct_ops")
void BPF_PROG(ledbat_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ledbat *ca = inet_csk_ca(sk);
	__u32 tsval = tp->rx_opt.rcv_tsval, tsecr = tp->rx_opt.rcv_tsecr, owd;

	ca->acked = sample->pkts_acked;
	if (tsval == 0 || tsecr == 0)
		ca->flag &= ~LEDBAT_VALID_OWD;
	else
		ca->flag |= LEDBAT_VALID_OWD;
	if (tp->srtt_us > 0 && tsval >= tsecr) {
		owd = tsval - tsecr;
		LEDBAT_ADD_DELAY(ca->noise, NOISE_FILTER_MAX, &ca->noise_len, &ca->noise_min, owd,
				 noise_filter_len);
		ledbat_update_base_delay(ca, owd, tp->tcp_mstamp);
	}
}

SEC("struct_ops")
void BPF_PROG(ledbat_cong_avoid, struct sock *sk, __u32 ack, __u32 acked_sacked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct ledbat *ca = inet_csk_ca(sk);
	__u32 mss = tp->mss_cache, acked = ca->acked;

	/* Ledbat::sync: the sender's own changes. */
	if (tp->snd_cwnd != ca->cwnd_seen) {
		ca->cwnd = ledbat_bytes(tp->snd_cwnd, mss);
		ca->cwnd_seen = tp->snd_cwnd;
	}
	if (tp->snd_ssthresh != ca->ssthresh_seen) {
		ca->ssthresh = ledbat_bytes(tp->snd_ssthresh, mss);
		ca->ssthresh_seen = tp->snd_ssthresh;
	}
	if (acked == 0 || mss == 0)
		return;
	/* ns-3 TcpLedbat::IncreaseWindow. */
	if (ca->cwnd <= mss)
		ca->flag |= LEDBAT_CAN_SS;
	if (slow_start && ca->cwnd <= ca->ssthresh && (ca->flag & LEDBAT_CAN_SS)) {
		/* TcpNewReno::SlowStart: one segment per ACK. */
		ca->cwnd = sat_add32(ca->cwnd, mss);
	} else {
		ca->flag &= ~LEDBAT_CAN_SS;
		ledbat_congestion_avoidance(ca, tp, acked);
		tp->snd_ssthresh = ca->ssthresh_seen;
	}
	tp->snd_cwnd = ca->cwnd / mss;
	ca->cwnd_seen = tp->snd_cwnd;
}

SEC("struct_ops")
__u32 BPF_PROG(ledbat_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
__u32 BPF_PROG(ledbat_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_ledbat = {
	.init = (void *)ledbat_init,
	.ssthresh = (void *)ledbat_ssthresh,
	.cong_avoid = (void *)ledbat_cong_avoid,
	.pkts_acked = (void *)ledbat_pkts_acked,
	.undo_cwnd = (void *)ledbat_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_ledbat",
};
