//! CUBIC (RFC 9438, formerly RFC 8312; Linux `tcp_cubic.c` v2.3).
//!
//! After a loss at W_max the window follows a cubic of the time t since the
//! start of the congestion-avoidance epoch (RFC 9438 §4.2, eq. 1–2):
//!
//!   W_cubic(t) = C·(t − K)³ + W_max,  K = ∛((W_max − cwnd_epoch)/C),
//!
//! concave below W_max (fast, then flattening at t = K), convex above it
//! (probing). Per ACK, cwnd moves towards W_cubic(t + RTT) (RFC 9438 §4.4): Linux
//! (and hscc) set `cnt = cwnd/(target − cwnd)` segments per +1, at least 2
//! (≤ 1.5× per RTT). The Reno-friendly estimate W_est (RFC 9438 §4.3) grows by
//! 1 per cwnd/α_cubic acknowledged segments, α_cubic = 3(1 − β)/(1 + β); where it
//! is ahead, cwnd follows it instead. On loss: W_max = cwnd (with fast convergence
//! cwnd·(1 + β)/2 if below the previous W_max), ssthresh = β·cwnd (§4.6–4.7).
//!
//! # Fixed point, as Linux
//! - Time t in 1/1024 s (`BICTCP_HZ` = 10), from jiffies, plus the minimum RTT
//!   `delay_min` (so the target is W_cubic(t + RTT)); cnt recomputed at most once
//!   per jiffy, and only when cwnd changed or HZ/32 passed.
//! - C = bic_scale·10/1024 with bic_scale = round(C·102.4) = 41 for C = 0.4;
//!   `cube_rtt_scale = bic_scale·10`; K = cubic_root(2⁴⁰/cube_rtt_scale·(W_max − cwnd))
//!   with Linux's table + one Newton step cube root (average error 0.2 %).
//! - β = 717/1024 for β = 0.7; the Reno estimate's step is
//!   cwnd·beta_scale/8 segments with beta_scale = 8(1024 + 717)/3/(1024 − 717) = 15,
//!   i.e. α_cubic = 8/15 = 0.533 (RFC: 0.529).
//! - Before the first loss (W_max = 0) cnt ≤ 20 (≥ 5 % per RTT).
//!
//! # Constants and sources
//! C = 0.4, β = 0.7 (RFC 9438 §5; Linux `bic_scale = 41`, `beta = 717`); fast
//! convergence on, Reno-friendly region on (Linux `fast_convergence`,
//! `tcp_friendliness`); HyStart (Ha & Rhee 2008; Linux): low window 16, 8 delay
//! samples, delay threshold clamp(delay_min/8, 4 ms, 16 ms), ACK-train spacing 2 ms.
//!
//! # Deviations from RFC 9438 / from Linux
//! - HyStart is off by default here (Linux: on; RFC 9438 recommends HyStart++,
//!   RFC 9406, which is not implemented). Its TSO/GRO cushion (`hystart_ack_delay`)
//!   is 0, as for an unpaced sender without TSO, and the ACK-train threshold is
//!   halved as Linux does without pacing.
//! - RFC 9438 differences kept from Linux: the target is not clamped to 1.5·cwnd
//!   (cnt ≥ 2 is the same bound); W_est uses α = 0.533 throughout (RFC 9438
//!   switches to α = 1 once W_est reaches the cwnd before the loss). K is computed
//!   from W_max − cwnd at the epoch start as RFC 9438 does (RFC 8312's
//!   W_max·(1 − β) is the same value after a plain loss).
//! - Idle restart (`TxStart`): Linux shifts the epoch by the time since the last
//!   transmission (`lsndtime`), which hscc's sender view lacks; the time since the
//!   last ACK is used instead. It is smaller by about one RTT, and 0 when a
//!   window is sent as soon as the previous one is acknowledged.
//! - A negative time since the epoch start (after an idle shift) counts as 0
//!   (Linux would convert it to a huge unsigned value).
//! - Overflow: Linux's cubic term is exact only for cwnd < 10⁶ and epochs shorter
//!   than ~340 s; hscc saturates the 64-bit products instead of wrapping.
//! - Epoch start 0 means "none", as in Linux (jiffies there start at −300 s;
//!   in hscc an epoch started in the first jiffy of a run restarts on the next ACK).
//!
//! # Version 2.1 (`version_2_1`)
//! Linux 2.6.22's `tcp_cubic.c` v2.1, the module ns-2.35's TCP-Linux agent runs
//! (and so the CUBIC of papers simulated with it), replaces v2.3's congestion
//! avoidance with its own rules, all per ACK whatever it acknowledges:
//! - slow start while cwnd ≤ ssthresh (v2.3: below it), +1 per ACK (its
//!   `tcp_slow_start` without byte counting);
//! - +1 once `snd_cwnd_cnt` ACKs have reached cnt, then the count restarts at 0;
//! - the Reno estimate counts ACKs, from 1 at the epoch start;
//! - cnt from the cubic at every update (no once-per-jiffy limit), with the RTT
//!   added to t in whole jiffies (v2.3 rounds up);
//! - above W_max, cnt at least cwnd·HZ·8/(10·16·delay_min) with delay_min in eighths
//!   of a jiffy (`max_increment` = 16: at most 16 segments per RTT per 100 ms of RTT);
//! - cnt = 50 while no loss has set `loss_cwnd` (from the start and after a
//!   timeout: v2.3's cnt ≤ 20 before W_max is known);
//! - cnt divided by its estimate of segments per ACK (`delayed_ack`, in 16ths,
//!   from 32: ratio ← ratio + acked − ratio/16 at each ACK in the Open state),
//!   at least 1: an ACK per segment leaves the estimate at 31/16, so the window
//!   grows 1.94 times as fast as cnt says;
//! - no idle shift of the epoch (no `cwnd_event`); undo to the larger of cwnd and W_max;
//! - delay_min from the RTT samples of ACKs of new data that reach congestion
//!   avoidance's hook (its `measure_delay`, in `cong_avoid`: none in recovery),
//!   none within a second of the epoch's start — also while no epoch has
//!   started, so none in a run's first second, ns-2's clock starting at 0 as
//!   hscc's does (v2.3 samples every ACK, and all while no epoch has started).
//!
//! HyStart, absent from v2.1, stays its own switch.

