//! Test harness for algorithms alone: a scripted sender with a virtual clock.
//!
//! [`Harness`] drives an algorithm through the hooks in the order of the
//! sender contract (see [`crate::ops`]), so tests read like scripts:
//!
//! ```
//! use hscc_cc::algos::reno::Reno;
//! use hscc_cc::testing::Harness;
//! let mut h = Harness::new(Reno, 10);
//! h.set_rtt_ms(100);
//! h.round();                 // send a window, wait one RTT, ACK it segment by segment
//! assert_eq!(h.cwnd(), 20);  // slow start doubles per RTT
//! h.loss();                  // fast retransmit + recovery with cwnd = ssthresh
//! assert_eq!(h.cwnd(), 10);
//! ```
//!
//! The harness keeps counts, and the segments in flight only as runs of
//! equal delivered stamps (for `pkts_acked`'s `in_flight`, Linux's
//! `mss_cache · (delivered − prior_delivered)`), so it can run ten simulated
//! days at any window. [`cc_property_suite!`](crate::cc_property_suite)
//! instantiates the generic invariant checks for an algorithm. A test that
//! waits for a condition uses [`run_until`] or [`Harness::rounds_until`], which
//! give up after a set number of steps instead of looping forever.

use std::collections::VecDeque;

use crate::ops::{
    AckSample, CaEvent, CaState, CongestionOps, TcpCc, CA_ACK_ECE, CA_ACK_SLOWPATH,
    TCP_INFINITE_SSTHRESH,
};

mod paced_path;
// For this crate's BBR tests only: proptest is a dev-dependency.
#[cfg(test)]
mod rate_sample;
pub use paced_path::{PacedPath, Policer};
#[cfg(test)]
pub use rate_sample::{rate_steps, RateAck, RateStep};

/// Default MSS of the harness, bytes.
pub const MSS: u32 = 1448;

/// A scripted sender around one algorithm.
#[derive(Clone, Debug)]
pub struct Harness<A: CongestionOps> {
    /// The algorithm under test.
    pub cc: A,
    /// The sender state it sees.
    pub tp: TcpCc,
    /// RTT reported with every ACK, µs.
    pub rtt_us: u32,
    /// Forward one-way delay, µs: an ACK's TSval is its segment's send time
    /// plus this (half the RTT when `None`).
    pub owd_us: Option<u32>,
    /// Whether ACKs carry timestamps (else `rcv_tsval` and `rcv_tsecr` stay 0).
    pub timestamps: bool,
    /// End of the current recovery / loss episode (byte sequence).
    high_seq: u32,
    /// The segments in flight, oldest first, as runs (segments,
    /// `tp.delivered` when they were sent): Linux's `tcp_rate_skb_sent`
    /// stamps, kept as runs so that a round costs one entry per send.
    stamps: VecDeque<(u32, u32)>,
}

impl<A: CongestionOps> Harness<A> {
    /// A new connection with initial window `init_cwnd`; calls `init`.
    pub fn new(mut cc: A, init_cwnd: u32) -> Self {
        let mut tp = TcpCc::new(MSS, init_cwnd);
        cc.init(&mut tp);
        Harness {
            cc,
            tp,
            rtt_us: 100_000,
            owd_us: None,
            timestamps: true,
            high_seq: 0,
            stamps: VecDeque::new(),
        }
    }

    /// A new connection from parameters.
    pub fn with_params(p: &A::Params, init_cwnd: u32) -> Self {
        Self::new(A::new(p), init_cwnd)
    }

    /// Current congestion window, segments.
    pub fn cwnd(&self) -> u32 {
        self.tp.snd_cwnd
    }

    /// Current slow-start threshold, segments.
    pub fn ssthresh(&self) -> u32 {
        self.tp.snd_ssthresh
    }

    /// Set the RTT reported with each ACK.
    pub fn set_rtt_us(&mut self, rtt: u32) {
        self.rtt_us = rtt;
    }

