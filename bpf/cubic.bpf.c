/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * CUBIC (RFC 9438; Linux tcp_cubic.c v2.3): hscc-cc
 * crates/hscc-cc/src/algos/cubic.rs, function for function, in the same
 * fixed point. The Rust file's module documentation gives the law, the
 * constants and their sources, and the deviations from Linux; this file
 * keeps them (e.g. hscc's HyStart defaults, the idle shift from the last
 * ACK, saturating products) so that both compute the same windows.
 */
#include "hscc.h"

#define BETA_SCALE 1024
#define BICTCP_HZ 10
#define HYSTART_ACK_TRAIN 0x1
#define HYSTART_DELAY 0x2
#define HYSTART_MIN_SAMPLES 8
#define HYSTART_DELAY_MIN 4000
#define HYSTART_DELAY_MAX 16000
#define MAX_INCREMENT 16
#define ACK_RATIO_SHIFT 4
#define V21_SLOW_START_STEPS 64

/* Cubic::bpf_globals: the fixed point Cubic::new derives from CubicParams. */
#define CUBIC_GLOBALS(X)                 \
	X(__u32, beta)                   \
	X(__u32, cube_rtt_scale)         \
	X(__u64, cube_factor)            \
	X(__u32, beta_scale)             \
	X(bool, fast_convergence)        \
	X(bool, tcp_friendliness)        \
	X(bool, hystart)                 \
	X(__u32, hystart_detect)         \
	X(__u32, hystart_low_window)     \
	X(__u32, hystart_ack_delta_us)   \
	X(__u32, initial_ssthresh)       \
	X(bool, version_2_1)
HSCC_GLOBALS(cubic, CUBIC_GLOBALS)

/* Rust's Cubic state (Linux struct bictcp). */
struct cubic {
	__u32 cnt;
	__u32 last_max_cwnd;
	__u32 last_cwnd;
	__u32 last_time;
	__u32 bic_origin_point;
	__u32 bic_k;
	__u32 delay_min;
	__u32 epoch_start;
	__u32 ack_cnt;
	__u32 tcp_cwnd;
	__u32 last_ack_time;
	__u32 sample_cnt;
	__u32 round_start;
	__u32 end_seq;
	__u32 last_ack;
	__u32 curr_rtt;
	__u32 loss_cwnd;
	__u32 delayed_ack;
	__u32 acked_rtt_us;
	bool found;
};
HSCC_CA_PRIV_FITS(struct cubic);

/* Linux fls64 without a loop, as the kernel's bpf_cubic.c. */
static __always_inline int fls64(__u64 x)
{
	int num = 64;

	if (x == 0)
		return 0;
	if (!(x & (~0ULL << 32))) {
		num -= 32;
		x <<= 32;
	}
	if (!(x & (~0ULL << 48))) {
		num -= 16;
		x <<= 16;
	}
	if (!(x & (~0ULL << 56))) {
		num -= 8;
		x <<= 8;
	}
	if (!(x & (~0ULL << 60))) {
		num -= 4;
		x <<= 4;
	}
	if (!(x & (~0ULL << 62))) {
		num -= 2;
		x <<= 2;
	}
	if (!(x & (~0ULL << 63)))
		num -= 1;
	return num;
}

static const __u8 cubic_root_v[64] = {
	0,   54,  54,  54,  118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
	157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
	200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
	231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
};

/* Linux cubic_root: a 64-entry table and one Newton-Raphson step. */
static __always_inline __u32 cubic_root(__u64 a)
{
	__u32 x, b, shift;
	__u64 xx;

	b = fls64(a);
	if (b < 7)
		return ((__u32)cubic_root_v[a & 63] + 35) >> 6;
	b = ((b * 84) >> 8) - 1;
	shift = (a >> (b * 3)) & 63; /* < 64 already; the mask is for the verifier */
	x = (((__u32)cubic_root_v[shift] + 10) << b) >> 6;
	xx = 2 * (__u64)x + a / ((__u64)x * ((__u64)x - 1));
	return (__u32)((xx * 341) >> 10);
}

