//! The host lines: packets held at their hosts (host jitter, access delay)
//! until their time, and the loop's handling of those due.

use std::collections::BinaryHeap;

use super::Sim;
use crate::event::{Event, EventQueue, Timed, Timer};
use crate::packet::Packet;
use crate::time::Time;

/// `Packet::hop` of an ACK that has waited its access delay at the host.
pub(super) const HELD: u8 = u8::MAX;

/// A packet held at a host until its time.
type Held = Timed<Packet>;

/// Packets held at their hosts (host jitter, access delay) for every flow at
/// once, earliest first and in the order held among equal times: a flow's
/// packets, held with non-decreasing times, keep their order. One heap, so
/// memory follows the packets held, not the number of flows; one timer event
/// for its earliest packet.
#[derive(Debug, Default)]
pub struct HostLine {
    pub(super) heap: BinaryHeap<Held>,
    seq: u64,
    pub(super) timer: Timer,
}

impl HostLine {
    /// Hold `p` until `at`; `ev` is this line's event.
    pub(super) fn push(&mut self, at: Time, p: Packet, q: &mut EventQueue, ev: Event) {
        self.heap.push(Held::new(at, self.seq, p));
        self.seq += 1;
        if at < self.timer.deadline {
            self.timer.arm(at, q, ev);
        }
    }

    /// The earliest packet if it is due by `now`.
    pub(super) fn pop_due(&mut self, now: Time) -> Option<Packet> {
        if self.heap.peek().is_some_and(|h| h.time() <= now) {
            return self.heap.pop().map(|h| h.item);
        }
        None
    }

    /// When the earliest packet is due.
    pub(super) fn next(&self) -> Option<Time> {
        self.heap.peek().map(Held::time)
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

impl Sim {
    /// Segments held at their hosts are due: offer them to the first link of
    /// their routes, and any due by the next one while it comes first.
    #[inline(never)]
    pub(super) fn host_out_due(&mut self) {
        loop {
            let now = self.net.now;
            while let Some(p) = self.host_out.pop_due(now) {
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
            while let Some(p) = self.host_in.pop_due(now) {
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
