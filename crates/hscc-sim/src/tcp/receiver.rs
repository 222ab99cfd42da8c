//! TCP receiver: cumulative ACK, up to three SACK blocks (RFC 2018: the block
//! holding the newest segment first, then the most recently reported ones),
//! delayed ACKs (RFC 5681 §4.2, RFC 1122: every `delack_segments` full
//! segments or after the timer, which runs from the first unacknowledged
//! segment; an immediate ACK for out-of-order data, for data that fills a hole
//! and for duplicates, whatever `delack_segments` is), and the timestamp echo
//! of RFC 7323 §4.3 (the TSval of the earliest segment the ACK covers).
//! With `dsack`, a duplicate segment is reported in a D-SACK block (RFC 2883
//! §4, Linux `tcp_dsack_set`): the first block of the next ACK, once, ahead of
//! at most two ordinary blocks.
//! With `quick_acks` = N, the first N new data segments are each acknowledged
//! at once, as Linux's receiver does while it opens its receive window:
//! `tcp_grow_window` (net/ipv4/tcp_input.c), run for every segment of 128
//! bytes or more that arrives in order (or out of order, with SACK), raises
//! `rcv_ssthresh` by max(2·advmss, 2·len) toward min(window clamp, free
//! buffer) and sets `icsk_ack.quick`, so each such segment is ACKed on
//! arrival; the window is open after about (clamp − initial window) / (2·MSS)
//! segments. (Linux's quick-ACK mode on a connection's first data, up to 16
//! segments, falls inside that count.) Off by default (ns-2's and ns-3's
//! receivers delay from the first segment).

use crate::config::FlowConfig;
use crate::event::Timer;
use crate::packet::{Packet, DSACK, ECE, HEADER_BYTES};
use crate::tcp::ecn::EcnReceiver;
use crate::tcp::intervals::IntervalSet;
use crate::time::Time;
use hscc_cc::TCP_CONG_NEEDS_ECN;

/// What the receiver wants after a segment arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxAction {
    /// Send an ACK now.
    AckNow,
    /// Arm the delayed-ACK timer for this time (if not already armed).
    Delay(Time),
}

/// Receiver state of one flow.
#[derive(Clone, Debug)]
pub struct Receiver {
    /// Next segment expected in order.
    pub rcv_nxt: u64,
    /// Segments received above `rcv_nxt`.
    ooo: IntervalSet,
    /// The blocks to report, newest first (RFC 2018).
    recent: [(u64, u64); 3],
    nrecent: usize,
    /// Report duplicates (RFC 2883).
    dsack: bool,
    /// The sender uses SACK.
    sack: bool,
    /// The duplicate segment to report in the next ACK.
    dup: Option<u64>,
    pending: u32,
    echo_ts: Time,
    delayed: bool,
    delack_segments: u32,
    delack_timeout: Time,
    /// New segments still to be acknowledged one by one (window opening).
    quick_acks: u64,
    mss: u64,
    size: u64,
    ack_size: u32,
    /// Delayed-ACK timer.
    pub delack: Timer,
    /// Payload bytes delivered in order.
    pub delivered_bytes: u64,
    /// ECN: CE echo and its quick ACKs.
    ecn: EcnReceiver,
    /// DCTCP: the ACK due before the next one (rcv_nxt, ECE, TSecr).
    prior_ack: Option<(u64, bool, Time)>,
}

