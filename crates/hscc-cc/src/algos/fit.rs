//! TCP-FIT: Wang, Wen, Zhang, Han, "TCP-FIT: An Improved TCP Congestion
//! Control Algorithm and its Performance", IEEE INFOCOM 2011 (§III, §V).
//!
//! One window that behaves like N parallel Reno flows (eq. 1):
//! - per RTT w ← w + N, i.e. N/w per acknowledged segment;
//! - per loss w ← w − 2/(3N + 1)·w (β = 2/(3N+1): N = 1 → 1/2 = Reno,
//!   N = 2 → 2/7, N = 3 → 1/5), which makes the throughput exactly N × Reno
//!   in the Padhye model (eq. 16–18), where MulTCP's β = 1/(2N) does not.
//!
//! N starts at 1 and is updated after each loss event (eq. 2) from the
//! updating period that just ended (the loss-free period, LFP):
//! Q = (rtt̄ − rtt_min)·w̄/rtt̄ (eq. 3) is the estimated backlog;
//! N ← N + 1 if Q < α·w̄/N, unchanged if equal, max(1, N − 1) if greater.
//! w̄ > 0 cancels, so the test is computed as N·(rtt̄ − rtt_min) vs α·rtt̄ —
//! the same comparison, without w̄ and its rounding.
//!
//! α (0 < α < 1): fixed, or by default the practical rule of §V.B, which
//! approximates the theoretical α by the mean over the TCP-FIT connections of
//! their (rtt_max − rtt_min)/rtt_max. Each connection's value is the running
//! mean over its LFPs of (max RTT of the LFP − rtt_min)/(max RTT of the LFP);
//! α is the mean of those values over the TCP-FIT connections that share it
//! (`alpha_shared`, the default: every TCP-FIT flow of the run, as the global
//! of one kernel module would be) or the connection's own value.
//!
//! Why shared by default: the paper's RTT fairness (Table II, η = 1; Table III)
//! rests on eq. 19, T = (α/q)·√(3/(2(P + p))), in which a connection's RTT does
//! not appear only if α is the same for every connection. With a per-connection α =
//! q/(D + q) the RTT comes back (T ≈ √(…)/(D + q), Reno's RTT unfairness), and
//! the Table III set-up gives a throughput ratio of about 14 at RTT ratio 8
//! where the paper reports 1.9. §V.B defines α for the network (the ratio of
//! the in-flight packets queued in the network buffers to a Reno connection's
//! congestion window), not per connection.
//!
//! Variants (parameters): fixed N (`n_fixed`, no adaptation) and MulTCP's
//! β = 1/(2N) (`multcp`), which together give MulTCP(N) of §II / Fig. 1.
//!
//! # Choices where the paper is ambiguous
//! - Eq. 3 prints the divisor as "rtt"; taken as rtt̄ (as the text explains:
//!   w̄/rtt̄ is the sending rate).
//! - rtt̄ is the average of the per-ACK RTT samples of the LFP (time- vs
//!   ACK-average is not specified); rtt_min is the minimum over the connection.
//! - Order at a loss: the decrease uses the N in force during the LFP that
//!   ended (eq. 7–8: β_{i−1}), then N is updated for the next LFP.
//! - Every call of `ssthresh` (fast retransmit or timeout) is a loss event;
//!   after a timeout the Reno RTO behaviour applies (cwnd 1, slow start) with
//!   ssthresh = w·(1 − β) and N is kept.
//! - Samples are not taken in Recovery / Loss (retransmissions).
//! - α practical rule: per-LFP maximum against the connection's minimum,
//!   averaged over the connection's LFPs, then over the connections
//!   (`alpha_shared`; see above); a connection counts once it has ended an LFP
//!   and stops counting when it closes. α is read when a connection updates its
//!   N, so it is the mean of the other connections' values at that moment. An LFP without samples is skipped
//!   and leaves N unchanged.
//! - Slow start: standard (§III does not modify it).
//! - What `acked` counts is the flow's `ack_counting`: acknowledged segments
//!   (RFC 3465, current Linux) by default, or ACKs, as Linux 2.6.31 (the
//!   authors' kernel) counted them in congestion avoidance and as the
//!   reproductions run it.
//!
//! # Where the rule gives more than a fair share
//! The practical rule takes the *maximum* RTT, so α exceeds the theoretical
//! value (the mean backlog fraction of a Reno window); and at a fair point
//! N ≈ 1, eq. 2 cannot go below 1 and moves in whole flows, so N averages
//! above 1 (the `fit-fig6a` and `fit-fig7a` reproductions' notes give the
//! numbers).
//!
//! # Not implemented
//! The continuous N update of the later TCP-FIT white paper (third-party
//! code only, e.g. `TCPFit.cc` of github.com/SpyrosMArtel/TCP-Fit-Illinois).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crate::helpers::{cong_avoid_start, tcp_cong_avoid_ai};
use crate::ops::{AckSample, CaState, CongestionOps, TcpCc};

