//! TCP sender.
//!
//! Per ACK the sender follows Linux's `tcp_ack()` and calls the congestion
//! control in the order documented in [`hscc_cc::ops`]:
//! cumulative ACK and SACK processing → RTT estimator → `in_ack_event` and
//! `pkts_acked` → loss marking and the recovery state machine (`ssthresh`,
//! `set_state`, `cwnd_event`) → window: PRR or classic reduction in recovery,
//! otherwise `cong_control` or `cong_avoid` when data was cumulatively
//! acknowledged → transmission.
//!
//! Loss detection:
//! - SACK (RFC 6675 §4 `IsLost`): an un-SACKed segment is lost once at least
//!   DupThresh = 3 segments above it are SACKed. Recovery starts when a
//!   segment is marked lost; lost segments are retransmitted first
//!   (`NextSeg` rule 1), then new data (rule 2). Rescue retransmission
//!   (rule 4) is not modeled; a lost retransmission is recovered by the RTO.
//! - NewReno (RFC 6582): duplicate ACKs are counted in `sacked_out` as
//!   Linux's Reno emulation does; the third marks the head lost; a partial
//!   ACK marks the new head lost; recovery ends when `high_seq` is acked.
//!
//! Window during recovery: PRR exactly as Linux's `tcp_cwnd_reduction`
//! (RecoverFS = prior_cwnd, PRR-SSRB), or classic: cwnd = ssthresh at entry.
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
//! `docs/fairness.md`). The RTT and TSval are the TCP layer's send time.
//!
//! ECN (RFC 3168, when the flow has it on): an ACK with ECE in Open or
//! Disorder enters the CWR state (Linux `tcp_enter_cwr`: `ssthresh()` once,
//! then PRR down to it, or at once with classic reduction), which ends when
//! data above the point of the reduction is acknowledged; an echo during a
//! reduction changes nothing (once per window), and a loss during CWR enters
//! recovery without a second `ssthresh()`. `in_ack_event` gets `CA_ACK_ECE`
//! (and `CA_ACK_SLOWPATH`: Linux's header prediction fails on ECE). The
//! segment flags are in [`super::ecn`].
//!
//! Not modeled: undo of spurious reductions (no DSACK/Eifel detection),
//! RACK, tail loss probes.

use std::collections::VecDeque;

use hscc_cc::{AckSample, CaEvent, CaState, Cc, RateSample, TcpCc, CA_ACK_ECE, CA_ACK_SLOWPATH, TCP_INFINITE_SSTHRESH};

use crate::config::{AckCounting, DelayDist, FlowConfig, Recovery};
use crate::event::{Event, EventQueue, Timer};
use crate::packet::{Packet, HEADER_BYTES, RETRANS as RETRANS_FLAG, SLOW_START};
use crate::rng::Rng;
use crate::stats::FlowCounters;
use rand::Rng as _;
use crate::tcp::ecn::EcnSender;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::work;
use crate::time::{Time, SEC, US};

const SACKED: u8 = 1;
const LOST: u8 = 2;
const RETRANS: u8 = 4; // retransmitted and still outstanding
const EVER_RETRANS: u8 = 8;
const DUP_THRESH: u64 = 3;

/// Scoreboard entry of one outstanding segment.
#[derive(Clone, Copy, Debug)]
struct Seg {
    tx_time: Time,
    flags: u8,
}

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
}

/// Sender state of one flow.
#[derive(Clone, Debug)]
pub struct Sender {
    id: u32,
    /// The congestion-control algorithm.
    pub cc: Cc,
    /// The view of sender state the algorithm sees.
    pub tp: TcpCc,
    mss: u32,
    sack: bool,
    prr: bool,
    timestamps: bool,
    pacing: bool,
    init_cwnd: u32,
    rwnd_segs: u64,
    total_segs: u64,
    last_payload: u32,
    snd_una: u64,
    snd_nxt: u64,
    sb: VecDeque<Seg>,
    high_seq: u64,
    lost_scan: u64,
    retx_hint: u64,
    to_retx: u32,
    /// The DupThresh highest SACKed segments plus one, highest first (0: none).
    top_sacked: [u64; DUP_THRESH as usize],
    sack_cache: [(u64, u64); 3],
    /// RFC 6298 estimator.
    pub rtt: RttEstimator,
    backoff: u32,
    /// Retransmission timer.
    pub rto_timer: Timer,
    /// Pacing timer.
    pub pace_timer: Timer,
    next_send: Time,
    last_send: Time,
    prr_delivered: u32,
    prr_out: u32,
    force_retx: bool,
    cwnd_usage_seq: u64,
    started: bool,
    stopped: bool,
    /// When the last byte was acknowledged (finite transfer complete, or a stopped flow drained).
    pub done_at: Option<Time>,
    ss_on: bool,
    ss_since: Time,
    /// Bound of the per-packet host processing delay (0: none).
    jitter: Time,
    /// The flow's random stream (per-packet host jitter).
    rng: Rng,
    /// When the last segment reaches the first link (later ones never overtake it).
    last_out: Time,
    /// Delay after `FlowConfig::start` at which the flow starts (drawn once).
    pub start_offset: Time,
    /// One-way access delay of this connection (drawn once), both directions.
    pub access_delay: Time,
    ack_counting: AckCounting,
    /// ECN: whether on, and CWR due.
    ecn: EcnSender,
    /// Counters.
    pub counters: FlowCounters,
}

