/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Reno / NewReno: hscc-cc crates/hscc-cc/src/algos/reno.rs.
 * RFC 5681 §3 as Linux's tcp_cong.c does it: the three hooks are the
 * kernel's own Reno kfuncs (hscc-cc helpers.rs in the user-space build).
 */
#include "hscc.h"

#define RENO_GLOBALS(X)
HSCC_GLOBALS(reno, RENO_GLOBALS)

SEC("struct_ops")
__u32 BPF_PROG(reno_ssthresh, struct sock *sk)
{
	return tcp_reno_ssthresh(sk);
}

SEC("struct_ops")
void BPF_PROG(reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	tcp_reno_cong_avoid(sk, ack, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(reno_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_reno = {
	.ssthresh = (void *)reno_ssthresh,
	.cong_avoid = (void *)reno_cong_avoid,
	.undo_cwnd = (void *)reno_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_reno",
};
