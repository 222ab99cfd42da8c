//! BBRv3 as the IETF draft specifies it: draft-ietf-ccwg-bbr-06 (tag
//! `draft-ietf-ccwg-bbr-06` of github.com/ietf-wg-ccwg/draft-ietf-ccwg-bbr,
//! July 2026). Section numbers below are that revision's; names follow its
//! pseudocode (`BBR.inflight_longterm` is [`Bbr3::inflight_longterm`]).
//! Google's v3 `tcp_bbr.c` (github.com/google/bbr, branch v3) was read only
//! to cross-check facts; where the two differ, this module follows the draft.
//!
//! The model (§5.5): BBR.max_bw, the max delivery rate over the current and
//! previous ProbeBW cycle; BBR.min_rtt over 10 s; a long-term upper bound on
//! the flight (`inflight_longterm`, lowered when a probe's loss rate passes
//! BBR.LossThresh = 2 % and raised, ever faster, while probing); short-term
//! bounds (`bw_shortterm`, `inflight_shortterm`) cut by BBR.Beta = 0.7 once per
//! round with loss outside probing and forgotten at each REFILL. The state
//! machine (§5.3): STARTUP (pacing gain 2.77, cwnd gain 2) until the rate
//! grows by less than 25 % for 3 rounds or loss is high; DRAIN (0.5) until
//! the flight is one BDP (or 3 rounds); PROBE_BW cycling DOWN (0.9) → CRUISE
//! (1.0) → REFILL (1.0, one round) → UP (1.25, cwnd gain 2.25) → DOWN, the
//! next probe 2–3 s or a Reno-like number of rounds after the last;
//! PROBE_RTT (cwnd ½ BDP for 200 ms and a round) when the 5-s min RTT expires.
//! Linux's v3 calls the bounds `inflight_hi` (long-term), `inflight_lo` and
//! `bw_lo` (short-term), as draft -01 did.
//!
//! # Units
//! Volumes in packets (the draft allows it, §2), bandwidth in packets/µs << 24
//! as Linux's BBR, gains and fractions in percent: every constant of the draft
//! (2.77, 0.9, 1.25, 2.25, 0.5, 0.7, 0.15, 2 %) is exact in percent. Times are
//! µs of [`TcpCc::now_us`]. The draft's "Infinity" is `u32::MAX` ([`INF`]).
//!
//! # Where hscc's hooks differ from the draft's events
//! - **RS.tx_in_flight and RS.lost** (§2.3, §4.1.2.2: P.tx_in_flight and
//!   P.lost stamped at each send) come with hscc's [`RateSample`], as Google's
//!   v3 kernel adds them to `tcp_rate.c`; **HandleLostPacket(P)** (§5.5.10.2)
//!   runs for each packet as the sender marks it lost, through
//!   `skb_marked_lost` (v3's hook, called from `tcp_sum_lost`), with P's own
//!   stamp. A mainline kernel has neither (its `rate_sample` lacks the
//!   fields, its `tcp_congestion_ops` the hook), so the eBPF program loaded
//!   there, and this module whenever a sample lacks them (`tx_in_flight` 0
//!   with data delivered), estimates (`congestion.rs`): P.lost by
//!   interpolating C.lost between the last two round starts at P.delivered,
//!   P.tx_in_flight as RS.delivered + RS.lost, and the packets marked lost
//!   since the last ACK that no hook reported taken at that ACK as one burst
//!   P (the draft's own treatment of an offload burst).
//! - **CheckStartupHighLoss** (§5.3.1.3) has no pseudocode: "fast recovery for
//!   a full round" is read as Recovery at the end of a loss round, and "6
//!   discontiguous lost ranges" as 6 loss events (ACKs, timers) in that round.
//! - SetSendQuantum: hscc's sender sends single packets; the quantum is
//!   computed as §5.6.3 says, for the offload budget (3 quanta) only.
//! - ECN: the draft specifies no response (§3.7); none is implemented and
//!   `TCP_CONG_NEEDS_ECN` is not set.
//! - Random draws (PickProbeWait) come from the connection's seeded generator
//!   ([`prandom_u32`]), so a run is reproducible.
//!
//! # Where each part lives
//! This file holds the state ([`Bbr3`]), the parameters and the hooks; per
//! ACK, `update_model_and_state` runs the draft's steps in its order. The steps:
//! - `bandwidth.rs`: rounds, BBR.max_bw (filter in `filters.rs`) and BBR.bw;
//! - `ack_aggregation.rs`: BBR.extra_acked;
//! - `congestion.rs`: loss, the in-flight bounds and the estimate of RS.lost;
//! - `startup.rs`: STARTUP and DRAIN;
//! - `probe_bw.rs`: the PROBE_BW cycle and the long-term model;
//! - `probe_rtt.rs`: the min-RTT filters and PROBE_RTT;
//! - `pacing.rs`: the pacing rate, the send quantum and the offload budget;
//! - `cwnd.rs`: BDP multiples, the quantization budget and the cwnd.

