//! The modes other than PROBE_RTT (which `probe_rtt.rs` holds): STARTUP
//! until the bandwidth stops growing (`bbr_check_full_bw_reached`), DRAIN
//! until the flight is one BDP (`bbr_check_drain`), PROBE_BW's gain cycle
//! (`bbr_update_cycle_phase`); and each mode's pacing and cwnd gains
//! (`bbr_update_gains`).

use super::{prandom_u32, stamp_us_delta, Bbr, Mode, BBR_SCALE, BBR_UNIT, CYCLE_LEN, PACING_GAIN};
use crate::ops::{RateSample, TcpCc};

/// Linux `bbr_cycle_rand`: the start phase is drawn among this many.
const CYCLE_RAND: u32 = 7;

impl Bbr {
    /// Linux `bbr_is_next_cycle_phase`: the phase has lasted min_rtt and/or
    /// reached its in-flight target.
    fn is_next_cycle_phase(&self, tp: &TcpCc, rs: &RateSample) -> bool {
        let is_full_length =
            stamp_us_delta(tp.delivered_mstamp, self.cycle_mstamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probing: until the flight reaches gain · BDP, unless packets are lost.
            return is_full_length
                && (rs.losses != 0 || inflight >= self.inflight(tp, bw, self.pacing_gain));
        }
        // Draining: until the flight is down to one BDP.
        is_full_length || inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    /// Linux `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, tp: &TcpCc) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = tp.delivered_mstamp;
    }

    /// Linux `bbr_update_cycle_phase`.
    pub(super) fn update_cycle_phase(&mut self, tp: &TcpCc, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tp, rs) {
            self.advance_cycle_phase(tp);
        }
    }

    /// Linux `bbr_reset_startup_mode`.
    pub(super) fn reset_startup_mode(&mut self) {
        self.mode = Mode::Startup;
    }

    /// Linux `bbr_reset_probe_bw_mode`: PROBE_BW at a random phase other than 3/4.
    pub(super) fn reset_probe_bw_mode(&mut self, tp: &mut TcpCc) {
        self.mode = Mode::ProbeBw;
        let r = ((prandom_u32(tp) as u64 * CYCLE_RAND as u64) >> 32) as u32;
        self.cycle_idx = (CYCLE_LEN - 1 - r) & (CYCLE_LEN - 1);
        self.advance_cycle_phase(tp);
    }

    /// Linux `bbr_reset_mode`.
    pub(super) fn reset_mode(&mut self, tp: &mut TcpCc) {
        if !self.full_bw_reached {
            self.reset_startup_mode();
        } else {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// Linux `bbr_check_full_bw_reached`: 3 rounds without 25 % growth fill the pipe.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh =
            ((self.full_bw as u64 * self.cfg.full_bw_thresh as u64) >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt = (self.full_bw_cnt + 1) & 3;
        self.full_bw_reached = self.full_bw_cnt >= self.cfg.full_bw_cnt;
    }

    /// Linux `bbr_check_drain`: DRAIN once the pipe is full, PROBE_BW once
    /// the flight is down to one BDP.
    pub(super) fn check_drain(&mut self, tp: &mut TcpCc) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tp, tp.packets_in_flight())
                <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// Linux `bbr_update_gains`.
    pub(super) fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    PACING_GAIN[self.cycle_idx as usize]
                },
                self.cfg.cwnd_gain,
            ),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing & 0x3ff;
        self.cwnd_gain = cwnd & 0x3ff;
    }
}
