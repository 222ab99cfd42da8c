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
//! flight. A hop that only this link feeds, and that every packet of this
//! link goes on to, can be folded into it: one event for the two
//! (`link/fold.rs`). The queue occupancy is the set of packets whose transmission has not
//! started yet, tracked in a second small FIFO of start times.
//!
//! Queue limits count packets (or bytes) waiting, not the one being serialized:
//! a limit of N packets refuses a packet when N wait. ns-2.35's DropTail
//! refuses one when N − 1 wait, so the same limit holds one packet fewer there
//! (docs/validation/ns2.md, "The queue limit").
//!
//! Serialization time is computed in integer picoseconds with the remainder
//! carried from packet to packet, so a link delivers exactly its rate over any
//! run length (no drift at 700 Mbit/s).
//!
//! Options (docs/links-and-web.md, each off by default and free when off):
//! - **loss point**: random loss before the queue (default) or at the far end,
//!   after the packet used the queue and the transmitter (ns-3's receive error
//!   model);
//! - **framing**: link-layer bytes added to every packet for serialization and
//!   byte buffers;
//! - **reordering jitter**: each packet's propagation delay drawn on its own,
//!   so packets may overtake each other. The propagating packets are then kept
//!   in a heap ordered by arrival, with one pending wake-up in the event queue:
//!   O(log n) per packet, no allocation once the heap has grown (`link/reorder.rs`);
//! - **ticks**: the queue served in clock ticks as Dummynet serves a pipe at
//!   HZ = 1/tick: every tick the link earns rate × tick bits of credit and
//!   releases, at the tick, every queued packet the credit pays for; departure
//!   times are still fixed at enqueue (the credit chain is FIFO), so the FIFO
//!   and its single head event stay (`link/ticks.rs`);
//! - **queue discipline**: RED, CoDel, FQ-CoDel or PIE ([`crate::queue`])
//!   instead of DropTail, served at dequeue (`link/aqm.rs`).
//!
//! A rate or delay changed during a run reschedules the queued packets
//! (`link/change.rs`).

mod aqm;
mod change;
mod fold;
mod reorder;
mod ticks;

use std::collections::VecDeque;

use rand::Rng as _;
use rand_distr::{Distribution, StandardNormal};

use crate::capture::{log_drop, DropCause, DropLog, Tap};
use crate::config::{Buffer, LinkConfig, LossPoint};
use crate::deque::rewind_if_empty;
use crate::event::{Event, EventQueue};
use crate::limits::MAX_QUEUE_PACKETS;
use crate::packet::Packet;
use crate::queue::{Discipline, Limits, QueuedDrops};
use crate::rng::Rng;
use crate::stats::{DelayHistogram, LinkCounters};
use crate::time::{Time, SEC};
use fold::Fold;
use reorder::{Propagating, Reorder};
use ticks::Ticks;

