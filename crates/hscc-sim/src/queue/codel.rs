//! CoDel, Controlled Delay (RFC 8289; Linux include/net/codel_impl.h,
//! net/sched/sch_codel.c; ns-3's `CoDelQueueDisc` as a cross-check).
//!
//! At dequeue CoDel looks at the head packet's sojourn time. Once it has stayed
//! at or above `target` for `interval` (and more than one packet is left), the
//! queue enters the dropping state: it drops (or CE-marks) a packet, then the
//! next ones at times that follow the control law
//! `drop_next = drop_next + interval / sqrt(count)`, until a sojourn falls
//! below `target`. This follows RFC 8289 §5's pseudocode (`dodequeue`,
//! `dequeue`); where Linux differs the choice is stated where it is made:
//! - the control law in exact arithmetic, `interval / sqrt(count)` (RFC 8289
//!   §5.5 `control_law`); Linux approximates 1/sqrt(count) with one Newton
//!   step per count change (`codel_Newton_step`), within 0.1 % once settled;
//! - drops start at `now >= first_above_time` (RFC 8289 §5.6); Linux tests
//!   `now > first_above_time`, which in picosecond time differs only on an
//!   exact tie;
//! - the backlog test compares the bytes left after the dequeue with the
//!   largest packet seen (RFC 8289 §5.6 `bytes() <= maxpacket_`); Linux
//!   compares with the device MTU plus link header (1514 on Ethernet);
//! - ECN: an ECN-capable packet is CE-marked instead of dropped and is sent;
//!   the next drop time advances as if it had been dropped (Linux
//!   `codel_dequeue`: `params->ecn && INET_ECN_set_ce(skb)`).

use super::{Fifo, Limits, Tally, Why};
use crate::packet::Packet;
use crate::time::Time;
pub use hscc_model::queue::CodelParams;

/// The packets CoDel takes from: a FIFO, or one flow's queue in FQ-CoDel.
pub(crate) trait Source {
    /// Remove the head packet.
    fn pop(&mut self) -> Option<Packet>;
    /// Bytes the discipline holds after the last pop (Linux passes the
    /// qdisc's backlog, in FQ-CoDel every flow's).
    fn backlog(&self) -> u64;
    /// Bytes `p` takes in the queue.
    fn wire(&self, p: &Packet) -> u64;
}

/// The state of one CoDel instance (RFC 8289 §5.1's member variables, Linux
/// `struct codel_vars`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelVars {
    /// Drops (and marks) in the current dropping state, plus the carry-over.
    pub count: u32,
    /// `count` at the start of the last dropping state.
    pub lastcount: u32,
    /// Whether in the dropping state.
    pub dropping: bool,
    /// When the sojourn will have been above target for an interval (0: below target).
    pub first_above_time: Time,
    /// When the next drop is due in the dropping state.
    pub drop_next: Time,
}

/// `t + interval / sqrt(count)` (RFC 8289 §5.5 `control_law`), in ps.
#[inline]
pub fn control_law(t: Time, interval: Time, count: u32) -> Time {
    t.saturating_add((interval as f64 / (count.max(1) as f64).sqrt()) as Time)
}

impl CodelVars {
    /// RFC 8289 §5.6 `dodequeue`'s test on the packet just taken (None: the
    /// queue was empty): whether it is OK to drop it.
    fn ok_to_drop(
        &mut self,
        p: Option<&Packet>,
        src: &impl Source,
        prm: (Time, Time),
        maxpacket: &mut u64,
        now: Time,
    ) -> bool {
        let Some(p) = p else {
            self.first_above_time = 0;
            return false;
        };
        let (target, interval) = prm;
        *maxpacket = (*maxpacket).max(src.wire(p));
        let sojourn = now.saturating_sub(p.t);
        if sojourn < target || src.backlog() <= *maxpacket {
            // Went below: stay below for at least an interval.
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now + interval;
            return false;
        }
        now >= self.first_above_time
    }

