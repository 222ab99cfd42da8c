//! ACK aggregation (draft-ietf-ccwg-bbr-06 §5.5.9): BBR.extra_acked, the
//! windowed max of data ACKed beyond what BBR.bw explains over the
//! interval, which `cwnd.rs` adds to the flight BBR allows.

use super::{Bbr3, BW_SCALE, INF};
use crate::ops::{RateSample, TcpCc};

impl Bbr3 {
    /// UpdateACKAggregation (§5.5.9).
    pub(super) fn update_ack_aggregation(&mut self, tp: &TcpCc, rs: &RateSample) {
        let interval = tp.now_us.saturating_sub(self.extra_acked_interval_start);
        let mut expected =
            ((self.bw as u64).saturating_mul(interval) >> BW_SCALE).min(INF as u64) as u32;
        if self.extra_acked_delivered <= expected {
            self.extra_acked_delivered = 0;
            self.extra_acked_interval_start = tp.now_us;
            expected = 0;
        }
        self.extra_acked_delivered = self.extra_acked_delivered.saturating_add(rs.acked_sacked);
        let extra = (self.extra_acked_delivered - expected).min(tp.snd_cwnd);
        let filter_len = if self.full_bw_reached {
            self.cfg.extra_acked_filter_len
        } else {
            1 // in STARTUP, remember one round
        };
        self.extra_acked
            .running_max(filter_len, self.round_count, extra);
    }
}
