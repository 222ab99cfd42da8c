//! Marking segments lost without RACK, and the reordering degree: RFC 6675
//! `IsLost` with DupThresh = the reordering degree (Linux
//! `tcp_mark_head_lost`), NewReno's head marking, the timeout's marking of
//! the whole window (`tcp_timeout_mark_lost`), and the reordering degree as
//! Linux adapts it (`tcp_check_sack_reordering`). RACK marks in `rack.rs`.

use hscc_cc::CaState;

use super::scoreboard::{LOST, RETRANS, SACKED};
use super::Sender;
use crate::tcp::work;
use crate::time::Time;

impl Sender {
    /// Linux `tcp_check_sack_reordering`: `low` was delivered after data above it.
    pub(super) fn check_sack_reordering(&mut self, low: u64) {
        let fack = self.highest_sack_seq();
        if low >= fack {
            return;
        }
        let metric = fack - low;
        if metric > self.reordering as u64 {
            self.reordering = metric.min(self.max_reordering as u64) as u32;
        }
        self.reord_seen += 1;
    }

    /// RFC 6675 IsLost with DupThresh = the reordering degree (Linux
    /// `tcp_mark_head_lost` from `tcp_update_scoreboard`): an un-SACKed
    /// segment is lost once at least `reordering` segments above it are
    /// SACKed. The walk resumes where it stopped, with the count of SACKed
    /// segments below (kept as segments are SACKed or acknowledged), so a long
    /// hole below fewer SACKs is not walked again on every ACK.
    pub(super) fn mark_lost_dupthresh(&mut self) {
        if self.tp.sacked_out < self.reordering {
            return;
        }
        let allowed = self.tp.sacked_out - self.reordering; // SACKed segments a lost one may have below it
        if self.lost_scan < self.snd_una {
            (self.lost_scan, self.lost_cnt) = (self.snd_una, 0);
        }
        let (mut seq, mut cnt) = (self.lost_scan, self.lost_cnt);
        while seq < self.snd_nxt {
            work::step(1);
            (self.lost_scan, self.lost_cnt) = (seq, cnt);
            cnt += (self.sb[(seq - self.snd_una) as usize].flags & SACKED != 0) as u32;
            if cnt > allowed {
                return; // fewer than `reordering` SACKed segments above
            }
            self.mark_lost(seq);
            seq += 1;
        }
        (self.lost_scan, self.lost_cnt) = (seq, cnt);
    }

    /// Without SACK: the segment at `snd_una` is lost (NewReno).
    pub(super) fn mark_head_lost(&mut self) {
        self.mark_lost(self.snd_una);
    }

    fn mark_lost(&mut self, seq: u64) {
        let s = &mut self.sb[(seq - self.snd_una) as usize];
        if s.flags & (SACKED | LOST | RETRANS) != 0 {
            return;
        }
        s.flags |= LOST;
        self.tp.lost_out += 1;
        self.tp.lost = self.tp.lost.wrapping_add(1);
        self.to_retx += 1;
        self.retx_hint = self.retx_hint.min(seq);
        self.counters.lost_fast += 1;
        if self.rack_on {
            self.ts_unlink(seq);
        }
        self.report_lost(seq);
    }

    /// Linux `tcp_timeout_mark_lost` and what `tcp_enter_loss` does to the
    /// reordering degree: every un-SACKed outstanding segment is lost (with
    /// RACK, but those sent within the last RACK.rtt) and their
    /// retransmissions are forgotten.
    pub(super) fn timeout_mark_lost(&mut self, prior_state: CaState, now: Time) {
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
            if s.flags & LOST == 0 {
                self.report_lost(una + i as u64);
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
    }
}

#[cfg(test)]
mod tests {
    use hscc_cc::{CaState, CcParams};

    use super::super::scoreboard::{EVER_RETRANS, LOST, RETRANS, SACKED};
    use super::super::Sender;
    use crate::config::FlowConfig;
    use crate::rng::{component_rng, Component};
    use crate::tcp::work;
    use crate::testing::{ack, NullWire};
    use crate::time::MS;