impl Sender {
    /// A sender for flow `id`. `rng` is the flow's own random stream: the
    /// start-up offset and the access delay are drawn from it first (always
    /// both, so that turning one knob does not shift the other's draw), then
    /// the per-packet host jitter.
    pub fn new(id: u32, cfg: &FlowConfig, mut rng: Rng) -> Sender {
        let start_offset = draw_uniform(&mut rng, 0, cfg.start_jitter);
        let access_delay = match cfg.access_delay {
            DelayDist::Fixed(d) => {
                let _ = draw_uniform(&mut rng, 0, 0);
                d
            }
            DelayDist::Uniform { min, max } => draw_uniform(&mut rng, min, max),
        };
        let mut tp = TcpCc::new(cfg.mss, cfg.init_cwnd);
        if let Some(w) = cfg.rwnd {
            tp.snd_cwnd_clamp = (w / cfg.mss as u64).clamp(1, u32::MAX as u64 / 2) as u32;
        }
        if let Some(s) = cfg.init_ssthresh {
            // Before `init`: an algorithm's own initial ssthresh (CUBIC, BIC) wins,
            // as in Linux, where route metrics are applied before the CA's init.
            tp.snd_ssthresh = s;
        }
        let mut cc = Cc::new(&cfg.cc);
        cc.init(&mut tp);
        let (total_segs, last_payload) = match cfg.size {
            Some(s) => (s.div_ceil(cfg.mss as u64), (s - (s.div_ceil(cfg.mss as u64) - 1) * cfg.mss as u64) as u32),
            None => (u64::MAX, cfg.mss),
        };
        Sender {
            id,
            cc,
            tp,
            mss: cfg.mss,
            sack: cfg.sack,
            prr: cfg.recovery == Recovery::Prr,
            timestamps: cfg.timestamps,
            pacing: cfg.pacing,
            init_cwnd: cfg.init_cwnd,
            rwnd_segs: cfg.rwnd.map_or(u64::MAX, |w| (w / cfg.mss as u64).max(1)),
            total_segs,
            last_payload,
            snd_una: 0,
            snd_nxt: 0,
            sb: VecDeque::new(),
            high_seq: 0,
            lost_scan: 0,
            retx_hint: 0,
            to_retx: 0,
            top_sacked: [0; DUP_THRESH as usize],
            sack_cache: [(0, 0); 3],
            rtt: RttEstimator::new(cfg.min_rto, cfg.initial_rto),
            backoff: 0,
            rto_timer: Timer::default(),
            pace_timer: Timer::default(),
            next_send: 0,
            last_send: 0,
            prr_delivered: 0,
            prr_out: 0,
            force_retx: false,
            cwnd_usage_seq: 0,
            started: false,
            stopped: false,
            done_at: None,
            ss_on: false,
            ss_since: 0,
            jitter: cfg.host_jitter,
            rng,
            last_out: 0,
            start_offset,
            access_delay,
            ack_counting: cfg.ack_counting,
            ecn: EcnSender::new(cfg.ecn),
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
        self.try_send(w);
        self.account_slow_start(w.now());
    }

    /// Stop sending new data (data in flight is still recovered).
    pub fn stop(&mut self, w: &mut impl Wire) {
        self.stopped = true;
        if self.started && self.tp.packets_out == 0 && self.done_at.is_none() {
            self.done_at = Some(w.now());
        }
        self.account_slow_start(w.now());
    }

    #[inline]
    fn seq_bytes(&self, seg: u64) -> u32 {
        (seg as u32).wrapping_mul(self.mss)
    }

    #[inline]
    fn sync_tp(&mut self) {
        self.tp.snd_una = self.seq_bytes(self.snd_una);
        self.tp.snd_nxt = self.seq_bytes(self.snd_nxt);
    }

    #[inline]
    fn set_state(&mut self, s: CaState) {
        if self.tp.ca_state != s {
            self.cc.set_state(&mut self.tp, s);
            self.tp.ca_state = s;
        }
    }

    /// Process an ACK arriving at `now`.
    pub fn on_ack(&mut self, p: &Packet, w: &mut impl Wire) {
        let now = w.now();
        if !self.active() || p.seq > self.snd_nxt || p.seq < self.snd_una {
            return; // stale or impossible
        }
        self.tp.now_us = now / US;
        let prior_in_flight = self.tp.packets_in_flight();
        let prior_lost = self.tp.lost;
        let mut newest_tx: Option<Time> = None;
        let mut delivered = 0u32;

        // 1. Cumulative acknowledgement.
        let pkts_acked = (p.seq - self.snd_una) as u32;
        work::step(pkts_acked as u64);
        for _ in 0..pkts_acked {
            let s = self.sb.pop_front().expect("scoreboard covers snd_una..snd_nxt");
            if s.flags & SACKED != 0 {
                self.tp.sacked_out -= 1;
            } else {
                delivered += 1;
                if s.flags & EVER_RETRANS == 0 {
                    newest_tx = newest_tx.max(Some(s.tx_time));
                }
            }
            if s.flags & LOST != 0 {
                self.tp.lost_out -= 1;
                if s.flags & RETRANS == 0 {
                    self.to_retx -= 1;
                }
            }
            if s.flags & RETRANS != 0 {
                self.tp.retrans_out -= 1;
            }
        }
        if pkts_acked > 0 {
            self.snd_una = p.seq;
            self.tp.packets_out -= pkts_acked;
            if !self.sack {
                // Linux tcp_remove_reno_sacks: one ACK fills the hole, the rest eat duplicate ACKs.
                self.tp.sacked_out = self.tp.sacked_out.saturating_sub(pkts_acked - 1);
            }
        }

        // 2. SACK blocks, skipping ranges already processed for the previous ACK.
        if self.sack && p.nsack > 0 {
            let mut cache = [(0u64, 0u64); 3];
            for (i, &(a, b)) in p.sack[..p.nsack as usize].iter().enumerate() {
                let (start, end) = (p.seq + a as u64, p.seq + b as u64);
                cache[i] = (start, end);
                if self.sack_cache.contains(&(start, end)) {
                    continue; // reported unchanged: the common case, skip the subtraction
                }
                let clipped = (start.max(self.snd_una), end.min(self.snd_nxt));
                for (s, e) in subtract(clipped, &self.sack_cache) {
                    if s < e {
                        self.sack_range(s, e, &mut delivered, &mut newest_tx);
                    }
                }
            }
            self.sack_cache = cache;
        } else if !self.sack && pkts_acked == 0 && self.tp.packets_out > 0 {
            // A duplicate ACK: Linux's Reno emulation counts it as a SACKed segment.
            if self.tp.sacked_out + 1 < self.tp.packets_out {
                self.tp.sacked_out += 1;
                delivered += 1;
            }
        }

        // 3. RTT sample: newest newly acked segment never retransmitted (Karn), else TSecr.
        let rtt = match newest_tx {
            Some(t) => Some(now - t),
            None if self.timestamps && (pkts_acked > 0 || delivered > 0) && p.ts > 0 => Some(now - p.ts),
            None => None,
        };
        if let Some(r) = rtt {
            self.rtt.sample(r);
            self.backoff = 0;
            self.tp.srtt_us = ((self.rtt.srtt() * 8) / US).min(u32::MAX as u64) as u32;
            self.tp.min_rtt_us = (self.rtt.min_rtt / US).min(u32::MAX as u64 - 1) as u32;
        }
        self.tp.delivered = self.tp.delivered.wrapping_add(delivered);
        self.sync_tp();

        // 4. Hooks: in_ack_event, then pkts_acked.
        let ece = self.ecn.echo(p);
        let mut flags = if p.nsack > 0 || pkts_acked == 0 || ece { CA_ACK_SLOWPATH } else { 0 };
        if ece {
            flags |= CA_ACK_ECE;
        }
        self.cc.in_ack_event(&mut self.tp, flags);
        let rtt_us = rtt.map_or(-1, |r| (r / US).clamp(1, i32::MAX as u64) as i32);
        self.cc.pkts_acked(&mut self.tp, &AckSample { pkts_acked, rtt_us, in_flight: prior_in_flight });

        // 5. Loss marking and the recovery state machine.
        if self.sack {
            self.mark_lost_sack();
        } else if self.tp.ca_state == CaState::Recovery && pkts_acked > 0 && self.snd_una < self.high_seq {
            // NewReno partial ACK: retransmit the next hole at once (RFC 6582 §3.2 step 3).
            self.mark_head_lost();
            self.force_retx = true;
        } else if self.tp.sacked_out as u64 >= DUP_THRESH && self.tp.ca_state < CaState::Recovery {
            self.mark_head_lost();
        }
        let newly_lost = self.tp.lost.wrapping_sub(prior_lost);
        self.state_machine(ece);

        // 6. Window.
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr) {
            if self.prr {
                self.prr_reduction(delivered, pkts_acked > 0, newly_lost > 0);
            }
        } else {
            let rs = RateSample {
                delivered: delivered as i32,
                interval_us: -1,
                rtt_us: rtt_us as i64,
                losses: newly_lost,
                acked_sacked: delivered,
                prior_in_flight,
                is_app_limited: self.tp.app_limited,
            };
            if !self.cc.cong_control(&mut self.tp, &rs) && pkts_acked > 0 {
                let ack = self.tp.snd_una;
                let acked = match self.ack_counting {
                    AckCounting::Segments => delivered,
                    AckCounting::Acks => 1,
                };
                self.cc.cong_avoid(&mut self.tp, ack, acked);
            }
        }
        self.tp.snd_cwnd = self.tp.snd_cwnd.max(1);

        // 7. Timer, completion, transmission.
        if pkts_acked > 0 {
            // Done: a finite transfer fully acknowledged, or a stopped flow drained.
            if self.snd_una >= self.total_segs || (self.stopped && self.snd_una == self.snd_nxt) {
                self.done_at = Some(now);
                self.rto_timer.cancel();
                self.pace_timer.cancel();
                self.account_slow_start(now);
                return;
            }
            if self.tp.packets_out > 0 {
                let rto = self.rtt.rto(self.backoff);
                self.rto_timer.arm(now + rto, w.queue(), Event::Rto(self.id));
            } else {
                self.rto_timer.cancel();
            }
        }
        self.try_send(w);
        self.account_slow_start(now);
    }

