//! The congestion state machine (Linux `tcp_fastretrans_alert`,
//! `tcp_enter_recovery`, `tcp_enter_cwr`, `tcp_enter_loss`) and the window
//! while it reduces: PRR exactly as Linux's `tcp_cwnd_reduction` (RFC 6937
//! with RecoverFS = prior_cwnd), Linux ≤ 3.1's rate halving (`tcp_cwnd_down`)
//! or, classic and ns-2's Sack1 (`sack1.rs`), cwnd = ssthresh at once;
//! outside a reduction `cong_avoid`
//! (`tcp_cong_control`). An algorithm with its own `cong_control` gets every
//! ACK in every state instead, and none of the sender's window changes of a
//! reduction (PRR, cwnd = ssthresh at its end).

use hscc_cc::{CaEvent, CaState, RateSample, TCP_INFINITE_SSTHRESH};

use super::scoreboard::{AckFlags, Acked, EVER_RETRANS};
use super::{Sender, Wire};
use crate::config::{AckCounting, ReductionFloor, SsthreshFrom};
use crate::packet::Packet;
use crate::time::Time;

impl Sender {
    /// Linux `tcp_fastretrans_alert`: leave recovery when `high_seq` is
    /// acknowledged (undoing the reduction if it was spurious), detect losses,
    /// enter recovery or, on an ECN echo (`ece`), CWR. Returns whether RACK
    /// armed its reordering timer.
    pub(super) fn recovery_state_machine(
        &mut self,
        p: &Packet,
        prior_una: u64,
        fl: AckFlags,
        ece: bool,
        now: Time,
        w: &mut impl Wire,
    ) -> bool {
        // D. State exit when high_seq is acknowledged.
        let done = self.snd_una >= self.high_seq;
        if self.tp.ca_state == CaState::Recovery && done {
            // Linux tcp_try_undo_recovery, tcp_end_cwnd_reduction, then tcp_try_to_open.
            let undone = self.undo_on && self.try_undo_recovery(p);
            // Linux tcp_end_cwnd_reduction, which leaves cong_control's window alone.
            if !self.cc_controls {
                if self.halving.is_some() {
                    self.complete_halving();
                } else if !undone && self.tp.snd_ssthresh < TCP_INFINITE_SSTHRESH {
                    self.tp.snd_cwnd = self.tp.snd_ssthresh;
                }
                self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
            }
            self.set_open();
        } else if self.tp.ca_state == CaState::Cwr && self.snd_una > self.high_seq {
            // Held until data above high_seq is acknowledged, so that CWR has
            // reached the receiver (Linux `tcp_fastretrans_alert`).
            self.end_cwr();
        }
        // E. Process the state.
        let prior_retrans = self.tp.retrans_out;
        match self.tp.ca_state {
            CaState::Recovery => {
                if self.sack1.on {
                    self.sack1_on_ack(fl.una_advanced);
                }
                if fl.una_advanced && self.undo_on && self.try_undo_partial(p, prior_una) {
                    return false; // the hole was filled by a delayed original; retransmissions still out
                }
                if self.undo_on && self.try_undo_dsack() {
                    self.try_to_open();
                }
            }
            CaState::Loss => self.process_loss(p, fl),
            _ if self.undo_on => {
                self.try_undo_dsack();
            }
            _ => {}
        }
        let mut reo_armed = false;
        if self.sack {
            if self.rack_on {
                reo_armed = self.rack_mark_lost(now, w);
            } else {
                self.mark_lost_dupthresh();
            }
        } else if self.tp.ca_state == CaState::Recovery
            && fl.una_advanced
            && self.snd_una < self.high_seq
        {
            // NewReno partial ACK: retransmit the next hole at once (RFC 6582 §3.2 step 3).
            self.mark_head_lost();
            self.force_retx = true;
        } else if self.tp.sacked_out >= self.reordering && self.tp.ca_state < CaState::Recovery {
            self.mark_head_lost();
        }
        // In Loss, a lost retransmission (RACK) starts a recovery (Linux: "retransmits are lost").
        let lost_retrans = self.tp.retrans_out < prior_retrans && self.tp.lost_out > 0;
        if self.tp.ca_state <= CaState::Cwr || (self.tp.ca_state == CaState::Loss && lost_retrans) {
            if self.tp.lost_out > 0 {
                self.enter_recovery();
            } else if self.tp.ca_state == CaState::Cwr {
                // Still reducing: an echo now changes nothing.
            } else if self.tp.ca_state != CaState::Loss {
                // Linux tcp_try_to_open: an echo enters CWR, else keep open.
                if ece {
                    self.enter_cwr();
                } else {
                    self.try_to_open();
                }
            }
        }
        reo_armed
    }

