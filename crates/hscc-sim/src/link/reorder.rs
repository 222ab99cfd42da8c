//! The propagation stage of a link whose jitter may reorder packets: a heap
//! ordered by arrival, with one pending wake-up in the event queue.

use std::collections::BinaryHeap;

use super::Link;
use crate::event::{Event, EventQueue, Timed};
use crate::packet::Packet;
use crate::time::Time;

/// A propagating packet keyed by (arrival time, link sequence number).
pub(super) type Propagating = Timed<Packet>;

/// The propagation stage of a link whose jitter may reorder packets.
#[derive(Debug, Default)]
pub(super) struct Reorder {
    pub(super) heap: BinaryHeap<Propagating>,
    /// Packets that entered the link so far (the tie-break of equal arrivals).
    pub(super) seq: u64,
    /// Time of the latest wake-up pushed to the event queue; entries pushed
    /// earlier for later times become harmless no-ops.
    pub(super) wake: Time,
}

impl Link {
    /// On a reordering link: the propagating packet due at `now` with the
    /// earliest arrival, if any (call until `None`, then [`Link::rearm`]).
    #[inline]
    pub fn pop_due(&mut self, now: Time) -> Option<Packet> {
        let r = self.reorder.as_mut()?;
        if r.heap.peek()?.time() > now {
            return None;
        }
        let e = r.heap.pop().expect("peeked");
        self.counters.tx_packets += 1;
        self.counters.tx_bytes += e.item.size as u64;
        Some(e.item)
    }

    /// On a reordering link, after [`Link::pop_due`]: make sure a wake-up is
    /// pending for the next arrival.
    #[inline]
    pub fn rearm(&mut self, now: Time, id: u32, q: &mut EventQueue) {
        let Some(r) = &mut self.reorder else { return };
        if let Some(next) = r.heap.peek().map(Propagating::time) {
            if r.wake <= now || next < r.wake {
                r.wake = next;
                q.push(next, Event::LinkArrive(id));
            }
        }
    }
}
