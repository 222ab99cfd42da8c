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

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh, tcp_slow_start};
use crate::ops::{AckSample, CongestionOps, TcpCc, TCP_INFINITE_SSTHRESH};

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

/// α of eq. 6 in Q10: max((1 + t + t⁴/32)·(Th_qd − qd)/Th_qd, 1).
pub(crate) fn alpha_q10(t_us: u64, qd_us: u32, th_qd_us: u32) -> u64 {
    let t = (t_us.min(512_000_000) << 10) / 1_000_000; // seconds, Q10 (≤ 2^19)
    let t2 = (t * t) >> 10;
    let t4 = (t2 * t2) >> 10; // ≤ 2^46
    let poly = 1024 + t + t4 / 32;
    let headroom = th_qd_us.saturating_sub(qd_us) as u64; // ≤ 2^20
    (poly * headroom / th_qd_us.max(1) as u64).max(1024)
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

    fn srtt_us(&self) -> u32 {
        (self.srtt_q8 >> 8) as u32
    }

    /// qd = srtt − brtt, µs.
    fn qd_us(&self) -> u32 {
        self.srtt_us().saturating_sub(self.brtt_us)
    }

    /// Rate estimate cwnd·mss/srtt, bytes/s (0 before the first sample).
    fn rate(&self, tp: &TcpCc) -> u64 {
        match self.srtt_us() {
            0 => 0,
            srtt => {
                (tp.snd_cwnd as u64 * tp.mss_cache as u64).saturating_mul(1_000_000) / srtt as u64
            }
        }
    }

    fn enter(&mut self, state: SyncState, now: u64) {
        self.state = state;
        self.since_us = now;
        self.fresh = false;
    }

    fn enter_sync(&mut self, tp: &mut TcpCc) {
        self.enter(SyncState::Probing, tp.now_us);
        self.next_inc_us = tp.now_us + self.t_win_us;
        self.cwnd_frac_q10 = 0;
        self.lambda_q8 = self.lambda_init_q8;
        self.brtt_epoch_us = u32::MAX;
        tp.snd_ssthresh = tp.snd_cwnd.max(2);
        self.ref_bytes_s = self.rate(tp);
        self.low_since_us = None;
        self.next_s2t_us = tp.now_us + self.t_win_us;
        // Back in Sync-TCP above the floor: the legacy traffic has gone.
        if tp.now_us < self.floor_until_us {
            self.starved_runs = 0;
        }
        self.sync_since_us = tp.now_us;
    }

    fn enter_legacy(&mut self, tp: &mut TcpCc) {
        self.enter(SyncState::Legacy, tp.now_us);
        self.brtt_us = u32::MAX; // §V.C: relearn the propagation delay
    }

    /// Sync → legacy test, once per T_win in every Sync-TCP state: true when
    /// the rate has been below max(Th_s2t, s2t_share·reference) at every
    /// check for s2t_window (the flow is starved, §V, §V.A).
    fn starved(&mut self, tp: &TcpCc) -> bool {
        let now = tp.now_us;
        if !self.switching || now < self.next_s2t_us {
            return false;
        }
        self.next_s2t_us += self.t_win_us;
        if self.next_s2t_us <= now {
            self.next_s2t_us = now + self.t_win_us;
        }
        let share = ((self.ref_bytes_s as u128 * self.s2t_share_q16 as u128) >> 16) as u64;
        // Slow start after a timeout is a transient, not starvation.
        if tp.in_slow_start() || self.rate(tp) >= self.s2t_bytes_s.max(share) {
            self.low_since_us = None;
            return false;
        }
        now - *self.low_since_us.get_or_insert(now) >= self.s2t_window_us
    }

    /// A starved Sync-TCP flow goes back to legacy TCP; until t2s_hold has
    /// passed it returns only at a rate of reference/s2t_share.
    fn starved_to_legacy(&mut self, tp: &mut TcpCc) {
        self.floor_bytes_s = match self.s2t_share_q16 {
            0 => 0,
            sh => ((self.ref_bytes_s as u128) << 16)
                .div_ceil(sh as u128)
                .min(u64::MAX as u128) as u64,
        };
        // A Sync-TCP episode longer than the hold was not one of a series.
        if tp.now_us - self.sync_since_us >= self.t2s_hold_us {
            self.starved_runs = 0;
        }
        self.starved_runs = (self.starved_runs + 1).min(7);
        self.floor_until_us = tp.now_us + (self.t2s_hold_us << (self.starved_runs - 1));
        if self.s2t_slow_start {
            tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
        }
        self.enter_legacy(tp);
    }

    /// λ update, rerouting rule, then β of eq. 5 (Q16) bounded by `beta_max`.
    /// Also sets `regime`: this epoch and the one before emptied the queue.
    fn reduction(&mut self, beta_max_q16: u32) -> u32 {
        self.regime = false;
        if self.brtt_epoch_us != u32::MAX {
            if self.brtt_epoch_us.saturating_sub(self.brtt_us) > self.th_emptied_us {
                self.lambda_q8 = self.lambda_q8.saturating_add(256);
            } else {
                self.regime = self.lambda_q8 == self.lambda_init_q8;
                self.lambda_q8 = self.lambda_init_q8;
            }
            if self.lambda_q8 > self.lambda_reroute_q8 && self.brtt_epoch_us > self.brtt_us {
                self.brtt_us = self.brtt_epoch_us;
                self.lambda_q8 = self.lambda_init_q8;
            }
        }
        self.brtt_epoch_us = u32::MAX;
        // λ·qd/srtt in Q16 (no sample yet: no cut, β at its upper bound).
        let cut = (self.lambda_q8 as u64 * self.qd_us() as u64)
            .saturating_mul(256)
            .checked_div(self.srtt_us() as u64)
            .unwrap_or(0);
        let beta = 65536u64.saturating_sub(cut) as u32;
        beta.clamp(self.beta_min_q16, beta_max_q16.max(self.beta_min_q16))
    }

    /// Probing: detection on each fresh sample, α increase every T_win.
    fn probe(&mut self, tp: &mut TcpCc) {
        let now = tp.now_us;
        if self.fresh {
            self.fresh = false;
            if self.qd_us() > self.th_qd_us {
                self.enter(SyncState::Waiting, now);
                self.signals += 1;
                self.last_signal_us = Some(now);
                return;
            }
        }
        if now < self.next_inc_us {
            return;
        }
        self.next_inc_us += self.t_win_us;
        if self.next_inc_us <= now {
            self.next_inc_us = now + self.t_win_us;
        }
        if !tp.app_limited {
            let a =
                self.cwnd_frac_q10 + alpha_q10(now - self.since_us, self.qd_us(), self.th_qd_us);
            self.cwnd_frac_q10 = a & 1023;
            let cwnd = tp.snd_cwnd as u64 + (a >> 10);
            tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp as u64) as u32;
        }
    }
}