mod ack_aggregation;
mod bandwidth;
mod congestion;
mod cwnd;
mod filters;
mod pacing;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;

pub use filters::MaxBwFilter;

use crate::algos::bbr::{prandom_u32, Minmax};
use crate::ops::{
    CaEvent, CaState, CongestionOps, LostSkb, RateSample, TcpCc, TCP_INFINITE_SSTHRESH,
};

/// The draft's "Infinity" for volumes, rates and durations.
pub const INF: u32 = u32::MAX;
/// Bandwidth unit: packets/µs << 24 (as Linux's `BW_SCALE`).
pub const BW_SCALE: u32 = 24;
/// A bandwidth of one packet per µs.
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gains and fractions are in percent.
pub const PERCENT: u32 = 100;
/// C.InitialCwnd before `init` reads the sender's (RFC 6928's 10), packets.
const INITIAL_CWND: u32 = 10;

crate::params! {
    /// BBRv3 parameters: the constants of draft-ietf-ccwg-bbr-06 (percent where a fraction).
    pub struct Bbr3Params {
        /// STARTUP's pacing gain, %: 4 ln 2, the least that doubles the rate per round.
        startup_pacing_gain: u32 = 277, [100, 1000], "draft-ietf-ccwg-bbr-06 §2.5 BBR.StartupPacingGain = 2.77";
        /// Cwnd gain of every state but PROBE_BW_UP and PROBE_RTT, %.
        default_cwnd_gain: u32 = 200, [100, 1000], "draft-ietf-ccwg-bbr-06 §2.6 BBR.DefaultCwndGain = 2";
        /// DRAIN's pacing gain, %.
        drain_pacing_gain: u32 = 50, [1, 100], "draft-ietf-ccwg-bbr-06 §2.5 BBR.DrainPacingGain = 0.5";
        /// PROBE_BW_DOWN's pacing gain, %.
        probe_down_pacing_gain: u32 = 90, [1, 100], "draft-ietf-ccwg-bbr-06 §5.3.3.1 ProbeBW_DOWN pacing_gain 0.90";
        /// PROBE_BW_UP's pacing gain, %.
        probe_up_pacing_gain: u32 = 125, [100, 1000], "draft-ietf-ccwg-bbr-06 §5.3.3.5 ProbeBW_UP pacing_gain 1.25";
        /// PROBE_BW_UP's cwnd gain, %.
        probe_up_cwnd_gain: u32 = 225, [100, 1000], "draft-ietf-ccwg-bbr-06 §5.3.3.5 ProbeBW_UP cwnd_gain 2.25";
        /// PROBE_RTT's cwnd gain, % of the BDP.
        probe_rtt_cwnd_gain: u32 = 50, [1, 100], "draft-ietf-ccwg-bbr-06 §2.16.2 BBR.ProbeRTTCwndGain = 0.5";
        /// Pacing margin, %: pace this much below BBR.bw.
        pacing_margin_percent: u32 = 1, [0, 99], "draft-ietf-ccwg-bbr-06 §2.5 BBR.PacingMarginPercent = 1";
        /// Largest tolerated loss rate of a probe, %.
        loss_thresh: u32 = 2, [1, 99], "draft-ietf-ccwg-bbr-06 §2.8 BBR.LossThresh = 2 %";
        /// Multiplicative decrease per round with loss, %.
        beta: u32 = 70, [1, 99], "draft-ietf-ccwg-bbr-06 §2.8 BBR.Beta = 0.7";
        /// Share of inflight_longterm left free for cross traffic, %.
        headroom: u32 = 15, [0, 99], "draft-ietf-ccwg-bbr-06 §2.8 BBR.Headroom = 0.15";
        /// Least cwnd, packets.
        min_pipe_cwnd: u32 = 4, [1, 1000], "draft-ietf-ccwg-bbr-06 §2.8 BBR.MinPipeCwnd = 4 SMSS";
        /// Growth under which the rate has plateaued, % (a sample ≥ full_bw · 1.25 is growth).
        full_bw_thresh: u32 = 125, [101, 1000], "draft-ietf-ccwg-bbr-06 §5.3.1.2 CheckFullBWReached (1.25)";
        /// Rounds without that growth that fill the pipe.
        full_bw_cnt: u32 = 3, [1, 100], "draft-ietf-ccwg-bbr-06 §5.3.1.2 CheckFullBWReached (3)";
        /// Loss events in a round that end STARTUP (with a loss rate above loss_thresh).
        startup_full_loss_cnt: u32 = 6, [1, 100], "draft-ietf-ccwg-bbr-06 §5.3.1.3 BBRStartupFullLossCnt = 6";
        /// Rounds after which DRAIN ends whatever the flight.
        drain_max_rounds: u32 = 3, [1, 100], "draft-ietf-ccwg-bbr-06 §5.3.2 CheckDrainDone (3)";
        /// Window of the extra_acked max filter after STARTUP, rounds.
        extra_acked_filter_len: u32 = 10, [1, 100], "draft-ietf-ccwg-bbr-06 §2.12 BBR.ExtraAckedFilterLen = 10";
        /// Window of the min_rtt filter, s.
        min_rtt_filter_len_sec: u32 = 10, [1, 3600], "draft-ietf-ccwg-bbr-06 §2.16.1 BBR.MinRTTFilterLen = 10 s";
        /// Least time between PROBE_RTTs, s.
        probe_rtt_interval_sec: u32 = 5, [1, 3600], "draft-ietf-ccwg-bbr-06 §2.16.2 BBR.ProbeRTTInterval = 5 s";
        /// Least time PROBE_RTT holds the flight down, ms.
        probe_rtt_duration_ms: u32 = 200, [1, 10000], "draft-ietf-ccwg-bbr-06 §2.16.2 BBR.ProbeRTTDuration = 200 ms";
        /// Least wall-clock wait between bandwidth probes, ms (a random 0–1 s is added).
        bw_probe_wait_base_ms: u32 = 2000, [0, 60000], "draft-ietf-ccwg-bbr-06 §5.3.3.8.3 PickProbeWait (2 s)";
        /// Range of the random part of that wait, ms.
        bw_probe_wait_rand_ms: u32 = 1000, [0, 60000], "draft-ietf-ccwg-bbr-06 §5.3.3.8.3 PickProbeWait (0..1 s)";
        /// Cap on the Reno-coexistence wait between probes, rounds.
        reno_rounds_max: u32 = 63, [1, 1000], "draft-ietf-ccwg-bbr-06 §5.3.3.8.3 IsRenoCoexistenceProbeTime (63)";
    }
}

