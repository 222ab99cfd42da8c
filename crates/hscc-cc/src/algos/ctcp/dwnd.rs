//! The delay-based component dwnd (§III.B, §V): rounds of RTT samples, diff
//! against γ, eq. 5's update at each round's end, and LA13's paced increase.

use super::pow::pow_q8;
use super::Ctcp;
use crate::ops::TcpCc;

impl Ctcp {
    /// (α·win^k − 1)⁺, floored to whole segments (eq. 5, first line).
    pub(super) fn dwnd_increase(&self, win: u32) -> u32 {
        let inc_q8 = (self.alpha_q16 as u64 * pow_q8(win, self.k_q24)) >> 16;
        (inc_q8.saturating_sub(256) >> 8).min(u32::MAX as u64) as u32
    }

    /// Adopt changes the sender made to snd_cwnd: a reduction is shared in
    /// proportion (LA13), an increase goes to the Reno part.
    pub(super) fn sync(&mut self, tp: &TcpCc) {
        let total = self.cwnd as u64 + self.dwnd as u64;
        if (tp.snd_cwnd as u64) < total {
            self.dwnd = (self.dwnd as u64 * tp.snd_cwnd as u64 / total) as u32;
        }
        self.cwnd = tp.snd_cwnd - self.dwnd;
    }

    pub(super) fn restart_round(&mut self, tp: &TcpCc) {
        self.beg_snd_nxt = tp.snd_nxt;
        self.beg_snd_una = tp.snd_una;
        self.beg_cwnd = self.cwnd;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
        self.min_rtt_us = u32::MAX;
    }

    /// Start over after a loss recovery, a timeout or an idle restart
    /// (LA13 `ctcp_enable`): a fresh round, no γ-tuning sample, no pending
    /// paced increase.
    pub(super) fn restart(&mut self, tp: &TcpCc) {
        self.restart_round(tp);
        self.diff_reno_q8 = None;
        self.dwnd_left = 0;
        self.acks_since_inc = 0;
    }

    /// Put the split into snd_cwnd, dwnd limited by the clamp.
    pub(super) fn apply(&mut self, tp: &mut TcpCc) {
        self.dwnd = self.dwnd.min(tp.snd_cwnd_clamp.saturating_sub(self.cwnd));
        tp.snd_cwnd = self.cwnd + self.dwnd;
    }

    /// LA13 pacing: one pending increment per `incr_interval` + 1 ACKs.
    pub(super) fn pace(&mut self, tp: &mut TcpCc) {
        self.acks_since_inc += 1;
        if self.acks_since_inc > self.incr_interval {
            self.acks_since_inc = 0;
            self.dwnd_left -= 1;
            self.dwnd = self.dwnd.saturating_add(1);
            self.apply(tp);
        }
    }

    /// End of a round: eq. 5, first two lines.
    pub(super) fn end_round(&mut self, tp: &mut TcpCc) {
        let win = self.cwnd + self.dwnd;
        // LA13: what pacing has not applied yet is added at the round end.
        self.dwnd = self
            .dwnd
            .saturating_add(core::mem::take(&mut self.dwnd_left));
        // The window that the round measured: the nominal one (paper) or the
        // segments whose ACKs made up the round (LA13 old_wnd).
        let w = match (self.win_sent, tp.mss_cache) {
            (true, mss) if mss > 0 => self.beg_snd_nxt.wrapping_sub(self.beg_snd_una) / mss,
            _ => win,
        };
        let rtt = if self.cnt_rtt > self.min_samples {
            let r = if self.rtt_min_filter {
                self.min_rtt_us
            } else {
                (self.sum_rtt_us / self.cnt_rtt as u64) as u32
            };
            self.max_round_rtt_us = self.max_round_rtt_us.max(r);
            Some(r)
        } else {
            None
        };
        if tp.in_slow_start() || win < self.lowwnd {
            self.dwnd = 0;
        } else if let (Some(rtt), true) = (rtt, tp.is_cwnd_limited()) {
            let queued = (rtt - self.base_rtt_us.min(rtt)) as u64;
            let diff_q8 = (w as u64 * queued).saturating_mul(256) / rtt as u64;
            // LA13: the Reno part's own backlog, for γ tuning at the next loss.
            self.diff_reno_q8 =
                Some((self.beg_cwnd as u64 * queued).saturating_mul(256) / rtt as u64);
            if diff_q8 < self.gamma_q8 as u64 {
                let inc = self.dwnd_increase(w);
                if self.pace_dwnd && inc > 0 {
                    // LA13: over the next round, one +1 per win/(2·inc) ACKs
                    // ("factor of 2 for delayed ACKs").
                    self.dwnd_left = inc;
                    self.incr_interval = (win / (2 * inc)).max(1);
                    self.acks_since_inc = 0;
                } else {
                    self.dwnd = self.dwnd.saturating_add(inc);
                }
            } else if !self.nwr {
                let dec = (self.zeta_q8 as u64 * diff_q8) >> 16;
                self.dwnd = (self.dwnd as u64).saturating_sub(dec) as u32;
            }
        }
        self.apply(tp);
    }
}
