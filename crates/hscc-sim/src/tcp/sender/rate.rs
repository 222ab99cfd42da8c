//! Delivery-rate sampling, as Linux's `net/ipv4/tcp_rate.c`, with the two
//! per-segment stamps Google's BBRv3 kernel adds to it (the flight and the
//! connection's lost count at each send, draft-ietf-ccwg-bbr's
//! P.tx_in_flight and P.lost), which give [`RateSample::tx_in_flight`] and
//! [`RateSample::lost`] and the segment [`hscc_cc::LostSkb`] the sender hands
//! to `skb_marked_lost` as it marks it lost.
//!
//! Each (re)transmission stamps its segment with the connection's delivery
//! state (`tcp_rate_skb_sent`); each segment an ACK newly delivers offers that
//! stamp, and the one sent last wins (`tcp_rate_skb_delivered`); after loss
//! detection the ACK's [`RateSample`] is made from the winner
//! (`tcp_rate_gen`): the segments delivered since it was sent, over the
//! longer of its send phase and its ACK phase, with no interval (`-1`) when
//! that is shorter than the minimum RTT. The application-limited mark
//! (`tcp_rate_check_app_limited`) is set at the application's writes when
//! everything written is out and neither cwnd nor loss recovery holds the
//! sender back; it clears once the data in flight at that moment is delivered.
//!
//! Times are µs on the algorithm's clock ([`hscc_cc::TcpCc::now_us`]), as
//! Linux's `tcp_mstamp`.
//!
//! Sampling runs for the algorithms that can use it: those that take ACKs
//! through `cong_control`, ask for internal pacing, or read `pkts_acked`'s
//! `in_flight`, which Linux computes from the same stamps
//! ([`hscc_cc::CongestionOps::NEEDS_DELIVERY_STAMPS`]). The others are handed
//! an ACK without a sample (`delivered` and `interval_us` −1) and an
//! `in_flight` of 0, which they do not read; stamping every segment would
//! cost a loss-based run about 3 % more instructions for nothing.

use std::collections::VecDeque;

use hscc_cc::ops::after;
use hscc_cc::{Cc, LostSkb, RateSample};

use super::scoreboard::{Acked, Seg, APP_LIMITED, EVER_RETRANS};
use super::{Prior, Sender};
use crate::time::{Time, US};

/// Linux `tcp_skb_cb.tx`: the delivery state when a segment was last
/// (re)sent. The two clocks are kept in µs modulo 2³² (read back against the
/// send time: right for stamps less than 71 minutes old), which keeps the
/// scoreboard entry small. The delivery state changes only when an ACK
/// delivers data or a send finds nothing in flight, so the sender keeps it
/// ready and a send copies it, adding the flight and the lost count.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TxRate {
    /// `tp.delivered` at the send.
    delivered: u32,
    /// `first_tx_mstamp` at the send, µs modulo 2³².
    first_tx: u32,
    /// `delivered_mstamp` at the send, µs modulo 2³².
    delivered_mstamp: u32,
    /// Segments in flight just after the send, this one included (BBRv3's `tx.in_flight`).
    in_flight: u32,
    /// `tp.lost` at the send (BBRv3's `tx.lost`).
    lost: u32,
}

/// A segment this ACK delivered whose stamp may start the sample.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    seq: u64,
    /// Its last (re)transmission, ps.
    tx_time: Time,
    tx: TxRate,
    /// Its scoreboard flags (`APP_LIMITED`, `EVER_RETRANS`).
    flags: u8,
}

/// The sender's rate-sampling state (the `tcp_sock` fields `tcp_rate.c` keeps).
#[derive(Clone, Debug, Default)]
pub(super) struct RateState {
    /// Linux `first_tx_mstamp`: send time of the segment the last sample started from, µs.
    first_tx_us: u64,
    /// The stamp a segment sent now gets.
    stamp: TxRate,
    /// The stamp of each segment in `snd_una..snd_nxt`, beside the
    /// scoreboard (empty while sampling is off, which keeps its entries small).
    pub(super) stamps: VecDeque<TxRate>,
    /// Linux `tp->app_limited`: `delivered` + in flight when the application
    /// last limited the sender, until delivered passes it; 0: not limited.
    pub(super) app_limited: u32,
    /// This ACK's winners among the newly SACKed and the cumulatively acknowledged segments.
    sacked: Option<Candidate>,
    acked: Option<Candidate>,
}

