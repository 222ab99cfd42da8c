//! Counters kept while a run goes on.

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::packet::{Kind, Packet, SLOW_START};
use crate::time::{Time, NS};

/// Per-link counters (in declaration order: the two counted on every packet first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[repr(C)]
pub struct LinkCounters {
    /// Packets that crossed the link (reached its far end; with the loss point
    /// after the queue, those lost there too).
    pub tx_packets: u64,
    /// IP bytes that crossed the link (packet sizes, without link framing).
    pub tx_bytes: u64,
    /// Packets dropped because the queue was full.
    pub drops_queue: u64,
    /// Of those, TCP segments sent while their flow was in slow start.
    pub drops_queue_slow_start: u64,
    /// Of those, UDP datagrams.
    pub drops_queue_udp: u64,
    /// Packets dropped by random loss (before the queue, or at the far end
    /// after crossing the link, as the link's loss point says).
    pub drops_random: u64,
    /// Packets dropped by the queue discipline's congestion signal (RED's and
    /// PIE's early drops, CoDel's dequeue drops); 0 under DropTail.
    pub drops_aqm: u64,
    /// Packets the queue discipline CE-marked instead of dropping (ECN).
    pub marks: u64,
}

impl LinkCounters {
    /// `p` is dropped because the queue is full: counted with its class (a TCP segment
    /// sent in slow start, a UDP datagram), which loss counts that leave those out need.
    #[inline]
    pub fn count_queue_drop(&mut self, p: &Packet) {
        self.drops_queue += 1;
        if p.flags & SLOW_START != 0 {
            self.drops_queue_slow_start += 1;
        }
        if p.kind == Kind::Udp {
            self.drops_queue_udp += 1;
        }
    }
}

/// Per-flow counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FlowCounters {
    /// Data segments sent, retransmissions included.
    pub segs_sent: u64,
    /// Retransmitted segments.
    pub retrans: u64,
    /// Segments delivered in order to the receiving application (filled from the
    /// receiver when results are built).
    pub delivered_segs: u64,
    /// Payload bytes delivered in order to the receiving application (likewise).
    pub delivered_bytes: u64,
    /// Segments marked lost before the RTO: by duplicate ACKs, SACK or RACK.
    pub lost_fast: u64,
    /// Of those, marked lost by RACK (RFC 8985), retransmissions included.
    pub rack_lost: u64,
    /// Tail loss probes sent (RFC 8985 §7).
    pub tlps: u64,
    /// Spurious window reductions undone (D-SACK, timestamps, F-RTO).
    pub undos: u64,
    /// Fast-recovery episodes entered, and window reductions after a tail loss
    /// probe repaired a loss (Linux `TCPLossProbeRecovery`).
    pub recoveries: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// ACKs sent by the receiver.
    pub acks_sent: u64,
    /// Time spent in slow start (cwnd < ssthresh, outside recovery), ps.
    pub slow_start_time: Time,
    /// Window reductions for ECN echoes (CWR state entered; 0 without ECN).
    pub ecn_reductions: u64,
    /// Data segments that reached the receiver CE-marked (filled from the
    /// receiver when results are built; 0 without ECN).
    pub ce_received: u64,
}

/// Distribution of delays (queuing delays, one-way delays), ns resolution,
/// three significant digits.
#[derive(Clone, Debug)]
pub struct DelayHistogram {
    h: Histogram<u64>,
    /// Delays under a nanosecond, counted here instead of in `h` (most packets
    /// of a link that seldom queues): `h` with these recorded as 0 is the histogram.
    zeros: u64,
    sum_ns: u128,
}