    /// Set the RTT reported with each ACK, in ms.
    pub fn set_rtt_ms(&mut self, rtt: u32) {
        self.rtt_us = rtt * 1000;
    }

    /// Advance the clock.
    pub fn advance_us(&mut self, dt: u64) {
        self.tp.now_us += dt;
    }

    /// Advance the clock, in ms.
    pub fn advance_ms(&mut self, dt: u64) {
        self.advance_us(dt * 1000);
    }

    /// Send `n` new segments now (the caller decides whether cwnd allows it).
    pub fn send(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        if self.tp.packets_out == 0 {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
        self.tp.packets_out += n;
        let delivered = self.tp.delivered;
        match self.stamps.back_mut() {
            Some((k, d)) if *d == delivered => *k += n,
            _ => self.stamps.push_back((n, delivered)),
        }
        self.tp.snd_nxt = self
            .tp
            .snd_nxt
            .wrapping_add(n.wrapping_mul(self.tp.mss_cache));
        self.tp.max_packets_out = self.tp.max_packets_out.max(self.tp.packets_out);
        self.tp.is_cwnd_limited = self.tp.packets_in_flight() >= self.tp.snd_cwnd;
    }

    /// Send as many segments as cwnd allows.
    pub fn send_all(&mut self) {
        let room = self.tp.snd_cwnd.saturating_sub(self.tp.packets_in_flight());
        self.send(room);
    }

    /// `acks` ACKs, each cumulatively acknowledging `per_ack` segments (2 =
    /// delayed ACKs), through the hooks in the order of the sender contract.
    pub fn ack_each(&mut self, acks: u32, per_ack: u32) {
        for _ in 0..acks {
            let n = per_ack.min(self.tp.packets_out);
            if n == 0 {
                return;
            }
            self.ack_one(n, false);
        }
    }

    /// As [`Harness::ack_each`], every ACK echoing ECN (ECE): what it delivers
    /// counts in `delivered_ce`, `in_ack_event` gets `CA_ACK_ECE`, and in Open
    /// or Disorder the sender enters CWR (Linux `tcp_enter_cwr`), which ends
    /// with cwnd = ssthresh once data sent after it is acknowledged.
    pub fn ece_ack_each(&mut self, acks: u32, per_ack: u32) {
        for _ in 0..acks {
            let n = per_ack.min(self.tp.packets_out);
            if n == 0 {
                return;
            }
            self.ack_one(n, true);
        }
    }

    /// Acknowledge every outstanding segment, one ACK per segment.
    pub fn ack_all(&mut self) {
        let n = self.tp.packets_out;
        self.ack_each(n, 1);
    }

    /// Take the oldest `n` segments' stamps; the last one's is the ACK's
    /// `prior_delivered` (in-order ACKs: the newest segment delivered wins,
    /// `tcp_rate_skb_delivered`). None when no stamp is left (a test that
    /// set `packets_out` itself).
    fn take_stamps(&mut self, mut n: u32) -> Option<u32> {
        let mut last = None;
        while n > 0 {
            let Some((k, d)) = self.stamps.front_mut() else {
                break;
            };
            last = Some(*d);
            let take = n.min(*k);
            *k -= take;
            n -= take;
            if *k == 0 {
                self.stamps.pop_front();
            }
        }
        last
    }

    /// Linux's `ack_sample.in_flight` (`tcp_clean_rtx_queue`).
    fn ack_in_flight(&self, prior_delivered: u32) -> u32 {
        self.tp
            .mss_cache
            .wrapping_mul(self.tp.delivered.wrapping_sub(prior_delivered))
    }

    fn ack_one(&mut self, n: u32, ece: bool) {
        let prior_delivered = self.take_stamps(n).unwrap_or(0);
        self.tp.snd_una = self
            .tp
            .snd_una
            .wrapping_add(n.wrapping_mul(self.tp.mss_cache));
        self.tp.packets_out -= n;
        self.tp.delivered = self.tp.delivered.wrapping_add(n);
        if ece {
            self.tp.delivered_ce = self.tp.delivered_ce.wrapping_add(n);
        }
        self.ack_timestamps();
        let flags = if ece { CA_ACK_ECE | CA_ACK_SLOWPATH } else { 0 };
        self.cc.in_ack_event(&mut self.tp, flags);
        self.rtt_sample(self.rtt_us);
        let sample = AckSample {
            pkts_acked: n,
            rtt_us: self.rtt_us as i32,
            in_flight: self.ack_in_flight(prior_delivered),
        };
        self.cc.pkts_acked(&mut self.tp, &sample);
        if self.tp.ca_state == CaState::Cwr && crate::ops::after(self.tp.snd_una, self.high_seq) {
            if self.tp.snd_ssthresh < TCP_INFINITE_SSTHRESH {
                self.tp.snd_cwnd = self.tp.snd_ssthresh;
            }
            self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
            self.set_state(CaState::Open);
        }
        if ece && self.tp.ca_state <= CaState::Disorder {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.high_seq = self.tp.snd_nxt;
            self.set_state(CaState::Cwr);
        }
        let in_reduction = matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr);
        if self.tp.ca_state == CaState::Loss && !crate::ops::before(self.tp.snd_una, self.high_seq)
        {
            self.set_state(CaState::Open);
        }
        if !in_reduction {
            let ack = self.tp.snd_una;
            self.cc.cong_avoid(&mut self.tp, ack, n);
            if self.tp.enter_cwr {
                self.enter_cwr();
            }
        }
        self.tp.snd_cwnd = self.tp.snd_cwnd.clamp(1, self.tp.snd_cwnd_clamp);
    }