    fn sack_range(&mut self, start: u64, end: u64, delivered: &mut u32, newest_tx: &mut Option<Time>) {
        work::step(end - start);
        for seq in start..end {
            let s = &mut self.sb[(seq - self.snd_una) as usize];
            if s.flags & SACKED != 0 {
                continue;
            }
            s.flags |= SACKED;
            self.tp.sacked_out += 1;
            *delivered += 1;
            if s.flags & LOST != 0 {
                s.flags &= !LOST;
                self.tp.lost_out -= 1;
                if s.flags & RETRANS == 0 {
                    self.to_retx -= 1;
                }
            }
            if s.flags & RETRANS != 0 {
                s.flags &= !RETRANS;
                self.tp.retrans_out -= 1;
            }
            if s.flags & EVER_RETRANS == 0 {
                *newest_tx = (*newest_tx).max(Some(s.tx_time));
            }
            self.note_sacked(seq);
        }
    }

    /// Keep `top_sacked` as segments are SACKed: a segment is SACKed once and
    /// stays SACKed until it is cumulatively acknowledged, so the list only
    /// ever takes higher entries.
    fn note_sacked(&mut self, seq: u64) {
        let v = seq + 1;
        if let Some(i) = self.top_sacked.iter().position(|&t| v > t) {
            self.top_sacked.copy_within(i..DUP_THRESH as usize - 1, i + 1);
            self.top_sacked[i] = v;
        }
    }

