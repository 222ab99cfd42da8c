/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The user-space shim: compile a program of bpf/ as ordinary C with
 * `cc -include bpf/shim/user.h`, so the conformance crate
 * (crates/hscc-bpf-conformance) can drive it outside the kernel.
 *
 * It gives the kernel types the programs use, cut down to the fields
 * hscc-cc's TcpCc mirrors and with the kernel's names, and the kfuncs as
 * hscc-cc's helpers.rs writes them. The layout of struct tcp_sock here is
 * the conformance crate's #[repr(C)] CSock, checked field by field by a test
 * (hscc_user_layout below).
 */
#ifndef HSCC_SHIM_USER_H
#define HSCC_SHIM_USER_H
#define HSCC_USER 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int8_t __s8;
typedef int32_t __s32;
typedef int64_t __s64;
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define SEC(name)
/* A struct_ops program is a plain function here. */
#define BPF_PROG(name, args...) name(args)
#define HSCC_BITFIELD(p, field) ((p)->field)

#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_INFINITE_SSTHRESH 0x7fffffff
#define SK_PACING_NONE 0
#define SK_PACING_NEEDED 1

/* Linux enum tcp_ca_state (hscc-cc CaState). */
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

/* Linux enum tcp_ca_event (hscc-cc CaEvent). */
enum tcp_ca_event {
	CA_EVENT_TX_START = 0,
	CA_EVENT_CWND_RESTART = 1,
	CA_EVENT_COMPLETE_CWR = 2,
	CA_EVENT_LOSS = 3,
	CA_EVENT_ECN_NO_CE = 4,
	CA_EVENT_ECN_IS_CE = 5,
};

/* Linux enum tcp_ca_ack_event_flags (hscc-cc CA_ACK_*), given to in_ack_event. */
enum tcp_ca_ack_event_flags {
	CA_ACK_SLOWPATH = 1 << 0,
	CA_ACK_WIN_UPDATE = 1 << 1,
	CA_ACK_ECE = 1 << 2,
};

/* Linux struct ack_sample. */
struct ack_sample {
	__u32 pkts_acked;
	__s32 rtt_us;
	__u32 in_flight;
};

/* Linux struct rate_sample (include/net/tcp.h), as Linux 6.18's BTF has it;
 * `long` is 64 bits, as on the 64-bit kernels the programs load into. */
struct rate_sample {
	__u64 prior_mstamp;
	__u32 prior_delivered;
	__u32 prior_delivered_ce;
	__s32 delivered;
	__s32 delivered_ce;
	long interval_us;
	__u32 snd_interval_us;
	__u32 rcv_interval_us;
	long rtt_us;
	int losses;
	__u32 acked_sacked;
	__u32 prior_in_flight;
	__u32 last_end_seq;
	bool is_app_limited;
	bool is_retrans;
	bool is_ack_delayed;
};

/* Linux include/linux/win_minmax.h */
struct minmax_sample {
	__u32 t;
	__u32 v;
};
struct minmax {
	struct minmax_sample s[3];
};

struct sock {
	__u64 sk_pacing_rate; /* unsigned long on 64-bit Linux */
	__u32 sk_pacing_status;
	__u64 sk_max_pacing_rate;
};

/* Linux ICSK_CA_PRIV_SIZE: 13 u64 (include/net/inet_connection_sock.h). */
struct inet_connection_sock {
	struct sock icsk_inet;
	__u8 icsk_ca_state;
	__u64 icsk_ca_priv[13];
};

/* The fields of Linux struct tcp_sock that TcpCc mirrors, same names. */
struct tcp_sock {
	struct inet_connection_sock inet_conn;
	__u32 snd_cwnd;
	__u32 snd_ssthresh;
	__u32 snd_cwnd_cnt;
	__u32 snd_cwnd_clamp;
	__u32 prior_cwnd;
	__u32 mss_cache;
	__u32 srtt_us;
	struct minmax rtt_min;
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 packets_out;
	__u32 sacked_out;
	__u32 lost_out;
	__u32 retrans_out;
	__u32 delivered;
	__u32 lost;
	__u32 max_packets_out;
	__u8 is_cwnd_limited;
	__u32 app_limited;
	__u64 tcp_mstamp;
	__u64 delivered_mstamp;
	__u64 tcp_wstamp_ns;
	__u64 tcp_clock_cache;
};