/// BBR.state (§5.3.1–5.3.4): the four PROBE_BW phases are states of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum State {
    /// Double the rate each round to find the bandwidth.
    #[default]
    Startup = 0,
    /// Drain the queue STARTUP built.
    Drain = 1,
    /// Send slower than the path delivers, to leave headroom.
    ProbeBwDown = 2,
    /// Send at the estimated rate.
    ProbeBwCruise = 3,
    /// Refill the pipe for one round before probing.
    ProbeBwRefill = 4,
    /// Probe for more bandwidth.
    ProbeBwUp = 5,
    /// Cut the flight to measure the min RTT.
    ProbeRtt = 6,
}

impl State {
    /// IsInAProbeBWState (§5.3.3.9).
    pub fn is_probe_bw(self) -> bool {
        matches!(
            self,
            State::ProbeBwDown | State::ProbeBwCruise | State::ProbeBwRefill | State::ProbeBwUp
        )
    }
}

/// BBR.ack_phase (§2.14): what the ACKs now arriving say about the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AckPhase {
    /// Not probing; no probe feedback.
    #[default]
    Init = 0,
    /// Sending at the estimated rate to fill the pipe.
    Refilling = 1,
    /// The flight is rising to probe.
    ProbeStarting = 2,
    /// Feedback from the probe arrives.
    ProbeFeedback = 3,
    /// The probe stopped; its feedback still arrives.
    ProbeStopping = 4,
}

