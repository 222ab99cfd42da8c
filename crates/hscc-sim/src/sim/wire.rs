//! The sender's side of the network ([`Wire`]): a segment goes to its first
//! link at once or waits in its host line.

use super::lazy::NO_LINE;
use super::{HostLine, Net};
use crate::event::{Event, EventQueue};
use crate::packet::Packet;
use crate::tcp::sender::Wire;
use crate::time::Time;

/// The sender's view of the network: its data route, through its host line.
pub(super) struct SenderWire<'a> {
    pub(super) net: &'a mut Net,
    pub(super) route: &'a [u32],
    pub(super) gen: u32,
    pub(super) host: &'a mut HostLine,
    pub(super) held: &'a mut u32,
    pub(super) direct: bool,
    /// `host` is the lazy line of the first link, this one (`sim/lazy.rs`); `NO_LINE`: the shared line.
    pub(super) lazy_line: u32,
}

impl SenderWire<'_> {
    /// Send `p` at `at` through the first link's lazy line: at once when it
    /// is due now and nothing is held before it, else held (`sim/lazy.rs`).
    #[inline]
    fn hold_lazily(&mut self, p: Packet, at: Time) {
        if at == self.net.now && self.host.is_empty() {
            self.net.counters.injected += 1;
            self.net.forward(&p, 0, self.route, at);
            return;
        }
        *self.held += 1;
        self.host.hold(at, p);
        let net = &mut *self.net;
        let link = &net.links[self.route[0] as usize];
        super::lazy::arm(self.host, self.lazy_line, link, &mut net.q);
    }
}

impl Wire for SenderWire<'_> {
    #[inline]
    fn now(&self) -> Time {
        self.net.now
    }
    #[inline]
    fn queue(&mut self) -> &mut EventQueue {
        &mut self.net.q
    }
    #[inline]
    fn send(&mut self, mut p: Packet, at: Time) {
        p.gen = self.gen;
        if let Some(c) = &mut self.net.capture {
            c.sent(&p, at);
        }
        if self.lazy_line != NO_LINE {
            return self.hold_lazily(p, at);
        }
        if (at == self.net.now || self.direct) && *self.held == 0 {
            self.net.counters.injected += 1;
            self.net.forward(&p, 0, self.route, at);
            return;
        }
        // Later: the packet waits at the host and reaches the first link at
        // `at` through an event, so that packets of other flows offered to the
        // same link in the meantime go first (offering it now with a future
        // time would fix its place in the queue too early).
        *self.held += 1;
        self.host.push(at, p, &mut self.net.q, Event::HostOut);
    }
    #[inline]
    fn ack_taken(&mut self, p: &Packet) {
        if let Some(c) = &mut self.net.capture {
            c.acked(p, self.net.now);
        }
    }
}