static __always_inline void bictcp_reset(struct cubic *ca)
{
	ca->cnt = 0;
	ca->last_max_cwnd = 0;
	ca->last_cwnd = 0;
	ca->last_time = 0;
	ca->bic_origin_point = 0;
	ca->bic_k = 0;
	ca->delay_min = 0;
	ca->epoch_start = 0;
	ca->ack_cnt = 0;
	ca->tcp_cwnd = 0;
	ca->found = false;
	ca->loss_cwnd = 0;
	ca->delayed_ack = 2 << ACK_RATIO_SHIFT;
}

static __always_inline void bictcp_hystart_reset(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cubic *ca = inet_csk_ca(sk);

	ca->round_start = (__u32)tp->tcp_mstamp;
	ca->last_ack = ca->round_start;
	ca->end_seq = tp->snd_nxt;
	ca->curr_rtt = ~0U;
	ca->sample_cnt = 0;
}

SEC("struct_ops")
void BPF_PROG(cubic_init, struct sock *sk)
{
	struct cubic *ca = inet_csk_ca(sk);

	/* Cubic::new, then Cubic::init. */
	ca->curr_rtt = ~0U;
	ca->round_start = 0;
	ca->end_seq = 0;
	ca->last_ack = 0;
	ca->sample_cnt = 0;
	ca->last_ack_time = 0;
	ca->acked_rtt_us = 0;
	bictcp_reset(ca);
	if (hystart)
		bictcp_hystart_reset(sk);
	else if (initial_ssthresh)
		tcp_sk(sk)->snd_ssthresh = initial_ssthresh;
}

/* Cubic::cubic_cnt: cnt from the cubic W(t + RTT); whether t is past K. */
static __always_inline bool cubic_cnt(struct cubic *ca, __u32 cwnd, __u32 acked, __u32 now)
{
	__u64 elapsed, rtt_jiffies, t, k, offs, delta64, cnt;
	__u32 delta, target;
	__s32 since;

	ca->last_cwnd = cwnd;
	ca->last_time = now;
	if (ca->epoch_start == 0) {
		ca->epoch_start = now;
		ca->ack_cnt = acked;
		ca->tcp_cwnd = cwnd;
		if (ca->last_max_cwnd <= cwnd) {
			ca->bic_k = 0;
			ca->bic_origin_point = cwnd;
		} else {
			__u64 dw = ca->last_max_cwnd - cwnd;

			ca->bic_k = cubic_root(sat_mul64(cube_factor, dw));
			ca->bic_origin_point = ca->last_max_cwnd;
		}
	}
	/* t = time since the epoch start plus one RTT, in 1/1024 s. */
	since = (__s32)(now - ca->epoch_start);
	elapsed = since > 0 ? (__u64)since : 0;
	if (version_2_1)
		rtt_jiffies = ca->delay_min / (USEC_PER_SEC / HSCC_HZ);
	else
		rtt_jiffies = (ca->delay_min + (USEC_PER_SEC / HSCC_HZ) - 1) / (USEC_PER_SEC / HSCC_HZ);
	t = ((elapsed + rtt_jiffies) << BICTCP_HZ) / HSCC_HZ;
	k = ca->bic_k;
	offs = t > k ? t - k : k - t;
	delta64 = sat_mul64(sat_mul64(sat_mul64(cube_rtt_scale, offs), offs), offs) >> (10 + 3 * BICTCP_HZ);
	delta = delta64 > 0xffffffffULL ? 0xffffffffU : (__u32)delta64;
	if (t < k)
		target = sat_sub32(ca->bic_origin_point, delta);
	else
		target = sat_add32(ca->bic_origin_point, delta);
	if (target > cwnd)
		cnt = (__u64)cwnd / (target - cwnd);
	else
		cnt = 100 * (__u64)cwnd;
	/* Before the first loss the cubic is too timid: at least 5 % per RTT (v2.3). */
	if (ca->last_max_cwnd == 0 && cnt > 20 && !version_2_1)
		cnt = 20;
	ca->cnt = cnt > 0xffffffffULL ? 0xffffffffU : (__u32)cnt;
	return t >= k;
}