    /// Linux `tcp_enter_cwr` asked for by the algorithm ([`TcpCc::enter_cwr`]):
    /// from Open or Disorder, prior_cwnd, ssthresh(), set_state(Cwr); cwnd
    /// then stays until CWR ends (at ssthresh), as recovery's here.
    fn enter_cwr(&mut self) {
        self.tp.enter_cwr = false;
        if self.tp.ca_state < CaState::Cwr {
            self.tp.snd_cwnd_cnt = 0;
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.high_seq = self.tp.snd_nxt;
            self.set_state(CaState::Cwr);
        }
    }

    /// The ACK's timestamps: it echoes a segment sent one RTT ago, and the
    /// receiver sent it [`Harness::owd_us`] after that (clocks in ms).
    fn ack_timestamps(&mut self) {
        if !self.timestamps {
            return;
        }
        let sent = self.tp.now_us.saturating_sub(self.rtt_us as u64);
        let owd = self.owd_us.unwrap_or(self.rtt_us / 2);
        self.tp.rcv_tsecr = (sent / 1000) as u32;
        self.tp.rcv_tsval = ((sent + owd as u64) / 1000) as u32;
    }

    /// A duplicate ACK (no new data acknowledged, RTT sample given).
    pub fn dupack(&mut self) {
        self.ack_timestamps();
        self.cc.in_ack_event(&mut self.tp, CA_ACK_SLOWPATH);
        // Nothing delivered: Linux's prior_delivered stays 0.
        let sample = AckSample {
            pkts_acked: 0,
            rtt_us: self.rtt_us as i32,
            in_flight: self.ack_in_flight(0),
        };
        self.cc.pkts_acked(&mut self.tp, &sample);
    }

    /// Linux `tcp_rtt_estimator` (srtt in µs << 3) and min RTT.
    fn rtt_sample(&mut self, rtt: u32) {
        let m = rtt.max(1);
        if self.tp.srtt_us == 0 {
            self.tp.srtt_us = m << 3;
        } else {
            let srtt = self.tp.srtt_us as i64;
            self.tp.srtt_us = (srtt + m as i64 - (srtt >> 3)) as u32;
        }
        self.tp.min_rtt_us = self.tp.min_rtt_us.min(m);
    }

