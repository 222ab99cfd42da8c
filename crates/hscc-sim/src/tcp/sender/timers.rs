//! The retransmission timer (Linux `tcp_timer.c`): one timer, as Linux's
//! `icsk_retransmit_timer`, armed for the RTO (RFC 6298, restarted by each ACK
//! of new data, backed off per timeout), RACK's reordering window or the tail
//! loss probe, whichever is due.

use super::{Sender, Wire};
use crate::event::Event;
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
