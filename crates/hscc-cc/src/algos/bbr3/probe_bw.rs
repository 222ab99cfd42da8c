//! The PROBE_BW cycle (draft-ietf-ccwg-bbr-06 §5.3.3): DOWN → CRUISE →
//! REFILL → UP → DOWN, and the long-term model it adapts (§5.3.3.9
//! AdaptLongTermModel): BBR.inflight_longterm raised by the flight a
//! loss-free sample shows, and grown by 1, 2, 4, … packets per round while UP
//! is limited by it. Pacing and cwnd gains per phase are the table of §5.6.1.

use super::{draw_below, AckPhase, Bbr3, Sample, State, INF, PERCENT};
use crate::ops::{RateSample, TcpCc};

impl Bbr3 {
    /// EnterProbeBW (§5.3.3.9).
    pub(super) fn enter_probe_bw(&mut self, tp: &mut TcpCc) {
        self.cwnd_gain = self.params().default_cwnd_gain;
        self.start_probe_bw_down(tp);
    }

    /// StartProbeBW_DOWN (§5.3.3.9).
    pub(super) fn start_probe_bw_down(&mut self, tp: &mut TcpCc) {
        self.reset_congestion_signals();
        self.probe_up_acked_per_inc = INF; // not growing inflight_longterm
        self.pick_probe_wait(tp);
        self.cycle_stamp = tp.now_us;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round(tp);
        self.state = State::ProbeBwDown;
        self.pacing_gain = self.params().probe_down_pacing_gain;
        self.cwnd_gain = self.params().default_cwnd_gain;
    }