use crate::helpers::{cong_avoid_start, tcp_cong_avoid_ai, tcp_reno_undo_cwnd};
use crate::ops::{after, AckSample, CaEvent, CaState, CongestionOps, TcpCc};

/// β scale (Linux `BICTCP_BETA_SCALE`).
const BETA_SCALE: u32 = 1024;
/// Time unit of the cubic: 2^10 per second (Linux `BICTCP_HZ`).
const BICTCP_HZ: u32 = 10;
/// HyStart detection: ACK train.
pub const HYSTART_ACK_TRAIN: u32 = 0x1;
/// HyStart detection: RTT increase.
pub const HYSTART_DELAY: u32 = 0x2;
/// v2.1: at most this many segments per RTT per 100 ms of RTT above W_max (Linux 2.6.22 `max_increment`).
const MAX_INCREMENT: u64 = 16;
/// v2.1: `delayed_ack` holds segments per ACK in 1/2^this (Linux 2.6.22 `ACK_RATIO_SHIFT`).
const ACK_RATIO_SHIFT: u32 = 4;
/// v2.1: slow-start steps taken on one ACK at most (Linux: no bound; one unless a count is left over).
const V21_SLOW_START_STEPS: u32 = 64;
/// Delay samples per round before HyStart's delay test (Linux `HYSTART_MIN_SAMPLES`).
const HYSTART_MIN_SAMPLES: u32 = 8;
/// Bounds of the HyStart delay threshold, µs (Linux `HYSTART_DELAY_MIN/MAX`).
const HYSTART_DELAY_MIN: u32 = 4000;
const HYSTART_DELAY_MAX: u32 = 16000;

crate::params! {
    /// CUBIC parameters.
    pub struct CubicParams {
        /// C: aggressiveness of the cubic, segments/s³.
        c: f64 = 0.4, [0.05, 4.0], "RFC 9438 §5; Linux tcp_cubic.c bic_scale = 41";
        /// β_cubic: multiplicative decrease, cwnd ← β·cwnd on loss.
        beta: f64 = 0.7, [0.5, 0.95], "RFC 9438 §4.6; Linux tcp_cubic.c beta = 717";
        /// Fast convergence: after a loss below the previous W_max, W_max = cwnd·(1 + β)/2.
        fast_convergence: bool = true, [0, 1], "RFC 9438 §4.7; Linux tcp_cubic.c";
        /// Reno-friendly region: never grow slower than the Reno estimate W_est.
        tcp_friendliness: bool = true, [0, 1], "RFC 9438 §4.3; Linux tcp_cubic.c";
        /// HyStart: leave slow start on an ACK train or an RTT increase.
        hystart: bool = false, [0, 1], "Ha & Rhee 2008; Linux tcp_cubic.c (on there)";
        /// HyStart detectors: 1 = ACK train, 2 = delay, 3 = both.
        hystart_detect: u32 = 3, [1, 3], "Linux tcp_cubic.c hystart_detect";
        /// HyStart acts only at or above this cwnd, segments.
        hystart_low_window: u32 = 16, [2, 1000000], "Linux tcp_cubic.c hystart_low_window";
        /// Largest ACK spacing that continues an ACK train, µs.
        hystart_ack_delta_us: u32 = 2000, [1, 100000], "Linux tcp_cubic.c hystart_ack_delta_us";
        /// Initial ssthresh, segments, when HyStart is off; 0 = infinite.
        initial_ssthresh: u32 = 0, [0, 1000000], "Linux tcp_cubic.c initial_ssthresh";
        /// Version 2.1's congestion avoidance (Linux 2.6.22, ns-2.35's TCP-Linux) instead of 2.3's.
        version_2_1: bool = false, [0, 1], "Linux 2.6.22 tcp_cubic.c v2.1 (ns-2.35 tcp/linux/src/tcp_cubic.c)";
    }
}

/// Linux `cubic_root`: ∛a by a 64-entry table and one Newton–Raphson step.
pub fn cubic_root(a: u64) -> u32 {
    // v[x] = cbrt(x << 18) − 1 for x in 0..64, refined by hand (Willy Tarreau).
    const V: [u8; 64] = [
        0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156, 157, 161, 164,
        168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199, 200, 202, 204, 206, 209,
        211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229, 231, 232, 234, 236, 237, 239, 240,
        242, 244, 245, 246, 248, 250, 251, 252, 254,
    ];
    let b = 64 - a.leading_zeros(); // fls64
    if b < 7 {
        return (V[a as usize] as u32 + 35) >> 6;
    }
    let b = ((b * 84) >> 8) - 1;
    let shift = (a >> (b * 3)) as usize;
    let x = ((V[shift] as u32 + 10) << b) >> 6;
    // x' = (2x + a/x²)/3, with x(x − 1) for x² as Linux.
    let x = 2 * x as u64 + a / (x as u64 * (x as u64 - 1));
    ((x * 341) >> 10) as u32
}

