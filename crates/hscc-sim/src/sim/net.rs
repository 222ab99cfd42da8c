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
    /// Links `(a, b)` where hop `b` is folded into `a` (`sim/fold.rs`), sorted.
    pub folds: Vec<(u32, u32)>,
}

impl Net {
    /// Offer `p`, reaching hop `hop` of `route` at time `at` (≥ now).
    #[inline]
    pub(super) fn forward(&mut self, p: &Packet, hop: u8, route: &[u32], at: Time) {
        let id = route[hop as usize];
        let next = route.get(hop as usize + 1).copied();
        let offer = match next {
            Some(next)
                if self.links[id as usize].feeds_folded()
                    && self.links[next as usize].fed_by() == Some(id) =>
            {
                let (link, folded) = pair(&mut self.links, id, next);
                link.offer_folded(p, hop, at, &mut self.q, folded, next)
            }
            _ => self.links[id as usize].offer(p, hop, at, id, &mut self.q),
        };
        let dropped = match offer {
            Offer::Accepted => return,
            Offer::QueueDrop => &mut self.counters.dropped_queue,
            Offer::RandomDrop => &mut self.counters.dropped_random,
        };
        *dropped += 1;
        if p.kind == Kind::Udp {
            self.udp_in_network -= 1;
        }
    }

    /// A packet lost at the far end of a link (loss point after the queue).
    #[cold]
    pub(super) fn lost_on_arrival(&mut self, p: &Packet) {
        self.counters.dropped_random += 1;
        if p.kind == Kind::Udp {
            self.udp_in_network -= 1;
        }
    }

    /// Count what happened before `before` on links with folded hops and
    /// on those hops ([`Link::credit_folded`]): before the links' counters are read.
    pub(super) fn credit_folds(&mut self, before: Time) {
        let mut feeder = None;
        for &(a, b) in &self.folds {
            // `folds` is sorted: a feeder's pairs are together.
            if feeder != Some(a) {
                feeder = Some(a);
                self.links[a as usize].credit_folded(before);
            }
            self.links[b as usize].credit_folded(before);
        }
    }

    /// Put every folded hop back on its own, before the run: tests and
    /// benchmarks compare the two. Each packet's arrival time on each hop is
    /// the same either way, but events at the same picosecond may run in the
    /// other order, which can take a run down another path (`link/fold.rs`).
    pub fn unfold(&mut self) {
        for (a, b) in self.folds.drain(..) {
            self.links[a as usize].unfold();
            self.links[b as usize].unfold();
        }
    }
}

/// Links `a` and `b` (different) of `links`, both mutable.
#[inline(always)]
fn pair(links: &mut [Link], a: u32, b: u32) -> (&mut Link, &mut Link) {
    let (a, b) = (a as usize, b as usize);
    if a < b {
        let (x, y) = links.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = links.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}
