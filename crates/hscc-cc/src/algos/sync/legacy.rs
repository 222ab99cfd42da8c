//! Coexisting with loss-based flows (§V, §V.A, §V.C): switching between
//! legacy TCP (Reno) and Sync-TCP by throughput, and the starvation test.

use super::{SyncState, SyncTcp};
use crate::ops::{TcpCc, TCP_INFINITE_SSTHRESH};

impl SyncTcp {
    pub(super) fn enter_sync(&mut self, tp: &mut TcpCc) {
        self.enter(SyncState::Probing, tp.now_us);
        self.next_inc_us = tp.now_us + self.t_win_us;
        self.cwnd_frac_q10 = 0;
        self.lambda_q8 = self.lambda_init_q8;
        self.brtt_epoch_us = u32::MAX;
        tp.snd_ssthresh = tp.snd_cwnd.max(2);
        self.ref_bytes_s = self.rate(tp);
        self.low_since_us = None;
        self.next_s2t_us = tp.now_us + self.t_win_us;
        // Back in Sync-TCP above the floor: the legacy traffic has gone.
        if tp.now_us < self.floor_until_us {
            self.starved_runs = 0;
        }
        self.sync_since_us = tp.now_us;
    }

    pub(super) fn enter_legacy(&mut self, tp: &mut TcpCc) {
        self.enter(SyncState::Legacy, tp.now_us);
        self.brtt_us = u32::MAX; // §V.C: relearn the propagation delay
    }

    /// Sync → legacy test, once per T_win in every Sync-TCP state: true when
    /// the rate has been below max(Th_s2t, s2t_share·reference) at every
    /// check for s2t_window (the flow is starved, §V, §V.A).
    pub(super) fn starved(&mut self, tp: &TcpCc) -> bool {
        let now = tp.now_us;
        if !self.switching || now < self.next_s2t_us {
            return false;
        }
        self.next_s2t_us += self.t_win_us;
        if self.next_s2t_us <= now {
            self.next_s2t_us = now + self.t_win_us;
        }
        let share = ((self.ref_bytes_s as u128 * self.s2t_share_q16 as u128) >> 16) as u64;
        // Slow start after a timeout is a transient, not starvation.
        if tp.in_slow_start() || self.rate(tp) >= self.s2t_bytes_s.max(share) {
            self.low_since_us = None;
            return false;
        }
        now - *self.low_since_us.get_or_insert(now) >= self.s2t_window_us
    }

    /// A starved Sync-TCP flow goes back to legacy TCP; until t2s_hold has
    /// passed it returns only at a rate of reference/s2t_share.
    pub(super) fn starved_to_legacy(&mut self, tp: &mut TcpCc) {
        self.floor_bytes_s = match self.s2t_share_q16 {
            0 => 0,
            sh => ((self.ref_bytes_s as u128) << 16)
                .div_ceil(sh as u128)
                .min(u64::MAX as u128) as u64,
        };
        // A Sync-TCP episode longer than the hold was not one of a series.
        if tp.now_us - self.sync_since_us >= self.t2s_hold_us {
            self.starved_runs = 0;
        }
        self.starved_runs = (self.starved_runs + 1).min(7);
        self.floor_until_us = tp.now_us + (self.t2s_hold_us << (self.starved_runs - 1));
        if self.s2t_slow_start {
            tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
        }
        self.enter_legacy(tp);
    }
}
