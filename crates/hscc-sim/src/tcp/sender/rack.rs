//! RACK loss detection (RFC 8985 §6, Linux `tcp_recovery.c`): a segment is
//! lost once a segment sent after it has been delivered and it is still
//! outstanding RACK.rtt + reo_wnd after it was sent, where RACK.rtt is the
//! RTT of the most recently sent delivered segment. This applies to
//! retransmissions as to originals, so a lost retransmission is detected
//! within about one RTT instead of by the RTO.
//!
//! reo_wnd (Linux `tcp_rack_reo_wnd`): 0 before any reordering was seen
//! once in recovery or once `reordering` segments are SACKed (as the
//! duplicate-ACK threshold would), else min_RTT/4 × steps, at most SRTT;
//! steps grows by one per round trip with D-SACKs and returns to 1 after 16
//! recoveries without (`tcp_rack_update_reo_wnd`). When segments are
//! outstanding but not yet past their deadline, a timer fires at the latest
//! deadline plus 2 ms (Linux `TCP_TIMEOUT_MIN_US`).
//!
//! Segments in flight are kept in a list in order of (re)transmission,
//! Linux's `tsorted_sent_queue`, linked through the scoreboard entries (no
//! allocation): a segment leaves it when it is SACKed, acknowledged or marked
//! lost, and moves to the tail when retransmitted. Deadlines grow along the
//! list, so a scan stops at the first segment not yet due, and the latest
//! deadline is that of the last listed segment sent before the RACK segment,
//! which is kept up to date as segments leave; each ACK's scan is O(1)
//! amortised, whatever the window.

use hscc_cc::CaState;

use super::scoreboard::{Seg, EVER_RETRANS, LISTED, LOST, RETRANS};
use super::timers::{XmitTimer, TIMEOUT_MIN};
use super::{Sender, Wire};
use crate::tcp::work;
use crate::time::Time;

/// Linux `TCP_RACK_RECOVERY_THRESH`: recoveries a widened window persists.
const RECOVERY_THRESH: u32 = 16;

/// RACK state (Linux `tcp_sock.rack`) and its time-ordered list.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rack {
    /// Send time of the most recently sent delivered segment, ps (RACK.xmit_ts).
    xmit: Time,
    /// Its transmission number, `Seg::order` (None: nothing delivered yet).
    order: Option<u32>,
    /// RTT of the last delivered segment that updated RACK, ps (RACK.rtt).
    pub(super) rtt: Time,
    /// RACK advanced since the last scan.
    pub(super) advanced: bool,
    /// reo_wnd, in units of min_RTT/4.
    reo_wnd_steps: u32,
    /// Recoveries left before the window returns to one step.
    pub(super) reo_wnd_persist: u32,
    /// A D-SACK may have shown a spurious retransmission due to reordering.
    pub(super) dsack_seen: bool,
    /// `tp.delivered` when reo_wnd last grew, segments.
    last_delivered: u32,
    /// Oldest (re)transmission in flight on the list, segment number.
    head: Option<u64>,
    /// Newest one, segment number.
    tail: Option<u64>,
    /// Last listed segment sent before the RACK segment, segment number.
    before_rack: Option<u64>,
}

impl Default for Rack {
    fn default() -> Self {
        Rack {
            xmit: 0,
            order: None,
            rtt: 0,
            advanced: false,
            reo_wnd_steps: 1,
            reo_wnd_persist: 0,
            dsack_seen: false,
            last_delivered: 0,
            head: None,
            tail: None,
            before_rack: None,
        }
    }
}

/// Linux `tcp_skb_sent_after`: transmission `a` came after `b` (None: before
/// anything). Linux orders by send time, then sequence number for segments of
/// one burst; the transmission number orders them as they were sent, also a
/// retransmission and new data sent at the same instant.
fn sent_after(a: u32, b: Option<u32>) -> bool {
    b.is_none_or(|b| (a.wrapping_sub(b) as i32) > 0)
}

impl Sender {
    fn seg(&self, seq: u64) -> &Seg {
        &self.sb[(seq - self.snd_una) as usize]
    }