/// CUBIC state (Linux `struct bictcp`) and converted parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cubic {
    /// Segments acknowledged per +1 segment.
    cnt: u32,
    /// W_max, segments (0 before the first loss).
    last_max_cwnd: u32,
    /// cwnd when cnt was last computed, segments.
    last_cwnd: u32,
    /// When cnt was last computed, jiffies.
    last_time: u32,
    /// W_max of the current epoch (origin of the cubic), segments.
    bic_origin_point: u32,
    /// K, 1/1024 s.
    bic_k: u32,
    /// Minimum RTT, µs (0 = none yet).
    delay_min: u32,
    /// Start of the congestion-avoidance epoch, jiffies (0 = none).
    epoch_start: u32,
    /// Segments acknowledged towards the next +1 of `tcp_cwnd`.
    ack_cnt: u32,
    /// Reno-friendly estimate W_est, segments.
    tcp_cwnd: u32,
    /// Last ACK, jiffies (stand-in for Linux `lsndtime` on idle restart).
    last_ack_time: u32,
    /// HyStart: delay samples this round.
    sample_cnt: u32,
    /// HyStart: exit point found.
    found: bool,
    /// HyStart: start of the round, µs.
    round_start: u32,
    /// HyStart: snd_nxt at the start of the round.
    end_seq: u32,
    /// HyStart: last ACK of the current train, µs.
    last_ack: u32,
    /// HyStart: minimum RTT of the round, µs.
    curr_rtt: u32,
    /// v2.1: cwnd at the last loss, segments (0 = none since the start or a timeout).
    loss_cwnd: u32,
    /// v2.1: segments per ACK, in 1/16 (Linux 2.6.22 `delayed_ack`).
    delayed_ack: u32,
    /// v2.1: this ACK's RTT sample if it acknowledged new data, µs (0 = none),
    /// for `cong_avoid`'s delay measure.
    acked_rtt_us: u32,
    /// β scaled by 1024.
    beta: u32,
    /// bic_scale·10 ≈ C·1024 (Linux `cube_rtt_scale`; 410 for C = 0.4).
    cube_rtt_scale: u32,
    /// 2⁴⁰/cube_rtt_scale (Linux `cube_factor`).
    cube_factor: u64,
    /// W_est step scale (Linux `beta_scale`).
    beta_scale: u32,
    /// Switches and HyStart settings.
    cfg: Config,
}

/// The parameters the per-ACK path reads (C and β live in the fixed-point fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Config {
    fast_convergence: bool,
    tcp_friendliness: bool,
    hystart: bool,
    hystart_detect: u32,
    /// Segments.
    hystart_low_window: u32,
    /// µs.
    hystart_ack_delta_us: u32,
    /// Segments, 0 = infinite.
    initial_ssthresh: u32,
    version_2_1: bool,
}

