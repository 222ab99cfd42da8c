//! BIC-TCP (L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion Control
//! for Fast, Long Distance Networks", INFOCOM 2004; Linux `tcp_bic.c`).
//!
//! After a loss at W_max the window is cut to β·W_max and then searches for
//! W_max by binary search: each RTT it moves towards the midpoint between cwnd
//! and W_max (Linux: a quarter of the way), by at most S_max and at least S_min
//! per RTT. Past W_max it probes ("max probing"): slowly, then accelerating,
//! then linearly by S_max.
//!
//! As in Linux, the per-RTT step is expressed as `cnt`, the segments to
//! acknowledge per +1 (`tcp_cong_avoid_ai`), recomputed when cwnd changes
//! (or every HZ/32). With B = 4 (`BICTCP_B`) the search step is
//! dist = (W_max − cwnd)/4 per RTT:
//!
//! | region | cnt |
//! |---|---|
//! | cwnd ≤ low_window (14) | cwnd (Reno) |
//! | cwnd < W_max, dist > S_max (16) | cwnd/S_max: +16 per RTT |
//! | cwnd < W_max, 1 < dist ≤ S_max | cwnd/dist: binary search |
//! | cwnd < W_max, dist ≤ 1; W_max ≤ cwnd < W_max + B | cwnd·smooth_part/B: +0.2 per RTT |
//! | W_max + B ≤ cwnd < W_max + S_max·(B−1) | cwnd·(B−1)/(cwnd − W_max) |
//! | beyond | cwnd/S_max |
//!
//! With no W_max yet (no loss so far) cnt ≤ 20, i.e. ≥ 5 % growth per RTT. Then
//! cnt is divided by the measured segments-per-ACK ratio (`delayed_ack`, an
//! EWMA with gain 1/16, ×16).
//!
//! On loss: W_max = cwnd, or cwnd·(1 + β)/2 with fast convergence when cwnd is
//! below the previous W_max; ssthresh = cwnd·β (cwnd/2 at or below low_window).
//! A timeout (state Loss) resets everything.
//!
//! # Constants
//! - Defaults are the paper's (Xu, Harfoush, Rhee, INFOCOM 2004): β = 0.875 (a decrease of 0.125),
//!   S_max = 32, S_min = 0.01, low_window = 14, fast convergence on, no
//!   delayed-ACK correction — the parameters the CTCP paper compared against
//!   ("parameters according to [the BIC paper]", CTCP §VI).
//! - `BicParams::linux()`: β = 819/1024 ≈ 0.8, S_max = 16 and Linux's
//!   delayed-ACK correction (`tcp_bic.c`). B = 4 and smooth_part = 20 in both.
//! - smooth_part is derived from S_min as Linux documents it:
//!   log(B/(B·S_min))/log(B/(B−1)) + B = ln(100)/ln(4/3) + 4 = 20.0 for S_min = 0.01.
//! - `initial_ssthresh`: 0 = infinite (Linux today); old kernels (and NS-2
//!   TCP-Linux) used 100.
//!
//! # Deviations from the paper / from Linux
//! - The delayed-ACK ratio: Linux divides cnt by it although its `cong_avoid`
//!   already counts acknowledged segments (byte counting, since 2015). The EWMA's
//!   integer fixed points are 31/16 with one segment per ACK and 32/16 with two,
//!   so Linux BIC grows about twice as fast as the table says in every region
//!   above low_window (the Reno region is exempt). hscc offers it
//!   (`delayed_ack_correction`, off by default as in the paper, on in
//!   `BicParams::linux()`).
//! - Products such as cwnd·smooth_part are computed in 64 bits (Linux's 32-bit
//!   cwnd·20 overflows above 214 million segments).
//! - Linux's `epoch_start` is written and never read; it is omitted.

use crate::helpers::{cong_avoid_start, tcp_cong_avoid_ai};
use crate::ops::{AckSample, CaState, CongestionOps, TcpCc};

