/* Per-socket loss-recovery episodes of the testbed's senders, counted where
 * Linux changes a socket's congestion-avoidance state: the tcp_cong_state_set
 * tracepoint (tcp_set_ca_state, include/net/tcp.h), attached as a BTF
 * tracepoint (tp_btf). It fires before the new state is stored, so the
 * socket still holds the old one. Per socket (keyed by its cookie, SO_COOKIE),
 * in the senders' namespace only (its inode, written by hscc before attaching):
 *   recoveries     entries into TCP_CA_Recovery (tcp_enter_recovery: fast
 *                  recovery, by duplicate ACKs, SACK or RACK)
 *   cwr            entries into TCP_CA_CWR (a tail loss probe that repaired a
 *                  loss, tcp_process_tlp_ack; or ECN, or local congestion,
 *                  neither of which the testbed has)
 *   losses         every setting of TCP_CA_Loss (tcp_enter_loss: each RTO)
 *   loss_episodes  entries into TCP_CA_Loss from another state */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct recovery_counts {
    __u64 recoveries;
    __u64 cwr;
    __u64 losses;
    __u64 loss_episodes;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} netns_inode SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 1024);
    __type(key, __u64);
    __type(value, struct recovery_counts);
} counts SEC(".maps");

SEC("tp_btf/tcp_cong_state_set")
int BPF_PROG(on_ca_state, struct sock *sk, __u8 state) {
    __u32 zero = 0;
    __u64 *inode = bpf_map_lookup_elem(&netns_inode, &zero);
    if (!inode || !*inode || BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) != *inode) return 0;
    __u8 old = BPF_CORE_READ_BITFIELD_PROBED((struct inet_connection_sock *)sk, icsk_ca_state);
    if (state == old && state != TCP_CA_Loss) return 0;
    if (state != TCP_CA_Recovery && state != TCP_CA_CWR && state != TCP_CA_Loss) return 0;
    __u64 cookie = bpf_get_socket_cookie(sk);
    struct recovery_counts *c = bpf_map_lookup_elem(&counts, &cookie);
    if (!c) {
        struct recovery_counts fresh = {};
        bpf_map_update_elem(&counts, &cookie, &fresh, BPF_NOEXIST);
        c = bpf_map_lookup_elem(&counts, &cookie);
        if (!c) return 0;
    }
    if (state == TCP_CA_Recovery) __sync_fetch_and_add(&c->recoveries, 1);
    else if (state == TCP_CA_CWR) __sync_fetch_and_add(&c->cwr, 1);
    else {
        __sync_fetch_and_add(&c->losses, 1);
        if (old != TCP_CA_Loss) __sync_fetch_and_add(&c->loss_episodes, 1);
    }
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