/// BBRv3 state (the draft's BBR.* variables) and parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr3 {
    /// C.InitialCwnd: the sender's cwnd at `init`, packets.
    pub initial_cwnd: u32,
    /// C.lost at the last ACK: packets marked lost since are a loss event.
    pub lost_seen: u32,
    /// Of those, the packets `skb_marked_lost` reported (handled one by one).
    pub lost_reported: u32,
    /// BBR.state.
    pub state: State,
    /// BBR.pacing_gain, %.
    pub pacing_gain: u32,
    /// BBR.cwnd_gain, %.
    pub cwnd_gain: u32,
    /// BBR.round_count: packet-timed rounds so far.
    pub round_count: u32,
    /// BBR.round_start: this ACK started a round.
    pub round_start: bool,
    /// BBR.next_round_delivered: C.delivered that ends the round.
    pub next_round_delivered: u32,
    /// BBR.idle_restart.
    pub idle_restart: bool,
    /// BBR.drain_start_round.
    pub drain_start_round: u32,
    /// BBR.max_bw_filter over BBR.cycle_count, packets/µs << 24.
    pub max_bw: MaxBwFilter,
    /// BBR.bw = min(max_bw, bw_shortterm).
    pub bw: u32,
    /// BBR.bw_shortterm (INF: unset).
    pub bw_shortterm: u32,
    /// BBR.min_rtt, µs (INF before a sample).
    pub min_rtt_us: u32,
    /// BBR.min_rtt_stamp, µs.
    pub min_rtt_stamp: u64,
    /// BBR.probe_rtt_min_delay, µs.
    pub probe_rtt_min_delay: u32,
    /// BBR.probe_rtt_min_stamp, µs.
    pub probe_rtt_min_stamp: u64,
    /// BBR.probe_rtt_expired.
    pub probe_rtt_expired: bool,
    /// BBR.probe_rtt_done_stamp, µs (0: not set).
    pub probe_rtt_done_stamp: u64,
    /// BBR.probe_rtt_round_done.
    pub probe_rtt_round_done: bool,
    /// BBR.prior_cwnd: the last cwnd unmodulated by recovery or PROBE_RTT.
    pub prior_cwnd: u32,
    /// BBR.extra_acked_filter over round_count, packets.
    pub extra_acked: Minmax,
    /// BBR.extra_acked_interval_start, µs.
    pub extra_acked_interval_start: u64,
    /// BBR.extra_acked_delivered, packets.
    pub extra_acked_delivered: u32,
    /// BBR.max_inflight, packets.
    pub max_inflight: u32,
    /// BBR.inflight_longterm, packets (INF: unset).
    pub inflight_longterm: u32,
    /// BBR.inflight_shortterm, packets (INF: unset).
    pub inflight_shortterm: u32,
    /// BBR.bw_latest: this round's max delivery rate.
    pub bw_latest: u32,
    /// BBR.inflight_latest: this round's max RS.delivered.
    pub inflight_latest: u32,
    /// BBR.loss_round_delivered: C.delivered that ends the loss round.
    pub loss_round_delivered: u32,
    /// BBR.loss_round_start.
    pub loss_round_start: bool,
    /// BBR.is_loss_in_round.
    pub is_loss_in_round: bool,
    /// ACKs that marked losses in this loss round (CheckStartupHighLoss).
    pub loss_events_in_round: u32,
    /// BBR.full_bw_reached.
    pub full_bw_reached: bool,
    /// BBR.full_bw_now.
    pub full_bw_now: bool,
    /// BBR.full_bw, packets/µs << 24.
    pub full_bw: u32,
    /// BBR.full_bw_count.
    pub full_bw_count: u32,
    /// BBR.ack_phase.
    pub ack_phase: AckPhase,
    /// BBR.is_bw_probe_sample.
    pub is_bw_probe_sample: bool,
    /// BBR.bw_probe_up_acked, packets.
    pub bw_probe_up_acked: u32,
    /// BBR.probe_up_acked_per_inc, packets (INF: not growing).
    pub probe_up_acked_per_inc: u32,
    /// BBR.bw_probe_up_rounds.
    pub bw_probe_up_rounds: u32,
    /// BBR.rounds_since_probe_up.
    pub rounds_since_probe_up: u32,
    /// BBR.bw_probe_wait, µs.
    pub bw_probe_wait_us: u64,
    /// BBR.cycle_stamp, µs.
    pub cycle_stamp: u64,
    /// BBR.prev_probe_too_high.
    pub prev_probe_too_high: bool,
    /// BBR.prev_probe_precautionary.
    pub prev_probe_precautionary: bool,
    /// BBR.undo_state (None: nothing to restore).
    pub undo_state: Option<State>,
    /// BBR.undo_bw_shortterm.
    pub undo_bw_shortterm: u32,
    /// BBR.undo_inflight_shortterm.
    pub undo_inflight_shortterm: u32,
    /// BBR.undo_inflight_longterm.
    pub undo_inflight_longterm: u32,
    /// CA state at the previous ACK, to see loss recovery end.
    pub prev_ca_state: CaState,
    /// The estimator of RS.lost: (C.delivered, C.lost) at the last two round
    /// starts, oldest first, and the C.delivered that ends its round.
    pub lost_marks: [(u32, u32); 2],
    /// C.delivered that ends the estimator's round.
    pub lost_mark_next: u32,
    cfg: Bbr3Params,
}