/// β is scaled by this (Linux `BICTCP_BETA_SCALE`).
const BETA_SCALE: u32 = 1024;
/// Binary search divisor: each RTT moves (W_max − cwnd)/B (Linux `BICTCP_B`).
const BICTCP_B: u32 = 4;
/// `delayed_ack` is segments per ACK << 4 (Linux `ACK_RATIO_SHIFT`).
const ACK_RATIO_SHIFT: u32 = 4;

crate::params! {
    /// BIC-TCP parameters.
    pub struct BicParams {
        /// β: multiplicative decrease, cwnd ← β·cwnd on loss (Linux: 819/1024 ≈ 0.8).
        beta: f64 = 0.875, [0.5, 0.95], "BIC paper (INFOCOM 2004) β = 0.125 decrease; CTCP §VI compared with these";
        /// S_max: largest increase per RTT in binary search and max probing, segments (Linux: 16).
        max_increment: u32 = 32, [1, 1000], "BIC paper (INFOCOM 2004) S_max = 32";
        /// S_min: smallest increase per RTT near W_max, segments; sets smooth_part (20).
        min_increment: f64 = 0.01, [0.001, 0.5], "BIC paper S_min; Linux tcp_bic.c smooth_part = 20";
        /// Reno below or at this window, segments.
        low_window: u32 = 14, [2, 1000], "Linux tcp_bic.c low_window; BIC paper";
        /// Fast convergence: after a loss below the previous W_max, W_max = cwnd·(1 + β)/2.
        fast_convergence: bool = true, [0, 1], "Linux tcp_bic.c fast_convergence; BIC paper §III";
        /// Initial ssthresh, segments; 0 = infinite (old Linux used 100).
        initial_ssthresh: u32 = 0, [0, 1000000], "Linux tcp_bic.c initial_ssthresh";
        /// Divide cnt by the measured segments-per-ACK ratio, as Linux does (not in the paper).
        delayed_ack_correction: bool = false, [0, 1], "BIC paper: none; Linux tcp_bic.c bictcp_acked divides";
    }
    order { min_increment <= max_increment; }
}

impl BicParams {
    /// Linux `tcp_bic.c`'s values: β = 819/1024, S_max = 16, the delayed-ACK correction on.
    pub fn linux() -> BicParams {
        BicParams {
            beta: 819.0 / 1024.0,
            max_increment: 16,
            delayed_ack_correction: true,
            ..BicParams::default()
        }
    }
}

/// BIC-TCP state (Linux `struct bictcp`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bic {
    /// Segments acknowledged per +1 segment.
    cnt: u32,
    /// W_max: window before the last loss (after fast convergence), segments; 0 = none yet.
    last_max_cwnd: u32,
    /// cwnd when `cnt` was last computed, segments.
    last_cwnd: u32,
    /// When `cnt` was last computed, jiffies.
    last_time: u32,
    /// Segments per ACK << 4, EWMA with gain 1/16.
    delayed_ack: u32,
    /// β scaled by 1024.
    beta: u32,
    /// S_max, segments.
    max_increment: u32,
    /// RTTs from W_max − B to W_max (Linux `smooth_part`).
    smooth_part: u32,
    /// Reno window, segments.
    low_window: u32,
    /// Fast convergence on.
    fast_convergence: bool,
    /// Initial ssthresh, segments (0 = leave infinite).
    initial_ssthresh: u32,
    /// Apply the delayed-ACK ratio to cnt.
    delayed_ack_correction: bool,
}

