//! The min-RTT filter and PROBE_RTT (Linux `bbr_update_min_rtt`): the
//! minimum RTT over `min_rtt_win_sec`; when it is that old, cwnd
//! `cwnd_min_target` for `probe_rtt_mode_ms` and a round, then back to
//! PROBE_BW (or STARTUP if the pipe was never full).

use super::{Bbr, Mode};
use crate::ops::{after, RateSample, TcpCc};

/// Linux `msecs_to_jiffies` at `hz`.
#[inline]
fn msecs_to_jiffies(ms: u32, hz: u32) -> u32 {
    ((ms as u64 * hz as u64).div_ceil(1000)) as u32
}

impl Bbr {
    /// Linux `bbr_check_probe_rtt_done`.
    pub(super) fn check_probe_rtt_done(&mut self, tp: &mut TcpCc) {
        if !(self.probe_rtt_done_stamp != 0 && after(tp.jiffies32(), self.probe_rtt_done_stamp)) {
            return;
        }
        // Wait a while until the next PROBE_RTT.
        self.min_rtt_stamp = tp.jiffies32();
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.reset_mode(tp);
    }

    /// Linux `bbr_update_min_rtt`: the 10-s min-RTT filter and PROBE_RTT.
    pub(super) fn update_min_rtt(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        let now = tp.jiffies32();
        let win = self.cfg.min_rtt_win_sec.wrapping_mul(tp.hz);
        let filter_expired = after(now, self.min_rtt_stamp.wrapping_add(win));
        if rs.rtt_us >= 0
            && (rs.rtt_us <= self.min_rtt_us as i64 || (filter_expired && !rs.is_ack_delayed))
        {
            self.min_rtt_us = rs.rtt_us as u32;
            self.min_rtt_stamp = now;
        }
        if self.cfg.probe_rtt_mode_ms > 0
            && filter_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tp);
            self.probe_rtt_done_stamp = 0;
        }
        if self.mode == Mode::ProbeRtt {
            // Low-rate samples of this mode do not count against the model.
            tp.app_limited = true;
            // At the minimum flight for max(probe_rtt_mode_ms, one round).
            if self.probe_rtt_done_stamp == 0 && tp.packets_in_flight() <= self.cfg.cwnd_min_target
            {
                self.probe_rtt_done_stamp = tp
                    .jiffies32()
                    .wrapping_add(msecs_to_jiffies(self.cfg.probe_rtt_mode_ms, tp.hz));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = tp.delivered;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tp);
                }
            }
        }
        // The idle restart ends with the first ACK of new data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }
}
