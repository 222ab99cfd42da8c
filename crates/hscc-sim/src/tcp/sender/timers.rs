//! The retransmission timer (Linux `tcp_timer.c`): one timer, as Linux's
//! `icsk_retransmit_timer`, armed for the RTO (RFC 6298, restarted by each ACK
//! of new data, backed off per timeout), RACK's reordering window or the tail
//! loss probe, whichever is due.

use hscc_cc::{CaEvent, CaState};

use super::{Sender, Wire, LOST, RETRANS, SACKED};
use crate::event::Event;
use crate::tcp::work;
use crate::time::{Time, MS, US};

/// What the retransmission timer is armed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum XmitTimer {
    /// Retransmission timeout (RFC 6298).
    Rto,
    /// RACK's reordering window ends (Linux `ICSK_TIME_REO_TIMEOUT`).
    Reo,
    /// Tail loss probe (Linux `ICSK_TIME_LOSS_PROBE`).
    Tlp,
}

/// Linux `TCP_TIMEOUT_MIN` (2 jiffies at HZ = 1000): added to the probe timeout
/// and to the reordering timer.
pub(super) const TIMEOUT_MIN: Time = 2 * MS;
impl Sender {
    /// The retransmission timer expired: the RTO, RACK's reordering timer or
    /// the tail loss probe, whichever it was armed for (Linux `tcp_write_timer_handler`).
    pub fn on_timer(&mut self, w: &mut impl Wire) {
        match self.timer_kind {
            XmitTimer::Rto => self.on_rto(w),
            XmitTimer::Reo => self.on_reo_timeout(w),
            XmitTimer::Tlp => self.on_loss_probe(w),
        }
    }

    /// Retransmission timeout at `now` (Linux `tcp_retransmit_timer`, `tcp_enter_loss`).
    pub fn on_rto(&mut self, w: &mut impl Wire) {
        let now = w.now();
        if !self.active() || self.tp.packets_out == 0 {
            return;
        }
        self.tp.now_us = now / US;
        self.counters.timeouts += 1;
        let prior_state = self.tp.ca_state;
        if prior_state != CaState::Loss {
            if self.undo_on || self.frto_on {
                self.init_undo(self.current_ssthresh());
            }
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.tp.snd_ssthresh = self.loss_ssthresh();
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        // Every un-SACKed outstanding segment is lost (with RACK, but those sent
        // within the last RACK.rtt: Linux `tcp_timeout_mark_lost`); their
        // retransmissions are forgotten.
        work::step(self.sb.len() as u64);
        let (una, rack_rtt) = (self.snd_una, self.rack.rtt);
        let mut to_retx = 0;
        for i in 0..self.sb.len() {
            let s = self.sb[i];
            let recent = self.rack_on && i > 0 && s.tx_time + rack_rtt > now;
            if s.flags & SACKED != 0 || (recent && s.flags & LOST == 0) {
                to_retx += (s.flags & (LOST | RETRANS) == LOST) as u32;
                continue;
            }
            if s.flags & LOST == 0 {
                self.tp.lost_out += 1;
                self.tp.lost = self.tp.lost.wrapping_add(1);
            }
            if s.flags & RETRANS != 0 {
                self.tp.retrans_out -= 1;
            }
            self.sb[i].flags = (s.flags | LOST) & !RETRANS;
            to_retx += 1;
            if self.rack_on {
                self.ts_unlink(una + i as u64);
            }
        }
        if !self.sack {
            self.tp.sacked_out = 0;
        }
        // Linux: a timeout after many duplicate ACKs means the reordering degree was overestimated.
        if prior_state <= CaState::Disorder && self.tp.sacked_out >= self.reordering_init {
            self.reordering = self.reordering.min(self.reordering_init);
        }
        self.to_retx = to_retx;
        self.retx_hint = self.snd_una;
        (self.lost_scan, self.lost_cnt) = (self.snd_nxt, self.tp.sacked_out);
        self.tp.snd_cwnd = self.tp.packets_in_flight() + 1;
        self.tp.snd_cwnd_cnt = 0;
        self.high_seq = self.snd_nxt;
        self.tlp_high_seq = None;
        self.ecn.queue_cwr(); // Linux tcp_enter_loss: tcp_ecn_queue_cwr
        self.set_state(CaState::Loss);
        // F-RTO (RFC 5682 §3.1 step 1) unless a recovery was under way, but for
        // repeated timeouts of the same segment (§3.2).
        self.frto = self.frto_on && (prior_state < CaState::Recovery || self.rto_retransmits > 0);
        self.rto_retransmits += 1;
        self.backoff += 1;
        self.rto_expire = now + self.rtt.rto(self.backoff);
        self.arm_timer(XmitTimer::Rto, self.rto_expire, w);
        self.try_send(w);
        self.account_slow_start(now);
    }

    /// Arm the retransmission timer for `kind` at `at`.
    pub(super) fn arm_timer(&mut self, kind: XmitTimer, at: Time, w: &mut impl Wire) {
        self.timer_kind = kind;
        self.rto_timer.arm(at, w.queue(), Event::Rto(self.id));
    }

    /// Linux `tcp_rearm_rto`: the RTO from now, or, replacing a pending probe
    /// or reordering timer, when it would have expired (Linux: the head
    /// segment's last transmission + RTO; hscc restarts the RTO on each ACK of
    /// new data, RFC 6298 §5.3, and keeps that time).
    pub(super) fn rearm_rto(&mut self, resume: bool, now: Time, w: &mut impl Wire) {
        if self.tp.packets_out == 0 {
            self.rto_timer.cancel();
            return;
        }
        if !resume {
            self.rto_expire = now + self.rtt.rto(self.backoff);
        }
        self.arm_timer(
            XmitTimer::Rto,
            self.rto_expire.max(now + crate::time::US),
            w,
        );
    }
}
