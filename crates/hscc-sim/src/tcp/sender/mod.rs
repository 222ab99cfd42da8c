//! TCP sender.
//!
//! Per ACK the sender follows Linux's `tcp_ack()` and calls the congestion
//! control in the order documented in [`hscc_cc::ops`]:
//! cumulative ACK and SACK processing → `in_ack_event` → RTT estimator and
//! `pkts_acked` → loss marking and the recovery state machine (`ssthresh`,
//! `set_state`, `cwnd_event`) → the ACK's delivery-rate sample (`rate.rs`,
//! Linux's `tcp_rate.c`) → window: the algorithm's `cong_control` in every
//! state; if it declines, PRR or classic reduction in recovery, otherwise
//! `cong_avoid` when data was cumulatively acknowledged → transmission.
//!
//! Loss detection (`FlowConfig::loss_detection`, docs/loss-recovery.md):
//! - RACK-TLP (RFC 8985, Linux's default; `rack.rs`, `tlp.rs`): a segment is
//!   lost once a segment sent after it was delivered and RACK.rtt + reo_wnd
//!   have passed since it was sent, retransmissions included; a probe repairs
//!   tail losses before the RTO.
//! - SACK duplicate threshold (RFC 6675 §4 `IsLost`): an un-SACKed segment is
//!   lost once at least DupThresh = the reordering degree (3 unless reordering
//!   was seen) segments above it are SACKed. A lost retransmission is
//!   recovered by the RTO; rescue retransmission (rule 4) is not modeled.
//! - NewReno (RFC 6582), without SACK: duplicate ACKs are counted in
//!   `sacked_out` as Linux's Reno emulation does; the third marks the head
//!   lost; a partial ACK marks the new head lost.
//!
//! Recovery starts when a segment is marked lost; lost segments are
//! retransmitted first (`NextSeg` rule 1), then new data (rule 2); it ends
//! when `high_seq` is acked. Spurious reductions are undone (`undo.rs`:
//! D-SACK, Eifel timestamps, F-RTO after a timeout) through the algorithm's
//! `undo_cwnd`; the reordering degree adapts as Linux's `tcp_reordering`.
//!
//! Window during recovery: PRR exactly as Linux's `tcp_cwnd_reduction`
//! (RecoverFS = prior_cwnd, PRR-SSRB), or classic: cwnd = ssthresh at entry,
//! or ns-2's Sack1: cwnd = ssthresh at entry and a pipe counted down by one
//! per ACK in place of RFC 6675's (`sack1.rs`).
//! The retransmission timer follows RFC 6298 (see [`super::rtt`]); on expiry
//! (Linux `tcp_enter_loss`) all un-SACKed outstanding segments are marked
//! lost and cwnd restarts at 1.
//!
//! Window growth sees `acked` = the segments newly acknowledged (cumulatively
//! or by SACK) by the ACK, Linux's appropriate byte counting, or 1 per ACK that
//! advances `snd_una` with [`AckCounting::Acks`] (ns-2, ns-3's `TcpNewReno`).
//! `pkts_acked` always gets the segments cumulatively acknowledged.
//!
//! Host timing: each segment reaches the first link of the flow's route after
//! its connection's access delay plus a host jitter drawn uniformly from
//! [0, `host_jitter`], never before the segment sent ahead
//! of it; both come from the flow's own seeded stream (see
//! `docs/fairness.md`). With [`JitterUnit::Send`] one draw delays a send and
//! every segment asked for until it leaves (ns-2's `overhead_`). The RTT and TSval are the TCP layer's send time.
//!
//! ECN (RFC 3168, when the flow has it on): an ACK with ECE in Open or
//! Disorder enters the CWR state (Linux `tcp_enter_cwr`: `ssthresh()` once,
//! then PRR down to it, or at once with classic reduction), which ends when
//! data above the point of the reduction is acknowledged; an echo during a
//! reduction changes nothing (once per window), and a loss during CWR enters
//! recovery without a second `ssthresh()`. `in_ack_event` gets `CA_ACK_ECE`
//! (and `CA_ACK_SLOWPATH`: Linux's header prediction fails on ECE), and the
//! segments it delivered count in `delivered_ce`. An algorithm flagged
//! `TCP_CONG_NEEDS_ECN` (DCTCP) has ECN on whatever the flow's setting. The
//! segment flags are in [`super::ecn`].
//!
//! Writes: a finite sender can be given more data ([`Sender::append`], a
//! persistent HTTP connection's next object); it goes out under the current
//! window, restarted first if the sender sat idle longer than the RTO.
//!
//! Not modeled: rescue retransmission, SACK reneging, NewReno's reordering
//! estimate.
//!
//! The code is cut where Linux cuts `tcp_input.c` and its neighbours, one
//! sub-machine per file: `scoreboard.rs` (the outstanding segments and what
//! an ACK covers: `tcp_clean_rtx_queue`, `tcp_sacktag_write_queue`),
//! `loss.rs` (duplicate-threshold and timeout marking, the reordering
//! degree), `recovery.rs` (the state machine, `tcp_fastretrans_alert`, and
//! the window: PRR, `tcp_cong_control`), `output.rs` (transmission and
//! pacing, `tcp_output.c`), `timers.rs` (the retransmission timer and the RTT
//! sample, `tcp_timer.c`), `rate.rs` (delivery-rate samples, `tcp_rate.c`),
//! `rack.rs` (`tcp_recovery.c`), `tlp.rs`, `undo.rs`, `sack1.rs` (ns-2's
//! Sack1 recovery).
//! This file holds the state and [`Sender::on_ack`], the contract's steps in order.

