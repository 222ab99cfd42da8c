//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion Avoidance
//! on a Global Internet", IEEE JSAC 13(8), 1995; Linux `tcp_vegas.c`).
//!
//! Once per round (the data sent when the round began, `beg_snd_nxt`, is
//! acknowledged), with RTT = the smallest sample of the round and baseRTT = the
//! smallest sample ever (each sample + 1 µs, so neither is ever 0):
//!
//! - diff = cwnd·(RTT − baseRTT)/baseRTT, the segments queued in the network
//!   (Linux's form, `tcp_vegas.c`; the paper's is `paper_diff`, below);
//! - congestion avoidance: diff < α → cwnd + 1; diff > β → cwnd − 1 and
//!   ssthresh ≤ cwnd; otherwise hold;
//! - slow start (Reno's, every RTT): once diff > γ, leave it with
//!   cwnd = min(cwnd, cwnd·baseRTT/RTT + 1) and ssthresh = cwnd;
//! - then cwnd ∈ [2, clamp] and ssthresh = max(ssthresh, ¾·cwnd)
//!   (Linux `tcp_current_ssthresh`).
//!
//! A round with ≤ 2 RTT samples (likely all from delayed ACKs) is Reno's.
//! Vegas runs only in the Open state and restarts (fresh round, baseRTT
//! forgotten) on entering Open and on an idle restart (`TxStart`,
//! `CwndRestart`). Loss: Reno (`tcp_reno_ssthresh`, `tcp_reno_undo_cwnd`).
//!
//! Constants: α = 2, β = 4, γ = 1 segments (Linux module defaults, also
//! ns-3's; the paper used α = 1, β = 3).
//!
//! [`RttRound`] is the per-round RTT bookkeeping, reused by Veno.
//!
//! Two readings other than Linux's, off by default: `paper_diff` takes the
//! paper's Diff = (Expected − Actual)·BaseRTT = cwnd − cwnd·BaseRTT/RTT (ns-3's
//! too), and `smoothed_rtt` feeds the smoothed RTT of every ACK, duplicates
//! included, to the round's minimum and baseRTT instead of each ACK's sample
//! (ns-3: `TcpSocketBase` passes `m_srtt` to `PktsAcked`, and calls it with one
//! segment on a duplicate ACK).
//!
//! # Deviations from the paper / from Linux
//! - From the paper, as Linux: the actual rate comes from ACK arrivals, slow
//!   start grows every RTT (not every other), diff uses baseRTT as denominator
//!   (the paper's "extra buffers" divide by RTT), and there is no
//!   fine-grained-timer retransmission.
//! - From Linux: diff and the target window are computed in 64 bits (Linux's
//!   `cwnd·(RTT − baseRTT)` is a u32 product); the sample counter saturates.
//! - From Linux: ssthresh is at least 2 where Linux leaves 1, on the two paths
//!   that cut it to cwnd: slow start left at cwnd 1 (after a timeout), and
//!   congestion avoidance shrinking cwnd 2 to 1 (diff > β). Linux sets
//!   ssthresh = min(ssthresh, cwnd) = 1 there and then forces cwnd to 2
//!   (`tcp_current_ssthresh`'s ¾·2 = 1 does not raise it); every other path
//!   keeps ssthresh ≥ 2 (`tcp_reno_ssthresh`). The window is the same either
//!   way: cwnd stays ≥ 2, so it is not below ssthresh 1 or 2, and a loss or
//!   timeout replaces ssthresh before cwnd can drop to 1.

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_slow_start};
use crate::ops::{after, AckSample, CaEvent, CaState, CongestionOps, TcpCc};

