//! Long-term bandwidth sampling (Linux `bbr_lt_bw_sampling` and its
//! helpers): BBR's detector of token-bucket policers. An interval of 4–16
//! rounds starts at a loss (the policer's tokens used up) and ends at a loss;
//! when two consecutive lossy intervals (lost/delivered ≥ 20 %) deliver at
//! consistent rates (within 1/8 or 4 kbit/s), BBR paces at their average for
//! 48 rounds instead of its max-filtered estimate.

use super::{Bbr, Mode, BBR_SCALE, BBR_UNIT, BW_UNIT, USEC_PER_MSEC};
use crate::ops::{RateSample, TcpCc};

impl Bbr {
    /// Linux `bbr_reset_lt_bw_sampling_interval`.
    pub(super) fn reset_lt_bw_sampling_interval(&mut self, tp: &TcpCc) {
        self.lt_last_stamp = (tp.delivered_mstamp / USEC_PER_MSEC) as u32;
        self.lt_last_delivered = tp.delivered;
        self.lt_last_lost = tp.lost;
        self.lt_rtt_cnt = 0;
    }

    /// Linux `bbr_reset_lt_bw_sampling`.
    pub(super) fn reset_lt_bw_sampling(&mut self, tp: &TcpCc) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// Linux `bbr_lt_bw_interval_done`: two consistent lossy intervals mean a policer.
    fn lt_bw_interval_done(&mut self, tp: &TcpCc, bw: u32) {
        if self.lt_bw != 0 {
            // Linux abs() of the u32 difference taken as int.
            let diff = (bw.wrapping_sub(self.lt_bw) as i32).unsigned_abs();
            if diff.wrapping_mul(BBR_UNIT) <= self.cfg.lt_bw_ratio.wrapping_mul(self.lt_bw)
                || self.rate_bytes_per_sec(tp, diff as u64, BBR_UNIT) <= self.cfg.lt_bw_diff as u64
            {
                // Policed: pace at the average of the two intervals.
                self.lt_bw = ((bw as u64 + self.lt_bw as u64) >> 1) as u32;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// Linux `bbr_lt_bw_sampling`: long-term rate over intervals of 4–16
    /// rounds that start and end with a loss.
    pub(super) fn lt_bw_sampling(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt = (self.lt_rtt_cnt + 1) & 0x7f;
                if self.lt_rtt_cnt >= self.cfg.lt_bw_max_rtts {
                    self.reset_lt_bw_sampling(tp);
                    self.reset_probe_bw_mode(tp);
                }
            }
            return;
        }
        // Start at a loss: the policer has used up its tokens.
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(tp);
            self.lt_is_sampling = true;
        }
        // An app-limited interval would underestimate the rate.
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt = (self.lt_rtt_cnt + 1) & 0x7f;
        }
        if self.lt_rtt_cnt < self.cfg.lt_intvl_min_rtts {
            return;
        }
        if self.lt_rtt_cnt > 4 * self.cfg.lt_intvl_min_rtts {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        // End the interval at a loss, when the tokens are used up.
        if rs.losses == 0 {
            return;
        }
        let lost = tp.lost.wrapping_sub(self.lt_last_lost);
        let delivered = tp.delivered.wrapping_sub(self.lt_last_delivered);
        // Lossy enough (lost/delivered ≥ lt_loss_thresh/256)?
        if delivered == 0 || (lost << BBR_SCALE) < self.cfg.lt_loss_thresh.wrapping_mul(delivered) {
            return;
        }
        let mut t = ((tp.delivered_mstamp / USEC_PER_MSEC) as u32).wrapping_sub(self.lt_last_stamp);
        if (t as i32) < 1 {
            return; // shorter than 1 ms: wait
        }
        if t >= u32::MAX / USEC_PER_MSEC as u32 {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        t *= USEC_PER_MSEC as u32;
        let bw = (delivered as u64 * BW_UNIT) / t as u64;
        self.lt_bw_interval_done(tp, bw as u32);
    }
}
