//! The event queue and its ordering contract.
//!
//! # Ordering contract
//! - Events run in order of time; events at the same time run in the order
//!   they were scheduled (FIFO), by a sequence number assigned at scheduling,
//!   except a trace sample, which runs before every other event of its time
//!   ([`EventQueue::push_first`]): a sample at t sees what happened before t.
//! - Nothing else influences the order: no hashing, no addresses, no wall
//!   clock. The same scenario and seed therefore give bit-identical results.
//! - Ties are not broken at random here. Simultaneous starts would otherwise
//!   favour the flows created first at every tie: the seeded randomness a real
//!   network has enters as host timing instead (`FlowConfig::host_jitter`,
//!   `start_jitter`, `access_delay`), which makes exact ties between flows'
//!   packets vanishingly rare and the seed matter (docs/fairness.md).
//!
//! Event payloads are a `Copy` enum of indices: no allocation per event.

use std::cmp::Ordering;

mod radix;

use radix::RadixHeap;

use crate::time::Time;

/// What happens at an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head of link `0`'s delay line reaches the far end.
    LinkArrive(u32),
    /// Retransmission timer of flow `0`.
    Rto(u32),
    /// Delayed-ACK timer of flow `0`'s receiver.
    DelAck(u32),
    /// Pacing timer of flow `0`.
    Pace(u32),
    /// The earliest segment held at a host (host jitter, access delay) reaches its first link.
    HostOut,
    /// The earliest ACK held for its sender's access delay reaches the sender.
    HostIn,
    /// The earliest segment of lazy host line `0` is due while nothing is on
    /// its link to take it in (`sim/lazy.rs`).
    LazyLine(u32),
    /// Flow `0` starts.
    FlowStart(u32),
    /// Flow `0` stops sending new data.
    FlowStop(u32),
    /// UDP flow `0` sends a datagram.
    UdpSend(u32),
    /// A transfer of web source `0` arrives.
    WebArrival(u32),
    /// Scheduled link change `0` takes effect.
    LinkChange(u32),
    /// Periodic sampling of traces.
    Sample,
}

/// An item keyed by `time << 64 | sequence` for a min-heap (a max-heap of
/// these pops the earliest time, and among equal times the lowest sequence):
/// one branch-free comparison. Packets held at hosts and packets propagating
/// on a reordering link order by it; the event queue packs its own entries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timed<T> {
    /// time << 64 | sequence.
    pub key: u128,
    /// The payload.
    pub item: T,
}

impl<T> Timed<T> {
    /// `item` at `time`, `seq`-th among equal times.
    #[inline]
    pub fn new(time: Time, seq: u64, item: T) -> Self {
        Timed {
            key: (time as u128) << 64 | seq as u128,
            item,
        }
    }
    /// Its time.
    #[inline]
    pub fn time(&self) -> Time {
        (self.key >> 64) as Time
    }
    /// Its sequence number.
    #[inline]
    pub fn seq(&self) -> u64 {
        self.key as u64
    }
}

impl<T> PartialEq for Timed<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<T> Eq for Timed<T> {}
impl<T> PartialOrd for Timed<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Timed<T> {
    // Reversed: the heaps are max-heaps, we pop the earliest.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Sequence numbers a queue hands out before it renumbers its entries
/// ([`EventQueue::renumber`]): 28 bits, so that an entry's time, sequence
/// number and event fit in 16 bytes.
const SEQ_LIMIT: u64 = 1 << SEQ_BITS;
const SEQ_BITS: u32 = 28;

impl Event {
    /// The event as `kind << 32 | index`: 36 bits, never 0 (kinds count from 1).
    #[inline]
    fn pack(self) -> u64 {
        let (kind, index) = match self {
            Event::LinkArrive(i) => (1, i),
            Event::Rto(i) => (2, i),
            Event::DelAck(i) => (3, i),
            Event::Pace(i) => (4, i),
            Event::HostOut => (5, 0),
            Event::HostIn => (6, 0),
            Event::LazyLine(i) => (7, i),
            Event::FlowStart(i) => (8, i),
            Event::FlowStop(i) => (9, i),
            Event::UdpSend(i) => (10, i),
            Event::WebArrival(i) => (11, i),
            Event::LinkChange(i) => (12, i),
            Event::Sample => (13, 0),
        };
        (kind as u64) << 32 | index as u64
    }