/// Whether `e` (segment `seq`) replaces `cur` as the ACK's sample start: the
/// result of Linux's rule (`!prior_delivered || after(tx.delivered,
/// prior_delivered)`) applied in ascending sequence order, whatever order the
/// segments come in — the lowest segment sent last, or, while no stamp has
/// seen a delivery, the highest.
#[inline(always)]
fn replaces(cur: &Option<Candidate>, seq: u64, e: &TxRate) -> bool {
    match cur {
        None => true,
        Some(c) if c.tx.delivered == 0 => e.delivered != 0 || seq > c.seq,
        Some(c) => {
            after(e.delivered, c.tx.delivered) || (e.delivered == c.tx.delivered && seq < c.seq)
        }
    }
}

/// The ACK's sample start from its SACKed and its cumulatively acknowledged
/// winner. Linux tags the SACK blocks before it cleans the cumulatively
/// acknowledged segments, so a cumulative winner replaces a SACKed one only
/// if sent later.
#[inline(always)]
fn winner(sacked: Option<Candidate>, acked: Option<Candidate>) -> Option<Candidate> {
    match (sacked, acked) {
        (Some(s), Some(a)) => {
            if s.tx.delivered == 0 || after(a.tx.delivered, s.tx.delivered) {
                Some(a)
            } else {
                Some(s)
            }
        }
        (c @ Some(_), None) | (None, c) => c,
    }
}

fn us_u32(d: u64) -> u32 {
    d.min(u32::MAX as u64) as u32
}

impl Sender {
    /// Whether the algorithm can use rate samples: it declares that it reads
    /// `pkts_acked`'s `in_flight`, its `cong_control` takes an ACK (asked
    /// once, of a copy, with an ACK that carries no sample), or it asked for
    /// internal pacing.
    pub(super) fn wants_rate_samples(&self) -> bool {
        if self.cc.needs_delivery_stamps() {
            return true;
        }
        #[cfg(feature = "testing")]
        if self.cong_control_hook.is_some() {
            return true;
        }
        let none = RateSample {
            delivered: -1,
            interval_us: -1,
            rtt_us: -1,
            ..RateSample::default()
        };
        if let Cc::External(e) = &*self.cc {
            return self.tp.pacing_needed
                || e.ops.has_cong_control()
                || e.ops.has_skb_marked_lost();
        }
        self.tp.pacing_needed || Cc::clone(&self.cc).cong_control(&mut self.tp.clone(), &none)
    }

    /// Linux `tcp_rate_skb_sent` for segment `seq`, just (re)sent at `now`
    /// and counted in `packets_out`: record its stamp, and whether the
    /// application limits the sender. A new segment sent into an empty
    /// network starts both clocks at its own send time.
    pub(super) fn rate_skb_sent(&mut self, seq: u64, retrans: bool, now: Time) {
        if !retrans && self.tp.packets_out == 1 {
            let now_us = now / US;
            self.rate.first_tx_us = now_us;
            self.tp.delivered_mstamp = now_us;
            self.rate_restamp();
        }
        let i = (seq - self.snd_una) as usize;
        let stamp = TxRate {
            in_flight: self.tp.packets_in_flight(),
            lost: self.tp.lost,
            ..self.rate.stamp
        };
        if retrans {
            self.rate.stamps[i] = stamp;
        } else {
            self.rate.stamps.push_back(stamp);
        }
        let s = &mut self.sb[i];
        s.flags &= !APP_LIMITED;
        if self.rate.app_limited != 0 {
            s.flags |= APP_LIMITED;
        }
    }

    /// The stamp after `delivered`, `delivered_mstamp` or `first_tx_mstamp` changed.
    #[inline(always)]
    fn rate_restamp(&mut self) {
        self.rate.stamp = TxRate {
            delivered: self.tp.delivered,
            first_tx: self.rate.first_tx_us as u32,
            delivered_mstamp: self.tp.delivered_mstamp as u32,
            ..TxRate::default()
        };
    }