    fn seg_mut(&mut self, seq: u64) -> &mut Seg {
        &mut self.sb[(seq - self.snd_una) as usize]
    }

    /// The sequence number a 32-bit link names (within 2^32 of `snd_una`).
    fn unlink32(&self, l: u32) -> u64 {
        self.snd_una + l.wrapping_sub(self.snd_una as u32) as u64
    }

    /// Append `seq` to the time-ordered list.
    pub(super) fn ts_push(&mut self, seq: u64) {
        let tail = self.rack.tail;
        let s = self.seg_mut(seq);
        s.flags |= LISTED;
        s.prev = tail.unwrap_or(0) as u32;
        match tail {
            Some(t) => self.seg_mut(t).next = seq as u32,
            None => self.rack.head = Some(seq),
        }
        self.rack.tail = Some(seq);
    }

    /// Take `seq` off the time-ordered list, if it is on it.
    pub(super) fn ts_unlink(&mut self, seq: u64) {
        let s = *self.seg(seq);
        if s.flags & LISTED == 0 {
            return;
        }
        self.seg_mut(seq).flags &= !LISTED;
        let prev = (self.rack.head != Some(seq)).then(|| self.unlink32(s.prev));
        let next = (self.rack.tail != Some(seq)).then(|| self.unlink32(s.next));
        match prev {
            Some(p) => self.seg_mut(p).next = s.next,
            None => self.rack.head = next,
        }
        match next {
            Some(n) => self.seg_mut(n).prev = s.prev,
            None => self.rack.tail = prev,
        }
        if self.rack.before_rack == Some(seq) {
            self.rack.before_rack = prev;
        }
    }

    /// Linux `tcp_rack_advance` for a segment (S)ACKed now, before it leaves
    /// the list; returns its RTT if it counts.
    pub(super) fn rack_advance(&mut self, seq: u64, s: Seg, now: Time) -> Option<Time> {
        let rtt = now.saturating_sub(s.tx_time);
        if s.flags & EVER_RETRANS != 0 && rtt < self.rtt.min_rtt {
            return None; // ambiguous: the original may have been (S)ACKed
        }
        self.rack.advanced = true;
        self.rack.rtt = rtt;
        if sent_after(s.order, self.rack.order) {
            (self.rack.xmit, self.rack.order) = (s.tx_time, Some(s.order));
            self.rack.before_rack = match s.flags & LISTED != 0 {
                true => (self.rack.head != Some(seq)).then(|| self.unlink32(s.prev)),
                false => self.last_listed_before(s.order),
            };
        }
        Some(rtt)
    }

    /// The last listed segment sent before (t, end): from the tail (rare: the
    /// RACK segment was not listed, e.g. a late original of a lost segment).
    /// None at once when the head was sent after it: after a timeout every
    /// listed segment is a retransmission, newer than any late original, and
    /// a walk per late original would cost the window each.
    fn last_listed_before(&self, order: u32) -> Option<u64> {
        let head = self.rack.head?;
        if sent_after(self.seg(head).order, Some(order)) {
            return None;
        }
        let mut cur = self.rack.tail;
        while let Some(seq) = cur {
            work::step(1);
            let s = self.seg(seq);
            if !sent_after(s.order, Some(order)) {
                return Some(seq);
            }
            cur = (self.rack.head != Some(seq)).then(|| self.unlink32(s.prev));
        }
        None
    }

    /// Linux `tcp_rack_reo_wnd`.
    fn reo_wnd(&self) -> Time {
        if self.reord_seen == 0
            && (self.tp.ca_state >= CaState::Recovery || self.tp.sacked_out >= self.reordering)
        {
            return 0;
        }
        let min_rtt = if self.rtt.min_rtt == Time::MAX {
            0
        } else {
            self.rtt.min_rtt
        };
        ((min_rtt / 4) * self.rack.reo_wnd_steps as Time).min(self.rtt.srtt())
    }