use std::collections::VecDeque;

use hscc_cc::{
    AckSample, CaState, Cc, Shared, TcpCc, CA_ACK_ECE, CA_ACK_SLOWPATH, TCP_CONG_NEEDS_ECN,
};

use crate::config::{
    AckCounting, DelayDist, FlowConfig, JitterUnit, LossDetection, Recovery, ReductionFloor,
    SsthreshFrom,
};
use crate::event::{EventQueue, Timer};
use crate::packet::Packet;
use crate::rng::Rng;
use crate::stats::FlowCounters;
use crate::tcp::cc_log::{CcLog, LoggedCc};
use crate::tcp::ecn::EcnSender;
use crate::tcp::rtt::{RtoRestart, RttEstimator, RttSampling};
use crate::time::{Time, MS, US};
use rand::Rng as _;

mod loss;
mod output;
mod rack;
mod rate;
mod recovery;
mod sack1;
mod scoreboard;
mod timers;
mod tlp;
mod undo;

use rack::Rack;
use rate::RateState;
use sack1::Sack1Pipe;
use scoreboard::Seg;
use timers::XmitTimer;
use undo::Undo;

/// What the sender hands to the network.
pub trait Wire {
    /// The current time.
    fn now(&self) -> Time;
    /// The event queue, to arm timers.
    fn queue(&mut self) -> &mut EventQueue;
    /// Send a packet along the flow's data route; it reaches the first link at
    /// `at` (now, or later with host jitter and access delay). Calls come with
    /// non-decreasing `at`, so the flow's packets keep their order.
    fn send(&mut self, p: Packet, at: Time);
    /// The sender takes ACK `p` now (packet captures see it here).
    #[inline]
    fn ack_taken(&mut self, _p: &Packet) {}
}

/// The sender as an ACK found it (the `prior_*` locals of Linux's `tcp_ack`).
#[derive(Clone, Copy, Debug)]
struct Prior {
    /// Segments in flight.
    in_flight: u32,
    /// `tp.lost`: segments marked lost over the connection, wrapping.
    lost: u32,
    /// `tp.delivered`: segments delivered over the connection, wrapping.
    delivered: u32,
    /// `snd_una`, segment number.
    una: u64,
    /// End of the highest SACKed segment, or `snd_una` (Linux `prior_fack`), segment number.
    fack: u64,
}

