//! Lachlan Andrew's Linux CTCP: `ctcp-la` ([`CtcpLa`]), Compound TCP
//! ([`Ctcp`]) with the choices of his Linux module as parameters.
//!
//! [LA13] = `tcp_compound.c` "Release 1.3" (Apr 2008, Linux 2.6.14+ and NS-2
//! TCP-Linux; netlab.caltech.edu/lachlan/ctcp), the CTCP TCP-FIT (INFOCOM 2011
//! §VI) compared against ("Caltech Linux CTCP", version not stated; 1.3 was
//! current). Its module parameters are [`CtcpLaParams`]: LOG_ALPHA = 3 (α = 1/8),
//! ETA = 1 (ζ), GAMMA = 30, GAMMA_LOW = 5, GAMMA_HIGH = 30, LAMBDA_SHIFT = 2
//! (λ = 1/4), LOW_WINDOW = 38, PACE_DWND = 1. The rest is fixed in its code
//! and maps onto [`CtcpParams`] (`From<&CtcpLaParams> for CtcpParams`):
//! - every ACK's RTT sample (`sample_interval_us = 0`); the round's *minimum*
//!   (`rtt_min_filter`) if more than 2 samples (`min_samples = 2`);
//! - win in diff and in α·win^0.75 = `old_wnd`, the segments sent in the round
//!   that the ACKs of the round just ended acknowledged (`win_sent`);
//! - γ tuning at each loss (`gamma_tube`), from the Reno part's own backlog
//!   diff_reno = beg_cwnd·(RTT − baseRTT)/RTT of the last measured round
//!   (beg_cwnd = cwnd when that round began): g = ⌊¾·diff_reno⌋,
//!   γ ← γ + ⌊(g − γ)·λ⌋ in whole packets, clipped to [GAMMA_LOW, GAMMA_HIGH];
//!   one step per measured round (diff_reno is spent by a loss and cleared by a
//!   restart); γ starts at GAMMA = GAMMA_HIGH, so it only moves down and back;
//! - paced increase (`pace_dwnd`): the round's increase inc is not added at the
//!   round end but one segment per ⌊win/(2·inc)⌋ + 1 ACKs ("factor of 2 for
//!   delayed ACKs"); what is still pending at the next round end is added
//!   there; a decrease cancels nothing because the pending part was just added;
//! - on loss, ssthresh = snd_cwnd/2 and the reduction is shared between cwnd
//!   and dwnd in proportion (here: cwnd/2 and win/2 − cwnd/2, the same at β = 1/2
//!   up to one segment of rounding).
//!
//! Where hscc's `ctcp-la` departs from [LA13]'s code: w^0.75 by the
//! fixed point of [`Ctcp`] (LA: w/⌊√(⌊√w⌋·2^16)⌋·2^8, up to a few % larger for non-square
//! w); diff in 1/256 packet (LA: 1/2); after a recovery the first round's
//! `old_wnd` and `beg_cwnd` are taken at the restart (LA's `ctcp_enable` keeps
//! the pre-recovery edges, so that round spans the recovery); pending increments
//! are cleared once added (LA leaves `dwnd_left` set in the branches that do not
//! overwrite it — increase 0, ≤ 2 samples, low window — and adds it again);
//! rounds restart around Recovery/Loss only (LA also on Disorder → Open); no
//! re-initialisation (γ = GAMMA, dwnd = 0) on `TX_START` (bulk senders never
//! go idle); undo restores the pre-loss split (LA has no `undo_cwnd`).
//!
//! [LA13]: CtcpLa

use super::{Ctcp, CtcpParams};
use crate::ops::{AckSample, CaEvent, CaState, CongestionOps, TcpCc};

crate::params! {
    /// Parameters of Lachlan Andrew's Linux CTCP ([LA13]): its module parameters.
    ///
    /// [LA13]: CtcpLa
    pub struct CtcpLaParams {
        /// α: scale of the increase α·win^0.75 per round.
        alpha: f64 = 0.125, [0.0, 8.0], "[LA13] LOG_ALPHA = 3 (α = 1/8)";
        /// ζ: dwnd shrinks by ζ·diff per round when diff ≥ γ.
        zeta: f64 = 1.0, [0.0, 16.0], "[LA13] ETA = 1";
        /// γ at the start of the connection (packets).
        gamma: f64 = 30.0, [0.0, 1000000.0], "[LA13] GAMMA = 30";
        /// Lower clip of the γ tuning (packets).
        gamma_min: f64 = 5.0, [0.0, 1000000.0], "[LA13] GAMMA_LOW = 5";
        /// Upper clip of the γ tuning (packets); γ_min = γ_max = γ fixes γ.
        gamma_max: f64 = 30.0, [0.0, 1000000.0], "[LA13] GAMMA_HIGH = 30";
        /// log2(1/λ), the forgetting factor of the γ tuning.
        gamma_lambda_shift: u32 = 2, [0, 16], "[LA13] LAMBDA_SHIFT = 2 (λ = 1/4)";
        /// The delay component is used only when win ≥ lowwnd (segments).
        lowwnd: u32 = 38, [0, 1000000000], "[LA13] LOW_WINDOW = 38";
        /// Spread the per-round dwnd increase over the next round's ACKs.
        pace_dwnd: bool = true, [0, 1], "[LA13] PACE_DWND = 1";
    }
    order { gamma_min <= gamma_max; }
}

