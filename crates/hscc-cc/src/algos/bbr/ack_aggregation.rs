//! ACK aggregation (Linux `bbr_update_ack_aggregation`): the windowed max
//! of data ACKed beyond what the estimated rate explains, over two halves
//! of `extra_acked_win_rtts` rounds, and the cwnd allowance it buys once
//! the pipe is full (`bbr_ack_aggregation_cwnd`).

use super::{stamp_us_delta, Bbr, BBR_SCALE, BW_UNIT};
use crate::ops::{RateSample, TcpCc};

/// Linux `bbr_ack_epoch_acked_reset_thresh`: a sampling epoch this long restarts.
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;

impl Bbr {
    /// Linux `bbr_extra_acked`: the max extra ACKed in the last 5–10 rounds.
    #[inline]
    pub(super) fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1]) as u32
    }

    /// Linux `bbr_update_ack_aggregation`: the windowed max of data ACKed
    /// beyond what the estimated rate explains.
    pub(super) fn update_ack_aggregation(&mut self, tp: &TcpCc, rs: &RateSample) {
        if self.cfg.extra_acked_gain == 0
            || rs.acked_sacked == 0
            || rs.delivered < 0
            || rs.interval_us <= 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= self.cfg.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        // Packets the estimated rate delivers over the epoch.
        let epoch_us = stamp_us_delta(tp.delivered_mstamp, self.ack_epoch_mstamp) as u32;
        let mut expected_acked = ((self.bw() as u64 * epoch_us as u64) / BW_UNIT) as u32;
        // A new epoch when ACKs come slower than expected, or the epoch is very old.
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked.wrapping_add(rs.acked_sacked) >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = tp.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = self
            .ack_epoch_acked
            .wrapping_add(rs.acked_sacked)
            .min(0xfffff);
        let extra_acked = self
            .ack_epoch_acked
            .wrapping_sub(expected_acked)
            .min(tp.snd_cwnd);
        if extra_acked > self.extra_acked[self.extra_acked_win_idx] as u32 {
            // Linux stores it in a u16.
            self.extra_acked[self.extra_acked_win_idx] = extra_acked as u16;
        }
    }

    /// Linux `bbr_ack_aggregation_cwnd`: the cwnd allowance for ACK aggregation.
    pub(super) fn ack_aggregation_cwnd(&self) -> u32 {
        if self.cfg.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd =
            ((self.bw() as u64 * self.cfg.extra_acked_max_us as u64) / BW_UNIT) as u32;
        let aggr_cwnd = (self.cfg.extra_acked_gain * self.extra_acked()) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd)
    }
}
