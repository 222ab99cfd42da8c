//! TCP Hybla (Caini & Firrincieli, "TCP Hybla: a TCP enhancement for
//! heterogeneous networks", Int. J. Satellite Commun. Netw. 22(5), 2004;
//! Linux 6.12 `tcp_hybla.c`, read in full and followed line for line).
//!
//! Hybla makes a long-RTT flow grow as a flow at the reference RTT `rtt0`
//! would: with ρ = RTT/rtt0 (at least 1), slow start adds 2^ρ − 1 segments
//! per ACK and congestion avoidance ρ²/cwnd. Linux's fixed point:
//!
//! - `rho_3ls` = max(srtt_us / (rtt0·1000), 8): ρ << 3, since `srtt_us` is
//!   the smoothed RTT << 3 (`hybla_recalc_param`); `rho` = `rho_3ls` >> 3,
//!   `rho2_7ls` = (`rho_3ls`²) << 1 = ρ² << 7 (u32, wrapping), `rho2` =
//!   `rho2_7ls` >> 7.
//! - Slow start: increment << 7 = 2^min(ρ, 16) · `hybla_fraction`(ρ's three
//!   fractional bits) − 128, the table ⌊128·2^(k/8)⌋ (`hybla_fraction`:
//!   128, 139, 152, 165, 181, 197, 215, 234).
//! - Congestion avoidance: increment << 7 = `rho2_7ls` / cwnd; below 128
//!   (less than a segment) `snd_cwnd_cnt` counts the ACK.
//! - Whole segments go to cwnd at once, the fraction (<< 7) to
//!   `snd_cwnd_cents`, which adds a segment each time it reaches 128; a
//!   zero increment still adds one segment per cwnd ACKs; slow start stops at
//!   ssthresh and cwnd at the clamp, which `init` sets to 65535.
//! - ρ is recomputed whenever the smoothed RTT falls below the smallest seen.
//! - Outside the Open state Hybla is Reno (`hybla_state`); the decrease and
//!   undo are Reno's (`tcp_reno_ssthresh`, `tcp_reno_undo_cwnd`).
//! - `init` sets cwnd = ρ from the smoothed RTT it finds.
//!
//! Linux 6.12's Hybla asks for no pacing: the module sets neither
//! `sk_pacing_status` nor `sk_pacing_rate`, and neither does this.
//!
//! # Deviations from Linux
//! - A Linux connection reaches `init` with the handshake's RTT in `srtt_us`;
//!   hscc has no handshake, so `srtt_us` is 0 there. ρ is then 1 (cwnd 1, as
//!   Linux on a connection whose SYN gave no RTT sample), and the smallest
//!   smoothed RTT starts as "none" rather than 0, so the first sample sets ρ.
//!   Linux would keep 0 as the smallest and never recompute ρ: Reno forever.
//!   With a nonzero `srtt_us` at `init` (a program in the kernel) the two are
//!   the same.
//! - Linux's `while (snd_cwnd_cents >= 128)` runs at most once (the cents are
//!   below 128 on entry and the fraction added is below 128): an `if` here.
//! - A window of 0, which no sender reaches, gives a congestion-avoidance
//!   increment of 0 where Linux would divide by zero (BPF's division gives 0).

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh};
use crate::ops::{CaState, CongestionOps, TcpCc};

crate::params! {
    /// TCP Hybla parameters (Linux's module parameter).
    pub struct HyblaParams {
        /// Reference round-trip time, ms: ρ = RTT / rtt0.
        rtt0: u32 = 25, [1, 2_147_483], "Linux tcp_hybla.c rtt0 = 25 (1/40 s); the paper's RTT0 = 25 ms. At most 2^31/1000: Linux's int rtt0 * USEC_PER_MSEC";
    }
}

/// Linux `USEC_PER_MSEC`.
const USEC_PER_MSEC: u64 = 1000;
/// Linux `hybla_init`: `tp->snd_cwnd_clamp = 65535`.
const HYBLA_CWND_CLAMP: u32 = 65_535;
/// The smallest smoothed RTT before any (hscc's "none"; see the deviations).
const MINRTT_NONE: u32 = u32::MAX;