/* Cubic::reno_friendly: W_est, and cnt no larger than what catches cwnd up with it. */
static __always_inline void reno_friendly(struct cubic *ca, __u32 cwnd)
{
	__u64 d = ((__u64)cwnd * beta_scale) >> 3;
	__u32 delta = d < 1 ? 1 : d > 0xffffffffULL ? 0xffffffffU : (__u32)d;

	if (ca->ack_cnt > delta) {
		__u32 n = (ca->ack_cnt - 1) / delta;

		ca->ack_cnt -= n * delta;
		ca->tcp_cwnd = sat_add32(ca->tcp_cwnd, n);
	}
	if (ca->tcp_cwnd > cwnd) {
		__u32 max_cnt = cwnd / (ca->tcp_cwnd - cwnd);

		if (ca->cnt > max_cnt)
			ca->cnt = max_cnt;
	}
}

/* Cubic::count_acked: false while cnt stands (computed for this cwnd < 1/32 s ago). */
static __always_inline bool count_acked(struct sock *sk, struct cubic *ca, __u32 cwnd, __u32 acked,
					__u32 *now)
{
	*now = tcp_jiffies32(tcp_sk(sk));
	ca->ack_cnt = sat_add32(ca->ack_cnt, acked);
	return !(ca->last_cwnd == cwnd && (__s32)(*now - ca->last_time) <= (__s32)(HSCC_HZ / 32));
}

/* Cubic::update (Linux bictcp_update). */
static __always_inline void bictcp_update(struct sock *sk, struct cubic *ca, __u32 cwnd, __u32 acked)
{
	__u32 now;

	if (!count_acked(sk, ca, cwnd, acked, &now))
		return;
	if (ca->epoch_start == 0 || now != ca->last_time)
		(void)cubic_cnt(ca, cwnd, acked, now);
	if (tcp_friendliness)
		reno_friendly(ca, cwnd);
	/* At most +1 per 2 segments acknowledged: 1.5x per RTT. */
	if (ca->cnt < 2)
		ca->cnt = 2;
}

/* Cubic::update_v21 (Linux 2.6.22 bictcp_update). */
static __always_inline void bictcp_update_v21(struct sock *sk, struct cubic *ca, __u32 cwnd)
{
	bool above_origin;
	__u32 now;
	__u64 cnt;

	if (!count_acked(sk, ca, cwnd, 1, &now))
		return;
	above_origin = cubic_cnt(ca, cwnd, 1, now);
	if (ca->delay_min > 0) {
		/* delay_min in eighths of a jiffy, as 2.6.22 keeps it (1 for a 0-jiffy RTT). */
		__u64 delay8 = ((__u64)(ca->delay_min / (USEC_PER_SEC / HSCC_HZ))) << 3;
		__u64 min_cnt;

		if (delay8 < 1)
			delay8 = 1;
		min_cnt = (__u64)cwnd * HSCC_HZ * 8 / (10 * MAX_INCREMENT * delay8);
		if ((__u64)ca->cnt < min_cnt && above_origin)
			ca->cnt = min_cnt > 0xffffffffULL ? 0xffffffffU : (__u32)min_cnt;
	}
	if (ca->loss_cwnd == 0)
		ca->cnt = 50;
	if (tcp_friendliness)
		reno_friendly(ca, cwnd);
	cnt = ((__u64)ca->cnt << ACK_RATIO_SHIFT) / (ca->delayed_ack > 1 ? ca->delayed_ack : 1);
	ca->cnt = cnt < 1 ? 1 : cnt > 0xffffffffULL ? 0xffffffffU : (__u32)cnt;
}

/* Cubic::measure_delay_v21 (Linux 2.6.22 measure_delay): none within a second of the
 * epoch's start, or of the clock's zero while no epoch has started. */
