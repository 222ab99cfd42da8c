/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * MulTCP(N) (Crowcroft & Oechslin, ACM CCR 28(3) 1998): hscc-cc
 * crates/hscc-cc/src/algos/multcp.rs. N virtual Reno flows in one: +N
 * segments per RTT, cwnd·(2N − 1)/(2N) on loss.
 */
#include "hscc.h"

/* MulTcp::bpf_globals. */
#define MULTCP_GLOBALS(X) X(__u32, n)
HSCC_GLOBALS(multcp, MULTCP_GLOBALS)

SEC("struct_ops")
__u32 BPF_PROG(multcp_ssthresh, struct sock *sk)
{
	__u64 two_n = 2 * (__u64)n;

	return hscc_max((__u32)((__u64)tcp_sk(sk)->snd_cwnd * (two_n - 1) / two_n), 2U);
}

SEC("struct_ops")
void BPF_PROG(multcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, sat_mul32(acked, n));
}

SEC("struct_ops")
__u32 BPF_PROG(multcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_multcp = {
	.ssthresh = (void *)multcp_ssthresh,
	.cong_avoid = (void *)multcp_cong_avoid,
	.undo_cwnd = (void *)multcp_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_multcp",
};