impl From<&CtcpLaParams> for CtcpParams {
    /// [LA13] in terms of the paper's algorithm: every ACK's RTT sample, the
    /// minimum RTT of a round with more than 2 samples, win = the segments
    /// sent in the measured round, TUBE-style γ tuning, paced increase.
    ///
    /// [LA13]: CtcpLa
    fn from(p: &CtcpLaParams) -> CtcpParams {
        CtcpParams {
            alpha: p.alpha,
            zeta: p.zeta,
            gamma: p.gamma,
            lowwnd: p.lowwnd,
            min_samples: 2,
            rtt_min_filter: true,
            sample_interval_us: 0,
            gamma_tube: true,
            gamma_min: p.gamma_min,
            gamma_max: p.gamma_max,
            gamma_lambda_shift: p.gamma_lambda_shift,
            pace_dwnd: p.pace_dwnd,
            win_sent: true,
            ..CtcpParams::default()
        }
    }
}

/// Lachlan Andrew's Linux CTCP ("LA13": `tcp_compound.c` release 1.3), the
/// CTCP that TCP-FIT (INFOCOM 2011 §VI) compared against: [`Ctcp`] with the
/// parameters of [`CtcpLaParams`] mapped by `From<&CtcpLaParams>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtcpLa(Ctcp);

impl CtcpLa {
    /// The CTCP state inside.
    pub fn ctcp(&self) -> &Ctcp {
        &self.0
    }
}

impl CongestionOps for CtcpLa {
    const NAME: &'static str = "ctcp-la";
    type Params = CtcpLaParams;

    fn new(p: &CtcpLaParams) -> Self {
        CtcpLa(Ctcp::new(&p.into()))
    }
    /// [`Ctcp`]'s globals: bpf/ctcp-la.bpf.c is bpf/ctcp.bpf.c under another name.
    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        self.0.bpf_globals()
    }
    fn init(&mut self, tp: &mut TcpCc) {
        self.0.init(tp)
    }
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        self.0.ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        self.0.cong_avoid(tp, ack, acked)
    }
    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        self.0.set_state(tp, new_state)
    }
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        self.0.cwnd_event(tp, ev)
    }
    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        self.0.pkts_acked(tp, s)
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        self.0.undo_cwnd(tp)
    }
}

crate::cc_property_suite!(ctcp_la_properties, CtcpLa);
crate::cc_property_suite!(
    ctcp_la_fixed_gamma_unpaced_properties,
    CtcpLa,
    CtcpLaParams {
        gamma_min: 30.0,
        pace_dwnd: false,
        ..Default::default()
    }
);

#[cfg(test)]
mod tests {
    use super::super::tests::{ca, close_round, measure, split};
    use super::*;

    /// [LA13] as `CtcpParams`, with `pace_dwnd` as given.
    fn la(pace_dwnd: bool) -> CtcpParams {
        CtcpParams::from(&CtcpLaParams {
            pace_dwnd,
            ..Default::default()
        })
    }

