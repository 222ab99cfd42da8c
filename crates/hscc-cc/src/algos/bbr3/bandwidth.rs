//! Rounds and the bandwidth model (draft-ietf-ccwg-bbr-06 §5.5.1,
//! §5.5.5–5.5.6, §5.5.10.3): packet-timed rounds, BBR.max_bw as the
//! two-cycle max of delivery-rate samples (`filters.rs`), and BBR.bw, that
//! maximum bounded by the short-term bound `bw_shortterm`.

use super::{Bbr3, Sample};
use crate::ops::{RateSample, TcpCc};

impl Bbr3 {
    /// StartRound (§5.5.1).
    pub(super) fn start_round(&mut self, tp: &TcpCc) {
        self.next_round_delivered = tp.delivered;
    }

    /// UpdateRound (§5.5.1), for an ACK that delivered a packet.
    fn update_round(&mut self, tp: &TcpCc, rs: &RateSample) {
        if rs.delivered > 0 && !crate::ops::before(rs.prior_delivered, self.next_round_delivered) {
            self.start_round(tp);
            self.round_count = self.round_count.wrapping_add(1);
            self.rounds_since_probe_up = self.rounds_since_probe_up.saturating_add(1);
            self.round_start = true;
        } else {
            self.round_start = false;
        }
    }

    /// UpdateMaxBw (§5.5.5).
    pub(super) fn update_max_bw(&mut self, tp: &TcpCc, rs: &RateSample, s: &Sample) {
        self.update_round(tp, rs);
        if s.delivery_rate > 0 && (s.delivery_rate >= self.max_bw.get() || !rs.is_app_limited) {
            self.max_bw.update(self.cycle_count(), s.delivery_rate);
        }
    }

    /// BBR.cycle_count (§5.5.6).
    fn cycle_count(&self) -> u32 {
        self.max_bw.cycle_count
    }

    /// BoundBWForModel (§5.5.10.3).
    pub(super) fn bound_bw_for_model(&mut self) {
        self.bw = self.max_bw.get().min(self.bw_shortterm);
    }
}
