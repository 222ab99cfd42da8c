/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel types of the user-space build, in place of the vmlinux.h that
 * bpftool writes from the kernel's BTF: the fields of struct sock, struct
 * inet_connection_sock and struct tcp_sock that hscc-cc's TcpCc mirrors, with
 * the kernel's names, and the congestion-control kfuncs (tcp_slow_start,
 * tcp_cong_avoid_ai, tcp_reno_*) as hscc-cc's helpers.rs writes them.
 *
 * A program written for the kernel includes it as it includes the real one
 * (`#include "vmlinux.h"`, or through bpf_tracing_net.h), so the same file
 * builds for the kernel (clang -target bpf) and for the simulator
 * (cc -I bpf/shim/include). The layout of struct tcp_sock is the #[repr(C)]
 * mirror of crates/hscc-program (sock.rs), checked field by field by a test
 * (hscc_layout.h).
 */
#ifndef HSCC_SHIM_VMLINUX_H
#define HSCC_SHIM_VMLINUX_H

/*
 * Defined in every build for hscc's simulator (a user's program file, the
 * conformance tests), never by the kernel's vmlinux.h: a program tests it
 * for what only the simulator has (Google's BBRv3 fields and hook, below).
 */
#define HSCC_SIMULATOR 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int8_t __s8;
typedef int32_t __s32;
typedef int64_t __s64;
typedef __u8 u8;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef int16_t __s16;
typedef __u16 u16;

/* Linux enum sk_pacing (include/net/sock.h). */
enum sk_pacing {
	SK_PACING_NONE = 0,
	SK_PACING_NEEDED = 1,
	SK_PACING_FQ = 2,
};

/* Linux enum tcp_ca_state (hscc-cc CaState). */
enum tcp_ca_state {
	TCP_CA_Open = 0,
	TCP_CA_Disorder = 1,
	TCP_CA_CWR = 2,
	TCP_CA_Recovery = 3,
	TCP_CA_Loss = 4,
};

/* Linux enum tcp_ca_event (hscc-cc CaEvent). */
enum tcp_ca_event {
	CA_EVENT_TX_START = 0,
	CA_EVENT_CWND_RESTART = 1,
	CA_EVENT_COMPLETE_CWR = 2,
	CA_EVENT_LOSS = 3,
	CA_EVENT_ECN_NO_CE = 4,
	CA_EVENT_ECN_IS_CE = 5,
};

/* Linux enum tcp_ca_ack_event_flags (hscc-cc CA_ACK_*), given to in_ack_event. */
enum tcp_ca_ack_event_flags {
	CA_ACK_SLOWPATH = 1 << 0,
	CA_ACK_WIN_UPDATE = 1 << 1,
	CA_ACK_ECE = 1 << 2,
};

/* Linux struct ack_sample. */
struct ack_sample {
	__u32 pkts_acked;
	__s32 rtt_us;
	__u32 in_flight;
};

/* Linux struct rate_sample (include/net/tcp.h), as Linux 6.18's BTF has it;
 * `long` is 64 bits, as on the 64-bit kernels the programs load into. */
struct rate_sample {
	__u64 prior_mstamp;
	__u32 prior_delivered;
	__u32 prior_delivered_ce;
	__s32 delivered;
	__s32 delivered_ce;
	long interval_us;
	__u32 snd_interval_us;
	__u32 rcv_interval_us;
	long rtt_us;
	int losses;
	__u32 acked_sacked;
	__u32 prior_in_flight;
	__u32 last_end_seq;
	bool is_app_limited;
	bool is_retrans;
	bool is_ack_delayed;
	/*
	 * Google's BBRv3 kernel (github.com/google/bbr, branch v3) adds these
	 * two; hscc's simulator fills them, a mainline kernel has neither, so a
	 * program reads them under #ifdef HSCC_SIMULATOR: the flight just after the
	 * sample's segment was sent (itself included), and the segments marked
	 * lost since.
	 */
	__u32 tx_in_flight;
	__s32 lost;
};

/*
 * What Google's BBRv3 kernel's skb_marked_lost hook reads of a segment just
 * marked lost: the stamp of its last (re)transmission, TCP_SKB_CB(skb)->tx,
 * with v3's in_flight and lost. The simulator's segments are single packets.
 */
