//! The scoreboard: one entry per outstanding segment, and what an ACK does to
//! it (Linux `tcp_clean_rtx_queue` for the cumulative ACK,
//! `tcp_sacktag_write_queue` for the SACK blocks). Counting what the ACK newly
//! covered is all that happens here; deciding what it means (losses,
//! reordering, recovery) is left to the other modules.

use hscc_cc::CaState;

use super::{Prior, Sender};
use crate::packet::{Packet, DSACK, HEADER_BYTES};
use crate::tcp::work;
use crate::time::Time;

/// SACKed (Linux `TCPCB_SACKED_ACKED`).
pub(super) const SACKED: u8 = 1;
/// Marked lost (`TCPCB_LOST`).
pub(super) const LOST: u8 = 2;
/// Retransmitted and still outstanding (`TCPCB_SACKED_RETRANS`).
pub(super) const RETRANS: u8 = 4;
/// Retransmitted at least once (`TCPCB_EVER_RETRANS`).
pub(super) const EVER_RETRANS: u8 = 8;
/// On RACK's time-ordered list (`prev`, `next` valid).
pub(super) const LISTED: u8 = 16;
/// Sent while the application limited the sender (Linux `tx.is_app_limited`).
pub(super) const APP_LIMITED: u8 = 32;

/// Scoreboard entry of one outstanding segment.
#[derive(Clone, Copy, Debug)]
pub(super) struct Seg {
    /// When it was last (re)transmitted, ps.
    pub(super) tx_time: Time,
    /// RACK's time-ordered list: neighbours' sequence numbers modulo 2^32
    /// (the window is far below 2^32 segments).
    pub(super) prev: u32,
    /// The next neighbour on that list, likewise.
    pub(super) next: u32,
    /// Number of the (re)transmission among the flow's, modulo 2^32: "sent
    /// after" for RACK, exact also between segments sent at the same time.
    pub(super) order: u32,
    /// `SACKED`, `LOST`, `RETRANS`, `EVER_RETRANS`, `LISTED`, `APP_LIMITED`.
    pub(super) flags: u8,
}

impl Seg {
    pub(super) fn new(tx_time: Time, order: u32) -> Seg {
        Seg {
            tx_time,
            prev: 0,
            next: 0,
            order,
            flags: 0,
        }
    }
}

/// What one ACK told the loss-recovery machinery (a subset of Linux's `FLAG_*`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckFlags {
    /// `snd_una` advanced (`FLAG_SND_UNA_ADVANCED`).
    pub(super) una_advanced: bool,
    /// Newly SACKed data (`FLAG_DATA_SACKED`).
    pub(super) data_sacked: bool,
    /// A never-retransmitted segment below `high_seq` was (S)ACKed (`FLAG_ORIG_SACK_ACKED`).
    pub(super) orig_acked: bool,
    /// A valid D-SACK (`FLAG_DSACKING_ACK`).
    pub(super) dsack: bool,
    /// The D-SACK covers the tail loss probe (`FLAG_DSACK_TLP`).
    pub(super) dsack_tlp: bool,
    /// A duplicate ACK: nothing acknowledged, no D-SACK.
    pub(super) dupack: bool,
}

/// What one ACK newly covered (Linux's `sacktag_state` and the counts `tcp_ack` keeps).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Acked {
    /// Segments newly acknowledged cumulatively (`pkts_acked`).
    pub(super) pkts: u32,
    /// Segments newly acknowledged or SACKed, D-SACKed ones included (`acked_sacked`).
    pub(super) delivered: u32,
    /// Send times of the oldest and the newest segment acknowledged
    /// cumulatively, not SACKed before and never retransmitted (Linux's
    /// `first_ackt`, `last_ackt`), ps.
    pub(super) cum_tx: Option<(Time, Time)>,
    /// Send times of the oldest and the newest newly SACKed segment never
    /// retransmitted (`first_sackt`, `last_sackt`), ps.
    pub(super) sack_tx: Option<(Time, Time)>,
    /// A segment once retransmitted was acknowledged cumulatively
    /// (`FLAG_RETRANS_DATA_ACKED`): Karn's rule forbids the cumulative sample.
    pub(super) retrans_acked: bool,
    /// What the ACK tells loss recovery.
    pub(super) fl: AckFlags,
    /// It acknowledged one short segment, never retransmitted, with nothing
    /// SACKed before: Linux's guess of a delayed ACK, before its last checks.
    pub(super) lone_runt: bool,
}

