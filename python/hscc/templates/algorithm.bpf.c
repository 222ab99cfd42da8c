// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * __NAME__: a congestion control written as a Linux BPF struct_ops program.
 *
 * One file runs in hscc's simulator (algorithm = "__NAME__.bpf.c" in a
 * scenario) and in the kernel (hscc kernel load __NAME__.bpf.c). As written it
 * is Reno with two knobs: grow by `increase` segments per round trip, and on
 * a loss keep `beta`/1024 of the window. Change the hooks to try an idea.
 *
 * The hooks are Linux's struct tcp_congestion_ops; the window is in segments
 * (tp->snd_cwnd), the clock in microseconds (tp->tcp_mstamp). Per-connection
 * state lives in inet_csk_ca(sk), at most 104 bytes, zeroed before init.
 */
#include "bpf_tracing_net.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

/* Parameters: `const volatile` globals, set per run (a scenario's
 * params.increase = 2) or at load (hscc kernel load ... increase=2). */
const volatile __u32 increase = 1;	/* segments per round trip */
const volatile __u32 beta = 512;	/* window kept on a loss, in 1/1024 */

extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;

/* Per-connection state. */
struct __NAME___state {
	__u32 loss_cwnd;	/* the window before the last reduction */
};

SEC("struct_ops")
void BPF_PROG(__NAME___init, struct sock *sk)
{
	struct __NAME___state *ca = inet_csk_ca(sk);

	ca->loss_cwnd = 0;
}

/* On a loss: the slow-start threshold the window is cut to. */
SEC("struct_ops")
__u32 BPF_PROG(__NAME___ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct __NAME___state *ca = inet_csk_ca(sk);
	__u32 kept = (__u32)(((__u64)tp->snd_cwnd * beta) >> 10);

	ca->loss_cwnd = tp->snd_cwnd;
	return kept > 2 ? kept : 2;
}

/* On an ACK that acknowledged `acked` segments: grow the window. */
SEC("struct_ops")
void BPF_PROG(__NAME___cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	__u32 w;

	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	/* +1 segment per w ACKed segments: +increase per round trip. */
	w = tp->snd_cwnd / (increase ? increase : 1);
	tcp_cong_avoid_ai(tp, w ? w : 1, acked);
}

/* A loss turned out spurious: the window to go back to. */
SEC("struct_ops")
__u32 BPF_PROG(__NAME___undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct __NAME___state *ca = inet_csk_ca(sk);

	return tp->snd_cwnd > ca->loss_cwnd ? tp->snd_cwnd : ca->loss_cwnd;
}

/* Every ACK with a round-trip sample (rtt_us < 0: none). */
SEC("struct_ops")
void BPF_PROG(__NAME___pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
}

/* Congestion-state changes (TCP_CA_Open, _Disorder, _CWR, _Recovery, _Loss). */
SEC("struct_ops")
void BPF_PROG(__NAME___set_state, struct sock *sk, __u8 new_state)
{
}

/* Events: CA_EVENT_TX_START after idle, CA_EVENT_LOSS on a timeout, ... */
SEC("struct_ops")
void BPF_PROG(__NAME___cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
}

/* Every ACK, before the window hooks: `flags` has CA_ACK_SLOWPATH,
 * CA_ACK_WIN_UPDATE and CA_ACK_ECE (the receiver echoed a congestion mark). */
SEC("struct_ops")
void BPF_PROG(__NAME___in_ack_event, struct sock *sk, __u32 flags)
{
}

/* The connection ends: give back what init took (socket storage goes with
 * the socket by itself). */
SEC("struct_ops")
void BPF_PROG(__NAME___release, struct sock *sk)
{
}

/*
 * In place of cong_avoid a program may define cong_control, which runs on
 * every ACK with Linux's rate sample (delivery rate, interval, losses) and
 * sets the window, and the pacing rate, itself, as BBR does:
 *
 *	SEC("struct_ops")
 *	void BPF_PROG(__NAME___cong_control, struct sock *sk, __u32 ack, int flag,
 *		      const struct rate_sample *rs)
 *
 * with `.cong_control = (void *)__NAME___cong_control` below; then the
 * kernel and the simulator call it instead of cong_avoid.
 *
 * In the simulator only (Google's BBRv3 kernel has them, mainline Linux does
 * not), a program may also define skb_marked_lost(sk, skb), called as each
 * segment is marked lost with TCP_SKB_CB(skb)->tx from its last
 * transmission, and read the rate sample's tx_in_flight and lost; keep both
 * under #ifdef HSCC_SIMULATOR so that the file still builds for the kernel
 * (bpf/bbr3.bpf.c does; docs/programs.md).
 */

SEC(".struct_ops")
struct tcp_congestion_ops __NAME__ = {
	.init = (void *)__NAME___init,
	.ssthresh = (void *)__NAME___ssthresh,
	.cong_avoid = (void *)__NAME___cong_avoid,
	.undo_cwnd = (void *)__NAME___undo_cwnd,
	.pkts_acked = (void *)__NAME___pkts_acked,
	.set_state = (void *)__NAME___set_state,
	.cwnd_event = (void *)__NAME___cwnd_event,
	.in_ack_event = (void *)__NAME___in_ack_event,
	.release = (void *)__NAME___release,
	.name = "__NAME__",
};