/// Linux `hybla_fraction`: ⌊2^(odds/8) << 7⌋; 128 (2^0) out of range.
#[inline]
pub fn hybla_fraction(odds: u32) -> u32 {
    const FRACTIONS: [u32; 8] = [128, 139, 152, 165, 181, 197, 215, 234];
    if (odds as usize) < FRACTIONS.len() {
        FRACTIONS[odds as usize]
    } else {
        128
    }
}

/// TCP Hybla state (Linux `struct hybla`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hybla {
    /// rtt0, ms (module parameter).
    rtt0: u32,
    /// Whether Hybla's increase applies (Open state).
    pub hybla_en: bool,
    /// Fractions of a segment not yet added to cwnd, << 7.
    pub snd_cwnd_cents: u32,
    /// ρ, integer part.
    pub rho: u32,
    /// ρ², integer part.
    pub rho2: u32,
    /// ρ << 3.
    pub rho_3ls: u32,
    /// ρ² << 7.
    pub rho2_7ls: u32,
    /// Smallest smoothed RTT seen, µs << 3 (as `srtt_us`).
    pub minrtt_us: u32,
}

impl Hybla {
    /// Linux `hybla_recalc_param`.
    fn recalc_param(&mut self, tp: &TcpCc) {
        let q = tp.srtt_us as u64 / (self.rtt0 as u64 * USEC_PER_MSEC);
        self.rho_3ls = (q as u32).max(8);
        self.rho = self.rho_3ls >> 3;
        self.rho2_7ls = self.rho_3ls.wrapping_mul(self.rho_3ls) << 1;
        self.rho2 = self.rho2_7ls >> 7;
    }
}

impl CongestionOps for Hybla {
    const NAME: &'static str = "hybla";
    type Params = HyblaParams;

