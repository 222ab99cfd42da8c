//! Responding to loss (draft-ietf-ccwg-bbr-06 §5.3.1.3, §5.5.10, §5.5.11):
//! the loss-rate test against BBR.LossThresh, the long-term bound a probe
//! that went too high leaves, the short-term bounds cut once per lossy round
//! outside probing, STARTUP's exit on high loss, and the undo of a spurious
//! recovery. Also the estimate of RS.tx_in_flight and RS.lost for a stack
//! whose rate sample does not carry them (a mainline kernel's).

use super::{pct, Bbr3, Sample, State, INF, PERCENT};
use crate::ops::{before, CaState, RateSample, TcpCc};

impl Bbr3 {
    /// RS.tx_in_flight and RS.lost for the packet this ACK samples (P, sent
    /// when C.delivered was `rs.prior_delivered`); (0, 0) when it delivered none.
    ///
    /// P.lost is C.lost when P left. C.lost is known at the last two round
    /// starts (marks); between them it is interpolated linearly in
    /// C.delivered, exact when losses are spread evenly over the round.
    /// C.inflight at P's send is what has since been delivered or marked lost
    /// of the flight then: RS.delivered + RS.lost (FIFO delivery; a hole not
    /// yet marked lost is missed).
    pub(super) fn estimate_tx_in_flight_and_lost(
        &mut self,
        tp: &TcpCc,
        rs: &RateSample,
    ) -> (u32, u32) {
        if rs.delivered <= 0 {
            return (0, 0);
        }
        let p_lost = self.lost_at(rs.prior_delivered);
        let lost = tp.lost.wrapping_sub(p_lost);
        if !before(rs.prior_delivered, self.lost_mark_next) {
            self.lost_marks = [self.lost_marks[1], (tp.delivered, tp.lost)];
            self.lost_mark_next = tp.delivered;
        }
        ((rs.delivered as u32).saturating_add(lost), lost)
    }

    /// C.lost when C.delivered was `d`, from the marks.
    fn lost_at(&self, d: u32) -> u32 {
        let [(d0, l0), (d1, l1)] = self.lost_marks;
        if !before(d, d1) {
            return l1;
        }
        if before(d, d0) || d1 == d0 {
            return l0;
        }
        let span = d1.wrapping_sub(d0) as u64;
        let into = d.wrapping_sub(d0) as u64;
        l0.wrapping_add((l1.wrapping_sub(l0) as u64 * into / span) as u32)
    }

    /// IsInflightTooHigh (§5.5.10.2): RS.lost > RS.tx_in_flight · LossThresh.
    /// C.has_selective_acks is taken as true (hscc's senders use SACK).
    pub fn is_inflight_too_high(&self, s: &Sample) -> bool {
        s.lost as u64 * PERCENT as u64 > s.tx_in_flight as u64 * self.params().loss_thresh as u64
    }

    /// InflightAtLoss (§5.5.10.2) for a burst of `size` lost packets: the
    /// flight at which the loss rate crossed LossThresh within the burst.
    pub fn inflight_at_loss(&self, s: &Sample, size: u32) -> u32 {
        let thresh = self.params().loss_thresh as i64;
        let size = size.min(s.lost) as i64;
        let inflight_prev = s.tx_in_flight as i64 - size;
        let lost_prev = s.lost as i64 - size;
        // Negative when the rate had crossed the threshold before the burst.
        let lost_prefix =
            (thresh * inflight_prev - PERCENT as i64 * lost_prev) / (PERCENT as i64 - thresh);
        (inflight_prev + lost_prefix).clamp(0, INF as i64 - 1) as u32
    }

    /// TargetInflight (§5.3.3.8.3): the BDP, unless congestion cut cwnd.
    pub fn target_inflight(&self, tp: &TcpCc) -> u32 {
        self.bdp_multiple(self.bw, PERCENT).min(tp.snd_cwnd)
    }

    /// HandleLostPacket (§5.5.10.2) for a lost packet P of `size` packets
    /// whose sample is `s` (RS.tx_in_flight, RS.lost) and app-limited mark
    /// `is_app_limited`.
    pub(super) fn handle_lost_packet(
        &mut self,
        tp: &mut TcpCc,
        s: &Sample,
        size: u32,
        is_app_limited: bool,
    ) {
        self.note_loss(tp);
        if !self.is_bw_probe_sample {
            return; // not a packet sent while probing bandwidth
        }
        if self.is_inflight_too_high(s) {
            let tx_in_flight = self.inflight_at_loss(s, size);
            self.handle_inflight_too_high(tp, is_app_limited, tx_in_flight);
        }
    }

    /// HandleInflightTooHigh (§5.5.10.2): react once per probe.
    pub(super) fn handle_inflight_too_high(
        &mut self,
        tp: &mut TcpCc,
        is_app_limited: bool,
        tx_in_flight: u32,
    ) {
        self.prev_probe_too_high = true;
        self.is_bw_probe_sample = false;
        if !is_app_limited {
            let floor = pct(self.target_inflight(tp), self.params().beta);
            self.inflight_longterm = tx_in_flight.max(floor);
        }
        if self.state == State::ProbeBwUp {
            self.undo_state = Some(State::ProbeBwUp);
            self.start_probe_bw_down(tp);
        }
    }

