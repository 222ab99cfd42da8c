//! Queue disciplines besides DropTail (active queue management), one file
//! each with its sources: RED ([`red`]), CoDel ([`codel`]), FQ-CoDel
//! ([`fq_codel`]), PIE ([`pie`]) and DCTCP's step marking ([`step`]).
//!
//! A DropTail link fixes every packet's departure at enqueue (see
//! [`crate::link`]); these disciplines decide at dequeue (CoDel's sojourn
//! test, FQ-CoDel's per-flow round robin, PIE's delay samples), so a link with
//! one keeps its packets here and dequeues the next one when its transmitter
//! frees (`crate::link::aqm`). Every discipline works on the same few calls:
//! [`Discipline::enqueue`] when a packet arrives, [`Discipline::dequeue`] when
//! the transmitter takes the next one, and [`Discipline::advance`] for PIE's
//! periodic probability update. What they do besides forwarding (CE marks,
//! drops of the arriving packet or of queued ones) goes to a [`Tally`].
//!
//! The link's `buffer` is the discipline's hard limit (Linux's qdisc `limit`):
//! packets, or bytes of frames (packet plus the link's framing) waiting, not
//! counting the one being serialized, as DropTail counts it.

pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod step;

use std::collections::VecDeque;

use crate::capture::{DropCause, DropLog, Dropped};
use crate::deque::rewind_if_empty;
use crate::packet::{Kind, Packet, CE, ECT};
use crate::rng::Rng;
use crate::stats::LinkCounters;
use crate::time::Time;

pub use codel::CodelParams;
pub use fq_codel::FqCodelParams;
pub use hscc_model::queue::{check, QueueConfig};
pub use pie::PieParams;
pub use red::RedParams;
pub use step::StepParams;

/// The hard limit of a discipline and how it counts bytes.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// At most this many packets waiting.
    pub packets: u64,
    /// At most this many bytes waiting (frames: packet plus framing).
    pub bytes: u64,
    /// Link-layer bytes added to every packet.
    pub framing: u32,
}

impl Limits {
    /// Bytes `p` takes in the queue (with the link's framing).
    #[inline]
    pub fn wire(&self, p: &Packet) -> u64 {
        p.size as u64 + self.framing as u64
    }
}

/// Why a discipline dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The buffer was full (or FQ-CoDel's fattest flow paid for it).
    Overflow,
    /// The discipline's congestion signal (early drop, CoDel's control law).
    Aqm,
}

/// What a discipline did besides forwarding packets, written through to the
/// link's counters.
#[derive(Debug)]
pub struct Tally<'a> {
    /// The link's counters (`marks`, `drops_aqm`, `drops_queue`).
    pub counters: &'a mut LinkCounters,
    /// Drops of packets already queued.
    pub queued: &'a mut QueuedDrops,
    /// The link's drop log, if it keeps one ([`crate::capture`]).
    pub log: Option<&'a mut DropLog>,
}

/// Packets a discipline dropped after accepting them (CoDel's dequeue drops,
/// FQ-CoDel's fat-flow drops): the network's packet accounting and the
/// backlog integral need them, since they left the link without crossing it.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueuedDrops {
    /// Packets.
    pub packets: u64,
    /// Of which UDP datagrams not yet reported to the network's UDP count.
    pub udp_unreported: u64,
    /// Σ time they waited before being dropped, ps.
    pub wait: u128,
    /// Σ bytes × time they waited, bytes·ps.
    pub byte_wait: u128,
}

impl Tally<'_> {
    /// The congestion signal for `p`: a CE mark when `ecn` is on and `p` is
    /// ECN-capable (RFC 3168 §5, Linux `INET_ECN_set_ce`), else nothing.
    /// Returns whether it was marked (a packet already CE counts as marked,
    /// as in Linux).
    #[inline]
    pub fn mark(&mut self, p: &mut Packet, ecn: bool) -> bool {
        if ecn && p.flags & (ECT | CE) != 0 {
            p.flags |= CE;
            self.counters.marks += 1;
            return true;
        }
        false
    }

    /// The arriving packet `p` is refused (its `t` is now).
    #[inline]
    pub fn drop_arriving(&mut self, p: &Packet, why: Why) {
        self.count(p, why, p.t);
    }

    fn count(&mut self, p: &Packet, why: Why, now: Time) {
        if let Some(log) = &mut self.log {
            let cause = if why == Why::Overflow {
                DropCause::Queue
            } else {
                DropCause::Aqm
            };
            log.push(Dropped {
                t: now,
                p: *p,
                cause,
            });
        }
        match why {
            Why::Overflow => self.counters.count_queue_drop(p),
            Why::Aqm => self.counters.drops_aqm += 1,
        }
    }

    /// `p`, queued since `p.t` and `wire` bytes long, is dropped at `now`.
    pub fn drop_queued(&mut self, p: &Packet, wire: u64, now: Time, why: Why) {
        self.count(p, why, now);
        let q = &mut *self.queued;
        q.packets += 1;
        if p.kind == Kind::Udp {
            q.udp_unreported += 1;
        }
        let wait = now.saturating_sub(p.t) as u128;
        q.wait += wait;
        q.byte_wait += wire as u128 * wait;
    }
}

/// Packets waiting in arrival order, with their byte count: the queue of
/// RED, CoDel and PIE. A packet's `t` is its enqueue time.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    packets: VecDeque<Packet>,
    bytes: u64,
}

