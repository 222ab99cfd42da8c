//! Sync-TCP: Wu, Chan, Ananda, Ganjihal, "Sync-TCP: A New Approach to High
//! Speed Congestion Control", IEEE ICNP 2009 (§IV, §V).
//!
//! A delay-based AIMD whose congestion signal is built so that competing flows
//! see it at the same time (§IV.B):
//! - RTT sampled once per T_sample = 10 ms (§IV.A.1), smoothed by
//!   srtt ← (1 − T_sample/T_win)·srtt + (T_sample/T_win)·rtt, T_win = 100 ms
//!   (eq. 4); brtt = min of all samples, brtt_epoch = min since the last
//!   cwnd reduction (§IV.A.2).
//! - Probing (the only state where cwnd grows and congestion is detected): a
//!   sample with qd = srtt − brtt > Th_qd = 12 ms is a congestion signal →
//!   Waiting. Otherwise cwnd += α every T_win, RTT-independent (eq. 6):
//!   α = max((1 + t + t⁴/32)·(Th_qd − qd)/Th_qd, 1), t = seconds in Probing.
//! - Waiting (T_wait = 500 ms, cwnd frozen), then the delay reduction (eq. 5):
//!   λ ← λ + 1 if brtt_epoch − brtt > Th_emptied = 2 ms else λ ← 1.25;
//!   β = 1 − λ·qd/srtt bounded to [0.125, 0.95]; cwnd ← β·cwnd; brtt_epoch ← ∞.
//! - Emptying (T_wait, cwnd frozen) → Probing with t = 0.
//! - Loss in any state: the same β with maximum 0.875, applied at once (as
//!   ssthresh, the sender's recovery brings cwnd there) → Emptying (§IV.C, Fig. 3).
//! - Rerouting (§V.C): when λ > 20 and brtt_epoch > brtt: brtt ← brtt_epoch,
//!   λ ← 1.25.
//! - Legacy TCP (§V): a flow starts as Reno (slow start included), switches
//!   to Sync-TCP on a long fat pipe with spare capacity and back when its
//!   throughput is too low or it is starved by legacy traffic (§I, §V.A,
//!   §V.B); on switching back brtt ← ∞ (§V.C).
//! - Pacing (§IV.A.1) in Sync-TCP mode: `pacing_rate` = cwnd·mss/srtt bytes/s
//!   (the paper does not give the rate); none in legacy mode.
//!
//! # Choices where the paper is silent
//! - Switch thresholds live only in the unavailable technical report \[23\];
//!   all of the following are parameters, on the rate estimate cwnd·mss/srtt.
//!   The paper gives two reasons to leave Sync-TCP, and they read as two
//!   thresholds:
//!   (A) "the throughput of a Sync-TCP flow should be high so that there are
//!   enough RTT samples [...] when throughput is too low, Sync-TCP should also
//!   switch back" (§V): an absolute Th_s2t = 1 Mbit/s ≈ one 1448-byte packet
//!   per T_sample, below which 10 samples per T_win cannot exist; with
//!   Th_t2s = 2 Mbit/s it fits §VI.B (2.7 Mbit/s per flow enabled, 0.7 not)
//!   and §III.C (4 Mbit/s per flow enabled).
//!   (B) "Sync-TCP flows may be starved [...] letting flows [...] act as
//!   legacy TCP is fairer" (§V.A), "switch to legacy TCP to avoid
//!   starvation" (§I), "the flow will not be totally starved" (§V.B): a rate
//!   relative to what the flow had, `s2t_share` = 1/2 of a reference rate.
//!   A Sync-TCP flow always yields to loss-based traffic, so against Reno its
//!   rate falls far below its share but seldom below 1 Mbit/s on a fast link
//!   (6–35× less than Reno, measured without this test): §V.A needs (B),
//!   which is the default; `s2t_share = 0` is reading (A) alone. The reference is the rate
//!   on entering Sync-TCP (the legacy share the flow had), then the rate after
//!   each reduction ending the second emptied epoch in a row (brtt_epoch −
//!   brtt ≤ Th_emptied twice, λ at its initial value): Sync-TCP flows alone
//!   empty the queue every epoch (§IV.C) and a share that falls because more
//!   Sync-TCP flows arrived is followed; legacy traffic that holds the queue
//!   keeps it from being emptied, and the reference stays. 1/2 is Reno's own
//!   decrease: a rate swing of less than that is within what a legacy flow
//!   sees anyway.
//!   The test runs once per T_win in every Sync-TCP state (a starved flow
//!   cycles Waiting ↔ Emptying and would never reach a Probing tick), and the
//!   flow switches only when every check for `s2t_window` = 10 s found the
//!   rate below max(Th_s2t, s2t_share·reference): §VII.E has Sync-TCP flows
//!   converge to a new equilibrium in about 10 s, so a shorter slump is a
//!   newcomer's start-up, not starvation (eight Sync-TCP flows arriving 2 s
//!   apart, papers.rs, stay below their threshold up to 7.4 s). Slow start
//!   after a timeout does not count (it is a transient by definition).
//! - Switching back to legacy after starvation restarts slow start
//!   (`s2t_slow_start`): a new flow starts as legacy TCP because "it does not
//!   know the size of its network pipe" (§V) and brtt is relearnt (§V.C); a
//!   starved flow (cwnd ≈ 2) in congestion avoidance would need several of
//!   Reno's cycles to reach its share.
//! - Legacy → Sync needs congestion avoidance (slow start has sized the pipe),
//!   qd ≤ Th_qd and rate ≥ Th_t2s ("sufficient excessive capacity", §V). With
//!   brtt reset on switching, a flow sharing a full queue with Reno sees qd ≈ 0
//!   at once, so after a starved episode the flow also needs rate ≥
//!   reference/s2t_share (twice the Sync-TCP share it failed to keep: only
//!   reachable when the legacy traffic has gone) during a hold of
//!   `t2s_hold` = 60 s, doubled for each starved episode in a row (at most
//!   2⁶×; the series ends when the flow returns above that floor, or after a
//!   Sync-TCP episode longer than the hold). The hold is an assumption: a
//!   starved episode lasts about 20 s (the fall to the threshold plus
//!   s2t_window), and a hold of 3× that keeps a flow against Reno within a
//!   factor of 2 of Reno's goodput (sync_switching.rs).
//! - `switching = 0` keeps Sync-TCP on from the end of slow start (§VI.B).
//! - λ adapts at every cwnd reduction, delay- or loss-triggered ("when cwnd is
//!   reduced", §IV.C), first λ then β; without a sample in the epoch λ is kept.
//!   The rerouting rule is checked right after the λ update, before β.
//! - α increments are applied at once at each T_win tick (their spreading
//!   within T_win is not specified; pacing smooths them), with the fraction
//!   carried over; only while the application has data (`!app_limited`): the
//!   paper's increase is time-driven and pacing keeps the flight just below
//!   cwnd, so Linux's cwnd-limited test would stall it.
//! - t is capped at 512 s (α ≈ 2·10⁹ segments per T_win there) for u64 safety.
//! - β·cwnd is rounded to the nearest segment (so 0.95·1000 = 950), min 2;
//!   a delay reduction also sets ssthresh = cwnd (Linux CWR style), so the
//!   sender never slow-starts in Sync-TCP mode except after a timeout.
//! - After a timeout the legacy machinery applies: cwnd 1, slow start up to
//!   ssthresh = β·cwnd, while the state machine sits in Emptying.

