/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Scalable TCP (Kelly, ACM CCR 33(2) 2003; Linux tcp_scalable.c): hscc-cc
 * crates/hscc-cc/src/algos/scalable.rs. +1 segment per 1/a acknowledged
 * segments above the legacy window, Reno at or below it; on loss
 * cwnd·(1 − b), with b scaled by 1024, or Reno's halving in legacy mode.
 */
#include "hscc.h"

/* Scalable::bpf_globals. */
#define SCALABLE_GLOBALS(X)       \
	X(__u32, ai_cnt)          \
	X(__u32, md)              \
	X(__u32, low_window)      \
	X(bool, legacy_decrease)
HSCC_GLOBALS(scalable, SCALABLE_GLOBALS)

SEC("struct_ops")
__u32 BPF_PROG(scalable_ssthresh, struct sock *sk)
{
	__u64 cwnd = tcp_sk(sk)->snd_cwnd;

	if (legacy_decrease && cwnd <= low_window)
		return tcp_reno_ssthresh(sk);
	return hscc_max((__u32)(cwnd - ((cwnd * md) >> 10)), 2U);
}

SEC("struct_ops")
void BPF_PROG(scalable_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 cwnd;

	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	/*
	 * cwnd is read into a variable first: from `tp->snd_cwnd <= low_window ?
	 * tp->snd_cwnd : ai_cnt` clang makes one load from either pointer, which
	 * the verifier refuses ("same insn cannot be used with different pointers").
	 */
	cwnd = tp->snd_cwnd;
	hscc_barrier_var(cwnd);
	tcp_cong_avoid_ai(tp, cwnd <= low_window ? cwnd : ai_cnt, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(scalable_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_scalable = {
	.ssthresh = (void *)scalable_ssthresh,
	.cong_avoid = (void *)scalable_cong_avoid,
	.undo_cwnd = (void *)scalable_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_scalable",
};