impl Fifo {
    /// Packets waiting.
    #[inline]
    pub fn len(&self) -> usize {
        self.packets.len()
    }
    /// Whether none waits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
    /// Bytes waiting (frames).
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Whether `p` fits under `lim`.
    #[inline]
    pub fn fits(&self, p: &Packet, lim: &Limits) -> bool {
        (self.packets.len() as u64) < lim.packets && self.bytes + lim.wire(p) <= lim.bytes
    }
    /// Append `p` (its `t` already the enqueue time).
    #[inline]
    pub fn push(&mut self, p: Packet, lim: &Limits) {
        self.bytes += lim.wire(&p);
        self.packets.push_back(p);
    }
    /// Take the head.
    #[inline]
    pub fn pop(&mut self, lim: &Limits) -> Option<Packet> {
        let p = self.packets.pop_front()?;
        rewind_if_empty(&mut self.packets);
        self.bytes -= lim.wire(&p);
        Some(p)
    }
    /// The packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = &Packet> {
        self.packets.iter()
    }
}

/// A running queue discipline.
#[derive(Debug)]
pub enum Discipline {
    /// RED.
    Red(red::Red),
    /// CoDel.
    Codel(codel::Codel),
    /// FQ-CoDel.
    FqCodel(Box<fq_codel::FqCodel>),
    /// PIE.
    Pie(pie::Pie),
    /// Step marking.
    Step(step::Step),
}

impl Discipline {
    /// The discipline `cfg` describes (None for DropTail) on a link of
    /// `rate_bps`; `rng` is its own random stream (RED's and PIE's drops,
    /// FQ-CoDel's hash perturbation).
    pub fn new(cfg: &QueueConfig, lim: Limits, rate_bps: u64, rng: Rng) -> Option<Discipline> {
        Some(match cfg {
            QueueConfig::DropTail => return None,
            QueueConfig::Red(p) => Discipline::Red(red::Red::new(p, lim, rate_bps, rng)),
            QueueConfig::Codel(p) => Discipline::Codel(codel::Codel::new(p, lim)),
            QueueConfig::FqCodel(p) => {
                Discipline::FqCodel(Box::new(fq_codel::FqCodel::new(p, lim, rng)))
            }
            QueueConfig::Pie(p) => Discipline::Pie(pie::Pie::new(p, lim, rng)),
            QueueConfig::Step(p) => Discipline::Step(step::Step::new(p, lim)),
        })
    }

    /// `p` arrives at `now` (its `t` set to `now`); `idle_since` is when the
    /// transmitter went idle if it is idle and nothing waits. Returns whether
    /// it was queued (else it was dropped, counted in `tally`).
    #[inline]
    pub fn enqueue(
        &mut self,
        p: Packet,
        now: Time,
        idle_since: Option<Time>,
        tally: &mut Tally,
    ) -> bool {
        match self {
            Discipline::Red(d) => d.enqueue(p, now, idle_since, tally),
            Discipline::Codel(d) => d.enqueue(p, tally),
            Discipline::FqCodel(d) => d.enqueue(p, now, tally),
            Discipline::Pie(d) => d.enqueue(p, tally),
            Discipline::Step(d) => d.enqueue(p, tally),
        }
    }

    /// The transmitter takes the next packet at `now` (None: nothing left).
    #[inline]
    pub fn dequeue(&mut self, now: Time, tally: &mut Tally) -> Option<Packet> {
        match self {
            Discipline::Red(d) => d.dequeue(),
            Discipline::Codel(d) => d.dequeue(now, tally),
            Discipline::FqCodel(d) => d.dequeue(now, tally),
            Discipline::Pie(d) => d.dequeue(now),
            Discipline::Step(d) => d.dequeue(),
        }
    }

    /// Run the periodic work due by `until` (PIE's probability updates).
    #[inline]
    pub fn advance(&mut self, until: Time) {
        if let Discipline::Pie(d) = self {
            d.advance(until);
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> usize {
        match self {
            Discipline::Red(d) => d.queue().len(),
            Discipline::Codel(d) => d.queue().len(),
            Discipline::FqCodel(d) => d.len(),
            Discipline::Pie(d) => d.queue().len(),
            Discipline::Step(d) => d.queue().len(),
        }
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting (frames).
    pub fn bytes(&self) -> u64 {
        match self {
            Discipline::Red(d) => d.queue().bytes(),
            Discipline::Codel(d) => d.queue().bytes(),
            Discipline::FqCodel(d) => d.bytes(),
            Discipline::Pie(d) => d.queue().bytes(),
            Discipline::Step(d) => d.queue().bytes(),
        }
    }

    /// Every packet waiting.
    pub fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        match self {
            Discipline::Red(d) => Box::new(d.queue().iter()),
            Discipline::Codel(d) => Box::new(d.queue().iter()),
            Discipline::FqCodel(d) => Box::new(d.packets()),
            Discipline::Pie(d) => Box::new(d.queue().iter()),
            Discipline::Step(d) => Box::new(d.queue().iter()),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the disciplines' unit tests.
    use super::*;
    use crate::time::MS;

    /// Counters and queued drops for a [`Tally`].
    #[derive(Default)]
    pub struct Books {
        pub counters: LinkCounters,
        pub queued: QueuedDrops,
    }

    impl Books {
        pub fn tally(&mut self) -> Tally<'_> {
            Tally {
                counters: &mut self.counters,
                queued: &mut self.queued,
                log: None,
            }
        }
    }

    /// A 1500-byte data packet of `flow` enqueued at `t` ms (ECT when `ect`).
    pub fn pkt(flow: u32, t_ms: u64, ect: bool) -> Packet {
        let mut p = Packet::data(flow, 0, 1500, 0, if ect { ECT } else { 0 });
        p.t = t_ms * MS;
        p
    }

    /// No limit but the packet count `n`.
    pub fn limits(n: u64) -> Limits {
        Limits {
            packets: n,
            bytes: u64::MAX,
            framing: 0,
        }
    }
}
