/* The testbed's random loss: a tc classifier (direct action) on the router's
 * ingress from the senders that drops each IPv4 packet with probability
 * THRESHOLD / 2^32, before the bottleneck's queue (the scenario's
 * loss_point = "before_queue"). THRESHOLD is set at compile time, one object
 * per loss rate. The kernel's bpf_get_prandom_u32 draws, so a run's losses
 * do not follow the scenario's seed. Drops show in the clsact qdisc's counter. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef THRESHOLD
#error "compile with -DTHRESHOLD=probability*2^32"
#endif

SEC("classifier")
int random_loss(struct __sk_buff *skb) {
    if (skb->protocol != bpf_htons(ETH_P_IP)) return TC_ACT_OK;
    return bpf_get_prandom_u32() < (__u32)THRESHOLD ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