    /// Linux `tcp_cong_control` after an ACK with its rate sample `rs`: the
    /// algorithm's `cong_control` in every state; if it declines, in CWR or
    /// Recovery the reduction (PRR, or nothing more with classic reduction),
    /// else `cong_avoid` when the window may grow.
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    pub(super) fn cong_control(&mut self, ack: &Acked, rs: &RateSample) {
        let app_limited = self.tp.app_limited;
        self.cc_controls = self.call_cong_control(rs);
        if self.cc_controls {
            // The algorithm owns the window. One that declares the flight
            // app-limited (BBR in PROBE_RTT) sets Linux's mark: samples stay
            // app-limited until what is in flight now is delivered.
            if self.tp.app_limited && !app_limited && self.rate_on {
                self.mark_app_limited();
            }
        } else if matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr) {
            if self.prr {
                self.prr_reduction(ack.delivered, ack.pkts > 0, rs.losses > 0);
            } else if let Some(floor) = self.halving {
                // Linux tcp_cwnd_down's FLAG_ANY_PROGRESS | FLAG_DSACKING_ACK,
                // and for a sender without SACK a duplicate ACK.
                let fl = ack.fl;
                let progress = ack.delivered > 0 || fl.una_advanced || fl.dsack;
                if progress || (!self.sack && fl.dupack) {
                    self.cwnd_down(floor);
                }
            }
        } else {
            // Linux tcp_may_raise_cwnd: with a reordering degree above the
            // default, SACKed data also lets the window grow.
            let raise =
                ack.pkts > 0 || (ack.fl.data_sacked && self.reordering > self.reordering_init);
            if raise {
                let una = self.tp.snd_una;
                let acked = match self.ack_counting {
                    AckCounting::Segments => ack.delivered,
                    AckCounting::Acks => 1,
                };
                self.cc.cong_avoid(&mut self.tp, una, acked);
                if self.tp.enter_cwr {
                    self.algorithm_enters_cwr();
                }
            }
        }
        self.tp.snd_cwnd = self.tp.snd_cwnd.max(1);
    }

    /// The algorithm's `cong_control` (in tests, the stand-in if one is set).
    #[inline(always)]
    fn call_cong_control(&mut self, rs: &RateSample) -> bool {
        #[cfg(feature = "testing")]
        if let Some(f) = self.cong_control_hook {
            return f(&mut self.tp, rs);
        }
        self.cc.cong_control(&mut self.tp, rs)
    }

    /// Linux `tcp_try_keep_open`: Disorder while SACKed, lost or retransmitted data is out.
    pub(super) fn try_to_open(&mut self) {
        let head_retransmitted =
            self.undo_on && self.sb.front().is_some_and(|s| s.flags & EVER_RETRANS != 0);
        let disorder = self.tp.sacked_out > 0 || self.tp.retrans_out > 0 || head_retransmitted;
        self.set_state(if disorder {
            CaState::Disorder
        } else {
            CaState::Open
        });
    }

    /// Recovery or Loss complete: Disorder while SACKed data is out, else Open.
    pub(super) fn set_open(&mut self) {
        if !self.sack {
            self.tp.sacked_out = 0;
        }
        let next = if self.tp.sacked_out > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        };
        self.set_state(next);
    }

    /// Linux `tcp_current_ssthresh`: the ssthresh an undo may restore.
    pub(super) fn current_ssthresh(&self) -> u32 {
        if matches!(self.tp.ca_state, CaState::Cwr | CaState::Recovery) {
            self.tp.snd_ssthresh
        } else {
            self.tp
                .snd_ssthresh
                .max((self.tp.snd_cwnd >> 1) + (self.tp.snd_cwnd >> 2))
        }
    }

    /// Linux `tcp_enter_recovery`: a reduction already under way for ECN
    /// (CWR) continues instead of starting again (`tcp_in_cwnd_reduction`).
    pub(super) fn enter_recovery(&mut self) {
        self.counters.recoveries += 1;
        if self.undo_on {
            self.init_undo(self.current_ssthresh());
        }
        if self.tp.ca_state != CaState::Cwr {
            self.init_cwnd_reduction();
        }
        self.tlp_high_seq = None;
        self.stop_rtt_timing();
        self.set_state(CaState::Recovery);
        if !self.prr && self.halving.is_none() {
            if !self.cc_controls {
                self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
            }
            self.force_retx = true; // RFC 6675 §5 step 4.3 / RFC 6582 §3.2 step 2
            if self.sack1.on {
                self.sack1_enter();
            }
        }
    }

    /// Linux `tcp_enter_loss` at a timeout from `prior_state`: ssthresh once
    /// per episode, the whole window lost, cwnd from one segment, F-RTO.
    pub(super) fn enter_loss(&mut self, prior_state: CaState, now: Time) {
        if prior_state != CaState::Loss {
            if self.undo_on || self.frto_on {
                self.init_undo(self.current_ssthresh());
            }
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.loss_ssthresh();
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        self.timeout_mark_lost(prior_state, now);
        self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.ecn.queue_cwr(); // Linux tcp_enter_loss: tcp_ecn_queue_cwr
                              // Unguarded, as tcp_enter_loss's tcp_set_ca_state: the algorithm's
                              // set_state(Loss) runs at every timeout, in Loss already or not.
        self.cc.set_state(&mut self.tp, CaState::Loss);
        self.tp.ca_state = CaState::Loss;
        // F-RTO (RFC 5682 §3.1 step 1) unless a recovery was under way, but for
        // repeated timeouts of the same segment (§3.2).
        self.frto = self.frto_on && (prior_state < CaState::Recovery || self.rto_retransmits > 0);
    }

    /// The algorithm's `ssthresh` from cwnd or, with [`SsthreshFrom::Pipe`],
    /// from the segments in flight (ns-3), shown to it as `snd_cwnd`.
    pub(super) fn loss_ssthresh(&mut self) -> u32 {
        match self.ssthresh_from {
            SsthreshFrom::Cwnd => self.cc.ssthresh(&mut self.tp),
            SsthreshFrom::Pipe => {
                let cwnd = self.tp.snd_cwnd;
                self.tp.snd_cwnd = self.tp.packets_in_flight().max(1);
                let ssthresh = self.cc.ssthresh(&mut self.tp);
                self.tp.snd_cwnd = cwnd;
                ssthresh
            }
        }
    }

    /// Linux `tcp_init_cwnd_reduction`, for a recovery and for CWR: the
    /// additive-increase credit earned at the old window is dropped.
    fn init_cwnd_reduction(&mut self) {
        self.tp.snd_cwnd_cnt = 0;
        self.tp.prior_cwnd = self.tp.snd_cwnd;
        self.tp.snd_ssthresh = self.loss_ssthresh();
        self.prr_delivered = 0;
        self.prr_out = 0;
        self.high_seq = self.snd_nxt;
        self.ecn.queue_cwr();
    }

    /// Linux `tcp_enter_cwr`: an ECN echo in Open or Disorder reduces the
    /// window once (RFC 3168 §6.1.2), by PRR or, classic, to ssthresh at once.
    fn enter_cwr(&mut self) {
        self.counters.ecn_reductions += 1;
        self.init_cwnd_reduction();
        self.set_state(CaState::Cwr);
        if !self.prr && self.halving.is_none() && !self.cc_controls {
            self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
        }
    }

    /// Linux `tcp_enter_cwr` called by the algorithm from `cong_avoid` (CDG's
    /// backoff; `TcpCc::enter_cwr`): the reduction in progress can no longer
    /// be undone, and from Open or Disorder CWR starts as for an ECN echo.
    fn algorithm_enters_cwr(&mut self) {
        self.tp.enter_cwr = false;
        let reduce = self.tp.ca_state < CaState::Cwr;
        self.forget_undo(reduce);
        if reduce {
            self.init_cwnd_reduction();
            self.set_state(CaState::Cwr);
            if !self.prr && self.halving.is_none() {
                self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
            }
        }
    }

    /// Linux `tcp_end_cwnd_reduction` leaving CWR (nothing for an algorithm
    /// with `cong_control`), then `tcp_set_ca_state(Open)`.
    fn end_cwr(&mut self) {
        if !self.cc_controls {
            if self.halving.is_some() {
                self.complete_halving();
            } else if self.tp.snd_ssthresh < TCP_INFINITE_SSTHRESH {
                self.tp.snd_cwnd = self.tp.snd_ssthresh;
            }
            self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        }
        self.set_state(CaState::Open);
    }

    /// Linux `tcp_cwnd_reduction` (RFC 6937 with RecoverFS = prior_cwnd).
    pub(super) fn prr_reduction(
        &mut self,
        newly_acked_sacked: u32,
        una_advanced: bool,
        newly_lost: bool,
    ) {
        if newly_acked_sacked == 0 || self.tp.prior_cwnd == 0 {
            return;
        }
        let in_flight = self.tp.packets_in_flight() as i64;
        let ssthresh = self.tp.snd_ssthresh as i64;
        self.prr_delivered += newly_acked_sacked;
        let delta = ssthresh - in_flight;
        let mut sndcnt = if delta < 0 {
            let dividend =
                ssthresh as u64 * self.prr_delivered as u64 + self.tp.prior_cwnd as u64 - 1;
            (dividend / self.tp.prior_cwnd as u64) as i64 - self.prr_out as i64
        } else {
            let mut s =
                (self.prr_delivered as i64 - self.prr_out as i64).max(newly_acked_sacked as i64);
            if una_advanced && !newly_lost {
                s += 1;
            }
            s.min(delta)
        };
        // Force a fast retransmit upon entering fast recovery.
        sndcnt = sndcnt.max(if self.prr_out > 0 { 0 } else { 1 });
        self.tp.snd_cwnd = (in_flight + sndcnt).clamp(1, u32::MAX as i64) as u32;
    }

    /// Linux ≤ 3.1 `tcp_cwnd_down`, on an ACK that shows progress: one
    /// segment off cwnd every second such ACK (`snd_cwnd_cnt` keeps the
    /// parity; `tcp_init_cwnd_reduction` cleared it) while cwnd is above the
    /// floor (`tcp_cwnd_min`), and never more than the segments in flight + 1.
    fn cwnd_down(&mut self, floor: ReductionFloor) {
        let decr = self.tp.snd_cwnd_cnt + 1;
        self.tp.snd_cwnd_cnt = decr & 1;
        let floor = match floor {
            ReductionFloor::Ssthresh => self.tp.snd_ssthresh,
            ReductionFloor::HalfSsthresh => self.tp.snd_ssthresh / 2,
        };
        if decr >> 1 > 0 && self.tp.snd_cwnd > floor {
            self.tp.snd_cwnd -= decr >> 1;
        }
        self.clamp_to_flight();
    }

    /// Rate halving's bound: cwnd at most the segments in flight + 1.
    pub(super) fn clamp_to_flight(&mut self) {
        self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.tp.packets_in_flight() + 1);
    }

    /// Linux ≤ 3.1 `tcp_complete_cwr`: a rate-halving reduction ends at
    /// min(cwnd, ssthresh), so a window halved below ssthresh slow-starts back.
    fn complete_halving(&mut self) {
        self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.tp.snd_ssthresh);
    }
}