    /// Linux `tcp_rack_detect_loss`: mark what is overdue; the time until the
    /// last eligible segment is (0: none waits).
    fn rack_detect_loss(&mut self, now: Time) -> Time {
        let reo_wnd = self.reo_wnd();
        let wait = self.rack.rtt + reo_wnd;
        while let Some(seq) = self.rack.head {
            work::step(1);
            let s = *self.seg(seq);
            if self
                .rack
                .order
                .is_none_or(|r| !sent_after(r, Some(s.order)))
            {
                return 0;
            }
            let deadline = s.tx_time + wait;
            if deadline > now {
                // Later segments are due later; the last one sent before the RACK segment last.
                let last = self.rack.before_rack.unwrap_or(seq);
                return (self.seg(last).tx_time + wait).max(deadline) - now;
            }
            self.rack_mark_skb_lost(seq);
        }
        0
    }

    /// Linux `tcp_mark_skb_lost` from RACK: a lost retransmission goes back to
    /// the retransmission queue.
    fn rack_mark_skb_lost(&mut self, seq: u64) {
        self.ts_unlink(seq);
        let i = (seq - self.snd_una) as usize;
        let f = self.sb[i].flags;
        if f & LOST != 0 {
            debug_assert!(
                f & RETRANS != 0,
                "lost segments awaiting retransmission are not listed"
            );
            self.sb[i].flags = f & !RETRANS;
            self.tp.retrans_out -= 1;
            self.to_retx += 1;
        } else {
            self.sb[i].flags = f | LOST;
            self.tp.lost_out += 1;
            if f & RETRANS == 0 {
                self.to_retx += 1;
            }
        }
        self.tp.lost = self.tp.lost.wrapping_add(1);
        self.retx_hint = self.retx_hint.min(seq);
        self.counters.lost_fast += 1;
        self.counters.rack_lost += 1;
        self.report_lost(seq);
    }

    /// Linux `tcp_rack_mark_lost`: scan if RACK advanced; arm the reordering
    /// timer for segments not yet due. Returns whether it was armed.
    pub(super) fn rack_mark_lost(&mut self, now: Time, w: &mut impl Wire) -> bool {
        if !self.rack.advanced {
            return false;
        }
        self.rack.advanced = false;
        let timeout = self.rack_detect_loss(now);
        if timeout > 0 {
            self.arm_timer(XmitTimer::Reo, now + timeout + TIMEOUT_MIN, w);
        }
        timeout > 0
    }

    /// The reordering timer fired (Linux `tcp_rack_reo_timeout`).
    pub(super) fn on_reo_timeout(&mut self, w: &mut impl Wire) {
        let now = w.now();
        if !self.active() || self.tp.packets_out == 0 {
            return;
        }
        self.tp.now_us = now / crate::time::US;
        let (prior_in_flight, prior_lost) = (self.tp.packets_in_flight(), self.tp.lost);
        self.rack_detect_loss(now);
        if self.tp.packets_in_flight() != prior_in_flight {
            if self.tp.ca_state != CaState::Recovery {
                self.enter_recovery();
                if self.prr {
                    let newly_lost = self.tp.lost != prior_lost;
                    self.prr_reduction(1, false, newly_lost);
                } else if self.halving.is_some() {
                    self.clamp_to_flight();
                }
            }
            self.try_send(w);
        }
        if self.timer_kind != XmitTimer::Rto || !self.rto_timer.armed() {
            self.rearm_rto(true, now, w);
        }
        self.account_slow_start(now);
    }

    /// Linux `tcp_rack_update_reo_wnd`: widen reo_wnd by one step per round
    /// trip in which a D-SACK arrived; keep it for 16 recoveries.
    pub(super) fn rack_update_reo_wnd(&mut self, prior_delivered: u32) {
        if prior_delivered == 0 {
            return;
        }
        if (prior_delivered.wrapping_sub(self.rack.last_delivered) as i32) < 0 {
            self.rack.dsack_seen = false;
        }
        if self.rack.dsack_seen {
            self.rack.reo_wnd_steps = (self.rack.reo_wnd_steps + 1).min(0xff);
            self.rack.dsack_seen = false;
            self.rack.last_delivered = self.tp.delivered;
            self.rack.reo_wnd_persist = RECOVERY_THRESH;
        } else if self.rack.reo_wnd_persist == 0 {
            self.rack.reo_wnd_steps = 1;
        }
    }