/// What the draft's RS carries beyond hscc's [`RateSample`], per ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    /// RS.delivery_rate, packets/µs << 24 (0: no rate sample).
    pub delivery_rate: u32,
    /// RS.delivered, packets (0: no packet delivered).
    pub delivered: u32,
    /// RS.tx_in_flight, packets (0: no packet delivered).
    pub tx_in_flight: u32,
    /// RS.lost, packets.
    pub lost: u32,
}

/// `x · pct / 100`, saturating at [`INF`] − 1 so that a product never reads as "unset".
#[inline]
fn pct(x: u32, pct: u32) -> u32 {
    ((x as u64 * pct as u64) / PERCENT as u64).min(INF as u64 - 1) as u32
}

impl Bbr3 {
    /// The parameters.
    pub fn params(&self) -> &Bbr3Params {
        &self.cfg
    }

    /// UpdateModelAndState (§5.2.3).
    fn update_model_and_state(&mut self, tp: &mut TcpCc, rs: &RateSample, s: &Sample) {
        self.update_latest_delivery_signals(tp, rs, s);
        self.update_congestion_signals(tp, rs, s);
        self.update_ack_aggregation(tp, rs);
        self.check_full_bw_reached(rs, s);
        self.check_startup_done(tp, s);
        self.check_drain_done(tp);
        self.update_probe_bw_cycle_phase(tp, rs, s);
        self.update_min_rtt(tp, rs);
        self.check_probe_rtt(tp, rs);
        self.advance_latest_delivery_signals(s);
        self.bound_bw_for_model();
    }

    /// HandleRestartFromIdle (§5.4.1).
    fn handle_restart_from_idle(&mut self, tp: &mut TcpCc) {
        if tp.packets_in_flight() == 0 && tp.app_limited {
            self.idle_restart = true;
            self.extra_acked_interval_start = tp.now_us;
            if self.state.is_probe_bw() {
                self.set_pacing_rate_with_gain(tp, PERCENT);
            } else if self.state == State::ProbeRtt {
                self.check_probe_rtt_done(tp);
            }
        }
    }

    /// This ACK's RS.delivery_rate, RS.delivered, RS.tx_in_flight and RS.lost
    /// (the last two estimated when the sample lacks them).
    fn sample(&mut self, tp: &TcpCc, rs: &RateSample) -> Sample {
        let delivered = rs.delivered.max(0) as u32;
        let delivery_rate = if rs.delivered > 0 && rs.interval_us > 0 {
            ((delivered as u64 * BW_UNIT) / rs.interval_us as u64).min(u32::MAX as u64) as u32
        } else {
            0
        };
        // A delivered packet's stamp counts the packet itself: 0 means the
        // stack has no per-packet stamps (a mainline kernel).
        let (tx_in_flight, lost) = if rs.delivered > 0 && rs.tx_in_flight > 0 {
            (rs.tx_in_flight, rs.lost)
        } else {
            self.estimate_tx_in_flight_and_lost(tp, rs)
        };
        Sample {
            delivery_rate,
            delivered,
            tx_in_flight,
            lost,
        }
    }
}

