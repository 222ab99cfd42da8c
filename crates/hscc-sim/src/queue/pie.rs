//! PIE, Proportional Integral controller Enhanced (RFC 8033), as Linux runs it
//! (net/sched/sch_pie.c, include/net/pie.h, v6.x) and in its integer units:
//! probabilities as fractions of `MAX_PROB` = 2^56 − 1, times in psched ticks
//! of 64 ns, alpha and beta in sixteenths.
//!
//! Every `tupdate` the drop probability moves by
//! `alpha·(qdelay − target) + beta·(qdelay − qdelay_old)` (RFC 8033 §4.2),
//! both gains scaled down while the probability is small (÷2 below 10 %, then
//! ÷4 per decade down to 0.0001 %: §4.2's table, Linux
//! `pie_calculate_probability`); the step is capped at 2 % above 10 %, raised
//! by 2 % while the delay exceeds 250 ms (Linux), and the probability decays
//! by 1/64 per update while the delay stays 0 (Linux; RFC 8033 §4.2 writes
//! ×0.98). An arriving packet is dropped early with that probability (§4.1),
//! de-randomized (§5.4, Linux `accu_prob`: never below an accumulated 0.85,
//! always from 8.5), except during the 150 ms burst allowance (§4.4), while
//! the delay is below target/2 and the probability below 20 %, or with fewer
//! than two full packets queued. ECN-capable packets are CE-marked instead
//! while the probability is at most 10 % (§5.1; Linux `pie_qdisc_enqueue`).
//!
//! The queue delay is the sojourn time of the last packet dequeued (0 once the
//! queue is empty): Linux's default since 5.7 (`dq_rate_estimator` off);
//! RFC 8033 §4.3's departure-rate estimate is the alternative it keeps.
//! The first update comes `tupdate` after the start (RFC 8033 §4.2); Linux
//! arms its first timer at HZ/2, 0.5 s.

use rand::Rng as _;

use super::{Fifo, Limits, Tally, Why};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::time::Time;
use hscc_model::queue::sixteenths;
pub use hscc_model::queue::PieParams;

/// Linux `MAX_PROB`: probability 1.
pub const MAX_PROB: u64 = u64::MAX >> 8;
/// Picoseconds per psched tick (Linux `PSCHED_SHIFT` = 6: 64 ns).
const TICK: Time = 64_000;
/// Linux `PSCHED_TICKS_PER_SEC`.
const TICKS_PER_SEC: u64 = 1_000_000_000 >> 6;
/// Burst allowance after a quiet period (RFC 8033 §4.4 MAX_BURST; Linux `pie_vars_init`: 150 ms).
const MAX_BURST: u64 = (150 * 1_000_000) >> 6;
/// Delay above which the probability rises by 2 % more per update (Linux: 250 ms).
const HIGH_DELAY: u64 = (250 * 1_000_000) >> 6;
/// "MTU" of the early-drop floor: a full 1500-byte IP packet (Linux `psched_mtu`,
/// device MTU plus link header; the link's framing is added).
const MTU: u64 = 1500;

/// Linux `struct pie_vars` (timestamp mode), times in psched ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieVars {
    /// Queue delay at the last update (between updates: of the last dequeue).
    pub qdelay: u64,
    /// Queue delay at the update before.
    pub qdelay_old: u64,
    /// Burst allowance left.
    pub burst_time: u64,
    /// Time of the last dequeue (None: none since the last reset).
    pub dq_tstamp: Option<u64>,
    /// Drop probability, in `MAX_PROB` units (may exceed it: always drop).
    pub prob: u64,
    /// Accumulated probability since the last drop (de-randomization).
    pub accu_prob: u64,
}

/// A PIE queue.
#[derive(Debug)]
pub struct Pie {
    prm: PieParams,
    alpha: u64,
    beta: u64,
    target: u64,
    lim: Limits,
    q: Fifo,
    vars: PieVars,
    next_update: Time,
    rng: Rng,
}

impl Pie {
    /// An empty queue.
    pub fn new(prm: &PieParams, lim: Limits, rng: Rng) -> Pie {
        let vars = PieVars {
            burst_time: MAX_BURST,
            ..PieVars::default()
        };
        Pie {
            prm: *prm,
            alpha: sixteenths(prm.alpha).unwrap_or(2),
            beta: sixteenths(prm.beta).unwrap_or(20),
            target: prm.target / TICK,
            lim,
            q: Fifo::default(),
            vars,
            next_update: prm.tupdate,
            rng,
        }
    }

    /// The waiting packets.
    pub fn queue(&self) -> &Fifo {
        &self.q
    }

    /// The controller's state.
    pub fn vars(&self) -> &PieVars {
        &self.vars
    }

