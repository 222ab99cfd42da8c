//! Queue-delay measurement (§IV.A): one RTT sample per T_sample, srtt of
//! eq. 4, brtt and brtt_epoch, qd = srtt − brtt, and the rate estimate.

use super::SyncTcp;
use crate::ops::{AckSample, TcpCc};

impl SyncTcp {
    /// Take `s`'s RTT sample if one is due.
    pub(super) fn sample(&mut self, tp: &TcpCc, s: &AckSample) {
        // One sample per T_sample in every state (§IV.A.1, §IV.F).
        let now = tp.now_us;
        if s.rtt_us < 0 || now < self.next_sample_us {
            return;
        }
        self.next_sample_us += self.t_sample_us;
        if self.next_sample_us <= now {
            self.next_sample_us = now + self.t_sample_us;
        }
        let rtt = (s.rtt_us as u32).max(1);
        self.srtt_q8 = if self.srtt_q8 == 0 {
            (rtt as u64) << 8
        } else {
            // eq. 4 with weight T_sample/T_win.
            let (w, s) = (self.t_win_us, self.t_sample_us);
            (self.srtt_q8 * (w - s) + ((rtt as u64) << 8) * s) / w
        };
        self.brtt_us = self.brtt_us.min(rtt);
        self.brtt_epoch_us = self.brtt_epoch_us.min(rtt);
        self.fresh = true;
    }

    pub(super) fn srtt_us(&self) -> u32 {
        (self.srtt_q8 >> 8) as u32
    }

    /// qd = srtt − brtt, µs.
    pub(super) fn qd_us(&self) -> u32 {
        self.srtt_us().saturating_sub(self.brtt_us)
    }

    /// Rate estimate cwnd·mss/srtt, bytes/s (0 before the first sample).
    pub(super) fn rate(&self, tp: &TcpCc) -> u64 {
        match self.srtt_us() {
            0 => 0,
            srtt => {
                (tp.snd_cwnd as u64 * tp.mss_cache as u64).saturating_mul(1_000_000) / srtt as u64
            }
        }
    }
}