    fn set_state(&mut self, s: CaState) {
        self.cc.set_state(&mut self.tp, s);
        self.tp.ca_state = s;
    }

    /// One round trip: send what cwnd allows, wait one RTT, ACK it one ACK per segment.
    pub fn round(&mut self) {
        self.send_all();
        self.advance_us(self.rtt_us as u64);
        self.ack_all();
    }

    /// `n` round trips.
    pub fn rounds(&mut self, n: u32) {
        for _ in 0..n {
            self.round();
        }
    }

    /// Round trips until `done` holds, at most `max_rounds`; returns how many
    /// ran. Like [`run_until`], panics when the cap is hit, here with cwnd and
    /// ssthresh in the message.
    #[track_caller]
    pub fn rounds_until(
        &mut self,
        max_rounds: u32,
        what: &str,
        done: impl Fn(&Self) -> bool,
    ) -> u32 {
        match steps_until(self, max_rounds, done, Self::round) {
            Some(n) => n,
            None => panic!(
                "gave up after {max_rounds} rounds waiting for {what} (cwnd {}, ssthresh {})",
                self.cwnd(),
                self.ssthresh()
            ),
        }
    }

    /// One round trip of a backlogged sender whose pipe never drains: fill
    /// cwnd, wait one RTT, then ACK the segments outstanding at the start one
    /// by one, sending what cwnd allows after each ACK. Unlike [`Harness::round`]
    /// the flight never empties, so there is no `TxStart` (idle restart)
    /// between rounds — what per-round algorithms such as Vegas need.
    pub fn clocked_round(&mut self) {
        self.send_all();
        self.advance_us(self.rtt_us as u64);
        for _ in 0..self.tp.packets_out {
            self.ack_each(1, 1);
            self.send_all();
        }
    }

    /// `n` clocked round trips (see [`Harness::clocked_round`]).
    pub fn clocked_rounds(&mut self, n: u32) {
        for _ in 0..n {
            self.clocked_round();
        }
    }

