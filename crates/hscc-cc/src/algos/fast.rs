//! FAST TCP (Jin, Wei & Low, "FAST TCP: Motivation, Architecture, Algorithms,
//! Performance", IEEE INFOCOM 2004, §IV; ToN 14(6), 2006;
//! draft-jwl-tcp-fast-01; ns-2.35 `tcp/tcp-fast.cc` v1.1.3 by Cui & Andrew).
//!
//! A delay-based window law that keeps α segments of each flow queued:
//!
//! - w ← min{2w, (1 − γ)·w + γ·(baseRTT/avgRTT·w + α)}, γ = 1/2 (paper eq. 7),
//!   applied at the start of every other round (a round ends when the data
//!   sent at its start is acknowledged, as Vegas's `beg_snd_nxt`) and at most
//!   once per 10 ms (ns-2 `cwnd_update_period_`).
//! - Equilibrium: w·(avgRTT − baseRTT)/avgRTT = α, i.e. w* = α·RTT/(RTT − baseRTT).
//! - baseRTT = smallest RTT sample; avgRTT = EWMA of the samples with weight
//!   1/max(256, cwnd/3) per ACK, starting at the first sample (ns-2
//!   `fast_est_update_avgrtt`).
//! - While the queueing delay avgRTT − baseRTT < 0.75 ms, cwnd grows by the
//!   segments acknowledged per ACK, doubling per RTT (ns-2 multiplicative
//!   increase, `mi_threshold_`); FAST has no other slow start.
//! - Loss: Reno (ns-2 halves cwnd and ssthresh on 3 duplicate ACKs).
//! - Optional pacing (`pacing = true`): `pacing_rate` = cwnd·MSS/avgRTT bytes/s
//!   on every ACK, the rate at which the window drains in one average RTT.
//!
//! α defaults to ns-2's 100 segments; the TCP-FIT paper (§VI.A, after the
//! draft) uses 200 at 1 Gbit/s and 20 at 100 Mbit/s.
//!
//! # Update period
//! Every RTT by default, as the paper's law is stated (§IV, eq. 7).
//! `every_other_rtt = true` is ns-2 v1.1.3's default "as in Linux"
//! (`UPDATE_CWND_EVERY_OTHER_RTT`): the window is then frozen for a round, so
//! the RTTs measured before the next update belong to the window being judged.
//!
//! # Fixed point
//! avgRTT is kept in µs << 16; the window between updates in 1/1024 segment
//! (so equilibrium is not stuck a fraction short by truncation; resynchronised
//! when cwnd changes elsewhere) and written to cwnd rounded to nearest;
//! baseRTT/avgRTT and γ are << 20 and << 10.
//!
//! # Deviations from the paper / from ns-2
//! - Increases are applied at once; ns-2 spreads them over the next RTT's
//!   ACKs (`fast_pace`) and applies decreases at once. Use `pacing` to avoid bursts.
//! - The target uses the current cwnd, as the paper; ns-2 uses the window in
//!   flight when the acknowledged segment was sent (equal when frozen).
//! - ns-2's `beta_` gate (update only outside [α, β) queued segments) is
//!   omitted: its default α = β makes it always true.
//! - Multiplicative increase adds the segments acknowledged (Linux byte
//!   counting) rather than 1 per ACK; updates and increases happen only when
//!   cwnd-limited, as Linux's congestion controllers.
//! - The minimum window after an update is 2 (ns-2); the RTO restarts from 1
//!   (the hscc/Linux sender) rather than ns-2's 2.

use crate::helpers::tcp_reno_ssthresh;
use crate::ops::{after, AckSample, CaState, CongestionOps, TcpCc};