impl Receiver {
    /// A receiver for `cfg`'s flow.
    pub fn new(cfg: &FlowConfig) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            ooo: IntervalSet::new(),
            recent: [(0, 0); 3],
            nrecent: 0,
            dsack: cfg.dsack,
            sack: cfg.sack,
            dup: None,
            pending: 0,
            echo_ts: 0,
            delayed: cfg.delayed_ack,
            delack_segments: cfg.delack_segments,
            delack_timeout: cfg.delack_timeout,
            quick_acks: cfg.quick_acks,
            mss: cfg.mss as u64,
            size: cfg.size.unwrap_or(u64::MAX),
            ack_size: HEADER_BYTES,
            delack: Timer::default(),
            delivered_bytes: 0,
            ecn: if cfg.cc.flags() & TCP_CONG_NEEDS_ECN != 0 {
                EcnReceiver::needs_ecn()
            } else {
                EcnReceiver::new(cfg.ecn)
            },
            prior_ack: None,
        }
    }

    /// Data segments that arrived CE-marked (ECN on).
    pub fn ce_received(&self) -> u64 {
        self.ecn.ce_received
    }

    /// Segments held out of order.
    pub fn out_of_order(&self) -> u64 {
        self.ooo.covered()
    }

    /// A data segment arrived at `now`.
    pub fn on_data(&mut self, p: &Packet, now: Time) -> RxAction {
        let s = p.seq;
        let ecn_ack_now = self.ecn.on_segment(p, s >= self.rcv_nxt, self.pending > 0);
        if let Some(ece) = self.ecn.prior_ece.take() {
            // DCTCP: the delayed ACK goes first, with the CE state it covers.
            self.prior_ack = Some((self.rcv_nxt, ece, self.echo_ts));
            self.pending = 0;
        }
        if s == self.rcv_nxt {
            let opening = self.open_window();
            if self.pending == 0 {
                self.echo_ts = p.ts;
            }
            self.rcv_nxt += 1;
            let filled_hole = match self.ooo.pop_first_at(self.rcv_nxt) {
                Some(end) => {
                    self.rcv_nxt = end;
                    true
                }
                None => false,
            };
            self.deliver_upto();
            self.pending += 1;
            if filled_hole
                || !self.ooo.is_empty()
                || !self.delayed
                || self.pending >= self.delack_segments
                || ecn_ack_now
                || opening
            {
                return RxAction::AckNow;
            }
            return RxAction::Delay(now + self.delack_timeout);
        }
        // Out of order, or a duplicate: ACK at once (RFC 5681 §4.2), a duplicate
        // so the sender learns where we are.
        let duplicate = match s > self.rcv_nxt {
            true => match self.ooo.insert(s) {
                Some(block) => {
                    self.remember(block);
                    if self.sack {
                        self.open_window(); // Linux grows the window on out-of-order data with SACK only
                    }
                    false
                }
                None => true,
            },
            false => true,
        };
        if duplicate && self.dsack {
            self.dup = Some(s);
        }
        self.echo_ts = p.ts;
        RxAction::AckNow
    }

    /// A new segment arrived: true while the window is still opening (its
    /// ACK goes at once), counting it down.
    fn open_window(&mut self) -> bool {
        let opening = self.quick_acks > 0;
        self.quick_acks -= opening as u64;
        opening
    }

    fn deliver_upto(&mut self) {
        let total = (self.rcv_nxt * self.mss).min(self.size);
        self.delivered_bytes = total;
    }

    /// Remember `block`, which just took a segment, as the newest block to
    /// report. A block only changes when it takes a segment (then it is the
    /// newest, and the older entries it swallowed go) or when it is delivered
    /// (then it starts below `rcv_nxt`), so the stored bounds stay exact.
    fn remember(&mut self, block: (u64, u64)) {
        let mut recent = [block, (0, 0), (0, 0)];
        let mut n = 1;
        for &(a, b) in &self.recent[..self.nrecent] {
            let swallowed = block.0 <= a && a < block.1;
            if n < 3 && !swallowed && a > self.rcv_nxt {
                recent[n] = (a, b);
                n += 1;
            }
        }
        self.recent = recent;
        self.nrecent = n;
    }

    /// The ACK to send at `now` ahead of the next one, if any (DCTCP's ACK of the
    /// segments before a change of CE state, `dctcp_ece_ack_update`).
    pub fn take_prior_ack(&mut self, flow: u32, now: Time) -> Option<Packet> {
        let (rcv_nxt, ece, ts) = self.prior_ack.take()?;
        let mut p = Packet::ack(flow, rcv_nxt, self.ack_size, ts, now);
        p.flags = if ece { ECE } else { 0 };
        Some(p)
    }

    /// Build the ACK for `flow`, sent at `now`; resets the delayed-ACK state.
    pub fn make_ack(&mut self, flow: u32, now: Time) -> Packet {
        self.pending = 0;
        self.delack.cancel();
        let mut p = Packet::ack(flow, self.rcv_nxt, self.ack_size, self.echo_ts, now);
        p.flags = self.ecn.ack_flags();
        let mut n = 0;
        if let Some(d) = self.dup.take() {
            // Signed offsets: the duplicate may lie below the cumulative ACK.
            let off = d.wrapping_sub(self.rcv_nxt) as i64 as i32 as u32;
            p.sack[0] = (off, off.wrapping_add(1));
            p.flags |= DSACK;
            n = 1;
        }
        for &(a, b) in &self.recent[..self.nrecent] {
            if n < 3 && a > self.rcv_nxt {
                p.sack[n] = ((a - self.rcv_nxt) as u32, (b - self.rcv_nxt) as u32);
                n += 1;
            }
        }
        p.nsack = n as u8;
        p
    }
}