    fn new(p: &HyblaParams) -> Self {
        Hybla {
            rtt0: p.rtt0,
            hybla_en: true,
            snd_cwnd_cents: 0,
            rho: 0,
            rho2: 0,
            rho_3ls: 0,
            rho2_7ls: 0,
            minrtt_us: MINRTT_NONE,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![("rtt0", self.rtt0.into())]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.rho = 0;
        self.rho2 = 0;
        self.rho_3ls = 0;
        self.rho2_7ls = 0;
        self.snd_cwnd_cents = 0;
        self.hybla_en = true;
        tp.snd_cwnd = 2;
        tp.snd_cwnd_clamp = HYBLA_CWND_CLAMP;
        // 1st ρ from the smoothed RTT at hand.
        self.recalc_param(tp);
        // The smallest smoothed RTT seen ("none" before a sample: see the deviations).
        self.minrtt_us = if tp.srtt_us == 0 {
            MINRTT_NONE
        } else {
            tp.srtt_us
        };
        tp.snd_cwnd = self.rho;
    }

    fn set_state(&mut self, _tp: &mut TcpCc, new_state: CaState) {
        self.hybla_en = new_state == CaState::Open;
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        // Recompute ρ only when this smoothed RTT is the smallest.
        if tp.srtt_us < self.minrtt_us {
            self.recalc_param(tp);
            self.minrtt_us = tp.srtt_us;
        }
        if !tp.is_cwnd_limited() {
            return;
        }
        if !self.hybla_en {
            return tcp_reno_cong_avoid(tp, ack, acked);
        }
        if self.rho == 0 {
            self.recalc_param(tp);
        }
        let rho_fractions = self.rho_3ls.wrapping_sub(self.rho << 3);
        let is_slowstart = tp.in_slow_start();
        let increment = if is_slowstart {
            // INC = 2^ρ − 1, << 7: 2^int(ρ) · (2^frac(ρ) << 7) − 128.
            ((1u32 << self.rho.min(16)) * hybla_fraction(rho_fractions)) - 128
        } else {
            // INC = ρ²/W, << 7.
            let inc = self.rho2_7ls.checked_div(tp.snd_cwnd).unwrap_or(0);
            if inc < 128 {
                tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.wrapping_add(1);
            }
            inc
        };
        let odd = increment % 128;
        tp.snd_cwnd = tp.snd_cwnd.wrapping_add(increment >> 7);
        self.snd_cwnd_cents = self.snd_cwnd_cents.wrapping_add(odd);
        // The fractions reached a segment (at most once: see the deviations).
        if self.snd_cwnd_cents >= 128 {
            tp.snd_cwnd = tp.snd_cwnd.wrapping_add(1);
            self.snd_cwnd_cents -= 128;
            tp.snd_cwnd_cnt = 0;
        }
        // No increase for a window of ACKs.
        if increment == 0 && odd == 0 && tp.snd_cwnd_cnt >= tp.snd_cwnd {
            tp.snd_cwnd = tp.snd_cwnd.wrapping_add(1);
            tp.snd_cwnd_cnt = 0;
        }
        if is_slowstart {
            tp.snd_cwnd = tp.snd_cwnd.min(tp.snd_ssthresh);
        }
        tp.snd_cwnd = tp.snd_cwnd.min(tp.snd_cwnd_clamp);
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// ACK one segment `n` times, refilling cwnd after each ACK.
    fn acks(h: &mut Harness<Hybla>, n: u32) {
        for _ in 0..n {
            h.ack_each(1, 1);
            h.send_all();
        }
    }

    #[test]
    fn the_fraction_table_is_two_to_the_eighths_truncated() {
        for k in 0..8u32 {
            let exact = 128.0 * 2f64.powf(k as f64 / 8.0);
            assert_eq!(hybla_fraction(k), exact.floor() as u32, "k = {k}");
        }
        assert_eq!(hybla_fraction(8), 128);
    }

    #[test]
    fn init_without_a_sample_starts_at_rho_one_and_the_first_sample_sets_rho() {
        let mut h = Harness::<Hybla>::with_params(&HyblaParams::default(), 10);
        // srtt 0 at init: rho_3ls = max(0, 8) = 8, ρ = 1, cwnd = ρ = 1.
        assert_eq!((h.cc.rho_3ls, h.cc.rho, h.cwnd()), (8, 1, 1));
        assert_eq!(h.tp.snd_cwnd_clamp, 65_535);
        h.set_rtt_ms(100);
        h.send_all();
        h.advance_ms(100);
        acks(&mut h, 1);
        // srtt_us = 100 000 << 3 = 800 000; rho_3ls = 800 000 / 25 000 = 32,
        // ρ = 4, rho2_7ls = 32·32·2 = 2048 (ρ² = 16).
        assert_eq!(
            (h.cc.rho_3ls, h.cc.rho, h.cc.rho2_7ls, h.cc.rho2),
            (32, 4, 2048, 16)
        );
        // Slow start: (1 << 4)·128 − 128 = 1920 = 15 segments per ACK: 1 → 16.
        assert_eq!(h.cwnd(), 16);
        acks(&mut h, 2);
        assert_eq!((h.cwnd(), h.cc.snd_cwnd_cents), (46, 0));
    }

    #[test]
    fn fractional_rho_in_slow_start_and_at_ssthresh() {
        // A 60-ms RTT seen at init: srtt_us = 480 000, rho_3ls = 19 (19.2), ρ = 2,
        // fraction bits 3: increment = 4·165 − 128 = 532 = 4 segments + 20/128.
        let mut h = Harness::<Hybla>::with_params(&HyblaParams::default(), 10);
        h.tp.srtt_us = 60_000 << 3;
        h.cc.init(&mut h.tp);
        assert_eq!((h.cc.rho_3ls, h.cc.rho, h.cwnd()), (19, 2, 2));
        h.tp.snd_ssthresh = 40;
        h.set_rtt_ms(60);
        h.send_all();
        // Six ACKs: +4 each, cents 6·20 = 120; the seventh: +4, cents 140 → +1, 12.
        acks(&mut h, 6);
        assert_eq!((h.cwnd(), h.cc.snd_cwnd_cents), (26, 120));
        acks(&mut h, 1);
        assert_eq!((h.cwnd(), h.cc.snd_cwnd_cents), (31, 12));
        // 31 + 4 = 35, then 39, then min(43, ssthresh 40) = 40.
        acks(&mut h, 3);
        assert_eq!(h.cwnd(), 40);
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_per_window() {
        // 100 ms: rho2_7ls = 2048; at cwnd 100 increment = 20/128 per ACK,
        // so a segment after ⌈128/20⌉ = 7 ACKs (cents 140 → 12), the next
        // after 6 more (12 + 120 = 132 → 4).
        let mut h = Harness::<Hybla>::with_params(&HyblaParams::default(), 10);
        h.tp.srtt_us = 100_000 << 3;
        h.cc.init(&mut h.tp);
        h.tp.snd_cwnd = 100;
        h.tp.snd_ssthresh = 100;
        h.set_rtt_ms(100);
        h.send_all();
        acks(&mut h, 6);
        assert_eq!(
            (h.cwnd(), h.cc.snd_cwnd_cents, h.tp.snd_cwnd_cnt),
            (100, 120, 6)
        );
        acks(&mut h, 1);
        assert_eq!(
            (h.cwnd(), h.cc.snd_cwnd_cents, h.tp.snd_cwnd_cnt),
            (101, 12, 0)
        );
        // 2048/101 = 20 still.
        acks(&mut h, 6);
        assert_eq!((h.cwnd(), h.cc.snd_cwnd_cents), (102, 4));
        // Reno's halving.
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 51);
    }

    #[test]
    fn rho_one_is_reno_and_a_smaller_rtt_lowers_rho() {
        // At 25 ms and below ρ = 1: rho2_7ls = 8·8·2 = 128, so 128/cwnd.
        // At cwnd 10: 12/128 per ACK, a segment after 11 ACKs (132 → 4).
        let mut h = Harness::<Hybla>::with_params(&HyblaParams::default(), 10);
        h.tp.srtt_us = 200_000 << 3;
        h.cc.init(&mut h.tp);
        assert_eq!(h.cc.rho, 8);
        // The smoothed RTT falls to 20 ms within the first ACK: ρ = 1.
        h.tp.srtt_us = 20_000 << 3;
        h.set_rtt_ms(20);
        h.tp.snd_cwnd = 10;
        h.tp.snd_ssthresh = 10;
        h.send_all();
        acks(&mut h, 10);
        assert_eq!((h.cc.rho, h.cc.rho2_7ls), (1, 128));
        assert_eq!((h.cwnd(), h.cc.snd_cwnd_cents), (10, 120));
        acks(&mut h, 1);
        assert_eq!((h.cwnd(), h.cc.snd_cwnd_cents), (11, 4));
    }

    #[test]
    fn outside_open_it_is_reno_and_rtt0_scales_rho() {
        let mut h = Harness::<Hybla>::with_params(&HyblaParams { rtt0: 50 }, 10);
        h.tp.srtt_us = 100_000 << 3;
        h.cc.init(&mut h.tp);
        // 800 000 / 50 000 = 16: ρ = 2.
        assert_eq!((h.cc.rho_3ls, h.cc.rho), (16, 2));
        h.cc.set_state(&mut h.tp, CaState::Disorder);
        h.tp.ca_state = CaState::Disorder;
        h.tp.snd_cwnd = 10;
        h.set_rtt_ms(100);
        h.send_all();
        // Reno slow start: +1 per ACK (Hybla's would be +3).
        acks(&mut h, 2);
        assert_eq!(h.cwnd(), 12);
        h.cc.set_state(&mut h.tp, CaState::Open);
        h.tp.ca_state = CaState::Open;
        acks(&mut h, 1);
        assert_eq!(h.cwnd(), 15);
    }
}

crate::cc_property_suite!(hybla_properties, Hybla);