    #[test]
    fn sack_loss_marking_does_not_walk_a_long_hole_on_every_ack() {
        const W: u64 = 80_000;
        let mut cfg =
            FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap()).with_classic_recovery();
        cfg.init_cwnd = W as u32;
        let mut s = Sender::new(0, &cfg, component_rng(1, Component::Sender, 0));
        let mut w = NullWire::default();
        s.start(&mut w);
        w.now = 100 * MS;
        // 10 and the top two arrive: 0..10 lie below three SACKed segments and
        // are lost; 11..W-2 lie below only two, so they are not (yet).
        let blocks = [(10, 11), (W - 2, W)];
        s.on_ack(&ack(0, &blocks), &mut w);
        assert_eq!((s.tp.ca_state, s.tp.lost_out), (CaState::Recovery, 10));
        work::take();
        // Retransmissions of 0..10 are acknowledged, then duplicate ACKs follow.
        for una in (1..=9).chain([11; 20]) {
            s.on_ack(&ack(una, &blocks[(una > 10) as usize..]), &mut w);
        }
        assert_eq!((s.snd_una(), s.tp.lost_out), (11, 0));
        s.check_scoreboard().unwrap();
        // Scanning down from the highest SACK for the third one took ~W per ACK
        // (2.3 million entries here); now it is about one per ACK.
        let steps = work::take();
        assert!(
            steps <= 4 * 29,
            "{steps} scoreboard entries visited for 29 ACKs"
        );
    }

    proptest::proptest! {
        /// The resumed walk marks exactly what RFC 6675 IsLost says: after
        /// every ACK, an un-SACKed segment never retransmitted is marked lost
        /// if `reordering` or more segments above it are SACKed, and (unless a
        /// timeout marked it) only then, whatever the order of SACKs,
        /// cumulative ACKs, timeouts and new data.
        #[test]
        fn duplicate_threshold_marking_is_rfc6675_islost(
            ops in proptest::collection::vec((0u8..8, 0u64..40, 1u64..6), 1..60),
            reordering in 1u32..6,
        ) {
            let cfg = FlowConfig { reordering, max_reordering: reordering, init_cwnd: 40,
                ..FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap()).with_classic_recovery() };
            let mut s = Sender::new(0, &cfg, component_rng(1, Component::Sender, 0));
            let mut w = NullWire::default();
            s.start(&mut w);
            let mut blocks: Vec<(u64, u64)> = Vec::new();
            let mut rto_nxt = 0; // segments below were outstanding at the last timeout
            for (i, &(op, at, len)) in ops.iter().enumerate() {
                w.now = (i as u64 + 1) * MS;
                let (una, nxt) = (s.snd_una(), s.snd_nxt());
                if op == 0 {
                    s.on_rto(&mut w);
                    rto_nxt = nxt;
                    continue;
                }
                let una = match op {
                    1 => (una + len).min(nxt),
                    2 => nxt.saturating_sub(at % 8).max(una), // most of the window at once
                    _ => una,
                };
                let start = una + 1 + at;
                if op >= 4 && start < nxt {
                    blocks.insert(0, (start, (start + len).min(nxt)));
                }
                blocks.retain(|b| b.1 > una);
                blocks.truncate(3);
                let sack: Vec<(u64, u64)> = blocks.iter().map(|&(a, b)| (a.max(una + 1), b)).filter(|b| b.0 < b.1).collect();
                s.on_ack(&ack(una, &sack), &mut w);
                s.check_scoreboard().map_err(proptest::test_runner::TestCaseError::fail)?;
                let mut above = 0;
                for seq in (s.snd_una()..s.snd_nxt()).rev() {
                    let f = s.sb[(seq - s.snd_una()) as usize].flags;
                    if f & SACKED != 0 {
                        above += 1;
                    } else if f & (EVER_RETRANS | RETRANS) == 0 && (above >= reordering || seq >= rto_nxt) {
                        proptest::prop_assert_eq!(f & LOST != 0, above >= reordering, "segment {} with {} SACKed above", seq, above);
                    }
                }
            }
        }
    }
}
