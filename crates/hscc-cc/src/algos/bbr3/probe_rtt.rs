//! The min-RTT filters and PROBE_RTT (draft-ietf-ccwg-bbr-06 §5.3.4): a
//! 5-s filter that feeds the 10-s BBR.min_rtt; when the 5-s one expires,
//! PROBE_RTT holds the flight at ProbeRTTCwnd for 200 ms and a round, then
//! returns to PROBE_BW's CRUISE (or STARTUP if the pipe was never full).

use super::{AckPhase, Bbr3, State, INF, PERCENT};
use crate::ops::{RateSample, TcpCc};

impl Bbr3 {
    /// UpdateMinRTT (§5.3.4.3): the 5-s PROBE_RTT filter feeds the 10-s min_rtt.
    pub(super) fn update_min_rtt(&mut self, tp: &TcpCc, rs: &RateSample) {
        let now = tp.now_us;
        let interval = self.cfg.probe_rtt_interval_sec as u64 * 1_000_000;
        self.probe_rtt_expired = now > self.probe_rtt_min_stamp + interval;
        if rs.rtt_us >= 0
            && ((rs.rtt_us as u64) < self.probe_rtt_min_delay as u64 || self.probe_rtt_expired)
        {
            self.probe_rtt_min_delay = rs.rtt_us.min(INF as i64 - 1) as u32;
            self.probe_rtt_min_stamp = now;
        }
        let filter_len = self.cfg.min_rtt_filter_len_sec as u64 * 1_000_000;
        let min_rtt_expired = now > self.min_rtt_stamp + filter_len;
        if self.probe_rtt_min_delay < self.min_rtt_us || min_rtt_expired {
            self.min_rtt_us = self.probe_rtt_min_delay;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
    }

    /// CheckProbeRTT (§5.3.4.3).
    pub(super) fn check_probe_rtt(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        if self.state != State::ProbeRtt && self.probe_rtt_expired && !self.idle_restart {
            self.enter_probe_rtt();
            self.save_cwnd(tp);
            self.probe_rtt_done_stamp = 0;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round(tp);
        }
        if self.state == State::ProbeRtt {
            self.handle_probe_rtt(tp);
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// EnterProbeRTT (§5.3.4.3).
    fn enter_probe_rtt(&mut self) {
        self.state = State::ProbeRtt;
        self.pacing_gain = PERCENT;
        self.cwnd_gain = self.cfg.probe_rtt_cwnd_gain;
    }

    /// HandleProbeRTT (§5.3.4.3).
    fn handle_probe_rtt(&mut self, tp: &mut TcpCc) {
        // Low-rate samples of this state do not count against the model.
        tp.app_limited = true;
        if self.probe_rtt_done_stamp == 0 && tp.packets_in_flight() <= self.probe_rtt_cwnd() {
            self.probe_rtt_done_stamp = tp.now_us + self.cfg.probe_rtt_duration_ms as u64 * 1000;
            self.probe_rtt_round_done = false;
            self.start_round(tp);
        } else if self.probe_rtt_done_stamp != 0 {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done {
                self.check_probe_rtt_done(tp);
            }
        }
    }

    /// CheckProbeRTTDone (§5.3.4.3).
    pub(super) fn check_probe_rtt_done(&mut self, tp: &mut TcpCc) {
        if self.probe_rtt_done_stamp != 0 && tp.now_us > self.probe_rtt_done_stamp {
            // Schedule the next PROBE_RTT.
            self.probe_rtt_min_stamp = tp.now_us;
            self.restore_cwnd(tp);
            self.exit_probe_rtt(tp);
        }
    }

    /// ExitProbeRTT (§5.3.4.4): the flight is below the BDP already, so CRUISE.
    fn exit_probe_rtt(&mut self, tp: &mut TcpCc) {
        self.reset_short_term_model();
        if self.full_bw_reached {
            self.start_probe_bw_down(tp);
            self.start_probe_bw_cruise();
        } else {
            self.enter_startup();
        }
    }
}