    /// Enter fast recovery (Linux `tcp_enter_recovery`): prior_cwnd, ssthresh(), set_state(Recovery).
    pub fn fast_retransmit(&mut self) {
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            return;
        }
        // A reduction under way (CWR) continues (Linux tcp_enter_recovery).
        if self.tp.ca_state != CaState::Cwr {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
        }
        self.high_seq = self.tp.snd_nxt;
        self.tp.lost = self.tp.lost.wrapping_add(1);
        self.set_state(CaState::Recovery);
    }

    /// Leave recovery as Linux does (`tcp_end_cwnd_reduction`): cwnd = ssthresh.
    pub fn end_recovery(&mut self) {
        if self.tp.ca_state != CaState::Recovery {
            return;
        }
        if self.tp.snd_ssthresh < crate::ops::TCP_INFINITE_SSTHRESH {
            self.tp.snd_cwnd = self.tp.snd_ssthresh;
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        self.set_state(CaState::Open);
    }

    /// A loss detected by duplicate ACKs and its recovery, classic style.
    pub fn loss(&mut self) {
        self.fast_retransmit();
        self.end_recovery();
    }

    /// Retransmission timeout (Linux `tcp_enter_loss`): all outstanding data is
    /// considered lost and cwnd restarts at 1.
    pub fn timeout(&mut self) {
        if self.tp.ca_state != CaState::Loss {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        // The lost segments leave the network; snd_una skips them as if
        // they had been retransmitted and acknowledged later.
        self.tp.snd_una = self.tp.snd_nxt;
        self.tp.lost = self.tp.lost.wrapping_add(self.tp.packets_out);
        self.tp.packets_out = 0;
        self.stamps.clear();
        self.high_seq = self.tp.snd_nxt.wrapping_add(self.tp.mss_cache);
        self.tp.snd_cwnd = 1;
        self.tp.snd_cwnd_cnt = 0;
        self.set_state(CaState::Loss);
    }

    /// Undo a spurious reduction (Linux `tcp_undo_cwnd_reduction`).
    pub fn undo(&mut self) {
        self.tp.snd_cwnd = self.cc.undo_cwnd(&mut self.tp);
        self.set_state(CaState::Open);
    }
}

/// Apply `step` to `state` until `done` holds, at most `max_steps` times, and
/// return how many steps ran (0 if `done` held at once); panic naming `what`
/// when the cap is hit. A test that waits for a condition uses this instead of
/// a bare `while`, so that a broken algorithm makes it fail at once instead of
/// looping forever.
#[track_caller]
pub fn run_until<T>(
    state: &mut T,
    max_steps: u32,
    what: &str,
    done: impl Fn(&T) -> bool,
    step: impl FnMut(&mut T),
) -> u32 {
    match steps_until(state, max_steps, done, step) {
        Some(n) => n,
        None => panic!("gave up after {max_steps} steps waiting for {what}"),
    }
}

/// [`run_until`] without the panic: None when `done` still fails after `max_steps`.
pub fn steps_until<T>(
    state: &mut T,
    max_steps: u32,
    done: impl Fn(&T) -> bool,
    mut step: impl FnMut(&mut T),
) -> Option<u32> {
    for n in 0..max_steps {
        if done(state) {
            return Some(n);
        }
        step(state);
    }
    done(state).then_some(max_steps)
}

/// Cases per property test: `PROPTEST_CASES` when set (the slow suite raises
/// it), else `default`. Unlike `ProptestConfig::with_cases`, which ignores the
/// environment.
pub fn proptest_cases(default: u32) -> u32 {
    match std::env::var("PROPTEST_CASES") {
        Ok(v) => v
            .parse()
            .unwrap_or_else(|_| panic!("PROPTEST_CASES={v:?} is not a whole number")),
        Err(_) => default,
    }
}

/// One step of a random operation sequence for the property suite.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// Send up to n segments within cwnd.
    Send(u32),
    /// n ACKs of k segments each.
    Ack(u32, u32),
    /// A duplicate ACK.
    DupAck,
    /// Fast retransmit + recovery.
    Loss,
    /// Enter recovery only.
    EnterRecovery,
    /// Leave recovery.
    EndRecovery,
    /// Retransmission timeout.
    Timeout,
    /// Advance the clock (µs).
    Advance(u64),
    /// Change the RTT (µs).
    SetRtt(u32),
    /// A full round trip.
    Round,
    /// Undo the last reduction.
    Undo,
    /// n ACKs of k segments each, echoing ECN.
    EceAck(u32, u32),
    /// An ECN event of the receiving side: CE (true) or not.
    EcnEvent(bool),
}

impl<A: CongestionOps> Harness<A> {
    /// Apply one random operation.
    pub fn apply(&mut self, op: Op) {
        match op {
            Op::Send(n) => {
                let room = self.tp.snd_cwnd.saturating_sub(self.tp.packets_in_flight());
                self.send(n.min(room));
            }
            Op::Ack(n, k) => self.ack_each(n, k),
            Op::DupAck => self.dupack(),
            Op::Loss => self.loss(),
            Op::EnterRecovery => self.fast_retransmit(),
            Op::EndRecovery => self.end_recovery(),
            Op::Timeout => self.timeout(),
            Op::Advance(dt) => self.advance_us(dt),
            Op::SetRtt(r) => self.set_rtt_us(r),
            Op::Round => self.round(),
            Op::Undo => self.undo(),
            Op::EceAck(n, k) => self.ece_ack_each(n, k),
            Op::EcnEvent(ce) => {
                let ev = if ce {
                    CaEvent::EcnIsCe
                } else {
                    CaEvent::EcnNoCe
                };
                self.cc.cwnd_event(&mut self.tp, ev);
            }
        }
    }

