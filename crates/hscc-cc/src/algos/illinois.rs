//! TCP-Illinois (Liu, Başar & Srikant, "TCP-Illinois: A Loss and Delay-Based
//! Congestion Control Algorithm for High-Speed Networks", VALUETOOLS 2006 /
//! Performance Evaluation 65(6–7), 2008; Linux `tcp_illinois.c`).
//!
//! An AIMD — per ACK cwnd += α/cwnd, on loss cwnd ← (1 − β)·cwnd — whose α
//! and β are set once per round from the average queueing delay
//! d_a = avgRTT − baseRTT against the largest one seen, d_m = maxRTT − baseRTT
//! (avgRTT = mean of the round's samples, baseRTT/maxRTT = min/max ever):
//!
//! - α = α_max while d_a ≤ d1 = d_m/100, else the hyperbola
//!   α = k1/(k2 + d_a) from α_max at d1 to α_min at d_m; after delay has been
//!   above d1, α returns to α_max only after θ consecutive rounds at ≤ d1.
//! - β = β_min for d_a ≤ d2 = d_m/10, β_max for d_a ≥ d3 = 8·d_m/10, linear
//!   in between.
//! - Below `win_thresh` segments α = 1, β = 1/2 (Reno); on a timeout (Loss
//!   state) likewise until the next round.
//!
//! Constants (Linux): α_min = 0.3, α_max = 10, β_min = 1/8, β_max = 1/2,
//! win_thresh = 15, θ = 5 (paper: α_min = 0.1, win_thresh = 10). Fixed point
//! as Linux: α << 7 (α_min = ⌊0.3·128⌋ = 38), β << 6; RTT samples are capped
//! at 2³²/1280 µs ≈ 3.36 s. Slow start is Reno's.
//!
//! # Deviations from the paper / from Linux
//! - From the paper (as Linux): d_m is never aged; α and β are computed from
//!   one round's mean RTT rather than the paper's filtered delay.
//! - From Linux: the products cnt·α, cwnd·β and the α/β formulas are in 64
//!   bits (Linux's u32 cnt·α overflows above 2²⁵ segments); the round's
//!   sample counter saturates instead of wrapping at 2¹⁶. The Reno β used
//!   below `win_thresh` and after a timeout is 1/2 whatever `beta_max`
//!   (Linux uses β_max, which is 1/2 by default).

use crate::helpers::in_congestion_avoidance;
use crate::ops::{after, AckSample, CaState, CongestionOps, TcpCc};

crate::params! {
    /// TCP-Illinois parameters.
    pub struct IllinoisParams {
        /// α_min: additive increase (segments per RTT) at the largest queueing delay.
        alpha_min: f64 = 0.3, [0.01, 1.0], "Linux tcp_illinois.c ALPHA_MIN (paper §III: 0.1)";
        /// α_max: additive increase (segments per RTT) with no queueing delay.
        alpha_max: f64 = 10.0, [1.0, 100.0], "Linux tcp_illinois.c ALPHA_MAX; paper §III";
        /// β_min: decrease factor at low queueing delay.
        beta_min: f64 = 0.125, [0.015625, 0.5], "Linux tcp_illinois.c BETA_MIN; paper §III";
        /// β_max: decrease factor at high queueing delay.
        beta_max: f64 = 0.5, [0.5, 0.875], "Linux tcp_illinois.c BETA_MAX; paper §III";
        /// Below this window (segments) Illinois is Reno (α = 1, β = 1/2).
        win_thresh: u32 = 15, [0, 1000000], "Linux tcp_illinois.c win_thresh (paper: 10)";
        /// θ: low-delay rounds needed before α returns to α_max.
        theta: u32 = 5, [1, 255], "Linux tcp_illinois.c theta; paper §III";
    }
    order { alpha_min <= alpha_max; beta_min <= beta_max; }
}

