//! Scalable TCP (T. Kelly, "Scalable TCP: improving performance in highspeed
//! wide area networks", ACM CCR 33(2), 2003; Linux `tcp_scalable.c`).
//!
//! Multiplicative increase, multiplicative decrease:
//! - per acknowledged segment in congestion avoidance: cwnd += a, a = 0.01
//!   (×1.01 per RTT);
//! - on loss: cwnd ← (1 − b)·cwnd, b = 0.125;
//! - at or below the legacy window (lwnd = 16): legacy TCP, Reno's +1/cwnd per
//!   segment and halving on loss (Kelly §2).
//!
//! Whatever the rate, the window regains a 0.875 decrease in
//! ln(1/0.875)/ln(1.01) = 13.4 RTTs, so a Scalable flow alone on a link causes a
//! congestion event every ~13.4 RTTs (TCP-Africa eq. 4).
//!
//! As in Linux, the increase is `tcp_cong_avoid_ai(w)` with w = cwnd at or below
//! the legacy window and w = 1/a above it, and the decrease is
//! `cwnd − ⌊cwnd·b⌋` (Linux `cwnd − cwnd>>3`), at least 2.
//!
//! # Constants and choices
//! - a = 0.01, b = 0.125: Kelly §2; Linux `TCP_SCALABLE_AI_CNT = 100`,
//!   `TCP_SCALABLE_MD_SCALE = 3`. Kernels before ~4.x used 50 with ACK counting
//!   ("50 instead of 100 to account for delayed ack"): the same 0.01 per segment
//!   under delayed ACKs. hscc counts acknowledged segments (byte counting).
//! - Legacy window: Kelly's lwnd = 16 (Kelly, "Scalable TCP", ACM CCR 33(2), 2003), with legacy (Reno) behaviour at
//!   or below it, increase and decrease alike — the default. Linux has no legacy
//!   mode of its own: `min(cwnd, 100)` makes its increase Reno's up to 100
//!   segments (where 1/cwnd per segment meets a = 0.01) while the 1/8 decrease
//!   applies at every window; `ScalableParams::linux()` (`low_window = 100`,
//!   `legacy_decrease = false`) reproduces it exactly.
//!
//! # Deviations from the paper / from Linux
//! - a and b are parameters: w = round(1/a), b in 1/1024 (b = 0.125 → 128, exact).

use crate::helpers::{cong_avoid_start, tcp_cong_avoid_ai, tcp_reno_ssthresh};
use crate::ops::{CongestionOps, TcpCc};

crate::params! {
    /// Scalable TCP parameters.
    pub struct ScalableParams {
        /// a: window increase per acknowledged segment above the legacy window, segments.
        a: f64 = 0.01, [0.001, 0.5], "Kelly CCR 2003 §2; Linux tcp_scalable.c TCP_SCALABLE_AI_CNT = 100";
        /// b: multiplicative decrease on loss (cwnd ← (1 − b)·cwnd).
        b: f64 = 0.125, [0.01, 0.5], "Kelly CCR 2003 §2; Linux tcp_scalable.c TCP_SCALABLE_MD_SCALE = 3";
        /// Legacy window, segments: legacy (Reno) TCP at or below it.
        low_window: u32 = 16, [0, 1000000], "Kelly CCR 2003 §2 lwnd = 16; Linux tcp_scalable.c min(cwnd, 100)";
        /// Halve (Reno) instead of cutting by b at or below the legacy window.
        legacy_decrease: bool = true, [0, 1], "Kelly CCR 2003 §2 (legacy mode); Linux cuts by 1/8 everywhere";
    }
}

impl ScalableParams {
    /// Linux `tcp_scalable.c`: Reno's increase up to 100 segments, ×7/8 at every window.
    pub fn linux() -> ScalableParams {
        ScalableParams {
            low_window: 100,
            legacy_decrease: false,
            ..ScalableParams::default()
        }
    }
}

/// Scalable TCP (state is only the converted parameters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scalable {
    /// Segments acknowledged per +1 segment above the legacy window (1/a).
    ai_cnt: u32,
    /// Decrease factor b, scaled by 1024.
    md: u32,
    /// Legacy window, segments.
    low_window: u32,
    /// Reno halving at or below the legacy window.
    legacy_decrease: bool,
}

impl CongestionOps for Scalable {
    const NAME: &'static str = "scalable";
    type Params = ScalableParams;