crate::params! {
    /// FAST TCP parameters.
    pub struct FastParams {
        /// α: segments each flow aims to keep queued at the bottleneck.
        alpha: u32 = 100, [1, 100000], "ns-2.35 ns-default.tcl alpha_ (TCP-FIT §VI.A: 200 at 1 Gbit/s, 20 at 100 Mbit/s)";
        /// γ: weight of the new target in each window update.
        gamma: f64 = 0.5, [0.01, 1.0], "Jin, Wei & Low 2004 §IV eq. 7; ns-2.35 gamma_";
        /// Update the window every other RTT (true, as ns-2) or every RTT (false, the paper).
        every_other_rtt: bool = false, [0, 1], "Jin, Wei & Low 2004 §IV (every RTT); ns-2.35 tcp-fast.h UPDATE_CWND_EVERY_OTHER_RTT (v1.1.3) is the alternative";
        /// Queueing delay (ms) below which cwnd grows multiplicatively (+1 per acknowledged segment).
        mi_threshold_ms: f64 = 0.75, [0.0, 1000.0], "ns-2.35 ns-default.tcl mi_threshold_";
        /// Set pacing_rate = cwnd·MSS/avgRTT.
        pacing: bool = false, [0, 1], "hscc choice; Sync-TCP paper §VI paces FAST";
    }
}

/// Fractional bits of avgRTT.
const AVG_SHIFT: u32 = 16;
/// Fractional bits of the window between updates.
const W_SHIFT: u32 = 10;
/// Fractional bits of γ.
const GAMMA_SHIFT: u32 = 10;
/// Fractional bits of baseRTT/avgRTT.
const RATIO_SHIFT: u32 = 20;
/// Smallest avgRTT weight denominator (ns-2: 1/256).
const AVG_MIN_WEIGHT: u32 = 256;
/// Minimum time between window updates, µs (ns-2 `cwnd_update_period_` 0.01 s).
const MIN_UPDATE_US: u64 = 10_000;

/// FAST TCP state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fast {
    /// α, segments.
    alpha: u32,
    /// γ << 10.
    gamma: u32,
    /// Rounds per update (1 or 2).
    period: u32,
    /// Multiplicative-increase threshold on queueing delay, µs.
    mi_threshold_us: u32,
    /// Whether to set `pacing_rate`.
    pacing: bool,
    /// Smallest RTT sample, µs (`u32::MAX` before the first).
    pub base_rtt: u32,
    /// Average RTT, µs << 16 (0 before the first sample).
    pub avg_rtt: u64,
    /// `snd_nxt` when the current round began (bytes, wrapping).
    beg_snd_nxt: u32,
    /// Rounds ended since the last state change.
    rounds: u32,
    /// Time of the last window update or multiplicative increase, µs.
    last_update_us: u64,
    /// Window set by the last update, segments << 10.
    cwnd_fp: u64,
}

impl Fast {
    /// The FAST window update (paper eq. 7) in fixed point.
    fn update_window(&mut self, tp: &mut TcpCc) {
        let avg = (self.avg_rtt >> AVG_SHIFT).max(1);
        let ratio = ((self.base_rtt as u64).min(avg) << RATIO_SHIFT) / avg;
        let mut w = self.cwnd_fp;
        if (w + (1 << (W_SHIFT - 1))) >> W_SHIFT != tp.snd_cwnd as u64 {
            w = (tp.snd_cwnd as u64) << W_SHIFT;
        }
        let target = ((w * ratio) >> RATIO_SHIFT) + ((self.alpha as u64) << W_SHIFT);
        let g = self.gamma as u64;
        let new = (((1 << GAMMA_SHIFT) - g) * w + g * target) >> GAMMA_SHIFT;
        let max = (tp.snd_cwnd_clamp as u64) << W_SHIFT;
        self.cwnd_fp = new.min(2 * w).max(2 << W_SHIFT).min(max);
        tp.snd_cwnd =
            ((self.cwnd_fp + (1 << (W_SHIFT - 1))) >> W_SHIFT).min(tp.snd_cwnd_clamp as u64) as u32;
    }

    /// pacing_rate = cwnd·MSS/avgRTT, bytes per second.
    fn set_pacing(&self, tp: &mut TcpCc) {
        let avg = self.avg_rtt >> AVG_SHIFT;
        if !self.pacing || avg == 0 {
            return;
        }
        let bytes = tp.snd_cwnd as u64 * tp.mss_cache as u64;
        // bytes·10⁶/avg without overflowing.
        let (q, r) = (bytes / avg, bytes % avg);
        tp.pacing_rate = q
            .saturating_mul(1_000_000)
            .saturating_add(r * 1_000_000 / avg);
    }
}

