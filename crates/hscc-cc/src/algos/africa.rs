//! TCP-Africa: King, Baraniuk, Riedi, "TCP-Africa: An Adaptive and Fair Rapid
//! Increase Rule for Scalable TCP", IEEE INFOCOM 2005 (§III).
//!
//! HighSpeed TCP whose fast increase is enabled only while a Vegas-style
//! delay metric says the path is not congested (§III.B):
//! - congestion imminent iff W·(aRTT − minRTT)/aRTT ≥ α (eq. 6), α = 1.65
//!   (§III.B, §IV) — the estimated number of own packets queued;
//! - per acknowledged segment in congestion avoidance:
//!   fast mode W += a(W)/W, with a(W) HighSpeed's increase (RFC 3649 App. B
//!   table, `crate::algos::highspeed::hstcp_ai`), slow mode W += 1/W (Reno).
//!   Both count acknowledged segments, as HighSpeed's default (RFC 3649) form
//!   and ns-2 (whose receiver acknowledges every packet) do, so delayed ACKs do
//!   not halve the fast mode; `per_ack` credits a(W) once per ACK instead, as
//!   `HighSpeedParams::linux()` does;
//! - on loss W ← (1 − b(W))·W with HighSpeed's b(W) (`hstcp_md`, b·256), in
//!   both modes: the paper uses "HSTCP's increase and decrease parameters"
//!   for its fast mode, and §V.B says that with a useless delay signal it acts
//!   "as TCP-Reno with a modified drop rule" — the HSTCP drop rule is kept in
//!   slow mode too. The delay signal never reduces the window.
//! - slow start and timeouts: standard (not specified; ns-2 HSTCP agent).
//! - `response`: HSTCP's a(W) and b(W) from RFC 3649 App. B's table as Linux
//!   walks it (0, default), or from the RFC §5 formulas at the current window
//!   as ns-2's HSTCP agent evaluates them (1; `HstcpFormula`, documented in
//!   highspeed.rs), which is what the paper's ns-2.27 runs used.
//!
//! aRTT is an exponentially smoothed RTT, minRTT the minimum RTT sample.
//!
//! Variant: `mimd` uses the multiplicative increase named in §III.B,
//! fast_increase(W) = 0.01·W (+0.01 segment per acknowledged segment), with
//! `stcp_decrease` for Scalable TCP's ×0.875 (§V.C: the rule "can be combined
//! with both STCP, and HSTCP").
//!
//! # Choices where the paper is silent
//! - aRTT gain 1/8 per ACK (parameter), the TCP srtt gain, as the only public
//!   derivative (Linux "TCP China" module) does; the mode test runs per ACK
//!   (§V.A mentions a per-RTT test only as a possible optimisation).
//! - `mimd` fast mode never grows slower than Reno: +1 per min(W, 100)
//!   segments, i.e. max(0.01, 1/W) per segment (Reno below 100 segments, as
//!   Linux Scalable TCP is Reno below its own limit); the decrease stays
//!   HSTCP's unless `stcp_decrease` is set.
//! - Fixed point: α in Q16 (1.65 → 108134/65536 = 1.649994), aRTT in µs Q8;
//!   the test compares W·(aRTT − minRTT) with ⌊α·aRTT⌋ in Q8 µs. Before the
//!   first RTT sample the flow is in slow mode.
//!
//! # Checked against §III–IV
//! - Slow-mode decrease: HSTCP's b(W) stays. The pseudo-code of §III.B covers
//!   only the increase; §V.B settles the decrease: "In a network with unusually
//!   variable delay [i.e. always in slow mode], the protocol would at worst
//!   perform as TCP-Reno with a modified drop rule".
//! - Mode test: eq. 6 / the §III.B pseudo-code, "if (W(aRTT − minRTT) < α ×
//!   aRTT) { W = W + fast_increase(W)/W } else { W = W + 1/W }", exactly, with
//!   α = 1.65 ("In our experiments, we used an α value of 1.65", §III.B).
//! - Delay estimate: "an exponentially smoothed high accuracy round trip time
//!   estimate" (§III.B), "a queuing action every packet, along with the
//!   multiplication and addition necessary for an exponentially smoothed
//!   estimate" (§V.A): one µs sample per ACK into an EWMA, as here.
//! - Buffer of the ns-2 runs (not stated): one much smaller than the BDP. Figs.
//!   4–5 (622 Mbit/s, 164 ms RTT, BDP ≈ 8500 packets) show the slow mode "in each
//!   congestion event cycle" of an 8-minute run; slow mode adds one packet per
//!   RTT, so a cycle lasts at least B RTTs and several cycles in 480 s need
//!   B ≪ 2900 packets (a 1-BDP buffer allows none after slow start). ns-2's
//!   default DropTail limit, `Queue set limit_ 50` (ns-default.tcl), fits; the
//!   experiments should set it (hscc's default buffer is 1 BDP).

