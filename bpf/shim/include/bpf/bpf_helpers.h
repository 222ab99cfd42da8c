/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libbpf's bpf_helpers.h in the user-space build of a program the simulator
 * runs: the section and map-definition macros, and the helpers and kfuncs the
 * simulator provides. A helper it does not provide is not declared here, so a
 * program that calls one fails to build with the helper's name.
 *
 * Provided: bpf_ktime_get_ns, bpf_jiffies64 (the simulated clock),
 * bpf_get_prandom_u32 (the connection's seeded generator),
 * bpf_sk_storage_get/delete (socket storage, zeroed on creation, freed with
 * the socket), bpf_printk (to standard error), bpf_setsockopt (always
 * -EOPNOTSUPP), bpf_getsockopt (SOL_TCP TCP_CONGESTION: the program's name;
 * else -EOPNOTSUPP), bpf_tcp_send_ack (-EOPNOTSUPP: the engine's receiver
 * sends the ACKs; runtime.c); the kfuncs tcp_slow_start,
 * tcp_cong_avoid_ai, tcp_reno_ssthresh, tcp_reno_cong_avoid,
 * tcp_reno_undo_cwnd (vmlinux.h); the kconfig values CONFIG_HZ and
 * LINUX_KERNEL_VERSION.
 */
#ifndef HSCC_SHIM_BPF_HELPERS_H
#define HSCC_SHIM_BPF_HELPERS_H

#include "vmlinux.h"
#include "hscc_prandom.h"

/* The section names a kernel loader reads; the simulator's loader finds the
 * struct_ops variable by its section too. */
#ifndef SEC
#define SEC(name) __attribute__((section(name), used))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __weak __attribute__((weak))
#define __hidden __attribute__((visibility("hidden")))
#define __ksym
#define __kconfig
#define __uint(name, val) int(*name)[val]
#define __type(name, val) __typeof__(val) *name
#define __array(name, val) __typeof__(val) *name[]

#define BPF_MAP_TYPE_SK_STORAGE 24
#define BPF_F_NO_PREALLOC (1U << 0)
#define BPF_SK_STORAGE_GET_F_CREATE (1ULL << 0)

extern unsigned long CONFIG_HZ;
extern unsigned int LINUX_KERNEL_VERSION;

/* The simulated clock at the hook being run (runtime.c). */
extern __thread __u64 hscc_rt_now_ns;

static inline __u64 bpf_ktime_get_ns(void)
{
	return hscc_rt_now_ns;
}

static inline __u64 bpf_jiffies64(void)
{
	return hscc_rt_now_ns / (1000000000ULL / 1000);
}

void *hscc_rt_sk_storage_get(void *map, size_t size, void *sk, void *init, __u64 flags);
long hscc_rt_sk_storage_delete(void *map, void *sk);

/* The value's size comes from the map's __type(value, ...). */
#define bpf_sk_storage_get(map, sk, init, flags) \
	hscc_rt_sk_storage_get((void *)(map), sizeof(*(map)->value), (void *)(sk), (void *)(init), (flags))
#define bpf_sk_storage_delete(map, sk) hscc_rt_sk_storage_delete((void *)(map), (void *)(sk))

/* runtime.c */
long bpf_setsockopt(void *bpf_socket, int level, int optname, void *optval, int optlen);
long bpf_getsockopt(void *bpf_socket, int level, int optname, void *optval, int optlen);
long bpf_tcp_send_ack(void *tp, __u32 rcv_nxt);

/* To standard error (runtime.c): the program itself has no C library. */
int hscc_rt_printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define bpf_printk(fmt, args...) hscc_rt_printk(fmt "\n", ##args)

#endif /* HSCC_SHIM_BPF_HELPERS_H */