crate::params! {
    /// TCP Vegas parameters (segments queued in the network).
    pub struct VegasParams {
        /// α: below this many queued segments, grow cwnd by 1 per RTT.
        alpha: u32 = 2, [0, 1000], "Linux tcp_vegas.c (paper §3.2: 1)";
        /// β: above this many queued segments, shrink cwnd by 1 per RTT (keep β ≥ α).
        beta: u32 = 4, [0, 1000], "Linux tcp_vegas.c (paper §3.2: 3)";
        /// γ: leave slow start once more than this many segments are queued.
        gamma: u32 = 1, [0, 1000], "Linux tcp_vegas.c (paper §3.3)";
        /// Diff = cwnd − cwnd·baseRTT/RTT (the paper's, ns-3's) instead of Linux's cwnd·(RTT − baseRTT)/baseRTT.
        paper_diff: bool = false, [0, 1], "Brakmo & Peterson 1995 §3.2 Diff = (Expected − Actual)·BaseRTT; ns-3 tcp-vegas.cc; Linux tcp_vegas.c divides by baseRTT";
        /// Take the smoothed RTT on every ACK (ns-3) instead of each ACK's RTT sample (Linux).
        smoothed_rtt: bool = false, [0, 1], "ns-3 tcp-socket-base.cc PktsAcked(m_tcb, segsAcked, m_tcb->m_srtt); Linux tcp_vegas_pkts_acked takes the sample";
    }
    order { alpha <= beta; }
}

/// "No sample yet" for RTT minima, as Linux's `0x7fffffff`.
pub const RTT_NONE: u32 = 0x7fff_ffff;

/// Per-round RTT bookkeeping of Linux Vegas (also Veno's, CTCP's): the
/// minimum RTT ever, the minimum and count of the current round, and the
/// sequence number that ends the round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttRound {
    /// Smallest RTT sample ever + 1, µs (baseRTT).
    pub base_rtt: u32,
    /// Smallest RTT sample + 1 in the current round, µs.
    pub min_rtt: u32,
    /// RTT samples taken in the current round.
    pub cnt_rtt: u32,
    /// `snd_nxt` when the current round began (bytes, wrapping).
    pub beg_snd_nxt: u32,
}

impl Default for RttRound {
    fn default() -> Self {
        RttRound {
            base_rtt: RTT_NONE,
            min_rtt: RTT_NONE,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
        }
    }
}

impl RttRound {
    /// Take one RTT sample (Linux `tcp_vegas_pkts_acked`); `rtt_us < 0` is no sample.
    #[inline]
    pub fn sample(&mut self, rtt_us: i32) {
        if rtt_us < 0 {
            return;
        }
        // Never allow a zero RTT or baseRTT.
        let vrtt = (rtt_us as u32).saturating_add(1);
        self.base_rtt = self.base_rtt.min(vrtt);
        self.min_rtt = self.min_rtt.min(vrtt);
        self.cnt_rtt = self.cnt_rtt.saturating_add(1);
    }

    /// Begin a round now: it ends when data sent from now on is acknowledged.
    #[inline]
    pub fn start(&mut self, snd_nxt: u32) {
        self.beg_snd_nxt = snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = RTT_NONE;
    }

    /// Whether `ack` ends the current round.
    #[inline]
    pub fn ended(&self, ack: u32) -> bool {
        after(ack, self.beg_snd_nxt)
    }
}

/// TCP Vegas state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vegas {
    /// α, segments.
    alpha: u32,
    /// β, segments.
    beta: u32,
    /// γ, segments.
    gamma: u32,
    /// The paper's Diff (cwnd − target) instead of Linux's.
    paper_diff: bool,
    /// Sample the smoothed RTT on every ACK instead of the ACK's RTT.
    smoothed_rtt: bool,
    /// Whether the per-round logic runs (Open state).
    doing_vegas_now: bool,
    /// RTT samples and round boundary.
    pub round: RttRound,
}

impl Vegas {
    /// Linux `vegas_enable`: start a fresh round.
    fn enable(&mut self, tp: &TcpCc) {
        self.doing_vegas_now = true;
        self.round.start(tp.snd_nxt);
    }

    /// Linux `tcp_vegas_init`: also forget baseRTT.
    fn restart(&mut self, tp: &TcpCc) {
        self.round.base_rtt = RTT_NONE;
        self.enable(tp);
    }

