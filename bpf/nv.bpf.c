/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TCP-NV (Lawrence Brakmo, "TCP-NV: An Update to TCP-Vegas", 2010; Linux
 * 6.12 tcp_nv.c): hscc-cc crates/hscc-cc/src/algos/nv.rs. Per RTT, the
 * window the round's best delivery rate needs at the minimum (averaged) RTT,
 * plus nv_pad segments, is max_win: above it NV cuts 30 % of the excess and
 * stops growing, below it (less nv_pad_buffer) it grows as Reno; a loss
 * sets ssthresh to 80 % of cwnd.
 *
 * The rate comes from ack_sample.in_flight, which Linux fills with the bytes
 * delivered since the newest segment the ACK delivers was sent. Linux's
 * unsigned long reset time is 32-bit jiffies here, its get_random_bytes the
 * low byte of bpf_get_prandom_u32, and the growth factor's shifts take
 * their amount modulo 32 (nv.rs says why each).
 */
#include "hscc.h"

#define NV_INIT_RTT 0xffffffffU /* Linux NV_INIT_RTT */
#define NV_MIN_CWND 4           /* Linux NV_MIN_CWND */
#define NV_MIN_CWND_GROW 2      /* Linux NV_MIN_CWND_GROW */
#define NV_TSO_CWND_BOUND 80    /* Linux NV_TSO_CWND_BOUND */
#define RATE_SCALE 80000ULL     /* Linux's rate unit: 100s of bit/s */

/* Nv::bpf_globals (Linux tcp_nv.c's file-static ints). */
#define NV_GLOBALS(X)                        \
	X(__u32, nv_pad)                     \
	X(__u32, nv_pad_buffer)              \
	X(__u32, nv_reset_period)            \
	X(__u32, nv_min_cwnd)                \
	X(__u32, nv_cong_dec_mult)           \
	X(__u32, nv_ssthresh_factor)         \
	X(__u32, nv_rtt_factor)              \
	X(__u32, nv_loss_dec_factor)         \
	X(__u32, nv_cwnd_growth_rate_neg)    \
	X(__u32, nv_cwnd_growth_rate_pos)    \
	X(__u32, nv_dec_eval_min_calls)      \
	X(__u32, nv_inc_eval_min_calls)      \
	X(__u32, nv_ssthresh_eval_min_calls) \
	X(__u32, nv_stop_rtt_cnt)            \
	X(__u32, nv_rtt_min_cnt)
HSCC_GLOBALS(nv, NV_GLOBALS)

/* Rust's Nv state (Linux struct tcpnv; its bitfields as bools). */
struct tcpnv {
	__u32 nv_min_rtt_reset_jiffies; /* when nv_min_rtt_new replaces the min RTT */
	__s8 cwnd_growth_factor;        /* < 0: less than 1 segment per RTT */
	bool nv_allow_cwnd_growth;      /* whether cwnd may grow */
	bool nv_reset;                  /* entering Open resets the counters */
	bool nv_catchup;                /* catch-up growth (never set, as Linux) */
	__u8 nv_eval_call_cnt;          /* samples since the last decision */
	__u8 nv_min_cwnd;               /* per-connection floor (4..81) */
	__u8 nv_rtt_cnt;                /* rounds without a decision */
	__u32 nv_last_rtt;              /* average RTT, us */
	__u32 nv_min_rtt;               /* min RTT in use, us */
	__u32 nv_min_rtt_new;           /* min RTT of this period, us */
	__u32 nv_base_rtt;              /* upper RTT bound (0: none, no sockops) */
	__u32 nv_lower_bound_rtt;       /* lower RTT bound (0: none) */
	__u32 nv_rtt_max_rate;          /* the round's best rate, 100s of bit/s */
	__u32 nv_rtt_start_seq;         /* the round ends past this */
	__u32 nv_last_snd_una;          /* snd_una at the last sample */
	__u32 nv_no_cong_cnt;           /* decisions in a row without congestion */
};
HSCC_CA_PRIV_FITS(struct tcpnv);