impl Bic {
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.delayed_ack = 2 << ACK_RATIO_SHIFT;
    }

    /// Segments acknowledged per +1 segment, as last computed.
    pub fn cnt(&self) -> u32 {
        self.cnt
    }

    /// W_max, segments (0 before the first loss).
    pub fn last_max_cwnd(&self) -> u32 {
        self.last_max_cwnd
    }

    /// Linux `bictcp_update`: recompute cnt for this cwnd.
    fn update(&mut self, cwnd: u32, now: u32, hz: u32) {
        if self.last_cwnd == cwnd && (now.wrapping_sub(self.last_time) as i32) <= (hz / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;

        if cwnd <= self.low_window {
            self.cnt = cwnd;
            return;
        }
        let (w, wmax) = (cwnd as u64, self.last_max_cwnd as u64);
        let (b, smax) = (BICTCP_B as u64, self.max_increment as u64);
        let cnt = if w < wmax {
            let dist = (wmax - w) / b;
            if dist > smax {
                w / smax // linear increase
            } else if dist <= 1 {
                w * self.smooth_part as u64 / b // close to W_max: S_min
            } else {
                w / dist // binary search
            }
        } else if w < wmax + b {
            w * self.smooth_part as u64 / b // just past W_max: slow start of max probing
        } else if w < wmax + smax * (b - 1) {
            w * (b - 1) / (w - wmax) // max probing, accelerating
        } else {
            w / smax // linear increase
        };
        // No W_max yet (slow start or very low utilisation): ≥ 5 % per RTT.
        let cnt = if self.last_max_cwnd == 0 {
            cnt.min(20)
        } else {
            cnt
        };
        let cnt = if self.delayed_ack_correction {
            (cnt << ACK_RATIO_SHIFT) / self.delayed_ack as u64
        } else {
            cnt
        };
        self.cnt = cnt.clamp(1, u32::MAX as u64) as u32;
    }
}

impl CongestionOps for Bic {
    const NAME: &'static str = "bic";
    type Params = BicParams;

