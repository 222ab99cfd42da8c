//! FQ-CoDel, flow-queue CoDel (RFC 8290; Linux net/sched/sch_fq_codel.c).
//!
//! Packets are hashed by flow into `flows` queues, each with its own CoDel
//! state ([`super::codel`]). A deficit round robin serves them (RFC 8290
//! §4.2): a flow that becomes active joins the *new* list with a deficit of
//! one quantum; the scheduler serves the head of the new list, else of the old
//! list; a flow whose deficit is spent gets another quantum and moves to the
//! tail of the old list; a flow found empty leaves its list, except that an
//! empty new flow moves to the old list while other flows wait there (so that
//! a flow cannot stay "new" by sending just under its quantum). When the
//! buffer is full the fattest flow pays: up to half its backlog is dropped
//! from its head, at most `drop_batch` packets (Linux `fq_codel_drop`).
//!
//! As in Linux, CoDel's "more than one packet queued" test looks at the
//! whole qdisc's backlog (`sch->qstats.backlog`), not the flow's. A flow is a
//! TCP connection's data, its ACKs, or a UDP flow: the 5-tuple Linux hashes,
//! here with a perturbation drawn from the link's queue stream (Linux seeds
//! its flow hash at random), so colliding flows differ from seed to seed.

use std::collections::VecDeque;

use rand::Rng as _;

use super::codel::{CodelVars, Source};
use super::{Limits, Tally, Why};
use crate::packet::{Kind, Packet};
use crate::rng::Rng;
use crate::time::Time;
pub use hscc_model::queue::FqCodelParams;

/// One flow queue (Linux `struct fq_codel_flow`).
#[derive(Debug, Default)]
struct Flow {
    q: VecDeque<Packet>,
    backlog: u64,
    deficit: i64,
    vars: CodelVars,
    /// In the new or the old list.
    listed: bool,
}

/// An FQ-CoDel queue.
#[derive(Debug)]
pub struct FqCodel {
    prm: FqCodelParams,
    lim: Limits,
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
    maxpacket: u64,
    perturb: u64,
}

/// SplitMix64's finaliser.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One flow's queue as CoDel's packet source, with the qdisc's totals.
struct FlowSource<'a> {
    f: &'a mut Flow,
    len: &'a mut usize,
    bytes: &'a mut u64,
    lim: &'a Limits,
}

impl Source for FlowSource<'_> {
    fn pop(&mut self) -> Option<Packet> {
        let p = self.f.q.pop_front()?;
        let w = self.lim.wire(&p);
        self.f.backlog -= w;
        *self.bytes -= w;
        *self.len -= 1;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        *self.bytes
    }
    fn wire(&self, p: &Packet) -> u64 {
        self.lim.wire(p)
    }
}

impl FqCodel {
    /// An empty queue; `rng` draws the hash perturbation.
    pub fn new(prm: &FqCodelParams, lim: Limits, mut rng: Rng) -> FqCodel {
        let flows = (0..prm.flows).map(|_| Flow::default()).collect();
        FqCodel {
            prm: *prm,
            lim,
            flows,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            maxpacket: 0,
            perturb: rng.random(),
        }
    }

    /// The flow queue of `p` (Linux `fq_codel_classify`: hash, then `reciprocal_scale`).
    pub fn classify(&self, p: &Packet) -> u32 {
        let kind = match p.kind {
            Kind::Data => 1u64,
            Kind::Ack => 2,
            Kind::Udp => 3,
        };
        let h = mix(kind << 56 ^ (p.gen as u64) << 32 ^ p.flow as u64 ^ self.perturb) >> 32;
        ((h * self.prm.flows as u64) >> 32) as u32
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Every packet waiting.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.flows.iter().flat_map(|f| f.q.iter())
    }

    /// Linux `fq_codel_enqueue` at `now`.
    pub fn enqueue(&mut self, p: Packet, now: Time, tally: &mut Tally) -> bool {
        let idx = self.classify(&p);
        let w = self.lim.wire(&p);
        let f = &mut self.flows[idx as usize];
        f.q.push_back(p);
        f.backlog += w;
        self.bytes += w;
        self.len += 1;
        if !f.listed {
            f.listed = true;
            f.deficit = self.prm.quantum as i64;
            self.new_flows.push_back(idx);
        }
        if self.len as u64 > self.lim.packets || self.bytes > self.lim.bytes {
            self.drop_from_fattest(now, tally);
        }
        true
    }