    /// The event [`Event::pack`] packed into `x`'s low 36 bits.
    #[inline]
    fn unpack(x: u64) -> Event {
        let i = x as u32;
        match (x >> 32) & 0xf {
            1 => Event::LinkArrive(i),
            2 => Event::Rto(i),
            3 => Event::DelAck(i),
            4 => Event::Pace(i),
            5 => Event::HostOut,
            6 => Event::HostIn,
            7 => Event::LazyLine(i),
            8 => Event::FlowStart(i),
            9 => Event::FlowStop(i),
            10 => Event::UdpSend(i),
            11 => Event::WebArrival(i),
            12 => Event::LinkChange(i),
            _ => Event::Sample,
        }
    }
}

/// An event keyed for a min-queue: `time << 64 | sequence << 36 | event`, so
/// the earliest time and among equal times the lowest sequence is the
/// smallest (the sequence numbers of pending entries differ, so the event's
/// bits never decide), and no key is 0. Sixteen bytes, where a key beside the
/// event took 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry(u128);

impl Entry {
    #[inline]
    fn new(time: Time, seq: u64, event: Event) -> Entry {
        Entry((time as u128) << 64 | (seq << 36 | event.pack()) as u128)
    }
    #[inline]
    fn time(self) -> Time {
        (self.0 >> 64) as Time
    }
    #[cfg(test)]
    fn seq(self) -> u64 {
        (self.0 as u64) >> 36
    }
    #[inline]
    fn event(self) -> Event {
        Event::unpack(self.0 as u64)
    }
}

/// A min-queue of events keyed by `(time, scheduling order)`, in a radix heap
/// (`event/radix.rs`): its cost per event barely grows with the events
/// pending, as a heap's does with their log.
#[derive(Debug, Default)]
pub struct EventQueue {
    keys: RadixHeap,
    next_seq: u64,
}

impl EventQueue {
    /// Schedule `event` at `time`.
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: Event) {
        // From 1: sequence number 0 is `push_first`'s.
        self.next_seq += 1;
        if self.next_seq == SEQ_LIMIT {
            self.renumber();
        }
        self.keys.push(Entry::new(time, self.next_seq, event).0);
    }

    /// Schedule `event` at `time`, before every other event of that time (at
    /// most one such event per time: the trace sample's).
    pub fn push_first(&mut self, time: Time, event: Event) {
        self.keys.push(Entry::new(time, 0, event).0);
    }

    /// Give the pending entries the sequence numbers 1, 2, … in their order
    /// (their order, and so every later pop, unchanged) and set the next one
    /// past them: once per 2^28 pushes, a sort of the pending events.
    #[cold]
    fn renumber(&mut self) {
        let mut entries = self.keys.take_all();
        entries.sort_unstable(); // earliest first
        let mut seq = 0;
        for key in entries {
            seq += 1;
            let e = Entry(key);
            self.keys.push(Entry::new(e.time(), seq, e.event()).0);
        }
        // Each pending entry belongs to a flow, link or source, whose state the
        // memory estimate counts at far more than these 16 bytes.
        debug_assert!(seq + 1 < SEQ_LIMIT, "{seq} events pending");
        self.next_seq = seq + 1;
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.keys.pop().map(|k| (Entry(k).time(), Entry(k).event()))
    }

    /// Time of the earliest event.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        self.keys.peek().map(|k| Entry(k).time())
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no events are pending.
    pub fn is_empty(&self) -> bool {
        self.keys.len() == 0
    }
}

/// A lazily cancelled timer: re-arming to a later time costs no heap entry;
/// the pending entry re-schedules itself when it fires early.
#[derive(Clone, Copy, Debug)]
pub struct Timer {
    /// When the timer should expire (`NEVER` when disarmed).
    pub deadline: Time,
    /// Time of the entry in the event queue, if any (`NEVER` when none).
    scheduled: Time,
}

impl Default for Timer {
    fn default() -> Self {
        Timer {
            deadline: crate::time::NEVER,
            scheduled: crate::time::NEVER,
        }
    }
}

/// What a timer's event means when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fire {
    /// The timer expired: act on it.
    Expired,
    /// Not yet (re-armed later, re-scheduled) or a stale entry: ignore.
    Ignore,
}

impl Timer {
    /// Arm (or re-arm) to expire at `t`; schedules `event` only when needed.
    #[inline]
    pub fn arm(&mut self, t: Time, q: &mut EventQueue, event: Event) {
        self.deadline = t;
        if t < self.scheduled {
            self.scheduled = t;
            q.push(t, event);
        }
    }

    /// Disarm.
    #[inline]
    pub fn cancel(&mut self) {
        self.deadline = crate::time::NEVER;
    }

    /// Whether armed.
    pub fn armed(&self) -> bool {
        self.deadline != crate::time::NEVER
    }

    /// Handle this timer's event firing at `now`.
    #[inline]
    pub fn fire(&mut self, now: Time, q: &mut EventQueue, event: Event) -> Fire {
        if now != self.scheduled {
            return Fire::Ignore; // an entry superseded by an earlier one
        }
        self.scheduled = crate::time::NEVER;
        if self.deadline <= now {
            self.deadline = crate::time::NEVER;
            return Fire::Expired;
        }
        if self.deadline != crate::time::NEVER {
            self.scheduled = self.deadline;
            q.push(self.deadline, event);
        }
        Fire::Ignore
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_run_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.push(5, Event::Sample);
        q.push(3, Event::Rto(1));
        q.push(5, Event::Rto(2));
        q.push(5, Event::Rto(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (3, Event::Rto(1)),
                (5, Event::Sample),
                (5, Event::Rto(2)),
                (5, Event::Rto(3))
            ]
        );
    }