/// Sender state of one flow.
#[derive(Clone, Debug)]
pub struct Sender {
    // What the flow is and how it is configured (fixed at construction).
    /// Flow number, carried by its packets.
    id: u32,
    /// The congestion-control algorithm, logged when the flow is traced.
    pub cc: LoggedCc,
    /// The view of sender state the algorithm sees.
    pub tp: TcpCc,
    /// Payload of a full segment, bytes.
    mss: u32,
    /// SACK on (RFC 2018); off, NewReno with Linux's Reno emulation.
    sack: bool,
    /// Window reduction by PRR (RFC 6937); off, classic: cwnd = ssthresh at
    /// once, or rate halving.
    prr: bool,
    /// Rate halving (Linux ≤ 3.1 `tcp_cwnd_down`) down to this floor; None for other reductions.
    halving: Option<ReductionFloor>,
    /// RACK-TLP loss detection (with SACK only).
    rack_on: bool,
    /// Undo of spurious reductions (D-SACK, Eifel timestamps).
    undo_on: bool,
    /// F-RTO after a timeout (RFC 5682).
    frto_on: bool,
    /// Tail loss probes (`tlp`, with RACK only).
    tlp_on: bool,
    /// Timestamps on (RFC 7323): TSval sent, TSecr used for RTT samples and undo.
    timestamps: bool,
    /// The receiver's timestamp offset, ms (Linux's `tsoffset`; 0 without a random offset).
    pub ts_offset: u32,
    /// Linux's default pacing when the algorithm sets no rate (`tcp_update_pacing_rate`).
    pacing: bool,
    /// Initial window, segments; also the floor of the restart after idle.
    init_cwnd: u32,
    /// Receiver window, segments (`u64::MAX`: unlimited).
    rwnd_segs: u64,
    /// What `acked` counts for `cong_avoid`: segments (Linux) or ACKs (ns-2, ns-3).
    ack_counting: AckCounting,
    /// What `ssthresh` sees as `snd_cwnd`: cwnd (Linux) or the segments in flight (ns-3).
    ssthresh_from: SsthreshFrom,
    /// Bound of the per-packet host processing delay, ps (0: none).
    jitter: Time,
    /// One draw per send (ns-2's `overhead_`) instead of per segment.
    jitter_per_send: bool,
    /// With `jitter_per_send`: when the pending delayed send leaves, ps.
    send_at: Option<Time>,
    /// Delay after `FlowConfig::start` at which the flow starts (drawn once), ps.
    pub start_offset: Time,
    /// One-way access delay of this connection (drawn once), both directions, ps.
    pub access_delay: Time,

    // The data written.
    /// Segments of the data written so far (`u64::MAX`: unlimited).
    total_segs: u64,
    /// Payload of the last segment written, bytes.
    last_payload: u32,
    /// Earlier writes' short last segments, still unacknowledged: (segment, payload bytes).
    short_segs: Vec<(u64, u32)>,

    // The scoreboard (`scoreboard.rs`) and loss marking (`loss.rs`).
    /// Oldest unacknowledged segment.
    snd_una: u64,
    /// Next new segment to send.
    snd_nxt: u64,
    /// One entry per segment in `snd_una..snd_nxt`.
    sb: VecDeque<Seg>,
    /// End of the highest SACKed segment while `sacked_out` > 0 (Linux `tcp_highest_sack_seq`).
    high_sacked: u64,
    /// The last ACK's SACK blocks, [start, end) segment numbers (Linux `recv_sack_cache`).
    sack_cache: [(u64, u64); 3],
    /// Segments marked lost and not yet retransmitted.
    to_retx: u32,
    /// No segment below this one awaits retransmission (Linux `retransmit_skb_hint`).
    retx_hint: u64,
    /// Segment where duplicate-threshold marking resumes (Linux `lost_skb_hint`).
    lost_scan: u64,
    /// SACKed segments in `snd_una..lost_scan` (Linux `lost_cnt_hint`).
    lost_cnt: u32,
    /// Reordering degree, segments (Linux `tp->reordering`): the DupThresh.
    reordering: u32,
    /// Its initial value, segments (Linux sysctl `tcp_reordering`).
    reordering_init: u32,
    /// Its upper bound, segments (Linux sysctl `tcp_max_reordering`).
    max_reordering: u32,
    /// Times reordering was seen (Linux `tp->reord_seen`).
    reord_seen: u32,
    /// Transmissions so far, modulo 2^32 (`Seg::order`).
    tx_order: u32,
    /// RACK's state and its list of segments in flight in order of transmission.
    rack: Rack,
    /// Delivery-rate sampling (`rate.rs`).
    rate: RateState,
    /// Whether segments are stamped and ACKs sampled (for algorithms that use samples).
    rate_on: bool,