    /// Check the invariants every algorithm must keep after any operation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let tp = &self.tp;
        if tp.snd_cwnd < 1 || tp.snd_cwnd > tp.snd_cwnd_clamp {
            return Err(format!(
                "cwnd {} outside [1, {}]",
                tp.snd_cwnd, tp.snd_cwnd_clamp
            ));
        }
        if tp.snd_ssthresh < 2 {
            return Err(format!("ssthresh {} < 2", tp.snd_ssthresh));
        }
        Ok(())
    }

    /// Run lossless for `seconds` of simulated time at the current RTT, with
    /// stretch ACKs of an eighth of a window; check the invariants each round.
    pub fn run_lossless(&mut self, seconds: u64) -> Result<(), String> {
        assert!(
            self.rtt_us > 0,
            "run_lossless needs an RTT: time would not advance"
        );
        // A round count fixed up front, not a wait for the clock.
        for _ in 0..(seconds * 1_000_000).div_ceil(self.rtt_us as u64) {
            self.send_all();
            self.advance_us(self.rtt_us as u64);
            let per_ack = (self.tp.packets_out / 8).max(1);
            let acks = self.tp.packets_out.div_ceil(per_ack);
            self.ack_each(acks, per_ack);
            self.check_invariants()?;
        }
        Ok(())
    }
}

/// Instantiate the generic property suite for one algorithm:
/// random send/ack/loss/time sequences keep cwnd ≥ 1 and ≤ clamp and
/// ssthresh ≥ 2; lossless simulated hours and days neither panic nor overflow
/// (ten days at 100 ms, 13 million rounds, in the slow suite);
/// a clone taken mid-sequence ends in the same state as the original.
///
/// `cc_property_suite!(reno_properties, crate::algos::reno::Reno);`
#[macro_export]
macro_rules! cc_property_suite {
    ($modname:ident, $ty:ty) => {
        $crate::cc_property_suite!($modname, $ty, Default::default());
    };
    ($modname:ident, $ty:ty, $params:expr) => {
        #[cfg(test)]
        mod $modname {
            #[allow(unused_imports, reason = "the caller's $ty or $params may need it")]
            use super::*;
            use proptest::prelude::*;
            use $crate::ops::CongestionOps;
            use $crate::testing::{Harness, Op};

            fn harness() -> Harness<$ty> {
                let params: <$ty as CongestionOps>::Params = $params;
                Harness::with_params(&params, 10)
            }

            fn op() -> impl Strategy<Value = Op> {
                prop_oneof![
                    4 => (1u32..200).prop_map(Op::Send),
                    4 => (1u32..50, 1u32..4).prop_map(|(n, k)| Op::Ack(n, k)),
                    1 => Just(Op::DupAck),
                    1 => Just(Op::Loss),
                    1 => Just(Op::EnterRecovery),
                    1 => Just(Op::EndRecovery),
                    1 => Just(Op::Timeout),
                    2 => (0u64..2_000_000).prop_map(Op::Advance),
                    1 => (1u32..2_000_000).prop_map(Op::SetRtt),
                    3 => Just(Op::Round),
                    1 => Just(Op::Undo),
                ]
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases($crate::testing::proptest_cases(64)))]
                #[test]
                fn invariants_hold_under_random_operations(
                    ops in proptest::collection::vec(op(), 1..300),
                    split in 0usize..300,
                ) {
                    let mut h = harness();
                    let mut twin = None;
                    for (i, o) in ops.iter().enumerate() {
                        if i == split { twin = Some(h.clone()); }
                        h.apply(*o);
                        if let Err(e) = h.check_invariants() {
                            return Err(TestCaseError::fail(format!("after op {i} {o:?}: {e}")));
                        }
                    }
                    if let Some(mut t) = twin {
                        for o in &ops[split..] { t.apply(*o); }
                        prop_assert_eq!(&t.tp, &h.tp, "a clone diverged from its original");
                    }
                }
            }

            /// Lossless runs of (RTT in µs, seconds), each from a new harness.
            fn lossless(runs: [(u32, u64); 3]) {
                for (rtt_us, secs) in runs {
                    let mut h = harness();
                    h.set_rtt_us(rtt_us);
                    h.run_lossless(secs).unwrap();
                    assert!(h.cwnd() >= 1);
                }
            }

            #[test]
            fn lossless_hours_and_days_do_not_overflow() {
                // Ten days at 1 s RTT; three hours at 100 ms (the microsecond
                // clock's u32 wraps every 71.6 minutes); ten minutes at 1 ms
                // (600 000 rounds).
                lossless([(1_000_000, 864_000), (100_000, 10_800), (1_000, 600)]);
            }

            #[test]
            #[ignore = "13 million rounds: the slow suite (scripts/test-slow.sh) runs it"]
            fn ten_lossless_days_do_not_overflow() {
                // Ten days at 100 ms and 1 s RTT; one hour at 1 ms RTT
                // (3.6 million rounds: ten days there would take minutes).
                lossless([(100_000, 864_000), (1_000_000, 864_000), (1_000, 3_600)]);
            }
        }
    };
}