    /// StartProbeBW_CRUISE (§5.3.3.9).
    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.state = State::ProbeBwCruise;
        self.pacing_gain = PERCENT;
        self.cwnd_gain = self.params().default_cwnd_gain;
    }

    /// StartProbeBW_REFILL (§5.3.3.9): forget the short-term model.
    pub(super) fn start_probe_bw_refill(&mut self, tp: &TcpCc) {
        self.reset_short_term_model();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acked = 0;
        self.prev_probe_precautionary = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round(tp);
        self.state = State::ProbeBwRefill;
        self.pacing_gain = PERCENT;
        self.cwnd_gain = self.params().default_cwnd_gain;
    }

    /// StartProbeBW_UP (§5.3.3.9).
    pub(super) fn start_probe_bw_up(&mut self, tp: &TcpCc, s: &Sample) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round(tp);
        self.reset_full_bw();
        self.full_bw = s.delivery_rate;
        self.state = State::ProbeBwUp;
        self.pacing_gain = self.params().probe_up_pacing_gain;
        self.cwnd_gain = self.params().probe_up_cwnd_gain;
        self.raise_inflight_longterm_slope(tp);
    }

    /// UpdateProbeBWCyclePhase (§5.3.3.9), on an ACK of new data.
    pub(super) fn update_probe_bw_cycle_phase(
        &mut self,
        tp: &mut TcpCc,
        rs: &RateSample,
        s: &Sample,
    ) {
        if !self.full_bw_reached || rs.acked_sacked == 0 {
            return;
        }
        if self.adapt_long_term_model(tp, rs, s) {
            return;
        }
        let state = self.state;
        match state {
            State::ProbeBwDown => {
                if self.is_time_to_probe_bw(tp) {
                    return;
                }
                if self.is_time_to_cruise(tp) {
                    self.start_probe_bw_cruise();
                }
            }
            State::ProbeBwCruise => {
                self.is_time_to_probe_bw(tp);
            }
            // One round of REFILL, then UP.
            State::ProbeBwRefill if self.round_start => {
                self.is_bw_probe_sample = true;
                self.start_probe_bw_up(tp, s);
            }
            _ => {}
        }
        if state == State::ProbeBwUp && self.is_time_to_go_down(tp, s) {
            self.prev_probe_too_high = false; // no high loss (yet)
            self.start_probe_bw_down(tp);
        }
    }

    /// IsTimeToProbeBW (§5.3.3.8.3): the wall-clock wait or the Reno-coexistence
    /// number of rounds has passed; REFILL starts.
    fn is_time_to_probe_bw(&mut self, tp: &TcpCc) -> bool {
        if self.has_elapsed_in_phase(tp, self.bw_probe_wait_us)
            || self.is_reno_coexistence_probe_time(tp)
        {
            self.start_probe_bw_refill(tp);
            return true;
        }
        false
    }

    /// PickProbeWait (§5.3.3.8.3): 0 or 1 rounds already counted, and 2 s
    /// plus a uniform 0–1 s.
    fn pick_probe_wait(&mut self, tp: &mut TcpCc) {
        self.rounds_since_probe_up = draw_below(tp, 2);
        let p = self.params();
        let (base_us, rand_us) = (
            p.bw_probe_wait_base_ms as u64 * 1000,
            p.bw_probe_wait_rand_ms * 1000,
        );
        self.bw_probe_wait_us = base_us + draw_below(tp, rand_us) as u64;
    }

    /// IsRenoCoexistenceProbeTime (§5.3.3.8.3): as many rounds as a Reno flow
    /// needs to grow by the target flight, at most 63. TargetInflight is
    /// read in packets (the draft's text is in bytes, where the count of
    /// rounds would scale with the MSS), as Linux's v3 reads it.
    fn is_reno_coexistence_probe_time(&self, tp: &TcpCc) -> bool {
        let rounds = self.target_inflight(tp).min(self.params().reno_rounds_max);
        self.rounds_since_probe_up >= rounds
    }

    /// HasElapsedInPhase (§5.3.3.9).
    fn has_elapsed_in_phase(&self, tp: &TcpCc, interval_us: u64) -> bool {
        tp.now_us > self.cycle_stamp + interval_us
    }

    /// IsTimeToCruise (§5.3.3.9): headroom left and the queue drained. The
    /// BDP here is at BBR.max_bw, as the pseudocode writes it.
    fn is_time_to_cruise(&self, tp: &TcpCc) -> bool {
        let inflight = tp.packets_in_flight();
        inflight <= self.inflight_with_headroom()
            && inflight <= self.inflight(tp, self.max_bw.get(), PERCENT)
    }

    /// IsTimeToGoDown (§5.3.3.9).
    fn is_time_to_go_down(&mut self, tp: &TcpCc, s: &Sample) -> bool {
        // Precautionary probing: stop at the bound the last probe found too high.
        if self.prev_probe_too_high && tp.packets_in_flight() >= self.inflight_longterm {
            self.prev_probe_precautionary = true;
            return true;
        }
        if tp.is_cwnd_limited && tp.snd_cwnd >= self.inflight_longterm {
            // The bandwidth is limited by inflight_longterm: keep looking.
            self.reset_full_bw();
            self.full_bw = s.delivery_rate;
        } else if self.full_bw_now {
            return true; // the path's bandwidth is fully used
        }
        false
    }

    /// IsProbingBW (§5.3.3.9).
    pub(super) fn is_probing_bw(&self) -> bool {
        matches!(
            self.state,
            State::Startup | State::ProbeBwRefill | State::ProbeBwUp
        )
    }

    /// InflightWithHeadroom (§5.3.3.9): inflight_longterm less 15 % (at least
    /// one packet), at least MinPipeCwnd.
    pub fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_longterm == INF {
            return INF;
        }
        let headroom = super::pct(self.inflight_longterm, self.params().headroom).max(1);
        self.inflight_longterm
            .saturating_sub(headroom)
            .max(self.params().min_pipe_cwnd)
    }

    /// RaiseInflightLongtermSlope (§5.3.3.9): each round of UP doubles the growth.
    fn raise_inflight_longterm_slope(&mut self, tp: &TcpCc) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.probe_up_acked_per_inc = (tp.snd_cwnd / growth_this_round).max(1);
    }

    /// ProbeInflightLongtermUpward (§5.3.3.9): +1 packet per
    /// probe_up_acked_per_inc packets ACKed while cwnd-limited at the bound.
    fn probe_inflight_longterm_upward(&mut self, tp: &TcpCc, rs: &RateSample) {
        if !tp.is_cwnd_limited || tp.snd_cwnd < self.inflight_longterm {
            return; // not fully using inflight_longterm
        }
        self.bw_probe_up_acked = self.bw_probe_up_acked.saturating_add(rs.acked_sacked);
        if self.bw_probe_up_acked >= self.probe_up_acked_per_inc {
            let delta = self.bw_probe_up_acked / self.probe_up_acked_per_inc;
            self.bw_probe_up_acked -= delta * self.probe_up_acked_per_inc;
            self.inflight_longterm = self.inflight_longterm.saturating_add(delta).min(INF - 1);
        }
        if self.round_start {
            self.raise_inflight_longterm_slope(tp);
        }
    }

    /// AdaptLongTermModel (§5.3.3.9): true if it decided a transition.
    fn adapt_long_term_model(&mut self, tp: &mut TcpCc, rs: &RateSample, s: &Sample) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            // Samples from the probe start arriving.
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // The probe's samples are over.
            self.is_bw_probe_sample = false;
            self.ack_phase = AckPhase::Init;
            if self.state.is_probe_bw() && !rs.is_app_limited {
                self.max_bw.advance();
            }
            // Precautionary probing: accelerate after a probe stopped early.
            if self.state.is_probe_bw()
                && self.prev_probe_precautionary
                && !self.prev_probe_too_high
            {
                self.start_probe_bw_refill(tp);
                return true;
            }
        }
        if !self.is_inflight_too_high(s) {
            // The loss rate is safe: raise the upper bound.
            if self.inflight_longterm == INF {
                return false;
            }
            if s.tx_in_flight > self.inflight_longterm {
                self.inflight_longterm = s.tx_in_flight;
            }
            if self.state == State::ProbeBwUp {
                self.probe_inflight_longterm_upward(tp, rs);
            }
        }
        false
    }
}