/// A unidirectional link in the running simulation.
///
/// Laid out in declaration order (`repr(C)`) by what each packet touches: a
/// run with thousands of links finds few of them in cache, so an arrival
/// reads line 0 alone (its flags, the delay line, the crossing counters) and
/// an offer without a queue lines 0, 2 and 3. The comments mark the lines;
/// a check below the struct keeps them.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Link {
    // Line 0: every arrival and offer.
    /// Ticks, reordering or framing: offers take [`Link::offer_with_options`].
    options: bool,
    /// Reordering or loss after the queue: arrivals take the caller's slower path.
    special_arrivals: bool,
    /// Hops are folded into this link (`link/fold.rs`).
    feeds_folded: bool,
    /// Queuing delays are recorded (`qdelay`): read here, so that other
    /// links' offers do not read the line that holds the histogram.
    monitored: bool,
    /// Node at the far end.
    pub to: u32,
    /// The host line whose segments this link takes in when next touched
    /// (`sim/lazy.rs`); `u32::MAX`: none.
    pub(crate) lazy_line: u32,
    /// The link this one is a folded hop of; `u32::MAX`: it is not.
    fed_by: u32,
    /// Packets propagating, in arrival order.
    line: VecDeque<Packet>,
    /// Counters since the start of the run; the first two (what crossed)
    /// end line 0, the drops fill most of line 1.
    pub counters: LinkCounters,
    // Line 1, the rest: what a queue or a monitor needs.
    queue_bytes: u64,
    /// Queuing-delay distribution (recorded only for monitored links).
    pub qdelay: Option<Box<DelayHistogram>>,
    // Line 2: transmission and propagation.
    /// A packet is lost before the queue when a uniform u64 falls below this.
    loss_threshold: u64,
    busy_until: Time,
    /// Rate, bit/s.
    pub rate_bps: u64,
    tx_remainder: u64,
    /// Propagation delay.
    pub delay: Time,
    last_arrival: Time,
    /// size·8·SEC / rate as quotient and remainder for the last two sizes seen.
    ser_size: [u32; 2],
    jitter_ps: f64,
    // Line 3: the queue's start times and the rest of serialization.
    waiting: VecDeque<(Time, u32)>,
    ser_quotient: [u64; 2],
    ser_remainder: [u64; 2],
    // The rest: what queues, options and limits.
    /// Σ bytes × queuing delay (bytes·ps) of packets that entered the queue:
    /// by Little's law, divided by the run length it is the mean backlog in
    /// bytes (frames: packet plus framing, as the byte limit counts them).
    pub queue_byte_time: u128,
    limit_pkts: u64,
    limit_bytes: u64,
    /// The queue discipline, when not DropTail (`waiting` then stays empty).
    aqm: Option<Box<aqm::AqmState>>,
    /// … and at the far end when it falls below this (one of the two is 0).
    loss_after: u64,
    /// Link-layer bytes added to every packet.
    pub framing: u32,
    rng: Rng,
    /// Tick service (Dummynet); `len == 0`: continuous.
    ticks: Ticks,
    /// Propagating packets in arrival order when jitter may reorder them.
    reorder: Option<Reorder>,
    /// Every packet dropped here, for a captured link ([`crate::capture`]).
    pub drop_log: Option<Box<DropLog>>,
    /// Every packet offered here, for a captured link.
    tap: Option<Box<Tap>>,
    /// What a link with folded hops, or a folded hop, has yet to count (`link/fold.rs`).
    fold: Fold,
}

