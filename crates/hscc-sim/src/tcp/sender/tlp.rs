//! Tail loss probes (RFC 8985 §7, Linux `tcp_schedule_loss_probe`,
//! `tcp_send_loss_probe`, `tcp_process_tlp_ack`), on the retransmission timer
//! they share with the RTO and RACK's reordering timer (`timers.rs`).
//!
//! When new data has gone out or data was acknowledged in Open (or CWR)
//! state, the probe timeout PTO = 2·SRTT + 2 ms (Linux `TCP_TIMEOUT_MIN`,
//! timer slack), or 2·SRTT + 200 ms with a single segment out (RFC 8985's
//! WCDelAckT for a delayed ACK; Linux `TCP_RTO_MIN`), 1 s before any RTT
//! sample (`TCP_TIMEOUT_INIT`), and never later than the RTO would fire
//! (RFC 8985 §7.2; Linux takes the head segment's transmission + RTO, with
//! its RTO of SRTT + max(4·mdev, 200 ms); hscc's RTO follows RFC 6298,
//! restarted by each ACK of new data, and the probe keeps to that time).
//! The probe is a new segment if the receiver window allows (sent whatever
//! cwnd is), else a retransmission of the last segment. One probe per episode:
//! the episode ends when an ACK covers `tlp_high_seq` (snd_nxt at the probe);
//! if it covers more and no D-SACK said the probe was a duplicate, a segment
//! was lost and repaired by the probe, and the window is reduced once (CWR).

use hscc_cc::{CaEvent, CaState};

use super::scoreboard::{AckFlags, SACKED};
use super::timers::{XmitTimer, TIMEOUT_MIN};
use super::{Sender, Wire};
use crate::time::{Time, MS, SEC};

/// RFC 8985 §7.2 WCDelAckT, the worst-case delayed-ACK timer (Linux `TCP_RTO_MIN`).
const WC_DELACK: Time = 200 * MS;
/// Linux `TCP_TIMEOUT_INIT`: the probe timeout before any RTT sample.
const TIMEOUT_INIT: Time = SEC;

impl Sender {
    /// Linux `tcp_schedule_loss_probe`: arm the probe timer if a probe may be
    /// sent; `advancing_rto` when the RTO would be re-armed from now.
    pub(super) fn schedule_loss_probe(
        &mut self,
        advancing_rto: bool,
        now: Time,
        w: &mut impl Wire,
    ) -> bool {
        if !self.tlp_on
            || self.tp.packets_out == 0
            || !matches!(self.tp.ca_state, CaState::Open | CaState::Cwr)
        {
            return false;
        }
        let srtt = self.rtt.srtt();
        let mut pto = match srtt {
            0 => TIMEOUT_INIT,
            _ => {
                2 * srtt
                    + if self.tp.packets_out == 1 {
                        WC_DELACK
                    } else {
                        TIMEOUT_MIN
                    }
            }
        };
        // RFC 8985 §7.2: never after the RTO would expire.
        let until_rto = match advancing_rto {
            true => self.rtt.rto(self.backoff),
            false => self.rto_expire.saturating_sub(now),
        };
        if until_rto > 0 {
            pto = pto.min(until_rto);
        }
        self.arm_timer(XmitTimer::Tlp, now + pto, w);
        true
    }

    /// The probe timer fired (Linux `tcp_send_loss_probe`).
    pub(super) fn on_loss_probe(&mut self, w: &mut impl Wire) {
        let now = w.now();
        if !self.active() || self.tp.packets_out == 0 {
            return;
        }
        self.tp.now_us = now / crate::time::US;
        if self.tlp_high_seq.is_some() {
            self.rearm_rto(true, now, w); // at most one probe outstanding
            return;
        }
        if self.can_send_new() {
            self.tlp_retrans = false;
            self.transmit(self.snd_nxt, false, now, w);
        } else {
            // Retransmit the last segment, although it is not marked lost.
            let last = self.snd_nxt - 1;
            let f = self.sb[(last - self.snd_una) as usize].flags;
            if f & SACKED != 0 {
                self.rearm_rto(true, now, w);
                return;
            }
            self.tlp_retrans = true;
            self.transmit(last, true, now, w);
        }
        self.tlp_high_seq = Some(self.snd_nxt);
        self.counters.tlps += 1;
        self.rearm_rto(false, now, w);
        self.account_slow_start(now);
    }

    /// Linux `tcp_process_tlp_ack`: end the probe episode; a loss the probe
    /// repaired reduces the window once (CWR).
    pub(super) fn process_tlp_ack(&mut self, ack: u64, fl: AckFlags) {
        let Some(high) = self.tlp_high_seq else {
            return;
        };
        if ack < high {
            return;
        }
        if !self.tlp_retrans || fl.dsack_tlp {
            self.tlp_high_seq = None; // new data acknowledged, or the probe was a duplicate
        } else if ack > high {
            // Linux tcp_init_cwnd_reduction, CWR, tcp_end_cwnd_reduction, tcp_try_keep_open.
            self.counters.recoveries += 1;
            self.tlp_high_seq = None;
            self.high_seq = self.snd_nxt;
            self.tp.snd_cwnd_cnt = 0;
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            self.prr_delivered = 0;
            self.prr_out = 0;
            self.tp.snd_ssthresh = self.loss_ssthresh();
            self.set_state(CaState::Cwr);
            if self.tp.snd_ssthresh < hscc_cc::TCP_INFINITE_SSTHRESH {
                self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
            }
            self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
            self.try_to_open();
        } else if fl.dupack && !fl.data_sacked {
            self.tlp_high_seq = None; // a pure duplicate ACK: the original and the probe arrived
        }
    }
}
