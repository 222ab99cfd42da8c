//! Lazy host lines: segments held at their hosts (host jitter, access delay)
//! for a first link that several flows share and nothing else uses.
//!
//! The shared host line ([`Sim::host_out`]) offers each held segment to its
//! first link at the segment's time, through an event: a segment of another
//! flow may be due earlier, and only at that time is the order of the two
//! known. A link whose every packet is such a segment needs no event for
//! that: nothing changes it between the segment's time and the next time
//! anything touches it, so its segments are held in a line of its own and
//! offered, each at its own time and in time order, when it is next touched —
//! before the next arrival at its far end, a trace sample, the end of a run.
//! Only while nothing is on the link (no arrival scheduled to take them in)
//! does the line keep a timer for its earliest segment. Every offer then
//! happens at the same simulated time and in the same order as through the
//! shared line; what moves is when events are scheduled, so events of the
//! same picosecond can run in another order (as with folded hops,
//! `link/fold.rs`), which host jitter makes vanishingly rare.

use super::{HostLine, Sim};
use crate::event::{Event, EventQueue, Fire};
use crate::link::Link;
use crate::time::Time;

/// `Flow::lazy_line` and `Link::lazy_line` of one that has none.
pub(super) const NO_LINE: u32 = u32::MAX;

/// Arm lazy line `i`'s timer for its earliest segment, if that comes before the
/// timer and nothing is on `link`, its link, to take the segment in.
#[inline]
pub(super) fn arm(line: &mut HostLine, i: u32, link: &Link, q: &mut EventQueue) {
    // The link first: it is seldom empty, and it is cheaper to ask than the line.
    if !link.line_is_empty() {
        return;
    }
    if let Some(t) = line.next() {
        if t < line.timer.deadline {
            line.timer.arm(t, q, Event::LazyLine(i));
        }
    }
}

impl Sim {
    /// Offer lazy line `i`'s segments due by `upto` to its link, each at its own time.
    #[inline]
    pub(super) fn take_held(&mut self, i: u32, upto: Time) {
        let line = &mut self.lazy_lines[i as usize];
        // Read in place and removed after: no copy of the packet on the way.
        while let Some((at, p, head)) = line.first_due(upto) {
            let flow = &mut self.flows[p.flow as usize];
            debug_assert_eq!(p.gen, flow.gen, "no web transfer uses a lazy line");
            flow.held -= 1;
            self.net.counters.injected += 1;
            self.net
                .forward(p, 0, self.routes.path(flow.data_route), at);
            line.remove(head);
        }
    }

    /// Offer every lazy line's segments due by `upto`: before the links are read.
    pub(super) fn take_all_held(&mut self, upto: Time) {
        for i in 0..self.lazy_lines.len() as u32 {
            self.take_held(i, upto);
        }
    }

    /// [`arm`] for lazy line `i` of link `l`.
    #[inline]
    pub(super) fn arm_lazy(&mut self, i: u32, l: u32) {
        let net = &mut self.net;
        arm(
            &mut self.lazy_lines[i as usize],
            i,
            &net.links[l as usize],
            &mut net.q,
        );
    }

    /// Lazy line `i`'s timer fired.
    pub(super) fn lazy_line_due(&mut self, i: u32) {
        let now = self.net.now;
        if self.lazy_lines[i as usize]
            .timer
            .fire(now, &mut self.net.q, Event::LazyLine(i))
            == Fire::Expired
        {
            self.take_held(i, now);
            // Dropped, they leave nothing on the link to take in the rest.
            let l = self.lazy_links[i as usize];
            self.arm_lazy(i, l);
        }
    }
}

impl Sim {
    /// The links whose segments wait in lazy lines, one per line.
    pub fn lazy_links(&self) -> &[u32] {
        &self.lazy_links
    }

    /// Hold every flow's segments in the shared host line instead, before
    /// the run: tests and benchmarks compare the two.
    pub fn unlazy(&mut self) {
        debug_assert!(
            self.lazy_lines.iter().all(|l| l.is_empty()),
            "before any segment"
        );
        for f in &mut self.flows {
            f.lazy_line = NO_LINE;
        }
        for &l in &self.lazy_links {
            self.net.links[l as usize].lazy_line = NO_LINE;
        }
        self.lazy_lines.clear();
        self.lazy_links.clear();
    }
}