/// Payload bytes of a data packet.
pub fn payload(p: &Packet) -> u32 {
    p.size - HEADER_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use hscc_cc::CcParams;

    fn rx(delayed: bool) -> Receiver {
        let mut c = FlowConfig::bulk(0, 1, CcParams::default());
        c.delayed_ack = delayed;
        Receiver::new(&c)
    }

    fn seg(s: u64) -> Packet {
        Packet::data(0, s, 1500, s * 10, 0)
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = rx(true);
        assert_eq!(r.on_data(&seg(0), 0), RxAction::Delay(40 * crate::time::MS));
        assert_eq!(r.on_data(&seg(1), 5), RxAction::AckNow);
        let a = r.make_ack(0, 0);
        assert_eq!((a.seq, a.nsack, a.ts), (2, 0, 0)); // echoes the first covered segment
        assert_eq!(r.delivered_bytes, 2 * 1448);
    }

    #[test]
    fn out_of_order_acks_at_once_with_sack_blocks_newest_first() {
        let mut r = rx(true);
        r.on_data(&seg(0), 0);
        r.make_ack(0, 0);
        assert_eq!(r.on_data(&seg(2), 1), RxAction::AckNow);
        assert_eq!(r.on_data(&seg(3), 2), RxAction::AckNow);
        assert_eq!(r.on_data(&seg(6), 3), RxAction::AckNow);
        let a = r.make_ack(0, 0);
        assert_eq!(a.seq, 1);
        assert_eq!(&a.sack[..a.nsack as usize], &[(5, 6), (1, 3)]);
        // Filling the hole delivers through 3 and ACKs at once.
        assert_eq!(r.on_data(&seg(1), 4), RxAction::AckNow);
        let a = r.make_ack(0, 0);
        assert_eq!((a.seq, a.nsack), (4, 1));
        assert_eq!(a.sack[0], (2, 3));
        assert_eq!(r.out_of_order(), 1);
    }

    #[test]
    fn at_most_three_blocks_are_reported() {
        let mut r = rx(false);
        for s in [2, 4, 6, 8] {
            r.on_data(&seg(s), 0);
        }
        let a = r.make_ack(0, 0);
        assert_eq!(&a.sack[..a.nsack as usize], &[(8, 9), (6, 7), (4, 5)]);
    }

    #[test]
    fn a_duplicate_is_reported_once_in_a_dsack_block_first() {
        let mut c = FlowConfig::bulk(0, 1, CcParams::default());
        c.dsack = true;
        let mut r = Receiver::new(&c);
        for s in [0, 1, 3, 5] {
            r.on_data(&seg(s), 0);
        }
        r.make_ack(0, 0);
        // A duplicate below the cumulative ACK: offset -1 from rcv_nxt = 2.
        assert_eq!(r.on_data(&seg(1), 1), RxAction::AckNow);
        let a = r.make_ack(0, 0);
        assert_eq!(a.flags & DSACK, DSACK);
        assert_eq!(
            &a.sack[..a.nsack as usize],
            &[((-1i32) as u32, 0), (3, 4), (1, 2)]
        );
        // Not repeated on the next ACK.
        r.on_data(&seg(7), 2);
        let a = r.make_ack(0, 0);
        assert_eq!((a.flags & DSACK, a.nsack), (0, 3));
        // A duplicate of out-of-order data: the block above rcv_nxt.
        r.on_data(&seg(5), 3);
        let a = r.make_ack(0, 0);
        assert_eq!((a.flags & DSACK, a.sack[0]), (DSACK, (3, 4)));
    }

    #[test]
    fn no_dsack_block_when_off() {
        let mut c = FlowConfig::bulk(0, 1, CcParams::default());
        c.dsack = false;
        let mut r = Receiver::new(&c);
        r.on_data(&seg(0), 0);
        r.on_data(&seg(0), 0);
        let a = r.make_ack(0, 0);
        assert_eq!((a.flags & DSACK, a.nsack), (0, 0));
    }

    #[test]
    fn the_window_opening_acks_each_new_segment_then_every_second() {
        let mut c = FlowConfig::bulk(0, 1, CcParams::default());
        c.quick_acks = 4;
        let mut r = Receiver::new(&c);
        let delay = |t: Time| RxAction::Delay(t + 40 * crate::time::MS);
        // Segments 0 and 2 (out of order, SACK on) take two of the four.
        assert_eq!(r.on_data(&seg(0), 0), RxAction::AckNow);
        r.make_ack(0, 0);
        assert_eq!(r.on_data(&seg(2), 1), RxAction::AckNow);
        r.make_ack(0, 0);
        // A duplicate takes none.
        assert_eq!(r.on_data(&seg(2), 2), RxAction::AckNow);
        r.make_ack(0, 0);
        // Segment 1 fills the hole (at once anyway) and takes the third, 3 the fourth.
        assert_eq!(r.on_data(&seg(1), 3), RxAction::AckNow);
        r.make_ack(0, 0);
        assert_eq!(r.on_data(&seg(3), 4), RxAction::AckNow);
        r.make_ack(0, 0);
        // Open: every second segment, as without.
        assert_eq!(r.on_data(&seg(4), 5), delay(5));
        assert_eq!(r.on_data(&seg(5), 6), RxAction::AckNow);
        assert_eq!(r.make_ack(0, 0).seq, 6);
    }

    #[test]
    fn without_sack_out_of_order_data_does_not_open_the_window() {
        let mut c = FlowConfig::bulk(0, 1, CcParams::default());
        (c.quick_acks, c.sack) = (1, false);
        let mut r = Receiver::new(&c);
        assert_eq!(r.on_data(&seg(1), 0), RxAction::AckNow); // out of order: at once, takes none
        r.make_ack(0, 0);
        assert_eq!(r.on_data(&seg(3), 1), RxAction::AckNow);
        r.make_ack(0, 0);
        assert_eq!(r.on_data(&seg(0), 2), RxAction::AckNow); // fills a hole, takes the one
        r.make_ack(0, 0);
        r.on_data(&seg(2), 3); // fills the other
        r.make_ack(0, 0);
        assert_eq!(
            r.on_data(&seg(4), 4),
            RxAction::Delay(4 + 40 * crate::time::MS)
        );
    }

    /// The ACKs (cumulative ACK, ECE) a receiver of `algorithm` sends for
    /// back-to-back ECT segments, CE where `ce` says; no delayed-ACK timer fires.
    fn echo(algorithm: &str, ecn: bool, delayed: bool, ce: &[u8]) -> Vec<(u64, bool)> {
        use crate::packet::{CE, ECE, ECT};
        let mut c = FlowConfig::bulk(0, 1, CcParams::from_name(algorithm).unwrap());
        (c.delayed_ack, c.ecn) = (delayed, ecn);
        let mut r = Receiver::new(&c);
        let mut acks = Vec::new();
        for (s, &m) in ce.iter().enumerate() {
            let flags = ECT | if m == 1 { CE } else { 0 };
            let p = Packet::data(0, s as u64, 1500, 0, flags);
            if r.on_data(&p, s as Time) == RxAction::AckNow {
                for a in r.take_prior_ack(0, 0).into_iter().chain([r.make_ack(0, 0)]) {
                    acks.push((a.seq, a.flags & ECE != 0));
                }
            }
        }
        acks
    }

    #[test]
    fn a_dctcp_receiver_echoes_each_segments_ce_state() {
        let ce = [0, 0, 1, 1, 0, 1, 1, 1];
        let (no, e) = (false, true);
        // Delayed ACKs: a change of state is ACKed at once; a delayed ACK
        // pending at the change goes first with the old state (segment 3's
        // CE, ACK 4), then the new state (ACK 5).
        assert_eq!(
            echo("dctcp", false, true, &ce),
            [(2, no), (3, e), (4, e), (5, no), (6, e), (8, e)]
        );
        // Every segment ACKed: each ACK says its own segment's state.
        assert_eq!(
            echo("dctcp", false, false, &ce),
            [
                (1, no),
                (2, no),
                (3, e),
                (4, e),
                (5, no),
                (6, e),
                (7, e),
                (8, e)
            ]
        );
    }

    #[test]
    fn an_rfc_3168_receiver_latches_ece_until_cwr() {
        // The first CE: two quick ACKs, then ECE on every ACK (no CWR comes).
        let ce = [0, 0, 1, 1, 0, 0, 0, 0];
        let (no, e) = (false, true);
        assert_eq!(
            echo("reno", true, true, &ce),
            [(2, no), (3, e), (4, e), (6, e), (8, e)]
        );
        // Without ECN nothing is echoed, whatever the marks.
        assert!(echo("reno", false, true, &ce).iter().all(|&(_, ece)| !ece));
    }

    #[test]
    fn duplicate_segment_is_acked_immediately() {
        let mut r = rx(true);
        r.on_data(&seg(0), 0);
        r.on_data(&seg(1), 0);
        r.make_ack(0, 0);
        assert_eq!(r.on_data(&seg(0), 1), RxAction::AckNow);
    }
}