    // Recovery (`recovery.rs`, `undo.rs`, `tlp.rs`).
    /// `snd_nxt` when the current reduction, timeout or F-RTO step began (Linux `high_seq`).
    high_seq: u64,
    /// Segments delivered since the reduction began (PRR's `prr_delivered`).
    prr_delivered: u32,
    /// Segments sent since the reduction began (PRR's `prr_out`).
    prr_out: u32,
    /// Send the next lost segment whatever cwnd says (fast retransmit, NewReno partial ACK).
    force_retx: bool,
    /// ns-2's Sack1 recovery (`sack1.rs`): its pipe, when the flow's recovery is "sack1".
    sack1: Sack1Pipe,
    /// Undo bookkeeping of the current episode.
    undo: Undo,
    /// F-RTO is running (Linux `tp->frto`).
    frto: bool,
    /// F-RTO step 2b: send new data before retransmitting on this ACK (`REXMIT_NEW`).
    frto_new: bool,
    /// `snd_nxt` when the tail loss probe was sent (Linux `tlp_high_seq`).
    tlp_high_seq: Option<u64>,
    /// The probe was a retransmission (Linux `tlp_retrans`).
    tlp_retrans: bool,
    /// ECN: whether on, and CWR due.
    ecn: EcnSender,
    /// The algorithm took the last ACK through its `cong_control` (Linux: it
    /// defines the hook): it owns cwnd and pacing in every state.
    cc_controls: bool,
    /// Tests only: called instead of the algorithm's `cong_control`.
    #[cfg(feature = "testing")]
    pub cong_control_hook: Option<fn(&mut TcpCc, &hscc_cc::RateSample) -> bool>,

    // Timers (`timers.rs`).
    /// RTT estimator and RTO (RFC 6298, or Linux's).
    pub rtt: RttEstimator,
    /// RTO backoff exponent: timeouts since the last RTT sample.
    backoff: u32,
    /// Which ACKs give the estimator a sample, and which segment's.
    sampling: RttSampling,
    /// Every ACK restarts the RTO, duplicates included (`rto_restart = "every_ack"`).
    rto_every_ack: bool,
    /// The segment being timed and when it was sent (ns-2's `rtt_seq_`, `rtt_ts_`;
    /// `rtt_active_` is its presence).
    timed: Option<(u64, Time)>,
    /// Timeouts since `snd_una` last advanced (Linux `icsk_retransmits`).
    rto_retransmits: u32,
    /// Retransmission timer, also RACK's and the probe's, one at a time (`icsk_retransmit_timer`).
    pub rto_timer: Timer,
    /// What the retransmission timer is armed for (Linux `icsk_pending`).
    timer_kind: XmitTimer,
    /// When the RTO expires, ps, also while the timer waits for a probe or RACK (RFC 8985 §7.2).
    rto_expire: Time,

    // Output (`output.rs`).
    /// Pacing timer, armed for `next_send`.
    pub pace_timer: Timer,
    /// Earliest time pacing lets the next segment go, ps.
    next_send: Time,
    /// When a segment was last sent, ps (for the restart after idle).
    last_send: Time,
    /// When the last segment handed over reaches the first link, ps (no later one overtakes it).
    last_out: Time,
    /// `snd_nxt` at the last cwnd-use check; checked again once acknowledged (`cwnd_usage_seq`).
    cwnd_usage_seq: u64,
    /// The flow's random stream (per-packet host jitter).
    rng: Rng,

    // Life cycle and accounting.
    /// [`Sender::start`] was called.
    started: bool,
    /// [`Sender::stop`] was called: no new data.
    stopped: bool,
    /// When the last byte was acknowledged (transfer complete or stopped flow drained), ps.
    pub done_at: Option<Time>,
    /// In slow start since `ss_since` (the time counts toward `counters.slow_start_time`).
    ss_on: bool,
    /// When slow-start accounting last looked, ps.
    ss_since: Time,
    /// Per-flow counts: segments sent, retransmissions, timeouts, recoveries, time in slow start.
    pub counters: FlowCounters,
}

impl Sender {
    /// A sender for flow `id`. `rng` is the flow's own random stream: the
    /// start-up offset and the access delay are drawn from it first (always
    /// both, so that turning one knob does not shift the other's draw), then
    /// the per-packet host jitter.
    pub fn new(id: u32, cfg: &FlowConfig, rng: Rng) -> Sender {
        Sender::new_in(id, cfg, rng, &Shared::default())
    }