    /// NoteLoss (§5.5.10.2): the first loss of a round starts the loss round.
    pub(super) fn note_loss(&mut self, tp: &TcpCc) {
        if !self.is_loss_in_round {
            self.loss_round_delivered = tp.delivered;
            self.save_state_upon_loss(tp);
        }
        self.is_loss_in_round = true;
    }

    /// SaveStateUponLoss (§5.5.11.1).
    pub(super) fn save_state_upon_loss(&mut self, tp: &TcpCc) {
        self.save_cwnd(tp);
        self.undo_state = None;
        self.undo_bw_shortterm = self.bw_shortterm;
        self.undo_inflight_shortterm = self.inflight_shortterm;
        self.undo_inflight_longterm = self.inflight_longterm;
    }

    /// HandleSpuriousLossDetection (§5.5.11.2).
    pub(super) fn handle_spurious_loss_detection(&mut self, tp: &mut TcpCc) {
        self.restore_cwnd(tp);
        self.is_loss_in_round = false;
        self.reset_full_bw();
        self.bw_shortterm = self.bw_shortterm.max(self.undo_bw_shortterm);
        self.inflight_shortterm = self.inflight_shortterm.max(self.undo_inflight_shortterm);
        self.inflight_longterm = self.inflight_longterm.max(self.undo_inflight_longterm);
        match self.undo_state {
            Some(State::Startup) if self.state != State::Startup => {
                self.full_bw_reached = false;
                if self.state != State::ProbeRtt {
                    self.enter_startup();
                }
            }
            Some(State::ProbeBwUp)
                if self.state != State::ProbeBwUp && self.state != State::ProbeRtt =>
            {
                self.start_probe_bw_refill(tp);
            }
            _ => {}
        }
        self.undo_state = None;
    }

    /// CheckStartupHighLoss (§5.3.1.3), which the draft gives in prose only:
    /// at the end of a loss round spent in fast recovery, with at least
    /// BBRStartupFullLossCnt ACKs that marked losses in it and the loss rate
    /// above LossThresh, the pipe is full.
    pub(super) fn check_startup_high_loss(&mut self, tp: &TcpCc, s: &Sample) {
        if !self.loss_round_start {
            return;
        }
        if self.state == State::Startup
            && !self.full_bw_reached
            && tp.ca_state == CaState::Recovery
            && self.loss_events_in_round >= self.params().startup_full_loss_cnt
            && self.is_inflight_too_high(s)
        {
            self.undo_state = Some(State::Startup);
            // §5.3.1.3 names full_bw_reached; the test appendix (A.2) expects
            // full_bw_now too, which only UP reads (and UP's start resets).
            self.full_bw_now = true;
            self.full_bw_reached = true;
            self.inflight_longterm = self
                .bdp_multiple(self.bw, PERCENT)
                .max(self.inflight_latest);
        }
        self.loss_events_in_round = 0;
    }

    /// UpdateLatestDeliverySignals (§5.5.10.3), near the start of an ACK.
    pub(super) fn update_latest_delivery_signals(
        &mut self,
        tp: &TcpCc,
        rs: &RateSample,
        s: &Sample,
    ) {
        self.loss_round_start = false;
        self.bw_latest = self.bw_latest.max(s.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(s.delivered);
        if rs.delivered > 0 && !before(rs.prior_delivered, self.loss_round_delivered) {
            self.loss_round_delivered = tp.delivered;
            self.loss_round_start = true;
        }
    }

    /// AdvanceLatestDeliverySignals (§5.5.10.3), near the end of an ACK.
    pub(super) fn advance_latest_delivery_signals(&mut self, s: &Sample) {
        if self.loss_round_start {
            self.bw_latest = s.delivery_rate;
            self.inflight_latest = s.delivered;
        }
    }

    /// ResetCongestionSignals (§5.5.10.3).
    pub(super) fn reset_congestion_signals(&mut self) {
        self.is_loss_in_round = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// ResetShortTermModel (§5.5.10.3).
    pub(super) fn reset_short_term_model(&mut self) {
        self.bw_shortterm = INF;
        self.inflight_shortterm = INF;
    }

    /// UpdateCongestionSignals (§5.5.10.3): once per loss round, adapt.
    pub(super) fn update_congestion_signals(&mut self, tp: &TcpCc, rs: &RateSample, s: &Sample) {
        self.update_max_bw(tp, rs, s);
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds_from_congestion(tp);
        self.is_loss_in_round = false;
    }

    /// AdaptLowerBoundsFromCongestion (§5.5.10.3): outside probing, a round
    /// with loss cuts the short-term bounds to max(latest, β · bound).
    fn adapt_lower_bounds_from_congestion(&mut self, tp: &TcpCc) {
        if self.is_probing_bw() || !self.is_loss_in_round {
            return;
        }
        // InitLowerBounds: the first congestion of this cycle.
        if self.bw_shortterm == INF {
            self.bw_shortterm = self.max_bw.get();
        }
        if self.inflight_shortterm == INF {
            self.inflight_shortterm = tp.snd_cwnd;
        }
        // LossLowerBounds.
        let beta = self.params().beta;
        self.bw_shortterm = self.bw_latest.max(pct(self.bw_shortterm, beta));
        self.inflight_shortterm = self.inflight_latest.max(pct(self.inflight_shortterm, beta));
    }
}
