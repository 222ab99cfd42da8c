//! The adaptive queue-delay-based cwnd decrease rule (§IV.C, eq. 5): λ, the
//! rerouting rule (§V.C) and β.

use super::SyncTcp;

impl SyncTcp {
    /// λ update, rerouting rule, then β of eq. 5 (Q16) bounded by `beta_max`.
    /// Also sets `regime`: this epoch and the one before emptied the queue.
    pub(super) fn reduction(&mut self, beta_max_q16: u32) -> u32 {
        self.regime = false;
        if self.brtt_epoch_us != u32::MAX {
            if self.brtt_epoch_us.saturating_sub(self.brtt_us) > self.th_emptied_us {
                self.lambda_q8 = self.lambda_q8.saturating_add(256);
            } else {
                self.regime = self.lambda_q8 == self.lambda_init_q8;
                self.lambda_q8 = self.lambda_init_q8;
            }
            if self.lambda_q8 > self.lambda_reroute_q8 && self.brtt_epoch_us > self.brtt_us {
                self.brtt_us = self.brtt_epoch_us;
                self.lambda_q8 = self.lambda_init_q8;
            }
        }
        self.brtt_epoch_us = u32::MAX;
        // λ·qd/srtt in Q16 (no sample yet: no cut, β at its upper bound).
        let cut = (self.lambda_q8 as u64 * self.qd_us() as u64)
            .saturating_mul(256)
            .checked_div(self.srtt_us() as u64)
            .unwrap_or(0);
        let beta = 65536u64.saturating_sub(cut) as u32;
        beta.clamp(self.beta_min_q16, beta_max_q16.max(self.beta_min_q16))
    }
}

/// cwnd·β (β Q16), rounded, at least 2.
pub(super) fn scaled(cwnd: u32, beta_q16: u32) -> u32 {
    (((cwnd as u64 * beta_q16 as u64 + (1 << 15)) >> 16) as u32).max(2)
}