    /// RFC 6675 IsLost: every un-SACKed segment below the third-highest SACKed one is lost.
    /// That segment comes from `top_sacked` instead of a walk down the scoreboard, which
    /// a long hole below fewer than three SACKed segments made O(window) per ACK; an
    /// entry below snd_una is also below `lost_scan` and marks nothing.
    fn mark_lost_sack(&mut self) {
        self.lost_scan = self.lost_scan.max(self.snd_una);
        let threshold = self.top_sacked[DUP_THRESH as usize - 1].saturating_sub(1);
        if threshold <= self.lost_scan {
            return;
        }
        work::step(threshold - self.lost_scan);
        for seq in self.lost_scan..threshold {
            self.mark_lost(seq);
        }
        self.lost_scan = threshold;
    }

    fn mark_head_lost(&mut self) {
        self.mark_lost(self.snd_una);
    }

    fn mark_lost(&mut self, seq: u64) {
        let s = &mut self.sb[(seq - self.snd_una) as usize];
        if s.flags & (SACKED | LOST | RETRANS) != 0 {
            return;
        }
        s.flags |= LOST;
        self.tp.lost_out += 1;
        self.tp.lost = self.tp.lost.wrapping_add(1);
        self.to_retx += 1;
        self.retx_hint = self.retx_hint.min(seq);
        self.counters.lost_fast += 1;
    }