struct tcp_skb_cb {
	__u32 seq;
	__u32 end_seq;
	struct {
		__u32 is_app_limited : 1;
		__u32 delivered;
		__u32 in_flight;
		__u32 lost;
	} tx;
};

struct sk_buff {
	char cb[48] __attribute__((aligned(8)));
};

#define TCP_SKB_CB(__skb) ((struct tcp_skb_cb *)&((__skb)->cb[0]))

static inline int tcp_skb_pcount(const struct sk_buff *skb)
{
	(void)skb;
	return 1;
}

/* Linux include/linux/win_minmax.h */
struct minmax_sample {
	__u32 t;
	__u32 v;
};
struct minmax {
	struct minmax_sample s[3];
};

struct sock {
	__u64 sk_pacing_rate; /* unsigned long on 64-bit Linux */
	__u32 sk_pacing_status;
	__u64 sk_max_pacing_rate;
};

/* Linux enum inet_csk_ack_state_t (include/net/inet_connection_sock.h). */
enum inet_csk_ack_state_t {
	ICSK_ACK_SCHED = 1,
	ICSK_ACK_TIMER = 2,
	ICSK_ACK_PUSHED = 4,
	ICSK_ACK_PUSHED2 = 8,
	ICSK_ACK_NOW = 16,
	ICSK_ACK_NOMEM = 32,
};

/* Linux struct tcp_options_received: the timestamps of the last ACK, in
 * ms; rcv_tsecr less the connection's tsoffset, as Linux stores it. */
struct tcp_options_received {
	__u32 rcv_tsval;
	__u32 rcv_tsecr;
};

/* The fields of Linux struct tcp_sock that TcpCc mirrors, same names.
 * rcv_nxt: the sender receives no data, it stays 0. ecn_flags has
 * TCP_ECN_OK when the connection uses ECN; other bits a hook sets are
 * dropped (they are the receiving end's, docs/programs.md). hscc_enter_cwr
 * is not Linux's: hscc-cc's TcpCc::enter_cwr, set by bpf/shim/user.h's
 * tcp_enter_cwr. */
#define HSCC_TCP_SOCK_FIELDS         \
	__u32 snd_cwnd;              \
	__u32 snd_ssthresh;          \
	__u32 snd_cwnd_cnt;          \
	__u32 snd_cwnd_clamp;        \
	__u32 prior_cwnd;            \
	__u32 mss_cache;             \
	__u32 srtt_us;               \
	struct minmax rtt_min;       \
	__u32 snd_una;               \
	__u32 snd_nxt;               \
	__u32 lsndtime;              \
	__u32 packets_out;           \
	__u32 sacked_out;            \
	__u32 lost_out;              \
	__u32 retrans_out;           \
	__u32 delivered;             \
	__u32 lost;                  \
	__u32 delivered_ce;          \
	__u32 max_packets_out;       \
	__u8 is_cwnd_limited;        \
	__u32 app_limited;           \
	__u64 tcp_mstamp;            \
	__u64 delivered_mstamp;      \
	__u64 tcp_wstamp_ns;         \
	__u64 tcp_clock_cache;       \
	__u32 rcv_nxt;               \
	__u8 ecn_flags;              \
	struct tcp_options_received rx_opt; \
	__u8 hscc_enter_cwr;

struct hscc_tcp_sock_fields {
	HSCC_TCP_SOCK_FIELDS
};

/* Linux ICSK_CA_PRIV_SIZE: 13 u64 (include/net/inet_connection_sock.h).
 * icsk_ack.pending is the receiving end's delayed-ACK state: a hook on the
 * simulator's sender sees 0, and what it writes there is dropped (the
 * engine's receiver does the ACKing, docs/programs.md).
 *
 * The private area is the socket's last 104 bytes, so that the simulator can
 * put the socket at the end of its memory and a write past the area faults in
 * the hook (crates/hscc-program, guard.rs) as the kernel's verifier refuses
 * it: tcp_sock's own fields lie before it, inside inet_connection_sock
 * (hscc_tcp), and struct tcp_sock names them over the same bytes. */