/// The α that the TCP-FIT connections of one run share (§V.B): the mean of the
/// connections' own values. One per simulation; clones are the same pool.
#[derive(Clone, Debug, Default)]
pub struct AlphaPool(Arc<PoolSums>);

#[derive(Debug, Default)]
struct PoolSums {
    /// Sum of the members' values, Q16.
    sum_q16: AtomicU64,
    /// Members with a value.
    members: AtomicU64,
}

impl AlphaPool {
    /// The mean of the members' values, Q16 (None before any has one).
    pub fn alpha_q16(&self) -> Option<u32> {
        let n = self.0.members.load(Relaxed);
        (n > 0).then(|| (self.0.sum_q16.load(Relaxed) / n) as u32)
    }

    /// Take a member's `old` value out and put its `new` one in.
    fn update(&self, old: Option<u32>, new: Option<u32>) {
        if let Some(v) = old {
            self.0.sum_q16.fetch_sub(v as u64, Relaxed);
            self.0.members.fetch_sub(1, Relaxed);
        }
        if let Some(v) = new {
            self.0.sum_q16.fetch_add(v as u64, Relaxed);
            self.0.members.fetch_add(1, Relaxed);
        }
    }
}

/// One connection's place in a pool: its current value, taken back when it
/// closes (dropped); a clone is another connection with the same value.
#[derive(Debug)]
struct Member {
    pool: AlphaPool,
    q16: Option<u32>,
}

impl Member {
    fn set(&mut self, q16: u32) {
        self.pool.update(self.q16.replace(q16), Some(q16));
    }
}

impl Clone for Member {
    fn clone(&self) -> Member {
        self.pool.update(None, self.q16);
        Member {
            pool: self.pool.clone(),
            q16: self.q16,
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.pool.update(self.q16.take(), None);
    }
}

impl PartialEq for Member {
    fn eq(&self, other: &Member) -> bool {
        Arc::ptr_eq(&self.pool.0, &other.pool.0) && self.q16 == other.q16
    }
}

impl Eq for Member {}

crate::params! {
    /// TCP-FIT parameters.
    pub struct FitParams {
        /// Derive α from the RTTs by the practical rule of §V.B.
        alpha_auto: bool = true, [0, 1], "INFOCOM 2011 §V.B";
        /// With alpha_auto: α is the mean over all TCP-FIT connections of the run that share it (1), or the connection's own value (0).
        alpha_shared: bool = true, [0, 1], "INFOCOM 2011 §V.B (alpha = mean over the TCP-FIT connections of (rtt_max - rtt_min)/rtt_max); Table II (eta = 1 needs one alpha)";
        /// α when alpha_auto = 0: backlog per virtual Reno flow, as a fraction of its window.
        alpha: f64 = 0.125, [0.0001, 0.9999], "INFOCOM 2011 §III (0 < α < 1); 0.125 as in the ns-3 port by V. Jain";
        /// Fixed number of virtual Reno flows N (0 = adapt N by eq. 2).
        n_fixed: u32 = 0, [0, 1000000], "INFOCOM 2011 §II (MulTCP with fixed N, Fig. 1)";
        /// Decrease by MulTCP's β = 1/(2N) instead of 2/(3N + 1).
        multcp: bool = false, [0, 1], "INFOCOM 2011 §III (MulTCP, Crowcroft & Oechslin 1998)";
    }
}

/// TCP-FIT state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    /// α from the practical rule (true) or fixed.
    alpha_auto: bool,
    /// α in force, Q16.
    alpha_q16: u32,
    /// N fixed (no eq. 2 update).
    n_fixed: bool,
    /// MulTCP decrease.
    multcp: bool,
    /// Virtual Reno flows N (≥ 1).
    n: u32,
    /// Minimum RTT sample of the connection, µs (`u32::MAX` before the first).
    rtt_min_us: u32,
    /// Sum of the RTT samples of the current LFP, µs.
    lfp_rtt_sum_us: u64,
    /// RTT samples in the current LFP.
    lfp_cnt: u32,
    /// Largest RTT sample of the current LFP, µs.
    lfp_rtt_max_us: u32,
    /// Sum of the per-LFP (rtt_max − rtt_min)/rtt_max samples, Q16.
    alpha_sum_q16: u64,
    /// LFPs in `alpha_sum_q16`.
    alpha_cnt: u32,
    /// rtt̄ of the last completed LFP, µs (0 before the first).
    last_rtt_avg_us: u32,
    /// α shared with the run's other connections (alpha_shared, once attached).
    alpha_shared: bool,
    pool: Option<Member>,
}

