//! Undo of spurious window reductions (Linux `tcp_try_undo_*`,
//! `tcp_undo_cwnd_reduction`), D-SACK processing at the sender (RFC 2883,
//! RFC 3708; Linux `tcp_check_dsack`, `tcp_dsack_seen`) and F-RTO
//! (RFC 5682 §3, SACK-enhanced; Linux `tcp_process_loss`).
//!
//! Entering recovery or a timeout records `undo_marker` = snd_una,
//! prior_ssthresh (Linux `tcp_current_ssthresh`) and `undo_retrans`, the
//! retransmissions in the episode. The reduction was spurious when
//! - D-SACKs came back for every retransmission (`undo_retrans` = 0: each was
//!   a duplicate, RFC 3708), checked on every ACK in Recovery, Disorder and Open;
//! - the ACK that completes recovery, or one in Loss that advances, echoes a
//!   timestamp older than the first retransmission (Eifel detection, RFC 3522:
//!   the original arrived), or nothing was retransmitted;
//! - a partial ACK in recovery echoes such a timestamp: the hole was filled
//!   by the delayed original (also evidence of reordering);
//! - with F-RTO, after a timeout, never-retransmitted data below the
//!   timeout's snd_nxt is acknowledged or SACKed.
//!
//! Undoing sets cwnd to the algorithm's `undo_cwnd` and ssthresh back to
//! prior_ssthresh if higher; after a timeout or a partial ACK, segments marked
//! lost are unmarked. Segments unmarked this way are not put back on RACK's
//! list, as in Linux: they are repaired by the cumulative ACK, SACK or the RTO.

use hscc_cc::CaState;

use super::scoreboard::{AckFlags, Seg, EVER_RETRANS, LOST, RETRANS, SACKED};
use super::Sender;
use crate::packet::Packet;
use crate::tcp::work;
use crate::time::Time;

/// Undo bookkeeping of the current episode.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Undo {
    /// `snd_una` when the episode began (Linux `undo_marker`; None: nothing to undo).
    pub(super) marker: Option<u64>,
    /// Retransmissions not yet shown spurious by a D-SACK (`undo_retrans`; -1: none made).
    retrans: i32,
    /// ssthresh to restore, segments (Linux `prior_ssthresh`; 0: none).
    prior_ssthresh: u32,
    /// Time of the first retransmission, ps (Linux `retrans_stamp`).
    retrans_stamp: Option<Time>,
    /// Segments D-SACKed over the connection (Linux `dsack_dups`).
    dsack_dups: u64,
}

impl Undo {
    /// A segment is retransmitted (Linux `tcp_retransmit_skb`).
    pub(super) fn on_retransmit(&mut self, now: Time) {
        self.retrans_stamp.get_or_insert(now);
        self.retrans = self.retrans.max(0) + 1;
    }
}

impl Sender {
    /// Linux `tcp_init_undo` (and `prior_ssthresh`), at the start of an episode.
    pub(super) fn init_undo(&mut self, prior_ssthresh: u32) {
        self.undo.prior_ssthresh = prior_ssthresh;
        self.undo.marker = Some(self.snd_una);
        let tlp = (self.tlp_high_seq.is_some() && self.tlp_retrans) as u32;
        self.undo.retrans = match self.tp.retrans_out + tlp {
            0 => -1,
            n => n as i32,
        };
        if !self.any_retrans_done() {
            self.undo.retrans_stamp = None;
        }
    }

    /// Linux `tcp_enter_cwr`: `prior_ssthresh = 0`, and with a new reduction
    /// `undo_marker = 0`.
    pub(super) fn forget_undo(&mut self, marker: bool) {
        self.undo.prior_ssthresh = 0;
        if marker {
            self.undo.marker = None;
        }
    }

    /// Linux `tcp_any_retrans_done`.
    fn any_retrans_done(&self) -> bool {
        self.tp.retrans_out > 0 || self.sb.front().is_some_and(|s| s.flags & EVER_RETRANS != 0)
    }

    /// Linux `tcp_skb_spurious_retrans`: the ACK echoes a timestamp older than
    /// this segment's retransmission.
    pub(super) fn spurious_retrans(&self, s: &Seg, p: &Packet) -> bool {
        s.flags & EVER_RETRANS != 0 && self.timestamps && p.ts > 0 && p.ts < s.tx_time
    }

    /// Linux `tcp_packet_delayed`: the echoed timestamp predates the first
    /// retransmission, or nothing was retransmitted.
    fn packet_delayed(&self, p: &Packet) -> bool {
        match self.undo.retrans_stamp {
            None => true,
            Some(t) => self.timestamps && p.ts > 0 && p.ts < t,
        }
    }

    /// Linux `tcp_may_undo`.
    fn may_undo(&self, p: &Packet) -> bool {
        self.undo.marker.is_some() && (self.undo.retrans == 0 || self.packet_delayed(p))
    }

    /// Linux `tcp_undo_cwnd_reduction`.
    fn undo_cwnd_reduction(&mut self, unmark_loss: bool) {
        if unmark_loss {
            work::step(self.sb.len() as u64);
            for s in self.sb.iter_mut() {
                s.flags &= !LOST;
            }
            self.tp.lost_out = 0;
            self.to_retx = 0;
            (self.lost_scan, self.lost_cnt) = (self.snd_una, 0);
        }
        if self.undo.prior_ssthresh != 0 {
            self.tp.snd_cwnd = self.cc.undo_cwnd(&mut self.tp).max(1);
            self.tp.snd_ssthresh = self.tp.snd_ssthresh.max(self.undo.prior_ssthresh);
        }
        self.undo.marker = None;
        self.rack.advanced = true; // RACK re-examines the scoreboard
        self.counters.undos += 1;
    }