/// Fractional bits of α.
const ALPHA_SHIFT: u32 = 7;
/// α = 1 (Reno).
const ALPHA_BASE: u32 = 1 << ALPHA_SHIFT;
/// Fractional bits of β.
const BETA_SHIFT: u32 = 6;
/// β = 1/2 (Reno).
const BETA_BASE: u32 = 1 << (BETA_SHIFT - 1);
/// Largest RTT sample used, µs (Linux `RTT_MAX` = U32_MAX / ALPHA_MAX).
const RTT_MAX: u32 = u32::MAX / (10 << ALPHA_SHIFT);

/// TCP-Illinois state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illinois {
    /// α_min, α_max: segments per RTT << 7.
    alpha_min: u32,
    alpha_max: u32,
    /// β_min, β_max: << 6.
    beta_min: u32,
    beta_max: u32,
    /// Reno below this window, segments.
    win_thresh: u32,
    /// Low-delay rounds before α_max.
    theta: u32,
    /// Sum of the round's RTT samples, µs.
    sum_rtt: u64,
    /// Samples in the round.
    cnt_rtt: u32,
    /// Smallest RTT sample ever, µs.
    base_rtt: u32,
    /// Largest RTT sample ever, µs.
    max_rtt: u32,
    /// `snd_nxt` at the start of the round: ACKs beyond it end the round.
    end_seq: u32,
    /// Current additive increase, segments per RTT << 7.
    pub alpha: u32,
    /// Current decrease factor << 6.
    pub beta: u32,
    /// Segments acknowledged by the current ACK (credit for `snd_cwnd_cnt`).
    acked: u32,
    /// Whether the average delay went above d1 since α was last α_max.
    rtt_above: bool,
    /// Consecutive rounds with average delay ≤ d1.
    rtt_low: u32,
}

impl Illinois {
    /// Linux `rtt_reset`: begin a round.
    fn rtt_reset(&mut self, tp: &TcpCc) {
        self.end_seq = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
    }

    /// α for average delay `da` and maximum delay `dm` (µs), Linux `alpha()`.
    fn alpha_for(&mut self, da: u32, dm: u32) -> u32 {
        let d1 = dm / 100;
        if da <= d1 {
            // Never left the low-delay zone: full speed.
            if !self.rtt_above {
                return self.alpha_max;
            }
            // Wait for θ good rounds so one lucky round cannot jump α.
            self.rtt_low += 1;
            if self.rtt_low < self.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return self.alpha_max;
        }
        self.rtt_above = true;
        // α = k1/(k2 + da) with k1 = (dm − d1)·αmin·αmax/(αmax − αmin) and
        // k2 = (dm − d1)·αmin/(αmax − αmin) − d1, rearranged for integers.
        let (amin, amax) = (self.alpha_min as u64, self.alpha_max as u64);
        let dm = (dm - d1) as u64;
        let da = (da - d1) as u64;
        (dm * amax / (dm + da * (amax - amin) / amin)) as u32
    }

    /// β for average delay `da` and maximum delay `dm` (µs), Linux `beta()`.
    fn beta_for(&self, da: u32, dm: u32) -> u32 {
        let d2 = dm / 10;
        if da <= d2 {
            return self.beta_min;
        }
        let d3 = (8 * dm as u64 / 10) as u32;
        if da >= d3 || d3 <= d2 {
            return self.beta_max;
        }
        // Linear from (d2, β_min) to (d3, β_max).
        let (bmin, bmax) = (self.beta_min as i64, self.beta_max as i64);
        let (d2, d3, da) = (d2 as i64, d3 as i64, da as i64);
        ((bmin * d3 - bmax * d2 + (bmax - bmin) * da) / (d3 - d2)) as u32
    }

    /// Set α and β from the delays of a round.
    fn set_delays(&mut self, da: u32, dm: u32) {
        self.alpha = self.alpha_for(da, dm);
        self.beta = self.beta_for(da, dm);
    }

    /// Linux `update_params`, once per round.
    fn update_params(&mut self, tp: &TcpCc) {
        if tp.snd_cwnd < self.win_thresh {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt - self.base_rtt;
            let avg = (self.sum_rtt / self.cnt_rtt as u64) as u32;
            self.set_delays(avg.saturating_sub(self.base_rtt), dm);
        }
        self.rtt_reset(tp);
    }
}