    /// The once-per-round decision from a round with > 2 samples.
    fn adjust(&mut self, tp: &mut TcpCc, acked: u32) {
        let rtt = self.round.min_rtt as u64;
        let base = self.round.base_rtt as u64;
        let cwnd = tp.snd_cwnd as u64;
        // Window that would have given the actual rate at baseRTT, and the
        // segments queued beyond it.
        let target = cwnd * base / rtt;
        let diff = if self.paper_diff {
            cwnd - target
        } else {
            cwnd * (rtt - base) / base
        };

        if diff > self.gamma as u64 && tp.in_slow_start() {
            // Too fast: match the actual rate (+1 for the truncation) and
            // continue in congestion avoidance.
            tp.snd_cwnd = tp.snd_cwnd.min((target + 1).min(u32::MAX as u64) as u32);
            tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd).max(2); // Linux can leave 1 here (see Deviations)
        } else if tp.in_slow_start() {
            tcp_slow_start(tp, acked);
        } else if diff > self.beta as u64 {
            tp.snd_cwnd -= 1;
            tp.snd_ssthresh = tp.snd_ssthresh.min(tp.snd_cwnd).max(2); // Linux can leave 1 here (see Deviations)
        } else if diff < self.alpha as u64 {
            tp.snd_cwnd += 1;
        }
        tp.snd_cwnd = tp.snd_cwnd.clamp(2, tp.snd_cwnd_clamp.max(2));
        tp.snd_ssthresh = tcp_current_ssthresh(tp);
    }
}

/// Linux `tcp_current_ssthresh` outside a window reduction: max(ssthresh, ¾·cwnd).
#[inline]
fn tcp_current_ssthresh(tp: &TcpCc) -> u32 {
    if matches!(tp.ca_state, CaState::Cwr | CaState::Recovery) {
        return tp.snd_ssthresh;
    }
    tp.snd_ssthresh.max((tp.snd_cwnd >> 1) + (tp.snd_cwnd >> 2))
}

impl CongestionOps for Vegas {
    const NAME: &'static str = "vegas";
    type Params = VegasParams;