// The cache line of each field a packet touches (`Link`'s doc), checked
// when the crate is built.
const _: () = {
    use std::mem::{offset_of, size_of};
    const fn line(offset: usize, size: usize) -> usize {
        assert!(
            offset / 64 == (offset + size - 1) / 64,
            "a hot field across two lines"
        );
        offset / 64
    }
    assert!(line(offset_of!(Link, fed_by), 4) == 0);
    assert!(line(offset_of!(Link, line), size_of::<VecDeque<Packet>>()) == 0);
    assert!(line(offset_of!(Link, counters), 16) == 0); // tx_packets and tx_bytes
    assert!(line(offset_of!(Link, qdelay), 8) == 1);
    assert!(line(offset_of!(Link, loss_threshold), 8) == 2);
    assert!(line(offset_of!(Link, jitter_ps), 8) == 2);
    assert!(
        line(
            offset_of!(Link, waiting),
            size_of::<VecDeque<(Time, u32)>>()
        ) == 3
    );
    assert!(line(offset_of!(Link, ser_remainder), 16) == 3);
};

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
        let threshold = if cfg.loss >= 1.0 {
            u64::MAX
        } else {
            (cfg.loss * 18_446_744_073_709_551_616.0) as u64
        };
        let reorders = cfg.jitter_reorders && cfg.jitter > 0;
        let aqm = cfg.queue.is_aqm().then(|| {
            // The discipline's own stream, derived from the link's without drawing from it.
            let queue_rng = <Rng as rand::SeedableRng>::seed_from_u64(rng.clone().random());
            let lim = Limits {
                packets: limit_pkts,
                bytes: limit_bytes,
                framing: cfg.framing,
            };
            let disc = Discipline::new(&cfg.queue, lim, cfg.rate_bps, queue_rng).expect("an AQM");
            Box::new(aqm::AqmState {
                disc,
                queued: QueuedDrops::default(),
            })
        });
        let (loss_threshold, loss_after) = match cfg.loss_point {
            LossPoint::BeforeQueue => (threshold, 0),
            LossPoint::AfterQueue => (0, threshold),
        };
        Link {
            rate_bps: cfg.rate_bps,
            delay: cfg.delay,
            limit_pkts,
            limit_bytes,
            loss_threshold,
            loss_after,
            framing: cfg.framing,
            jitter_ps: cfg.jitter as f64,
            rng,
            waiting: VecDeque::new(),
            queue_bytes: 0,
            busy_until: 0,
            tx_remainder: 0,
            ser_size: [0; 2],
            ser_quotient: [0; 2],
            ser_remainder: [0; 2],
            line: VecDeque::new(),
            last_arrival: 0,
            ticks: Ticks {
                len: cfg.tick,
                ..Ticks::default()
            },
            // Without jitter every packet has the same delay: nothing to reorder.
            reorder: reorders.then(Reorder::default),
            options: cfg.tick != 0 || reorders || cfg.framing != 0 || aqm.is_some(),
            special_arrivals: reorders || loss_after != 0 || aqm.is_some(),
            to,
            counters: LinkCounters::default(),
            qdelay: monitored.then(|| Box::new(DelayHistogram::new())),
            monitored,
            queue_byte_time: 0,
            aqm,
            drop_log: None,
            tap: None,
            fold: Fold::default(),
            feeds_folded: false,
            fed_by: u32::MAX,
            lazy_line: u32::MAX,
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
        rewind_if_empty(&mut self.waiting);
    }

    /// Bring the queue up to `now`: [`Link::drain`], or on a link with a
    /// queue discipline the dequeues due by then. `id` is
    /// this link's index.
    pub fn settle(&mut self, now: Time, id: u32, q: &mut EventQueue) {
        if self.aqm.is_some() {
            self.service(now, id, q);
        } else {
            self.drain(now);
        }
    }

    /// Packets waiting in the queue at the last [`Link::settle`] (not counting the one being serialized).
    #[inline]
    pub fn queue_len(&self) -> usize {
        match &self.aqm {
            Some(a) => a.disc.len(),
            None => self.waiting.len(),
        }
    }

    /// Bytes waiting in the queue at the last [`Link::settle`] (frames: packets plus framing).
    #[inline]
    pub fn queue_bytes(&self) -> u64 {
        match &self.aqm {
            Some(a) => a.disc.bytes(),
            None => self.queue_bytes,
        }
    }

    /// Packets on the link: queued, being serialized or propagating; on a
    /// folded hop (`link/fold.rs`), also those on their way to it through the
    /// link that feeds it, from the moment that link takes them.
    #[inline]
    pub fn in_flight(&self) -> usize {
        self.line.len()
            + self.reorder.as_ref().map_or(0, |r| r.heap.len())
            + self.aqm.as_ref().map_or(0, |a| a.disc.len())
    }

    /// Every packet on the link (in arrival order unless the link reorders or
    /// has a queue discipline, whose queued packets come last).
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.line
            .iter()
            .chain(
                self.reorder
                    .iter()
                    .flat_map(|r| r.heap.iter().map(|e| &e.item)),
            )
            .chain(self.aqm.iter().flat_map(|a| a.disc.packets()))
    }

    /// When the packet at the head of the in-order line arrives, if any.
    #[inline]
    pub fn head_arrival(&self) -> Option<Time> {
        self.line.front().map(|p| p.t)
    }

    /// Whether propagating packets may overtake each other: arrivals come
    /// from [`Link::pop_due`] and [`Link::rearm`], not [`Link::pop_arrival`].
    #[inline]
    pub fn reorders(&self) -> bool {
        self.reorder.is_some()
    }

    /// Whether arrivals need more than [`Link::pop_arrival`]: the link
    /// reorders, may lose packets at its far end ([`Link::corrupted`]) or has
    /// a queue discipline ([`Link::pop_arrival_aqm`]).
    #[inline]
    pub fn special_arrivals(&self) -> bool {
        self.special_arrivals
    }

    /// Bytes the transmitter has sent over the link's wire so far (packets that
    /// reached the far end, with their framing): the link was busy for
    /// `wire_bytes · 8 / rate` seconds.
    pub fn wire_bytes(&self) -> u64 {
        self.counters.tx_bytes + self.framing as u64 * self.counters.tx_packets
    }

    /// Offer a packet arriving at this link at `now` as hop `hop` of its route.
    /// `id` is this link's index.
    #[inline]
    pub fn offer(&mut self, p: &Packet, hop: u8, now: Time, id: u32, q: &mut EventQueue) -> Offer {
        if self.options {
            return self.offer_with_options(p, hop, now, id, q);
        }
        let (start, arrival) = match self.admit(p, now) {
            Ok(times) => times,
            Err(drop) => return drop,
        };
        self.count_wait(p.size, start - now);
        self.enter_line(p, arrival, hop, id, q);
        Offer::Accepted
    }

    /// Admit `p` arriving at `now` to a link without options: when its
    /// transmission starts and when it reaches the far end, or why it was dropped.
    #[inline(always)]
    fn admit(&mut self, p: &Packet, now: Time) -> Result<(Time, Time), Offer> {
        if self.loss_threshold != 0 && self.rng.random::<u64>() < self.loss_threshold {
            self.counters.drops_random += 1;
            log_drop(&mut self.drop_log, now, p, DropCause::Random);
            return Err(Offer::RandomDrop);
        }
        self.drain(now);
        let start = self.busy_until.max(now);
        if start > now {
            if self.waiting.len() as u64 >= self.limit_pkts
                || self.queue_bytes + p.size as u64 > self.limit_bytes
            {
                return Err(self.queue_drop(p, now));
            }
            self.waiting.push_back((start, p.size));
            self.queue_bytes += p.size as u64;
        }
        // Saturating: at 1 bit/s a long queue reaches past the end of time; its packets never arrive.
        self.busy_until = start.saturating_add(self.serialization(p.size));
        let mut arrival = self.busy_until.saturating_add(self.delay);
        if self.jitter_ps > 0.0 {
            arrival = self
                .busy_until
                .saturating_add(self.jittered_delay())
                .max(self.last_arrival);
        }
        Ok((start, arrival))
    }

    /// A packet's propagation delay with the link's Gaussian jitter, at least 0.
    #[inline(always)]
    fn jittered_delay(&mut self) -> Time {
        let z: f64 = StandardNormal.sample(&mut self.rng);
        (self.delay as f64 + z * self.jitter_ps).max(0.0) as Time
    }

    /// Put `p` on the in-order delay line, arriving at `arrival` (not before the packet ahead).
    #[inline(always)]
    fn enter_line(&mut self, p: &Packet, arrival: Time, hop: u8, id: u32, q: &mut EventQueue) {
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
    }

    #[cold]
    fn queue_drop(&mut self, p: &Packet, now: Time) -> Offer {
        self.counters.count_queue_drop(p);
        log_drop(&mut self.drop_log, now, p, DropCause::Queue);
        Offer::QueueDrop
    }

    /// [`Link::offer`] on a link served in ticks, whose jitter reorders or
    /// with framing: out of line, so that the common path stays as it was.
    #[inline(never)]
    fn offer_with_options(
        &mut self,
        p: &Packet,
        hop: u8,
        now: Time,
        id: u32,
        q: &mut EventQueue,
    ) -> Offer {
        if let Some(tap) = &mut self.tap {
            tap.keep(now, p);
        }
        if self.aqm.is_some() {
            return self.offer_aqm(p, hop, now, id, q);
        }
        if self.loss_threshold != 0 && self.rng.random::<u64>() < self.loss_threshold {
            self.counters.drops_random += 1;
            log_drop(&mut self.drop_log, now, p, DropCause::Random);
            return Offer::RandomDrop;
        }
        self.drain(now);
        let wire = p.size + self.framing;
        // When the packet leaves the queue; with ticks, also the credit chain after it.
        let (start, tick) = if self.ticks.len == 0 {
            (self.busy_until.max(now), None)
        } else {
            self.tick_release(wire, now)
        };
        if start > now {
            if self.waiting.len() as u64 >= self.limit_pkts
                || self.queue_bytes + wire as u64 > self.limit_bytes
            {
                return self.queue_drop(p, now);
            }
            self.waiting.push_back((start, wire));
            self.queue_bytes += wire as u64;
        }
        self.count_wait(wire, start - now);
        // Where propagation starts: the end of transmission, or the tick the
        // credit released the packet at (Dummynet's delay line counts from the
        // tick, so a packet released at once mid-tick can arrive "early").
        let base = match tick {
            None => {
                self.busy_until = start.saturating_add(self.serialization(wire));
                self.busy_until
            }
            Some((credit, last)) => {
                (self.ticks.credit, self.ticks.last) = (credit, last);
                last.saturating_mul(self.ticks.len)
            }
        };
        let mut arrival = base.saturating_add(self.delay).max(now);
        if self.jitter_ps > 0.0 {
            arrival = base.saturating_add(self.jittered_delay()).max(now);
            if self.reorder.is_none() {
                arrival = arrival.max(self.last_arrival);
            }
        }
        if let Some(r) = &mut self.reorder {
            let mut e = Propagating::new(arrival, r.seq, *p);
            e.item.t = arrival;
            e.item.hop = hop;
            r.seq += 1;
            r.heap.push(e);
            if r.wake <= now || arrival < r.wake {
                r.wake = arrival;
                q.push(arrival, Event::LinkArrive(id));
            }
            return Offer::Accepted;
        }
        self.enter_line(p, arrival, hop, id, q);
        Offer::Accepted
    }

    /// A frame of `bytes` entered the queue and waits `wait` there: its
    /// queuing delay (monitored links) and its share of the mean backlog.
    #[inline]
    fn count_wait(&mut self, bytes: u32, wait: Time) {
        if self.monitored {
            if let Some(h) = &mut self.qdelay {
                h.record(wait);
            }
        }
        if wait > 0 {
            self.queue_byte_time += bytes as u128 * wait as u128;
        }
    }

    /// Exact serialization time of `size` bytes, carrying the remainder of
    /// size·8·SEC / rate from packet to packet; divisions only for new sizes.
    #[inline]
    fn serialization(&mut self, size: u32) -> Time {
        let k = if self.ser_size[0] == size {
            0
        } else if self.ser_size[1] == size {
            1
        } else {
            let bits_ps = size as u64 * 8 * SEC;
            self.ser_size = [size, self.ser_size[0]];
            self.ser_quotient = [bits_ps / self.rate_bps, self.ser_quotient[0]];
            self.ser_remainder = [bits_ps % self.rate_bps, self.ser_remainder[0]];
            0
        };
        let (q, r) = (self.ser_quotient[k], self.ser_remainder[k]);
        self.tx_remainder += r;
        if self.tx_remainder >= self.rate_bps {
            self.tx_remainder -= self.rate_bps;
            return q + 1;
        }
        q
    }

    /// Capture every packet offered to this link into `tap`, and keep a drop
    /// log: offers then take the out-of-line path, so uncaptured links pay nothing.
    pub fn capture(&mut self, tap: Tap) {
        self.tap = Some(Box::new(tap));
        self.drop_log = Some(Box::default());
        self.options = true;
    }

    /// Whether nothing is on the link's delay line (no arrival at its far end
    /// is scheduled, unless on a folded hop's line or the link reorders).
    #[inline]
    pub(crate) fn line_is_empty(&self) -> bool {
        self.line.is_empty()
    }

    /// Whether this link is captured.
    pub fn captured(&self) -> bool {
        self.tap.is_some()
    }

    /// What the capture of this link saw and its drop log, if it is captured.
    pub fn take_capture(&mut self) -> Option<(Tap, DropLog)> {
        Some((*self.tap.take()?, *self.drop_log.take()?))
    }

    /// The FIFO head arrives at `now`: pop it and schedule the next head.
    #[inline]
    pub fn on_arrive(&mut self, now: Time, id: u32, q: &mut EventQueue) -> Packet {
        let (p, next) = if self.aqm.is_some() {
            self.pop_arrival_aqm(now, id, q)
        } else {
            self.pop_arrival(now)
        };
        if let Some(t) = next {
            q.push(t, Event::LinkArrive(id));
        }
        p
    }

    /// The FIFO head arrives at `now`: pop it; return it and the arrival time
    /// of the next head, which the caller must schedule (or handle at once).
    /// A link with a queue discipline takes [`Link::pop_arrival_aqm`] instead.
    #[inline]
    pub fn pop_arrival(&mut self, now: Time) -> (Packet, Option<Time>) {
        let p = self
            .line
            .pop_front()
            .expect("arrival event without a packet");
        debug_assert_eq!(p.t, now);
        // Counted on arrival so that utilization never includes bytes still queued.
        self.count_crossed(p.size);
        rewind_if_empty(&mut self.line);
        (p, self.line.front().map(|n| n.t))
    }

    /// Whether `p`, which just arrived at `now`, is lost at the far end (loss point
    /// after the queue): it has crossed the link and counts as sent, and as a
    /// random drop. One comparison when the option is off.
    #[inline]
    pub fn corrupted(&mut self, p: &Packet, now: Time) -> bool {
        if self.loss_after != 0 && self.rng.random::<u64>() < self.loss_after {
            self.counters.drops_random += 1;
            log_drop(&mut self.drop_log, now, p, DropCause::RandomAfterQueue);
            return true;
        }
        false
    }
}
