//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1993, §4 and Fig. 2),
//! with the gentle variant (Floyd, "Recommendation on using the gentle_
//! variant of RED", 2000) and ECN marking (RFC 3168 §7). ns-2's `REDQueue`
//! (queue/red.cc, Floyd's own code) settles what the paper leaves open; Linux
//! include/net/red.h is the cross-check.
//!
//! On every arrival the average queue size is updated,
//! `avg ← (1 − w_q)·avg + w_q·q` (q: packets waiting, before this one), and
//! after an idle period of `m` typical packet times it first decays as
//! `(1 − w_q)^m` (ns-2 `REDQueue::estimator`, `m = ptc · idle`, ptc = link
//! rate / (8 · mean_pktsize)). Then, with p_b = max_p·(avg − min_th)/(max_th − min_th)
//! between the thresholds, and in gentle mode p_b = max_p + (1 − max_p)·(avg − max_th)/max_th
//! between max_th and 2·max_th, the packet is dropped (or CE-marked) with
//! p_a = p_b / (1 − count·p_b), count being the packets since the last drop
//! (the paper's uniform spacing of drops, §7); above the random region every
//! packet is dropped. The thresholds count packets (ns-2's default mode).

use rand::Rng as _;

use super::{Fifo, Limits, Tally, Why};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::{Time, SEC};
pub use hscc_model::queue::RedParams;

/// What RED decides for an arriving packet, before the buffer limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decision {
    /// Queue it.
    Pass,
    /// Signal congestion with this probability p_a (drop or mark).
    Random(f64),
    /// Above the random region: signal congestion for certain.
    Forced,
}

/// A RED queue.
#[derive(Debug)]
pub struct Red {
    prm: RedParams,
    lim: Limits,
    q: Fifo,
    /// Average queue size, packets.
    avg: f64,
    /// Packets since the last drop or mark (−1 below min_th), as in the paper.
    count: i64,
    /// Typical packet time, ps (mean_pktsize at the link rate).
    s: Time,
    rng: Rng,
}

/// `b^e` by squaring: exact to the last bit on every platform.
fn pow(mut b: f64, mut e: u64) -> f64 {
    let mut r = 1.0;
    while e > 0 {
        if e & 1 == 1 {
            r *= b;
        }
        b *= b;
        e >>= 1;
    }
    r
}

impl Red {
    /// An empty queue on a link of `rate_bps`.
    pub fn new(prm: &RedParams, lim: Limits, rate_bps: u64, rng: Rng) -> Red {
        let s = (prm.mean_pktsize as u64 * 8 * SEC / rate_bps.max(1)).max(1);
        Red {
            prm: *prm,
            lim,
            q: Fifo::default(),
            avg: 0.0,
            count: -1,
            s,
            rng,
        }
    }

    /// The waiting packets.
    pub fn queue(&self) -> &Fifo {
        &self.q
    }

    /// The average queue size, packets.
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// Update the average for an arrival that finds `q` packets waiting,
    /// after `idle` ps of idle link (0 if it was busy): ns-2's estimator,
    /// avg·(1 − w_q)^(m+1) + w_q·q with m = ⌊idle / s⌋.
    pub fn update_avg(&mut self, q: usize, idle: Time) {
        let m = idle / self.s;
        self.avg = self.avg * pow(1.0 - self.prm.w_q, m + 1) + self.prm.w_q * q as f64;
    }

    /// The decision at the current average, counting this arrival (§4, Fig. 2).
    pub fn decide(&mut self) -> Decision {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            ..
        } = self.prm;
        let avg = self.avg;
        let p_b = if avg < min_th {
            self.count = -1;
            return Decision::Pass;
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            self.count = 0;
            return Decision::Forced;
        };
        self.count += 1;
        Decision::Random(spaced(p_b, self.count))
    }

    /// `p` arrives at `now`; `idle_since`: when the link went idle, if it is.
    pub fn enqueue(
        &mut self,
        mut p: Packet,
        now: Time,
        idle_since: Option<Time>,
        tally: &mut Tally,
    ) -> bool {
        self.update_avg(
            self.q.len(),
            idle_since.map_or(0, |t| now.saturating_sub(t)),
        );
        let decision = self.decide();
        let signal = match decision {
            Decision::Pass => false,
            Decision::Random(p_a) => self.rng.random::<f64>() < p_a,
            Decision::Forced => true,
        };
        if signal {
            let forced = decision == Decision::Forced;
            self.count = 0;
            if (forced && self.prm.harddrop) || !tally.mark(&mut p, self.prm.ecn) {
                tally.drop_arriving(&p, Why::Aqm);
                return false;
            }
        }
        if !self.q.fits(&p, &self.lim) {
            tally.drop_arriving(&p, Why::Overflow);
            return false;
        }
        self.q.push(p, &self.lim);
        true
    }

    /// The head packet.
    pub fn dequeue(&mut self) -> Option<Packet> {
        self.q.pop(&self.lim)
    }
}

