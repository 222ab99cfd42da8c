//! Unidirectional links: a DropTail queue, a transmitter and propagation.
//!
//! The transmitter serializes one packet at a time at the link rate; a packet
//! that finds it busy waits in the queue (dropped when the queue is full), then
//! propagates for the link delay (plus optional Gaussian jitter that never
//! reorders). For a FIFO queue at a known rate, a packet's transmission start
//! and arrival time at the far end are fixed the moment it is enqueued, so the
//! link keeps one FIFO of packets with their arrival times and schedules an
//! event only for its head (htsim's trick): one event per packet per hop, the
//! event queue holds O(links) entries, and memory is bounded by what is in
//! flight. The queue occupancy is the set of packets whose transmission has not
//! started yet, tracked in a second small FIFO of start times.
//!
//! Queue limits count packets (or bytes) waiting, not the one being serialized,
//! as ns-2's DropTail does. Serialization time is computed in integer
//! picoseconds with the remainder carried from packet to packet, so a link
//! delivers exactly its rate over any run length (no drift at 700 Mbit/s).

use std::collections::VecDeque;

use rand::Rng as _;
use rand_distr::{Distribution, StandardNormal};

use crate::config::{Buffer, LinkConfig};
use crate::event::{Event, EventQueue};
use crate::limits::MAX_QUEUE_PACKETS;
use crate::packet::{Packet, SLOW_START};
use crate::rng::Rng;
use crate::stats::{LinkCounters, DelayHistogram};
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
    waiting: VecDeque<(Time, u32)>,
    queue_bytes: u64,
    busy_until: Time,
    tx_remainder: u64,
    /// (size, quotient, remainder) of size·8·SEC / rate for the last two sizes seen.
    ser_cache: [(u32, u64, u64); 2],
    line: VecDeque<Packet>,
    last_arrival: Time,
    /// Node at the far end.
    pub to: u32,
    /// Counters since the start of the run.
    pub counters: LinkCounters,
    /// Queuing-delay distribution (recorded only for monitored links).
    pub qdelay: Option<DelayHistogram>,
    /// Σ bytes × queuing delay (bytes·ps) of packets that entered the queue:
    /// by Little's law, divided by the run length it is the mean backlog in bytes.
    pub queue_byte_time: u128,
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
            // Small packets in a byte limit still stop at the hard cap.
            Buffer::Bytes(b) => (MAX_QUEUE_PACKETS, b),
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
            waiting: VecDeque::new(),
            queue_bytes: 0,
            busy_until: 0,
            tx_remainder: 0,
            ser_cache: [(0, 0, 0); 2],
            line: VecDeque::new(),
            last_arrival: 0,
            to,
            counters: LinkCounters::default(),
            qdelay: monitored.then(DelayHistogram::new),
            queue_byte_time: 0,
        }
    }

    /// Forget queue entries whose transmission has started by `now`.
    #[inline]
    pub fn drain(&mut self, now: Time) {
        while let Some(&(start, size)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.queue_bytes -= size as u64;
        }
    }

    /// Packets waiting in the queue at the last [`Link::drain`] (not counting the one being serialized).
    #[inline]
    pub fn queue_len(&self) -> usize {
        self.waiting.len()
    }

    /// Bytes waiting in the queue at the last [`Link::drain`].
    #[inline]
    pub fn queue_bytes(&self) -> u64 {
        self.queue_bytes
    }

    /// Packets on the link: queued, being serialized or propagating.
    #[inline]
    pub fn in_flight(&self) -> usize {
        self.line.len()
    }

    /// Every packet on the link.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.line.iter()
    }

    /// Offer a packet arriving at this link at `now` as hop `hop` of its route.
    /// `id` is this link's index.
    #[inline]
    pub fn offer(&mut self, p: &Packet, hop: u8, now: Time, id: u32, q: &mut EventQueue) -> Offer {
        if self.loss_threshold != 0 && self.rng.random::<u64>() < self.loss_threshold {
            self.counters.drops_random += 1;
            return Offer::RandomDrop;
        }
        self.drain(now);
        let start = self.busy_until.max(now);
        if start > now {
            if self.waiting.len() as u64 >= self.limit_pkts || self.queue_bytes + p.size as u64 > self.limit_bytes {
                self.counters.drops_queue += 1;
                if p.flags & SLOW_START != 0 {
                    self.counters.drops_queue_slow_start += 1;
                }
                return Offer::QueueDrop;
            }
            self.waiting.push_back((start, p.size));
            self.queue_bytes += p.size as u64;
        }
        self.record_qdelay(start - now);
        self.queue_byte_time += p.size as u128 * (start - now) as u128;
        // Saturating: at 1 bit/s a long queue reaches past the end of time; its packets never arrive.
        self.busy_until = start.saturating_add(self.serialization(p.size));
        let mut arrival = self.busy_until.saturating_add(self.delay);
        if self.jitter_ps > 0.0 {
            let z: f64 = StandardNormal.sample(&mut self.rng);
            let d = (self.delay as f64 + z * self.jitter_ps).max(0.0) as Time;
            arrival = self.busy_until.saturating_add(d).max(self.last_arrival);
        }
        self.last_arrival = arrival;
        if self.line.is_empty() {
            q.push(arrival, Event::LinkArrive(id));
        }
        // Copy first, then write the per-hop fields in place: writing them into
        // `p` just before the copy would stall on store forwarding.
        self.line.push_back(*p);
        let slot = self.line.back_mut().expect("just pushed");
        slot.t = arrival;
        slot.hop = hop;
        Offer::Accepted
    }

    #[inline]
    fn record_qdelay(&mut self, d: Time) {
        if let Some(h) = &mut self.qdelay {
            h.record(d);
        }
    }

    /// Exact serialization time of `size` bytes, carrying the remainder of
    /// size·8·SEC / rate from packet to packet; divisions only for new sizes.
    #[inline]
    fn serialization(&mut self, size: u32) -> Time {
        let (q, r) = match self.ser_cache.iter().find(|c| c.0 == size) {
            Some(&(_, q, r)) => (q, r),
            None => {
                let bits_ps = size as u64 * 8 * SEC;
                let (q, r) = (bits_ps / self.rate_bps, bits_ps % self.rate_bps);
                self.ser_cache = [(size, q, r), self.ser_cache[0]];
                (q, r)
            }
        };
        self.tx_remainder += r;
        if self.tx_remainder >= self.rate_bps {
            self.tx_remainder -= self.rate_bps;
            return q + 1;
        }
        q
    }

    /// The FIFO head arrives at `now`: pop it and schedule the next head.
    #[inline]
    pub fn on_arrive(&mut self, now: Time, id: u32, q: &mut EventQueue) -> Packet {
        let (p, next) = self.pop_arrival(now);
        if let Some(t) = next {
            q.push(t, Event::LinkArrive(id));
        }
        p
    }

    /// The FIFO head arrives at `now`: pop it; return it and the arrival time
    /// of the next head, which the caller must schedule (or handle at once).
    #[inline]
    pub fn pop_arrival(&mut self, now: Time) -> (Packet, Option<Time>) {
        let p = self.line.pop_front().expect("arrival event without a packet");
        debug_assert_eq!(p.t, now);
        // Counted on arrival so that utilization never includes bytes still queued.
        self.counters.tx_packets += 1;
        self.counters.tx_bytes += p.size as u64;
        (p, self.line.front().map(|n| n.t))
    }

    /// Change the rate at `now`: the packet being serialized finishes at the
    /// old rate; queued packets are rescheduled at the new one.
    pub fn set_rate(&mut self, now: Time, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.tx_remainder = 0;
        self.ser_cache = [(0, 0, 0); 2];
        self.reschedule_queue(now);
    }

    /// Change the propagation delay at `now`: packets already propagating keep
    /// their arrival times; the others use the new delay, never arriving before
    /// a packet ahead of them (the link stays FIFO).
    pub fn set_delay(&mut self, now: Time, delay: Time) {
        self.delay = delay;
        self.reschedule_queue(now);
    }

    /// Recompute transmission starts and arrivals of the packets still queued.
    /// They are the last `waiting.len()` packets of the FIFO, back to back
    /// behind the one being serialized (whose arrival, the FIFO head's or
    /// later, does not change, so the scheduled head event stays valid).
    fn reschedule_queue(&mut self, now: Time) {
        self.drain(now);
        let n = self.waiting.len();
        if n == 0 {
            return;
        }
        let base = self.line.len() - n;
        debug_assert!(base >= 1, "a queued packet waits behind one in service");
        let mut t = self.waiting[0].0;
        let mut last = self.line[base - 1].t;
        for i in 0..n {
            let size = self.waiting[i].1;
            self.waiting[i].0 = t;
            t += self.serialization(size);
            last = (t + self.delay).max(last);
            self.line[base + i].t = last;
        }
        self.busy_until = t;
        self.last_arrival = last;
    }
}