impl DelayHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        // 1 ns to 1000 s; larger delays saturate at the top.
        DelayHistogram {
            h: Histogram::new_with_bounds(1, 1_000_000_000_000, 3).expect("valid bounds"),
            zeros: 0,
            sum_ns: 0,
        }
    }

    /// Record one packet's queuing delay.
    #[inline]
    pub fn record(&mut self, d: Time) {
        let ns = d / NS;
        if ns == 0 {
            self.zeros += 1;
            return;
        }
        self.sum_ns += ns as u128;
        self.h.saturating_record(ns);
    }

    /// Packets recorded.
    pub fn count(&self) -> u64 {
        self.h.len() + self.zeros
    }

    /// Sum of all recorded delays, seconds.
    pub fn sum_s(&self) -> f64 {
        self.sum_ns as f64 * 1e-9
    }

    /// Mean delay, seconds.
    pub fn mean_s(&self) -> f64 {
        if self.count() == 0 {
            return 0.0;
        }
        self.sum_ns as f64 / self.count() as f64 * 1e-9
    }

    /// Delay at quantile `q` in [0, 1], seconds.
    pub fn quantile_s(&self, q: f64) -> f64 {
        let ns = if self.zeros == 0 {
            self.h.value_at_quantile(q)
        } else {
            let mut all = self.h.clone();
            all.saturating_record_n(0, self.zeros);
            all.value_at_quantile(q)
        };
        ns as f64 * 1e-9
    }

    /// Largest delay recorded, seconds.
    pub fn max_s(&self) -> f64 {
        self.h.max() as f64 * 1e-9
    }
}

impl Default for DelayHistogram {
    fn default() -> Self {
        Self::new()
    }
}

/// Jain's fairness index of `x`: (Σx)² / (n·Σx²); 1 when all are equal, 1/n
/// when one takes everything. `None` for an empty or all-zero input: with no
/// flows, or no traffic, the index is 0/0, undefined, and saying 1 ("perfectly
/// fair") would make a dead run look like the best one. The engine's runs, the
/// kernel's runs, the sweeps and the comparisons all use this one answer.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    (s2 > 0.0).then(|| s * s / (x.len() as f64 * s2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_extremes_and_a_hand_value() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), Some(1.0));
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        // (1+2+3)^2 / (3·(1+4+9)) = 36/42
        assert!((jain_index(&[1.0, 2.0, 3.0]).unwrap() - 36.0 / 42.0).abs() < 1e-12);
        // No flows, or no traffic: undefined.
        assert_eq!(jain_index(&[]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn histogram_mean_and_quantiles() {
        let mut h = DelayHistogram::new();
        for i in 1..=100u64 {
            h.record(i * crate::time::US);
        }
        assert!((h.mean_s() - 50.5e-6).abs() < 1e-12);
        let q = h.quantile_s(0.99);
        assert!((q - 99e-6).abs() < 0.2e-6, "{q}");
        assert!((h.max_s() - 100e-6).abs() < 0.1e-6);
    }

    #[test]
    fn delays_under_a_nanosecond_count_as_zeros_in_every_figure() {
        // 70 packets that did not wait (some of them a few ps) and 30 of 1..=30 µs.
        let mut h = DelayHistogram::new();
        for i in 0..100u64 {
            h.record(if i < 70 {
                i * 10
            } else {
                (i - 69) * crate::time::US
            });
        }
        assert_eq!(h.count(), 100);
        assert!(
            (h.mean_s() - 465e-6 / 100.0).abs() < 1e-15,
            "{}",
            h.mean_s()
        );
        assert_eq!(h.quantile_s(0.5), 0.0);
        assert_eq!(h.quantile_s(0.7), 0.0);
        assert!(
            (h.quantile_s(0.9) - 20e-6).abs() < 0.02e-6,
            "{}",
            h.quantile_s(0.9)
        );
        assert!((h.max_s() - 30e-6).abs() < 0.03e-6);
        let mut zeros = DelayHistogram::new();
        zeros.record(5);
        assert_eq!(
            (zeros.count(), zeros.quantile_s(0.99), zeros.max_s()),
            (1, 0.0, 0.0)
        );
    }

    proptest::proptest! {
        /// Whatever the delays, every figure is the one a histogram of them all gives.
        #[test]
        fn the_figures_are_those_of_one_histogram_of_every_delay(
            delays in proptest::collection::vec(
                proptest::prop_oneof![0u64..crate::time::NS, 0u64..50 * crate::time::MS],
                0..300,
            ),
        ) {
            let mut h = DelayHistogram::new();
            let mut all = Histogram::<u64>::new_with_bounds(1, 1_000_000_000_000, 3).unwrap();
            for &d in &delays {
                h.record(d);
                all.saturating_record(d / crate::time::NS);
            }
            proptest::prop_assert_eq!(h.count(), all.len());
            for q in [0.0, 0.1, 0.5, 0.9, 0.99, 1.0] {
                proptest::prop_assert_eq!(h.quantile_s(q), all.value_at_quantile(q) as f64 * 1e-9);
            }
            proptest::prop_assert_eq!(h.max_s(), all.max() as f64 * 1e-9);
        }
    }
}
