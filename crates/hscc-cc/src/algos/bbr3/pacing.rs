//! Pacing and the send quantum (draft-ietf-ccwg-bbr-06 §5.6.2–5.6.3,
//! §5.5.8.1): the pacing rate for a gain, less the pacing margin, never
//! lowered before the pipe is full; the send quantum and the offload
//! budget (3 quanta) it gives the flight.

use super::{Bbr3, BW_SCALE, BW_UNIT, PERCENT};
use crate::ops::TcpCc;

/// §5.6.3: the send quantum is at least 2 packets and at most 64 KB.
const SEND_QUANTUM_MAX_BYTES: u64 = 64 * 1024;
/// §5.6.2: before an RTT sample, the nominal RTT is 1 ms.
const NOMINAL_RTT_US: u64 = 1000;

impl Bbr3 {
    /// C.send_quantum (§5.6.3): 1 ms at the pacing rate, within [2 SMSS, 64 KB], bytes.
    pub fn send_quantum_bytes(&self, tp: &TcpCc) -> u64 {
        (tp.pacing_rate / 1000)
            .min(SEND_QUANTUM_MAX_BYTES)
            .max(2 * tp.mss_cache as u64)
    }

    /// BBR.offload_budget (§5.5.8.1, TCP): 3 send quanta, in whole packets.
    pub fn offload_budget(&self, tp: &TcpCc) -> u32 {
        // A zero MSS gives 0, as the BPF program's division does.
        (3 * self.send_quantum_bytes(tp))
            .checked_div(tp.mss_cache as u64)
            .unwrap_or(0) as u32
    }

    /// The pacing rate for `bw` and a gain, bytes/s, with the 1 % margin (§5.6.2).
    fn pacing_rate_for(&self, tp: &TcpCc, bw: u32, gain: u32) -> u64 {
        // Wrapping as Linux's bbr_rate_bytes_per_sec, far beyond real rates.
        let rate = (bw as u64)
            .wrapping_mul(tp.mss_cache as u64)
            .wrapping_mul(gain as u64)
            / PERCENT as u64;
        let margin = 1_000_000 / PERCENT as u64 * (PERCENT - self.cfg.pacing_margin_percent) as u64;
        ((rate.wrapping_mul(margin)) >> BW_SCALE).min(tp.max_pacing_rate)
    }

    /// InitPacingRate (§5.6.2): StartupPacingGain · C.InitialCwnd / (srtt or 1 ms).
    pub(super) fn init_pacing_rate(&self, tp: &mut TcpCc) {
        let rtt_us = if tp.srtt_us != 0 {
            tp.srtt().max(1) as u64
        } else {
            NOMINAL_RTT_US
        };
        let bw = (self.initial_cwnd as u64 * BW_UNIT / rtt_us).min(u32::MAX as u64) as u32;
        // The initial rate is not discounted by the margin.
        let rate = (bw as u64)
            .wrapping_mul(tp.mss_cache as u64)
            .wrapping_mul(self.cfg.startup_pacing_gain as u64)
            / PERCENT as u64;
        tp.pacing_rate = (rate.wrapping_mul(1_000_000) >> BW_SCALE).min(tp.max_pacing_rate);
    }

    /// SetPacingRateWithGain (§5.6.2): never slower before the pipe is full.
    pub(super) fn set_pacing_rate_with_gain(&self, tp: &mut TcpCc, gain: u32) {
        let rate = self.pacing_rate_for(tp, self.bw, gain);
        if self.full_bw_reached || rate > tp.pacing_rate {
            tp.pacing_rate = rate;
        }
    }
}
