/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What every hscc congestion-control program shares, in both of its builds:
 *
 * - the kernel build (clang -target bpf): the types come from vmlinux.h, the
 *   kernel's own BTF; tcp_slow_start, tcp_cong_avoid_ai and tcp_reno_* are
 *   the kernel's kfuncs;
 * - the user-space build (cc -include shim/user.h): the types and the kfuncs
 *   come from the shim, which mirrors hscc-cc's TcpCc and helpers.rs, so the
 *   conformance crate can drive the very same code outside the kernel.
 *
 * The helpers below are Linux's (include/net/tcp.h, include/linux/win_minmax.h)
 * and hscc-cc's ops.rs, written once for both builds.
 */
#ifndef HSCC_BPF_H
#define HSCC_BPF_H

#ifndef HSCC_USER
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

/* The kernel's congestion-control kfuncs (net/ipv4/tcp_cong.c). */
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;
extern __u32 tcp_reno_ssthresh(struct sock *sk) __ksym;
extern void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

/*
 * hscc's tcp_cong_avoid_ai treats w = 0 as 1 (helpers.rs); the kernel's
 * divides by it. Every call goes through this guard, so no program can
 * divide by zero inside the kernel whatever its state.
 */
static __always_inline void hscc_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked)
{
	(tcp_cong_avoid_ai)(tp, w ? w : 1, acked);
}
#define tcp_cong_avoid_ai(tp, w, acked) hscc_cong_avoid_ai(tp, w, acked)

#define HSCC_BITFIELD(p, field) BPF_CORE_READ_BITFIELD(p, field)

/*
 * Load-time parameters: read-only globals the loader sets by name before the
 * verifier sees the program, so it can prune on them. They have a section of
 * their own, .rodata.params, so the loader can insist that every one is set.
 */
#define HSCC_GLOBAL_DECL(type, name) const volatile type name SEC(".rodata.params") = 0;
#define HSCC_GLOBALS(algo, LIST) LIST(HSCC_GLOBAL_DECL)
/* Arrays, set element by element ("name[i]=value"); a scalar global says how many are used. */
#define HSCC_GLOBAL_ARRAY_DECL(type, name, n) const volatile type name[n] SEC(".rodata.params") = {};
#define HSCC_GLOBAL_ARRAYS(algo, LIST) LIST(HSCC_GLOBAL_ARRAY_DECL)

/*
 * State every socket of one registration shares, as a kernel module's
 * globals (TCP-FIT's α pool): a .bss global of the program. Update it with
 * __sync_fetch_and_add (BPF's atomic add), read it with plain loads.
 */
#define HSCC_SHARED(type, name) static type name;

/*
 * Per-socket state larger than icsk_ca_priv (Sync-TCP): a socket-local
 * storage map, as the kernel's own BPF congestion controls keep extra state.
 * bpf_sk_storage_get(&name, sk, NULL, BPF_SK_STORAGE_GET_F_CREATE) gives
 * the socket's value (zeroed when created), NULL when the kernel cannot
 * allocate it; the kernel frees it with the socket.
 */
#define HSCC_SK_STORAGE(vtype, name)                       \
	struct {                                           \
		__uint(type, BPF_MAP_TYPE_SK_STORAGE);     \
		__uint(map_flags, BPF_F_NO_PREALLOC);      \
		__type(key, int);                          \
		__type(value, vtype);                      \
	} name SEC(".maps");

char _license[] SEC("license") = "GPL";

/* Linux include/net/tcp.h */
#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#endif /* !HSCC_USER */

/* hscc's clock: hscc-cc's TcpCc::jiffies32 at HZ = 1000 (ops.rs HZ). */
#define HSCC_HZ 1000
#define USEC_PER_SEC 1000000ULL

#define hscc_min(a, b) ((a) < (b) ? (a) : (b))
#define hscc_max(a, b) ((a) > (b) ? (a) : (b))
#define hscc_clamp(v, lo, hi) hscc_min(hscc_max(v, lo), hi)

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static __always_inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

/*
 * Rust's saturating_add/sub/mul. The division in sat_mul64's test goes
 * through a barrier: clang would otherwise turn it into a 128-bit multiply,
 * which BPF does not have.
 */
#define hscc_barrier_var(x) asm volatile("" : "+r"(x))

static __always_inline __u32 sat_add32(__u32 a, __u32 b)
{
	return a + b < a ? 0xffffffffU : a + b;
}

static __always_inline __u32 sat_sub32(__u32 a, __u32 b)
{
	return a > b ? a - b : 0;
}

