//! Unidirectional links: a DropTail queue, a transmitter and a delay line.
//!
//! The transmitter serializes one packet at a time at the link rate. A packet
//! that finds the link idle starts at once; otherwise it waits in the queue
//! (dropped when the queue is full). After serialization it enters the delay
//! line, a FIFO of packets in propagation, and arrives at the far end after
//! the propagation delay (plus optional Gaussian jitter that never reorders).
//! Only the queue head and the delay-line head have events scheduled, so the
//! event queue holds O(links), not O(packets in flight), and memory is bounded
//! by what is in flight.
//!
//! Serialization time is computed in integer picoseconds with the remainder
//! carried from packet to packet, so a link delivers exactly its rate over any
//! run length (no drift at rates like 700 Mbit/s).

use std::collections::VecDeque;

use rand::Rng as _;
use rand_distr::{Distribution, StandardNormal};

use crate::config::{Buffer, LinkConfig};
use crate::event::{Event, EventQueue};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::stats::{LinkCounters, QueueDelayHistogram};
use crate::time::{Time, SEC};

/// A unidirectional link in the running simulation.
#[derive(Debug)]
pub struct Link {
    /// Rate, bit/s.
    pub rate_bps: u64,
    /// Propagation delay.
    pub delay: Time,
    limit_pkts: u64,
    limit_bytes: u64,
    loss_threshold: u64,
    jitter_ps: f64,
    rng: Rng,
    queue: VecDeque<Packet>,
    queue_bytes: u64,
    busy_until: Time,
    tx_remainder: u64,
    line: VecDeque<Packet>,
    last_arrival: Time,
    tx_scheduled: bool,
    /// Node at the far end.
    pub to: u32,
    /// Counters since the start of the run.
    pub counters: LinkCounters,
    /// Queuing-delay distribution (recorded only for monitored links).
    pub qdelay: Option<QueueDelayHistogram>,
}

/// What happened to a packet offered to a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Accepted (transmitting or queued).
    Accepted,
    /// Dropped because the queue was full.
    QueueDrop,
    /// Dropped by the random-loss process.
    RandomDrop,
}

impl Link {
    /// Build a running link from its configuration.
    pub fn new(cfg: &LinkConfig, to: u32, rng: Rng, monitored: bool) -> Link {
        let (limit_pkts, limit_bytes) = match cfg.buffer {
            Buffer::Packets(n) => (n, u64::MAX),
            Buffer::Bytes(b) => (u64::MAX, b),
        };
        // A packet is lost when a uniform u64 falls below p·2^64.
        let loss_threshold = if cfg.loss >= 1.0 { u64::MAX } else { (cfg.loss * 18_446_744_073_709_551_616.0) as u64 };
        Link {
            rate_bps: cfg.rate_bps,
            delay: cfg.delay,
            limit_pkts,
            limit_bytes,
            loss_threshold,
            jitter_ps: cfg.jitter as f64,
            rng,
            queue: VecDeque::new(),
            queue_bytes: 0,
            busy_until: 0,
            tx_remainder: 0,
            line: VecDeque::new(),
            last_arrival: 0,
            tx_scheduled: false,
            to,
            counters: LinkCounters::default(),
            qdelay: monitored.then(QueueDelayHistogram::new),
        }
    }

    /// Packets waiting in the queue (not counting the one being serialized).
    #[inline]
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Bytes waiting in the queue.
    #[inline]
    pub fn queue_bytes(&self) -> u64 {
        self.queue_bytes
    }

    /// Packets serialized and propagating (in the delay line).
    #[inline]
    pub fn in_propagation(&self) -> usize {
        self.line.len()
    }

    /// Every packet on this link, queued or propagating.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.queue.iter().chain(self.line.iter())
    }

    /// Offer a packet arriving at this link at `now`. `id` is this link's index.
    #[inline]
    pub fn offer(&mut self, mut p: Packet, now: Time, id: u32, q: &mut EventQueue) -> Offer {
        if self.loss_threshold != 0 && self.rng.random::<u64>() < self.loss_threshold {
            self.counters.drops_random += 1;
            return Offer::RandomDrop;
        }
        if self.queue.is_empty() && now >= self.busy_until {
            self.record_qdelay(0);
            self.transmit(p, now, id, q);
            return Offer::Accepted;
        }
        if self.queue.len() as u64 >= self.limit_pkts || self.queue_bytes + p.size as u64 > self.limit_bytes {
            self.counters.drops_queue += 1;
            return Offer::QueueDrop;
        }
        p.t = now;
        self.queue_bytes += p.size as u64;
        self.queue.push_back(p);
        if !self.tx_scheduled {
            self.tx_scheduled = true;
            q.push(self.busy_until, Event::LinkTx(id));
        }
        Offer::Accepted
    }

    /// The transmitter is free at `now`: serialize the next queued packet.
    #[inline]
    pub fn on_tx_done(&mut self, now: Time, id: u32, q: &mut EventQueue) {
        self.tx_scheduled = false;
        let Some(p) = self.queue.pop_front() else { return };
        self.queue_bytes -= p.size as u64;
        self.record_qdelay(now - p.t);
        self.transmit(p, now, id, q);
        if !self.queue.is_empty() {
            self.tx_scheduled = true;
            q.push(self.busy_until, Event::LinkTx(id));
        }
    }

    #[inline]
    fn record_qdelay(&mut self, d: Time) {
        if let Some(h) = &mut self.qdelay {
            h.record(d);
        }
    }

    /// Start serializing `p` at `now` (the link is idle).
    #[inline]
    fn transmit(&mut self, mut p: Packet, now: Time, id: u32, q: &mut EventQueue) {
        let bits_ps = p.size as u64 * 8 * SEC + self.tx_remainder;
        let tx_time = bits_ps / self.rate_bps;
        self.tx_remainder = bits_ps % self.rate_bps;
        self.busy_until = now + tx_time;
        self.counters.tx_packets += 1;
        self.counters.tx_bytes += p.size as u64;
        let mut arrival = self.busy_until + self.delay;
        if self.jitter_ps > 0.0 {
            let z: f64 = StandardNormal.sample(&mut self.rng);
            let d = (self.delay as f64 + z * self.jitter_ps).max(0.0) as Time;
            arrival = (self.busy_until + d).max(self.last_arrival);
        }
        self.last_arrival = arrival;
        p.t = arrival;
        if self.line.is_empty() {
            q.push(arrival, Event::LinkArrive(id));
        }
        self.line.push_back(p);
    }

    /// The delay-line head arrives at `now`: pop it and schedule the next head.
    #[inline]
    pub fn on_arrive(&mut self, now: Time, id: u32, q: &mut EventQueue) -> Packet {
        let p = self.line.pop_front().expect("arrival event without a packet");
        debug_assert_eq!(p.t, now);
        if let Some(next) = self.line.front() {
            q.push(next.t, Event::LinkArrive(id));
        }
        p
    }

    /// Change the rate from now on.
    pub fn set_rate(&mut self, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.tx_remainder = 0;
    }
}