impl Cubic {
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.bic_origin_point = 0;
        self.bic_k = 0;
        self.delay_min = 0;
        self.epoch_start = 0;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
        self.loss_cwnd = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }

    fn hystart_reset(&mut self, tp: &TcpCc) {
        self.round_start = tp.now_us as u32;
        self.last_ack = self.round_start;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// Segments acknowledged per +1, as last computed.
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// W_max, segments.
    pub fn last_max_cwnd(&self) -> u32 {
        self.last_max_cwnd
    }

    /// K of the current epoch, 1/1024 s.
    pub fn k(&self) -> u32 {
        self.bic_k
    }

    /// Reno-friendly estimate W_est, segments.
    pub fn tcp_cwnd(&self) -> u32 {
        self.tcp_cwnd
    }

    /// The common start of both updates: count `acked` for the Reno estimate;
    /// the time now, or `None` while cnt was computed for this cwnd less than
    /// 1/32 s ago (it stands).
    fn count_acked(&mut self, tp: &TcpCc, cwnd: u32, acked: u32) -> Option<u32> {
        let now = tp.jiffies32();
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let fresh = self.last_cwnd == cwnd
            && (now.wrapping_sub(self.last_time) as i32) <= (tp.hz / 32) as i32;
        (!fresh).then_some(now)
    }

    /// Linux `bictcp_update`: cnt for this cwnd.
    fn update(&mut self, tp: &TcpCc, cwnd: u32, acked: u32) {
        let Some(now) = self.count_acked(tp, cwnd, acked) else {
            return;
        };
        // The cubic is evaluated at most once per jiffy; a cwnd reduction
        // clears epoch_start and so forces it.
        if self.epoch_start == 0 || now != self.last_time {
            let _ = self.cubic_cnt(tp, cwnd, acked, now);
        }
        if self.cfg.tcp_friendliness {
            self.reno_friendly(cwnd);
        }
        // At most +1 per 2 segments acknowledged: 1.5× per RTT.
        self.cnt = self.cnt.max(2);
    }

    /// The Reno-friendly region: W_est grows by 1 per cwnd·beta_scale/8 counted in
    /// `ack_cnt`; where it is ahead of cwnd, cnt is no larger than what catches up with it.
    fn reno_friendly(&mut self, cwnd: u32) {
        let delta = ((cwnd as u64 * self.beta_scale as u64) >> 3).clamp(1, u32::MAX as u64) as u32;
        if self.ack_cnt > delta {
            let n = (self.ack_cnt - 1) / delta;
            self.ack_cnt -= n * delta;
            self.tcp_cwnd = self.tcp_cwnd.saturating_add(n);
        }
        if self.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
            self.cnt = self.cnt.min(max_cnt);
        }
    }

    /// cnt from the cubic W(t + RTT); whether t is past K (the target above W_max).
    fn cubic_cnt(&mut self, tp: &TcpCc, cwnd: u32, acked: u32, now: u32) -> bool {
        self.last_cwnd = cwnd;
        self.last_time = now;
        if self.epoch_start == 0 {
            self.epoch_start = now;
            self.ack_cnt = acked;
            self.tcp_cwnd = cwnd;
            if self.last_max_cwnd <= cwnd {
                self.bic_k = 0;
                self.bic_origin_point = cwnd;
            } else {
                let dw = (self.last_max_cwnd - cwnd) as u64;
                self.bic_k = cubic_root(self.cube_factor.saturating_mul(dw));
                self.bic_origin_point = self.last_max_cwnd;
            }
        }
        // t = time since the epoch start plus one RTT, in 1/1024 s.
        let us_per_jiffy = 1_000_000 / tp.hz;
        let elapsed = (now.wrapping_sub(self.epoch_start) as i32).max(0) as u64;
        let rtt_jiffies = if self.cfg.version_2_1 {
            self.delay_min / us_per_jiffy
        } else {
            self.delay_min.div_ceil(us_per_jiffy)
        } as u64;
        let t = ((elapsed + rtt_jiffies) << BICTCP_HZ) / tp.hz as u64;
        let k = self.bic_k as u64;
        let offs = t.abs_diff(k);
        // C·(t − K)³ in segments: cube_rtt_scale·offs³ >> (10 + 3·BICTCP_HZ).
        let delta = (self.cube_rtt_scale as u64)
            .saturating_mul(offs)
            .saturating_mul(offs)
            .saturating_mul(offs)
            >> (10 + 3 * BICTCP_HZ);
        let delta = delta.min(u32::MAX as u64) as u32;
        let target = if t < k {
            self.bic_origin_point.saturating_sub(delta)
        } else {
            self.bic_origin_point.saturating_add(delta)
        };
        let cnt = if target > cwnd {
            cwnd as u64 / (target - cwnd) as u64
        } else {
            100 * cwnd as u64
        };
        // Before the first loss the cubic is too timid: at least 5 % per RTT (v2.3).
        let cnt = if self.last_max_cwnd == 0 && !self.cfg.version_2_1 {
            cnt.min(20)
        } else {
            cnt
        };
        self.cnt = cnt.min(u32::MAX as u64) as u32;
        t >= k
    }

    /// Version 2.1's `bictcp_cong_avoid` (Linux 2.6.22): per ACK, whatever it acknowledges.
    fn cong_avoid_v21(&mut self, tp: &mut TcpCc) {
        self.measure_delay_v21(tp);
        if !tp.is_cwnd_limited() {
            return;
        }
        if tp.snd_cwnd <= tp.snd_ssthresh {
            // 2.6.22's `tcp_slow_start` without byte counting: +1 per ACK (more
            // only from a count congestion avoidance left, at most
            // V21_SLOW_START_STEPS where Linux has no bound).
            tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.saturating_add(tp.snd_cwnd);
            for _ in 0..V21_SLOW_START_STEPS {
                if tp.snd_cwnd == 0 || tp.snd_cwnd_cnt < tp.snd_cwnd {
                    break;
                }
                tp.snd_cwnd_cnt -= tp.snd_cwnd;
                if tp.snd_cwnd < tp.snd_cwnd_clamp {
                    tp.snd_cwnd += 1;
                }
            }
            return;
        }
        self.update_v21(tp, tp.snd_cwnd);
        if tp.snd_cwnd_cnt >= self.cnt {
            if tp.snd_cwnd < tp.snd_cwnd_clamp {
                tp.snd_cwnd += 1;
            }
            tp.snd_cwnd_cnt = 0;
        } else {
            tp.snd_cwnd_cnt += 1;
        }
    }

    /// Version 2.1's `measure_delay`: this ACK's sample into delay_min, unless
    /// within a second of the epoch's start (or of the clock's zero, while no
    /// epoch has started).
    fn measure_delay_v21(&mut self, tp: &TcpCc) {
        let rtt = std::mem::take(&mut self.acked_rtt_us);
        if rtt == 0 || (tp.jiffies32().wrapping_sub(self.epoch_start) as i32) < tp.hz as i32 {
            return;
        }
        if self.delay_min == 0 || self.delay_min > rtt {
            self.delay_min = rtt;
        }
    }

    /// Version 2.1's `bictcp_update`: cnt for this cwnd.
    fn update_v21(&mut self, tp: &TcpCc, cwnd: u32) {
        let Some(now) = self.count_acked(tp, cwnd, 1) else {
            return;
        };
        let above_origin = self.cubic_cnt(tp, cwnd, 1, now);
        let us_per_jiffy = 1_000_000 / tp.hz;
        if self.delay_min > 0 {
            // delay_min in eighths of a jiffy, as 2.6.22 keeps it (1 for a 0-jiffy RTT).
            let delay8 = (((self.delay_min / us_per_jiffy) as u64) << 3).max(1);
            let min_cnt = cwnd as u64 * tp.hz as u64 * 8 / (10 * MAX_INCREMENT * delay8);
            if (self.cnt as u64) < min_cnt && above_origin {
                self.cnt = min_cnt.min(u32::MAX as u64) as u32;
            }
        }
        if self.loss_cwnd == 0 {
            self.cnt = 50;
        }
        if self.cfg.tcp_friendliness {
            self.reno_friendly(cwnd);
        }
        let cnt = ((self.cnt as u64) << ACK_RATIO_SHIFT) / self.delayed_ack.max(1) as u64;
        self.cnt = cnt.clamp(1, u32::MAX as u64) as u32;
    }

    /// Linux `hystart_update`: look for the slow-start exit on this ACK.
    fn hystart_update(&mut self, tp: &mut TcpCc, delay: u32) {
        if after(tp.snd_una, self.end_seq) {
            self.hystart_reset(tp);
        }
        if tp.snd_cwnd < self.cfg.hystart_low_window {
            return;
        }
        let now = tp.now_us as u32;
        if self.cfg.hystart_detect & HYSTART_ACK_TRAIN != 0
            && (now.wrapping_sub(self.last_ack) as i32) <= self.cfg.hystart_ack_delta_us as i32
        {
            self.last_ack = now;
            // The train has lasted longer than half the minimum RTT (unpaced).
            let threshold = self.delay_min >> 1;
            if now.wrapping_sub(self.round_start) as i32 > threshold as i32 {
                self.found = true;
                tp.snd_ssthresh = tp.snd_cwnd;
            }
        }
        if self.cfg.hystart_detect & HYSTART_DELAY != 0 {
            self.curr_rtt = self.curr_rtt.min(delay);
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min >> 3).clamp(HYSTART_DELAY_MIN, HYSTART_DELAY_MAX);
                if self.curr_rtt > self.delay_min.saturating_add(thresh) {
                    self.found = true;
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
            }
        }
    }
}

