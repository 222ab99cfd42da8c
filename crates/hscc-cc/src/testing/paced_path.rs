//! A bottleneck for algorithms with `cong_control`: packets leave the sender
//! as Linux's internal pacing lets them, cross a link of `gap_us` per packet
//! and `rtprop_us` of propagation (an optional token-bucket policer in front),
//! and come back as ACKs that carry rate samples made as `tcp_rate.c` makes
//! them. A drop is found at the next delivery: one loss in that ACK's sample,
//! fast recovery for a round.

use std::collections::VecDeque;

use super::{run_until, Harness};
use crate::ops::{after, CaEvent, CaState, CongestionOps, RateSample};

/// A packet in flight, with what `tcp_rate_skb_sent` keeps.
struct Pkt {
    sent_at: u64,
    ack_at: u64,
    delivered: u32,
    delivered_mstamp: u64,
    first_tx: u64,
    app_limited: bool,
    dropped: bool,
}

/// A token bucket in front of the link: tokens (packets) per µs, bucket size,
/// tokens now, last refill (µs).
#[derive(Clone, Copy, Debug)]
pub struct Policer {
    /// Tokens (packets) added per µs.
    pub rate: f64,
    /// Bucket size, packets.
    pub size: f64,
    tokens: f64,
    last: u64,
}

impl Policer {
    /// A full bucket of `size` packets refilled at `rate` packets per µs from `now` µs.
    pub fn new(rate: f64, size: f64, now: u64) -> Policer {
        Policer {
            rate,
            size,
            tokens: size,
            last: now,
        }
    }

    /// Whether a packet offered at `now` is dropped.
    fn drops(&mut self, now: u64) -> bool {
        self.tokens = (self.tokens + (now - self.last) as f64 * self.rate).min(self.size);
        self.last = now;
        let drop = self.tokens < 1.0;
        if !drop {
            self.tokens -= 1.0;
        }
        drop
    }
}

/// The path and the sender on it (see the module documentation).
pub struct PacedPath<C: CongestionOps> {
    /// The sender's state and algorithm.
    pub h: Harness<C>,
    /// The bottleneck's time per packet, µs.
    pub gap_us: u64,
    /// Propagation delay of a round trip, µs.
    pub rtprop_us: u64,
    /// A policer in front of the bottleneck, if any.
    pub policer: Option<Policer>,
    link_free: u64,
    flight: VecDeque<Pkt>,
    first_tx: u64,
    /// Linux `tp->app_limited`: the delivered count that ends an app-limited period, 0 = none.
    app_limited_mark: u32,
    recovery_until: u32,
}

impl<C: CongestionOps> PacedPath<C> {
    /// `h` on a path of 100 µs per packet (10 packets/ms) and 10 ms of propagation.
    pub fn new(h: Harness<C>) -> Self {
        PacedPath {
            h,
            gap_us: 100,
            rtprop_us: 10_000,
            policer: None,
            link_free: 0,
            flight: VecDeque::new(),
            first_tx: 0,
            app_limited_mark: 0,
            recovery_until: 0,
        }
    }

    /// The next event: a transmission, if cwnd and pacing allow it first, else an ACK.
    pub fn step(&mut self) {
        let tp = &self.h.tp;
        let send_at = (tp.tcp_wstamp_ns / 1000).max(tp.now_us);
        let can_send = tp.packets_in_flight() < tp.snd_cwnd;
        match self.flight.front() {
            Some(p) if !can_send || p.ack_at < send_at => {
                self.h.tp.now_us = p.ack_at;
                self.on_ack();
            }
            _ => {
                self.h.tp.now_us = send_at;
                self.send();
            }
        }
    }

    /// Run for `us` of simulated time.
    pub fn run_for(&mut self, us: u64) {
        let end = self.h.tp.now_us + us;
        while self.h.tp.now_us < end {
            self.step();
        }
    }

    /// Step until `done`, at most 10⁷ steps (a failure names `what`).
    pub fn run_until(&mut self, what: &str, done: impl Fn(&Self) -> bool) {
        run_until(self, 10_000_000, what, done, Self::step);
    }

