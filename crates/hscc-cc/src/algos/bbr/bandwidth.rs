//! The bandwidth estimate (Linux `bbr_update_bw`): packet-timed rounds,
//! and the bottleneck bandwidth as the windowed max of delivery-rate
//! samples over `bw_rtts` rounds, app-limited samples counting only when
//! they are no lower than the estimate; the long-term rate replaces it
//! while a policer is estimated (`lt_bw.rs`).

use super::{Bbr, BW_UNIT};
use crate::ops::{before, RateSample, TcpCc};

impl Bbr {
    /// Linux `bbr_max_bw`: the windowed max recent bandwidth.
    #[inline]
    pub fn max_bw(&self) -> u32 {
        self.bw.get()
    }

    /// Linux `bbr_bw`: the estimated bandwidth (long-term when policed).
    #[inline]
    pub fn bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// Linux `bbr_update_bw`: rounds, long-term sampling, and the max filter.
    pub(super) fn update_bw(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return; // not a valid sample
        }
        if !before(rs.prior_delivered, self.next_rtt_delivered) {
            self.next_rtt_delivered = tp.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(tp, rs);
        let bw = (rs.delivered as u64 * BW_UNIT) / rs.interval_us as u64;
        // App-limited samples only count when they are no lower than the model.
        if !rs.is_app_limited || bw >= self.max_bw() as u64 {
            self.bw
                .running_max(self.cfg.bw_rtts, self.rtt_cnt, bw as u32);
        }
    }
}
