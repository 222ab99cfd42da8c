//! Transmission (Linux `tcp_output.c`): lost segments first (RFC 6675
//! `NextSeg` rule 1; in ns-2's Sack1 recovery every hole below the highest
//! SACK, `sack1.rs`), then new data (rule 2), within cwnd (or Sack1's pipe),
//! the receiver window and the pacing rate (Linux's internal pacing by
//! earliest departure time when the algorithm asks for it); the restart after
//! idle; Linux's `tcp_cwnd_validate`; and the host's hand-over of each segment
//! to the first link after the access delay and host jitter.

use std::num::NonZeroU64;

use hscc_cc::{CaEvent, CaState};
use rand::Rng as _;

use super::scoreboard::{Seg, EVER_RETRANS, LOST, RETRANS};
use super::timers::XmitTimer;
use super::{Sender, Wire};
use crate::event::Event;
use crate::packet::{Packet, HEADER_BYTES, RETRANS as RETRANS_FLAG, SLOW_START};
use crate::tcp::work;
use crate::time::{Time, NS, SEC, US};

impl Sender {
    /// Pacing timer expired.
    pub fn on_pace(&mut self, w: &mut impl Wire) {
        if self.active() {
            self.try_send(w);
        }
    }

    /// Current pacing rate in bytes/s (0 = no pacing): [`Sender::sk_pacing_rate`]
    /// with pacing on.
    fn pacing_rate(&self) -> u64 {
        if self.tp.pacing_rate == 0 && !(self.pacing || self.tp.pacing_needed) {
            return 0;
        }
        self.sk_pacing_rate()
    }

    /// The pacing rate Linux's socket would hold (`sk_pacing_rate`, what
    /// `tcpi_pacing_rate` reports), bytes/s, whether or not the flow is paced:
    /// the algorithm's, capped at `max_pacing_rate`, else Linux's default
    /// (`tcp_update_pacing_rate`), which Linux skips for an algorithm with
    /// `cong_control` (0 here until it sets one); 0 before the first RTT sample.
    pub fn sk_pacing_rate(&self) -> u64 {
        if self.tp.pacing_rate > 0 {
            return self.tp.pacing_rate.min(self.tp.max_pacing_rate);
        }
        if self.cc_controls {
            return 0;
        }
        let srtt_us = self.tp.srtt() as u64;
        if srtt_us == 0 {
            return 0;
        }
        // Linux tcp_update_pacing_rate: 200% in slow start's first half, 120% after.
        let ratio = if self.tp.snd_cwnd < self.tp.snd_ssthresh / 2 {
            200
        } else {
            120
        };
        let w = self.tp.snd_cwnd.max(self.tp.packets_out) as u64;
        (self.mss as u64 * w * ratio * 10_000 / srtt_us).min(self.tp.max_pacing_rate)
    }