use crate::algos::highspeed::{credit_shift, hstcp_ai, hstcp_md, HstcpFormula, RESPONSE_FORMULA};
use crate::helpers::{cong_avoid_start, tcp_cong_avoid_ai};
use crate::ops::{AckSample, CongestionOps, TcpCc};

crate::params! {
    /// TCP-Africa parameters.
    pub struct AfricaParams {
        /// α: queued-packet estimate at which the flow leaves fast mode.
        alpha: f64 = 1.65, [0.0, 1000000.0], "INFOCOM 2005 §III.B, §IV";
        /// Gain of the aRTT moving average per RTT sample.
        artt_gain: f64 = 0.125, [0.0001, 1.0], "assumption: the paper gives none (§V.A); TCP's srtt gain, as Linux tcp_china.c";
        /// Fast mode by multiplicative increase 0.01·W instead of HSTCP's a(W).
        mimd: bool = false, [0, 1], "INFOCOM 2005 §III.B";
        /// Decrease by Scalable TCP's 1/8 instead of HSTCP's b(W).
        stcp_decrease: bool = false, [0, 1], "INFOCOM 2005 §V.C; Kelly 2003";
        /// Fast mode: a(W) once per ACK (Linux tcp_highspeed.c) instead of per acknowledged segment.
        per_ack: bool = false, [0, 1], "RFC 3649 / ns-2 HSTCP: per segment; Linux tcp_highspeed.c: per ACK";
        /// HSTCP's a(W), b(W): 0 = table (RFC 3649 App. B walked as Linux does: between rows a rounds up, b down), 1 = formula (RFC 3649 §5 at the current window, as ns-2's HSTCP).
        response: u32 = 0, [0, 1], "Linux tcp_highspeed.c (0 = table); ns-2 tcp.cc windowOption_ 8 (1 = formula)";
    }
}

/// TCP-Africa state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Africa {
    /// α, Q16.
    alpha_q16: u64,
    /// aRTT gain, Q16.
    gain_q16: i64,
    /// MIMD fast mode.
    mimd: bool,
    /// Scalable TCP decrease.
    stcp_decrease: bool,
    /// Fast mode credits a(W) per ACK rather than per acknowledged segment.
    per_ack: bool,
    /// HSTCP's formulas (`response = 1`) instead of its table.
    formula: bool,
    /// aRTT, µs Q8 (0 before the first sample).
    artt_q8: u64,
    /// minRTT, µs (`u32::MAX` before the first sample).
    min_rtt_us: u32,
    /// Mode of the last congestion-avoidance step (true = fast).
    fast: bool,
}

impl Africa {
    /// Whether the last congestion-avoidance step was in fast mode.
    pub fn fast_mode(&self) -> bool {
        self.fast
    }

    /// eq. 6 negated: W·(aRTT − minRTT) < α·aRTT.
    fn no_congestion(&self, w: u32) -> bool {
        let min_q8 = (self.min_rtt_us as u64) << 8;
        let queued = (w as u64).saturating_mul(self.artt_q8.saturating_sub(min_q8));
        queued < self.alpha_q16.saturating_mul(self.artt_q8) >> 16
    }
}

impl CongestionOps for Africa {
    const NAME: &'static str = "africa";
    type Params = AfricaParams;