static __always_inline void measure_delay_v21(struct tcp_sock *tp, struct cubic *ca)
{
	__u32 rtt = ca->acked_rtt_us;

	ca->acked_rtt_us = 0;
	if (rtt == 0 || (__s32)(tcp_jiffies32(tp) - ca->epoch_start) < (__s32)HSCC_HZ)
		return;
	if (ca->delay_min == 0 || ca->delay_min > rtt)
		ca->delay_min = rtt;
}

/* Cubic::cong_avoid_v21 (Linux 2.6.22 bictcp_cong_avoid): per ACK. */
static __always_inline void cong_avoid_v21(struct sock *sk, struct tcp_sock *tp, struct cubic *ca)
{
	measure_delay_v21(tp, ca);
	if (!tcp_is_cwnd_limited(sk))
		return;
	if (tp->snd_cwnd <= tp->snd_ssthresh) {
		/* 2.6.22's tcp_slow_start without byte counting: +1 per ACK. */
		__u32 cnt = sat_add32(tp->snd_cwnd_cnt, tp->snd_cwnd);
		int i;

		/* One step unless congestion avoidance left a count of cwnd or more;
		 * at most V21_SLOW_START_STEPS, as Cubic::cong_avoid_v21. */
		for (i = 0; i < V21_SLOW_START_STEPS && tp->snd_cwnd > 0 && cnt >= tp->snd_cwnd; i++) {
			cnt -= tp->snd_cwnd;
			if (tp->snd_cwnd < tp->snd_cwnd_clamp)
				tp->snd_cwnd++;
		}
		tp->snd_cwnd_cnt = cnt;
		return;
	}
	bictcp_update_v21(sk, ca, tp->snd_cwnd);
	if (tp->snd_cwnd_cnt >= ca->cnt) {
		if (tp->snd_cwnd < tp->snd_cwnd_clamp)
			tp->snd_cwnd++;
		tp->snd_cwnd_cnt = 0;
	} else {
		tp->snd_cwnd_cnt++;
	}
}