mod decrease;
mod increase;
mod legacy;
mod measurement;
#[cfg(test)]
mod tests;

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_slow_start};
use crate::ops::{AckSample, CongestionOps, TcpCc};
use decrease::scaled;

crate::params! {
    /// Sync-TCP parameters (times in ms).
    pub struct SyncParams {
        /// T_sample: RTT sampling period, ms.
        t_sample_ms: f64 = 10.0, [0.1, 1000.0], "ICNP 2009 §IV.E.2";
        /// T_win: srtt window and cwnd increase period, ms (≥ T_sample).
        t_win_ms: f64 = 100.0, [1.0, 5000.0], "ICNP 2009 §IV.E.2";
        /// T_wait: length of the Waiting and Emptying states, ms.
        t_wait_ms: f64 = 500.0, [1.0, 60000.0], "ICNP 2009 §IV.E.3";
        /// Th_qd: queueing delay that signals congestion, ms.
        th_qd_ms: f64 = 12.0, [0.1, 1000.0], "ICNP 2009 §IV.E.1";
        /// Th_emptied: brtt_epoch − brtt above which the queue was not emptied, ms.
        th_emptied_ms: f64 = 2.0, [0.0, 1000.0], "ICNP 2009 §IV.C";
        /// Initial (and reset) value of λ.
        lambda_init: f64 = 1.25, [0.0, 100.0], "ICNP 2009 §IV.C";
        /// λ above which the rerouting rule resets brtt.
        lambda_reroute: f64 = 20.0, [0.0, 10000.0], "ICNP 2009 §V.C";
        /// Lower bound of β.
        beta_min: f64 = 0.125, [0.0, 1.0], "ICNP 2009 eq. 5";
        /// Upper bound of β after a delay signal.
        beta_max: f64 = 0.95, [0.0, 1.0], "ICNP 2009 eq. 5";
        /// Upper bound of β after a loss.
        beta_max_loss: f64 = 0.875, [0.0, 1.0], "ICNP 2009 §IV.C";
        /// Switch between legacy TCP and Sync-TCP by throughput (0: Sync-TCP always after slow start).
        switching: bool = true, [0, 1], "ICNP 2009 §V, §VI.B";
        /// Th_t2s: legacy → Sync-TCP above this rate, Mbit/s.
        th_t2s_mbps: f64 = 2.0, [0.0, 100000.0], "assumption: TR [23] not public; fits §VI.B";
        /// Th_s2t: Sync-TCP → legacy below this rate, Mbit/s.
        th_s2t_mbps: f64 = 1.0, [0.0, 100000.0], "assumption: ≈ 1 packet per T_sample";
        /// Sync-TCP → legacy also below this fraction of the reference rate (0: off, Th_s2t alone).
        s2t_share: f64 = 0.5, [0.0, 1.0], "ICNP 2009 §I, §V.A (starved → legacy); 1/2: Reno's own decrease (assumption)";
        /// How long the rate must stay below the Sync → legacy threshold, ms.
        s2t_window_ms: f64 = 10000.0, [0.0, 600000.0], "ICNP 2009 §VII.E: Sync-TCP flows converge in about 10 s";
        /// A starved flow restarts legacy TCP in slow start (1) or goes on in congestion avoidance (0).
        s2t_slow_start: bool = true, [0, 1], "ICNP 2009 §V (legacy TCP learns the pipe), §V.C (brtt relearnt)";
        /// After a starved episode, legacy → Sync needs rate ≥ reference/s2t_share for this long, ms.
        t2s_hold_ms: f64 = 60000.0, [0.0, 3600000.0], "assumption: ≥ 3× a starved episode, doubled per repeat (§V.A)";
    }
    order { t_sample_ms <= t_win_ms; beta_min <= beta_max; beta_min <= beta_max_loss; lambda_init <= lambda_reroute; th_s2t_mbps <= th_t2s_mbps; }
}

