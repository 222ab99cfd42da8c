/* The testbed's random loss: a tc classifier (direct action) on the router's
 * ingress from the senders, before the bottleneck's queue (the scenario's
 * loss_point = "before_queue").
 *
 * Deterministic in the scenario's seed: the n-th IPv4 packet (n = 0, 1, ...)
 * is dropped when the upper 32 bits of draw(seed, n) are below `threshold`
 * (probability × 2^32), where draw(seed, n) is the n-th output of SplitMix64
 * started from SplitMix64(seed) — a counter-based hash, so the decision for a
 * packet depends only on (seed, n), not on the kernel's random state nor on
 * when the packet came. The same seed drops the same packet indices; which
 * flow's packet has index n still depends on the kernel's timing.
 * hscc.testbed.lossdraw computes the same draw in Python.
 *
 * SYNs get no index and are never dropped: the simulator has no handshake
 * (its flows start with data), and a lost SYN would cost a 1 s timeout.
 * Nothing is counted or dropped until hscc has written the configuration
 * (armed = 1). The first DROP_LOG_LEN dropped indices are logged. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define DROP_LOG_LEN 4096
#define TCP_FLAGS_OFFSET 13
#define TCP_SYN 0x02

struct loss_config {
    __u64 seed;
    __u64 threshold; /* drop when the draw's upper 32 bits are below it; 2^32 drops every packet */
    __u64 armed;
};

struct loss_state {
    __u64 packets; /* indices drawn */
    __u64 drops;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct loss_config);
} loss_config SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct loss_state);
} loss_state SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, DROP_LOG_LEN);
    __type(key, __u32);
    __type(value, __u64);
} drop_log SEC(".maps");

/* SplitMix64's output function (Steele, Lea, Flood 2014). */
static __always_inline __u64 mix(__u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#define GOLDEN 0x9E3779B97F4A7C15ULL

static __always_inline __u64 draw(__u64 seed, __u64 n) {
    __u64 key = mix(seed + GOLDEN);
    return mix(key + (n + 1) * GOLDEN);
}

static __always_inline int is_syn(struct __sk_buff *skb) {
    __u8 vihl, proto, flags;
    if (bpf_skb_load_bytes(skb, ETH_HLEN, &vihl, 1) || bpf_skb_load_bytes(skb, ETH_HLEN + 9, &proto, 1)) return 0;
    if (proto != IPPROTO_TCP) return 0;
    if (bpf_skb_load_bytes(skb, ETH_HLEN + (vihl & 0x0f) * 4 + TCP_FLAGS_OFFSET, &flags, 1)) return 0;
    return flags & TCP_SYN;
}

SEC("classifier")
int random_loss(struct __sk_buff *skb) {
    __u32 zero = 0;
    struct loss_config *cfg = bpf_map_lookup_elem(&loss_config, &zero);
    struct loss_state *st = bpf_map_lookup_elem(&loss_state, &zero);
    if (!cfg || !st || !cfg->armed || skb->protocol != bpf_htons(ETH_P_IP) || is_syn(skb)) return TC_ACT_OK;
    __u64 n = __sync_fetch_and_add(&st->packets, 1);
    if ((draw(cfg->seed, n) >> 32) >= cfg->threshold) return TC_ACT_OK;
    __u32 slot = __sync_fetch_and_add(&st->drops, 1);
    if (slot < DROP_LOG_LEN) {
        __u64 *logged = bpf_map_lookup_elem(&drop_log, &slot);
        if (logged) *logged = n;
    }
    return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "GPL";