    fn new(p: &VegasParams) -> Self {
        Vegas {
            alpha: p.alpha,
            beta: p.beta,
            gamma: p.gamma,
            paper_diff: p.paper_diff,
            smoothed_rtt: p.smoothed_rtt,
            doing_vegas_now: true,
            round: RttRound::default(),
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("alpha", self.alpha.into()),
            ("beta", self.beta.into()),
            ("gamma", self.gamma.into()),
            ("paper_diff", self.paper_diff.into()),
            ("smoothed_rtt", self.smoothed_rtt.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.restart(tp);
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        if !self.smoothed_rtt {
            self.round.sample(sample.rtt_us);
        } else if tp.srtt_us > 0 {
            self.round
                .sample((tp.srtt_us >> 3).min(i32::MAX as u32) as i32);
        }
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable(tp);
        } else {
            self.doing_vegas_now = false;
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        if matches!(ev, CaEvent::CwndRestart | CaEvent::TxStart) {
            self.restart(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        if !self.doing_vegas_now {
            return tcp_reno_cong_avoid(tp, ack, acked);
        }
        if self.round.ended(ack) {
            // Samples of the round just ended decide; the next round ends
            // when what is sent from now on is acknowledged.
            if self.round.cnt_rtt <= 2 {
                // Probably only delayed ACKs: behave as Reno.
                tcp_reno_cong_avoid(tp, ack, acked);
            } else {
                self.adjust(tp, acked);
            }
            self.round.start(tp.snd_nxt);
        } else if tp.in_slow_start() {
            tcp_slow_start(tp, acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// A Vegas flow at cwnd, ssthresh with one clocked round at 100 ms done,
    /// so baseRTT = 100 001 µs and the next round boundary decides on
    /// 100 ms samples.
    fn flow(cwnd: u32, ssthresh: u32) -> Harness<Vegas> {
        let mut h = Harness::with_params(&VegasParams::default(), cwnd);
        h.tp.snd_ssthresh = ssthresh;
        h.set_rtt_ms(100);
        h.clocked_round();
        h
    }

    #[test]
    fn base_rtt_is_the_minimum_sample_plus_one() {
        let mut h = flow(10, 10);
        assert_eq!(h.cc.round.base_rtt, 100_001);
        h.set_rtt_ms(80);
        h.clocked_round();
        h.set_rtt_ms(120);
        h.clocked_round();
        assert_eq!(h.cc.round.base_rtt, 80_001);
    }

    // In each case below the first round after the RTT change still decides
    // on the 100 ms samples of the round before (diff = 0 < α: 20 → 21); the
    // next one sees the new RTT at cwnd 21 and baseRTT 100 001.

    #[test]
    fn holds_when_backlog_between_alpha_and_beta() {
        let mut h = flow(20, 20);
        h.set_rtt_ms(115);
        h.clocked_round();
        assert_eq!(h.cwnd(), 21);
        // diff = 21·15000/100001 = 3.15 → 3 ∈ [2, 4]: hold.
        h.clocked_rounds(2);
        assert_eq!(h.cwnd(), 21);
    }

    #[test]
    fn grows_by_one_per_round_below_alpha() {
        let mut h = flow(20, 20);
        h.set_rtt_ms(105);
        h.clocked_round();
        assert_eq!(h.cwnd(), 21);
        // diff = 21·5000/100001 = 1.05 → 1 < 2: +1; then 22·5000/100001 → 1: +1.
        h.clocked_round();
        assert_eq!(h.cwnd(), 22);
        h.clocked_round();
        assert_eq!(h.cwnd(), 23);
    }

    #[test]
    fn shrinks_by_one_per_round_above_beta_then_holds() {
        let mut h = flow(20, 20);
        h.set_rtt_ms(125);
        h.clocked_round();
        assert_eq!(h.cwnd(), 21);
        // diff = 21·25000/100001 = 5.25 → 5 > 4: −1, ssthresh = min(20, 20)
        // then max(20, 10 + 5) = 20.
        h.clocked_round();
        assert_eq!((h.cwnd(), h.ssthresh()), (20, 20));
        // diff = 20·25000/100001 = 4.9999 → 4: hold.
        h.clocked_round();
        assert_eq!(h.cwnd(), 20);
    }

    #[test]
    fn leaves_slow_start_once_diff_exceeds_gamma() {
        // Slow start: +1 per ACK, so the window doubles per clocked round.
        let mut h = flow(10, crate::ops::TCP_INFINITE_SSTHRESH);
        assert_eq!(h.cwnd(), 20);
        h.set_rtt_ms(105);
        h.clocked_round(); // decided on 100 ms samples: diff 0
        assert_eq!(h.cwnd(), 40);
        // diff = 40·5000/100001 = 1.99998 → 1 = γ: not above, keep doubling.
        h.clocked_round();
        assert_eq!(h.cwnd(), 80);
        // diff = 80·5000/100001 = 3.99 → 3 > γ: target = 80·100001/105001
        // = 76.19 → 76, cwnd = min(80, 77) = 77 = ssthresh; then no growth
        // for the rest of the round (congestion avoidance acts per round).
        h.clocked_round();
        assert_eq!((h.cwnd(), h.ssthresh()), (77, 77));
    }

    #[test]
    fn paper_diff_counts_the_backlog_at_the_actual_rate() {
        // cwnd 30, baseRTT 100 001 µs, the round's minimum 116 001 µs. Linux:
        // diff = 30·16000/100001 = 4.8 → 4 ∈ [α, β], hold. The paper's:
        // 30 − ⌊30·100001/116001⌋ = 30 − 25 = 5 > β: −1.
        let decide = |paper_diff: bool| {
            let p = VegasParams {
                paper_diff,
                ..VegasParams::default()
            };
            let mut h: Harness<Vegas> = Harness::with_params(&p, 30);
            h.tp.snd_ssthresh = 30;
            h.cc.round.base_rtt = 100_001;
            h.cc.round.min_rtt = 116_001;
            h.cc.adjust(&mut h.tp, 1);
            h.cwnd()
        };
        assert_eq!(decide(false), 30);
        assert_eq!(decide(true), 29);
    }

    #[test]
    fn smoothed_rtt_samples_the_ewma_on_every_ack() {
        let p = VegasParams {
            smoothed_rtt: true,
            ..VegasParams::default()
        };
        let mut h: Harness<Vegas> = Harness::with_params(&p, 10);
        h.tp.snd_ssthresh = 10;
        h.set_rtt_ms(100);
        h.clocked_round();
        // srtt starts at the first sample, 100 ms: baseRTT 100 001 as with samples.
        assert_eq!(h.cc.round.base_rtt, 100_001);
        // One 200 ms sample moves srtt by 1/8 of the difference: 112.5 ms, which
        // is what the round's minimum and baseRTT see (a sample would give 200 ms).
        h.cc.round.start(h.tp.snd_nxt);
        h.set_rtt_ms(200);
        h.send_all();
        h.advance_ms(200);
        h.ack_each(1, 1);
        assert_eq!(h.cc.round.min_rtt, 112_501);
        // A duplicate ACK (no RTT sample) still counts one more sample of srtt.
        let n = h.cc.round.cnt_rtt;
        h.cc.pkts_acked(
            &mut h.tp,
            &AckSample {
                pkts_acked: 0,
                rtt_us: -1,
                in_flight: 0,
            },
        );
        assert_eq!(h.cc.round.cnt_rtt, n + 1);
    }

    #[test]
    fn rounds_with_two_samples_fall_back_to_reno() {
        // cwnd 2: each round holds 2 ACKs, so Reno's growth applies even
        // though the delay says the queue is large (diff = 2·300000/100001 = 5 > β).
        let mut h = flow(2, 2);
        h.set_rtt_ms(400);
        // Boundary: samples {100 ms, 400 ms} = 2 → Reno, snd_cwnd_cnt 1 → 2 ≥ 2: cwnd 3.
        h.clocked_round();
        assert_eq!(h.cwnd(), 3);
        // Boundary: 2 samples again → Reno, snd_cwnd_cnt 1 of 3.
        h.clocked_round();
        assert_eq!(h.cwnd(), 3);
        // Boundary: 3 samples at 400 ms → Vegas: diff = 3·300000/100001 = 8 > β → 2.
        h.clocked_round();
        assert_eq!((h.cwnd(), h.ssthresh()), (2, 2));
    }

    #[test]
    fn leaving_slow_start_at_cwnd_1_keeps_ssthresh_at_2() {
        // After a timeout cwnd is 1; a round with diff = 1·300000/100001 = 2 > γ = 1
        // leaves slow start: cwnd = min(1, 0 + 1) = 1 → forced to 2, ssthresh 2 (Linux: 1).
        let mut h: Harness<Vegas> = Harness::with_params(&VegasParams::default(), 1);
        h.tp.snd_ssthresh = 10;
        h.cc.round.base_rtt = 100_001;
        h.cc.round.min_rtt = 400_000;
        h.cc.adjust(&mut h.tp, 1);
        assert_eq!((h.cwnd(), h.ssthresh()), (2, 2));
    }

    #[test]
    fn shrinking_to_cwnd_1_in_congestion_avoidance_keeps_ssthresh_at_2() {
        // cwnd 2 = ssthresh (congestion avoidance); baseRTT 100 001 µs from
        // the first ACK, whose round (begun at snd_nxt 0, one sample) is Reno's.
        let mut h: Harness<Vegas> = Harness::with_params(&VegasParams::default(), 2);
        h.tp.snd_ssthresh = 2;
        h.set_rtt_ms(100);
        h.send(2);
        h.advance_ms(100);
        h.ack_each(1, 1);
        assert_eq!((h.cwnd(), h.cc.round.base_rtt), (2, 100_001));
        // The next round ends when segment 3 (sent now) is acknowledged; its
        // three samples are 400 ms: the ACK of segment 2, a duplicate ACK,
        // the ACK of segment 3.
        h.send(1);
        h.set_rtt_ms(400);
        h.advance_ms(400);
        h.ack_each(1, 1);
        h.dupack();
        h.ack_each(1, 1);
        // diff = 2·300000/100001 = 5.99 → 5 > β = 4: cwnd 2 − 1 = 1,
        // ssthresh = min(2, 1) = 1 in Linux, then cwnd forced to 2 and
        // ssthresh = max(ssthresh, 2·3/4 = 1). Here ssthresh stays 2.
        assert_eq!(h.cc.round.cnt_rtt, 0, "the round has ended");
        assert_eq!((h.cwnd(), h.ssthresh()), (2, 2));
    }

    #[test]
    fn idle_restart_forgets_base_rtt_and_recovery_disables() {
        let mut h = flow(10, 10);
        h.cc.cwnd_event(&mut h.tp, CaEvent::TxStart);
        assert_eq!(h.cc.round.base_rtt, RTT_NONE);
        h.fast_retransmit();
        assert!(!h.cc.doing_vegas_now);
        h.end_recovery();
        assert!(h.cc.doing_vegas_now);
    }

    #[test]
    fn loss_is_reno() {
        let mut h = flow(10, 10);
        h.tp.snd_cwnd = 41;
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 20);
    }
}

crate::cc_property_suite!(vegas_properties, Vegas);
