//! The host lines: packets held at their hosts (host jitter, access delay)
//! until their time, and the loop's handling of those due.

use std::collections::{BinaryHeap, VecDeque};

use super::Sim;
use crate::deque::rewind_if_empty;
use crate::event::{Event, EventQueue, Timed, Timer};
use crate::packet::Packet;
use crate::time::Time;

/// `Packet::hop` of an ACK that has waited its access delay at the host.
pub(super) const HELD: u8 = u8::MAX;

/// A packet held at a host until its time.
type Held = Timed<Packet>;

/// Where a host line's earliest packet is held.
#[derive(Clone, Copy, Debug)]
pub(super) enum Head {
    /// In the FIFO of packets held in time order.
    InOrder,
    /// In the heap of the others.
    OutOfOrder,
}

/// Packets held at their hosts (host jitter, access delay) for every flow at
/// once, earliest first and in the order held among equal times: a flow's
/// packets, held with non-decreasing times, keep their order. One line, so
/// memory follows the packets held, not the number of flows; one timer event
/// for its earliest packet.
///
/// Most packets are held in time order (a flow's always are, and flows'
/// sends seldom come closer than the jitter): those queue in a FIFO, the
/// others in a heap, and the earlier head of the two leaves first. The order
/// is one heap's, at the cost of a FIFO for most packets.
#[derive(Debug, Default)]
pub struct HostLine {
    in_order: VecDeque<Held>,
    out_of_order: BinaryHeap<Held>,
    /// The time of the last packet queued in `in_order`, still held or gone:
    /// a packet held no earlier keeps the FIFO in time order.
    in_order_until: Time,
    seq: u64,
    pub(super) timer: Timer,
}

impl HostLine {
    /// Hold `p` until `at`; `ev` is this line's event.
    #[inline]
    pub(super) fn push(&mut self, at: Time, p: Packet, q: &mut EventQueue, ev: Event) {
        self.hold(at, p);
        if at < self.timer.deadline {
            self.timer.arm(at, q, ev);
        }
    }

    /// Hold `p` until `at`, leaving the timer to the caller.
    #[inline]
    pub(super) fn hold(&mut self, at: Time, p: Packet) {
        let held = Held::new(at, self.seq, p);
        self.seq += 1;
        // A later sequence number: in order when not earlier than the last.
        // Compared with the last queued even once it has left (it left by
        // `now`, and packets are held from `now` on): no test of emptiness,
        // which varies from packet to packet and defeats branch prediction.
        if self.in_order_until <= at {
            self.in_order_until = at;
            self.in_order.push_back(held);
        } else {
            self.out_of_order.push(held);
        }
    }

    /// The earliest packet and its time, if it is due by `now`.
    #[inline]
    pub(super) fn pop_due(&mut self, now: Time) -> Option<(Time, Packet)> {
        let (at, &p, head) = self.first_due(now)?;
        self.remove(head);
        Some((at, p))
    }

    /// The earliest packet, its time and where it is held, if it is due by
    /// `now` (the caller reads it in place, then [`HostLine::remove`]s it).
    #[inline]
    pub(super) fn first_due(&self, now: Time) -> Option<(Time, &Packet, Head)> {
        let (h, head) = match (self.in_order.front(), self.out_of_order.peek()) {
            (Some(a), Some(b)) if b.key < a.key => (b, Head::OutOfOrder),
            (Some(a), _) => (a, Head::InOrder),
            (None, Some(b)) => (b, Head::OutOfOrder),
            (None, None) => return None,
        };
        (h.time() <= now).then(|| (h.time(), &h.item, head))
    }

    /// Remove the earliest packet, held at `head`.
    #[inline]
    pub(super) fn remove(&mut self, head: Head) {
        match head {
            Head::InOrder => {
                self.in_order.pop_front();
                rewind_if_empty(&mut self.in_order);
            }
            Head::OutOfOrder => {
                self.out_of_order.pop();
            }
        }
    }

    /// When the earliest packet is due.
    pub(super) fn next(&self) -> Option<Time> {
        let first = self.in_order.front().map(Held::time);
        let other = self.out_of_order.peek().map(Held::time);
        first.into_iter().chain(other).min()
    }

    /// The packets held, in no particular order.
    pub(super) fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.in_order
            .iter()
            .chain(self.out_of_order.iter())
            .map(|h| &h.item)
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.in_order.len() + self.out_of_order.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.in_order.is_empty() && self.out_of_order.is_empty()
    }
}

impl Sim {
    /// Segments held at their hosts are due: offer them to the first link of
    /// their routes, and any due by the next one while it comes first.
    #[inline(never)]
    pub(super) fn host_out_due(&mut self) {
        loop {
            let now = self.net.now;
            while let Some((_, p)) = self.host_out.pop_due(now) {
                let flow = &mut self.flows[p.flow as usize];
                if p.gen != flow.gen {
                    continue; // a finished web transfer's: its slot is reused, it never leaves
                }
                flow.held -= 1;
                self.net.counters.injected += 1;
                self.net
                    .forward(&p, 0, self.routes.path(flow.data_route), now);
            }
            let Some(t) = self.host_out.next() else {
                return;
            };
            if !self.next_inline(t) {
                self.host_out.timer.arm(t, &mut self.net.q, Event::HostOut);
                return;
            }
        }
    }

    /// ACKs held for their senders' access delay are due: the senders process them.
    #[inline(never)]
    pub(super) fn host_in_due(&mut self) {
        loop {
            let now = self.net.now;
            while let Some((_, p)) = self.host_in.pop_due(now) {
                // A finished web transfer's ACK (its slot reused) is dropped.
                if p.gen == self.flows[p.flow as usize].gen {
                    self.deliver(p);
                }
            }
            let Some(t) = self.host_in.next() else { return };
            if !self.next_inline(t) {
                self.host_in.timer.arm(t, &mut self.net.q, Event::HostIn);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(hscc_cc::testing::proptest_cases(256)))]
        /// Packets held at any times, with pops in between, leave in order
        /// of time and, among equal times, in the order they were held: one
        /// heap's order, whichever of the FIFO and the heap holds them.
        #[test]
        fn held_packets_leave_in_time_then_holding_order(
            steps in prop::collection::vec((0u64..40, any::<bool>()), 1..200),
        ) {
            let (mut line, mut q) = (HostLine::default(), EventQueue::default());
            let (mut held, mut left) = (Vec::new(), Vec::new());
            let mut now = 0;
            for (i, &(dt, pop)) in steps.iter().enumerate() {
                if pop {
                    now += dt;
                    while let Some((t, p)) = line.pop_due(now) {
                        left.push((t, p.seq));
                    }
                } else {
                    let at = now + dt;
                    let p = Packet::data(0, i as u64, 1000, now, 0);
                    line.push(at, p, &mut q, Event::HostOut);
                    held.push((at, i as u64));
                }
            }
            while let Some((t, p)) = line.pop_due(Time::MAX) {
                left.push((t, p.seq));
            }
            held.sort_unstable();
            prop_assert!(line.is_empty());
            prop_assert_eq!(left, held);
        }
    }
}