    fn new(p: &ScalableParams) -> Self {
        Scalable {
            ai_cnt: (1.0 / p.a).round() as u32,
            md: (p.b * 1024.0).round() as u32,
            low_window: p.low_window,
            legacy_decrease: p.legacy_decrease,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("ai_cnt", self.ai_cnt.into()),
            ("md", self.md.into()),
            ("low_window", self.low_window.into()),
            ("legacy_decrease", self.legacy_decrease.into()),
        ]
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        if self.legacy_decrease && tp.snd_cwnd <= self.low_window {
            return tcp_reno_ssthresh(tp);
        }
        let cwnd = tp.snd_cwnd as u64;
        ((cwnd - ((cwnd * self.md as u64) >> 10)) as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        let w = if tp.snd_cwnd <= self.low_window {
            tp.snd_cwnd
        } else {
            self.ai_cnt
        };
        tcp_cong_avoid_ai(tp, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn harness(p: &ScalableParams, cwnd: u32, ssthresh: u32) -> Harness<Scalable> {
        let mut h = Harness::with_params(p, cwnd);
        h.tp.snd_ssthresh = ssthresh;
        h
    }

    #[test]
    fn per_ack_increase_is_one_hundredth() {
        let mut h = harness(&ScalableParams::default(), 1000, 500);
        h.send_all();
        h.ack_each(99, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1000, 99));
        h.ack_each(1, 1); // 100 segments → +1
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1001, 0));
        h.ack_each(100, 3); // 300 more segments → +3
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1004, 0));
        // The rest of the round: 1000 − 400 = 600 segments → +6.
        h.ack_all();
        assert_eq!(h.cwnd(), 1010);
    }

    #[test]
    fn decrease_keeps_seven_eighths_above_the_legacy_window_and_halves_below() {
        // Kelly: cwnd − ⌊cwnd·128/1024⌋ = cwnd − ⌊cwnd/8⌋ above lwnd = 16, Reno's
        // max(cwnd/2, 2) at or below it.
        for (cwnd, expected) in [
            (1000, 875),
            (10000, 8750),
            (17, 15),
            (16, 8),
            (9, 4),
            (2, 2),
        ] {
            let mut h = harness(&ScalableParams::default(), cwnd, 2);
            h.loss();
            assert_eq!(h.cwnd(), expected, "cwnd {cwnd}");
        }
        // Linux cuts by 1/8 at every window.
        for (cwnd, expected) in [(1000, 875), (17, 15), (9, 8), (2, 2)] {
            let mut h = harness(&ScalableParams::linux(), cwnd, 2);
            h.loss();
            assert_eq!(h.cwnd(), expected, "linux, cwnd {cwnd}");
        }
    }

    #[test]
    fn reno_up_to_the_legacy_window() {
        // Kelly's lwnd = 16: +1 per RTT at 16 segments; at 50 the increase is
        // 0.01/segment, so a round of 50 segments leaves cnt = 50 of 100.
        let mut h = harness(&ScalableParams::default(), 16, 10);
        h.round();
        assert_eq!(h.cwnd(), 17);
        let mut h = harness(&ScalableParams::default(), 50, 10);
        h.round();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (50, 50));
        // Linux: Reno's increase up to 100 segments: 50 → 51 in one round.
        let mut h = harness(&ScalableParams::linux(), 50, 10);
        h.round();
        assert_eq!(h.cwnd(), 51);
    }

    #[test]
    fn congestion_events_every_13_4_rtts() {
        // Lose whenever cwnd reaches 10000 segments; count RTTs between losses.
        // 8750·1.01^13 = 9965 < 10000 ≤ 8750·1.01^14 = 10065, and the integer
        // counter (+⌊cwnd/100⌋ per round, remainder carried) matches that:
        // ln(1/0.875)/ln(1.01) = 13.4 RTTs, rounded up to whole rounds.
        let mut h = harness(&ScalableParams::default(), 10000, 2);
        let mut gaps = Vec::new();
        for _ in 0..5 {
            h.tp.snd_cwnd = 10000; // the path holds W = 10000; the overshoot is what is lost
            h.loss();
            assert_eq!(h.cwnd(), 8750);
            h.tp.snd_cwnd_cnt = 0;
            gaps.push(h.rounds_until(100, "cwnd back to 10000", |h| h.cwnd() >= 10000));
        }
        assert_eq!(gaps, [14; 5]);
        // Just before the 14th round the window is 13.4 rounds' worth short of W.
        let mut h = harness(&ScalableParams::default(), 8750, 2);
        h.rounds(13);
        assert!(h.cwnd() < 10000 && h.cwnd() > 9900, "{}", h.cwnd());
    }

    #[test]
    fn gap_is_independent_of_the_rate() {
        for w in [2000u32, 50000] {
            let mut h = harness(&ScalableParams::default(), w - w / 8, 2);
            let rounds = h.rounds_until(100, &format!("cwnd back to {w}"), |h| h.cwnd() >= w);
            assert_eq!(rounds, 14, "W = {w}");
        }
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::registry::CcParams::with("stcp", &[("low_window", 16.0)]).unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "scalable");
    }
}

crate::cc_property_suite!(scalable_properties, Scalable);