    /// [`Sender::new`] as one of the connections of the run `shared`
    /// belongs to (a program the flow runs is registered once per run).
    pub fn new_in(id: u32, cfg: &FlowConfig, mut rng: Rng, shared: &Shared) -> Sender {
        let start_offset = draw_uniform(&mut rng, 0, cfg.start_jitter);
        let access_delay = match cfg.access_delay {
            DelayDist::Fixed(d) => {
                let _ = draw_uniform(&mut rng, 0, 0);
                d
            }
            DelayDist::Uniform { min, max } => draw_uniform(&mut rng, min, max),
        };
        let rwnd_segs = (cfg.window_bytes() / cfg.mss as u64).max(1);
        // Linux tcp_init_cwnd: the initial window, at most the clamp.
        let init_cwnd = cfg.init_cwnd.min(rwnd_segs as u32);
        let mut tp = TcpCc::new(cfg.mss, init_cwnd);
        tp.snd_cwnd_clamp = rwnd_segs as u32;
        if let Some(s) = cfg.init_ssthresh {
            // Before `init`: an algorithm's own initial ssthresh (CUBIC, BIC) wins,
            // as in Linux, where route metrics are applied before the CA's init.
            tp.snd_ssthresh = s;
        }
        // Before `init`, as Linux negotiates ECN in the handshake (a program's
        // init reads `ecn_flags`).
        tp.ecn_ok = cfg.ecn || cfg.cc.flags() & TCP_CONG_NEEDS_ECN != 0;
        let mut cc = LoggedCc::new(Cc::new_in(&cfg.cc, shared), cfg.cc_log.then(CcLog::default));
        cc.init(&mut tp);
        let (total_segs, last_payload) = match cfg.size {
            Some(s) => (
                s.div_ceil(cfg.mss as u64),
                (s - (s.div_ceil(cfg.mss as u64) - 1) * cfg.mss as u64) as u32,
            ),
            None => (u64::MAX, cfg.mss),
        };
        let rack_on = cfg.sack && cfg.loss_detection == LossDetection::Rack;
        Sender {
            id,
            cc,
            tp,
            mss: cfg.mss,
            sack: cfg.sack,
            prr: cfg.recovery == Recovery::Prr,
            halving: (cfg.recovery == Recovery::RateHalving).then_some(cfg.reduction_floor),
            rack_on,
            undo_on: cfg.undo,
            frto_on: cfg.frto,
            tlp_on: cfg.tlp && rack_on,
            reordering: cfg.reordering,
            reordering_init: cfg.reordering,
            max_reordering: cfg.max_reordering.max(cfg.reordering),
            reord_seen: 0,
            timestamps: cfg.timestamps,
            ts_offset: 0,
            pacing: cfg.pacing,
            init_cwnd,
            rwnd_segs,
            total_segs,
            last_payload,
            short_segs: Vec::new(),
            snd_una: 0,
            snd_nxt: 0,
            sb: VecDeque::new(),
            high_seq: 0,
            lost_scan: 0,
            lost_cnt: 0,
            high_sacked: 0,
            retx_hint: 0,
            to_retx: 0,
            sack_cache: [(0, 0); 3],
            rack: Rack::default(),
            rate: RateState::default(),
            rate_on: false,
            cc_controls: false,
            #[cfg(feature = "testing")]
            cong_control_hook: None,
            undo: Undo::default(),
            timer_kind: XmitTimer::Rto,
            rto_expire: 0,
            tlp_high_seq: None,
            tlp_retrans: false,
            tx_order: 0,
            rto_retransmits: 0,
            frto: false,
            frto_new: false,
            rtt: RttEstimator::with_tick(
                cfg.rto_estimator,
                cfg.min_rto,
                cfg.initial_rto,
                cfg.rto_tick,
            ),
            backoff: 0,
            sampling: cfg.rtt_sampling,
            rto_every_ack: cfg.rto_restart == RtoRestart::EveryAck,
            timed: None,
            rto_timer: Timer::default(),
            pace_timer: Timer::default(),
            next_send: 0,
            last_send: 0,
            prr_delivered: 0,
            prr_out: 0,
            force_retx: false,
            sack1: Sack1Pipe::new(cfg.recovery == Recovery::Sack1),
            cwnd_usage_seq: 0,
            started: false,
            stopped: false,
            done_at: None,
            ss_on: false,
            ss_since: 0,
            jitter: cfg.host_jitter,
            jitter_per_send: cfg.jitter_unit == JitterUnit::Send,
            send_at: None,
            rng,
            last_out: 0,
            start_offset,
            access_delay,
            ack_counting: cfg.ack_counting,
            ssthresh_from: cfg.ssthresh_from,
            ecn: if cfg.cc.flags() & TCP_CONG_NEEDS_ECN != 0 {
                EcnSender::needs_ecn()
            } else {
                EcnSender::new(cfg.ecn)
            },
            counters: FlowCounters::default(),
        }
    }