    /// Linux `pie_drop_early`.
    fn drop_early(&mut self) -> bool {
        let v = &mut self.vars;
        if v.burst_time > 0 || (v.qdelay < self.target / 2 && v.prob < MAX_PROB / 5) {
            return false;
        }
        if self.q.bytes() < 2 * (MTU + self.lim.framing as u64) {
            return false;
        }
        let local = v.prob;
        v.accu_prob = if local == 0 {
            0
        } else {
            v.accu_prob.saturating_add(local)
        };
        if v.accu_prob < (MAX_PROB / 100) * 85 {
            return false;
        }
        if v.accu_prob >= (MAX_PROB / 2) * 17 {
            return true;
        }
        let rnd: u64 = self.rng.random();
        if (rnd >> 8) < local {
            v.accu_prob = 0;
            return true;
        }
        false
    }

    /// Linux `pie_qdisc_enqueue`.
    pub fn enqueue(&mut self, mut p: Packet, tally: &mut Tally) -> bool {
        if !self.q.fits(&p, &self.lim) {
            self.vars.accu_prob = 0;
            tally.drop_arriving(&p, Why::Overflow);
            return false;
        }
        if self.drop_early()
            && !(self.vars.prob <= MAX_PROB / 10 && tally.mark(&mut p, self.prm.ecn))
        {
            self.vars.accu_prob = 0;
            tally.drop_arriving(&p, Why::Aqm);
            return false;
        }
        self.q.push(p, &self.lim);
        true
    }

