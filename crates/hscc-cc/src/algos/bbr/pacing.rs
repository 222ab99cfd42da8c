//! Pacing (Linux `bbr_set_pacing_rate` and its helpers): the pacing rate
//! from a bandwidth and a gain, less the pacing margin, never lowered
//! before the pipe is full; and the TSO burst size the pacing rate allows.

use super::{Bbr, BBR_SCALE, BW_SCALE, BW_UNIT, USEC_PER_MSEC};
use crate::ops::TcpCc;

/// Linux `bbr_min_tso_rate`, bit/s: below it the TSO goal is one segment.
const MIN_TSO_RATE: u64 = 1_200_000;
/// Linux `GSO_LEGACY_MAX_SIZE` (`GSO_MAX_SIZE` before 5.19).
const GSO_LEGACY_MAX_SIZE: u32 = 65_536;
/// Linux `MAX_TCP_HEADER` = L1_CACHE_ALIGN(128 + MAX_HEADER), with
/// MAX_HEADER = 128 + 48 (Hyper-V networking and IP tunnels built, as x86-64
/// distribution kernels have them) and 64-byte cache lines.
const MAX_TCP_HEADER: u32 = 320;
/// Linux `sk_pacing_shift`'s default for TCP (`tcp_init_sock`): ~1 ms of data per burst.
const SK_PACING_SHIFT: u32 = 10;
/// Linux `USEC_PER_SEC`.
const USEC_PER_SEC: u64 = 1_000_000;

impl Bbr {
    /// Linux `bbr_rate_bytes_per_sec`: bytes/s, with a gain and the pacing
    /// margin; the order of the products keeps u64 from overflowing below 2.9 Tbit/s.
    pub(super) fn rate_bytes_per_sec(&self, tp: &TcpCc, rate: u64, gain: u32) -> u64 {
        let mut rate = rate.wrapping_mul(tp.mss_cache as u64);
        rate = rate.wrapping_mul(gain as u64);
        rate >>= BBR_SCALE;
        rate =
            rate.wrapping_mul(USEC_PER_SEC / 100 * (100 - self.cfg.pacing_margin_percent as u64));
        rate >> BW_SCALE
    }

    /// Linux `bbr_bw_to_pacing_rate`.
    fn bw_to_pacing_rate(&self, tp: &TcpCc, bw: u32, gain: u32) -> u64 {
        self.rate_bytes_per_sec(tp, bw as u64, gain)
            .min(tp.max_pacing_rate)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / RTT (1 ms before a sample).
    pub(super) fn init_pacing_rate_from_rtt(&mut self, tp: &mut TcpCc) {
        let rtt_us = if tp.srtt_us != 0 {
            self.has_seen_rtt = true;
            (tp.srtt_us >> 3).max(1)
        } else {
            USEC_PER_MSEC as u32
        };
        let bw = (tp.snd_cwnd as u64 * BW_UNIT) / rtt_us as u64;
        // bbr_bw_to_pacing_rate takes a u32.
        tp.pacing_rate = self.bw_to_pacing_rate(tp, bw as u32, self.cfg.high_gain);
    }

    /// Linux `bbr_set_pacing_rate`: never slow down before the pipe is full.
    pub(super) fn set_pacing_rate(&mut self, tp: &mut TcpCc, bw: u32, gain: u32) {
        let rate = self.bw_to_pacing_rate(tp, bw, gain);
        if !self.has_seen_rtt && tp.srtt_us != 0 {
            self.init_pacing_rate_from_rtt(tp);
        }
        if self.full_bw_reached || rate > tp.pacing_rate {
            tp.pacing_rate = rate;
        }
    }

    /// Linux `bbr_min_tso_segs`: 1 below 1.2 Mbit/s, else 2.
    pub fn min_tso_segs(&self, tp: &TcpCc) -> u32 {
        if tp.pacing_rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }

    /// Linux `bbr_sndbuf_expand`: 3 cwnds of send buffer, since BBR may
    /// slow-start even during recovery.
    pub fn sndbuf_expand(&self) -> u32 {
        3
    }

    /// Linux `bbr_tso_segs_goal`: segments per burst at the pacing rate, ≤ 127.
    pub fn tso_segs_goal(&self, tp: &TcpCc) -> u32 {
        let bytes = (tp.pacing_rate >> SK_PACING_SHIFT)
            .min((GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER) as u64) as u32;
        // A zero MSS divides to 0, as BPF's division does.
        let segs = bytes
            .checked_div(tp.mss_cache)
            .unwrap_or(0)
            .max(self.min_tso_segs(tp));
        segs.min(0x7f)
    }
}