static __always_inline __u64 sat_sub64(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

static __always_inline __u32 sat_mul32(__u32 a, __u32 b)
{
	__u64 p = (__u64)a * b;

	return p > 0xffffffffULL ? 0xffffffffU : (__u32)p;
}

static __always_inline __u64 sat_mul64(__u64 a, __u64 b)
{
	__u64 limit;

	if (a == 0)
		return 0;
	limit = ~0ULL / a;
	hscc_barrier_var(limit);
	return b > limit ? ~0ULL : a * b;
}

/*
 * Rust's u128 arithmetic on a Q16 factor, without 128 bits:
 * (a·b) >> 16 for b ≤ 2^16 (a = ah·2^16 + al: ah·b + ⌊al·b/2^16⌋, below 2^64),
 * and ⌈a·2^16/d⌉ for d in [1, 2^16], saturating (q·2^16 + ⌈r·2^16/d⌉).
 * The conformance crate checks both against u128.
 */
static __always_inline __u64 mul_q16(__u64 a, __u32 b)
{
	return (a >> 16) * b + (((a & 0xffff) * b) >> 16);
}

static __always_inline __u64 div_ceil_q16(__u64 a, __u32 d)
{
	__u64 q = a / d, r = a % d, c = ((r << 16) + d - 1) / d;

	if (q > (~0ULL - c) >> 16)
		return ~0ULL;
	return (q << 16) + c;
}

/* A program's per-socket state must fit the kernel's private area. */
#define HSCC_CA_PRIV_FITS(type)                                                  \
	_Static_assert(sizeof(type) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv), \
		       #type " does not fit icsk_ca_priv")

/* Linux before()/after() on wrapping 32-bit sequence numbers. */
static __always_inline bool before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}
#define after(seq2, seq1) before(seq1, seq2)

static __always_inline __u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static __always_inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* Linux tcp_is_cwnd_limited (hscc-cc TcpCc::is_cwnd_limited). */
static __always_inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (HSCC_BITFIELD(tp, is_cwnd_limited))
		return true;
	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

/*
 * helpers.rs cong_avoid_start, the opening of Linux's cong_avoid hooks:
 * nothing unless cwnd-limited, then slow start below ssthresh. Returns
 * whether congestion avoidance goes on, with *acked what slow start left.
 */
static __always_inline bool hscc_cong_avoid_start(struct sock *sk, __u32 *acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcp_is_cwnd_limited(sk))
		return false;
	if (tcp_in_slow_start(tp)) {
		*acked = tcp_slow_start(tp, *acked);
		if (!*acked)
			return false;
	}
	return true;
}

/*
 * helpers.rs in_congestion_avoidance, the opening of the cong_avoid hooks
 * that drop slow start's leftover (tcp_highspeed.c, tcp_htcp.c,
 * tcp_illinois.c): nothing unless cwnd-limited, only slow start below
 * ssthresh. Returns whether the congestion-avoidance increase runs.
 */
static __always_inline bool hscc_in_congestion_avoidance(struct sock *sk, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!tcp_is_cwnd_limited(sk))
		return false;
	if (tcp_in_slow_start(tp)) {
		tcp_slow_start(tp, acked);
		return false;
	}
	return true;
}

/* Linux tcp_packets_in_flight, saturating at 0 as TcpCc::packets_in_flight. */
static __always_inline __u32 tcp_packets_in_flight(const struct tcp_sock *tp)
{
	__u32 out = tp->packets_out + tp->retrans_out;
	__u32 left = tp->sacked_out + tp->lost_out;

	return out > left ? out - left : 0;
}

/* Linux tcp_min_rtt: the windowed minimum RTT, µs (~0U before a sample). */
static __always_inline __u32 tcp_min_rtt(const struct tcp_sock *tp)
{
	return tp->rtt_min.s[0].v;
}

static __always_inline __u8 hscc_ca_state(const struct sock *sk)
{
	return HSCC_BITFIELD(inet_csk(sk), icsk_ca_state);
}

/* TcpCc::jiffies32: ticks of 1/HSCC_HZ s of the µs clock tcp_mstamp. */
static __always_inline __u32 tcp_jiffies32(const struct tcp_sock *tp)
{
	return (__u32)(tp->tcp_mstamp / (USEC_PER_SEC / HSCC_HZ));
}

/* Linux include/net/tcp.h: ticks per second of the TCP timestamp clock. */
#define TCP_TS_HZ 1000U

/* TcpCc::tcp_time_stamp_ms (Linux tcp_time_stamp_ms): the timestamp clock, ms. */
static __always_inline __u32 tcp_time_stamp_ms(const struct tcp_sock *tp)
{
	return (__u32)(tp->tcp_mstamp / (USEC_PER_SEC / TCP_TS_HZ));
}

#endif /* HSCC_BPF_H */