/* Nv::reset (Linux tcpnv_reset). */
static __always_inline void tcpnv_reset(struct tcpnv *ca, const struct tcp_sock *tp)
{
	ca->nv_reset = false;
	ca->nv_no_cong_cnt = 0;
	ca->nv_rtt_cnt = 0;
	ca->nv_last_rtt = 0;
	ca->nv_rtt_max_rate = 0;
	ca->nv_rtt_start_seq = tp->snd_una;
	ca->nv_eval_call_cnt = 0;
	ca->nv_last_snd_una = tp->snd_una;
}

/* Nv::bounded_rtt (Linux nv_get_bounded_rtt). */
static __always_inline __u32 nv_get_bounded_rtt(const struct tcpnv *ca, __u32 val)
{
	if (ca->nv_lower_bound_rtt > 0 && val < ca->nv_lower_bound_rtt)
		return ca->nv_lower_bound_rtt;
	else if (ca->nv_base_rtt > 0 && val > ca->nv_base_rtt)
		return ca->nv_base_rtt;
	return val;
}

SEC("struct_ops")
void BPF_PROG(nv_init, struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpnv *ca = inet_csk_ca(sk);

	/* Nv::new zeroes, as the kernel's icsk_ca_priv; then Linux tcpnv_init. */
	tcpnv_reset(ca, tp);
	/* No sockops program gives a base RTT. */
	ca->nv_base_rtt = 0;
	ca->nv_lower_bound_rtt = 0;
	ca->nv_allow_cwnd_growth = true;
	ca->nv_min_rtt_reset_jiffies = tcp_jiffies32(tp) + 2 * HSCC_HZ;
	ca->nv_min_rtt = NV_INIT_RTT;
	ca->nv_min_rtt_new = NV_INIT_RTT;
	ca->nv_min_cwnd = NV_MIN_CWND;
	ca->nv_catchup = false;
	ca->cwnd_growth_factor = 0;
}

