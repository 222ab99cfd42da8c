/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What a congestion control written as the kernel's BPF selftests write them
 * (tools/testing/selftests/bpf/progs/bpf_cubic.c, bpf_dctcp.c) includes
 * beside vmlinux.h: the socket accessors, tcp_jiffies32 and the constants of
 * the kernel's uapi headers that BTF does not carry. The same names and
 * meanings as Linux 6.12's selftests header of that name, written for hscc,
 * so that such a program builds unchanged for the kernel (`hscc kernel load`)
 * and for the simulator. As in 6.12, min, max, before and after are left to
 * the program.
 */
#ifndef __BPF_TRACING_NET_H__
#define __BPF_TRACING_NET_H__

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define SOL_SOCKET 1
#define SOL_TCP 6
#define TCP_CONGESTION 13
#define TCP_CA_NAME_MAX 16

#define TCP_ECN_OK 1
#define TCP_ECN_QUEUE_CWR 2
#define TCP_ECN_DEMAND_CWR 4
#define TCP_ECN_SEEN 8

#define TCP_CONG_NON_RESTRICTED 0x1
#define TCP_CONG_NEEDS_ECN 0x2

#define TCP_INFINITE_SSTHRESH 0x7fffffff

#define FLAG_DATA_ACKED 0x04
#define FLAG_SYN_ACKED 0x10
#define FLAG_DATA_SACKED 0x20
#define FLAG_SND_UNA_ADVANCED 0x400
#define FLAG_ACKED (FLAG_DATA_ACKED | FLAG_SYN_ACKED)
#define FLAG_FORWARD_PROGRESS (FLAG_ACKED | FLAG_DATA_SACKED)

/* include/net/tcp.h: the clock in jiffies, wrapping. */
#define tcp_jiffies32 ((__u32)bpf_jiffies64())

static inline struct inet_connection_sock *inet_csk(const struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static inline void *inet_csk_ca(const struct sock *sk)
{
	return (void *)inet_csk(sk)->icsk_ca_priv;
}

static inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static inline bool tcp_in_slow_start(const struct tcp_sock *tp)
{
	return tp->snd_cwnd < tp->snd_ssthresh;
}

/* The selftests' version: in slow start, cwnd may grow to twice what was
 * ACKed; otherwise the stack's is_cwnd_limited. */
static inline bool tcp_is_cwnd_limited(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tcp_in_slow_start(tp))
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return !!BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

#endif /* __BPF_TRACING_NET_H__ */