/// InLossRecovery (§5.6.4.4): fast recovery or RTO recovery.
#[inline]
fn in_loss_recovery(tp: &TcpCc) -> bool {
    tp.ca_state >= CaState::Recovery
}

/// A uniform draw in `0..n` by reciprocal scaling of a 32-bit draw.
#[inline]
fn draw_below(tp: &mut TcpCc, n: u32) -> u32 {
    ((prandom_u32(tp) as u64 * n as u64) >> 32) as u32
}

impl CongestionOps for Bbr3 {
    const NAME: &'static str = "bbr3";
    type Params = Bbr3Params;

    fn new(p: &Bbr3Params) -> Self {
        Bbr3 {
            initial_cwnd: INITIAL_CWND,
            lost_seen: 0,
            lost_reported: 0,
            state: State::Startup,
            pacing_gain: p.startup_pacing_gain,
            cwnd_gain: p.default_cwnd_gain,
            round_count: 0,
            round_start: false,
            next_round_delivered: 0,
            idle_restart: false,
            drain_start_round: 0,
            max_bw: MaxBwFilter::default(),
            bw: 0,
            bw_shortterm: INF,
            min_rtt_us: INF,
            min_rtt_stamp: 0,
            probe_rtt_min_delay: INF,
            probe_rtt_min_stamp: 0,
            probe_rtt_expired: false,
            probe_rtt_done_stamp: 0,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            extra_acked: Minmax::default(),
            extra_acked_interval_start: 0,
            extra_acked_delivered: 0,
            max_inflight: 0,
            inflight_longterm: INF,
            inflight_shortterm: INF,
            bw_latest: 0,
            inflight_latest: 0,
            loss_round_delivered: 0,
            loss_round_start: false,
            is_loss_in_round: false,
            loss_events_in_round: 0,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw: 0,
            full_bw_count: 0,
            ack_phase: AckPhase::Init,
            is_bw_probe_sample: false,
            bw_probe_up_acked: 0,
            probe_up_acked_per_inc: INF,
            bw_probe_up_rounds: 0,
            rounds_since_probe_up: 0,
            bw_probe_wait_us: 0,
            cycle_stamp: 0,
            prev_probe_too_high: false,
            prev_probe_precautionary: false,
            undo_state: None,
            undo_bw_shortterm: 0,
            undo_inflight_shortterm: 0,
            undo_inflight_longterm: 0,
            prev_ca_state: CaState::Open,
            lost_marks: [(0, 0); 2],
            lost_mark_next: 0,
            cfg: p.clone(),
        }
    }

    /// OnInit (§5.2.1).
    fn init(&mut self, tp: &mut TcpCc) {
        let cfg = self.cfg.clone();
        *self = Bbr3::new(&cfg);
        self.initial_cwnd = tp.snd_cwnd;
        self.lost_seen = tp.lost;
        tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
        if tp.srtt_us != 0 {
            self.min_rtt_us = tp.srtt();
        }
        self.min_rtt_stamp = tp.now_us;
        // OnInit leaves the 5-s filter unset; it starts as the 10-s one does
        // (else a connection opened after 5 s would enter PROBE_RTT at once).
        self.probe_rtt_min_stamp = tp.now_us;
        self.extra_acked_interval_start = tp.now_us;
        self.reset_congestion_signals();
        self.reset_short_term_model();
        self.reset_full_bw();
        self.init_pacing_rate(tp);
        self.enter_startup();
        self.lost_marks = [(tp.delivered, tp.lost); 2];
        self.lost_mark_next = tp.delivered;
        // The draft paces every packet (§5.6.2): ask for the stack's internal pacing.
        tp.pacing_needed = true;
    }

