//! The path of a link whose queue discipline decides at dequeue (RED, CoDel,
//! FQ-CoDel, PIE: [`crate::queue`]).
//!
//! Packets wait in the discipline, and the transmitter takes the next one when
//! it frees. That moment is known — it is the end of the current
//! serialization (`busy_until`) — so no event is scheduled for it: the
//! dequeues due by `now` run, in time order, whenever the link is next
//! touched ([`Link::service`]): before a packet is offered, when the packet in
//! transmission reaches the far end (it arrives no earlier than the
//! transmitter freed: [`Link::pop_arrival_aqm`]), when the queue is sampled and at
//! the end of the run.
//! Each dequeue sees exactly the packets offered before it, so the result is
//! the same as with an event per dequeue, and a link still costs one event
//! per packet (its arrival). Dequeues at a time run before packets offered at
//! that same time. PIE's periodic updates interleave the same way.

use rand::Rng as _;

use super::{Link, Offer};
use crate::capture::{log_drop, DropCause};
use crate::event::EventQueue;
use crate::packet::Packet;
use crate::queue::{Discipline, QueuedDrops, Tally};
use crate::time::Time;

/// A discipline and what it dropped after queuing.
#[derive(Debug)]
pub(super) struct AqmState {
    pub disc: Discipline,
    pub queued: QueuedDrops,
}

impl Link {
    /// [`Link::offer`] on a link with a queue discipline.
    #[inline(never)]
    pub(super) fn offer_aqm(
        &mut self,
        p: &Packet,
        hop: u8,
        now: Time,
        id: u32,
        q: &mut EventQueue,
    ) -> Offer {
        if self.loss_threshold != 0 && self.rng.random::<u64>() < self.loss_threshold {
            self.counters.drops_random += 1;
            log_drop(&mut self.drop_log, now, p, DropCause::Random);
            return Offer::RandomDrop;
        }
        self.service(now, id, q);
        let a = self.aqm.as_mut().expect("an AQM link");
        // After `service`, a transmitter free by now has nothing queued: idle since it freed.
        let idle = (self.busy_until <= now).then_some(self.busy_until);
        let mut pkt = *p;
        pkt.t = now;
        pkt.hop = hop;
        let mut tally = Tally {
            counters: &mut self.counters,
            queued: &mut a.queued,
            log: self.drop_log.as_deref_mut(),
        };
        if !a.disc.enqueue(pkt, now, idle, &mut tally) {
            return Offer::QueueDrop;
        }
        if idle.is_some() {
            self.busy_until = now;
            self.service(now, id, q);
        }
        Offer::Accepted
    }

    /// Run the dequeues (and a discipline's periodic work) due by `now`: each
    /// time the transmitter frees with packets waiting, the discipline gives
    /// the next one (dropping or marking on the way) and it starts.
    pub(crate) fn service(&mut self, now: Time, id: u32, q: &mut EventQueue) {
        let Some(mut a) = self.aqm.take() else { return };
        while self.busy_until <= now && !a.disc.is_empty() {
            let t = self.busy_until;
            a.disc.advance(t);
            let mut tally = Tally {
                counters: &mut self.counters,
                queued: &mut a.queued,
                log: self.drop_log.as_deref_mut(),
            };
            let Some(p) = a.disc.dequeue(t, &mut tally) else {
                break;
            };
            self.start_transmission(p, t, id, q);
        }
        a.disc.advance(now);
        self.aqm = Some(a);
    }

    /// `p` leaves the queue at `t`: serialize it and put it on the line.
    fn start_transmission(&mut self, p: Packet, t: Time, id: u32, q: &mut EventQueue) {
        let wire = p.size + self.framing;
        let wait = t - p.t;
        self.count_wait(wire, wait);
        self.busy_until = t.saturating_add(self.serialization(wire));
        let mut arrival = self.busy_until.saturating_add(self.delay);
        if self.jitter_ps > 0.0 {
            arrival = self
                .busy_until
                .saturating_add(self.jittered_delay())
                .max(self.last_arrival);
        }
        self.enter_line(&p, arrival, p.hop, id, q);
    }

    /// [`Link::pop_arrival`] on a link with a queue discipline: the transmitter
    /// freed no later than now, so the next packet leaves the queue; its
    /// arrival, later than the returned one, is scheduled by the link itself
    /// if the line was empty (the caller schedules the returned one, as ever).
    #[inline(never)]
    pub fn pop_arrival_aqm(
        &mut self,
        now: Time,
        id: u32,
        q: &mut EventQueue,
    ) -> (Packet, Option<Time>) {
        let out = self.pop_arrival(now);
        self.service(now, id, q);
        out
    }

    /// Whether the link has a queue discipline other than DropTail.
    #[inline]
    pub fn has_aqm(&self) -> bool {
        self.aqm.is_some()
    }

    /// What the discipline dropped after queuing (zero without one).
    pub fn queued_drops(&self) -> QueuedDrops {
        self.aqm
            .as_ref()
            .map_or_else(QueuedDrops::default, |a| a.queued)
    }

    /// UDP datagrams the discipline dropped after queuing since the last call,
    /// for the network's count of UDP packets in flight.
    pub fn take_udp_drops(&mut self) -> u64 {
        self.aqm
            .as_mut()
            .map_or(0, |a| std::mem::take(&mut a.queued.udp_unreported))
    }
}