    fn new(p: &BicParams) -> Self {
        let b = BICTCP_B as f64;
        let smooth = (b / (b * p.min_increment)).ln() / (b / (b - 1.0)).ln() + b;
        let mut bic = Bic {
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            delayed_ack: 0,
            beta: (p.beta * BETA_SCALE as f64).round() as u32,
            max_increment: p.max_increment,
            smooth_part: smooth.round() as u32,
            low_window: p.low_window,
            fast_convergence: p.fast_convergence,
            initial_ssthresh: p.initial_ssthresh,
            delayed_ack_correction: p.delayed_ack_correction,
        };
        bic.reset();
        bic
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("beta", self.beta.into()),
            ("max_increment", self.max_increment.into()),
            ("smooth_part", self.smooth_part.into()),
            ("low_window", self.low_window.into()),
            ("fast_convergence", self.fast_convergence.into()),
            ("initial_ssthresh", self.initial_ssthresh.into()),
            ("delayed_ack_correction", self.delayed_ack_correction.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.reset();
        if self.initial_ssthresh != 0 {
            tp.snd_ssthresh = self.initial_ssthresh;
        }
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let cwnd = tp.snd_cwnd;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.fast_convergence {
            (cwnd as u64 * (BETA_SCALE + self.beta) as u64 / (2 * BETA_SCALE) as u64) as u32
        } else {
            cwnd
        };
        if cwnd <= self.low_window {
            (cwnd >> 1).max(2)
        } else {
            ((cwnd as u64 * self.beta as u64 / BETA_SCALE as u64) as u32).max(2)
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        self.update(tp.snd_cwnd, tp.jiffies32(), tp.hz);
        tcp_cong_avoid_ai(tp, self.cnt, acked);
    }

    fn set_state(&mut self, _tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        if tp.ca_state == CaState::Open {
            // ratio = 15/16·ratio + sample/16, in units of 1/16.
            let d = self.delayed_ack;
            self.delayed_ack = d.saturating_add(sample.pkts_acked) - (d >> ACK_RATIO_SHIFT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::testing::Harness;

    fn params(correction: bool) -> BicParams {
        let mut p = BicParams::linux();
        p.set("delayed_ack_correction", if correction { 1.0 } else { 0.0 })
            .unwrap();
        p
    }

    /// A flow that lost at W_max = `wmax`, now at `cwnd` in congestion avoidance.
    fn after_loss(p: &BicParams, wmax: u32, cwnd: u32) -> Harness<Bic> {
        let mut h = Harness::<Bic>::with_params(p, wmax);
        h.loss();
        assert_eq!(h.cc.last_max_cwnd(), wmax);
        h.tp.snd_cwnd = cwnd;
        h.tp.snd_ssthresh = 2;
        h
    }

    /// cnt computed on the first ACK at `cwnd`.
    fn cnt_at(p: &BicParams, wmax: u32, cwnd: u32) -> u32 {
        let mut h = after_loss(p, wmax, cwnd);
        h.send_all();
        h.ack_each(1, 1);
        h.cc.cnt()
    }

    #[test]
    fn cnt_per_region_matches_the_table() {
        let p = params(false);
        // W_max = 1000. dist = (1000 − 799)/4 = 50 > 16: linear, cnt = 799/16.
        assert_eq!(cnt_at(&p, 1000, 799), 49);
        // dist = 10/4 = 2: binary search, cnt = 990/2.
        assert_eq!(cnt_at(&p, 1000, 990), 495);
        // dist = 2/4 = 0 ≤ 1: cnt = 998·20/4.
        assert_eq!(cnt_at(&p, 1000, 998), 4990);
        // 1000 ≤ 1002 < 1004: cnt = 1002·20/4.
        assert_eq!(cnt_at(&p, 1000, 1002), 5010);
        // 1004 ≤ 1020 < 1048: cnt = 1020·3/20.
        assert_eq!(cnt_at(&p, 1000, 1020), 153);
        // ≥ 1048: linear again, cnt = 1100/16.
        assert_eq!(cnt_at(&p, 1000, 1100), 68);
        // Reno at or below low_window.
        assert_eq!(cnt_at(&p, 1000, 14), 14);
    }

    #[test]
    fn linux_divides_cnt_by_the_ack_ratio() {
        // The first ACK takes delayed_ack from 32 to 32 + 1 − 2 = 31 (a fixed point),
        // so cnt becomes ⌊cnt·16/31⌋.
        let p = params(true);
        assert_eq!(cnt_at(&p, 1000, 799), 25); // 49·16/31 = 25.3
        assert_eq!(cnt_at(&p, 1000, 990), 255); // 495·16/31 = 255.5
        assert_eq!(cnt_at(&p, 1000, 998), 2575); // 4990·16/31

        // At or below low_window cnt = cwnd is returned before the correction: Reno.
        assert_eq!(cnt_at(&p, 1000, 14), 14);
    }

    #[test]
    fn slow_start_exit_caps_cnt_at_20() {
        // No loss yet: W_max = 0. cwnd 100: max probing linear, 100/16 = 6.
        // cwnd 40 < 0 + 16·3: cnt = 40·3/40 = 3. Without correction.
        let mut h = Harness::<Bic>::with_params(&params(false), 100);
        h.tp.snd_ssthresh = 50;
        h.send_all();
        h.ack_each(1, 1);
        assert_eq!(h.cc.cnt(), 6);
        let mut h = Harness::<Bic>::with_params(&params(false), 40);
        h.tp.snd_ssthresh = 20;
        h.send_all();
        h.ack_each(1, 1);
        assert_eq!(h.cc.cnt(), 3);
        // A large window with a large last_max would use cwnd/16 > 20; W_max = 0 caps it.
        let mut h = Harness::<Bic>::with_params(&params(false), 1000);
        h.tp.snd_ssthresh = 500;
        h.send_all();
        h.ack_each(1, 1);
        assert_eq!(h.cc.cnt(), 20); // 1000/16 = 62 → 20
    }

    #[test]
    fn decrease_and_fast_convergence() {
        let mut h = Harness::<Bic>::with_params(&BicParams::linux(), 1000);
        h.loss();
        // ssthresh = ⌊1000·819/1024⌋ = ⌊799.8⌋; W_max = 1000.
        assert_eq!((h.cwnd(), h.cc.last_max_cwnd()), (799, 1000));
        h.tp.snd_cwnd = 900;
        h.loss();
        // 900 < 1000: W_max = ⌊900·1843/2048⌋ = 809; ssthresh = ⌊900·819/1024⌋ = 719.
        assert_eq!((h.cwnd(), h.cc.last_max_cwnd()), (719, 809));
        // Without fast convergence W_max is the cwnd at loss.
        let mut p = BicParams::linux();
        p.set("fast_convergence", 0.0).unwrap();
        let mut h = Harness::<Bic>::with_params(&p, 1000);
        h.loss();
        h.tp.snd_cwnd = 900;
        h.loss();
        assert_eq!(h.cc.last_max_cwnd(), 900);
        // At or below low_window: halve.
        let mut h = Harness::<Bic>::with_params(&BicParams::linux(), 14);
        h.loss();
        assert_eq!(h.cwnd(), 7);
    }

    fn rounds_from(p: &BicParams, wmax: u32, cwnd: u32, n: usize) -> Vec<u32> {
        let mut h = after_loss(p, wmax, cwnd);
        let mut w = vec![h.cwnd()];
        for _ in 0..n {
            h.round();
            w.push(h.cwnd());
        }
        w
    }

    #[test]
    fn binary_search_slows_down_towards_w_max() {
        // From 799 after a loss at 1000, without the ACK-ratio correction:
        // +16 per RTT while dist = (1000 − cwnd)/4 > 16 (cwnd < 932); then
        // binary search steps of about dist (cnt = cwnd/dist); from 993 on
        // dist ≤ 1 and cnt = 993·20/4 = 4965 segments, i.e. +0.2 per RTT.
        assert_eq!(
            rounds_from(&params(false), 1000, 799, 20),
            [
                799, 815, 831, 847, 863, 879, 895, 911, 927, 942, 954, 964, 972, 978, 982, 986,
                989, 991, 993, 993, 993
            ]
        );
        // Linux (cnt·16/31): about +31 per RTT, then the same shape, twice as fast.
        assert_eq!(
            rounds_from(&params(true), 1000, 799, 8),
            [799, 830, 861, 893, 924, 952, 970, 981, 988]
        );
    }

    #[test]
    fn timeout_resets_w_max() {
        let mut h = Harness::<Bic>::with_params(&BicParams::linux(), 1000);
        h.loss();
        h.timeout();
        assert_eq!((h.cc.last_max_cwnd(), h.cwnd()), (0, 1));
    }

    #[test]
    fn initial_ssthresh_and_min_increment_params() {
        let mut p = BicParams::linux();
        p.set("initial_ssthresh", 100.0).unwrap();
        let h = Harness::<Bic>::with_params(&p, 10);
        assert_eq!(h.ssthresh(), 100);
        assert_eq!(Bic::new(&BicParams::linux()).smooth_part, 20);
        p.set("min_increment", 0.1).unwrap(); // ln(10)/ln(4/3) + 4 = 12.0
        assert_eq!(Bic::new(&p).smooth_part, 12);
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::registry::CcParams::with("bic", &[("beta", 0.875), ("max_increment", 32.0)])
            .unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "bic");
    }

    #[test]
    fn defaults_are_the_papers_parameters() {
        let p = BicParams::default();
        assert_eq!(
            (
                p.beta,
                p.max_increment,
                p.low_window,
                p.delayed_ack_correction
            ),
            (0.875, 32, 14, false)
        );
        // A loss at cwnd 1000 in congestion avoidance: ssthresh = 1000·896/1024 = 875.
        let mut h = Harness::<Bic>::with_params(&p, 1000);
        h.tp.snd_ssthresh = 1000;
        h.loss();
        assert_eq!((h.cwnd(), h.ssthresh()), (875, 875));
        // Linux's β = 819/1024 gives 1000·819/1024 = 799.
        let mut h = Harness::<Bic>::with_params(&BicParams::linux(), 1000);
        h.tp.snd_ssthresh = 1000;
        h.loss();
        assert_eq!(h.cwnd(), 799);
    }
}

crate::cc_property_suite!(bic_properties, Bic);
