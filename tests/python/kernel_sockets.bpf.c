/* The TCP sockets of the reading process's network namespace as the kernel
 * holds them, one line each (a BPF iterator, iter/tcp): congestion control,
 * state, the pacing status (enum sk_pacing: 1 is SK_PACING_NEEDED, the
 * stack's internal pacing), the pacing rate (bytes/s) and cwnd. What TCP_INFO
 * does not show: whether the stack paces the socket. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("iter/tcp")
int sockets(struct bpf_iter__tcp *ctx)
{
	struct sock_common *skc = ctx->sk_common;
	struct tcp_sock *tp;
	char cc[16] = {};

	if (!skc)
		return 0;
	tp = bpf_skc_to_tcp_sock(skc);
	if (!tp)
		return 0;
	bpf_probe_read_kernel_str(cc, sizeof(cc), tp->inet_conn.icsk_ca_ops->name);
	BPF_SEQ_PRINTF(ctx->meta->seq, "%s %d %d %lu %u\n", cc,
		       tp->inet_conn.icsk_inet.sk.__sk_common.skc_state,
		       tp->inet_conn.icsk_inet.sk.sk_pacing_status,
		       tp->inet_conn.icsk_inet.sk.sk_pacing_rate, tp->snd_cwnd);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
