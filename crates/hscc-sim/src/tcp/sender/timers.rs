//! The retransmission timer and what feeds it (Linux `tcp_timer.c`,
//! `tcp_ack_update_rtt`, `tcp_set_xmit_timer`): one timer, as Linux's
//! `icsk_retransmit_timer`, armed for the RTO (RFC 6298, restarted by each ACK
//! of new data, backed off per timeout), RACK's reordering window or the tail
//! loss probe, whichever is due; the RTT sample of each ACK (Karn's rule, else
//! the echoed timestamp) goes to the estimator ([`crate::tcp::rtt`]).

use super::scoreboard::Acked;
use super::{Sender, Wire};
use crate::event::Event;
use crate::packet::Packet;
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

    /// Retransmission timeout at `now` (Linux `tcp_retransmit_timer`).
    pub fn on_rto(&mut self, w: &mut impl Wire) {
        let now = w.now();
        if !self.active() || self.tp.packets_out == 0 {
            return;
        }
        self.tp.now_us = now / US;
        self.counters.timeouts += 1;
        self.enter_loss(self.tp.ca_state, now);
        self.rto_retransmits += 1;
        self.backoff += 1;
        self.rto_expire = now + self.rtt.rto(self.backoff);
        self.arm_timer(XmitTimer::Rto, self.rto_expire, w);
        self.try_send(w);
        self.account_slow_start(now);
    }

    /// Linux `tcp_ack_update_rtt`: the ACK's RTT sample, from the newest newly
    /// (S)ACKed segment never retransmitted (Karn), else from the echoed
    /// timestamp; a sample ends the backoff.
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    pub(super) fn ack_rtt(&mut self, p: &Packet, ack: &Acked, now: Time) -> Option<Time> {
        let rtt = match ack.newest_tx {
            Some(t) => Some(now - t),
            None if self.timestamps && (ack.pkts > 0 || ack.delivered > 0) && p.ts > 0 => {
                Some(now - p.ts)
            }
            None => None,
        };
        if let Some(r) = rtt {
            self.rtt.sample(r, self.snd_una, self.snd_nxt);
            self.backoff = 0;
            self.tp.srtt_us = ((self.rtt.srtt() * 8) / US).min(u32::MAX as u64) as u32;
            self.tp.min_rtt_us = (self.rtt.min_rtt / US).min(u32::MAX as u64 - 1) as u32;
        }
        rtt
    }

    /// Linux `tcp_set_xmit_timer` after an ACK of new data: unless RACK armed
    /// its reordering timer (`reo_armed`), a loss probe, else the RTO from now.
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    pub(super) fn set_xmit_timer(&mut self, reo_armed: bool, now: Time, w: &mut impl Wire) {
        self.rto_expire = now + self.rtt.rto(self.backoff);
        if self.tp.packets_out == 0 {
            self.rto_timer.cancel();
        } else if !reo_armed && !self.schedule_loss_probe(true, now, w) {
            self.arm_timer(XmitTimer::Rto, self.rto_expire, w);
        }
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
