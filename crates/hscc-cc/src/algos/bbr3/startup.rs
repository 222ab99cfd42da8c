//! STARTUP and DRAIN (draft-ietf-ccwg-bbr-06 §5.3.1–5.3.2): STARTUP until
//! the delivery rate grows by less than 25 % for 3 rounds (or, in
//! `congestion.rs`, loss is high), then DRAIN until the flight is one BDP
//! or 3 rounds have passed, then PROBE_BW (`probe_bw.rs`).

use super::{Bbr3, Sample, State, PERCENT};
use crate::ops::{RateSample, TcpCc};

impl Bbr3 {
    /// ResetFullBW (§5.3.1.2).
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// CheckFullBWReached (§5.3.1.2): 3 rounds without 25 % growth.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample, s: &Sample) {
        if self.full_bw_now || !self.round_start || rs.is_app_limited {
            return;
        }
        if s.delivery_rate as u64 * PERCENT as u64
            >= self.full_bw as u64 * self.cfg.full_bw_thresh as u64
        {
            self.reset_full_bw();
            self.full_bw = s.delivery_rate;
            return;
        }
        self.full_bw_count = self.full_bw_count.saturating_add(1);
        self.full_bw_now = self.full_bw_count >= self.cfg.full_bw_cnt;
        if self.full_bw_now {
            self.full_bw_reached = true;
        }
    }

    /// EnterStartup (§5.3.1.1).
    pub(super) fn enter_startup(&mut self) {
        self.state = State::Startup;
        self.pacing_gain = self.cfg.startup_pacing_gain;
        self.cwnd_gain = self.cfg.default_cwnd_gain;
    }

    /// CheckStartupDone (§5.3.1.1).
    pub(super) fn check_startup_done(&mut self, tp: &mut TcpCc, s: &Sample) {
        self.check_startup_high_loss(tp, s);
        if self.state == State::Startup && self.full_bw_reached {
            self.enter_drain(tp);
        }
    }

    /// EnterDrain (§5.3.2).
    fn enter_drain(&mut self, tp: &mut TcpCc) {
        // Not the draft's (it has no ssthresh): Linux's v3 sets ssthresh to
        // one BDP here only to show STARTUP is over (tcp_info, ss).
        tp.snd_ssthresh = self.inflight(tp, self.max_bw.get(), PERCENT);
        self.state = State::Drain;
        self.pacing_gain = self.cfg.drain_pacing_gain;
        self.cwnd_gain = self.cfg.default_cwnd_gain;
        self.drain_start_round = self.round_count;
    }

    /// CheckDrainDone (§5.3.2): the flight is one BDP, or 3 rounds passed.
    pub(super) fn check_drain_done(&mut self, tp: &mut TcpCc) {
        if self.state == State::Drain
            && (tp.packets_in_flight() <= self.inflight(tp, self.bw, PERCENT)
                || self.round_count
                    > self
                        .drain_start_round
                        .wrapping_add(self.cfg.drain_max_rounds))
        {
            self.enter_probe_bw(tp);
        }
    }
}