    fn new(p: &AfricaParams) -> Self {
        Africa {
            alpha_q16: (p.alpha * 65536.0).round() as u64,
            gain_q16: (p.artt_gain * 65536.0).round() as i64,
            mimd: p.mimd,
            stcp_decrease: p.stcp_decrease,
            per_ack: p.per_ack,
            formula: p.response == RESPONSE_FORMULA,
            artt_q8: 0,
            min_rtt_us: u32::MAX,
            fast: false,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("alpha_q16", self.alpha_q16 as i64),
            ("gain_q16", self.gain_q16),
            ("mimd", self.mimd.into()),
            ("stcp_decrease", self.stcp_decrease.into()),
            ("per_ack", self.per_ack.into()),
            ("response", self.formula.into()),
        ]
    }

    fn pkts_acked(&mut self, _tp: &mut TcpCc, s: &AckSample) {
        if s.rtt_us < 0 {
            return;
        }
        let rtt = (s.rtt_us as u32).max(1);
        let rtt_q8 = (rtt as u64) << 8;
        self.artt_q8 = if self.artt_q8 == 0 {
            rtt_q8
        } else {
            let step = ((rtt_q8 as i64 - self.artt_q8 as i64) * self.gain_q16) >> 16;
            (self.artt_q8 as i64 + step) as u64
        };
        self.min_rtt_us = self.min_rtt_us.min(rtt);
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        let w = tp.snd_cwnd;
        self.fast = self.no_congestion(w);
        // With the formulas `snd_cwnd_cnt` counts 2^−s segment in every mode
        // (HstcpFormula::cong_avoid_ai), so a mode change keeps its credit.
        let s = if self.formula {
            credit_shift(w.max(1))
        } else {
            0
        };
        match (self.fast, self.mimd) {
            (true, false) => {
                let per = if self.per_ack { 1 } else { acked };
                if self.formula {
                    HstcpFormula::RFC.cong_avoid_ai(tp, per)
                } else {
                    tcp_cong_avoid_ai(tp, w, per.saturating_mul(hstcp_ai(w)))
                }
            }
            (true, true) => tcp_cong_avoid_ai(tp, w.min(100) << s, acked.saturating_mul(1 << s)),
            (false, _) => tcp_cong_avoid_ai(tp, w.max(1) << s, acked.saturating_mul(1 << s)),
        }
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let w = tp.snd_cwnd;
        if self.formula && !self.stcp_decrease {
            return HstcpFormula::RFC.ssthresh(w);
        }
        let cut = if self.stcp_decrease {
            w >> 3
        } else {
            ((w as u64 * hstcp_md(w) as u64) >> 8) as u32
        };
        (w - cut).max(2)
    }
}