/// The paper's p_a = p_b / (1 − count·p_b) (1 once count·p_b ≥ 1): drops
/// spaced uniformly between 1 and 1/p_b packets apart.
pub fn spaced(p_b: f64, count: i64) -> f64 {
    let c = count.max(0) as f64 * p_b;
    if c >= 1.0 {
        1.0
    } else {
        p_b / (1.0 - c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::{limits, pkt, Books};
    use crate::rng::{component_rng, Component};

    fn red(prm: RedParams) -> Red {
        // 10 Mbit/s: a 500-byte typical packet takes 400 µs.
        Red::new(
            &prm,
            limits(1000),
            10_000_000,
            component_rng(1, Component::Queue, 0),
        )
    }

    #[test]
    fn the_average_is_an_ewma_that_decays_over_idle_time() {
        let mut r = red(RedParams {
            w_q: 0.5,
            ..RedParams::default()
        });
        // Arrivals finding 0, 1, 2, 3 packets: 0, 0.5, 1.25, 2.125.
        for (q, want) in [(0, 0.0), (1, 0.5), (2, 1.25), (3, 2.125)] {
            r.update_avg(q, 0);
            assert_eq!(r.avg(), want);
        }
        // 1.3 ms idle = 3 typical packet times (400 µs): avg·0.5^(3+1) + 0.
        r.update_avg(0, 1_300 * crate::time::US);
        assert_eq!(r.avg(), 2.125 / 16.0);
    }

    #[test]
    fn drop_probability_in_the_linear_and_gentle_regions() {
        let mut r = red(RedParams::default());
        let mut at = |avg: f64, count: i64| {
            r.avg = avg;
            r.count = count - 1; // `decide` counts the arrival
            r.decide()
        };
        assert_eq!(at(4.9, 5), Decision::Pass);
        // min 5, max 15, max_p 0.1: avg 10 → p_b = 0.05.
        assert_eq!(at(10.0, 0), Decision::Random(0.05));
        // count 10: 0.05 / (1 − 0.5) = 0.1; count 20: count·p_b = 1 → certain.
        assert_eq!(at(10.0, 10), Decision::Random(0.1));
        assert_eq!(at(10.0, 20), Decision::Random(1.0));
        // Gentle: avg 22.5 → 0.1 + 0.9 · 7.5/15 = 0.55; at 2·max_th: forced.
        assert_eq!(at(22.5, 0), Decision::Random(0.1 + 0.9 * 0.5));
        assert_eq!(at(30.0, 0), Decision::Forced);
        let mut plain = red(RedParams {
            gentle: false,
            ..RedParams::default()
        });
        plain.avg = 15.0;
        assert_eq!(plain.decide(), Decision::Forced);
    }

    #[test]
    fn drops_are_spaced_between_one_and_one_over_p_b_packets() {
        // A constant average of 10 (w_q so small it does not move): p_b = 0.05.
        // After a drop the n-th arrival is dropped with 0.05/(1 − 0.05·n), so
        // P(gap = n) = Π(1 − p_k)·p_n = 0.05/0.95 for n = 1..=19: uniform, mean 10.
        let mut r = red(RedParams {
            w_q: 1e-300,
            ..RedParams::default()
        });
        r.avg = 10.0;
        let mut b = Books::default();
        let (mut gaps, mut last) = (Vec::new(), 0u64);
        for i in 1..=100_000u64 {
            if !r.enqueue(pkt(0, 0, false), 0, None, &mut b.tally()) {
                gaps.push(i - last);
                last = i;
            }
            r.dequeue();
        }
        assert!(
            gaps.iter().all(|&g| (1..=19).contains(&g)),
            "{:?}",
            gaps.iter().max()
        );
        let mean = gaps.iter().sum::<u64>() as f64 / gaps.len() as f64;
        assert!((mean - 10.0).abs() < 0.2, "{mean}");
        assert_eq!(b.counters.drops_aqm, gaps.len() as u64);
    }

    #[test]
    fn ecn_marks_in_the_random_region_and_drops_when_forced() {
        let mut r = red(RedParams {
            ecn: true,
            w_q: 1e-300,
            ..RedParams::default()
        });
        let mut b = Books::default();
        r.avg = 10.0;
        for _ in 0..1000 {
            assert!(r.enqueue(pkt(0, 0, true), 0, None, &mut b.tally()));
            r.dequeue();
        }
        assert!(
            b.counters.marks > 50 && b.counters.drops_aqm == 0,
            "{:?}",
            b.counters
        );
        // Not ECN-capable: dropped instead.
        let before = b.counters.marks;
        let dropped = (0..1000)
            .filter(|_| !r.enqueue(pkt(0, 0, false), 0, None, &mut b.tally()))
            .count();
        assert!(dropped > 50 && b.counters.marks == before);
        // Forced region: dropped even when ECN-capable (harddrop), marked without it.
        r.avg = 40.0;
        assert!(!r.enqueue(pkt(0, 0, true), 0, None, &mut b.tally()));
        r.prm.harddrop = false;
        r.avg = 40.0;
        assert!(r.enqueue(pkt(0, 0, true), 0, None, &mut b.tally()));
    }
}