    #[test]
    fn an_event_pushed_first_runs_before_its_time_s_others() {
        let mut q = EventQueue::default();
        q.push(5, Event::Rto(1));
        q.push(4, Event::Rto(2));
        q.push_first(5, Event::Sample);
        q.push(5, Event::Rto(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (4, Event::Rto(2)),
                (5, Event::Sample),
                (5, Event::Rto(1)),
                (5, Event::Rto(3))
            ]
        );
    }

    #[test]
    fn every_event_survives_packing() {
        let all = [
            Event::LinkArrive(u32::MAX),
            Event::Rto(7),
            Event::DelAck(0),
            Event::Pace(1 << 31),
            Event::HostOut,
            Event::HostIn,
            Event::LazyLine(3),
            Event::FlowStart(400_000),
            Event::FlowStop(9),
            Event::UdpSend(11),
            Event::WebArrival(12),
            Event::LinkChange(13),
            Event::Sample,
        ];
        for ev in all {
            let e = Entry::new(u64::MAX, SEQ_LIMIT - 1, ev);
            assert_eq!(
                (e.time(), e.seq(), e.event()),
                (u64::MAX, SEQ_LIMIT - 1, ev)
            );
        }
    }

    proptest::proptest! {
        /// Pops come in the contract's order however often the queue renumbers:
        /// against a sorted model keyed by (time, pushed first, push count).
        #[test]
        fn renumbering_keeps_the_order(
            ops in proptest::collection::vec((0u8..8, 0u64..20, 0u32..1000), 1..300)
        ) {
            let mut q = EventQueue::default();
            let mut model = std::collections::BTreeMap::new();
            let mut firsts = std::collections::BTreeSet::new();
            for (n, (op, t, i)) in ops.into_iter().enumerate() {
                let now = model.keys().next().map_or(0, |&(t, _, _)| t);
                match op {
                    0..=3 => {
                        q.push(now + t, Event::Rto(i));
                        model.insert((now + t, 1, n), Event::Rto(i));
                    }
                    // At most one event pushed first per time (the contract).
                    4 if firsts.insert(now + t) => {
                        q.push_first(now + t, Event::Sample);
                        model.insert((now + t, 0, n), Event::Sample);
                    }
                    5 => q.renumber(),
                    _ => {
                        let want = model.pop_first().map(|((t, _, _), ev)| (t, ev));
                        proptest::prop_assert_eq!(q.pop(), want);
                    }
                }
            }
            while let Some(((t, _, _), ev)) = model.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some((t, ev)));
            }
            proptest::prop_assert!(q.is_empty());
        }
    }

    #[test]
    fn the_sequence_limit_renumbers_in_order() {
        let mut q = EventQueue {
            next_seq: SEQ_LIMIT - 3,
            ..EventQueue::default()
        };
        q.push(5, Event::Rto(1)); // SEQ_LIMIT - 2
        q.push(5, Event::Rto(2)); // SEQ_LIMIT - 1
        q.push(4, Event::Rto(3)); // renumbers: Rto(1) 1, Rto(2) 2; this one 3
        q.push(5, Event::Rto(4));
        assert!(q.next_seq < 5);
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (4, Event::Rto(3)),
                (5, Event::Rto(1)),
                (5, Event::Rto(2)),
                (5, Event::Rto(4))
            ]
        );
    }

    #[test]
    fn timer_rearmed_later_fires_once_at_the_new_deadline() {
        let mut q = EventQueue::default();
        let mut t = Timer::default();
        t.arm(10, &mut q, Event::Rto(0));
        t.arm(20, &mut q, Event::Rto(0)); // no new entry
        assert_eq!(q.len(), 1);
        let (now, ev) = q.pop().unwrap();
        assert_eq!(t.fire(now, &mut q, ev), Fire::Ignore);
        let (now, ev) = q.pop().unwrap();
        assert_eq!(now, 20);
        assert_eq!(t.fire(now, &mut q, ev), Fire::Expired);
        assert!(q.is_empty());
    }

    #[test]
    fn timer_rearmed_earlier_ignores_the_stale_entry() {
        let mut q = EventQueue::default();
        let mut t = Timer::default();
        t.arm(20, &mut q, Event::Rto(0));
        t.arm(10, &mut q, Event::Rto(0));
        let (now, ev) = q.pop().unwrap();
        assert_eq!((now, t.fire(now, &mut q, ev)), (10, Fire::Expired));
        let (now, ev) = q.pop().unwrap();
        assert_eq!((now, t.fire(now, &mut q, ev)), (20, Fire::Ignore));
        t.arm(30, &mut q, Event::Rto(0));
        t.cancel();
        let (now, ev) = q.pop().unwrap();
        assert_eq!(t.fire(now, &mut q, ev), Fire::Ignore);
    }
}
