//! The retransmission timer and what feeds it (Linux `tcp_timer.c`,
//! `tcp_ack_update_rtt`, `tcp_set_xmit_timer`): one timer, as Linux's
//! `icsk_retransmit_timer`, armed for the RTO (RFC 6298, restarted by each ACK
//! of new data or, with `rto_restart = "every_ack"`, by every ACK; backed off
//! per timeout), RACK's reordering window or the tail
//! loss probe, whichever is due; the RTT sample of each ACK (Karn's rule, else
//! the echoed timestamp; the newest segment's, or the oldest as Linux's
//! estimator takes it), or with `rtt_sampling = "per_rtt"` that of one timed
//! segment per round trip (ns-2.35 tcp/tcp.cc), goes to the estimator
//! ([`crate::tcp::rtt`]).

use super::scoreboard::Acked;
use super::{Sender, Wire};
use crate::event::Event;
use crate::packet::Packet;
use crate::tcp::rtt::RttSampling;
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
        self.rtt.backed_off(self.backoff);
        self.stop_rtt_timing();
        self.rto_expire = now + self.rtt.rto(self.backoff);
        self.arm_timer(XmitTimer::Rto, self.rto_expire, w);
        self.try_send(w);
        self.account_slow_start(now);
    }

    /// The ACK's RTT samples (Linux `tcp_ack_update_rtt`): the estimator's,
    /// whose arrival ends the backoff, and the newest, which the minimum RTT
    /// and the algorithm take and this returns (`rtt_sampling` says which
    /// segments give them).
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    pub(super) fn ack_rtt(&mut self, p: &Packet, ack: &Acked, now: Time) -> Option<Time> {
        match self.sampling {
            RttSampling::PerRtt => {
                self.per_rtt_sample(p, ack, now);
                let rtt = self.newest_sample(p, ack, now);
                if let Some(r) = rtt {
                    self.note_min_rtt(r);
                }
                rtt
            }
            RttSampling::Ack => {
                let rtt = self.newest_sample(p, ack, now);
                if let Some(r) = rtt {
                    self.feed_estimator(r, r, now, false);
                    self.backoff = 0;
                }
                rtt
            }
            RttSampling::Linux => {
                let (seq_rtt, ca_rtt) = self.linux_samples(p, ack, now)?;
                self.feed_estimator(seq_rtt, ca_rtt, now, false);
                self.backoff = 0;
                Some(ca_rtt)
            }
        }
    }

    /// The newest newly (S)ACKed segment never retransmitted gives the sample
    /// (Karn), else the echoed timestamp of an ACK that acknowledges anything.
    #[inline(always)]
    fn newest_sample(&self, p: &Packet, ack: &Acked, now: Time) -> Option<Time> {
        let newest = match (ack.cum_tx, ack.sack_tx) {
            (Some((_, a)), Some((_, b))) => Some(a.max(b)),
            (a, b) => a.or(b).map(|(_, t)| t),
        };
        match newest {
            Some(t) => Some(now - t),
            None if self.timestamps && (ack.pkts > 0 || ack.delivered > 0) && p.ts > 0 => {
                Some(now - p.ts)
            }
            None => None,
        }
    }

    /// Linux's `seq_rtt_us` (the estimator's) and `ca_rtt_us` (the newest):
    /// the cumulative part unless it acknowledged a retransmitted segment,
    /// then the SACKed part (whose newest wins `ca_rtt_us`), then the echo of
    /// an ACK that advances `snd_una`, in the timestamp clock's milliseconds.
    #[inline(always)]
    fn linux_samples(&self, p: &Packet, ack: &Acked, now: Time) -> Option<(Time, Time)> {
        let cum = ack.cum_tx.filter(|_| !ack.retrans_acked);
        let first = cum.or(ack.sack_tx).map(|(oldest, _)| oldest);
        let last = ack.sack_tx.or(cum).map(|(_, newest)| newest);
        match first.zip(last) {
            Some((first, last)) => Some((now - first, now - last)),
            None if self.timestamps && ack.pkts > 0 && p.ts > 0 => {
                let r = (now / MS).saturating_sub(p.ts / MS).max(1) * MS;
                Some((r, r))
            }
            None => None,
        }
    }

    /// The estimator takes sample `r` (exact, or in ns-2's ticks), and the
    /// algorithm's view of SRTT follows; the minimum RTT takes `newest`.
    #[inline]
    fn feed_estimator(&mut self, r: Time, newest: Time, now: Time, from_echo: bool) {
        if self.rtt.ticked() {
            self.rtt.tick_sample(r, now, from_echo);
        } else {
            self.rtt.sample(r, self.snd_una, self.snd_nxt);
        }
        self.tp.srtt_us = ((self.rtt.srtt() * 8) / US).min(u32::MAX as u64) as u32;
        self.note_min_rtt(newest);
    }

    /// The smallest RTT seen, from every ACK's sample whichever the estimator
    /// takes: the one place `rtt.min_rtt` changes.
    #[inline]
    fn note_min_rtt(&mut self, r: Time) {
        self.rtt.min_rtt = self.rtt.min_rtt.min(r.max(1));
        self.tp.min_rtt_us = (self.rtt.min_rtt / US).min(u32::MAX as u64 - 1) as u32;
    }

    /// ns-2 `TcpAgent::newack` (tcp/tcp.cc), for the estimator alone (the
    /// algorithm keeps every ACK's sample): with timestamps, an ACK that
    /// advances the cumulative ACK gives a sample from its echo; the ACK that
    /// covers the timed segment (`tcph->seqno() >= rtt_seq_`, hscc's `snd_una`
    /// above it) ends the timing and the backoff (`t_backoff_ = 1`) and, without
    /// timestamps, gives the sample. A partial ACK of a "sack1" recovery also
    /// ends the backoff (tcp-sack1.cc `recv`).
    fn per_rtt_sample(&mut self, p: &Packet, ack: &Acked, now: Time) {
        if self.timestamps && ack.pkts > 0 && p.ts > 0 {
            self.feed_estimator(now - p.ts, now - p.ts, now, true);
        }
        if let Some((_, sent)) = self.timed.filter(|&(seq, _)| self.snd_una > seq) {
            self.timed = None;
            self.backoff = 0;
            if !self.timestamps {
                self.feed_estimator(now - sent, now - sent, now, false);
            }
        }
        if self.sack1_recovering() && ack.pkts > 0 && self.snd_una < self.high_seq {
            self.backoff = 0;
        }
    }

    /// ns-2 `TcpAgent::output`: a new segment sent while none is timed is
    /// timed (`rtt_active_`, `rtt_seq_`, `rtt_ts_`).
    #[inline]
    pub(super) fn time_if_idle(&mut self, seq: u64, now: Time) {
        if self.sampling == RttSampling::PerRtt && self.timed.is_none() {
            self.timed = Some((seq, now));
        }
    }

    /// Karn's rule as ns-2 applies it (`reset_rtx_timer`, at a timeout and at
    /// a fast retransmission): the timed segment's sample would be ambiguous.
    pub(super) fn stop_rtt_timing(&mut self) {
        self.timed = None;
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

    /// ns-2.35's TCP-Linux agent after an ACK of nothing new (`rto_restart =
    /// "every_ack"`; tcp-linux.cc `renew_timer`): the RTO from now, as after an
    /// ACK of new data. A pending probe or reordering timer stays, and when
    /// the RTO replaces it, it is this time.
    pub(super) fn restart_rto(&mut self, now: Time, w: &mut impl Wire) {
        if self.tp.packets_out == 0 {
            return;
        }
        self.rto_expire = now + self.rtt.rto(self.backoff);
        if self.timer_kind == XmitTimer::Rto {
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