    /// RFC 8289 §5.5 `dequeue` at `now` from `src` (with Linux's ECN marking):
    /// the packet to send, or None when every packet left was dropped.
    /// `maxpacket` is the largest packet seen; `(target, interval, ecn)`.
    pub(crate) fn dequeue(
        &mut self,
        prm: (Time, Time, bool),
        now: Time,
        src: &mut impl Source,
        maxpacket: &mut u64,
        tally: &mut Tally,
    ) -> Option<Packet> {
        let (target, interval, ecn) = prm;
        let times = (target, interval);
        let Some(mut p) = src.pop() else {
            self.dropping = false;
            self.first_above_time = 0;
            return None;
        };
        let ok = self.ok_to_drop(Some(&p), src, times, maxpacket, now);
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                if tally.mark(&mut p, ecn) {
                    self.drop_next = control_law(self.drop_next, interval, self.count);
                    return Some(p);
                }
                tally.drop_queued(&p, src.wire(&p), now, Why::Aqm);
                let next = src.pop();
                if !self.ok_to_drop(next.as_ref(), src, times, maxpacket, now) {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, interval, self.count);
                }
                p = next?;
            }
            return Some(p);
        }
        if !ok {
            return Some(p);
        }
        let out = if tally.mark(&mut p, ecn) {
            Some(p)
        } else {
            tally.drop_queued(&p, src.wire(&p), now, Why::Aqm);
            let next = src.pop();
            self.ok_to_drop(next.as_ref(), src, times, maxpacket, now);
            next
        };
        self.dropping = true;
        // If the queue went above target soon after it last went below, the
        // drop rate that controlled it then is a good start (RFC 8289 §5.5:
        // "this is the Linux version").
        let delta = self.count.saturating_sub(self.lastcount);
        let recent = (now as i128 - self.drop_next as i128) < 16 * interval as i128;
        self.count = if delta > 1 && recent { delta } else { 1 };
        self.lastcount = self.count;
        self.drop_next = control_law(now, interval, self.count);
        out
    }
}

/// A CoDel queue (Linux `sch_codel`): a FIFO dropped at dequeue, tail-dropped when full.
#[derive(Debug)]
pub struct Codel {
    prm: CodelParams,
    lim: Limits,
    q: Fifo,
    vars: CodelVars,
    maxpacket: u64,
}

/// A FIFO as CoDel's packet source.
struct FifoSource<'a> {
    q: &'a mut Fifo,
    lim: &'a Limits,
}

impl Source for FifoSource<'_> {
    fn pop(&mut self) -> Option<Packet> {
        self.q.pop(self.lim)
    }
    fn backlog(&self) -> u64 {
        self.q.bytes()
    }
    fn wire(&self, p: &Packet) -> u64 {
        self.lim.wire(p)
    }
}

impl Codel {
    /// An empty queue.
    pub fn new(prm: &CodelParams, lim: Limits) -> Codel {
        Codel {
            prm: *prm,
            lim,
            q: Fifo::default(),
            vars: CodelVars::default(),
            maxpacket: 0,
        }
    }

    /// The waiting packets.
    pub fn queue(&self) -> &Fifo {
        &self.q
    }