    /// Linux `__tcp_transmit_skb` and `tcp_update_skb_after_send` with
    /// internal pacing (`SK_PACING_NEEDED`), after segment `seq` left at
    /// `now`: the earliest departure time of the next one moves on by this
    /// one's payload at the pacing rate, less up to half of that for time the
    /// sender let pass (Linux's allowance for OS jitter). The connection's
    /// first 10 segments are not paced, as Linux (after sch_fq) has it.
    fn edt_after_send(&mut self, seq: u64, now: Time) {
        let prior = self.next_send;
        self.next_send = prior.max(now);
        let rate = self.pacing_rate();
        if rate > 0 && rate != u64::MAX && self.counters.segs_sent >= 10 {
            // In ns, as Linux computes it.
            let payload = (self.wire_size(seq) - HEADER_BYTES) as u64;
            let len_ns = payload * (SEC / NS) / rate;
            let credit_ns = (self.next_send - prior) / NS;
            self.next_send += (len_ns - (len_ns / 2).min(credit_ns)) * NS;
        }
        // Linux tcp_wstamp_ns, which BBR reads to predict the flight at the next departure.
        self.tp.tcp_wstamp_ns = self.next_send / NS;
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

    pub(super) fn can_send_new(&self) -> bool {
        !self.stopped
            && self.snd_nxt < self.total_segs
            && self.snd_nxt < self.snd_una.saturating_add(self.rwnd_segs)
    }

    /// Send what cwnd, the receiver window and pacing allow.
    pub fn try_send(&mut self, w: &mut impl Wire) {
        let now = w.now();
        let prior_nxt = self.snd_nxt;
        let mut sent = 0u32;
        if std::mem::take(&mut self.frto_new) {
            // F-RTO step 2b (Linux tcp_xmit_recovery, REXMIT_NEW): new data
            // first; if none could go, F-RTO ends and retransmission resumes.
            sent += self.send_loop(false, now, w);
            if self.snd_nxt <= self.high_seq {
                self.frto = false;
            }
        }
        sent += self.send_loop(true, now, w);
        // Linux tcp_write_xmit: new data went out, schedule a loss probe.
        if self.snd_nxt > prior_nxt {
            self.schedule_loss_probe(false, now, w);
        }
        // Linux tcp_cwnd_validate.
        let limited = self.tp.packets_in_flight() >= self.tp.snd_cwnd;
        if sent > 0 || limited {
            if limited {
                self.tp.app_limited = false;
            }
            if self.snd_una >= self.cwnd_usage_seq
                || limited
                || (!self.tp.is_cwnd_limited && self.tp.packets_out > self.tp.max_packets_out)
            {
                self.tp.is_cwnd_limited = limited;
                self.tp.max_packets_out = self.tp.packets_out;
                self.cwnd_usage_seq = self.snd_nxt;
            }
        }
    }

    /// Send while cwnd and pacing allow: lost segments first (with `retransmit`), then new data.
    fn send_loop(&mut self, retransmit: bool, now: Time, w: &mut impl Wire) -> u32 {
        let mut sent = 0u32;
        loop {
            let rate = self.pacing_rate();
            // Linux tcp_pacing_check: internal pacing waits for the departure time whatever the rate.
            if self.next_send > now && (rate > 0 || self.tp.pacing_needed) {
                self.pace_timer
                    .arm(self.next_send, w.queue(), Event::Pace(self.id));
                break;
            }
            let forced = retransmit && self.force_retx && self.to_retx > 0;
            self.force_retx &= !retransmit;
            let sack1 = self.sack1_recovering();
            let window_full = if sack1 {
                !self.sack1_may_send()
            } else {
                self.tp.packets_in_flight() >= self.tp.snd_cwnd
            };
            if window_full && !forced {
                break;
            }
            let retx = if sack1 && retransmit {
                self.sack1_next_retx()
            } else if retransmit && self.to_retx > 0 {
                self.next_retx()
            } else {
                None
            };
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
            if sack1 {
                self.sack1_sent(seq, retx.is_some(), forced, now, w);
            }
            sent += 1;
            // Unpaced (rate 0): no next send time. Internal pacing keeps its own in `transmit`.
            if let Some(rate) = NonZeroU64::new(rate).filter(|_| !self.tp.pacing_needed) {
                self.next_send = self.next_send.max(now) + self.wire_size(seq) as u64 * SEC / rate;
            }
        }
        sent
    }

    /// RFC 5681 §4.1 / Linux `tcp_cwnd_restart`: after an idle period longer
    /// than the RTO, remember 3/4 of cwnd in ssthresh (`tcp_current_ssthresh`)
    /// and halve cwnd per RTO idle, down to the initial window.
    fn restart_after_idle(&mut self, now: Time) {
        self.tp.now_us = now / US;
        if self.counters.segs_sent > 0 {
            let rto = self.rtt.rto(0);
            let mut idle = now.saturating_sub(self.last_send);
            if idle > rto {
                self.cc.cwnd_event(&mut self.tp, CaEvent::CwndRestart);
                self.tp.snd_ssthresh = self.current_ssthresh();
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

    pub(super) fn wire_size(&self, seq: u64) -> u32 {
        let payload = if seq + 1 == self.total_segs {
            self.last_payload
        } else if self.short_segs.is_empty() {
            self.mss
        } else {
            self.short_segs
                .iter()
                .find(|s| s.0 == seq)
                .map_or(self.mss, |s| s.1)
        };
        payload + HEADER_BYTES
    }

    pub(super) fn transmit(&mut self, seq: u64, retrans: bool, now: Time, w: &mut impl Wire) {
        if retrans {
            // Never retransmit what the receiver has cumulatively acknowledged.
            debug_assert!(seq >= self.snd_una && seq < self.snd_nxt);
            let s = &mut self.sb[(seq - self.snd_una) as usize];
            if s.flags & RETRANS == 0 {
                self.tp.retrans_out += 1;
                if s.flags & LOST != 0 {
                    self.to_retx -= 1;
                }
            }
            s.flags |= RETRANS | EVER_RETRANS;
            s.tx_time = now;
            s.order = self.tx_order;
            self.counters.retrans += 1;
            if self.undo_on || self.frto_on {
                self.undo.on_retransmit(now);
            }
        } else {
            self.time_if_idle(seq, now);
            self.sb.push_back(Seg::new(now, self.tx_order));
            self.snd_nxt += 1;
            self.tp.packets_out += 1;
            self.tp.snd_nxt = self.seq_bytes(self.snd_nxt);
        }
        if self.rate_on {
            self.rate_skb_sent(seq, retrans, now);
        }
        self.tx_order = self.tx_order.wrapping_add(1);
        if self.rack_on {
            self.ts_unlink(seq);
            self.ts_push(seq);
        }
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Cwr) {
            self.prr_out += 1;
        }
        self.counters.segs_sent += 1;
        if self.tp.pacing_needed {
            self.edt_after_send(seq, now);
        }
        self.last_send = now;
        // Linux tcp_event_data_sent: the time of the last data segment, in jiffies.
        self.tp.lsndtime = (now / US / (1_000_000 / self.tp.hz as u64)) as u32;
        if !self.rto_timer.armed() {
            self.rto_expire = now + self.rtt.rto(self.backoff);
            self.arm_timer(XmitTimer::Rto, self.rto_expire, w);
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
                at += self.host_delay(now);
            }
            // Never before an earlier segment: the host hands segments over in order.
            at = at.max(self.last_out);
            self.last_out = at;
        }
        w.send(
            Packet::data(self.id, seq, self.wire_size(seq), ts, flags),
            at,
        );
    }

    /// The host's processing delay of a segment handed over at `now`: its own
    /// draw, or with `jitter_per_send` the draw of the send it joins (ns-2's
    /// delayed send: the segments asked for while it waits leave with it).
    fn host_delay(&mut self, now: Time) -> Time {
        if !self.jitter_per_send {
            return self.rng.random_range(0..=self.jitter);
        }
        let at = match self.send_at {
            Some(at) if now <= at => at,
            _ => now + self.rng.random_range(0..=self.jitter),
        };
        self.send_at = Some(at);
        at - now
    }
}
