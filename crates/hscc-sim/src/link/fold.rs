//! A hop folded into the one before it: when every packet of link `b` comes
//! from link `a`, `b` is fed in the order `a` delivers, so the moment a
//! packet enters `a` on its way to `b` its way through `b` is known as well.
//! `a` then works out both hops at once and puts the packet straight on `b`'s
//! delay line, arriving at `b`'s far end: one event and one FIFO per packet
//! instead of two. `b` keeps its own transmitter and queue (it is offered
//! each packet at the time the packet reaches it, in that order), so every
//! arrival time is the one the two hops give separately.
//!
//! What must not move is when things are counted: `a`'s packets are counted
//! as they reach its far end and `b`'s bytes × queuing delay as they enter
//! `b`. Those times are kept (in `a`, in its order; in `b`, for the few
//! packets that wait there) and counted whenever the counters are read (every
//! trace sample, the end of a run: [`Link::credit_folded`]) and on the way.
//! Nothing else per packet is kept in `b`: with many folded hops (a dumbbell
//! of many pairs) it would cost a cache miss per packet. So a packet on its
//! way to `b` is on `b`'s delay line from the moment `a` takes it, and
//! [`Link::in_flight`] counts it there.
//!
//! Events of the same picosecond run in the order they were scheduled (the
//! ordering contract, `event.rs`), and a folded hop's arrival is scheduled
//! when its packet enters the feeder, not when it leaves it: at an exact tie
//! with another event it can run before that event where the two hops on
//! their own would run it after. Host jitter makes such ties vanishingly rare;
//! without it, round rates and delays can meet one (docs/validation/ns2.md).
//!
//! Which links fold is `sim/fold.rs`'s choice: `b` must be unable to drop a
//! packet (a drop there would be counted before its time) and nobody may read
//! `b`'s queue during the run (it is not monitored).

use std::collections::VecDeque;

use super::{Link, Offer};
use crate::deque::rewind_if_empty;
use crate::event::EventQueue;
use crate::packet::Packet;
use crate::time::Time;

/// What a link keeps for the hops folded into it, or as a folded hop, until
/// counted (whether it is either: [`Link::feeds_folded`], [`Link::fed_by`]).
#[derive(Debug, Default)]
pub(super) struct Fold {
    /// Feeding link: when each packet it passed on to a folded hop reaches
    /// its far end, and its size, in that order; until counted.
    crossed: VecDeque<(Time, u32)>,
    /// Folded hop: each packet that waits in its queue, when it enters the
    /// link, how long it waits and its size; until counted.
    waits: VecDeque<(Time, Time, u32)>,
}

impl Link {
    /// Make this link a folded hop of link `feeder`; before the run.
    pub fn fold_into(&mut self, feeder: u32) {
        debug_assert!(self.line.is_empty(), "before any packet");
        self.fed_by = feeder;
    }

    /// Let hops be folded into this link; before the run.
    pub fn feed_folded(&mut self) {
        self.feeds_folded = true;
    }

    /// Put every folded hop back on its own; before the run.
    pub fn unfold(&mut self) {
        debug_assert!(self.line.is_empty(), "before any packet");
        self.fold = Fold::default();
        self.feeds_folded = false;
        self.fed_by = u32::MAX;
    }

    /// Whether hops are folded into this link.
    #[inline(always)]
    pub fn feeds_folded(&self) -> bool {
        self.feeds_folded
    }

    /// The link this one is folded into, if any.
    #[inline(always)]
    pub fn fed_by(&self) -> Option<u32> {
        (self.fed_by != u32::MAX).then_some(self.fed_by)
    }

    /// [`Link::offer`] of a packet whose next hop, `next` (index `next_id`),
    /// is folded into this link: its arrival at this link's far end is its
    /// offer to `next`, made now, and it goes on `next`'s delay line.
    #[inline]
    pub fn offer_folded(
        &mut self,
        p: &Packet,
        hop: u8,
        now: Time,
        q: &mut EventQueue,
        next: &mut Link,
        next_id: u32,
    ) -> Offer {
        self.count_crossed_before(now);
        let (start, reached) = match self.admit(p, now) {
            Ok(times) => times,
            Err(drop) => return drop,
        };
        self.count_wait(p.size, start - now);
        match next.admit(p, reached) {
            Ok((start, arrival)) => {
                self.fold.crossed.push_back((reached, p.size));
                if start > reached {
                    next.count_waits_before(now);
                    next.fold
                        .waits
                        .push_back((reached, start - reached, p.size));
                }
                next.enter_line(p, arrival, hop + 1, next_id, q);
                Offer::Accepted
            }
            // The fold's conditions leave `next` no reason to refuse a packet;
            // were it to, the packet still crossed this link.
            Err(drop) => {
                self.count_crossed(p.size);
                drop
            }
        }
    }

    /// Count the packets passed on to folded hops that reached this link's
    /// far end before `before`.
    #[inline]
    fn count_crossed_before(&mut self, before: Time) {
        while let Some(&(reached, size)) = self.fold.crossed.front() {
            if reached >= before {
                break;
            }
            self.count_crossed(size);
            self.fold.crossed.pop_front();
        }
        rewind_if_empty(&mut self.fold.crossed);
    }

    /// Count the waits of the packets that entered this folded hop before `before`.
    fn count_waits_before(&mut self, before: Time) {
        while let Some(&(entered, wait, size)) = self.fold.waits.front() {
            if entered >= before {
                break;
            }
            self.queue_byte_time += size as u128 * wait as u128;
            self.fold.waits.pop_front();
        }
        rewind_if_empty(&mut self.fold.waits);
    }

    /// Count what happened before `before` and is not counted yet: the
    /// packets a feeding link passed on that reached its far end, the waits of
    /// the packets that entered a folded hop.
    pub fn credit_folded(&mut self, before: Time) {
        self.count_crossed_before(before);
        self.count_waits_before(before);
    }

    /// A packet of `size` bytes reached the far end.
    #[inline(always)]
    pub(super) fn count_crossed(&mut self, size: u32) {
        self.counters.tx_packets += 1;
        self.counters.tx_bytes += size as u64;
    }

    /// Whether a hop may be folded into this link: its arrivals are its own
    /// FIFO's, spaced by at least their serialization (no jitter, ticks,
    /// reordering, queue discipline, loss at the far end or capture).
    pub fn can_feed_fold(&self) -> bool {
        !self.options && !self.special_arrivals && self.jitter_ps == 0.0
    }

    /// Whether this link may be folded into one of `rate_bps` carrying
    /// packets of `min_size` to `max_size` bytes: it has no options, loss,
    /// jitter or monitor, and it can never drop a packet of that stream. Fed
    /// no faster than it sends, it never holds more than one largest packet's
    /// bits waiting (the packets behind a large one can pile up while it is
    /// serialized), so its limits must take that many of the smallest packets
    /// and the largest on top.
    pub fn can_be_folded(&self, rate_bps: u64, min_size: u32, max_size: u32) -> bool {
        let (min, max) = (min_size.max(1) as u64, max_size as u64);
        self.can_feed_fold()
            && self.loss_threshold == 0
            && self.qdelay.is_none()
            && self.rate_bps >= rate_bps
            && self.limit_pkts >= max / min + 2
            && self.limit_bytes >= 2 * max
    }
}