crate::cc_property_suite!(reno_properties, crate::algos::reno::Reno);

#[cfg(test)]
mod tests {
    use super::*;

    /// Reno that keeps every `AckSample` it is given.
    #[derive(Clone, Debug, Default)]
    struct Samples(Vec<AckSample>);

    impl CongestionOps for Samples {
        const NAME: &'static str = "samples";
        type Params = crate::params::NoParams;
        fn new(_: &Self::Params) -> Self {
            Samples::default()
        }
        fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
            crate::helpers::tcp_reno_ssthresh(tp)
        }
        fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
            crate::helpers::tcp_reno_cong_avoid(tp, ack, acked);
        }
        fn pkts_acked(&mut self, _tp: &mut TcpCc, s: &AckSample) {
            self.0.push(*s);
        }
    }

    #[test]
    fn in_flight_is_linuxs_bytes_delivered_since_the_newest_segment_was_sent() {
        let mut h = Harness::new(Samples::default(), 4);
        let in_flight = |h: &Harness<Samples>| h.cc.0.last().unwrap().in_flight / MSS;
        // Four segments sent with delivered = 0.
        h.send_all();
        h.ack_each(1, 1);
        assert_eq!(in_flight(&h), 1);
        // Two more sent with delivered = 1 (slow start made cwnd 5).
        h.send(2);
        h.ack_each(1, 2);
        assert_eq!(in_flight(&h), 3, "delivered 3, the newest acked sent at 0");
        h.ack_each(1, 2);
        assert_eq!(in_flight(&h), 4, "delivered 5, the newest acked sent at 1");
        // A duplicate ACK delivers nothing: Linux's prior_delivered stays 0.
        h.dupack();
        assert_eq!(in_flight(&h), 5);
        h.ack_each(1, 1);
        assert_eq!(in_flight(&h), 5, "delivered 6, sent at 1");
    }

    #[test]
    fn run_until_returns_the_steps_taken() {
        let mut n = 0;
        assert_eq!(run_until(&mut n, 3, "n = 3", |n| *n == 3, |n| *n += 1), 3);
        assert_eq!(run_until(&mut n, 0, "n = 3", |n| *n == 3, |n| *n += 1), 0);
    }

    #[test]
    #[should_panic(expected = "gave up after 5 steps waiting for n = 100")]
    fn run_until_gives_up_at_its_cap() {
        run_until(&mut 0, 5, "n = 100", |n| *n == 100, |n| *n += 1);
    }
}