    /// Oldest unacknowledged segment.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Next new segment to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// Whether the flow has started and not finished.
    pub fn active(&self) -> bool {
        self.started && self.done_at.is_none()
    }

    /// Start sending at `now`.
    pub fn start(&mut self, w: &mut impl Wire) {
        self.started = true;
        self.ss_since = w.now();
        self.rate_on = self.wants_rate_samples();
        // The application's first write, onto an empty socket.
        self.check_app_limited(false);
        self.try_send(w);
        self.account_slow_start(w.now());
    }

    /// An application write on a finite connection (a persistent HTTP
    /// connection's next object): `bytes` more after the data it has, sent
    /// under the current window; if it had gone idle, cwnd first restarts
    /// (`restart_after_idle`). Returns the segments written so far
    /// (the write is delivered once the receiver has that many in order).
    pub fn append(&mut self, bytes: u64, w: &mut impl Wire) -> u64 {
        debug_assert!(
            self.total_segs != u64::MAX && bytes > 0,
            "a finite connection and a write"
        );
        self.check_app_limited(self.snd_nxt < self.total_segs);
        let una = self.snd_una;
        self.short_segs.retain(|&(seq, _)| seq >= una);
        if self.last_payload < self.mss && self.total_segs > una {
            self.short_segs
                .push((self.total_segs - 1, self.last_payload));
        }
        let segs = bytes.div_ceil(self.mss as u64);
        self.total_segs += segs;
        self.last_payload = (bytes - (segs - 1) * self.mss as u64) as u32;
        self.done_at = None;
        self.try_send(w);
        self.account_slow_start(w.now());
        self.total_segs
    }

    /// Segments of the data written so far.
    pub fn total_segs(&self) -> u64 {
        self.total_segs
    }

    /// Stop sending new data (data in flight is still recovered).
    pub fn stop(&mut self, w: &mut impl Wire) {
        self.stopped = true;
        if self.started && self.tp.packets_out == 0 && self.done_at.is_none() {
            self.done_at = Some(w.now());
        }
        self.account_slow_start(w.now());
    }

    /// Linux's wrapping byte sequence number of segment `seg`.
    #[inline]
    fn seq_bytes(&self, seg: u64) -> u32 {
        (seg as u32).wrapping_mul(self.mss)
    }

    /// `snd_una` and `snd_nxt` as the algorithm sees them.
    #[inline]
    fn sync_tp(&mut self) {
        self.tp.snd_una = self.seq_bytes(self.snd_una);
        self.tp.snd_nxt = self.seq_bytes(self.snd_nxt);
    }

    /// Linux `tcp_set_ca_state`: the hook sees the old state.
    #[inline]
    fn set_state(&mut self, s: CaState) {
        if self.tp.ca_state != s {
            self.cc.set_state(&mut self.tp, s);
            self.tp.ca_state = s;
        }
    }