/// cwnd·β (β Q16), rounded, at least 2.
fn scaled(cwnd: u32, beta_q16: u32) -> u32 {
    (((cwnd as u64 * beta_q16 as u64 + (1 << 15)) >> 16) as u32).max(2)
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
        // One sample per T_sample in every state (§IV.A.1, §IV.F).
        let now = tp.now_us;
        if s.rtt_us < 0 || now < self.next_sample_us {
            return;
        }
        self.next_sample_us += self.t_sample_us;
        if self.next_sample_us <= now {
            self.next_sample_us = now + self.t_sample_us;
        }
        let rtt = (s.rtt_us as u32).max(1);
        self.srtt_q8 = if self.srtt_q8 == 0 {
            (rtt as u64) << 8
        } else {
            // eq. 4 with weight T_sample/T_win.
            let (w, s) = (self.t_win_us, self.t_sample_us);
            (self.srtt_q8 * (w - s) + ((rtt as u64) << 8) * s) / w
        };
        self.brtt_us = self.brtt_us.min(rtt);
        self.brtt_epoch_us = self.brtt_epoch_us.min(rtt);
        self.fresh = true;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{run_until, Harness};
    use SyncState::*;

    /// A flow in `state` at t = 10 s, in congestion avoidance, with cwnd,
    /// srtt and brtt (µs) given, brtt_epoch = ∞ and a sample due now.
    fn flow(
        p: &SyncParams,
        state: SyncState,
        cwnd: u32,
        srtt_us: u32,
        brtt_us: u32,
    ) -> Harness<SyncTcp> {
        let mut h = Harness::<SyncTcp>::with_params(p, cwnd);
        h.tp.snd_ssthresh = 2;
        h.advance_ms(10_000);
        let now = h.tp.now_us;
        h.cc.state = state;
        h.cc.since_us = now;
        h.cc.srtt_q8 = (srtt_us as u64) << 8;
        h.cc.brtt_us = brtt_us;
        h.cc.next_inc_us = now + 100_000;
        h.cc.next_sample_us = now;
        h
    }

    fn dflt(state: SyncState, cwnd: u32, srtt_us: u32, brtt_us: u32) -> Harness<SyncTcp> {
        flow(&SyncParams::default(), state, cwnd, srtt_us, brtt_us)
    }

    /// After `dt_ms`, one segment is sent and ACKed with RTT `rtt_us`.
    fn ack_after(h: &mut Harness<SyncTcp>, dt_ms: u64, rtt_us: u32) {
        h.advance_ms(dt_ms);
        h.set_rtt_us(rtt_us);
        h.send(1);
        h.ack_each(1, 1);
    }

    #[test]
    fn srtt_follows_eq_4_with_one_sample_per_t_sample() {
        let mut h = Harness::<SyncTcp>::with_params(&SyncParams::default(), 10);
        ack_after(&mut h, 0, 100_000); // first sample: srtt = 100 ms
        ack_after(&mut h, 5, 200_000); // 5 ms later: not sampled
        assert_eq!(h.cc.srtt_q8, 100_000 << 8);
        ack_after(&mut h, 5, 200_000); // 0.9·100 + 0.1·200 = 110
        assert_eq!(h.cc.srtt_q8, 110_000 << 8);
        ack_after(&mut h, 10, 50_000); // 0.9·110 + 0.1·50 = 104
        assert_eq!(
            (h.cc.srtt_q8, h.cc.brtt_us, h.cc.brtt_epoch_us),
            (104_000 << 8, 50_000, 50_000)
        );
    }

    #[test]
    fn alpha_of_eq_6_by_hand() {
        // (1 + t + t⁴/32) at t = 0, 1, 2, 4 s: 1, 2.03125, 3.5, 13 (Q10 exact).
        assert_eq!(alpha_q10(0, 0, 12_000), 1024);
        assert_eq!(alpha_q10(1_000_000, 0, 12_000), 2080);
        assert_eq!(alpha_q10(2_000_000, 0, 12_000), 3584);
        assert_eq!(alpha_q10(4_000_000, 0, 12_000), 13_312);
        // qd = 6 ms halves it: 6.5.
        assert_eq!(alpha_q10(4_000_000, 6_000, 12_000), 6656);
        // qd = 9 ms: 2.03125·0.25 = 0.51 → at least 1; qd ≥ Th_qd: 1.
        assert_eq!(alpha_q10(1_000_000, 9_000, 12_000), 1024);
        assert_eq!(alpha_q10(4_000_000, 20_000, 12_000), 1024);
        // The t⁴ term overtakes t beyond t = 32^(1/3) = 3.17 s: 10 s → 1 + 10 + 312.5.
        assert_eq!(alpha_q10(10_000_000, 0, 12_000), 323 * 1024 + 512);
    }

    #[test]
    fn legacy_switches_to_sync_at_th_t2s_in_congestion_avoidance() {
        // srtt 100 ms: 17·1448/0.1 = 246 160 B/s < 250 000 (2 Mbit/s) ≤ 18·1448/0.1.
        let mut h = dflt(Legacy, 17, 100_000, 100_000);
        ack_after(&mut h, 10, 100_000);
        assert_eq!((h.cc.state, h.tp.pacing_rate), (Legacy, 0));
        let mut h = dflt(Legacy, 18, 100_000, 100_000);
        ack_after(&mut h, 10, 100_000);
        assert_eq!(
            (h.cc.state, h.tp.snd_ssthresh, h.tp.pacing_rate),
            (Probing, 18, 260_640)
        );
        assert_eq!(h.cc.next_inc_us, h.tp.now_us + 100_000);
        // Not from slow start, and not while the queue exceeds Th_qd (20 > 12 ms).
        let mut h = dflt(Legacy, 100, 100_000, 100_000);
        h.tp.snd_ssthresh = u32::MAX / 2;
        ack_after(&mut h, 10, 100_000);
        assert_eq!(h.cc.state, Legacy);
        let mut h = dflt(Legacy, 100, 100_000, 80_000);
        ack_after(&mut h, 10, 100_000);
        assert_eq!(h.cc.state, Legacy);
    }

    /// Reading A alone (s2t_share = 0, no window): the old single-sample test.
    fn absolute_only() -> SyncParams {
        SyncParams {
            s2t_share: 0.0,
            s2t_window_ms: 0.0,
            ..Default::default()
        }
    }

    #[test]
    fn sync_switches_back_to_legacy_below_th_s2t() {
        // 8·1448/0.1 = 115 840 < 125 000 (1 Mbit/s) ≤ 9·1448/0.1 = 130 320.
        let mut h = flow(&absolute_only(), Probing, 8, 100_000, 100_000);
        ack_after(&mut h, 100, 100_000);
        assert_eq!(
            (h.cc.state, h.cc.brtt_us, h.tp.pacing_rate),
            (Legacy, u32::MAX, 0)
        );
        // Restarted in slow start, as a new legacy flow (§V).
        assert_eq!(h.tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
        let mut h = flow(&absolute_only(), Probing, 9, 100_000, 100_000);
        ack_after(&mut h, 100, 100_000);
        assert_eq!((h.cc.state, h.cwnd()), (Probing, 10));
    }

    #[test]
    fn a_starved_flow_is_checked_in_waiting_and_emptying_too() {
        // A starved flow cycles Waiting ↔ Emptying and never reaches a Probing
        // tick; the test runs once per T_win in every Sync-TCP state.
        for state in [Waiting, Emptying] {
            let mut h = flow(&absolute_only(), state, 8, 100_000, 100_000);
            ack_after(&mut h, 100, 100_000);
            assert_eq!((h.cc.state, h.cc.brtt_us), (Legacy, u32::MAX), "{state:?}");
        }
    }

    /// Default parameters but T_wait = 60 s, so that Waiting lasts.
    fn long_wait() -> SyncParams {
        SyncParams {
            t_wait_ms: 60_000.0,
            ..Default::default()
        }
    }

    #[test]
    fn starvation_is_below_half_the_reference_for_s2t_window() {
        // Reference 1 000 000 B/s, s2t_share 0.5: threshold 500 000 B/s
        // (above Th_s2t = 125 000). cwnd 30 at srtt 100 ms: 434 400 B/s.
        let mut h = flow(&long_wait(), Waiting, 30, 100_000, 100_000);
        h.cc.ref_bytes_s = 1_000_000;
        ack_after(&mut h, 0, 100_000);
        let t0 = h.tp.now_us;
        assert_eq!(h.cc.low_since_us, Some(t0));
        // Checks every T_win; still Sync-TCP at 9.9 s.
        for _ in 0..99 {
            ack_after(&mut h, 100, 100_000);
        }
        assert_eq!(h.cc.state, Waiting);
        // cwnd 35: 506 800 B/s ≥ 500 000 resets the count.
        h.tp.snd_cwnd = 35;
        ack_after(&mut h, 100, 100_000);
        assert_eq!((h.cc.state, h.cc.low_since_us), (Waiting, None));
        h.tp.snd_cwnd = 30;
        ack_after(&mut h, 100, 100_000);
        let t1 = h.tp.now_us;
        for _ in 0..99 {
            ack_after(&mut h, 100, 100_000);
        }
        assert_eq!((h.cc.state, h.cc.low_since_us), (Waiting, Some(t1)));
        // 10 s below the threshold: legacy, floor 2·reference for 60 s.
        ack_after(&mut h, 100, 100_000);
        let now = h.tp.now_us;
        assert_eq!(now - t1, 10_000_000);
        assert_eq!(h.cc.state, Legacy);
        assert_eq!(
            (h.cc.floor_bytes_s, h.cc.floor_until_us, h.cc.starved_runs),
            (2_000_000, now + 60_000_000, 1)
        );
    }

    #[test]
    fn slow_start_after_a_timeout_does_not_count_as_starvation() {
        let mut h = flow(&long_wait(), Emptying, 30, 100_000, 100_000);
        h.cc.ref_bytes_s = 1_000_000;
        ack_after(&mut h, 0, 100_000);
        assert!(h.cc.low_since_us.is_some());
        h.tp.snd_ssthresh = 1000;
        ack_after(&mut h, 100, 100_000);
        assert_eq!(h.cc.low_since_us, None);
    }

    #[test]
    fn legacy_returns_to_sync_above_the_floor_or_after_the_hold() {
        // Floor 2 000 000 B/s for 60 s: cwnd 138 at 100 ms is 1 998 240,
        // 139 is 2 012 720 (both ≥ Th_t2s = 250 000, qd = 0).
        let mut h = dflt(Legacy, 138, 100_000, 100_000);
        let now = h.tp.now_us;
        (h.cc.floor_bytes_s, h.cc.floor_until_us, h.cc.starved_runs) =
            (2_000_000, now + 60_000_000, 2);
        ack_after(&mut h, 10, 100_000);
        assert_eq!(h.cc.state, Legacy);
        h.tp.snd_cwnd = 139;
        ack_after(&mut h, 10, 100_000);
        // Above the floor: the legacy traffic has gone, the series ends.
        assert_eq!((h.cc.state, h.cc.starved_runs), (Probing, 0));
        // Below the floor, but the hold has expired.
        let mut h = dflt(Legacy, 138, 100_000, 100_000);
        let now = h.tp.now_us;
        (h.cc.floor_bytes_s, h.cc.floor_until_us, h.cc.starved_runs) = (2_000_000, now + 1_000, 2);
        ack_after(&mut h, 10, 100_000);
        assert_eq!((h.cc.state, h.cc.starved_runs), (Probing, 2));
    }

    #[test]
    fn the_hold_doubles_for_starved_episodes_in_a_row() {
        let p = SyncParams {
            s2t_window_ms: 0.0,
            ..long_wait()
        };
        // Second starvation 5 s into a Sync-TCP episode: 2 runs, 120 s.
        let mut h = flow(&p, Waiting, 30, 100_000, 100_000);
        (h.cc.ref_bytes_s, h.cc.starved_runs, h.cc.sync_since_us) =
            (1_000_000, 1, h.tp.now_us - 5_000_000);
        ack_after(&mut h, 0, 100_000);
        let now = h.tp.now_us;
        assert_eq!(
            (h.cc.state, h.cc.starved_runs, h.cc.floor_until_us),
            (Legacy, 2, now + 120_000_000)
        );
        // An episode at least as long as the hold (10 s ≥ 5 s here) ends the
        // series: 1 run, 5 s.
        let p = SyncParams {
            t2s_hold_ms: 5_000.0,
            ..p
        };
        let mut h = flow(&p, Waiting, 30, 100_000, 100_000);
        (h.cc.ref_bytes_s, h.cc.starved_runs, h.cc.sync_since_us) = (1_000_000, 3, 0);
        ack_after(&mut h, 0, 100_000);
        let now = h.tp.now_us;
        assert_eq!(
            (h.cc.state, h.cc.starved_runs, h.cc.floor_until_us),
            (Legacy, 1, now + 5_000_000)
        );
    }

    #[test]
    fn the_reference_follows_reductions_after_two_emptied_epochs() {
        // As waiting_freezes_cwnd_then_reduces_by_eq_5: cwnd 1000 → 583 at
        // srtt 150 ms; 583·1448/0.15 = 5 627 893 B/s.
        let mut h = dflt(Waiting, 1000, 150_000, 100_000);
        h.cc.ref_bytes_s = 9_999;
        h.cc.brtt_epoch_us = 101_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!((h.cwnd(), h.cc.ref_bytes_s), (583, 5_627_893));
        // The epoch before was not emptied (λ = 2.25): reference kept.
        let mut h = dflt(Waiting, 1000, 150_000, 100_000);
        h.cc.ref_bytes_s = 9_999;
        h.cc.lambda_q8 = 576;
        h.cc.brtt_epoch_us = 101_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!((h.cwnd(), h.cc.ref_bytes_s), (583, 9_999));
        // Entering Sync-TCP sets it to the rate then: 18·1448/0.1 = 260 640.
        let mut h = dflt(Legacy, 18, 100_000, 100_000);
        ack_after(&mut h, 10, 100_000);
        assert_eq!((h.cc.state, h.cc.ref_bytes_s), (Probing, 260_640));
    }

    #[test]
    fn without_switching_sync_stays_on_after_slow_start() {
        let p = SyncParams {
            switching: false,
            ..Default::default()
        };
        let mut h = flow(&p, Legacy, 5, 100_000, 100_000);
        ack_after(&mut h, 10, 100_000);
        assert_eq!(h.cc.state, Probing);
        ack_after(&mut h, 100, 100_000);
        assert_eq!((h.cc.state, h.cwnd()), (Probing, 6));
    }

    #[test]
    fn probing_adds_alpha_every_t_win() {
        // t = 0.1 s: α = 1 + 0.1 + … = 1126/1024 → +1, 102 left;
        // t = 0.2 s: 1228/1024 → 102 + 1228 = 1330 → +1, 306 left.
        let mut h = dflt(Probing, 100, 100_000, 100_000);
        ack_after(&mut h, 99, 100_000);
        assert_eq!(h.cwnd(), 100);
        ack_after(&mut h, 1, 100_000);
        assert_eq!((h.cwnd(), h.cc.cwnd_frac_q10), (101, 102));
        assert_eq!(h.tp.pacing_rate, 101 * 1448 * 10);
        ack_after(&mut h, 100, 100_000);
        assert_eq!((h.cwnd(), h.cc.cwnd_frac_q10), (102, 306));
        // An application-limited sender keeps its window.
        h.tp.app_limited = true;
        ack_after(&mut h, 100, 100_000);
        assert_eq!(h.cwnd(), 102);
    }

    #[test]
    fn probing_to_waiting_when_qd_exceeds_th_qd() {
        // qd = 112 − 100 = 12 ms, not above Th_qd.
        let mut h = dflt(Probing, 1000, 112_000, 100_000);
        ack_after(&mut h, 10, 112_000);
        assert_eq!(
            (h.cc.state, h.cc.congestion_signals()),
            (Probing, (0, None))
        );
        // srtt = 0.9·112 + 0.1·113 = 112.1: qd 12.1 ms > 12 ms.
        ack_after(&mut h, 10, 113_000);
        let now = h.tp.now_us;
        assert_eq!((h.cc.state, h.cc.since_us, h.cwnd()), (Waiting, now, 1000));
        assert_eq!(h.cc.congestion_signals(), (1, Some(now)));
    }

    #[test]
    fn waiting_freezes_cwnd_then_reduces_by_eq_5() {
        // srtt 150, brtt 100, brtt_epoch 101: 1 ms ≤ Th_emptied → λ = 1.25;
        // β = 1 − 1.25·50/150 = 0.5833 → 1000·β = 583.
        let mut h = dflt(Waiting, 1000, 150_000, 100_000);
        h.cc.brtt_epoch_us = 101_000;
        ack_after(&mut h, 499, 150_000);
        assert_eq!((h.cc.state, h.cwnd()), (Waiting, 1000));
        ack_after(&mut h, 1, 150_000);
        assert_eq!((h.cc.state, h.cc.since_us), (Emptying, h.tp.now_us));
        assert_eq!(
            (h.cwnd(), h.tp.snd_ssthresh, h.cc.lambda_q8),
            (583, 583, 320)
        );
        assert_eq!(h.cc.brtt_epoch_us, u32::MAX);
    }

    #[test]
    fn lambda_grows_while_the_queue_is_not_emptied() {
        // brtt_epoch 105: 5 ms > 2 ms → λ = 2.25, β = 1 − 2.25/3 = 0.25.
        let mut h = dflt(Waiting, 1000, 150_000, 100_000);
        h.cc.brtt_epoch_us = 105_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!((h.cwnd(), h.cc.lambda_q8), (250, 576));
        // Again not emptied: λ = 3.25, β = 1 − 3.25/3 < 0 → lower bound 0.125.
        h.cc.state = Waiting;
        h.cc.brtt_epoch_us = 104_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!((h.cwnd(), h.cc.lambda_q8), (31, 832));
        // Emptied (epoch = brtt): back to 1.25.
        h.cc.state = Waiting;
        h.cc.brtt_epoch_us = 100_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!(h.cc.lambda_q8, 320);
    }

    #[test]
    fn delay_beta_is_at_most_0_95() {
        // srtt 100.5, brtt 100: β = 1 − 1.25·0.5/100.5 = 0.994 → 0.95.
        let mut h = dflt(Waiting, 1000, 100_500, 100_000);
        ack_after(&mut h, 500, 100_500);
        assert_eq!(h.cwnd(), 950);
    }

    #[test]
    fn emptying_lasts_t_wait_then_probing_restarts_t() {
        let mut h = dflt(Emptying, 1000, 100_000, 100_000);
        ack_after(&mut h, 499, 100_000);
        assert_eq!(h.cc.state, Emptying);
        ack_after(&mut h, 1, 100_000);
        let now = h.tp.now_us;
        assert_eq!(
            (h.cc.state, h.cc.since_us, h.cc.next_inc_us, h.cwnd()),
            (Probing, now, now + 100_000, 1000)
        );
    }

    #[test]
    fn loss_reduces_at_once_by_at_most_0_875_in_every_state() {
        for state in [Probing, Waiting, Emptying] {
            // β = 0.994 → 0.875 after a loss.
            let mut h = dflt(state, 1000, 100_500, 100_000);
            h.fast_retransmit();
            assert_eq!(
                (h.ssthresh(), h.cc.state, h.cc.since_us),
                (875, Emptying, h.tp.now_us)
            );
        }
        // λ: 4.25 → 5.25 (epoch 110), β = 1 − 5.25/3 < 0 → 0.125.
        let mut h = dflt(Probing, 1000, 150_000, 100_000);
        h.cc.lambda_q8 = 1088;
        h.cc.brtt_epoch_us = 110_000;
        h.loss();
        assert_eq!(
            (h.cwnd(), h.cc.lambda_q8, h.cc.brtt_epoch_us),
            (125, 1344, u32::MAX)
        );
        // Legacy mode halves.
        let mut h = dflt(Legacy, 1000, 150_000, 100_000);
        h.loss();
        assert_eq!(h.cwnd(), 500);
    }

    #[test]
    fn rerouting_adopts_brtt_epoch_when_lambda_exceeds_20() {
        // λ 20.25 → 21.25 > 20 and brtt_epoch 130 > brtt 100: brtt = 130,
        // λ = 1.25, β = 1 − 1.25·20/150 = 0.8333 → 833.
        let mut h = dflt(Waiting, 1000, 150_000, 100_000);
        h.cc.lambda_q8 = 5184;
        h.cc.brtt_epoch_us = 130_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!(
            (h.cc.brtt_us, h.cc.lambda_q8, h.cwnd()),
            (130_000, 320, 833)
        );
        // λ 18.25 → 19.25: no rerouting, β bounded to 0.125.
        let mut h = dflt(Waiting, 1000, 150_000, 100_000);
        h.cc.lambda_q8 = 4672;
        h.cc.brtt_epoch_us = 130_000;
        ack_after(&mut h, 500, 150_000);
        assert_eq!(
            (h.cc.brtt_us, h.cc.lambda_q8, h.cwnd()),
            (100_000, 4928, 125)
        );
    }

    #[test]
    fn timeout_in_sync_mode_slow_starts_to_beta_cwnd() {
        let mut h = dflt(Probing, 1000, 100_500, 100_000);
        h.timeout();
        assert_eq!((h.cwnd(), h.ssthresh(), h.cc.state), (1, 875, Emptying));
        h.set_rtt_us(100_500);
        h.round();
        assert_eq!(h.cwnd(), 2);
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p =
            crate::CcParams::with("sync-tcp", &[("th_qd_ms", 8.0), ("switching", 0.0)]).unwrap();
        assert_eq!(p.name(), "sync");
    }

    #[test]
    fn a_full_cycle_from_probing_back_to_probing() {
        // Queue builds: samples of 130 ms against brtt 100; srtt after n
        // samples is 130 − 30·0.9ⁿ: 110.3 ms at n = 4, 112.3 ms > 112 at n = 5
        // → Waiting; 500 ms later a reduction, 500 ms of Emptying, Probing.
        let mut h = dflt(Probing, 1000, 100_000, 100_000);
        h.cc.next_inc_us = u64::MAX; // no increase in this test
        let leave = |h: &Harness<SyncTcp>| h.cc.state != Probing;
        let n = run_until(&mut h, 50, "leaving Probing", leave, |h| {
            ack_after(h, 10, 130_000)
        });
        assert_eq!((n, h.cc.state), (5, Waiting));
        ack_after(&mut h, 500, 100_000);
        assert_eq!(h.cc.state, Emptying);
        assert!(h.cwnd() < 1000);
        ack_after(&mut h, 500, 100_000);
        assert_eq!(h.cc.state, Probing);
        assert_eq!(h.cc.congestion_signals().0, 1);
    }
}