    /// Linux `tcp_try_undo_recovery`, when recovery (or Loss) is complete.
    pub(super) fn try_undo_recovery(&mut self, p: &Packet) -> bool {
        if self.may_undo(p) {
            self.undo_cwnd_reduction(false);
            return true;
        }
        self.rack.reo_wnd_persist = self.rack.reo_wnd_persist.saturating_sub(1);
        false
    }

    /// Linux `tcp_try_undo_dsack`: every retransmission came back as a duplicate.
    pub(super) fn try_undo_dsack(&mut self) -> bool {
        if self.undo.marker.is_some() && self.undo.retrans == 0 {
            self.rack.reo_wnd_persist = (self.rack.reo_wnd_persist + 1).min(16);
            self.undo_cwnd_reduction(false);
            return true;
        }
        false
    }

    /// Linux `tcp_try_undo_partial`: a partial ACK in recovery whose timestamp
    /// shows the delayed original filled the hole. Returns true when
    /// retransmissions are still out: then nothing more is marked lost.
    pub(super) fn try_undo_partial(&mut self, p: &Packet, prior_una: u64) -> bool {
        if self.undo.marker.is_none() || !self.packet_delayed(p) {
            return false;
        }
        self.check_sack_reordering(prior_una);
        if self.tp.retrans_out > 0 {
            return true;
        }
        if !self.any_retrans_done() {
            self.undo.retrans_stamp = None;
        }
        self.undo_cwnd_reduction(true);
        self.try_to_open();
        false
    }

    /// Linux `tcp_try_undo_loss`.
    fn try_undo_loss(&mut self, p: &Packet, frto_undo: bool) -> bool {
        if !(frto_undo || (self.undo_on && self.may_undo(p))) {
            return false;
        }
        self.undo_cwnd_reduction(true);
        self.rto_retransmits = 0;
        if frto_undo || self.sack {
            self.set_state(CaState::Open);
            self.try_to_open();
        }
        true
    }

    /// Linux `tcp_process_loss`: an ACK in Loss state. F-RTO (RFC 5682 §3.1):
    /// the first ACK that advances sends new data (step 2b); an ACK of never
    /// retransmitted data then shows the timeout was spurious (step 3b), SACKs
    /// or duplicate ACKs that it was not (3a).
    pub(super) fn process_loss(&mut self, p: &Packet, fl: AckFlags) {
        let recovered = self.snd_una >= self.high_seq;
        if fl.una_advanced && self.try_undo_loss(p, false) {
            return;
        }
        if self.frto {
            if fl.orig_acked && self.try_undo_loss(p, true) {
                return;
            }
            if self.snd_nxt > self.high_seq {
                if fl.data_sacked || fl.dupack {
                    self.frto = false; // step 3a: the loss was real
                }
            } else if fl.una_advanced && !recovered {
                self.high_seq = self.snd_nxt;
                if self.can_send_new() {
                    self.frto_new = true; // step 2b
                    return;
                }
                self.frto = false;
            }
        }
        if recovered {
            // F-RTO step 2a: conventional recovery completed.
            if self.undo_on {
                self.try_undo_recovery(p);
            }
            self.set_open();
        }
    }

    /// A D-SACK block (always the first; Linux `tcp_check_dsack`,
    /// `tcp_dsack_seen`, and `tcp_sacktag_one` for the part above snd_una).
    pub(super) fn dsack_block(
        &mut self,
        p: &Packet,
        prior_una: u64,
        fl: &mut AckFlags,
        reord: &mut u64,
        delivered: &mut u32,
        now: Time,
    ) {
        let (a, b) = p.sack[0];
        let start = p.seq.wrapping_add(a as i32 as i64 as u64);
        let end = p.seq.wrapping_add(b as i32 as i64 as u64);
        if start >= end || end > self.snd_nxt {
            return;
        }
        let dup = end - start;
        if dup == 1 && self.tlp_high_seq == Some(end) {
            fl.dsack_tlp = true;
        }
        self.undo.dsack_dups += dup;
        if self.undo.dsack_dups > self.counters.retrans {
            return; // not caused by a retransmission of ours: ignore
        }
        if self.reord_seen > 0 && !fl.dsack_tlp {
            self.rack.dsack_seen = true;
        }
        fl.dsack = true;
        *delivered += dup as u32; // a spurious retransmission was delivered
        let marker = self.undo.marker;
        if let Some(m) = marker {
            if self.undo.retrans > 0 && end <= prior_una && end > m {
                self.undo.retrans = (self.undo.retrans - dup as i32).max(0); // data already acknowledged
            }
        }
        for seq in start.max(self.snd_una)..end {
            let s = self.sb[(seq - self.snd_una) as usize];
            if s.flags & EVER_RETRANS != 0 {
                if marker.is_some_and(|m| seq + 1 > m) && self.undo.retrans > 0 {
                    self.undo.retrans -= 1;
                }
                if s.flags & SACKED != 0 {
                    *reord = (*reord).min(seq);
                }
            }
            if s.flags & SACKED == 0 {
                let (mut nt, mut r) = (None, u64::MAX);
                self.sack_range(seq, seq + 1, delivered, &mut nt, fl, &mut r, now);
            } else if s.flags & RETRANS != 0 {
                self.sb[(seq - self.snd_una) as usize].flags &= !RETRANS;
                self.tp.retrans_out -= 1;
            }
        }
    }
}
