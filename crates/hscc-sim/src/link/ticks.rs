//! Tick service (Dummynet): a queue served in clock ticks of the link's `tick`,
//! with the credit a tick earns and a packet spends. Departure times are
//! still fixed when a packet is enqueued, so the link keeps its FIFO and its
//! single head event ([`Link::offer_with_options`]).

use super::Link;
use crate::time::{Time, SEC};

/// Dummynet's per-pipe credit state: ip_dummynet.c's `q->numbytes` (credit,
/// here in bit·ps/s so that a tick earns rate × tick and a packet costs
/// bytes·8·SEC) and `q->sched_time` (the tick the credit was last counted at).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Ticks {
    /// Tick length, ps (0: continuous service).
    pub(super) len: Time,
    /// Credit left after the last release.
    pub(super) credit: u128,
    /// Index of the tick of the last release.
    pub(super) last: u64,
}

impl Link {
    /// Dummynet's release of a `wire`-byte frame offered at `now` to a tick-served
    /// queue: the time it leaves the queue, and the credit and tick index after
    /// it. FreeBSD's ip_dummynet.c (docs/links-and-web.md §4): each tick the
    /// pipe earns `bandwidth` (rate × tick here) and `ready_event` moves queued
    /// packets to the delay line while the credit pays for them, carrying what
    /// is left; a packet finding the queue empty is scheduled `set_ticks` =
    /// ⌈(cost − credit)/bandwidth⌉ ticks after the current one (released at
    /// once if that is 0), and the credit restarts from 0 when the queue went
    /// idle in an earlier tick (`q->numbytes = 0` if `q_time < curr_time`).
    #[inline]
    pub(super) fn tick_release(&self, wire: u32, now: Time) -> (Time, Option<(u128, u64)>) {
        if !self.waiting.is_empty() {
            let (release, chain) = self.tick_release_after(wire);
            return (release, Some(chain));
        }
        let k = now / self.ticks.len;
        let credit = if self.ticks.last == k {
            self.ticks.credit
        } else {
            0
        };
        let (wait, credit, tick) = self.tick_chain(credit, k, wire);
        let release = if wait == 0 {
            now
        } else {
            tick.saturating_mul(self.ticks.len)
        };
        (release, Some((credit, tick)))
    }

    /// The next release of a backlogged tick-served queue: the chain continues
    /// from the last release.
    pub(super) fn tick_release_after(&self, wire: u32) -> (Time, (u128, u64)) {
        let (_, credit, tick) = self.tick_chain(self.ticks.credit, self.ticks.last, wire);
        (tick.saturating_mul(self.ticks.len), (credit, tick))
    }

    /// With `credit` at tick `from`, a `wire`-byte frame is paid for `wait`
    /// ticks later (Dummynet's `set_ticks`), leaving `credit'`: (wait, credit', tick).
    #[inline]
    pub(super) fn tick_chain(&self, credit: u128, from: u64, wire: u32) -> (u128, u128, u64) {
        let per_tick = self.rate_bps as u128 * self.ticks.len as u128;
        let cost = wire as u128 * 8 * SEC as u128;
        let wait = cost.saturating_sub(credit).div_ceil(per_tick);
        let tick = from.saturating_add(wait.min(u64::MAX as u128) as u64);
        (wait, credit + wait * per_tick - cost, tick)
    }
}