    /// The control state.
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }

    /// Queue `p` (RFC 8289 §5.4: time-stamp it; tail drop when full).
    pub fn enqueue(&mut self, p: Packet, tally: &mut Tally) -> bool {
        if !self.q.fits(&p, &self.lim) {
            tally.drop_arriving(&p, Why::Overflow);
            return false;
        }
        self.q.push(p, &self.lim);
        true
    }

    /// The next packet to send at `now`.
    pub fn dequeue(&mut self, now: Time, tally: &mut Tally) -> Option<Packet> {
        let prm = (self.prm.target, self.prm.interval, self.prm.ecn);
        let mut src = FifoSource {
            q: &mut self.q,
            lim: &self.lim,
        };
        self.vars
            .dequeue(prm, now, &mut src, &mut self.maxpacket, tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::CE;
    use crate::queue::testing::{limits, pkt, Books};
    use crate::time::US;
    use crate::time::{MS, SEC};

    /// Fill the queue at time 0, then dequeue every millisecond: the times
    /// (ms) at which a packet was dropped or marked, and the packets sent.
    fn run(ecn: bool, ms: u64) -> (Vec<u64>, u64, Books) {
        let mut q = Codel::new(
            &CodelParams {
                ecn,
                ..CodelParams::default()
            },
            limits(10_000),
        );
        let mut b = Books::default();
        for i in 0..2000 {
            assert!(q.enqueue(pkt(i, 0, true), &mut b.tally()));
        }
        let mut signals = Vec::new();
        let mut sent = 0;
        for t in 0..ms {
            let before = b.counters.drops_aqm + b.counters.marks;
            let p = q.dequeue(t * MS, &mut b.tally());
            sent += p.is_some() as u64;
            for _ in before..b.counters.drops_aqm + b.counters.marks {
                signals.push(t);
            }
            if ecn {
                assert_eq!(p.unwrap().flags & CE != 0, signals.last() == Some(&t));
            }
        }
        (signals, sent, b)
    }

    #[test]
    fn drop_times_follow_the_control_law() {
        // Sojourn = t (all queued at 0): above the 5 ms target from t = 5 ms,
        // so first_above_time = 105 ms and the first drop is at 105 ms; then
        // drop_next = 105 + 100/√1 = 205; 205 + 100/√2 = 275.71 (sent at the
        // 276 ms dequeue); + 100/√3 = 333.45 → 334; + 100/√4 = 383.45 → 384;
        // + 100/√5 = 428.17 → 429; + 100/√6 = 468.99 → 469.
        let (drops, sent, b) = run(false, 470);
        assert_eq!(drops, vec![105, 205, 276, 334, 384, 429, 469]);
        assert_eq!(
            sent, 470,
            "a drop takes the next packet at the same dequeue"
        );
        assert_eq!(b.queued.packets, 7);
        assert_eq!(b.counters.marks, 0);
    }

    #[test]
    fn ecn_marks_at_the_same_times_instead_of_dropping() {
        let (marks, sent, b) = run(true, 470);
        assert_eq!(marks, vec![105, 205, 276, 334, 384, 429, 469]);
        assert_eq!((sent, b.counters.drops_aqm, b.counters.marks), (470, 0, 7));
    }

    #[test]
    fn control_law_is_interval_over_root_count() {
        assert_eq!(control_law(0, 100 * MS, 1), 100 * MS);
        assert_eq!(control_law(0, 100 * MS, 4), 50 * MS);
        // 100 ms / √2 = 70.710678118… ms, truncated to the picosecond.
        assert_eq!(control_law(SEC, 100 * MS, 2), SEC + 70_710_678_118);
    }

    #[test]
    fn leaves_the_dropping_state_below_target_and_resumes_with_the_last_count() {
        let mut q = Codel::new(&CodelParams::default(), limits(10_000));
        let mut b = Books::default();
        for i in 0..600 {
            q.enqueue(pkt(i, 0, false), &mut b.tally());
        }
        for t in 0..470 {
            q.dequeue(t * MS, &mut b.tally());
        }
        assert_eq!((q.vars().count, q.vars().dropping), (7, true));
        // Drain what is left at once: the last packets' sojourn is still
        // high, but with at most one packet left CoDel stops dropping.
        let mut t = 470 * MS;
        while q.dequeue(t, &mut b.tally()).is_some() {
            t += US;
        }
        assert!(!q.vars().dropping);
        // A new standing queue 200 ms later (within 16 intervals of the last
        // drop): count restarts at count − lastcount = 7 − 1 = 6, and the next
        // drop comes 100/√6 = 40.82 ms after the first.
        let t0 = 700 * MS;
        for i in 0..200 {
            q.enqueue(pkt(i, 700, false), &mut b.tally());
        }
        let drops0 = b.counters.drops_aqm;
        let mut first = None;
        for k in 0..150 {
            let now = t0 + k * MS;
            q.dequeue(now, &mut b.tally());
            if b.counters.drops_aqm > drops0 && first.is_none() {
                first = Some(k);
            }
        }
        assert_eq!(first, Some(105), "5 ms to reach target, then an interval");
        assert_eq!(
            q.vars().count,
            7,
            "6 at the first drop, 7 at 105 + 40.82 → 146 ms"
        );
        assert_eq!(q.vars().lastcount, 6);
    }

    #[test]
    fn tail_drops_when_full() {
        let mut q = Codel::new(&CodelParams::default(), limits(2));
        let mut b = Books::default();
        assert!(q.enqueue(pkt(0, 0, false), &mut b.tally()));
        assert!(q.enqueue(pkt(1, 0, false), &mut b.tally()));
        assert!(!q.enqueue(pkt(2, 0, false), &mut b.tally()));
        assert_eq!(
            (
                b.counters.drops_queue,
                b.counters.drops_aqm,
                b.queued.packets
            ),
            (1, 0, 0)
        );
    }
}