    /// Linux `tcp_rate_skb_delivered` for segment `seq` (scoreboard entry
    /// `s`, stamp `stamps[i]`), newly SACKed (`sacked`) or cumulatively
    /// acknowledged without having been SACKed.
    #[inline(always)]
    pub(super) fn rate_skb_delivered(&mut self, seq: u64, s: &Seg, i: usize, sacked: bool) {
        let tx = self.rate.stamps[i];
        let slot = if sacked {
            &mut self.rate.sacked
        } else {
            &mut self.rate.acked
        };
        if replaces(slot, seq, &tx) {
            *slot = Some(Candidate {
                seq,
                tx_time: s.tx_time,
                tx,
                flags: s.flags,
            });
        }
    }

    /// Linux's `ack_sample.in_flight` for this ACK (`tcp_clean_rtx_queue`):
    /// `mss_cache · (delivered − prior_delivered)`, `prior_delivered` the
    /// stamp of the segment [`Sender::rate_sample`] will start from, 0 when
    /// the ACK delivered none; 0 while sampling is off.
    #[inline(always)]
    pub(super) fn ack_in_flight(&self) -> u32 {
        if !self.rate_on {
            return 0;
        }
        let prior_delivered =
            winner(self.rate.sacked, self.rate.acked).map_or(0, |c| c.tx.delivered);
        self.tp
            .mss_cache
            .wrapping_mul(self.tp.delivered.wrapping_sub(prior_delivered))
    }

    /// Linux `tcp_rate_gen` after loss detection, with the rest of the
    /// `rate_sample` `tcp_ack` fills: the ACK's sample for `cong_control`.
    /// `ece`: the ACK echoed congestion (no delayed-ACK guess then).
    #[inline(always)]
    pub(super) fn rate_gen(
        &mut self,
        ack: &Acked,
        prior: &Prior,
        rtt_us: i32,
        ece: bool,
    ) -> RateSample {
        if ack.delivered > 0 {
            self.tp.delivered_mstamp = self.tp.now_us;
        }
        if !self.rate_on {
            return RateSample {
                delivered: -1,
                interval_us: -1,
                rtt_us: rtt_us as i64,
                losses: self.tp.lost.wrapping_sub(prior.lost),
                acked_sacked: ack.delivered,
                prior_in_flight: prior.in_flight,
                ..RateSample::default()
            };
        }
        // The application-limited bubble is delivered and gone.
        if self.rate.app_limited != 0 && after(self.tp.delivered, self.rate.app_limited) {
            self.rate.app_limited = 0;
        }
        let rs = self.rate_sample(ack, prior, rtt_us, ece);
        self.rate_restamp();
        rs
    }

    /// The sample of [`Sender::rate_gen`]; `first_tx_mstamp` moves to its start segment.
    #[inline(always)]
    fn rate_sample(&mut self, ack: &Acked, prior: &Prior, rtt_us: i32, ece: bool) -> RateSample {
        let tp = &self.tp;
        let r = &mut self.rate;
        let mut rs = RateSample {
            delivered: -1,
            interval_us: -1,
            rtt_us: rtt_us as i64,
            losses: tp.lost.wrapping_sub(prior.lost),
            acked_sacked: ack.delivered,
            prior_in_flight: prior.in_flight,
            ..RateSample::default()
        };
        let c = match winner(r.sacked.take(), r.acked.take()) {
            Some(c) => c,
            None => return rs, // no timing: no sample
        };
        let tx_us = c.tx_time / US;
        r.first_tx_us = tx_us;
        // The stamp's clocks, at most 71 minutes before the send.
        let ago = |stamp: u32| (tx_us as u32).wrapping_sub(stamp) as u64;
        rs.prior_delivered = c.tx.delivered;
        rs.prior_mstamp = tx_us.saturating_sub(ago(c.tx.delivered_mstamp));
        rs.is_app_limited = c.flags & APP_LIMITED != 0;
        rs.is_retrans = c.flags & EVER_RETRANS != 0;
        // Linux tcp_clean_rtx_queue's FLAG_ACK_MAYBE_DELAYED: a lone runt
        // segment acknowledged with nothing SACKed, echoed or reordered.
        if ack.lone_runt {
            rs.is_ack_delayed = !ack.fl.data_sacked
                && !ack.fl.dsack
                && !ece
                && c.tx.delivered.wrapping_add(1) == tp.delivered;
        }
        rs.delivered = tp.delivered.wrapping_sub(c.tx.delivered) as i32;
        rs.tx_in_flight = c.tx.in_flight;
        rs.lost = tp.lost.wrapping_sub(c.tx.lost);
        // Sending and acknowledging as two pipeline phases: the longer one
        // bounds the rate (ACK compression shortens the second).
        let snd_us = ago(c.tx.first_tx);
        let ack_us = tp.now_us.saturating_sub(rs.prior_mstamp);
        rs.snd_interval_us = us_u32(snd_us);
        rs.rcv_interval_us = us_u32(ack_us);
        let interval = snd_us.max(ack_us) as i64;
        rs.interval_us = if interval < tp.min_rtt_us as i64 {
            -1 // shorter than the path allows: not a usable sample
        } else {
            interval
        };
        rs
    }