    /// Process an ACK arriving at `now`, in the order of the contract in
    /// [`hscc_cc::ops`] (Linux `tcp_ack`).
    pub fn on_ack(&mut self, p: &Packet, w: &mut impl Wire) {
        w.ack_taken(p);
        let now = w.now();
        if self.timestamps {
            // Linux parses the timestamp option before tcp_ack; TSecr comes
            // back less this end's own offset.
            self.tp.rcv_tsval = ((p.ack_sent / MS) as u32).wrapping_add(self.ts_offset);
            self.tp.rcv_tsecr = (p.ts / MS) as u32;
        }
        if !self.active() || p.seq > self.snd_nxt || p.seq < self.snd_una {
            return; // stale or impossible
        }
        self.tp.now_us = now / US;
        let prior = Prior {
            in_flight: self.tp.packets_in_flight(),
            lost: self.tp.lost,
            delivered: self.tp.delivered,
            una: self.snd_una,
            fack: self.highest_sack_seq(),
        };

        // Before the hooks: snd_una advances and SACKs are tagged.
        let ack = self.tag(p, &prior, now);

        // 1. in_ack_event, before the RTT estimator takes the ACK's sample
        // (Linux's tcp_in_ack_event precedes tcp_clean_rtx_queue).
        let ece = self.ecn.echo(p);
        if ece {
            // Linux tcp_count_delivered: what an ECE ACK delivers counts as CE.
            self.tp.delivered_ce = self.tp.delivered_ce.wrapping_add(ack.delivered);
        }
        let mut flags = if p.nsack > 0 || ack.pkts == 0 || ece {
            CA_ACK_SLOWPATH
        } else {
            0
        };
        if ece {
            flags |= CA_ACK_ECE;
        }
        self.cc.in_ack_event(&mut self.tp, flags);

        // 2. The RTT estimator, then pkts_acked.
        let rtt = self.ack_rtt(p, &ack, now);
        let rtt_us = rtt.map_or(-1, |r| (r / US).clamp(1, i32::MAX as u64) as i32);
        let in_flight = self.ack_in_flight();
        self.cc.pkts_acked(
            &mut self.tp,
            &AckSample {
                pkts_acked: ack.pkts,
                rtt_us,
                in_flight,
            },
        );

        // 3. Loss detection and the recovery state machine (Linux `tcp_fastretrans_alert`).
        if self.rack_on {
            self.rack_update_reo_wnd(prior.delivered);
        }
        if self.tlp_high_seq.is_some() {
            self.process_tlp_ack(p.seq, ack.fl);
        }
        let reo_armed = self.recovery_state_machine(p, prior.una, ack.fl, ece, now, w);

        // 4. The rate sample (Linux `tcp_rate_gen`), then the window: the
        // algorithm's cong_control, the reduction, or growth (`tcp_cong_control`).
        let rs = self.rate_gen(&ack, &prior, rtt_us, ece);
        self.cong_control(&ack, &rs);

        // After the hooks: completion, the retransmission timer, transmission.
        if ack.pkts > 0 {
            // Done: a finite transfer fully acknowledged, or a stopped flow drained.
            if self.snd_una >= self.total_segs || (self.stopped && self.snd_una == self.snd_nxt) {
                self.done_at = Some(now);
                self.rto_timer.cancel();
                self.pace_timer.cancel();
                self.account_slow_start(now);
                return;
            }
            self.set_xmit_timer(reo_armed, now, w);
        } else if self.rto_every_ack {
            self.restart_rto(now, w);
        }
        self.try_send(w);
        self.account_slow_start(now);
    }

    /// itself, outside the hooks (see [`crate::tcp::cc_log`]).
    #[inline]
    pub fn settle_log(&mut self, now: Time) {
        self.cc.settle(&self.tp, now / US);
    }

    /// Accumulate time in slow start up to `now`, then re-evaluate.
    pub fn account_slow_start(&mut self, now: Time) {
        if self.ss_on {
            self.counters.slow_start_time += now - self.ss_since;
        }
        self.ss_since = now;
        self.ss_on = self.active()
            && !self.stopped
            && self.tp.in_slow_start()
            && self.tp.ca_state != CaState::Recovery;
    }

    /// The reordering degree the sender assumes, segments (Linux `tp->reordering`).
    pub fn reordering(&self) -> u32 {
        self.reordering
    }

    /// Segments in flight (Linux `tcp_packets_in_flight`).
    pub fn in_flight(&self) -> u32 {
        self.tp.packets_in_flight()
    }
}

/// Uniform on [min, max] (one draw even when min = max, so later draws do not shift).
fn draw_uniform(rng: &mut Rng, min: Time, max: Time) -> Time {
    let u: u64 = rng.random();
    if max <= min {
        return min;
    }
    let span = max - min;
    if span == u64::MAX {
        return u;
    }
    // Lemire's multiply-shift: unbiased enough for spans far below 2^64 (bias < span / 2^64).
    min + ((u as u128 * (span as u128 + 1)) >> 64) as u64
}