impl CongestionOps for Cubic {
    const NAME: &'static str = "cubic";
    type Params = CubicParams;

    fn new(p: &CubicParams) -> Self {
        let beta = (p.beta * BETA_SCALE as f64).round() as u32;
        let bic_scale = (p.c * 1024.0 / 10.0).round() as u32;
        let cube_rtt_scale = bic_scale * 10;
        let mut cubic = Cubic {
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            bic_origin_point: 0,
            bic_k: 0,
            delay_min: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            last_ack_time: 0,
            sample_cnt: 0,
            found: false,
            round_start: 0,
            end_seq: 0,
            last_ack: 0,
            curr_rtt: u32::MAX,
            loss_cwnd: 0,
            delayed_ack: 0,
            acked_rtt_us: 0,
            beta,
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * BICTCP_HZ)) / cube_rtt_scale as u64,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            cfg: Config {
                fast_convergence: p.fast_convergence,
                tcp_friendliness: p.tcp_friendliness,
                hystart: p.hystart,
                hystart_detect: p.hystart_detect,
                hystart_low_window: p.hystart_low_window,
                hystart_ack_delta_us: p.hystart_ack_delta_us,
                initial_ssthresh: p.initial_ssthresh,
                version_2_1: p.version_2_1,
            },
        };
        cubic.reset();
        cubic
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let c = &self.cfg;
        vec![
            ("beta", self.beta.into()),
            ("cube_rtt_scale", self.cube_rtt_scale.into()),
            ("cube_factor", self.cube_factor as i64),
            ("beta_scale", self.beta_scale.into()),
            ("fast_convergence", c.fast_convergence.into()),
            ("tcp_friendliness", c.tcp_friendliness.into()),
            ("hystart", c.hystart.into()),
            ("hystart_detect", c.hystart_detect.into()),
            ("hystart_low_window", c.hystart_low_window.into()),
            ("hystart_ack_delta_us", c.hystart_ack_delta_us.into()),
            ("initial_ssthresh", c.initial_ssthresh.into()),
            ("version_2_1", c.version_2_1.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.reset();
        if self.cfg.hystart {
            self.hystart_reset(tp);
        } else if self.cfg.initial_ssthresh != 0 {
            tp.snd_ssthresh = self.cfg.initial_ssthresh;
        }
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let cwnd = tp.snd_cwnd as u64;
        self.epoch_start = 0;
        self.last_max_cwnd = if tp.snd_cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            (cwnd * (BETA_SCALE + self.beta) as u64 / (2 * BETA_SCALE) as u64) as u32
        } else {
            tp.snd_cwnd
        };
        self.loss_cwnd = tp.snd_cwnd;
        ((cwnd * self.beta as u64 / BETA_SCALE as u64) as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        if self.cfg.version_2_1 {
            return self.cong_avoid_v21(tp);
        }
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        self.update(tp, tp.snd_cwnd, acked);
        tcp_cong_avoid_ai(tp, self.cnt, acked);
    }

    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        if self.cfg.version_2_1 {
            return tp.snd_cwnd.max(self.last_max_cwnd);
        }
        tcp_reno_undo_cwnd(tp)
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
            self.hystart_reset(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        if ev == CaEvent::TxStart && !self.cfg.version_2_1 {
            // Idle: shift the epoch so the cubic resumes where it stopped.
            let now = tp.jiffies32();
            let delta = now.wrapping_sub(self.last_ack_time) as i32;
            if self.epoch_start != 0 && delta > 0 {
                self.epoch_start = self.epoch_start.wrapping_add(delta as u32);
                if after(self.epoch_start, now) {
                    self.epoch_start = now;
                }
            }
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        let now = tp.jiffies32();
        self.last_ack_time = now;
        if self.cfg.version_2_1 && sample.pkts_acked > 0 && tp.ca_state == CaState::Open {
            // ratio ← ratio + acked − ratio/16, in u32 as Linux 2.6.22.
            let step = sample
                .pkts_acked
                .wrapping_sub(self.delayed_ack >> ACK_RATIO_SHIFT);
            self.delayed_ack = self.delayed_ack.wrapping_add(step);
        }
        if self.cfg.version_2_1 {
            self.acked_rtt_us = if sample.pkts_acked > 0 && sample.rtt_us >= 0 {
                (sample.rtt_us as u32).max(1)
            } else {
                0
            };
            return;
        }
        if sample.rtt_us < 0 {
            return;
        }
        // Discard delay samples right after a reduction (one second).
        if self.epoch_start != 0 && (now.wrapping_sub(self.epoch_start) as i32) < tp.hz as i32 {
            return;
        }
        let delay = (sample.rtt_us as u32).max(1);
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        if !self.found && tp.in_slow_start() && self.cfg.hystart {
            self.hystart_update(tp, delay);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::testing::{run_until, Harness};

    fn harness(p: &CubicParams, cwnd: u32) -> Harness<Cubic> {
        Harness::with_params(p, cwnd)
    }

    #[test]
    fn cube_root_is_within_a_fraction_of_a_percent() {
        let samples = [
            1u64,
            7,
            8,
            27,
            63,
            64,
            1000,
            1 << 30,
            804_520_703_100,
            u64::MAX,
        ];
        for a in samples {
            let exact = (a as f64).cbrt();
            let r = cubic_root(a) as f64;
            assert!(
                (r - exact).abs() <= 1.0 + exact * 0.005,
                "cbrt({a}) = {r}, want {exact}"
            );
        }
    }

    #[test]
    fn fixed_point_constants() {
        let c = Cubic::new(&CubicParams::default());
        // bic_scale = round(0.4·102.4) = 41; β = round(0.7·1024) = 717.
        assert_eq!((c.cube_rtt_scale, c.beta), (410, 717));
        assert_eq!(c.cube_factor, (1u64 << 40) / 410);
        // 8·1741/3 = 4642; 4642/307 = 15.
        assert_eq!(c.beta_scale, 15);
    }

    #[test]
    fn decrease_is_0_7_with_fast_convergence() {
        let mut h = harness(&CubicParams::default(), 1000);
        h.loss();
        // ⌊1000·717/1024⌋ = ⌊700.2⌋; W_max = 1000.
        assert_eq!((h.cwnd(), h.cc.last_max_cwnd()), (700, 1000));
        h.tp.snd_cwnd = 900;
        h.loss();
        // 900 < 1000: W_max = ⌊900·1741/2048⌋ = ⌊765.1⌋; ssthresh = ⌊900·717/1024⌋ = ⌊630.2⌋.
        assert_eq!((h.cwnd(), h.cc.last_max_cwnd()), (630, 765));
        let mut p = CubicParams::default();
        p.set("fast_convergence", 0.0).unwrap();
        let mut h = harness(&p, 1000);
        h.loss();
        h.tp.snd_cwnd = 900;
        h.loss();
        assert_eq!(h.cc.last_max_cwnd(), 900);
    }

    /// A flow with RTT 100 ms (delay_min set) that just lost at W_max = 1000.
    fn after_loss_at_1000(p: &CubicParams) -> Harness<Cubic> {
        let mut h = harness(p, 1000);
        h.set_rtt_ms(100);
        h.tp.snd_ssthresh = 1000;
        h.round();
        h.tp.snd_cwnd = 1000;
        h.tp.snd_cwnd_cnt = 0;
        h.loss();
        assert_eq!(h.cwnd(), 700);
        h
    }

    #[test]
    fn k_is_the_time_to_regain_w_max() {
        let mut h = after_loss_at_1000(&CubicParams::default());
        h.round();
        // K = ∛((W_max − cwnd)/C) = ∛(300/0.4004) = ∛749.3 = 9.081 s = 9299/1024 s;
        // Linux's cube root gives 9294.
        let k = h.cc.k();
        assert!((k as f64 - 9299.0).abs() < 9299.0 * 0.002, "K = {k}");
        assert_eq!(k, 9294);
        // Run to t = K after the epoch start (first round's ACK, 100 ms after the loss).
        let k_us = k as u64 * 1_000_000 / 1024;
        let epoch_us = h.tp.now_us;
        h.rounds_until(200, "t = K", |h| h.tp.now_us >= epoch_us + k_us);
        assert!(h.cwnd().abs_diff(1000) <= 1, "cwnd at t = K: {}", h.cwnd());
    }

    #[test]
    fn concave_then_convex() {
        let mut p = CubicParams::default();
        p.set("tcp_friendliness", 0.0).unwrap();
        let mut h = after_loss_at_1000(&p);
        let mut w = vec![h.cwnd()];
        for _ in 0..180 {
            h.round();
            w.push(h.cwnd());
        }
        // Growth per second (10 rounds): falling until K ≈ 9.1 s, then rising.
        let per_s: Vec<u32> = (0..18).map(|i| w[10 * i + 10] - w[10 * i]).collect();
        assert!(per_s[..8].windows(2).all(|p| p[1] <= p[0]), "{per_s:?}");
        assert!(per_s[10..].windows(2).all(|p| p[1] >= p[0]), "{per_s:?}");
        assert!(per_s[9] <= 2 && per_s[17] > 50, "{per_s:?}");
        // By hand: after 18 s, W = 1000 + 0.4·(18.1 − 9.08)³ ≈ 1294.
        assert!(w[180].abs_diff(1294) <= 10, "{}", w[180]);
    }

    #[test]
    fn reno_friendly_region_at_small_windows_and_short_rtts() {
        // W_max = 100, RTT 1 ms: the cubic needs K = ∛(30/0.4) = 4.2 s (4200 RTTs)
        // to regain 100, while W_est grows 8/15 segment per RTT.
        let run = |friendly: bool| {
            let mut p = CubicParams::default();
            p.set("tcp_friendliness", if friendly { 1.0 } else { 0.0 })
                .unwrap();
            let mut h = harness(&p, 100);
            h.set_rtt_ms(1);
            h.tp.snd_ssthresh = 100;
            h.round();
            h.tp.snd_cwnd = 100;
            h.loss();
            assert_eq!(h.cwnd(), 70); // ⌊100·717/1024⌋
            h.rounds(1000);
            h
        };
        let reno = run(true);
        let cubic = run(false);
        // 1 s = 1000 RTTs: W_est ≈ 70 + 999·8/15 = 603. Linux refreshes W_est only
        // when cwnd changed or HZ/32 = 31 ms passed, so it may lag by up to 32 RTTs
        // (17 segments). cwnd follows W_est.
        let est = reno.cc.tcp_cwnd();
        assert!((586..=603).contains(&est), "W_est {est}");
        assert!(reno.cwnd().abs_diff(est) <= 2, "{} vs {est}", reno.cwnd());
        // The cubic alone: W(1 s + 1 ms) = 100 − 0.4·(4.22 − 1.0)³ ≈ 87.
        assert!(cubic.cwnd().abs_diff(87) <= 1, "{}", cubic.cwnd());
    }

    #[test]
    fn first_epoch_without_w_max_grows_5_percent() {
        // No loss yet: cnt ≤ 20 → +cwnd/20 per RTT at least.
        let mut p = CubicParams::default();
        p.set("tcp_friendliness", 0.0).unwrap();
        let mut h = harness(&p, 1000);
        h.tp.snd_ssthresh = 1000;
        h.advance_ms(100);
        h.round();
        assert_eq!(h.cc.cnt(), 20);
        assert_eq!(h.cwnd(), 1050); // 1000 segments / 20
    }

    fn v21() -> CubicParams {
        let mut p = CubicParams::default();
        p.set("version_2_1", 1.0).unwrap();
        p
    }

    #[test]
    fn v21_estimates_segments_per_ack_from_32_sixteenths() {
        // ratio ← ratio + acked − ⌊ratio/16⌋: 32 + 1 − 2 = 31, then 31 + 1 − 1 = 31.
        let mut h = harness(&v21(), 10);
        h.round();
        assert_eq!(h.cc.delayed_ack, 31);
        // Two segments per ACK: 31 + 2 − 1 = 32, then 32 + 2 − 2 = 32.
        h.send_all();
        h.advance_ms(100);
        h.ack_each(10, 2);
        assert_eq!(h.cc.delayed_ack, 32);
    }

    #[test]
    fn v21_grows_by_one_per_26_acks_until_a_loss() {
        // No loss yet: cnt = 50, divided by 31/16 segments per ACK: ⌊50·16/31⌋ = 25;
        // +1 when 25 ACKs have been counted, on the 26th. 1000 ACKs: ⌊1000/26⌋ = 38.
        let mut p = v21();
        p.set("tcp_friendliness", 0.0).unwrap();
        let mut h = harness(&p, 1000);
        h.tp.snd_ssthresh = 999;
        h.advance_ms(100);
        h.round();
        assert_eq!(h.cc.cnt(), 25);
        assert_eq!(h.cwnd(), 1038);
        // v2.3: cnt ≤ 20 per segment, +50 (first_epoch_without_w_max_grows_5_percent).
    }

    #[test]
    fn v21_slow_start_includes_cwnd_equal_to_ssthresh() {
        // 2.6.22: slow start while cwnd ≤ ssthresh, +1 per ACK: from 10 with ssthresh 15
        // the first 6 ACKs take cwnd to 16, the next 4 count towards cnt = 25.
        // v2.3 stops at 15 after 5 ACKs and its cnt ≤ 20 leaves it there.
        let mut h = harness(&v21(), 10);
        h.tp.snd_ssthresh = 15;
        h.round();
        assert_eq!(h.cwnd(), 16);
        let mut now = harness(&CubicParams::default(), 10);
        now.tp.snd_ssthresh = 15;
        now.round();
        assert_eq!(now.cwnd(), 15);
    }

    #[test]
    fn v21_above_w_max_grows_at_most_16_segments_per_100_ms_per_ack_ratio() {
        // Far past K the cubic asks for more than cwnd per RTT; max_increment caps it:
        // cnt ≥ cwnd·HZ·8/(10·16·delay_min) = cwnd/16 at 100 ms (delay_min = 800
        // eighths of a jiffy), divided by 31/16: ⌊⌊cwnd/16⌋·16/31⌋ ACKs per +1, so
        // about 31 segments per RTT, whatever cwnd.
        let run = |p: &CubicParams| {
            let mut p = p.clone();
            p.set("tcp_friendliness", 0.0).unwrap();
            let mut h = after_loss_at_1000(&p);
            h.rounds(400); // 40 s: t − K ≈ 31 s, where the cubic's slope is 1.2·31² ≈ 1150 segments/s
            let before = h.cwnd();
            h.round();
            (h, before)
        };
        let (h, before) = run(&v21());
        assert_eq!(h.cc.cnt(), (before / 16) * 16 / 31, "cwnd {before}");
        let grown = h.cwnd() - before;
        assert!((29..=31).contains(&grown), "+{grown} from {before}");
        let (now, before) = run(&CubicParams::default());
        assert!(
            now.cwnd() - before >= 100,
            "v2.3: +{} from {before}",
            now.cwnd() - before
        );
    }

    #[test]
    fn v21_measures_the_delay_in_cong_avoid_a_second_from_the_epochs_start() {
        // 2.6.22's measure_delay: the first second of the clock (no epoch yet) gives no
        // sample; v2.3 takes every sample while no epoch has started.
        let mut h = harness(&v21(), 10);
        h.set_rtt_ms(50);
        h.round();
        assert_eq!(h.cc.delay_min, 0);
        let mut now = harness(&CubicParams::default(), 10);
        now.set_rtt_ms(50);
        now.round();
        assert_eq!(now.cc.delay_min, 50_000);
        h.advance_ms(1000);
        h.set_rtt_ms(60);
        h.round();
        assert_eq!(h.cc.delay_min, 60_000);
        // Recovery's ACKs reach no cong_avoid: no sample.
        h.send_all();
        h.advance_ms(60);
        h.fast_retransmit();
        h.set_rtt_ms(40);
        h.ack_each(3, 1);
        h.end_recovery();
        assert_eq!(h.cc.delay_min, 60_000);
        // ACKs after it are measured until an update starts the epoch (the one that
        // starts it too); the next ones, within a second of that start, are not.
        h.set_rtt_ms(45);
        h.round();
        assert_eq!(
            (h.cc.delay_min, h.cc.epoch_start),
            (45_000, h.tp.jiffies32())
        );
        h.set_rtt_ms(30);
        h.round();
        assert_eq!(h.cc.delay_min, 45_000);
        h.advance_ms(1000);
        h.round();
        assert_eq!(h.cc.delay_min, 30_000);
    }

    #[test]
    fn v21_counts_losses_from_zero_after_a_timeout() {
        let mut h = after_loss_at_1000(&v21());
        assert_eq!(h.cc.loss_cwnd, 1000);
        h.timeout();
        assert_eq!((h.cc.loss_cwnd, h.cc.delayed_ack), (0, 32));
        // Undo goes back to the larger of cwnd and W_max (2.6.22's bictcp_undo_cwnd).
        let mut h = after_loss_at_1000(&v21());
        h.tp.snd_cwnd = 600;
        assert_eq!(h.cc.undo_cwnd(&mut h.tp), 1000);
    }

    #[test]
    fn timeout_resets_the_epoch() {
        let mut h = after_loss_at_1000(&CubicParams::default());
        h.rounds(3);
        h.timeout();
        assert_eq!((h.cwnd(), h.cc.last_max_cwnd(), h.cc.k()), (1, 0, 0));
    }

    #[test]
    fn hystart_delay_exit() {
        let mut p = CubicParams::default();
        p.set("hystart", 1.0).unwrap();
        let mut h = harness(&p, 10);
        h.set_rtt_ms(100);
        h.rounds(2); // 40 segments, delay_min 100 ms
        assert_eq!(h.ssthresh(), crate::ops::TCP_INFINITE_SSTHRESH);
        // Threshold: 100 ms + clamp(12.5 ms, 4, 16) = 112.5 ms; 112 ms stays in slow start.
        h.set_rtt_us(112_000);
        h.round();
        assert_eq!(
            (h.cwnd(), h.ssthresh()),
            (80, crate::ops::TCP_INFINITE_SSTHRESH)
        );
        // 113 ms: the round's first 8 ACKs are samples, the 9th ends slow start
        // (before its own increase: cwnd 80 + 8).
        h.set_rtt_us(113_000);
        h.round();
        assert_eq!(h.ssthresh(), 88);
        assert!(h.cc.found);
    }

    #[test]
    fn hystart_ack_train_exit() {
        let mut p = CubicParams::default();
        p.set("hystart", 1.0).unwrap();
        let mut h = harness(&p, 32);
        h.set_rtt_ms(100);
        // One round: cwnd 64, delay_min 100 ms.
        h.round();
        // A train of ACKs 1 ms apart: exit once it lasts more than delay_min/2 = 50 ms.
        h.send_all();
        h.advance_ms(100);
        let acks = run_until(
            &mut h,
            64,
            "HyStart's ACK-train exit",
            |h| h.cc.found,
            |h| {
                h.ack_each(1, 1);
                h.advance_ms(1);
            },
        );
        // ACK k arrives (k − 1) ms after the first; 51 ms > 50 ms at the 52nd,
        // whose own increase comes after: ssthresh = 64 + 51.
        assert_eq!(acks, 52);
        assert_eq!(h.ssthresh(), 64 + 51);
    }

    #[test]
    fn idle_shifts_the_epoch() {
        let mut h = after_loss_at_1000(&CubicParams::default());
        h.rounds(2);
        let before = h.cc.epoch_start;
        h.advance_ms(5000);
        h.send_all(); // TxStart after 5 s without ACKs
        assert_eq!(h.cc.epoch_start, before + 5000);
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p =
            crate::registry::CcParams::with("cubic", &[("hystart", 1.0), ("beta", 0.8)]).unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "cubic");
    }
}

crate::cc_property_suite!(cubic_properties, Cubic);
crate::cc_property_suite!(
    cubic_hystart_properties,
    Cubic,
    CubicParams {
        hystart: true,
        ..Default::default()
    }
);