/// Where the algorithm is (Fig. 3 plus legacy mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncState {
    /// Legacy TCP (Reno) mode.
    Legacy,
    /// cwnd grows by α per T_win; congestion detection on.
    Probing,
    /// Congestion detected; cwnd frozen for T_wait before the reduction.
    Waiting,
    /// cwnd reduced; frozen for T_wait while the queue drains.
    Emptying,
}

/// Sync-TCP state. Times in µs, windows in segments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncTcp {
    /// T_sample, µs.
    t_sample_us: u64,
    /// T_win, µs.
    t_win_us: u64,
    /// T_wait, µs.
    t_wait_us: u64,
    /// Th_qd, µs.
    th_qd_us: u32,
    /// Th_emptied, µs.
    th_emptied_us: u32,
    /// λ initial value, Q8.
    lambda_init_q8: u32,
    /// Rerouting threshold on λ, Q8.
    lambda_reroute_q8: u32,
    /// β bounds, Q16.
    beta_min_q16: u32,
    beta_max_q16: u32,
    beta_max_loss_q16: u32,
    /// Throughput switching enabled.
    switching: bool,
    /// Th_t2s and Th_s2t, bytes/s.
    t2s_bytes_s: u64,
    s2t_bytes_s: u64,
    /// s2t_share, Q16.
    s2t_share_q16: u32,
    /// s2t_window and t2s_hold, µs.
    s2t_window_us: u64,
    t2s_hold_us: u64,
    /// Slow start on a starved switch to legacy.
    s2t_slow_start: bool,

    /// Current state.
    state: SyncState,
    /// When the current Probing/Waiting/Emptying state was entered, µs.
    since_us: u64,
    /// Earliest time of the next RTT sample, µs.
    next_sample_us: u64,
    /// A sample arrived that detection has not yet looked at.
    fresh: bool,
    /// srtt of eq. 4, µs Q8 (0 before the first sample).
    srtt_q8: u64,
    /// brtt: min of all samples, µs (`u32::MAX` = ∞).
    brtt_us: u32,
    /// brtt_epoch: min since the last reduction, µs (`u32::MAX` = ∞).
    brtt_epoch_us: u32,
    /// λ, Q8.
    lambda_q8: u32,
    /// Time of the next α increase, µs.
    next_inc_us: u64,
    /// Time of the next Sync → legacy check, µs.
    next_s2t_us: u64,
    /// Reference rate of the Sync → legacy test, bytes/s: the rate when
    /// Sync-TCP was entered, lowered (or raised) to the rate after each
    /// reduction of a Sync-TCP regime (two emptied epochs in a row).
    ref_bytes_s: u64,
    /// Since when every Sync → legacy check found the rate below its threshold, µs.
    low_since_us: Option<u64>,
    /// Legacy → Sync needs at least this rate until `floor_until_us`, bytes/s.
    floor_bytes_s: u64,
    floor_until_us: u64,
    /// Starved episodes in a row (each doubles the hold), and when the
    /// current Sync-TCP episode began, µs.
    starved_runs: u32,
    sync_since_us: u64,
    /// The last reduction ended the second emptied epoch in a row.
    regime: bool,
    /// Fraction of a segment of α not yet added, Q10.
    cwnd_frac_q10: u64,
    /// Delay-detected congestion signals so far.
    signals: u32,
    /// Time of the last delay-detected congestion signal, µs.
    last_signal_us: Option<u64>,
}

