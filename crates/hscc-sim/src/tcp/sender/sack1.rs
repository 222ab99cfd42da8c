//! ns-2.35's fast recovery of Agent/TCP/Sack1 (`recovery = "sack1"`,
//! tcp/tcp-sack1.cc with the RQ scoreboard, tcp/scoreboard-rq.cc):
//!
//! - entry (`dupack_action`): `pipe_ = maxseq_ - highest_ack_ -
//!   numdupacks(cwnd_)`, i.e. the segments outstanding less DupThresh; cwnd =
//!   ssthresh at once (`slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF)`); the
//!   RTO restarts; the head is retransmitted by `output()`, outside
//!   `send_much`, so it does not count in the pipe, and nothing else is sent
//!   on that ACK;
//! - every later ACK in recovery (`recv`): `--pipe_`, and once more for a
//!   partial ACK (`partial_ack_` is false by default in ns-default.tcl);
//! - sending (`send_much`): while `pipe_ < cwnd_`, the next hole
//!   (`ScoreBoardRQ::GetNextRetran`: the first un-SACKed segment at or above
//!   the retransmission pointer with SACKed data above it; each hole once per
//!   recovery), else new data within the receiver window; `pipe_++` per
//!   segment; `maxburst_` is 0 (no cap) by default;
//! - exit when `recover_` (`snd_nxt` at entry, hscc's `high_seq`) is acked,
//!   as every mode.
//!
//! The pipe falls by one per ACK whatever the number of losses, unlike RFC
//! 6675's, which also drops by each segment marked lost: a large loss burst
//! is repaired one segment per ACK, and when more than about half the window
//! was lost the ACKs run out before the pipe falls below cwnd and the RTO
//! fires, as in ns-2.

use hscc_cc::CaState;

use super::scoreboard::SACKED;
use super::{Sender, Wire};
use crate::tcp::work;
use crate::time::Time;

/// The state of a Sack1 recovery.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sack1Pipe {
    /// The flow's recovery is "sack1".
    pub(super) on: bool,
    /// ns-2's `pipe_`: segments the sender counts in the network.
    pipe: i64,
    /// The scoreboard's `h_seqno_`: holes below it are not retransmitted
    /// again in this recovery (a lost retransmission waits for the RTO).
    next_retx: u64,
    /// The ACK that entered recovery sends nothing but the fast retransmission.
    hold: bool,
}

impl Sack1Pipe {
    pub(super) fn new(on: bool) -> Sack1Pipe {
        Sack1Pipe {
            on,
            ..Sack1Pipe::default()
        }
    }
}

impl Sender {
    /// Whether the window is the Sack1 pipe's: a "sack1" flow in recovery.
    #[inline]
    pub(super) fn sack1_recovering(&self) -> bool {
        self.sack1.on && self.tp.ca_state == CaState::Recovery
    }

    /// `dupack_action` at the start of a recovery: the pipe from the segments outstanding.
    pub(super) fn sack1_enter(&mut self) {
        let outstanding = (self.snd_nxt - self.snd_una) as i64;
        self.sack1.pipe = outstanding - self.reordering as i64;
        self.sack1.next_retx = self.snd_una;
        self.sack1.hold = true;
    }

    /// An ACK during recovery, neither the one that began it nor the one that
    /// ends it: one segment left the network, two for a partial ACK (`una_advanced`).
    pub(super) fn sack1_on_ack(&mut self, una_advanced: bool) {
        self.sack1.pipe -= 1 + una_advanced as i64;
        self.sack1.hold = false;
    }

    /// `send_much`'s condition: `pipe_ < cwnd_`.
    #[inline]
    pub(super) fn sack1_may_send(&self) -> bool {
        !self.sack1.hold && self.sack1.pipe < self.tp.snd_cwnd as i64
    }

    /// `GetNextRetran`: the first hole at or above the pointer with SACKed
    /// data above it. SACKed segments stay SACKed, so the walk resumes where it stopped.
    pub(super) fn sack1_next_retx(&mut self) -> Option<u64> {
        let top = self.highest_sack_seq();
        let mut seq = self.sack1.next_retx.max(self.snd_una);
        while seq < top {
            work::step(1);
            if self.sb[(seq - self.snd_una) as usize].flags & SACKED == 0 {
                self.sack1.next_retx = seq;
                return Some(seq);
            }
            seq += 1;
        }
        self.sack1.next_retx = seq;
        None
    }

    /// Segment `seq` was sent at `now`: `pipe_++`, but for the fast
    /// retransmission (`forced`), which restarts the RTO instead
    /// (`reset_rtx_timer(1, 0)`); a hole retransmitted is passed (`MarkRetran`).
    pub(super) fn sack1_sent(
        &mut self,
        seq: u64,
        retrans: bool,
        forced: bool,
        now: Time,
        w: &mut impl Wire,
    ) {
        if forced {
            self.rearm_rto(false, now, w);
        } else {
            self.sack1.pipe += 1;
        }
        if retrans {
            self.sack1.next_retx = self.sack1.next_retx.max(seq + 1);
        }
    }
}