impl CongestionOps for Fast {
    const NAME: &'static str = "fast";
    type Params = FastParams;

    fn new(p: &FastParams) -> Self {
        Fast {
            alpha: p.alpha,
            gamma: (p.gamma * (1 << GAMMA_SHIFT) as f64).round() as u32,
            period: if p.every_other_rtt { 2 } else { 1 },
            mi_threshold_us: (p.mi_threshold_ms * 1000.0).round() as u32,
            pacing: p.pacing,
            base_rtt: u32::MAX,
            avg_rtt: 0,
            beg_snd_nxt: 0,
            rounds: 0,
            last_update_us: 0,
            cwnd_fp: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("alpha", self.alpha.into()),
            ("gamma", self.gamma.into()),
            ("period", self.period.into()),
            ("mi_threshold_us", self.mi_threshold_us.into()),
            ("pacing", self.pacing.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.beg_snd_nxt = tp.snd_nxt;
        self.last_update_us = tp.now_us;
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        if sample.rtt_us >= 0 {
            let rtt = (sample.rtt_us as u32).max(1);
            self.base_rtt = self.base_rtt.min(rtt);
            let s = (rtt as u64) << AVG_SHIFT;
            if self.avg_rtt == 0 {
                self.avg_rtt = s;
            } else {
                let weight = (tp.snd_cwnd / 3).max(AVG_MIN_WEIGHT) as u64;
                if s >= self.avg_rtt {
                    self.avg_rtt += (s - self.avg_rtt) / weight;
                } else {
                    self.avg_rtt -= (self.avg_rtt - s) / weight;
                }
            }
        }
        self.set_pacing(tp);
    }

    fn set_state(&mut self, tp: &mut TcpCc, _new_state: CaState) {
        // Whatever the change, judge the new window over a full round first.
        self.beg_snd_nxt = tp.snd_nxt;
        self.rounds = 0;
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        let round_ended = after(ack, self.beg_snd_nxt);
        if round_ended {
            self.beg_snd_nxt = tp.snd_nxt;
            self.rounds = self.rounds.wrapping_add(1);
        }
        if tp.is_cwnd_limited() {
            let qdelay = (self.avg_rtt >> AVG_SHIFT).saturating_sub(self.base_rtt as u64);
            if qdelay < self.mi_threshold_us as u64 {
                // Little queueing: multiplicative increase.
                tp.snd_cwnd = tp.snd_cwnd.saturating_add(acked).min(tp.snd_cwnd_clamp);
                self.last_update_us = tp.now_us;
            } else if round_ended
                && self.rounds.is_multiple_of(self.period)
                && tp.now_us.saturating_sub(self.last_update_us) >= MIN_UPDATE_US
            {
                self.update_window(tp);
                self.last_update_us = tp.now_us;
            }
        }
        self.set_pacing(tp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// A FAST flow with baseRTT 100 ms already learnt and a steady RTT of
    /// 150 ms (avgRTT exactly 150 ms from the start): queueing delay 50 ms.
    fn queued(alpha: u32, every_other_rtt: bool, cwnd: u32) -> Harness<Fast> {
        let p = FastParams {
            alpha,
            every_other_rtt,
            ..FastParams::default()
        };
        let mut h = Harness::<Fast>::with_params(&p, cwnd);
        h.cc.base_rtt = 100_000;
        h.cc.avg_rtt = 150_000 << AVG_SHIFT;
        h.set_rtt_ms(150);
        h
    }

    fn cwnd_per_round(h: &mut Harness<Fast>, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| {
                h.round();
                h.cwnd()
            })
            .collect()
    }

    // With baseRTT/avgRTT = 2/3 and α = 20 the update is w ← (w + 2w/3 + 20)/2
    // = 5w/6 + 10; in fixed point baseRTT/avgRTT = ⌊2²⁰·2/3⌋/2²⁰ = 699050/2²⁰.
    // From w = 10 (10240/1024): target = ⌊10240·699050/2²⁰⌋ + 20480 = 27306,
    // w = (10240 + 27306)/2 = 18773 → cwnd 18 (18.33). Then from 18773:
    // target = 12515 + 20480 = 32995, w = 25884 → 25 (25.28).

    #[test]
    fn updates_every_other_round_as_ns2_when_asked() {
        let mut h = queued(20, true, 10);
        assert_eq!(cwnd_per_round(&mut h, 4), [10, 18, 18, 25]);
    }

    #[test]
    fn updates_every_round_by_default() {
        assert!(!FastParams::default().every_other_rtt);
        let mut h = queued(20, false, 10);
        assert_eq!(cwnd_per_round(&mut h, 2), [18, 25]);
    }

    #[test]
    fn reaches_the_equilibrium_window() {
        // w* = α·RTT/(RTT − baseRTT) = 20·150/50 = 60, i.e. α = 60·50/150 = 20 queued.
        let mut h = queued(20, true, 10);
        h.rounds(200);
        assert_eq!(h.cwnd(), 60);
        h.rounds(10);
        assert_eq!(h.cwnd(), 60);
        // From above as well.
        let mut h = queued(20, true, 200);
        h.rounds(200);
        assert_eq!(h.cwnd(), 60);
    }

    #[test]
    fn an_update_at_most_doubles_the_window() {
        // From 2: (2 + 1.33 + 20)/2 = 11.7 → capped 4; then 13.3 → 8; 16.7 → 16;
        // from 16: (16 + 10.67 + 20)/2 = 23.3 → 23 (target 10922 + 20480 = 31402,
        // w = (16384 + 31402)/2 = 23893 → 23).
        let mut h = queued(20, false, 2);
        assert_eq!(cwnd_per_round(&mut h, 4), [4, 8, 16, 23]);
    }

    #[test]
    fn multiplicative_increase_without_queueing_delay() {
        let mut h = Harness::<Fast>::with_params(&FastParams::default(), 10);
        h.set_rtt_ms(100);
        assert_eq!(cwnd_per_round(&mut h, 2), [20, 40]);
    }

    #[test]
    fn avg_rtt_is_an_ewma_with_weight_one_over_max_256_cwnd_over_3() {
        let mut h = Harness::<Fast>::with_params(&FastParams::default(), 10);
        h.send(3);
        h.set_rtt_ms(100);
        h.ack_each(1, 1);
        assert_eq!(
            (h.cc.base_rtt, h.cc.avg_rtt >> AVG_SHIFT),
            (100_000, 100_000)
        );
        // cwnd 10 (not cwnd-limited, no increase): weight 1/256.
        // 100000 + 256000/256 = 101000.
        h.set_rtt_ms(356);
        h.ack_each(1, 1);
        assert_eq!(h.cc.avg_rtt, 101_000 << AVG_SHIFT);
        // cwnd 3000: weight 1/1000. 101000 + 255000/1000 = 101255.
        h.tp.snd_cwnd = 3000;
        h.ack_each(1, 1);
        assert_eq!(h.cc.avg_rtt, 101_255 << AVG_SHIFT);
    }

    #[test]
    fn pacing_rate_is_cwnd_over_avg_rtt_when_enabled() {
        let p = FastParams {
            pacing: true,
            ..FastParams::default()
        };
        let mut h = Harness::<Fast>::with_params(&p, 10);
        h.set_rtt_ms(100);
        h.send_all();
        h.ack_each(1, 1);
        // cwnd 11 after the increase: 11·1448 bytes per 0.1 s.
        assert_eq!(h.tp.pacing_rate, 159_280);
        let mut h = Harness::<Fast>::with_params(&FastParams::default(), 10);
        h.round();
        assert_eq!(h.tp.pacing_rate, 0);
    }

    #[test]
    fn loss_halves_then_updates_resume_from_the_new_window() {
        let mut h = queued(20, false, 10);
        h.rounds(200);
        assert_eq!(h.cwnd(), 60);
        h.loss();
        assert_eq!((h.cwnd(), h.ssthresh()), (30, 30));
        // From 30 (30720): target = 20479 + 20480 = 40959, w = 35839 → 35 (35.0).
        h.round();
        assert_eq!(h.cwnd(), 35);
    }
}

crate::cc_property_suite!(fast_properties, Fast);