impl SyncTcp {
    /// Current state.
    pub fn state(&self) -> SyncState {
        self.state
    }

    /// Delay-detected congestion signals (Probing → Waiting) so far, and the
    /// time (µs, `tp.now_us`) of the last one.
    pub fn congestion_signals(&self) -> (u32, Option<u64>) {
        (self.signals, self.last_signal_us)
    }

    /// λ in force.
    pub fn lambda(&self) -> f64 {
        self.lambda_q8 as f64 / 256.0
    }
    fn enter(&mut self, state: SyncState, now: u64) {
        self.state = state;
        self.since_us = now;
        self.fresh = false;
    }
}

fn us(ms: f64) -> u64 {
    (ms * 1000.0).round() as u64
}

fn q(v: f64, shift: u32) -> u32 {
    (v * (1u64 << shift) as f64).round().min(u32::MAX as f64) as u32
}

impl CongestionOps for SyncTcp {
    const NAME: &'static str = "sync";
    type Params = SyncParams;

    fn delay_signals(&self) -> u32 {
        self.signals
    }

    fn new(p: &SyncParams) -> Self {
        let t_win_us = us(p.t_win_ms).max(1);
        SyncTcp {
            t_sample_us: us(p.t_sample_ms).clamp(1, t_win_us),
            t_win_us,
            t_wait_us: us(p.t_wait_ms),
            th_qd_us: us(p.th_qd_ms).max(1) as u32,
            th_emptied_us: us(p.th_emptied_ms) as u32,
            lambda_init_q8: q(p.lambda_init, 8),
            lambda_reroute_q8: q(p.lambda_reroute, 8),
            beta_min_q16: q(p.beta_min, 16),
            beta_max_q16: q(p.beta_max, 16),
            beta_max_loss_q16: q(p.beta_max_loss, 16),
            switching: p.switching,
            t2s_bytes_s: (p.th_t2s_mbps * 1e6 / 8.0).round() as u64,
            s2t_bytes_s: (p.th_s2t_mbps * 1e6 / 8.0).round() as u64,
            s2t_share_q16: q(p.s2t_share, 16),
            s2t_window_us: us(p.s2t_window_ms),
            t2s_hold_us: us(p.t2s_hold_ms),
            s2t_slow_start: p.s2t_slow_start,
            state: SyncState::Legacy,
            since_us: 0,
            next_sample_us: 0,
            fresh: false,
            srtt_q8: 0,
            brtt_us: u32::MAX,
            brtt_epoch_us: u32::MAX,
            lambda_q8: q(p.lambda_init, 8),
            next_inc_us: 0,
            next_s2t_us: 0,
            ref_bytes_s: 0,
            low_since_us: None,
            floor_bytes_s: 0,
            floor_until_us: 0,
            starved_runs: 0,
            sync_since_us: 0,
            regime: false,
            cwnd_frac_q10: 0,
            signals: 0,
            last_signal_us: None,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("t_sample_us", self.t_sample_us as i64),
            ("t_win_us", self.t_win_us as i64),
            ("t_wait_us", self.t_wait_us as i64),
            ("th_qd_us", self.th_qd_us.into()),
            ("th_emptied_us", self.th_emptied_us.into()),
            ("lambda_init_q8", self.lambda_init_q8.into()),
            ("lambda_reroute_q8", self.lambda_reroute_q8.into()),
            ("beta_min_q16", self.beta_min_q16.into()),
            ("beta_max_q16", self.beta_max_q16.into()),
            ("beta_max_loss_q16", self.beta_max_loss_q16.into()),
            ("switching", self.switching.into()),
            ("t2s_bytes_s", self.t2s_bytes_s as i64),
            ("s2t_bytes_s", self.s2t_bytes_s as i64),
            ("s2t_share_q16", self.s2t_share_q16.into()),
            ("s2t_window_us", self.s2t_window_us as i64),
            ("t2s_hold_us", self.t2s_hold_us as i64),
            ("s2t_slow_start", self.s2t_slow_start.into()),
        ]
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        self.sample(tp, s);
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        let now = tp.now_us;
        if self.state != SyncState::Legacy && self.starved(tp) {
            self.starved_to_legacy(tp);
        }
        match self.state {
            SyncState::Legacy => {
                tcp_reno_cong_avoid(tp, ack, acked);
                let floor = if now < self.floor_until_us {
                    self.floor_bytes_s
                } else {
                    0
                };
                let spare =
                    self.qd_us() <= self.th_qd_us && self.rate(tp) >= self.t2s_bytes_s.max(floor);
                if self.fresh && !tp.in_slow_start() && (spare || !self.switching) {
                    self.enter_sync(tp);
                }
                self.fresh = false;
            }
            // After a timeout: legacy slow start up to ssthresh.
            _ if tp.in_slow_start() => {
                if tp.is_cwnd_limited() {
                    tcp_slow_start(tp, acked);
                }
            }
            SyncState::Probing => self.probe(tp),
            SyncState::Waiting => {
                self.fresh = false;
                if now - self.since_us >= self.t_wait_us {
                    let beta = self.reduction(self.beta_max_q16);
                    tp.snd_cwnd = scaled(tp.snd_cwnd, beta).min(tp.snd_cwnd_clamp);
                    tp.snd_ssthresh = tp.snd_cwnd;
                    if self.regime {
                        self.ref_bytes_s = self.rate(tp);
                    }
                    self.enter(SyncState::Emptying, now);
                }
            }
            SyncState::Emptying => {
                self.fresh = false;
                if now - self.since_us >= self.t_wait_us {
                    self.enter(SyncState::Probing, now);
                    self.next_inc_us = now + self.t_win_us;
                }
            }
        }
        tp.pacing_rate = if self.state == SyncState::Legacy {
            0
        } else {
            self.rate(tp)
        };
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        if self.state == SyncState::Legacy {
            return tcp_reno_ssthresh(tp);
        }
        let beta = self.reduction(self.beta_max_loss_q16);
        self.enter(SyncState::Emptying, tp.now_us);
        let cwnd = scaled(tp.snd_cwnd, beta);
        if self.regime {
            self.ref_bytes_s = ((self.rate(tp) as u128 * beta as u128) >> 16) as u64;
        }
        cwnd
    }
}

crate::cc_property_suite!(sync_properties, SyncTcp);
crate::cc_property_suite!(
    sync_always_properties,
    SyncTcp,
    SyncParams {
        switching: false,
        ..Default::default()
    }
);