    fn send(&mut self) {
        let now = self.h.tp.now_us;
        if self.h.tp.packets_out == 0 {
            // tcp_rate_skb_sent: a new flight starts the intervals now.
            self.first_tx = now;
            self.h.tp.delivered_mstamp = now;
            self.h.cc.cwnd_event(&mut self.h.tp, CaEvent::TxStart);
        }
        let dropped = self.policer.as_mut().is_some_and(|p| p.drops(now));
        let depart = now.max(self.link_free) + self.gap_us;
        if !dropped {
            self.link_free = depart;
        }
        let tp = &mut self.h.tp;
        self.flight.push_back(Pkt {
            sent_at: now,
            ack_at: depart + self.rtprop_us,
            delivered: tp.delivered,
            delivered_mstamp: tp.delivered_mstamp,
            first_tx: self.first_tx,
            app_limited: self.app_limited_mark != 0,
            dropped,
        });
        tp.packets_out += 1;
        tp.snd_nxt = tp.snd_nxt.wrapping_add(tp.mss_cache);
        // Internal pacing: the next departure MSS/rate later (tcp_update_skb_after_send).
        if let Some(len_ns) = (tp.mss_cache as u64 * 1_000_000_000).checked_div(tp.pacing_rate) {
            tp.tcp_wstamp_ns = tp.tcp_wstamp_ns.max(now * 1000) + len_ns;
        }
    }

    fn on_ack(&mut self) {
        let p = self
            .flight
            .pop_front()
            .expect("an ACK is due only with a packet in flight");
        if p.dropped {
            // Marked lost at the next delivery.
            self.h.tp.lost_out += 1;
            return;
        }
        let losses = self.h.tp.lost_out;
        if losses > 0 && self.h.tp.ca_state == CaState::Open {
            self.h.fast_retransmit();
            self.recovery_until = self.h.tp.delivered + self.h.tp.packets_in_flight();
        }
        let tp = &mut self.h.tp;
        let now = tp.now_us;
        let prior_in_flight = tp.packets_in_flight();
        tp.packets_out -= 1 + losses;
        tp.lost_out = 0;
        tp.lost = tp.lost.wrapping_add(losses);
        tp.delivered += 1;
        tp.delivered_mstamp = now;
        tp.snd_una = tp.snd_una.wrapping_add(tp.mss_cache * (1 + losses));
        let rtt = now - p.sent_at;
        tp.srtt_us = if tp.srtt_us == 0 {
            (rtt as u32) << 3
        } else {
            tp.srtt_us - (tp.srtt_us >> 3) + rtt as u32
        };
        tp.min_rtt_us = tp.min_rtt_us.min(rtt as u32);
        // tcp_rate_skb_delivered and tcp_rate_gen.
        self.first_tx = p.sent_at;
        let interval = (p.sent_at - p.first_tx).max(now - p.delivered_mstamp) as i64;
        let interval = if interval < tp.min_rtt_us as i64 {
            -1
        } else {
            interval
        };
        if self.app_limited_mark != 0 && after(tp.delivered, self.app_limited_mark) {
            self.app_limited_mark = 0;
        }
        tp.app_limited = self.app_limited_mark != 0;
        let rs = RateSample {
            prior_mstamp: p.delivered_mstamp,
            prior_delivered: p.delivered,
            delivered: tp.delivered.wrapping_sub(p.delivered) as i32,
            interval_us: interval,
            rtt_us: rtt as i64,
            losses,
            acked_sacked: 1,
            prior_in_flight,
            is_app_limited: p.app_limited,
            ..RateSample::default()
        };
        assert!(
            self.h.cc.cong_control(&mut self.h.tp, &rs),
            "the algorithm on a paced path takes cong_control"
        );
        let tp = &mut self.h.tp;
        // The algorithm's mark (BBR's PROBE_RTT), as Linux stores it.
        if tp.app_limited && self.app_limited_mark == 0 {
            self.app_limited_mark = (tp.delivered + tp.packets_in_flight()).max(1);
        }
        if tp.ca_state == CaState::Recovery && tp.delivered >= self.recovery_until {
            self.h.cc.set_state(&mut self.h.tp, CaState::Open);
            self.h.tp.ca_state = CaState::Open;
        }
    }
}