    /// `ece`: the ACK echoed a CE mark.
    fn state_machine(&mut self, ece: bool) {
        let done = self.snd_una >= self.high_seq;
        match self.tp.ca_state {
            CaState::Recovery if done => {
                // Linux tcp_end_cwnd_reduction, then tcp_try_to_open.
                if self.tp.snd_ssthresh < TCP_INFINITE_SSTHRESH {
                    self.tp.snd_cwnd = self.tp.snd_ssthresh;
                }
                self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
                self.set_open();
            }
            CaState::Loss if done => self.set_open(),
            // Held until data above high_seq is acknowledged, so that CWR has
            // reached the receiver (Linux `tcp_fastretrans_alert`).
            CaState::Cwr if self.snd_una > self.high_seq => self.end_cwr(),
            _ => {}
        }
        if self.tp.ca_state <= CaState::Cwr {
            if self.tp.lost_out > 0 {
                self.enter_recovery();
            } else if self.tp.ca_state == CaState::Cwr {
                // Still reducing: an echo now changes nothing.
            } else if ece {
                self.enter_cwr();
            } else if self.tp.sacked_out > 0 {
                self.set_state(CaState::Disorder);
            } else {
                self.set_state(CaState::Open);
            }
        }
    }

    fn set_open(&mut self) {
        if !self.sack {
            self.tp.sacked_out = 0;
        }
        let next = if self.tp.sacked_out > 0 { CaState::Disorder } else { CaState::Open };
        self.set_state(next);
    }

    /// Linux `tcp_enter_recovery`: a reduction already under way for ECN
    /// (CWR) continues instead of starting again (`tcp_in_cwnd_reduction`).
    fn enter_recovery(&mut self) {
        self.counters.recoveries += 1;
        if self.tp.ca_state != CaState::Cwr {
            self.init_cwnd_reduction();
        }
        self.set_state(CaState::Recovery);
        if !self.prr {
            self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
            self.force_retx = true; // RFC 6675 §5 step 4.3 / RFC 6582 §3.2 step 2
        }
    }

    /// Linux `tcp_init_cwnd_reduction` (its `snd_cwnd_cnt = 0` only on the ECN path, [`Sender::enter_cwr`]).
    fn init_cwnd_reduction(&mut self) {
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.high_seq = self.snd_nxt;
        self.ecn.queue_cwr();
    }

    /// Linux `tcp_enter_cwr`: an ECN echo in Open or Disorder reduces the
    /// window once (RFC 3168 §6.1.2), by PRR or, classic, to ssthresh at once.
    fn enter_cwr(&mut self) {
        self.counters.ecn_reductions += 1;
        self.tp.snd_cwnd_cnt = 0;
        self.init_cwnd_reduction();
        self.set_state(CaState::Cwr);
        if !self.prr {
            self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
        }
    }

