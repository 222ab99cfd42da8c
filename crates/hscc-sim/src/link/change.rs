//! A link's rate or delay changed during a run: the packets still queued
//! are rescheduled (transmission starts and arrivals), on every kind of
//! service (continuous or in ticks, in order or reordering).

use std::collections::BinaryHeap;

use super::Link;
use crate::time::Time;

impl Link {
    /// Change the rate at `now`: the packet being serialized finishes at the
    /// old rate; queued packets are rescheduled at the new one.
    pub fn set_rate(&mut self, now: Time, rate_bps: u64) {
        self.rate_bps = rate_bps;
        self.tx_remainder = 0;
        self.ser_size = [0; 2];
        self.ser_quotient = [0; 2];
        self.ser_remainder = [0; 2];
        self.reschedule_queue(now, true);
    }

    /// Change the propagation delay at `now`: packets already propagating keep
    /// their arrival times; the others use the new delay, never arriving before
    /// a packet ahead of them (unless the link reorders).
    pub fn set_delay(&mut self, now: Time, delay: Time) {
        self.delay = delay;
        self.reschedule_queue(now, false);
    }

    /// Recompute transmission starts (on a rate change) and arrivals of the
    /// packets still queued. Continuous service: they are back to back behind
    /// the one being serialized, whose arrival does not change. Tick service:
    /// the first queued packet keeps its release tick (Dummynet's pending
    /// `ready_event`) and its arrival; on a new rate the credit restarts from
    /// 0 at that tick for the packets behind it; a new delay keeps the release
    /// ticks. On a FIFO link the queued packets are the last `waiting.len()` of
    /// the FIFO and the scheduled head event stays valid; on a reordering link
    /// they are the last `waiting.len()` to have entered it, found by sequence
    /// number, and their jitter is drawn again (call [`Link::rearm`] after).
    fn reschedule_queue(&mut self, now: Time, new_rate: bool) {
        self.drain(now);
        let n = self.waiting.len();
        if n == 0 {
            return;
        }
        let len = self.ticks.len;
        if len == 0 {
            let mut t = self.waiting[0].0;
            for i in 0..n {
                let size = self.waiting[i].1;
                self.waiting[i].0 = t;
                t += self.serialization(size);
            }
            self.busy_until = t;
        } else if new_rate {
            self.ticks.credit = 0;
            self.ticks.last = self.waiting[0].0 / len;
            for i in 1..n {
                let (t, chain) = self.tick_release_after(self.waiting[i].1);
                (self.ticks.credit, self.ticks.last) = chain;
                self.waiting[i].0 = t;
            }
        }
        // Where queued packet i's propagation starts.
        let base = |link: &Link, i: usize| -> Time {
            match (len, link.waiting.get(i + 1)) {
                (0, Some(&(next, _))) => next,
                (0, None) => link.busy_until,
                _ => link.waiting[i].0,
            }
        };
        if let Some(mut r) = self.reorder.take() {
            let bases: Vec<Time> = (0..n).map(|i| base(self, i)).collect();
            let first = r.seq - n as u64;
            let mut v = std::mem::take(&mut r.heap).into_vec();
            for e in v.iter_mut().filter(|e| e.seq() >= first) {
                let arrival = bases[(e.seq() - first) as usize]
                    .saturating_add(self.jittered_delay())
                    .max(now);
                e.key = (arrival as u128) << 64 | e.seq() as u128;
                e.item.t = arrival;
            }
            r.heap = BinaryHeap::from(v);
            r.wake = now; // so that `rearm` schedules the new earliest arrival
            self.reorder = Some(r);
            return;
        }
        let first = self.line.len() - n;
        debug_assert!(
            len != 0 || first >= 1,
            "a queued packet waits behind one in service"
        );
        // A tick-served head keeps its arrival: its event is already scheduled.
        let keep = usize::from(first == 0);
        let mut last = if first > 0 {
            self.line[first - 1].t
        } else {
            self.line[0].t
        };
        for i in keep..n {
            last = base(self, i).saturating_add(self.delay).max(last);
            self.line[first + i].t = last;
        }
        self.last_arrival = last;
    }
}