/* Offsets the conformance crate checks its #[repr(C)] mirror against. */
static inline void hscc_user_layout_fill(size_t *out)
{
	size_t i = 0;
	out[i++] = sizeof(struct tcp_sock);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_inet.sk_pacing_rate);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_ca_state);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_ca_priv);
	out[i++] = offsetof(struct tcp_sock, snd_cwnd);
	out[i++] = offsetof(struct tcp_sock, rtt_min);
	out[i++] = offsetof(struct tcp_sock, snd_una);
	out[i++] = offsetof(struct tcp_sock, is_cwnd_limited);
	out[i++] = offsetof(struct tcp_sock, app_limited);
	out[i++] = offsetof(struct tcp_sock, tcp_mstamp);
	out[i++] = offsetof(struct tcp_sock, inet_conn.icsk_inet.sk_max_pacing_rate);
	out[i++] = offsetof(struct tcp_sock, delivered_mstamp);
	out[i++] = offsetof(struct tcp_sock, tcp_clock_cache);
	out[i++] = sizeof(struct rate_sample);
	out[i++] = offsetof(struct rate_sample, interval_us);
	out[i++] = offsetof(struct rate_sample, losses);
	out[i++] = offsetof(struct rate_sample, is_ack_delayed);
}

/* Linux struct tcp_congestion_ops, the hooks hscc-cc's CongestionOps has. */
struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	void (*set_state)(struct sock *sk, __u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, __u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	__u32 (*undo_cwnd)(struct sock *sk);
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
	void (*cong_control)(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs);
	__u32 (*min_tso_segs)(struct sock *sk);
	__u32 (*sndbuf_expand)(struct sock *sk);
	__u32 flags;
	char name[16];
};

/*
 * The kfuncs as hscc-cc's helpers.rs has them (saturating where the kernel
 * would wrap; w = 0 counts as 1). Same results for every state hscc reaches.
 */
static inline __u32 hscc_sat_add(__u32 a, __u32 b)
{
	__u32 s = a + b;
	return s < a ? UINT32_MAX : s;
}

static inline __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked)
{
	__u32 cwnd = hscc_sat_add(tp->snd_cwnd, acked);
	__u32 grown;

	if (cwnd > tp->snd_ssthresh)
		cwnd = tp->snd_ssthresh;
	grown = cwnd - (tp->snd_cwnd < cwnd ? tp->snd_cwnd : cwnd);
	acked -= grown;
	tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
	return acked;
}

static inline void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked)
{
	if (w == 0)
		w = 1;
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd = hscc_sat_add(tp->snd_cwnd, 1);
	}
	tp->snd_cwnd_cnt = hscc_sat_add(tp->snd_cwnd_cnt, acked);
	if (tp->snd_cwnd_cnt >= w) {
		__u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tp->snd_cwnd = hscc_sat_add(tp->snd_cwnd, delta);
	}
	if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

static inline bool hscc_user_cwnd_limited(struct tcp_sock *tp)
{
	if (tp->is_cwnd_limited)
		return true;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

static inline void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	(void)ack;
	if (!hscc_user_cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);
}

static inline __u32 tcp_reno_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 half = tp->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

static inline __u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

/*
 * bpf_get_prandom_u32: hscc-cc's bbr::prandom_u32 (splitmix64, high half) on
 * the connection's generator state, which the conformance crate copies in
 * from TcpCc::prandom_state before each hook and back after it
 * (csrc/layout.c holds the variable).
 */
extern __thread __u64 hscc_prandom_state;
static inline __u32 bpf_get_prandom_u32(void)
{
	__u64 z = hscc_prandom_state += 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (__u32)((z ^ (z >> 31)) >> 32);
}

/*
 * Load-time parameters become thread-local variables (each test thread has
 * its own), with a setter by name and the list of names per program:
 * hscc_ALGO_set_global(name, value) and hscc_ALGO_global_names().
 */