    /// `skb_marked_lost` for segment `seq`, just marked lost, for an algorithm
    /// that takes rate samples (the stamps exist then).
    #[inline(always)]
    pub(super) fn report_lost(&mut self, seq: u64) {
        if self.rate_on {
            let skb = self.lost_skb((seq - self.snd_una) as usize);
            self.cc.skb_marked_lost(&mut self.tp, &skb);
        }
    }

    /// The segment at scoreboard index `i`, just marked lost (`tp.lost`
    /// counting it), as `skb_marked_lost` takes it.
    fn lost_skb(&self, i: usize) -> LostSkb {
        let tx = self.rate.stamps[i];
        LostSkb {
            tx_in_flight: tx.in_flight,
            tx_lost: tx.lost,
            tx_delivered: tx.delivered,
            is_app_limited: self.sb[i].flags & APP_LIMITED != 0,
        }
    }

    /// Linux `tcp_rate_check_app_limited` at an application write: with
    /// nothing written left to send (`unsent` false), room in cwnd and every
    /// lost segment retransmitted, the application limits the sender until
    /// what is in flight now has been delivered.
    pub(super) fn check_app_limited(&mut self, unsent: bool) {
        let in_flight = self.tp.packets_in_flight();
        if self.rate_on
            && !unsent
            && in_flight < self.tp.snd_cwnd
            && self.tp.lost_out <= self.tp.retrans_out
        {
            self.mark_app_limited();
        }
    }

    /// Linux `tp->app_limited = (tp->delivered + tcp_packets_in_flight(tp)) ? : 1`,
    /// as BBR sets it on entering PROBE_RTT.
    pub(super) fn mark_app_limited(&mut self) {
        let in_flight = self.tp.packets_in_flight();
        self.rate.app_limited = self.tp.delivered.wrapping_add(in_flight).max(1);
    }

    /// Linux `tp->app_limited`: the mark, 0 when the application does not
    /// limit the sender (always 0 while sampling is off).
    pub fn app_limited_mark(&self) -> u32 {
        self.rate.app_limited
    }
}

#[cfg(test)]
mod tests {
    use hscc_cc::CcParams;

    use super::*;
    use crate::config::FlowConfig;
    use crate::rng::{component_rng, Component};
    use crate::tcp::sender::scoreboard::Acked;

    fn stamp(delivered: u32) -> TxRate {
        TxRate {
            delivered,
            ..TxRate::default()
        }
    }

    /// Linux's rule as tcp_rate_skb_delivered applies it, in the order given.
    fn linux_fold(segs: &[(u64, u32)]) -> u64 {
        let (mut seq, mut prior) = (u64::MAX, 0u32);
        for &(s, d) in segs {
            if prior == 0 || after(d, prior) {
                (seq, prior) = (s, d);
            }
        }
        seq
    }