impl Sender {
    /// The ACK on the scoreboard: the cumulative part, then the SACK blocks,
    /// then what both show together (RACK.rtt, reordering below the highest
    /// SACK); `tp` gets the new `delivered`, `snd_una` and `snd_nxt`.
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    pub(super) fn tag(&mut self, p: &Packet, prior: &Prior, now: Time) -> Acked {
        let mut ack = Acked::default();
        let (reord, rack_rtt) = self.clean_rtx_queue(p, &mut ack, now);
        self.sacktag(p, prior.una, &mut ack, now);
        if let Some(r) = rack_rtt {
            self.rack.rtt = r; // Linux tags SACKs first, then the cumulative ACK: its sample is the last
        }
        if ack.pkts > 0 && self.sack && reord < prior.fack {
            self.check_sack_reordering(reord); // a never-retransmitted hole filled: reordering
        }
        if self.tp.sacked_out == 0 {
            self.high_sacked = 0;
        }
        ack.fl.dupack = ack.pkts == 0 && !ack.fl.dsack;
        self.tp.delivered = self.tp.delivered.wrapping_add(ack.delivered);
        self.sync_tp();
        ack
    }

    /// Linux `tcp_clean_rtx_queue`: drop the cumulatively acknowledged
    /// segments. Returns the lowest never-retransmitted one among them (Linux's
    /// `reord`; `u64::MAX`: none) and RACK's RTT sample, if any.
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    fn clean_rtx_queue(&mut self, p: &Packet, ack: &mut Acked, now: Time) -> (u64, Option<Time>) {
        let pkts_acked = (p.seq - self.snd_una) as u32;
        ack.pkts = pkts_acked;
        if pkts_acked == 1 && self.tp.sacked_out == 0 && self.rate_on {
            let f = self.sb[0].flags;
            ack.lone_runt = f & (SACKED | EVER_RETRANS) == 0
                && self.wire_size(self.snd_una) - HEADER_BYTES < self.mss;
        }
        work::step(pkts_acked as u64);
        let mut reord = u64::MAX;
        let mut sacked_gone = 0u32;
        let mut rack_rtt = None;
        let rate_on = self.rate_on;
        for k in 0..pkts_acked as usize {
            let seq = self.snd_una;
            if self.rack_on {
                let s = self.sb[0];
                if s.flags & SACKED == 0 && !self.spurious_retrans(&s, p) {
                    rack_rtt = self.rack_advance(seq, s, now).or(rack_rtt);
                }
                self.ts_unlink(seq);
            }
            let s = self
                .sb
                .pop_front()
                .expect("scoreboard covers snd_una..snd_nxt");
            self.snd_una += 1;
            if s.flags & SACKED != 0 {
                self.tp.sacked_out -= 1;
                sacked_gone += 1;
            } else {
                ack.delivered += 1;
                if rate_on {
                    self.rate_skb_delivered(seq, &s, k, false);
                }
                if s.flags & EVER_RETRANS == 0 {
                    // Originals left in sequence order: the first is the oldest.
                    ack.cum_tx = Some((ack.cum_tx.map_or(s.tx_time, |(old, _)| old), s.tx_time));
                    reord = reord.min(seq);
                    ack.fl.orig_acked |= seq < self.high_seq;
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
            ack.retrans_acked |= s.flags & EVER_RETRANS != 0;
        }
        if pkts_acked > 0 {
            if rate_on {
                self.rate.stamps.drain(..pkts_acked as usize);
            }
            ack.fl.una_advanced = true;
            self.rto_retransmits = 0;
            self.tp.packets_out -= pkts_acked;
            if self.lost_scan <= self.snd_una {
                (self.lost_scan, self.lost_cnt) = (self.snd_una, 0);
            } else {
                self.lost_cnt -= sacked_gone.min(self.lost_cnt);
            }
            if !self.sack {
                // Linux tcp_remove_reno_sacks: one ACK fills the hole, the rest eat duplicate ACKs.
                self.tp.sacked_out = self.tp.sacked_out.saturating_sub(pkts_acked - 1);
            }
        }
        (reord, rack_rtt)
    }

    /// Linux `tcp_sacktag_write_queue`: the SACK blocks, skipping ranges
    /// already processed for the previous ACK; without SACK, a duplicate ACK
    /// counted as Linux's Reno emulation does.
    #[inline(always)] // a step of on_ack: out of line it costs 1.4 % of a run
    fn sacktag(&mut self, p: &Packet, prior_una: u64, ack: &mut Acked, now: Time) {
        if self.sack && p.nsack > 0 {
            let mut sack_reord = u64::MAX;
            let mut first = 0;
            if p.flags & DSACK != 0 {
                first = 1;
                self.dsack_block(
                    p,
                    prior_una,
                    &mut ack.fl,
                    &mut sack_reord,
                    &mut ack.delivered,
                    now,
                );
            }
            let mut cache = [(0u64, 0u64); 3];
            for (i, &(a, b)) in p.sack[first..p.nsack as usize].iter().enumerate() {
                let (start, end) = (p.seq + a as u64, p.seq + b as u64);
                cache[i] = (start, end);
                if self.sack_cache.contains(&(start, end)) {
                    continue; // reported unchanged: the common case, skip the subtraction
                }
                let clipped = (start.max(self.snd_una), end.min(self.snd_nxt));
                for (s, e) in subtract(clipped, &self.sack_cache) {
                    if s < e {
                        self.sack_range(
                            s,
                            e,
                            &mut ack.delivered,
                            &mut ack.sack_tx,
                            &mut ack.fl,
                            &mut sack_reord,
                            now,
                        );
                    }
                }
            }
            self.sack_cache = cache;
            if self.tp.ca_state != CaState::Loss || self.undo.marker.is_some() {
                self.check_sack_reordering(sack_reord);
            }
        } else if !self.sack && ack.pkts == 0 && self.tp.packets_out > 0 {
            // A duplicate ACK: Linux's Reno emulation counts it as a SACKed segment.
            if self.tp.sacked_out + 1 < self.tp.packets_out {
                self.tp.sacked_out += 1;
                ack.delivered += 1;
            }
        }
    }

    /// Linux `tcp_highest_sack_seq`: the end of the highest SACKed segment, or `snd_una`.
    pub(super) fn highest_sack_seq(&self) -> u64 {
        if self.tp.sacked_out == 0 || !self.sack {
            self.snd_una
        } else {
            self.high_sacked
        }
    }

    /// Linux `tcp_sacktag_one` for newly SACKed segments `start..end`.
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors tcp_sacktag_one: its arguments and the outputs Linux keeps in sacktag_state"
    )]
    pub(super) fn sack_range(
        &mut self,
        start: u64,
        end: u64,
        delivered: &mut u32,
        sack_tx: &mut Option<(Time, Time)>,
        fl: &mut AckFlags,
        reord: &mut u64,
        now: Time,
    ) {
        work::step(end - start);
        for seq in start..end {
            let s = self.sb[(seq - self.snd_una) as usize];
            if s.flags & SACKED != 0 {
                continue;
            }
            if self.rack_on {
                self.rack_advance(seq, s, now);
                self.ts_unlink(seq);
            }
            if self.rate_on {
                self.rate_skb_delivered(seq, &s, (seq - self.snd_una) as usize, true);
            }
            let s = &mut self.sb[(seq - self.snd_una) as usize];
            s.flags |= SACKED;
            self.tp.sacked_out += 1;
            *delivered += 1;
            fl.data_sacked = true;
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
                widen(sack_tx, s.tx_time);
                // A hole below the highest SACK filled by an original: reordering.
                if seq + 1 < self.high_sacked {
                    *reord = (*reord).min(seq);
                }
                fl.orig_acked |= seq < self.high_seq;
            }
            if seq < self.lost_scan {
                self.lost_cnt += 1;
            }
            self.high_sacked = self.high_sacked.max(seq + 1);
        }
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
        let sacked_ok = if self.sack {
            sacked == tp.sacked_out
        } else {
            sacked == 0
        };
        if !sacked_ok
            || lost != tp.lost_out
            || retrans != tp.retrans_out
            || pending != self.to_retx
            || self.sb.len() as u64 != self.snd_nxt - self.snd_una
            || tp.packets_out as u64 != self.snd_nxt - self.snd_una
            || (self.rate_on && self.rate.stamps.len() != self.sb.len())
        {
            return Err(format!(
                "scoreboard mismatch: flags (sacked {sacked}, lost {lost}, retrans {retrans}, to_retx {pending}) vs counters ({}, {}, {}, {}), packets_out {} window {}",
                tp.sacked_out, tp.lost_out, tp.retrans_out, self.to_retx, tp.packets_out, self.snd_nxt - self.snd_una
            ));
        }
        self.check_ts_list()
    }
}

/// `span` widened to cover send time `t`: (oldest, newest).
#[inline(always)]
fn widen(span: &mut Option<(Time, Time)>, t: Time) {
    *span = Some(match *span {
        Some((old, new)) => (old.min(t), new.max(t)),
        None => (t, t),
    });
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
    use super::subtract;

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