    #[test]
    fn la_paces_the_increase_over_the_next_round() {
        // [LA13]: the round of 100 segments (every ACK sampled, minimum RTT
        // 100 ms = baseRTT) ends with diff 0 and an increase of
        // ⌊100^0.75/8⌋ − 1 = 2 (100 = the segments sent in the round), which
        // is not added at once but one +1 per ⌊101/(2·2)⌋ + 1 = 26 ACKs.
        let mut h = ca(&la(true), 100, 0);
        measure(&mut h, |_| 100);
        assert_eq!(split(&h), (101, 0, 101));
        close_round(&mut h, 100);
        assert_eq!(split(&h), (101, 0, 101));
        for (acks, dwnd) in [(25, 0), (1, 1), (25, 1), (1, 2), (48, 2)] {
            h.ack_each(acks, 1);
            assert_eq!(split(&h), (101, dwnd, 101 + dwnd), "after {acks} more ACKs");
        }
        // Unpaced, the same round adds both segments at its end.
        let mut h = ca(&la(false), 100, 0);
        measure(&mut h, |_| 100);
        close_round(&mut h, 100);
        assert_eq!(split(&h), (101, 2, 103));
    }
    #[test]
    fn la_adds_what_pacing_left_at_the_round_end() {
        // 5 segments per ACK: the 100 segments of the round come in 20 ACKs,
        // the closing one is the 21st, never more than 25, so no paced +1 was
        // applied; the round end adds both pending segments, then schedules
        // the next increase: ⌊101^0.75/8⌋ − 1 = 2 for the 101 sent.
        let mut h = ca(&la(true), 100, 0);
        measure(&mut h, |_| 100);
        close_round(&mut h, 100);
        h.ack_each(20, 5);
        // The Reno part: 1 + 20·5 = 101 ≥ 101 segments acknowledged → 102.
        assert_eq!(split(&h), (102, 0, 102));
        close_round(&mut h, 100);
        assert_eq!(split(&h), (102, 2, 104));
        assert_eq!((h.cc.dwnd_left, h.cc.incr_interval), (2, 102 / 4));
    }
    #[test]
    fn win_is_the_nominal_window_or_the_segments_sent() {
        // After an unpaced +2 (101, 2, 103), the next round measures the 101
        // segments sent at (101, 0). At RTT 142 ms (baseRTT 100 ms) the sent
        // window gives diff = 101·42/142 = 29.87 < 30: +⌊101^0.75/8⌋ − 1 = 2;
        // the nominal window 103 gives 30.46 ≥ 30: (2 − 30)⁺ = 0.
        for (win_sent, dwnd) in [(true, 4), (false, 0)] {
            let p = CtcpParams {
                win_sent,
                ..la(false)
            };
            let mut h = ca(&p, 100, 0);
            measure(&mut h, |_| 100);
            close_round(&mut h, 100);
            assert_eq!(split(&h), (101, 2, 103));
            h.set_rtt_ms(142);
            h.ack_all();
            close_round(&mut h, 142);
            assert_eq!(h.cc.dwnd, dwnd, "win_sent {win_sent}");
        }
    }
    #[test]
    fn la_tunes_gamma_from_the_reno_backlog_at_each_loss() {
        // A round of 200 segments at RTT 125 ms (baseRTT 100 ms): diff =
        // 200·25/125 = 40 ≥ 30 → dwnd 100 − 40 = 60; the Reno part's backlog
        // diff_reno = 100·25/125 = 20. At the loss g = ⌊¾·20⌋ = 15 and
        // γ = 30 + ⌊(15 − 30)/4⌋ = 30 − 4 = 26; the window halves (161 → 50 + 30).
        let mut h = ca(&la(false), 100, 100);
        measure(&mut h, |_| 125);
        close_round(&mut h, 125);
        assert_eq!(split(&h), (101, 60, 161));
        h.loss();
        assert_eq!((h.cc.gamma(), split(&h)), (26.0, (50, 30, 80)));
        // No round measured since: the next loss keeps γ.
        h.loss();
        assert_eq!(h.cc.gamma(), 26.0);
        // A backlog of 0 pulls γ down by a quarter of the gap, floored, to γ_min = 5.
        for gamma in [19.0, 14.0, 10.0, 7.0, 5.0, 5.0] {
            h.cc.diff_reno_q8 = Some(0);
            h.loss();
            assert_eq!(h.cc.gamma(), gamma);
        }
        // A large one pushes it up to γ_max = 30: 5 + ⌊(75 − 5)/4⌋ = 22, then 35 → 30.
        for gamma in [22.0, 30.0] {
            h.cc.diff_reno_q8 = Some(100 * 256);
            h.loss();
            assert_eq!(h.cc.gamma(), gamma);
        }
    }
    #[test]
    fn la_is_a_named_variant_with_its_module_defaults() {
        let c = CtcpLa::new(&CtcpLaParams::default());
        let c = c.ctcp();
        assert_eq!(
            (
                c.lowwnd,
                c.min_samples,
                c.rtt_min_filter,
                c.sample_interval_us
            ),
            (38, 2, true, 0)
        );
        assert!(c.gamma_tube && c.pace_dwnd && c.win_sent && !c.gamma_auto);
        assert_eq!(
            (c.gamma(), c.gamma_min_q8, c.gamma_max_q8),
            (30.0, 5 * 256, 30 * 256)
        );
        let p = crate::CcParams::with("ctcp-andrew", &[("gamma_min", 30.0), ("pace_dwnd", 0.0)])
            .unwrap();
        assert_eq!(p.name(), "ctcp-la");
        assert!(crate::CcParams::with("ctcp-la", &[("gamma_min", 31.0)]).is_err());
        // The paper's default stays the paper's.
        let c = Ctcp::new(&CtcpParams::default());
        assert!(!c.gamma_tube && !c.pace_dwnd && !c.win_sent);
    }
}