SEC("struct_ops")
void BPF_PROG(cubic_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cubic *ca = inet_csk_ca(sk);

	if (version_2_1) {
		cong_avoid_v21(sk, tp, ca);
		return;
	}
	if (!hscc_cong_avoid_start(sk, &acked))
		return;
	bictcp_update(sk, ca, tp->snd_cwnd, acked);
	tcp_cong_avoid_ai(tp, ca->cnt, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(cubic_recalc_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	struct cubic *ca = inet_csk_ca(sk);
	__u64 cwnd = tp->snd_cwnd;
	__u32 ssthresh;

	ca->epoch_start = 0;
	if (tp->snd_cwnd < ca->last_max_cwnd && fast_convergence)
		ca->last_max_cwnd = (__u32)(cwnd * (BETA_SCALE + beta) / (2 * BETA_SCALE));
	else
		ca->last_max_cwnd = tp->snd_cwnd;
	ca->loss_cwnd = tp->snd_cwnd;
	ssthresh = (__u32)(cwnd * beta / BETA_SCALE);
	return ssthresh > 2 ? ssthresh : 2;
}

SEC("struct_ops")
void BPF_PROG(cubic_state, struct sock *sk, __u8 new_state)
{
	if (new_state == TCP_CA_Loss) {
		bictcp_reset(inet_csk_ca(sk));
		bictcp_hystart_reset(sk);
	}
}

SEC("struct_ops")
void BPF_PROG(cubic_cwnd_event, struct sock *sk, enum tcp_ca_event event)
{
	struct cubic *ca = inet_csk_ca(sk);

	if (event == CA_EVENT_TX_START && !version_2_1) {
		/* Idle: shift the epoch so the cubic resumes where it stopped. */
		__u32 now = tcp_jiffies32(tcp_sk(sk));
		__s32 delta = (__s32)(now - ca->last_ack_time);

		if (ca->epoch_start != 0 && delta > 0) {
			ca->epoch_start += (__u32)delta;
			if (after(ca->epoch_start, now))
				ca->epoch_start = now;
		}
	}
}

/* Cubic::hystart_update: look for the slow-start exit on this ACK. */
static __always_inline void hystart_update(struct sock *sk, __u32 delay)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cubic *ca = inet_csk_ca(sk);
	__u32 now;

	if (after(tp->snd_una, ca->end_seq))
		bictcp_hystart_reset(sk);
	if (tp->snd_cwnd < hystart_low_window)
		return;
	now = (__u32)tp->tcp_mstamp;
	if ((hystart_detect & HYSTART_ACK_TRAIN) &&
	    (__s32)(now - ca->last_ack) <= (__s32)hystart_ack_delta_us) {
		ca->last_ack = now;
		/* The train has lasted longer than half the minimum RTT (unpaced). */
		if ((__s32)(now - ca->round_start) > (__s32)(ca->delay_min >> 1)) {
			ca->found = true;
			tp->snd_ssthresh = tp->snd_cwnd;
		}
	}
	if (hystart_detect & HYSTART_DELAY) {
		if (ca->curr_rtt > delay)
			ca->curr_rtt = delay;
		if (ca->sample_cnt < HYSTART_MIN_SAMPLES) {
			ca->sample_cnt++;
		} else {
			__u32 thresh = hscc_clamp(ca->delay_min >> 3, HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);

			if (ca->curr_rtt > sat_add32(ca->delay_min, thresh)) {
				ca->found = true;
				tp->snd_ssthresh = tp->snd_cwnd;
			}
		}
	}
}

SEC("struct_ops")
void BPF_PROG(cubic_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct cubic *ca = inet_csk_ca(sk);
	__u32 now = tcp_jiffies32(tp);
	__u32 delay;

	ca->last_ack_time = now;
	if (version_2_1 && sample->pkts_acked > 0 && hscc_ca_state(sk) == TCP_CA_Open)
		/* ratio += acked - ratio/16, in u32 as Linux 2.6.22. */
		ca->delayed_ack += sample->pkts_acked - (ca->delayed_ack >> ACK_RATIO_SHIFT);
	if (version_2_1) {
		/* Kept for cong_avoid's delay measure: an ACK of new data with a sample. */
		ca->acked_rtt_us = sample->pkts_acked > 0 && sample->rtt_us >= 0
				   ? (sample->rtt_us > 0 ? (__u32)sample->rtt_us : 1) : 0;
		return;
	}
	if (sample->rtt_us < 0)
		return;
	/* Discard delay samples right after a reduction (one second). */
	if (ca->epoch_start != 0 && (__s32)(now - ca->epoch_start) < (__s32)HSCC_HZ)
		return;
	delay = sample->rtt_us > 0 ? (__u32)sample->rtt_us : 1;
	if (ca->delay_min == 0 || ca->delay_min > delay)
		ca->delay_min = delay;
	if (!ca->found && tcp_in_slow_start(tp) && hystart)
		hystart_update(sk, delay);
}

SEC("struct_ops")
__u32 BPF_PROG(cubic_undo_cwnd, struct sock *sk)
{
	if (version_2_1) {
		__u32 cwnd = tcp_sk(sk)->snd_cwnd, w_max = ((struct cubic *)inet_csk_ca(sk))->last_max_cwnd;

		return cwnd > w_max ? cwnd : w_max;
	}
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops hscc_cubic = {
	.init = (void *)cubic_init,
	.ssthresh = (void *)cubic_recalc_ssthresh,
	.cong_avoid = (void *)cubic_cong_avoid,
	.set_state = (void *)cubic_state,
	.undo_cwnd = (void *)cubic_undo_cwnd,
	.cwnd_event = (void *)cubic_cwnd_event,
	.pkts_acked = (void *)cubic_acked,
	.flags = TCP_CONG_NON_RESTRICTED,
	.name = "hscc_cubic",
};