    #[test]
    fn the_winner_does_not_depend_on_the_order_segments_come_in() {
        // SACK blocks arrive most recent first; Linux walks them in sequence
        // order. Delivered stamps by segment: 3 and 5 tie at the largest.
        let segs = [(2, 4), (3, 7), (4, 0), (5, 7), (6, 6)];
        let ascending = linux_fold(&segs);
        assert_eq!(ascending, 3, "the lowest of the latest-sent");
        let mut orders = vec![segs.to_vec()];
        orders.push(segs.iter().rev().copied().collect());
        orders.push(vec![segs[4], segs[1], segs[2], segs[0], segs[3]]);
        for order in orders {
            let mut cur = None;
            for &(seq, d) in &order {
                if replaces(&cur, seq, &stamp(d)) {
                    cur = Some(Candidate {
                        seq,
                        tx_time: 0,
                        tx: stamp(d),
                        flags: 0,
                    });
                }
            }
            assert_eq!(cur.map(|c| c.seq), Some(ascending), "{order:?}");
        }
        // Before anything was delivered every stamp says 0: the last (highest) wins.
        let zeros = [(7, 0), (9, 0), (8, 0)];
        let mut cur = None;
        for &(seq, d) in &zeros {
            if replaces(&cur, seq, &stamp(d)) {
                cur = Some(Candidate {
                    seq,
                    tx_time: 0,
                    tx: stamp(d),
                    flags: 0,
                });
            }
        }
        assert_eq!(cur.map(|c| c.seq), Some(9));
        assert_eq!(linux_fold(&[(7, 0), (8, 0), (9, 0)]), 9);
    }

    fn sender() -> Sender {
        let cfg = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
        Sender::new(0, &cfg, component_rng(1, Component::Sender, 0))
    }

    fn prior() -> Prior {
        Prior {
            in_flight: 12,
            lost: 0,
            delivered: 20,
            una: 0,
            fack: 0,
        }
    }

    #[test]
    fn a_sample_shorter_than_min_rtt_has_no_interval() {
        // A segment sent at 1.000 s, stamped delivered 20, first_tx 30 ms
        // before and delivered_mstamp 40 ms before; acknowledged at 1.050 s
        // with delivered 24: send phase 30 ms, ACK phase 1.050 − 0.960 = 90 ms.
        let mut s = sender();
        s.rate_on = true;
        s.tp.delivered = 24;
        s.tp.now_us = 1_050_000;
        s.rate.acked = Some(Candidate {
            seq: 40,
            tx_time: 1_000_000 * US,
            tx: TxRate {
                delivered: 20,
                first_tx: 970_000,
                delivered_mstamp: 960_000,
                in_flight: 13,
                lost: 3,
            },
            flags: 0,
        });
        let ack = Acked {
            delivered: 4,
            ..Acked::default()
        };
        s.tp.min_rtt_us = 100_000;
        s.tp.lost = 5;
        let rs = s.rate_gen(&ack, &prior(), 50_000, false);
        // 90 ms < min_rtt 100 ms: the delivered count stands, the interval does not.
        assert_eq!(
            (
                rs.delivered,
                rs.interval_us,
                rs.snd_interval_us,
                rs.rcv_interval_us
            ),
            (4, -1, 30_000, 90_000)
        );
        assert_eq!((rs.prior_delivered, rs.prior_mstamp), (20, 960_000));
        // The flight at its send, and the 5 − 3 segments marked lost since.
        assert_eq!((rs.tx_in_flight, rs.lost), (13, 2));
        assert_eq!(s.rate.first_tx_us, 1_000_000);
        assert_eq!(s.tp.delivered_mstamp, 1_050_000);
        // No segment with a stamp (a duplicate ACK): no sample at all.
        let rs = s.rate_gen(&Acked::default(), &prior(), -1, false);
        assert_eq!((rs.delivered, rs.interval_us, rs.prior_mstamp), (-1, -1, 0));
        assert_eq!((rs.acked_sacked, rs.prior_in_flight), (0, 12));
    }

    #[test]
    fn only_algorithms_that_use_samples_get_them() {
        // Reno has no cong_control: no stamps, no samples.
        let mut s = sender();
        assert!(!s.wants_rate_samples());
        // Internal pacing asks for them.
        s.tp.pacing_needed = true;
        assert!(s.wants_rate_samples());
        // NV reads pkts_acked's in_flight, which Linux makes from the stamps.
        let cfg = FlowConfig::bulk(0, 1, CcParams::from_name("nv").unwrap());
        let s = Sender::new(0, &cfg, component_rng(1, Component::Sender, 0));
        assert!(s.wants_rate_samples());
    }
}