    /// Linux `fq_codel_drop`: up to half the fattest flow's backlog, from its head.
    fn drop_from_fattest(&mut self, now: Time, tally: &mut Tally) {
        let mut fat = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.backlog > self.flows[fat].backlog {
                fat = i;
            }
        }
        let f = &mut self.flows[fat];
        let threshold = f.backlog / 2;
        let (mut dropped, mut n) = (0, 0);
        while let Some(p) = f.q.pop_front() {
            let w = self.lim.wire(&p);
            f.backlog -= w;
            self.bytes -= w;
            self.len -= 1;
            tally.drop_queued(&p, w, now, Why::Overflow);
            dropped += w;
            n += 1;
            if n >= self.prm.drop_batch || dropped >= threshold {
                break;
            }
        }
    }

    /// Linux `fq_codel_dequeue` at `now`.
    pub fn dequeue(&mut self, now: Time, tally: &mut Tally) -> Option<Packet> {
        let prm = (self.prm.target, self.prm.interval, self.prm.ecn);
        loop {
            let (new, idx) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let f = &mut self.flows[idx as usize];
            if f.deficit <= 0 {
                f.deficit += self.prm.quantum as i64;
                self.take_head(new);
                self.old_flows.push_back(idx);
                continue;
            }
            let mut src = FlowSource {
                f,
                len: &mut self.len,
                bytes: &mut self.bytes,
                lim: &self.lim,
            };
            let mut vars = src.f.vars;
            let p = vars.dequeue(prm, now, &mut src, &mut self.maxpacket, tally);
            let f = &mut self.flows[idx as usize];
            f.vars = vars;
            match p {
                Some(p) => {
                    f.deficit -= self.lim.wire(&p) as i64;
                    return Some(p);
                }
                None => {
                    self.take_head(new);
                    // An empty new flow goes through the old list once, so that
                    // it cannot stay new (RFC 8290 §4.2).
                    if new && !self.old_flows.is_empty() {
                        self.old_flows.push_back(idx);
                    } else {
                        self.flows[idx as usize].listed = false;
                    }
                }
            }
        }
    }

    fn take_head(&mut self, new: bool) {
        if new {
            self.new_flows.pop_front();
        } else {
            self.old_flows.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::{limits, Books};
    use crate::rng::{component_rng, Component};
    use crate::time::MS;

    fn fq(n: u64) -> FqCodel {
        FqCodel::new(
            &FqCodelParams::default(),
            limits(n),
            component_rng(1, Component::Queue, 0),
        )
    }

    /// A 1500-byte packet of a flow, enqueued at `t`.
    fn of(flow: u32, t: Time) -> Packet {
        let mut p = Packet::data(flow, 0, 1500, 0, 0);
        p.t = t;
        p
    }

    /// Two flows that land in different queues.
    fn two_flows(q: &FqCodel) -> (u32, u32) {
        let b = (1..100)
            .find(|&b| q.classify(&of(b, 0)) != q.classify(&of(0, 0)))
            .unwrap();
        (0, b)
    }

    #[test]
    fn deficit_round_robin_over_new_then_old_flows() {
        let mut q = fq(1000);
        let mut b = Books::default();
        let (a, c) = two_flows(&q);
        for _ in 0..10 {
            q.enqueue(of(a, 0), 0, &mut b.tally());
            q.enqueue(of(c, 0), 0, &mut b.tally());
        }
        // Quantum 1514: A sends 1500 (deficit 14 > 0), then 1500 more (−1486),
        // then gets +1514 (28) and moves to the old list; C the same; then the
        // old list alternates: A (28 → −1472 → +1514 = 42), C, A, C …
        let order: Vec<u32> = (0..8)
            .map(|_| q.dequeue(0, &mut b.tally()).unwrap().flow)
            .collect();
        assert_eq!(order, vec![a, a, c, c, a, c, a, c]);
    }

    #[test]
    fn a_sparse_flow_goes_first_once() {
        let mut q = fq(1000);
        let mut b = Books::default();
        let (a, c) = two_flows(&q);
        for _ in 0..10 {
            q.enqueue(of(a, 0), 0, &mut b.tally());
        }
        q.dequeue(0, &mut b.tally());
        q.dequeue(0, &mut b.tally());
        q.dequeue(0, &mut b.tally()); // A is in the old list now
        q.enqueue(of(c, 0), 0, &mut b.tally());
        assert_eq!(
            q.dequeue(0, &mut b.tally()).unwrap().flow,
            c,
            "a new flow is served before old ones"
        );
        assert_eq!(q.dequeue(0, &mut b.tally()).unwrap().flow, a);
        // C, found empty while new with A waiting in the old list, went
        // through the old list (RFC 8290 §4.2) instead of leaving at once.
        assert!(q.new_flows.is_empty());
        assert!(
            !q.flows[q.classify(&of(c, 0)) as usize].listed,
            "then left it, empty, on its turn there"
        );
    }

    #[test]
    fn overflow_drops_half_the_fattest_flows_backlog_from_its_head() {
        let mut q = fq(10);
        let mut b = Books::default();
        let (a, c) = two_flows(&q);
        for i in 0..8 {
            q.enqueue(of(a, i), 0, &mut b.tally());
        }
        for _ in 0..3 {
            q.enqueue(of(c, 0), 0, &mut b.tally());
        }
        // 11 > 10: A holds 12 000 bytes; 1500-byte drops from its head until
        // 6000 bytes are gone: four packets (enqueued at 0..4 ps).
        assert_eq!(
            (b.counters.drops_queue, b.queued.packets, q.len()),
            (4, 4, 7)
        );
        assert_eq!(q.dequeue(0, &mut b.tally()).unwrap().t, 4);
    }

    #[test]
    fn each_flow_runs_codel_on_its_own_sojourn() {
        let mut q = fq(10_000);
        let mut b = Books::default();
        let (a, c) = two_flows(&q);
        for _ in 0..600 {
            q.enqueue(of(a, 0), 0, &mut b.tally());
        }
        // C sends one packet per millisecond, which leaves at once: its sojourn
        // stays 0, and no packet of C is ever dropped, while A (queued since 0)
        // gets CoDel's drops at 105, 205, 276, … ms as a lone CoDel queue would.
        let mut drops_c = 0;
        for t in 0..300 {
            let now = t * MS;
            q.enqueue(of(c, now), now, &mut b.tally());
            for _ in 0..2 {
                let before = b.queued.packets;
                let p = q.dequeue(now, &mut b.tally()).unwrap();
                if p.flow == c && b.queued.packets > before {
                    drops_c += 1;
                }
            }
        }
        assert_eq!(drops_c, 0);
        // Not ECN-capable: dropped, not marked (ecn on by default).
        assert_eq!((b.counters.drops_aqm, b.counters.marks), (3, 0));
    }
}