    /// Linux `tcp_end_cwnd_reduction` leaving CWR, then `tcp_set_ca_state(Open)`.
    fn end_cwr(&mut self) {
        if self.tp.snd_ssthresh < TCP_INFINITE_SSTHRESH {
            self.tp.snd_cwnd = self.tp.snd_ssthresh;
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        self.set_state(CaState::Open);
    }

    /// Linux `tcp_cwnd_reduction` (RFC 6937 with RecoverFS = prior_cwnd).
    fn prr_reduction(&mut self, newly_acked_sacked: u32, una_advanced: bool, newly_lost: bool) {
        if newly_acked_sacked == 0 || self.tp.prior_cwnd == 0 {
            return;
        }
        let in_flight = self.tp.packets_in_flight() as i64;
        let ssthresh = self.tp.snd_ssthresh as i64;
        self.prr_delivered += newly_acked_sacked;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            let dividend = ssthresh as u64 * self.prr_delivered as u64 + self.tp.prior_cwnd as u64 - 1;
            (dividend / self.tp.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else {
            let mut s = (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64);
            if una_advanced && !newly_lost {
                s += 1;
            }
            s.min(delta)
        };
        // Force a fast retransmit upon entering fast recovery.
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.tp.snd_cwnd = (in_flight + sndcnt).clamp(1, u32::MAX as i64) as u32;
    }

    /// Retransmission timer expired at `now` (Linux `tcp_enter_loss`).
    pub fn on_rto(&mut self, w: &mut impl Wire) {
        let now = w.now();
        if !self.active() || self.tp.packets_out == 0 {
            return;
        }
        self.tp.now_us = now / US;
        self.counters.timeouts += 1;
        if self.tp.ca_state != CaState::Loss {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.cc.ssthresh(&mut self.tp);
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        // Every un-SACKed outstanding segment is lost; retransmissions are forgotten.
        work::step(self.sb.len() as u64);
        for i in 0..self.sb.len() {
            let s = &mut self.sb[i];
            if s.flags & SACKED == 0 && s.flags & LOST == 0 {
                s.flags |= LOST;
                self.tp.lost_out += 1;
                self.tp.lost = self.tp.lost.wrapping_add(1);
            }
            s.flags &= !RETRANS;
        }
        self.tp.retrans_out = 0;
        if !self.sack {
            self.tp.sacked_out = 0;
        }
        self.to_retx = self.tp.lost_out;
        self.retx_hint = self.snd_una;
        self.lost_scan = self.snd_nxt;
        self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.high_seq = self.snd_nxt;
        self.ecn.queue_cwr(); // Linux tcp_enter_loss: tcp_ecn_queue_cwr
        self.set_state(CaState::Loss);
        self.backoff += 1;
        let rto = self.rtt.rto(self.backoff);
        self.rto_timer.arm(now + rto, w.queue(), Event::Rto(self.id));
        self.try_send(w);
        self.account_slow_start(now);
    }

    /// Pacing timer expired.
    pub fn on_pace(&mut self, w: &mut impl Wire) {
        if self.active() {
            self.try_send(w);
        }
    }

    /// Current pacing rate in bytes/s (0 = no pacing).
    fn pacing_rate(&self) -> u64 {
        if self.tp.pacing_rate > 0 {
            return self.tp.pacing_rate;
        }
        let srtt_us = self.tp.srtt() as u64;
        if !self.pacing || srtt_us == 0 {
            return 0;
        }
        // Linux tcp_update_pacing_rate: 200% in slow start's first half, 120% after.
        let ratio = if self.tp.snd_cwnd < self.tp.snd_ssthresh / 2 { 200 } else { 120 };
        let w = self.tp.snd_cwnd.max(self.tp.packets_out) as u64;
        self.mss as u64 * w * ratio * 10_000 / srtt_us
    }

    fn next_retx(&mut self) -> Option<u64> {
        let end = self.snd_una + self.sb.len() as u64;
        let mut seq = self.retx_hint.max(self.snd_una);
        while seq < end {
            work::step(1);
            let f = self.sb[(seq - self.snd_una) as usize].flags;
            if f & LOST != 0 && f & RETRANS == 0 {
                self.retx_hint = seq + 1;
                return Some(seq);
            }
            seq += 1;
        }
        self.retx_hint = end;
        None
    }

    fn can_send_new(&self) -> bool {
        !self.stopped && self.snd_nxt < self.total_segs && self.snd_nxt < self.snd_una.saturating_add(self.rwnd_segs)
    }

    /// Send what cwnd, the receiver window and pacing allow.
    pub fn try_send(&mut self, w: &mut impl Wire) {
        let now = w.now();
        let mut sent = 0u32;
        loop {
            let rate = self.pacing_rate();
            if rate > 0 && self.next_send > now {
                self.pace_timer.arm(self.next_send, w.queue(), Event::Pace(self.id));
                break;
            }
            let forced = self.force_retx && self.to_retx > 0;
            self.force_retx = false;
            if self.tp.packets_in_flight() >= self.tp.snd_cwnd && !forced {
                break;
            }
            let retx = if self.to_retx > 0 { self.next_retx() } else { None };
            let seq = match retx {
                Some(s) => s,
                None if self.can_send_new() => self.snd_nxt,
                None => {
                    self.tp.app_limited = true;
                    break;
                }
            };
            if self.tp.packets_out == 0 {
                self.restart_after_idle(now);
            }
            self.transmit(seq, retx.is_some(), now, w);
            sent += 1;
            if let Some(gap) = (self.wire_size(seq) as u64 * SEC).checked_div(rate) {
                self.next_send = self.next_send.max(now) + gap;
            }
        }
        // Linux tcp_cwnd_validate.
        let limited = self.tp.packets_in_flight() >= self.tp.snd_cwnd;
        if sent > 0 || limited {
            if limited {
                self.tp.app_limited = false;
            }
            if self.snd_una >= self.cwnd_usage_seq || limited || (!self.tp.is_cwnd_limited && self.tp.packets_out > self.tp.max_packets_out) {
                self.tp.is_cwnd_limited = limited;
                self.tp.max_packets_out = self.tp.packets_out;
                self.cwnd_usage_seq = self.snd_nxt;
            }
        }
    }

    /// RFC 5681 §4.1 / Linux `tcp_cwnd_restart`: after an idle period longer
    /// than the RTO, halve cwnd per RTO idle, down to the initial window.
    fn restart_after_idle(&mut self, now: Time) {
        self.tp.now_us = now / US;
        if self.counters.segs_sent > 0 {
            let rto = self.rtt.rto(0);
            let mut idle = now.saturating_sub(self.last_send);
            if idle > rto {
                self.cc.cwnd_event(&mut self.tp, CaEvent::CwndRestart);
                let restart = self.init_cwnd.min(self.tp.snd_cwnd);
                let mut cwnd = self.tp.snd_cwnd;
                while idle > rto && cwnd > restart {
                    idle -= rto;
                    cwnd >>= 1;
                }
                self.tp.snd_cwnd = cwnd.max(restart);
            }
        }
        self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
    }

    fn wire_size(&self, seq: u64) -> u32 {
        let payload = if seq + 1 == self.total_segs { self.last_payload } else { self.mss };
        payload + HEADER_BYTES
    }

    fn transmit(&mut self, seq: u64, retrans: bool, now: Time, w: &mut impl Wire) {
        if retrans {
            // Never retransmit what the receiver has cumulatively acknowledged.
            debug_assert!(seq >= self.snd_una && seq < self.snd_nxt);
            let s = &mut self.sb[(seq - self.snd_una) as usize];
            s.flags |= RETRANS | EVER_RETRANS;
            s.tx_time = now;
            self.tp.retrans_out += 1;
            self.to_retx -= 1;
            self.counters.retrans += 1;
        } else {
            self.sb.push_back(Seg { tx_time: now, flags: 0 });
            self.snd_nxt += 1;
            self.tp.packets_out += 1;
            self.tp.snd_nxt = self.seq_bytes(self.snd_nxt);
        }
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr) {
            self.prr_out += 1;
        }
        self.counters.segs_sent += 1;
        self.last_send = now;
        if !self.rto_timer.armed() {
            let rto = self.rtt.rto(self.backoff);
            self.rto_timer.arm(now + rto, w.queue(), Event::Rto(self.id));
        }
        let ts = if self.timestamps { now } else { 0 };
        let mut flags = (if retrans { RETRANS_FLAG } else { 0 }) | self.ecn.data_flags(retrans);
        if self.tp.in_slow_start() && self.tp.ca_state <= CaState::Disorder {
            flags |= SLOW_START;
        }
        let mut at = now;
        if self.jitter | self.access_delay != 0 {
            at += self.access_delay;
            if self.jitter > 0 {
                at += self.rng.random_range(0..=self.jitter);
            }
            // Never before an earlier segment: the host hands segments over in order.
            at = at.max(self.last_out);
            self.last_out = at;
        }
        w.send(Packet::data(self.id, seq, self.wire_size(seq), ts, flags), at);
    }

    /// Accumulate time in slow start up to `now`, then re-evaluate.
    pub fn account_slow_start(&mut self, now: Time) {
        if self.ss_on {
            self.counters.slow_start_time += now - self.ss_since;
        }
        self.ss_since = now;
        self.ss_on = self.active() && !self.stopped && self.tp.in_slow_start() && self.tp.ca_state != CaState::Recovery;
    }

    /// Segments in flight (Linux `tcp_packets_in_flight`).
    pub fn in_flight(&self) -> u32 {
        self.tp.packets_in_flight()
    }

    /// Check the scoreboard counters against the per-segment flags (for tests).
    pub fn check_scoreboard(&self) -> Result<(), String> {
        let (mut sacked, mut lost, mut retrans, mut pending) = (0, 0, 0, 0);
        for s in &self.sb {
            sacked += (s.flags & SACKED != 0) as u32;
            lost += (s.flags & LOST != 0) as u32;
            retrans += (s.flags & RETRANS != 0) as u32;
            pending += (s.flags & LOST != 0 && s.flags & RETRANS == 0) as u32;
        }
        let tp = &self.tp;
        let sacked_ok = if self.sack { sacked == tp.sacked_out } else { sacked == 0 };
        if !sacked_ok || lost != tp.lost_out || retrans != tp.retrans_out || pending != self.to_retx
            || self.sb.len() as u64 != self.snd_nxt - self.snd_una || tp.packets_out as u64 != self.snd_nxt - self.snd_una
        {
            return Err(format!(
                "scoreboard mismatch: flags (sacked {sacked}, lost {lost}, retrans {retrans}, to_retx {pending}) vs counters ({}, {}, {}, {}), packets_out {} window {}",
                tp.sacked_out, tp.lost_out, tp.retrans_out, self.to_retx, tp.packets_out, self.snd_nxt - self.snd_una
            ));
        }
        Ok(())
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

/// `range` minus every interval of `cut`: at most four pieces, some empty.
fn subtract(range: (u64, u64), cut: &[(u64, u64); 3]) -> [(u64, u64); 4] {
    let mut pieces = [range, (0, 0), (0, 0), (0, 0)];
    for &(cs, ce) in cut {
        if ce <= range.0 || cs >= range.1 {
            continue; // misses every piece: the usual case, no copy
        }
        let mut out = [(0, 0); 4];
        let mut m = 0;
        for &(ps, pe) in pieces.iter().filter(|(a, b)| a < b) {
            if ce <= ps || cs >= pe {
                out[m] = (ps, pe);
                m += 1;
                continue;
            }
            if ps < cs {
                out[m] = (ps, cs);
                m += 1;
            }
            if ce < pe {
                out[m] = (ce, pe);
                m += 1;
            }
        }
        pieces = out;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use hscc_cc::{CaState, CcParams};

    use super::{subtract, Sender, Wire};
    use crate::config::FlowConfig;
    use crate::event::EventQueue;
    use crate::packet::Packet;
    use crate::rng::{component_rng, Component};
    use crate::tcp::work;
    use crate::time::{Time, MS};

    /// Drops what is sent; keeps the timers.
    #[derive(Default)]
    struct NullWire {
        now: Time,
        q: EventQueue,
    }

    impl Wire for NullWire {
        fn now(&self) -> Time {
            self.now
        }
        fn queue(&mut self) -> &mut EventQueue {
            &mut self.q
        }
        fn send(&mut self, _: Packet, _: Time) {}
    }

    fn ack(seq: u64, sack: &[(u64, u64)]) -> Packet {
        let mut p = Packet::ack(0, seq, 52, 0);
        for (i, &(a, b)) in sack.iter().enumerate() {
            p.sack[i] = ((a - seq) as u32, (b - seq) as u32);
        }
        p.nsack = sack.len() as u8;
        p
    }

    #[test]
    fn sack_loss_marking_does_not_walk_a_long_hole_on_every_ack() {
        const W: u64 = 80_000;
        let mut cfg = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
        cfg.init_cwnd = W as u32;
        let mut s = Sender::new(0, &cfg, component_rng(1, Component::Sender, 0));
        let mut w = NullWire::default();
        s.start(&mut w);
        w.now = 100 * MS;
        // 10 and the top two arrive: 0..10 lie below three SACKed segments and
        // are lost; 11..W-2 lie below only two, so they are not (yet).
        let blocks = [(10, 11), (W - 2, W)];
        s.on_ack(&ack(0, &blocks), &mut w);
        assert_eq!((s.tp.ca_state, s.tp.lost_out), (CaState::Recovery, 10));
        work::take();
        // Retransmissions of 0..10 are acknowledged, then duplicate ACKs follow.
        for una in (1..=9).chain([11; 20]) {
            s.on_ack(&ack(una, &blocks[(una > 10) as usize..]), &mut w);
        }
        assert_eq!((s.snd_una(), s.tp.lost_out), (11, 0));
        s.check_scoreboard().unwrap();
        // Scanning down from the highest SACK for the third one took ~W per ACK
        // (2.3 million entries here); now it is about one per ACK.
        let steps = work::take();
        assert!(steps <= 4 * 29, "{steps} scoreboard entries visited for 29 ACKs");
    }

    #[test]
    fn subtract_leaves_only_uncovered_pieces() {
        let p = subtract((10, 30), &[(12, 15), (20, 25), (0, 0)]);
        let mut v: Vec<_> = p.iter().copied().filter(|(a, b)| a < b).collect();
        v.sort();
        assert_eq!(v, vec![(10, 12), (15, 20), (25, 30)]);
        let p = subtract((10, 20), &[(5, 25), (0, 0), (0, 0)]);
        assert!(p.iter().all(|(a, b)| a >= b));
    }
}