crate::cc_property_suite!(africa_properties, Africa);
crate::cc_property_suite!(
    africa_formula_properties,
    Africa,
    AfricaParams {
        response: RESPONSE_FORMULA,
        ..Default::default()
    }
);
crate::cc_property_suite!(
    africa_mimd_properties,
    Africa,
    AfricaParams {
        mimd: true,
        stcp_decrease: true,
        ..Default::default()
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// Congestion avoidance at window `w`, aRTT and minRTT in µs; ACKs carry
    /// RTT = aRTT so the average does not move.
    fn ca(p: &AfricaParams, w: u32, artt_us: u32, min_us: u32) -> Harness<Africa> {
        let mut h = Harness::<Africa>::with_params(p, w);
        h.tp.snd_ssthresh = 2;
        h.cc.artt_q8 = (artt_us as u64) << 8;
        h.cc.min_rtt_us = min_us;
        h.set_rtt_us(artt_us);
        h
    }

    /// One ACK of one segment from a full window.
    fn one_ack(h: &mut Harness<Africa>) {
        h.send_all();
        h.ack_each(1, 1);
    }

    #[test]
    fn mode_switches_exactly_at_alpha() {
        // α = 1.5, aRTT 100 ms, minRTT 99 ms: W·1/100 vs 1.5.
        // W = 150 gives exactly 1.5 ≥ α: slow (+1 credit); W = 149: fast, a(149) = 3.
        let p = AfricaParams {
            alpha: 1.5,
            ..Default::default()
        };
        for (w, fast, credit) in [(150, false, 1), (149, true, 3)] {
            let mut h = ca(&p, w, 100_000, 99_000);
            one_ack(&mut h);
            assert_eq!(
                (h.cc.fast_mode(), h.tp.snd_cwnd_cnt),
                (fast, credit),
                "W = {w}"
            );
        }
        // Default α = 1.65: W = 165 gives 1.65 (slow), W = 164 gives 1.64 (fast).
        for (w, fast) in [(165, false), (164, true)] {
            let mut h = ca(&AfricaParams::default(), w, 100_000, 99_000);
            one_ack(&mut h);
            assert_eq!(h.cc.fast_mode(), fast, "W = {w}");
        }
    }

    #[test]
    fn fast_mode_grows_by_hstcp_a_per_round() {
        // No queue, W = 100: a(100) = 2 (38 < 100 ≤ 118). 100 ACKs of 2
        // credits: +1 at ACK 50, then 100 credits at W = 101.
        let mut h = ca(&AfricaParams::default(), 100, 100_000, 100_000);
        h.round();
        assert_eq!(
            (h.cwnd(), h.tp.snd_cwnd_cnt, h.cc.fast_mode()),
            (101, 100, true)
        );
        // W = 1000: a = 8 (851 < 1000 ≤ 1058): 125 ACKs per segment early on.
        let mut h = ca(&AfricaParams::default(), 1000, 100_000, 100_000);
        h.send_all();
        h.ack_each(125, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1001, 0));
    }

    #[test]
    fn fast_mode_counts_segments_unless_per_ack() {
        // W = 1000 (a = 8), 500 ACKs of 2 segments: per segment 8000 credits →
        // thresholds 1000…1006 (7021) → 1007, 979 left, as HighSpeed's default;
        // per ACK 4000 credits → 1000…1002 (3003) → 1003, 997 left (Linux).
        for (per_ack, expected) in [(false, (1007, 979)), (true, (1003, 997))] {
            let p = AfricaParams {
                per_ack,
                ..Default::default()
            };
            let mut h = ca(&p, 1000, 100_000, 100_000);
            h.send_all();
            h.ack_each(500, 2);
            assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), expected, "per_ack {per_ack}");
        }
    }

    #[test]
    fn formula_response_uses_hstcp_formulas_in_fast_mode() {
        // RFC 3649 §5 at W = 100 (by hand in highspeed.rs): a = 1.88182, so
        // each ACK credits 1927/1024 against 100·1024: +1 after ⌈102400/1927⌉
        // = 54 ACKs, 1658 left; the table's a = 2 needs 50.
        let p = AfricaParams {
            response: RESPONSE_FORMULA,
            ..Default::default()
        };
        let mut h = ca(&p, 100, 100_000, 100_000);
        h.send_all();
        h.ack_each(54, 1);
        assert_eq!(
            (h.cwnd(), h.tp.snd_cwnd_cnt, h.cc.fast_mode()),
            (101, 1658, true)
        );
        // Slow mode stays Reno (in units of 2⁻¹⁰ segment): +1 per 100 ACKs.
        let mut h = ca(&p, 100, 110_000, 100_000);
        h.round();
        assert_eq!((h.cwnd(), h.cc.fast_mode()), (101, false));
        // Decrease ⌊W·(1 − b(W))⌋ in both modes: b(1000) = 0.329878 →
        // ⌊670.122⌋ (the table: 676); b(100) = 0.449664 → ⌊55.034⌋.
        for (w, artt, expected) in [
            (1000, 100_000, 670),
            (1000, 150_000, 670),
            (100, 100_000, 55),
        ] {
            let mut h = ca(&p, w, artt, 100_000);
            h.loss();
            assert_eq!(h.cwnd(), expected, "W = {w}, aRTT {artt}");
        }
        // Scalable TCP's decrease is not HSTCP's: unchanged.
        let p = AfricaParams {
            response: RESPONSE_FORMULA,
            stcp_decrease: true,
            ..Default::default()
        };
        let mut h = ca(&p, 1000, 100_000, 100_000);
        h.loss();
        assert_eq!(h.cwnd(), 875);
    }

    #[test]
    fn slow_mode_grows_one_segment_per_round() {
        // aRTT 110, minRTT 100: 100·10/110 = 9.1 ≥ 1.65 → Reno: +1 per 100 ACKs.
        let mut h = ca(&AfricaParams::default(), 100, 110_000, 100_000);
        h.round();
        assert_eq!(
            (h.cwnd(), h.tp.snd_cwnd_cnt, h.cc.fast_mode()),
            (101, 0, false)
        );
    }

    #[test]
    fn mimd_fast_mode_adds_one_percent_per_round() {
        // W = 1000: +1 per 100 ACKs → +10 per round. W = 50: Reno-like, +1.
        let p = AfricaParams {
            mimd: true,
            ..Default::default()
        };
        for (w, expected) in [(1000, 1010), (50, 51)] {
            let mut h = ca(&p, w, 100_000, 100_000);
            h.round();
            assert_eq!(h.cwnd(), expected, "W = {w}");
        }
        // Slow mode stays Reno.
        let mut h = ca(&p, 1000, 110_000, 100_000);
        h.round();
        assert_eq!(h.cwnd(), 1001);
    }

    #[test]
    fn decrease_is_hstcp_b_in_both_modes() {
        // W = 1000: b = 83/256 → 1000 − ⌊83000/256⌋ = 1000 − 324 = 676.
        for artt in [100_000, 150_000] {
            let mut h = ca(&AfricaParams::default(), 1000, artt, 100_000);
            h.loss();
            assert_eq!(h.cwnd(), 676, "aRTT {artt}");
        }
        // W ≤ 38: b = 1/2.
        let mut h = ca(&AfricaParams::default(), 38, 100_000, 100_000);
        h.loss();
        assert_eq!(h.cwnd(), 19);
        // Scalable TCP decrease: 1000 − 125.
        let p = AfricaParams {
            stcp_decrease: true,
            ..Default::default()
        };
        let mut h = ca(&p, 1000, 100_000, 100_000);
        h.loss();
        assert_eq!(h.cwnd(), 875);
    }

    #[test]
    fn artt_is_an_ewma_with_gain_one_eighth() {
        // 100 then 200 ms: 100 + (200 − 100)/8 = 112.5 ms; minRTT 100.
        let mut h = Harness::<Africa>::with_params(&AfricaParams::default(), 10);
        h.send(2);
        h.set_rtt_ms(100);
        h.ack_each(1, 1);
        h.set_rtt_ms(200);
        h.ack_each(1, 1);
        assert_eq!((h.cc.artt_q8, h.cc.min_rtt_us), (112_500 << 8, 100_000));
        // Gain 1/2: 150 ms.
        let p = AfricaParams {
            artt_gain: 0.5,
            ..Default::default()
        };
        let mut h = Harness::<Africa>::with_params(&p, 10);
        h.send(2);
        h.set_rtt_ms(100);
        h.ack_each(1, 1);
        h.set_rtt_ms(200);
        h.ack_each(1, 1);
        assert_eq!(h.cc.artt_q8, 150_000 << 8);
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::CcParams::with("tcp-africa", &[("alpha", 2.0), ("mimd", 1.0)]).unwrap();
        assert_eq!(p.name(), "africa");
    }

    #[test]
    fn queue_build_up_moves_the_flow_to_slow_mode() {
        // W = 300, minRTT 100 ms: fast while 300·(aRTT − 100)/aRTT < 1.65,
        // i.e. aRTT < 100.553 ms. Samples of 101 ms pull aRTT up from 100 ms by
        // 1/8 of the gap per ACK: 100.125, 100.234, 100.330, 100.414, 100.487,
        // 100.551 (6th, still fast), 100.607 (7th, slow).
        let mut h = ca(&AfricaParams::default(), 300, 100_000, 100_000);
        h.set_rtt_us(101_000);
        h.send_all();
        let mut modes = Vec::new();
        for _ in 0..7 {
            h.ack_each(1, 1);
            modes.push(h.cc.fast_mode());
        }
        assert_eq!(modes, [true, true, true, true, true, true, false]);
    }
}
