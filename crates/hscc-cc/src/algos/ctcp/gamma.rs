//! γ tuning at a loss: the slides' auto-tuning from the RTT ratio, and
//! LA13's TUBE step from the Reno part's own backlog.

use super::Ctcp;

impl Ctcp {
    /// Slides: γ = max(γ_min, W_low·(RTTmax − RTTmin)/RTTmax), at each loss.
    pub(super) fn tune_gamma(&mut self) {
        let (max, min) = (self.max_round_rtt_us as u64, self.base_rtt_us as u64);
        if max > min {
            let g_q8 = ((self.gamma_wlow as u64 * (max - min)) << 8) / max;
            self.gamma_q8 = g_q8.max(self.gamma_min_q8 as u64) as u32;
        }
        self.max_round_rtt_us = 0;
    }

    /// LA13 γ tuning at a loss, if a round was measured since the last one:
    /// g = ⌊¾·diff_reno⌋, γ ← γ + ⌊(g − γ)·λ⌋ in whole packets, clipped to
    /// [γ_min, γ_max].
    pub(super) fn tune_gamma_tube(&mut self) {
        if let Some(diff_reno_q8) = self.diff_reno_q8.take() {
            let g = (diff_reno_q8.saturating_mul(3) >> 10).min(i64::MAX as u64) as i64;
            let gamma = (self.gamma_q8 >> 8) as i64;
            let next = gamma + ((g - gamma) >> self.gamma_lambda_shift);
            let next_q8 = (next.max(0) as u64) << 8;
            self.gamma_q8 = next_q8
                .max(self.gamma_min_q8 as u64)
                .min(self.gamma_max_q8 as u64) as u32;
        }
    }
}