#define HSCC_GLOBAL_DECL(type, name) static __thread type name;
#define HSCC_GLOBAL_SET(type, name)          \
	if (strcmp(key, #name) == 0) {       \
		name = (type)value;          \
		return 0;                    \
	}
#define HSCC_GLOBAL_NAME(type, name) #name,
#define HSCC_GLOBALS(algo, LIST)                                        \
	LIST(HSCC_GLOBAL_DECL)                                          \
	int hscc_##algo##_set_array(const char *key, int64_t value)    \
		__attribute__((weak));                                  \
	int hscc_##algo##_set_global(const char *key, int64_t value)   \
	{                                                               \
		LIST(HSCC_GLOBAL_SET)                                   \
		if (hscc_##algo##_set_array)                            \
			return hscc_##algo##_set_array(key, value);     \
		return -1;                                              \
	}                                                               \
	const char *const *hscc_##algo##_global_names(void)            \
	{                                                               \
		static const char *const names[] = { LIST(HSCC_GLOBAL_NAME) 0 }; \
		return names;                                           \
	}

/*
 * Array globals (HSCC_GLOBAL_ARRAYS, after HSCC_GLOBALS): thread-local arrays,
 * set element by element as "name[i]" through the same setter. They are not
 * in the name list: a scalar global says how many elements are used.
 */
#define HSCC_GLOBAL_ARRAY_DECL(type, name, n) static __thread type name[n];
#define HSCC_GLOBAL_ARRAY_SET(type, name, n)                                  \
	if (strncmp(key, #name "[", sizeof(#name)) == 0) {                     \
		char *end;                                                     \
		unsigned long i = strtoul(key + sizeof(#name), &end, 10);      \
		if (end == key + sizeof(#name) || strcmp(end, "]") != 0 || i >= (n)) \
			return -1;                                             \
		name[i] = (type)value;                                         \
		return 0;                                                      \
	}
#define HSCC_GLOBAL_ARRAYS(algo, LIST)                                  \
	LIST(HSCC_GLOBAL_ARRAY_DECL)                                    \
	int hscc_##algo##_set_array(const char *key, int64_t value)    \
	{                                                               \
		LIST(HSCC_GLOBAL_ARRAY_SET)                             \
		return -1;                                              \
	}

/*
 * State shared by every socket of a program (hscc.h HSCC_SHARED): one per
 * thread here, so each test thread is one kernel's registration.
 */
#define HSCC_SHARED(type, name) static __thread type name;

/*
 * Socket-local storage (hscc.h HSCC_SK_STORAGE): per thread, a few slots
 * keyed by the socket's address, zeroed when created; a program deletes its
 * value in release (CAlgo runs release when dropped), as the kernel frees it
 * with the socket.
 */
#define HSCC_SK_STORAGE_SLOTS 64
#define HSCC_SK_STORAGE_BYTES 256
#define BPF_SK_STORAGE_GET_F_CREATE (1ULL << 0)
struct hscc_sk_storage {
	const void *owner[HSCC_SK_STORAGE_SLOTS];
	_Alignas(8) unsigned char value[HSCC_SK_STORAGE_SLOTS][HSCC_SK_STORAGE_BYTES];
};
#define HSCC_SK_STORAGE(vtype, name)                                                  \
	_Static_assert(sizeof(vtype) <= HSCC_SK_STORAGE_BYTES, #vtype " is too large"); \
	static __thread struct hscc_sk_storage name;

static inline void *bpf_sk_storage_get(struct hscc_sk_storage *map, void *sk, void *init, __u64 flags)
{
	int i;

	(void)init;
	for (i = 0; i < HSCC_SK_STORAGE_SLOTS; i++)
		if (map->owner[i] == sk)
			return map->value[i];
	if (!(flags & BPF_SK_STORAGE_GET_F_CREATE))
		return NULL;
	for (i = 0; i < HSCC_SK_STORAGE_SLOTS; i++)
		if (!map->owner[i]) {
			map->owner[i] = sk;
			memset(map->value[i], 0, HSCC_SK_STORAGE_BYTES);
			return map->value[i];
		}
	return NULL;
}

static inline long bpf_sk_storage_delete(struct hscc_sk_storage *map, void *sk)
{
	int i;

	for (i = 0; i < HSCC_SK_STORAGE_SLOTS; i++)
		if (map->owner[i] == sk) {
			map->owner[i] = NULL;
			return 0;
		}
	return -2; /* -ENOENT */
}

#endif /* HSCC_SHIM_USER_H */