struct inet_connection_sock {
	struct sock icsk_inet;
	__u8 icsk_ca_state;
	struct {
		__u8 pending;
	} icsk_ack;
	struct hscc_tcp_sock_fields hscc_tcp;
	__u64 icsk_ca_priv[13];
};

struct tcp_sock {
	union {
		struct inet_connection_sock inet_conn;
		struct {
			char hscc_head[offsetof(struct inet_connection_sock, hscc_tcp)];
			HSCC_TCP_SOCK_FIELDS
		};
	};
};

_Static_assert(offsetof(struct tcp_sock, snd_cwnd) ==
		       offsetof(struct inet_connection_sock, hscc_tcp.snd_cwnd) &&
		       offsetof(struct tcp_sock, hscc_enter_cwr) ==
			       offsetof(struct inet_connection_sock, hscc_tcp.hscc_enter_cwr) &&
		       sizeof(struct tcp_sock) == sizeof(struct inet_connection_sock),
	       "tcp_sock's fields are inet_connection_sock's hscc_tcp");

/* Linux struct tcp_congestion_ops, the hooks hscc-cc's CongestionOps has. */
struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	void (*set_state)(struct sock *sk, __u8 new_state);
	void (*cwnd_event)(struct sock *sk, enum tcp_ca_event ev);
	void (*in_ack_event)(struct sock *sk, __u32 flags);
	void (*pkts_acked)(struct sock *sk, const struct ack_sample *sample);
	__u32 (*undo_cwnd)(struct sock *sk);
	void (*init)(struct sock *sk);
	void (*release)(struct sock *sk);
	void (*cong_control)(struct sock *sk, __u32 ack, int flag, const struct rate_sample *rs);
	__u32 (*min_tso_segs)(struct sock *sk);
	__u32 (*sndbuf_expand)(struct sock *sk);
	/* Google's BBRv3 kernel; simulator builds only (#ifdef HSCC_SIMULATOR). */
	void (*skb_marked_lost)(struct sock *sk, const struct sk_buff *skb);
	__u32 flags;
	char name[16];
};

/*
 * The kfuncs as hscc-cc's helpers.rs has them (saturating where the kernel
 * would wrap; w = 0 counts as 1). Same results for every state hscc reaches.
 */
static inline __u32 hscc_sat_add(__u32 a, __u32 b)
{
	__u32 s = a + b;
	return s < a ? UINT32_MAX : s;
}

static inline __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked)
{
	__u32 cwnd = hscc_sat_add(tp->snd_cwnd, acked);
	__u32 grown;

	if (cwnd > tp->snd_ssthresh)
		cwnd = tp->snd_ssthresh;
	grown = cwnd - (tp->snd_cwnd < cwnd ? tp->snd_cwnd : cwnd);
	acked -= grown;
	tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
	return acked;
}

static inline void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked)
{
	if (w == 0)
		w = 1;
	if (tp->snd_cwnd_cnt >= w) {
		tp->snd_cwnd_cnt = 0;
		tp->snd_cwnd = hscc_sat_add(tp->snd_cwnd, 1);
	}
	tp->snd_cwnd_cnt = hscc_sat_add(tp->snd_cwnd_cnt, acked);
	if (tp->snd_cwnd_cnt >= w) {
		__u32 delta = tp->snd_cwnd_cnt / w;

		tp->snd_cwnd_cnt -= delta * w;
		tp->snd_cwnd = hscc_sat_add(tp->snd_cwnd, delta);
	}
	if (tp->snd_cwnd > tp->snd_cwnd_clamp)
		tp->snd_cwnd = tp->snd_cwnd_clamp;
}

static inline bool hscc_user_cwnd_limited(struct tcp_sock *tp)
{
	if (tp->is_cwnd_limited)
		return true;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return false;
}

static inline void tcp_reno_cong_avoid(struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	(void)ack;
	if (!hscc_user_cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	tcp_cong_avoid_ai(tp, tp->snd_cwnd, acked);
}

static inline __u32 tcp_reno_ssthresh(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	__u32 half = tp->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

static inline __u32 tcp_reno_undo_cwnd(struct sock *sk)
{
	struct tcp_sock *tp = (struct tcp_sock *)sk;

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

#endif /* HSCC_SHIM_VMLINUX_H */
