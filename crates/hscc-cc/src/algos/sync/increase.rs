//! The RTT-independent cwnd increase rule (§IV.D, eq. 6) and congestion
//! detection in Probing (§IV.A.2).

use super::{SyncState, SyncTcp};
use crate::ops::TcpCc;

/// α of eq. 6 in Q10: max((1 + t + t⁴/32)·(Th_qd − qd)/Th_qd, 1).
pub(super) fn alpha_q10(t_us: u64, qd_us: u32, th_qd_us: u32) -> u64 {
    let t = (t_us.min(512_000_000) << 10) / 1_000_000; // seconds, Q10 (≤ 2^19)
    let t2 = (t * t) >> 10;
    let t4 = (t2 * t2) >> 10; // ≤ 2^46
    let poly = 1024 + t + t4 / 32;
    let headroom = th_qd_us.saturating_sub(qd_us) as u64; // ≤ 2^20
    (poly * headroom / th_qd_us.max(1) as u64).max(1024)
}

impl SyncTcp {
    /// Probing: detection on each fresh sample, α increase every T_win.
    pub(super) fn probe(&mut self, tp: &mut TcpCc) {
        let now = tp.now_us;
        if self.fresh {
            self.fresh = false;
            if self.qd_us() > self.th_qd_us {
                self.enter(SyncState::Waiting, now);
                self.signals += 1;
                self.last_signal_us = Some(now);
                return;
            }
        }
        if now < self.next_inc_us {
            return;
        }
        self.next_inc_us += self.t_win_us;
        if self.next_inc_us <= now {
            self.next_inc_us = now + self.t_win_us;
        }
        if !tp.app_limited {
            let a =
                self.cwnd_frac_q10 + alpha_q10(now - self.since_us, self.qd_us(), self.th_qd_us);
            self.cwnd_frac_q10 = a & 1023;
            let cwnd = tp.snd_cwnd as u64 + (a >> 10);
            tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp as u64) as u32;
        }
    }
}
