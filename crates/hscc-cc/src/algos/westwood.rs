//! TCP Westwood+ (Mascolo, Casetti, Gerla et al., "TCP Westwood: Bandwidth
//! Estimation for Enhanced Transport over Wireless Links", MobiCom 2001;
//! Grieco & Mascolo, "Performance evaluation and comparison of Westwood+,
//! New Reno and Vegas TCP congestion control", CCR 34(2), 2004; Linux
//! `tcp_westwood.c`).
//!
//! Reno growth; after a loss the window is set from an end-to-end bandwidth
//! estimate instead of being halved:
//!
//! - Bandwidth sample once per interval Δt > max(RTT, 50 ms): bk/Δt, with bk
//!   the bytes acknowledged in the interval (a duplicate ACK counts one MSS,
//!   later discounted from the cumulative ACK that covers it). Units: bytes
//!   per jiffy, Δt and RTT in jiffies.
//! - Two 7/8 EWMAs: bw_ns ← (7·bw_ns + sample)/8, bw_est ← (7·bw_est + bw_ns)/8;
//!   the first sample fills both.
//! - ssthresh = max(bw_est·RTTmin/MSS, 2) segments: on a timeout
//!   (`CA_EVENT_LOSS`, cwnd then restarts from 1) and when fast recovery
//!   completes (`CA_EVENT_COMPLETE_CWR`, then also cwnd = ssthresh). During
//!   recovery ssthresh is Reno's.
//! - RTTmin = smallest RTT sample (jiffies, rounded up), re-learnt from the
//!   first sample after a timeout; 20 s until the first sample.
//!
//! Constants (Linux): 50 ms minimum interval (`TCP_WESTWOOD_RTT_MIN`), 20 s
//! initial RTT (`TCP_WESTWOOD_INIT_RTT`), filter gains 7/8 (Westwood+: the
//! RTT-long sampling interval is what distinguishes it from Westwood).
//!
//! # Deviations from the papers / from Linux
//! - From the papers (as Linux): a simple 7/8 EWMA pair rather than the
//!   original Westwood's Tustin low-pass filter.
//! - From Linux: bk and the estimates are 64-bit (Linux's u32 bk wraps above
//!   4 GB per interval, ≈ 340 Gbit/s at 100 ms); bw_est·RTTmin is a 64-bit
//!   product; the window set at recovery completion is capped at
//!   `snd_cwnd_clamp`.

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh};
use crate::ops::{AckSample, CaEvent, CongestionOps, TcpCc, CA_ACK_SLOWPATH};
use crate::params::NoParams;

/// TCP Westwood+ state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Westwood {
    /// First-stage (less smoothed) bandwidth estimate, bytes per jiffy.
    pub bw_ns_est: u64,
    /// Bandwidth estimate, bytes per jiffy.
    pub bw_est: u64,
    /// Start of the current sampling interval, jiffies.
    rtt_win_sx: u32,
    /// Bytes acknowledged in the current interval.
    bk: u64,
    /// `snd_una` at the previous ACK (bytes, wrapping).
    snd_una: u32,
    /// Bytes of the last ACK after the duplicate-ACK correction.
    cumul_ack: u32,
    /// Bytes credited for duplicate ACKs, not yet covered by a cumulative ACK.
    accounted: u32,
    /// Last RTT sample, jiffies.
    rtt: u32,
    /// Smallest RTT sample, jiffies.
    pub rtt_min: u32,
    /// Whether the next ACK is the first (aligns `snd_una`).
    first_ack: bool,
    /// Whether the next sample replaces `rtt_min` (after a timeout).
    reset_rtt_min: bool,
}

/// Linux `usecs_to_jiffies` (rounds up).
fn usecs_to_jiffies(us: u32, hz: u32) -> u32 {
    let per = 1_000_000 / hz as u64;
    (us as u64).div_ceil(per) as u32
}