    /// OnEnterFastRecovery / OnEnterRTO (§5.6.4.4): save the state an undo restores.
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        self.save_state_upon_loss(tp);
        tp.snd_ssthresh
    }

    /// BBRv3 owns cwnd through `cong_control`.
    fn cong_avoid(&mut self, _tp: &mut TcpCc, _ack: u32, _acked: u32) {}

    /// A retransmission timeout marks packets lost outside any ACK: note the
    /// loss for this round (§5.5.10.2 NoteLoss). The sender sets cwnd to
    /// C.inflight + 1 itself (OnEnterRTO).
    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Loss && tp.ca_state != CaState::Loss {
            self.note_loss(tp);
        }
    }

    /// OnTransmit's HandleRestartFromIdle (§5.4.1), at the first send after idle.
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        if ev == CaEvent::TxStart {
            self.handle_restart_from_idle(tp);
        }
    }

    /// HandleSpuriousLossDetection (§5.5.11.2).
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        self.handle_spurious_loss_detection(tp);
        tp.snd_cwnd
    }

    /// UpdateOnACK (§5.2.3): per-loss steps first, as loss detection precedes
    /// congestion control in an ACK; then the model, the state and the controls.
    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        let s = self.sample(tp, rs);
        let newly_lost = tp.lost.wrapping_sub(self.lost_seen);
        let unreported = newly_lost.wrapping_sub(self.lost_reported);
        self.lost_seen = tp.lost;
        self.lost_reported = 0;
        if newly_lost > 0 {
            self.loss_events_in_round = self.loss_events_in_round.saturating_add(1);
        }
        if unreported > 0 {
            // The losses since the last ACK no hook reported, as one burst
            // with this ACK's (estimated) sample.
            self.handle_lost_packet(tp, &s, unreported, rs.is_app_limited);
        }
        // Leaving loss recovery restores the last known good cwnd (§5.6.4.4).
        if in_loss_recovery_state(self.prev_ca_state) && !in_loss_recovery(tp) {
            self.restore_cwnd(tp);
        }
        self.prev_ca_state = tp.ca_state;
        self.update_model_and_state(tp, rs, &s);
        self.set_pacing_rate_with_gain(tp, self.pacing_gain);
        self.set_cwnd(tp, rs);
        true
    }

    /// HandleLostPacket (§5.5.10.2) for the packet just marked lost, with
    /// its stamp: RS.tx_in_flight = P.tx_in_flight, RS.lost = C.lost − P.lost
    /// (P included, as C.lost counts it), RS.is_app_limited = P.is_app_limited.
    fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
        self.lost_reported = self.lost_reported.wrapping_add(1);
        let s = Sample {
            tx_in_flight: skb.tx_in_flight,
            lost: tp.lost.wrapping_sub(skb.tx_lost),
            ..Sample::default()
        };
        self.handle_lost_packet(tp, &s, 1, skb.is_app_limited);
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let c = &self.cfg;
        vec![
            ("startup_pacing_gain", c.startup_pacing_gain.into()),
            ("default_cwnd_gain", c.default_cwnd_gain.into()),
            ("drain_pacing_gain", c.drain_pacing_gain.into()),
            ("probe_down_pacing_gain", c.probe_down_pacing_gain.into()),
            ("probe_up_pacing_gain", c.probe_up_pacing_gain.into()),
            ("probe_up_cwnd_gain", c.probe_up_cwnd_gain.into()),
            ("probe_rtt_cwnd_gain", c.probe_rtt_cwnd_gain.into()),
            ("pacing_margin_percent", c.pacing_margin_percent.into()),
            ("loss_thresh", c.loss_thresh.into()),
            ("beta", c.beta.into()),
            ("headroom", c.headroom.into()),
            ("min_pipe_cwnd", c.min_pipe_cwnd.into()),
            ("full_bw_thresh", c.full_bw_thresh.into()),
            ("full_bw_cnt", c.full_bw_cnt.into()),
            ("startup_full_loss_cnt", c.startup_full_loss_cnt.into()),
            ("drain_max_rounds", c.drain_max_rounds.into()),
            ("extra_acked_filter_len", c.extra_acked_filter_len.into()),
            ("min_rtt_filter_len_sec", c.min_rtt_filter_len_sec.into()),
            ("probe_rtt_interval_sec", c.probe_rtt_interval_sec.into()),
            ("probe_rtt_duration_ms", c.probe_rtt_duration_ms.into()),
            ("bw_probe_wait_base_ms", c.bw_probe_wait_base_ms.into()),
            ("bw_probe_wait_rand_ms", c.bw_probe_wait_rand_ms.into()),
            ("reno_rounds_max", c.reno_rounds_max.into()),
        ]
    }
}

/// InLossRecovery for a saved CA state.
#[inline]
fn in_loss_recovery_state(s: CaState) -> bool {
    s >= CaState::Recovery
}

crate::cc_property_suite!(bbr3_properties, Bbr3);
