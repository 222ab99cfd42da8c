//! The network endpoints send into: the links, the event queue and the
//! packet accounting.

use crate::capture::Capture;
use crate::event::EventQueue;
use crate::link::{Link, Offer};
use crate::packet::{Kind, Packet};
use crate::time::Time;

/// Network-wide packet accounting, for conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetCounters {
    /// Packets handed to the network by endpoints.
    pub injected: u64,
    /// Packets that reached their destination endpoint.
    pub delivered: u64,
    /// Packets dropped by full queues.
    pub dropped_queue: u64,
    /// Packets dropped by random loss.
    pub dropped_random: u64,
    /// Packets of a finished transfer whose slot was reused, retired at the end
    /// of a link (counted in `delivered` too).
    pub stale: u64,
}

/// Links and the event queue: what endpoints send into.
pub struct Net {
    /// Current simulated time.
    pub now: Time,
    /// Pending events.
    pub q: EventQueue,
    /// Every unidirectional link.
    pub links: Vec<Link>,
    /// Accounting.
    pub counters: NetCounters,
    /// UDP datagrams in the network (capped at [`crate::limits::MAX_UDP_IN_NETWORK`]).
    pub udp_in_network: u64,
    /// Packet captures, if any ([`crate::capture`]).
    pub capture: Option<Box<Capture>>,
}

impl Net {
    /// Offer `p`, reaching hop `hop` of `route` at time `at` (≥ now).
    #[inline]
    pub(super) fn forward(&mut self, p: &Packet, hop: u8, route: &[u32], at: Time) {
        let id = route[hop as usize];
        let dropped = match self.links[id as usize].offer(p, hop, at, id, &mut self.q) {
            Offer::Accepted => return,
            Offer::QueueDrop => &mut self.counters.dropped_queue,
            Offer::RandomDrop => &mut self.counters.dropped_random,
        };
        *dropped += 1;
        if p.kind == Kind::Udp {
            self.udp_in_network -= 1;
        }
    }
}

impl Net {
    /// A packet lost at the far end of a link (loss point after the queue).
    #[cold]
    pub(super) fn lost_on_arrival(&mut self, p: &Packet) {
        self.counters.dropped_random += 1;
        if p.kind == Kind::Udp {
            self.udp_in_network -= 1;
        }
    }
}