impl Fit {
    /// Virtual Reno flows N in force.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// α in force.
    pub fn alpha(&self) -> f64 {
        self.alpha_q16 as f64 / 65536.0
    }

    /// Share α with the other connections of `pool` (if `alpha_shared` and `alpha_auto`).
    pub fn attach(&mut self, pool: &AlphaPool) {
        if self.alpha_auto && self.alpha_shared {
            self.pool = Some(Member {
                pool: pool.clone(),
                q16: None,
            });
        }
    }

    /// rtt̄ of the last completed updating period and rtt_min, µs — the
    /// inputs of eq. 2–3 (0 and `u32::MAX` before any sample).
    pub fn rtts_us(&self) -> (u32, u32) {
        (self.last_rtt_avg_us, self.rtt_min_us)
    }

    /// Window after a loss: w·(1 − 2/(3N + 1)) = w·(3N − 1)/(3N + 1), or
    /// MulTCP's w·(1 − 1/(2N)); floored.
    fn decreased(&self, w: u32) -> u32 {
        let (w, n) = (w as u64, self.n as u64);
        let (num, den) = if self.multcp {
            (2 * n - 1, 2 * n)
        } else {
            (3 * n - 1, 3 * n + 1)
        };
        (w * num / den) as u32
    }

    /// End of an updating period: α sample (§V.B), then eq. 2.
    fn end_lfp(&mut self) {
        if self.lfp_cnt == 0 {
            return;
        }
        let avg = self.lfp_rtt_sum_us / self.lfp_cnt as u64;
        let min = self.rtt_min_us as u64;
        self.last_rtt_avg_us = avg as u32;
        if self.alpha_auto {
            let max = self.lfp_rtt_max_us as u64;
            self.alpha_sum_q16 += ((max - min) << 16) / max;
            self.alpha_cnt += 1;
            let own = (self.alpha_sum_q16 / self.alpha_cnt as u64) as u32;
            self.alpha_q16 = match &mut self.pool {
                Some(member) => {
                    member.set(own);
                    member.pool.alpha_q16().unwrap_or(own)
                }
                None => own,
            };
        }
        if !self.n_fixed {
            // Q ⋛ α·w̄/N  ⇔  N·(rtt̄ − rtt_min) ⋛ α·rtt̄
            let q = (self.n as u64)
                .saturating_mul(avg - min)
                .saturating_mul(1 << 16);
            let target = self.alpha_q16 as u64 * avg;
            if q < target {
                self.n = self.n.saturating_add(1);
            } else if q > target {
                self.n = (self.n - 1).max(1);
            }
        }
        self.lfp_rtt_sum_us = 0;
        self.lfp_cnt = 0;
        self.lfp_rtt_max_us = 0;
    }
}

impl CongestionOps for Fit {
    const NAME: &'static str = "fit";
    type Params = FitParams;

    fn new(p: &FitParams) -> Self {
        Fit {
            alpha_auto: p.alpha_auto,
            alpha_q16: (p.alpha * 65536.0).round() as u32,
            n_fixed: p.n_fixed > 0,
            multcp: p.multcp,
            n: p.n_fixed.max(1),
            rtt_min_us: u32::MAX,
            lfp_rtt_sum_us: 0,
            lfp_cnt: 0,
            lfp_rtt_max_us: 0,
            alpha_sum_q16: 0,
            alpha_cnt: 0,
            last_rtt_avg_us: 0,
            alpha_shared: p.alpha_shared,
            pool: None,
        }
    }

    /// `n_init` is N at the start (1 when N adapts); `alpha_fixed_q16` is α
    /// when `alpha_auto` is off (with it on, α is always measured first).
    /// With `alpha_shared`, every socket of one kernel registration shares
    /// α (bpf/fit.bpf.c), as the flows of one simulation do ([`AlphaPool`]).
    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("alpha_auto", self.alpha_auto.into()),
            ("alpha_shared", self.alpha_shared.into()),
            ("alpha_fixed_q16", self.alpha_q16.into()),
            ("n_fixed", self.n_fixed.into()),
            ("n_init", if self.n_fixed { self.n } else { 1 }.into()),
            ("multcp", self.multcp.into()),
        ]
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        if s.rtt_us < 0 || matches!(tp.ca_state, CaState::Recovery | CaState::Loss) {
            return;
        }
        let rtt = (s.rtt_us as u32).max(1);
        self.rtt_min_us = self.rtt_min_us.min(rtt);
        self.lfp_rtt_max_us = self.lfp_rtt_max_us.max(rtt);
        self.lfp_rtt_sum_us += rtt as u64;
        self.lfp_cnt += 1;
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        // eq. 1: +N per window acknowledged.
        let w = tp.snd_cwnd;
        tcp_cong_avoid_ai(tp, w, acked.saturating_mul(self.n));
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let ssthresh = self.decreased(tp.snd_cwnd).max(2);
        self.end_lfp();
        ssthresh
    }
}