    /// Check the list against the scoreboard (for tests): every segment in
    /// flight, neither SACKed nor waiting for its retransmission, is listed
    /// once, in order of transmission.
    pub(super) fn check_ts_list(&self) -> Result<(), String> {
        let mut n = 0;
        let mut cur = self.rack.head;
        let mut last: Option<Time> = None;
        while let Some(seq) = cur {
            n += 1;
            if n > self.sb.len() {
                return Err("RACK list has a cycle".into());
            }
            let s = self.seg(seq);
            if s.flags & LISTED == 0 {
                return Err(format!("segment {seq} on the RACK list is not flagged"));
            }
            if last.is_some_and(|t| t > s.tx_time) {
                return Err(format!("RACK list out of order at {seq}"));
            }
            last = Some(s.tx_time);
            cur = (self.rack.tail != Some(seq)).then(|| self.unlink32(s.next));
        }
        let flagged = self.sb.iter().filter(|s| s.flags & LISTED != 0).count();
        if flagged != n {
            return Err(format!("{flagged} segments flagged, {n} on the RACK list"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use hscc_cc::{CaState, CcParams};

    use super::super::Sender;
    use crate::config::FlowConfig;
    use crate::rng::{component_rng, Component};
    use crate::tcp::work;
    use crate::testing::{ack, NullWire};
    use crate::time::MS;

    /// A Reno sender with Linux's recovery that has sent a window of `w` segments at once.
    fn started_with_window(w: u64) -> (Sender, NullWire) {
        let cfg = FlowConfig {
            init_cwnd: w as u32,
            ..FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap()).with_linux_recovery()
        };
        let mut s = Sender::new(0, &cfg, component_rng(1, Component::Sender, 0));
        let mut wire = NullWire::default();
        s.start(&mut wire);
        (s, wire)
    }

    #[test]
    fn rack_work_per_ack_does_not_grow_with_the_window() {
        let (mut s, mut w) = started_with_window(80_000);
        w.now = 100 * MS;
        s.on_ack(&ack(1, &[]), &mut w); // RTT 100 ms: min_RTT/4 = 25 ms
        s.reord_seen = 1; // reordering seen: reo_wnd stays 25 ms with many SACKs
        work::take();
        // 1 is missing; 2..2002 are SACKed one per ACK within the reordering
        // window: each scan meets 1 first, not yet due, and stops.
        for k in 1..=2_000u64 {
            w.now = 100 * MS + k * crate::time::US;
            s.on_ack(&ack(1, &[(2, 2 + k)]), &mut w);
        }
        let steps = work::take();
        assert!(steps <= 3 * 2_000, "{steps} entries visited for 2000 ACKs");
        assert_eq!((s.tp.lost_out, s.tp.ca_state), (0, CaState::Disorder));
        // The timer waits for the last segment sent before the newest SACKed
        // one (sent at 0 like 1): 0 + RACK.rtt + 25 ms + 2 ms.
        assert_eq!(s.rto_timer.deadline, (102 * MS) + 25 * MS + 2 * MS);
        s.check_scoreboard().unwrap();
    }

    #[test]
    fn late_originals_after_a_timeout_do_not_walk_the_retransmissions() {
        const W: u64 = 20_000;
        let (mut s, mut w) = started_with_window(W);
        w.now = 300 * MS;
        s.on_rto(&mut w);
        // Half the window retransmitted (listed, newer than every original);
        // the rest lost, waiting, off the list.
        s.tp.snd_cwnd = (W / 2) as u32;
        s.try_send(&mut w);
        assert_eq!(s.tp.retrans_out as u64, W / 2);
        work::take();
        // The originals of the upper half arrive late, SACKed one per ACK.
        for k in 1..=2_000u64 {
            w.now = 300 * MS + k * crate::time::US;
            s.on_ack(&ack(0, &[(W / 2, W / 2 + k)]), &mut w);
        }
        // About 12 per ACK (the SACK's own bookkeeping); a walk of the list would be W/2.
        let steps = work::take();
        assert!(steps <= 16 * 2_000, "{steps} entries visited for 2000 ACKs");
        s.check_scoreboard().unwrap();
    }
}