    /// The head packet at `now` (Linux `pie_process_dequeue`, timestamp mode).
    pub fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.q.pop(&self.lim)?;
        let (now, v) = (now / TICK, &mut self.vars);
        v.qdelay = now.saturating_sub(p.t / TICK);
        let dtime = v.dq_tstamp.map_or(0, |t| now.saturating_sub(t));
        v.dq_tstamp = Some(now);
        if self.q.is_empty() {
            v.qdelay = 0;
        }
        if dtime > 0 {
            v.burst_time = v.burst_time.saturating_sub(dtime);
        }
        Some(p)
    }

    /// Run the probability updates due by `until`.
    pub fn advance(&mut self, until: Time) {
        while self.next_update <= until {
            self.update();
            self.next_update += self.prm.tupdate;
        }
    }

    /// Linux `pie_calculate_probability` (timestamp mode), on the current backlog.
    pub fn update(&mut self) {
        let backlog = self.q.bytes();
        let v = &mut self.vars;
        let (qdelay, qdelay_old) = (v.qdelay, v.qdelay_old);
        // A zero delay with a backlog means a very small queue: no decay this round.
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let mut alpha = (self.alpha * (MAX_PROB / TICKS_PER_SEC)) >> 4;
        let mut beta = (self.beta * (MAX_PROB / TICKS_PER_SEC)) >> 4;
        if v.prob < MAX_PROB / 10 {
            alpha >>= 1;
            beta >>= 1;
            let mut power = 100;
            while v.prob < MAX_PROB / power && power <= 1_000_000 {
                alpha >>= 2;
                beta >>= 2;
                power *= 10;
            }
        }
        // Linux's u64 products added to an s64: two's complement arithmetic.
        let mut delta = (alpha as i64).wrapping_mul(qdelay as i64 - self.target as i64);
        delta = delta.wrapping_add((beta as i64).wrapping_mul(qdelay as i64 - qdelay_old as i64));
        let oldprob = v.prob;
        if delta > (MAX_PROB / 50) as i64 && v.prob >= MAX_PROB / 10 {
            delta = (MAX_PROB / 100 * 2) as i64;
        }
        if qdelay > HIGH_DELAY {
            delta += (MAX_PROB / 50) as i64;
        }
        v.prob = v.prob.wrapping_add(delta as u64);
        if delta > 0 {
            if v.prob < oldprob {
                v.prob = MAX_PROB;
                update_prob = false;
            }
        } else if v.prob > oldprob {
            v.prob = 0;
        }
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            v.prob -= v.prob / 64;
        }
        v.qdelay = qdelay;
        if v.qdelay < self.target / 2 && v.qdelay_old < self.target / 2 && v.prob == 0 {
            // pie_vars_init: a new burst allowance.
            v.burst_time = MAX_BURST;
            v.dq_tstamp = None;
            v.accu_prob = 0;
        }
        v.qdelay_old = qdelay;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::{limits, pkt, Books};
    use crate::rng::{component_rng, Component};
    use crate::time::MS;

    fn pie() -> Pie {
        Pie::new(
            &PieParams::default(),
            limits(1000),
            component_rng(1, Component::Queue, 0),
        )
    }

    /// One update with the queue delay of the last dequeue at `ms`, with a backlog.
    fn step(p: &mut Pie, ms: u64) -> u64 {
        p.vars.qdelay = ms * 1_000_000 / 64;
        if p.q.is_empty() {
            p.q.push(pkt(0, 0, false), &p.lim);
        }
        p.update();
        p.vars.prob
    }

    #[test]
    fn probability_follows_the_pi_update_with_scaled_gains() {
        let mut p = pie();
        // MAX_PROB / ticks per second = 4 611 686 018. alpha = 2·that >> 4 =
        // 576 460 752, beta = 20·that >> 4 = 5 764 607 522. At p = 0 both are
        // halved, then quartered five times (below 1 %, …, 0.0001 %): ÷2048 →
        // 281 474 and 2 814 749. A 30 ms delay (468 750 ticks; target 234 375,
        // previous 0): 281 474·234 375 + 2 814 749·468 750 = 1 385 384 062 500.
        assert_eq!(step(&mut p, 30), 1_385_384_062_500);
        // RFC 8033 in real numbers: (0.125·0.015 + 1.25·0.030)/2048 = 1.9226e-5.
        assert!((1_385_384_062_500.0 / MAX_PROB as f64 - 0.039375 / 2048.0).abs() < 1e-9);
        // Still 30 ms: p = 1.92e-5 is at least 0.001 %, so the gains are ÷128:
        // 4 503 599·234 375 + 45 035 996·0 = 1 055 531 015 625 more.
        assert_eq!(step(&mut p, 30), 1_385_384_062_500 + 1_055_531_015_625);
        // The delay falls to 10 ms: both terms are negative.
        let before = p.vars.prob;
        assert!(step(&mut p, 10) < before);
    }

    #[test]
    fn increases_are_capped_at_two_percent_above_ten_percent() {
        let mut p = pie();
        p.vars.prob = MAX_PROB / 5;
        p.vars.qdelay_old = 0;
        // 200 ms: the uncapped step would be 0.125·0.185 + 1.25·0.2 = 27 %.
        let prob = step(&mut p, 200);
        assert_eq!(prob, MAX_PROB / 5 + MAX_PROB / 100 * 2);
        // Above 250 ms another 2 % is added after the cap.
        let prob = step(&mut p, 300);
        assert_eq!(
            prob,
            MAX_PROB / 5 + 2 * (MAX_PROB / 100 * 2) + MAX_PROB / 50
        );
    }

    #[test]
    fn decays_by_one_sixty_fourth_while_the_queue_stays_empty() {
        let mut q = pie();
        q.vars.prob = MAX_PROB / 2; // the negative step is ÷1, the decay visible
        q.update();
        let alpha = (2 * (MAX_PROB / TICKS_PER_SEC)) >> 4;
        let stepped = MAX_PROB / 2 - alpha * 234_375;
        assert_eq!(q.vars.prob, stepped - stepped / 64);
    }

    #[test]
    fn burst_allowance_then_early_drops_and_ecn_marks() {
        let mut p = Pie::new(
            &PieParams {
                ecn: true,
                ..PieParams::default()
            },
            limits(10_000),
            component_rng(1, Component::Queue, 0),
        );
        let mut b = Books::default();
        for i in 0..10 {
            assert!(p.enqueue(pkt(i, 0, false), &mut b.tally()));
        }
        p.vars.prob = MAX_PROB / 20; // 5 %
        p.vars.qdelay = 30 * 1_000_000 / 64;
        // Within the burst allowance nothing is dropped.
        assert!((0..100).all(|i| p.enqueue(pkt(i, 0, false), &mut b.tally())));
        p.vars.burst_time = 0;
        let mut dropped = 0;
        let mut marked = 0;
        for i in 0..2000 {
            let m = b.counters.marks;
            if !p.enqueue(pkt(i, 0, i % 2 == 0), &mut b.tally()) {
                dropped += 1;
            }
            marked += (b.counters.marks > m) as u32;
        }
        // De-randomized: no signal until 17 arrivals have accumulated 0.85,
        // then 5 % each: about 2000 / (16 + 20) = 55 signals, half of them on
        // ECN-capable packets (marked).
        assert!(
            (35..=80).contains(&(dropped + marked)),
            "{dropped} + {marked}"
        );
        assert!(dropped > 20 && marked > 20, "{dropped} {marked}");
        // Above 10 % even ECN-capable packets are dropped.
        p.vars.prob = MAX_PROB / 5;
        let m = b.counters.marks;
        for i in 0..200 {
            p.enqueue(pkt(i, 0, true), &mut b.tally());
        }
        assert_eq!(b.counters.marks, m);
    }

    #[test]
    fn dequeue_samples_the_sojourn_and_spends_the_burst_allowance() {
        let mut p = pie();
        let mut b = Books::default();
        p.enqueue(pkt(0, 0, false), &mut b.tally());
        p.enqueue(pkt(1, 0, false), &mut b.tally());
        p.dequeue(20 * MS);
        assert_eq!(p.vars.qdelay, 20 * 1_000_000 / 64);
        assert_eq!(
            p.vars.burst_time, MAX_BURST,
            "the first dequeue has no previous one"
        );
        p.dequeue(30 * MS);
        assert_eq!(p.vars.qdelay, 0, "the queue is empty after it");
        assert_eq!(p.vars.burst_time, MAX_BURST - 10 * 1_000_000 / 64);
        // Updates every 15 ms: four are due by 60 ms.
        p.advance(60 * MS);
        assert_eq!(p.next_update, 75 * MS);
    }
}