crate::cc_property_suite!(fit_properties, Fit);
crate::cc_property_suite!(
    fit_multcp_properties,
    Fit,
    FitParams {
        alpha_auto: false,
        n_fixed: 8,
        multcp: true,
        ..Default::default()
    }
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn fixed_alpha(alpha: f64) -> FitParams {
        FitParams {
            alpha_auto: false,
            alpha,
            ..Default::default()
        }
    }

    /// Congestion avoidance at window `w` with N = `n`, rtt_min = 100 ms.
    fn ca(p: &FitParams, w: u32, n: u32) -> Harness<Fit> {
        let mut h = Harness::<Fit>::with_params(p, w);
        h.tp.snd_ssthresh = 2;
        h.cc.n = n;
        h.cc.rtt_min_us = 100_000;
        h
    }

    #[test]
    fn decrease_factor_is_two_over_three_n_plus_one() {
        // w = 700: N=1 β=1/2 → 350; N=2 β=2/7 → 500; N=3 β=1/5 → 560;
        // N=10 β=2/31 → ⌊700·29/31⌋ = ⌊654.8⌋ = 654.
        for (n, expected) in [(1, 350), (2, 500), (3, 560), (10, 654)] {
            let p = FitParams {
                n_fixed: n,
                ..Default::default()
            };
            let mut h = ca(&p, 700, n);
            h.loss();
            assert_eq!((h.ssthresh(), h.cwnd()), (expected, expected), "N = {n}");
        }
    }

    #[test]
    fn multcp_decrease_is_one_over_two_n() {
        // N=1 → 350, N=2 → 700·3/4 = 525, N=4 → 700·7/8 = 612.
        for (n, expected) in [(1, 350), (2, 525), (4, 612)] {
            let p = FitParams {
                n_fixed: n,
                multcp: true,
                ..Default::default()
            };
            let mut h = ca(&p, 700, n);
            h.loss();
            assert_eq!(h.ssthresh(), expected, "N = {n}");
        }
    }

    #[test]
    fn window_grows_n_per_round() {
        // 100 ACKs at w = 100 with N credits each:
        // N=1: +1, cnt 0. N=2: +1 at ACK 50, 100 credits left at w 101.
        // N=3: +1 at ACK 34 (cnt 2), +1 at ACK 67 (2 + 33·3 = 101 = w), 99 left.
        for (n, cwnd, cnt) in [(1, 101, 0), (2, 101, 100), (3, 102, 99)] {
            let mut h = ca(
                &FitParams {
                    n_fixed: n,
                    ..Default::default()
                },
                100,
                n,
            );
            h.round();
            assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (cwnd, cnt), "N = {n}");
        }
        // Over many rounds the average is N per round: 20 rounds at N = 3.
        let mut h = ca(
            &FitParams {
                n_fixed: 3,
                ..Default::default()
            },
            100,
            3,
        );
        h.rounds(20);
        assert!((159..=160).contains(&h.cwnd()), "{}", h.cwnd());
    }

    #[test]
    fn n_update_follows_each_case_of_eq_2() {
        // α = 0.5, N = 3, rtt_min = 100 ms: N·(rtt̄ − 100) vs 0.5·rtt̄.
        // rtt̄ 119: 57 < 59.5 → 4; 120: 60 = 60 → 3; 121: 63 > 60.5 → 2.
        for (rtt, n) in [(119, 4), (120, 3), (121, 2)] {
            let mut h = ca(&fixed_alpha(0.5), 700, 3);
            h.set_rtt_ms(rtt);
            h.round();
            h.loss();
            assert_eq!(h.cc.n, n, "rtt̄ {rtt} ms");
            assert_eq!(h.cc.rtts_us(), (rtt * 1000, 100_000));
            // The round grew 700 → 702 (+1 at ACKs 234 and 467); the decrease
            // used the N of the period that ended (3): ⌊702·8/10⌋ = 561.
            assert_eq!(h.ssthresh(), 561);
        }
        // N never drops below 1: rtt̄ 300 with N = 1.
        let mut h = ca(&fixed_alpha(0.5), 100, 1);
        h.set_rtt_ms(300);
        h.round();
        h.loss();
        assert_eq!(h.cc.n, 1);
    }

    #[test]
    fn n_climbs_while_the_backlog_is_small() {
        // rtt̄ = rtt_min: Q = 0 < α·w̄/N at every loss: 1 → 2 → 3 → 4.
        let mut h = ca(&fixed_alpha(0.5), 100, 1);
        h.set_rtt_ms(100);
        for n in [2, 3, 4] {
            h.round();
            h.loss();
            assert_eq!(h.cc.n, n);
        }
    }

    #[test]
    fn alpha_is_the_running_mean_of_lfp_queueing_fractions() {
        // LFP 1: max 150 → (150 − 100)/150 = 1/3 (Q16 21845).
        // LFP 2: max 125 → 0.2 (Q16 13107). Mean: (21845 + 13107)/2 = 17476.
        let mut h = ca(&FitParams::default(), 100, 2);
        h.set_rtt_ms(150);
        h.round();
        h.loss();
        // N = 2: 2·50 > (1/3)·150 → 1.
        assert_eq!((h.cc.alpha_q16, h.cc.n), (21845, 1));
        h.set_rtt_ms(125);
        h.round();
        h.loss();
        // N = 1: 25 < 0.2667·125 = 33.3 → 2.
        assert_eq!((h.cc.alpha_q16, h.cc.n), (17476, 2));
    }

    #[test]
    fn shared_alpha_is_the_mean_over_the_connections() {
        // Connection A's LFP: max 150 vs min 100 → 1/3 (Q16 21845); B's: max 125 → 0.2 (13107).
        // Shared: A alone → 21845; then B's update sees (21845 + 13107)/2 = 17476.
        let pool = AlphaPool::default();
        let mut a = ca(&FitParams::default(), 100, 1);
        let mut b = ca(&FitParams::default(), 100, 1);
        a.cc.attach(&pool);
        b.cc.attach(&pool);
        a.set_rtt_ms(150);
        a.round();
        a.loss();
        assert_eq!((a.cc.alpha_q16, pool.alpha_q16()), (21845, Some(21845)));
        b.set_rtt_ms(125);
        b.round();
        b.loss();
        assert_eq!((b.cc.alpha_q16, pool.alpha_q16()), (17476, Some(17476)));
        // A connection that closes leaves the mean; a clone is one more connection.
        let c = b.cc.clone();
        assert_eq!(pool.alpha_q16(), Some((21845 + 2 * 13107) / 3));
        drop(c);
        drop(a);
        assert_eq!(pool.alpha_q16(), Some(13107));
        // Unshared (or fixed α) connections keep their own value and never join.
        let mut own = ca(
            &FitParams {
                alpha_shared: false,
                ..Default::default()
            },
            100,
            1,
        );
        own.cc.attach(&pool);
        own.set_rtt_ms(150);
        own.round();
        own.loss();
        assert_eq!((own.cc.alpha_q16, pool.alpha_q16()), (21845, Some(13107)));
        let mut fixed = ca(&fixed_alpha(0.5), 100, 1);
        fixed.cc.attach(&pool);
        assert!(fixed.cc.pool.is_none());
    }

    #[test]
    fn fixed_n_is_not_updated() {
        let mut h = ca(
            &FitParams {
                n_fixed: 5,
                alpha_auto: false,
                ..Default::default()
            },
            100,
            5,
        );
        h.set_rtt_ms(300);
        h.round();
        h.loss();
        assert_eq!(h.cc.n, 5);
    }

    #[test]
    fn timeout_uses_beta_and_keeps_n() {
        let mut h = ca(&fixed_alpha(0.5), 700, 3);
        h.set_rtt_ms(120);
        h.round();
        h.timeout();
        // 700 → 702 in the round (as above), ⌊702·8/10⌋ = 561; N: 60 = 60 → 3.
        assert_eq!((h.cwnd(), h.ssthresh(), h.cc.n), (1, 561, 3));
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::CcParams::with("tcp-fit", &[("alpha_auto", 0.0), ("alpha", 0.3)]).unwrap();
        assert_eq!(p.name(), "fit");
        assert!(crate::CcParams::with("fit", &[("alpha", 1.0)]).is_err());
    }

    #[test]
    fn no_samples_during_recovery() {
        let mut h = ca(&fixed_alpha(0.5), 100, 1);
        h.fast_retransmit();
        h.send(10);
        h.set_rtt_ms(50);
        h.ack_all();
        assert_eq!((h.cc.lfp_cnt, h.cc.rtt_min_us), (0, 100_000));
    }
}