impl Westwood {
    /// Linux `westwood_filter`: feed the sample bk/Δt.
    fn filter(&mut self, delta: u32) {
        let sample = self.bk / delta as u64;
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = (7 * self.bw_ns_est + sample) >> 3;
            self.bw_est = (7 * self.bw_est + self.bw_ns_est) >> 3;
        }
    }

    /// Linux `westwood_update_window`: close the interval if it is long enough.
    fn update_window(&mut self, tp: &TcpCc) {
        // The first ACK only aligns snd_una: its bytes precede the interval.
        if self.first_ack {
            self.snd_una = tp.snd_una;
            self.first_ack = false;
        }
        let now = tp.jiffies32();
        let delta = now.wrapping_sub(self.rtt_win_sx);
        // Intervals shorter than 50 ms keep building the sample.
        if self.rtt != 0 && delta > self.rtt.max(tp.hz / 20) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = now;
        }
    }

    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// Linux `westwood_acked_count`: bytes this slow-path ACK stands for.
    fn acked_count(&mut self, tp: &TcpCc) -> u32 {
        self.cumul_ack = tp.snd_una.wrapping_sub(self.snd_una);
        if self.cumul_ack == 0 {
            // Duplicate ACK: one segment left the network.
            self.accounted = self.accounted.saturating_add(tp.mss_cache);
            self.cumul_ack = tp.mss_cache;
        }
        if self.cumul_ack > tp.mss_cache {
            // Partial or delayed ACK: discount what duplicate ACKs counted.
            if self.accounted >= self.cumul_ack {
                self.accounted -= self.cumul_ack;
                self.cumul_ack = tp.mss_cache;
            } else {
                self.cumul_ack -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = tp.snd_una;
        self.cumul_ack
    }

    /// Linux `tcp_westwood_bw_rttmin`: bw_est·RTTmin in segments, ≥ 2.
    fn bw_rttmin(&self, tp: &TcpCc) -> u32 {
        let w = self.bw_est.saturating_mul(self.rtt_min as u64) / tp.mss_cache.max(1) as u64;
        w.clamp(2, tp.snd_cwnd_clamp.max(2) as u64) as u32
    }
}

impl CongestionOps for Westwood {
    const NAME: &'static str = "westwood";
    type Params = NoParams;

    fn new(_p: &NoParams) -> Self {
        Westwood::default()
    }

    fn init(&mut self, tp: &mut TcpCc) {
        *self = Westwood {
            rtt: 20 * tp.hz,
            rtt_min: 20 * tp.hz,
            rtt_win_sx: tp.jiffies32(),
            snd_una: tp.snd_una,
            first_ack: true,
            reset_rtt_min: true,
            ..Westwood::default()
        };
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        tcp_reno_cong_avoid(tp, ack, acked)
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        if sample.rtt_us > 0 {
            self.rtt = usecs_to_jiffies(sample.rtt_us as u32, tp.hz);
        }
    }

    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        self.update_window(tp);
        if flags & CA_ACK_SLOWPATH != 0 {
            self.bk += self.acked_count(tp) as u64;
        } else {
            // Fast path: a plain cumulative ACK.
            self.bk += tp.snd_una.wrapping_sub(self.snd_una) as u64;
            self.snd_una = tp.snd_una;
        }
        self.update_rtt_min();
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        match ev {
            CaEvent::CompleteCwr => {
                tp.snd_ssthresh = self.bw_rttmin(tp);
                tp.snd_cwnd = tp.snd_ssthresh;
            }
            CaEvent::Loss => {
                tp.snd_ssthresh = self.bw_rttmin(tp);
                // Re-learn RTTmin from the next sample.
                self.reset_rtt_min = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    /// `ms` milliseconds of a steady ACK clock: every ms one ACK for `segs`
    /// segments (and as many sent), RTT samples of 100 ms.
    fn stream(h: &mut Harness<Westwood>, ms: u32, segs: u32) {
        for _ in 0..ms {
            h.advance_ms(1);
            h.ack_each(1, segs);
            h.send(segs);
        }
    }

    fn flow() -> Harness<Westwood> {
        let mut h = Harness::new(Westwood::default(), 10);
        h.set_rtt_ms(100);
        h.send(1000);
        h
    }

    #[test]
    fn first_interval_and_filter_start() {
        let mut h = flow();
        // ACK at 1 ms aligns snd_una; intervals close at the first ACK with
        // Δt > max(RTT = 100, 50) jiffies, i.e. at 101 ms, holding the ACKs
        // of 2..100 ms: 99·2·1448/101 = 2838.65 → 2838 bytes/jiffy.
        stream(&mut h, 101, 2);
        assert_eq!((h.cc.bw_ns_est, h.cc.bw_est), (2838, 2838));
        assert_eq!(h.cc.rtt_min, 100);
        // Next interval 101..201 ms: 101 ACKs in 101 jiffies = 2896 exactly.
        // bw_ns = (7·2838 + 2896)/8 = 2845, bw_est = (7·2838 + 2845)/8 = 2838.
        stream(&mut h, 101, 2);
        assert_eq!((h.cc.bw_ns_est, h.cc.bw_est), (2845, 2838));
    }

    #[test]
    fn estimate_converges_to_the_rate_and_sets_ssthresh_to_the_bdp() {
        let mut h = flow();
        // 2 segments/ms = 2896 bytes/jiffy. From below, the truncating 7/8
        // filters stop 7 short of their input: a with 7a + x < 8(a + 1), so
        // bw_ns → 2889 and bw_est → 2882 (Linux does the same).
        stream(&mut h, 101 * 100, 2);
        assert_eq!((h.cc.bw_ns_est, h.cc.bw_est), (2889, 2882));
        // The rate halves to 1 segment/ms = 1448 bytes/jiffy. From above the
        // filters reach it exactly: ⌊(7(x + d) + x)/8⌋ = x + ⌊7d/8⌋ < x + d.
        stream(&mut h, 101 * 200, 1);
        assert_eq!((h.cc.bw_ns_est, h.cc.bw_est), (1448, 1448));
        // BDP = 1448 bytes/jiffy · 100 jiffies / 1448 = 100 segments.
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), h.tp.prior_cwnd / 2); // Reno during recovery
        h.end_recovery();
        assert_eq!((h.cwnd(), h.ssthresh()), (100, 100));
        // After a timeout too; cwnd restarts from 1.
        h.timeout();
        assert_eq!((h.cwnd(), h.ssthresh()), (1, 100));
        assert!(h.cc.reset_rtt_min);
    }

    #[test]
    fn duplicate_acks_count_one_segment_then_are_discounted() {
        let mut h = flow();
        stream(&mut h, 1, 1); // first ACK: alignment only
        let bk = h.cc.bk;
        h.dupack();
        h.dupack();
        assert_eq!(h.cc.bk, bk + 2 * MSS as u64);
        // A cumulative ACK of 3 segments covering them adds 1 more: 3 − 2.
        h.tp.snd_una = h.tp.snd_una.wrapping_add(3 * MSS);
        h.cc.in_ack_event(&mut h.tp, CA_ACK_SLOWPATH);
        assert_eq!(h.cc.bk, bk + 3 * MSS as u64);
    }

    #[test]
    fn ssthresh_is_at_least_two() {
        let mut h = flow();
        h.tp.snd_cwnd = 50;
        h.loss();
        assert_eq!((h.cwnd(), h.ssthresh()), (2, 2));
    }
}

crate::cc_property_suite!(westwood_properties, Westwood);