impl CongestionOps for Illinois {
    const NAME: &'static str = "illinois";
    type Params = IllinoisParams;

    fn new(p: &IllinoisParams) -> Self {
        let alpha = |x: f64| (x * ALPHA_BASE as f64).floor() as u32;
        let beta = |x: f64| (x * (1 << BETA_SHIFT) as f64).floor() as u32;
        Illinois {
            alpha_min: alpha(p.alpha_min),
            alpha_max: alpha(p.alpha_max),
            beta_min: beta(p.beta_min),
            beta_max: beta(p.beta_max),
            win_thresh: p.win_thresh,
            theta: p.theta,
            sum_rtt: 0,
            cnt_rtt: 0,
            base_rtt: 0x7fff_ffff,
            max_rtt: 0,
            end_seq: 0,
            alpha: alpha(p.alpha_max),
            beta: BETA_BASE,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("alpha_min", self.alpha_min.into()),
            ("alpha_max", self.alpha_max.into()),
            ("beta_min", self.beta_min.into()),
            ("beta_max", self.beta_max.into()),
            ("win_thresh", self.win_thresh.into()),
            ("theta", self.theta.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.alpha = self.alpha_max;
        self.beta = BETA_BASE;
        self.base_rtt = 0x7fff_ffff;
        self.max_rtt = 0;
        self.acked = 0;
        self.rtt_low = 0;
        self.rtt_above = false;
        self.rtt_reset(tp);
    }

    fn pkts_acked(&mut self, _tp: &mut TcpCc, sample: &AckSample) {
        self.acked = sample.pkts_acked;
        if sample.rtt_us < 0 {
            return;
        }
        // Cap bogus values so the α arithmetic cannot wrap.
        let rtt = (sample.rtt_us as u32).min(RTT_MAX);
        self.base_rtt = self.base_rtt.min(rtt);
        self.max_rtt = self.max_rtt.max(rtt);
        self.cnt_rtt = self.cnt_rtt.saturating_add(1);
        self.sum_rtt += rtt as u64;
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Loss {
            self.alpha = ALPHA_BASE;
            self.beta = BETA_BASE;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.rtt_reset(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        if after(ack, self.end_seq) {
            self.update_params(tp);
        }
        if !in_congestion_avoidance(tp, acked) {
            return;
        }
        // cwnd += α/cwnd per segment: +delta/cwnd once delta = cnt·α ≥ cwnd.
        tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.saturating_add(self.acked);
        self.acked = 1;
        let delta = (tp.snd_cwnd_cnt as u64 * self.alpha as u64) >> ALPHA_SHIFT;
        if delta >= tp.snd_cwnd as u64 {
            let inc = delta / tp.snd_cwnd as u64;
            tp.snd_cwnd = (tp.snd_cwnd as u64 + inc).min(tp.snd_cwnd_clamp as u64) as u32;
            tp.snd_cwnd_cnt = 0;
        }
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let decr = (tp.snd_cwnd as u64 * self.beta as u64) >> BETA_SHIFT;
        (tp.snd_cwnd - decr as u32).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn illinois() -> Illinois {
        Illinois::new(&IllinoisParams::default())
    }

    #[test]
    fn fixed_point_constants_match_linux() {
        let il = illinois();
        assert_eq!(
            (il.alpha_min, il.alpha_max, il.beta_min, il.beta_max),
            (38, 1280, 8, 32)
        );
        assert_eq!(RTT_MAX, 3_355_443);
    }

    #[test]
    fn no_queueing_delay_gives_alpha_max_beta_min() {
        let mut il = illinois();
        il.set_delays(0, 100_000);
        assert_eq!((il.alpha, il.beta), (1280, 8)); // 10, 1/8
    }

    #[test]
    fn delay_at_its_maximum_gives_alpha_min_beta_max() {
        // d1 = 1000: α = 99000·1280 / (99000 + ⌊99000·1242/38⌋ = 3235736)
        //   = 126720000/3334736 = 38.0002 → 38 = α_min; d_a ≥ d3 → β_max.
        let mut il = illinois();
        il.set_delays(100_000, 100_000);
        assert_eq!((il.alpha, il.beta), (38, 32)); // 0.297, 1/2
    }

    #[test]
    fn intermediate_delays_by_hand() {
        let mut il = illinois();
        // d_m = 100 ms: d1 = 1000, d2 = 10000, d3 = 80000 µs.
        // d_a = 45 ms: α = 126720000 / (99000 + ⌊44000·1242/38⌋ = 1438105) = 82.4 → 82
        // (0.64); β = (8·80000 − 32·10000 + 24·45000)/70000 = 20 (0.3125).
        il.set_delays(45_000, 100_000);
        assert_eq!((il.alpha, il.beta), (82, 20));
        // d_a = 2 ms: α = 126720000 / (99000 + ⌊1000·1242/38⌋ = 32684) = 962.3 → 962;
        // d_a ≤ d2: β_min.
        il.set_delays(2_000, 100_000);
        assert_eq!((il.alpha, il.beta), (962, 8));
        // d_a = 20 ms: β = (640000 − 320000 + 24·20000)/70000 = 11.4 → 11.
        il.set_delays(20_000, 100_000);
        assert_eq!(il.beta, 11);
    }

    #[test]
    fn alpha_max_returns_after_theta_low_delay_rounds() {
        let mut il = illinois();
        il.set_delays(45_000, 100_000);
        assert_eq!(il.alpha, 82);
        for _ in 0..4 {
            il.set_delays(0, 100_000);
            assert_eq!(il.alpha, 82);
        }
        il.set_delays(0, 100_000);
        assert_eq!(il.alpha, 1280);
    }

    #[test]
    fn alpha_and_beta_follow_the_rounds_and_set_the_decrease() {
        let mut h = Harness::<Illinois>::with_params(&IllinoisParams::default(), 100);
        h.tp.snd_ssthresh = 100;
        // Each round's first ACK closes the previous round (its own sample included).
        h.set_rtt_ms(100);
        h.round();
        h.set_rtt_ms(200);
        h.round();
        // Closed round: 99 × 100 ms + 1 × 200 ms: avg 101 ms, d_a = 1000 = d1, d_m = 100 ms.
        assert_eq!((h.cc.alpha, h.cc.beta), (1280, 8));
        h.set_rtt_ms(145);
        h.rounds(2);
        // Closed round: all 145 ms: d_a = 45 ms, d_m = 100 ms (as computed above).
        assert_eq!((h.cc.alpha, h.cc.beta), (82, 20));
        // Loss: 100 − ⌊100·20/64⌋ = 100 − 31 = 69.
        h.tp.snd_cwnd = 100;
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 69);
        // A timeout resets to Reno: 1, 1/2.
        h.timeout();
        assert_eq!((h.cc.alpha, h.cc.beta), (128, 32));
    }

    #[test]
    fn alpha_ten_adds_one_segment_per_tenth_of_a_window() {
        // +1 once cnt·10 ≥ cwnd: after 10 ACKs at 100, then every 11 up to 110:
        // 10 + 8·11 = 98 of the round's 100 ACKs → 109.
        let mut h = Harness::<Illinois>::with_params(&IllinoisParams::default(), 100);
        h.tp.snd_ssthresh = 100;
        h.round();
        assert_eq!(h.cwnd(), 109);
    }

    #[test]
    fn small_windows_are_reno() {
        let mut h = Harness::<Illinois>::with_params(&IllinoisParams::default(), 10);
        h.tp.snd_ssthresh = 10;
        h.round();
        assert_eq!((h.cc.alpha, h.cc.beta, h.cwnd()), (128, 32, 11));
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 6);
    }
}

crate::cc_property_suite!(illinois_properties, Illinois);