SEC("struct_ops")
void BPF_PROG(nv_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpnv *ca = inet_csk_ca(sk);
	__u32 cnt;

	/* Linux tcpnv_cong_avoid. */
	if (!tcp_is_cwnd_limited(sk))
		return;
	/* Only while NV has not detected congestion. */
	if (!ca->nv_allow_cwnd_growth)
		return;
	if (tcp_in_slow_start(tp)) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	if (ca->cwnd_growth_factor < 0)
		cnt = tp->snd_cwnd << ((__u32)(-(int)ca->cwnd_growth_factor) & 31);
	else
		cnt = hscc_max(4U, tp->snd_cwnd >> ((__u32)ca->cwnd_growth_factor & 31));
	tcp_cong_avoid_ai(tp, cnt, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(nv_ssthresh, struct sock *sk)
{
	/* Linux tcpnv_recalc_ssthresh. */
	return hscc_max((tcp_sk(sk)->snd_cwnd * nv_loss_dec_factor) >> 10, 2U);
}

SEC("struct_ops")
void BPF_PROG(nv_set_state, struct sock *sk, __u8 new_state)
{
	struct tcpnv *ca = inet_csk_ca(sk);

	/* Linux tcpnv_state. */
	if (new_state == TCP_CA_Open && ca->nv_reset) {
		tcpnv_reset(ca, tcp_sk(sk));
	} else if (new_state == TCP_CA_Loss || new_state == TCP_CA_CWR ||
		   new_state == TCP_CA_Recovery) {
		ca->nv_reset = true;
		ca->nv_allow_cwnd_growth = false;
		if (new_state == TCP_CA_Loss) {
			/* Back to Reno's growth rate, then slower if allowed. */
			if (ca->cwnd_growth_factor > 0)
				ca->cwnd_growth_factor = 0;
			if (nv_cwnd_growth_rate_neg > 0 && ca->cwnd_growth_factor > -8)
				ca->cwnd_growth_factor--;
		}
	}
}

/* Nv::decide: the once-per-round decision of Linux tcpnv_acked. */
static __always_inline void nv_decide(struct tcpnv *ca, struct tcp_sock *tp, __u32 bytes_acked)
{
	__u32 cwnd_by_slope, max_win, eval, rtts;

	ca->nv_rtt_start_seq = tp->snd_nxt;
	if (ca->nv_rtt_cnt < 0xff)
		ca->nv_rtt_cnt++;
	/* One sample in the round: cwnd too small to fill the pipe (TSO, LRO,
	 * coalescing); raise the per-connection floor. */
	if (ca->nv_eval_call_cnt == 1 &&
	    bytes_acked >= ((__u32)ca->nv_min_cwnd - 1) * tp->mss_cache &&
	    ca->nv_min_cwnd < NV_TSO_CWND_BOUND + 1) {
		ca->nv_min_cwnd = hscc_min(ca->nv_min_cwnd + NV_MIN_CWND_GROW,
					   NV_TSO_CWND_BOUND + 1);
		ca->nv_rtt_start_seq = tp->snd_nxt + (__u32)ca->nv_min_cwnd * tp->mss_cache;
		ca->nv_eval_call_cnt = 0;
		ca->nv_allow_cwnd_growth = true;
		return;
	}
	/* cwnd for the round's best rate at the min RTT: rate / (80000·mss/min_rtt). */
	cwnd_by_slope = (__u32)((__u64)ca->nv_rtt_max_rate * ca->nv_min_rtt /
				(RATE_SCALE * tp->mss_cache));
	max_win = cwnd_by_slope + nv_pad;
	eval = ca->nv_eval_call_cnt;
	rtts = ca->nv_rtt_cnt;
	if (tp->snd_cwnd > max_win) {
		__u32 excess;

		/* Congestion: decide only with enough rounds and samples. */
		if (rtts < nv_rtt_min_cnt) {
			return;
		} else if (tp->snd_ssthresh == TCP_INFINITE_SSTHRESH) {
			if (eval < nv_ssthresh_eval_min_calls)
				return;
		} else if (eval < nv_dec_eval_min_calls) {
			if (ca->nv_allow_cwnd_growth && rtts > nv_stop_rtt_cnt)
				ca->nv_allow_cwnd_growth = false;
			return;
		}
		ca->nv_allow_cwnd_growth = false;
		tp->snd_ssthresh = (nv_ssthresh_factor * max_win) >> 3;
		excess = tp->snd_cwnd - max_win;
		if (excess > 2) {
			/* Linux's int dec, from a u32. */
			__u32 dec = hscc_max((excess * nv_cong_dec_mult) >> 7, 2U);

			tp->snd_cwnd = tp->snd_cwnd - dec;
		} else if (nv_cong_dec_mult > 0) {
			tp->snd_cwnd = max_win;
		}
		if (ca->cwnd_growth_factor > 0)
			ca->cwnd_growth_factor = 0;
		ca->nv_no_cong_cnt = 0;
	} else if (tp->snd_cwnd <= max_win - nv_pad_buffer) {
		/* No congestion: grow, faster after enough such rounds. */
		if (eval < nv_inc_eval_min_calls)
			return;
		ca->nv_allow_cwnd_growth = true;
		ca->nv_no_cong_cnt++;
		if (ca->cwnd_growth_factor < 0 && nv_cwnd_growth_rate_neg > 0 &&
		    ca->nv_no_cong_cnt > nv_cwnd_growth_rate_neg) {
			ca->cwnd_growth_factor++;
			ca->nv_no_cong_cnt = 0;
		} else if (ca->cwnd_growth_factor >= 0 && nv_cwnd_growth_rate_pos > 0 &&
			   ca->nv_no_cong_cnt > nv_cwnd_growth_rate_pos) {
			/* s8, wrapping. */
			ca->cwnd_growth_factor = (__s8)(__u8)((__u8)ca->cwnd_growth_factor + 1);
			ca->nv_no_cong_cnt = 0;
		}
	} else {
		/* In between: nothing. */
		return;
	}
	ca->nv_eval_call_cnt = 0;
	ca->nv_rtt_cnt = 0;
	ca->nv_rtt_max_rate = 0;
	/* Not below nv_min_cwnd because of NV's own decrease. */
	if (tp->snd_cwnd < nv_min_cwnd)
		tp->snd_cwnd = nv_min_cwnd;
}

SEC("struct_ops")
void BPF_PROG(nv_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct tcpnv *ca = inet_csk_ca(sk);
	__u8 state = hscc_ca_state(sk);
	__u32 now, avg_rtt, rate, bytes_acked, in_flight;
	__s32 rtt_us = sample->rtt_us;

	/* Linux tcpnv_acked. */
	if (rtt_us < 0)
		return;
	if (state != TCP_CA_Open && state != TCP_CA_Disorder)
		return;
	/* Stop growing at the end of a catch-up. */
	if (ca->nv_catchup && tp->snd_cwnd >= nv_min_cwnd) {
		ca->nv_catchup = false;
		ca->nv_allow_cwnd_growth = false;
	}
	bytes_acked = tp->snd_una - ca->nv_last_snd_una;
	ca->nv_last_snd_una = tp->snd_una;
	in_flight = sample->in_flight;
	if (in_flight == 0)
		return;
	/* Moving average of the RTT. */
	if (nv_rtt_factor > 0) {
		if (ca->nv_last_rtt > 0) {
			avg_rtt = (__u32)(((__u64)(__u32)rtt_us * nv_rtt_factor +
					   (__u64)ca->nv_last_rtt * (256 - nv_rtt_factor)) >> 8);
		} else {
			avg_rtt = (__u32)rtt_us;
			ca->nv_min_rtt = avg_rtt << 1;
		}
		ca->nv_last_rtt = avg_rtt;
	} else {
		avg_rtt = (__u32)rtt_us;
	}
	/* Rate in 100s of bit/s (do_div by avg_rtt ?: 1). */
	rate = (__u32)((__u64)in_flight * RATE_SCALE / (__u64)(avg_rtt ? avg_rtt : 1));
	/* The round's largest rate. */
	if (ca->nv_rtt_max_rate < rate)
		ca->nv_rtt_max_rate = rate;
	if (ca->nv_eval_call_cnt < 255)
		ca->nv_eval_call_cnt++;
	/* The bounds apply to the min RTT only. */
	avg_rtt = nv_get_bounded_rtt(ca, avg_rtt);
	ca->nv_min_rtt = hscc_min(ca->nv_min_rtt, avg_rtt);
	ca->nv_min_rtt_new = hscc_min(ca->nv_min_rtt_new, avg_rtt);
	/* Every nv_reset_period·[3/4, 5/4) s the min RTT restarts from the
	 * period's own; the per-connection floor halves (at least 4). */
	now = tcp_jiffies32(tp);
	if ((__s32)(now - ca->nv_min_rtt_reset_jiffies) >= 0) {
		__u8 rnd = (__u8)bpf_get_prandom_u32();
		__u64 period = ((__u64)nv_reset_period * (384 + rnd) * HSCC_HZ) >> 9;

		ca->nv_min_rtt = ca->nv_min_rtt_new;
		ca->nv_min_rtt_new = NV_INIT_RTT;
		ca->nv_min_rtt_reset_jiffies = now + (__u32)period;
		ca->nv_min_cwnd = hscc_max(ca->nv_min_cwnd / 2, NV_MIN_CWND);
	}
	/* Once per RTT: the congestion decision. */
	if (before(ca->nv_rtt_start_seq, tp->snd_una))
		nv_decide(ca, tp, bytes_acked);
}

SEC("struct_ops")
__u32 BPF_PROG(nv_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_nv = {
	.init = (void *)nv_init,
	.ssthresh = (void *)nv_ssthresh,
	.cong_avoid = (void *)nv_cong_avoid,
	.set_state = (void *)nv_set_state,
	.pkts_acked = (void *)nv_pkts_acked,
	.undo_cwnd = (void *)nv_undo_cwnd,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_nv",
};
