//! TCP Low Priority (Kuzmanovic & Knightly, "TCP-LP: Low-Priority Service
//! via End-Point Congestion Control", IEEE/ACM ToN 14(4), 2006; Linux
//! `tcp_lp.c` as it stands since 4.13, timestamps in ms at `TCP_TS_HZ`,
//! read in full and followed line for line).
//!
//! TCP-LP uses only the capacity other traffic leaves: it infers congestion
//! early from the one-way delay of its own segments and backs off before a
//! loss. Linux's version, per ACK:
//!
//! - **One-way delay** from the ACK's timestamps: `rcv_tsval`, the
//!   receiver's clock when it sent the ACK, scaled by `1000 / remote_hz`,
//!   less `rcv_tsecr`, the sender's clock when it sent the segment echoed.
//!   `remote_hz`, the receiver's timestamp rate, is estimated from
//!   successive ACKs as m = `TCP_TS_HZ · Δtsval / Δtsecr` and smoothed by
//!   1/64 (<< 6) — but only its integer part is kept between ACKs, so each
//!   ACK moves it by ⌊(m − remote_hz)/64⌋: not at all for a measurement up
//!   to 63 above it, by at least −1 for any below.
//!   The smallest and (second) largest delays seen and a smoothed delay
//!   `sowd` (<< 3, gain 1/8) are kept, for ACKs with an RTT sample.
//! - **Early congestion indication**: when the smoothed delay reaches 15 %
//!   of the way from the smallest to the largest, cwnd is halved (at least
//!   1), or set to 1 if the previous indication came within the inference
//!   time (3 × the time since the echoed segment was sent: ~3 RTTs); the
//!   minimum and maximum restart from the smoothed delay (×1 and ×2).
//! - **Growth**: Reno's, except within the inference time after an
//!   indication, when cwnd does not grow. Loss and undo are Reno's.
//!
//! Linux's arithmetic is kept: `u32` products and differences wrap before
//! they are widened to `s64`, so a delay is never negative (a `tsval·k`
//! below `tsecr` wraps to ~2³²), and `1000 / remote_hz` is an integer
//! division, 1 for an estimate of 501–1000 and 0 above 1000 (the delay is
//! then `−tsecr`, wrapped). Without timestamps both fields are 0 and no
//! delay is ever valid: TCP-LP is Reno.
//!
//! # Deviations from Linux
//! - Both ends' clocks are the run's, with no `tsoffset`: the delay is the
//!   segment's one-way delay plus the receiver's delayed-ACK wait.
//! - An estimate `remote_hz` that truncates to 0 from above 2³² (never
//!   reached: it is ~1000) gives a scale of 0 where Linux would divide by zero.

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh};
use crate::ops::{AckSample, CongestionOps, TcpCc, TCP_TS_HZ};
use crate::params::NoParams;

/// Linux `LP_RESOL`: resolution of the one-way delay, ticks per second.
const LP_RESOL: u32 = TCP_TS_HZ;
/// Linux `LP_VALID_RHZ`: the remote timestamp rate is known.
pub const LP_VALID_RHZ: u32 = 1 << 0;
/// Linux `LP_VALID_OWD`: the last one-way delay is valid.
pub const LP_VALID_OWD: u32 = 1 << 1;
/// Linux `LP_WITHIN_THR`: the smoothed delay is below the threshold.
pub const LP_WITHIN_THR: u32 = 1 << 3;
/// Linux `LP_WITHIN_INF`: within the inference time of the last indication.
pub const LP_WITHIN_INF: u32 = 1 << 4;

/// TCP-LP state (Linux `struct lp`), delays in timestamp ticks (ms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lp {
    /// `LP_*` flags.
    pub flag: u32,
    /// Smoothed one-way delay << 3.
    pub sowd: u32,
    /// Smallest one-way delay.
    pub owd_min: u32,
    /// Largest one-way delay (one below the largest seen).
    pub owd_max: u32,
    /// Largest one-way delay seen (reserved).
    pub owd_max_rsv: u32,
    /// Estimated timestamp rate of the receiver, Hz.
    pub remote_hz: u32,
    /// The receiver's TSval at the last estimate.
    pub remote_ref_time: u32,
    /// The echoed TSecr at the last estimate.
    pub local_ref_time: u32,
    /// Time of the last early congestion indication (0: none yet).
    pub last_drop: u32,
    /// Inference time: 3 × the age of the segment last echoed.
    pub inference: u32,
}

impl Lp {
    /// Linux `tcp_lp_remote_hz_estimator`.
    fn remote_hz_estimator(&mut self, tp: &TcpCc) -> u32 {
        // remote_hz << 6: a u32 shift, widened afterwards.
        let mut rhz = (self.remote_hz << 6) as i64;
        let measured = self.remote_ref_time != 0
            && self.local_ref_time != 0
            && tp.rcv_tsval != self.remote_ref_time
            && tp.rcv_tsecr != self.local_ref_time;
        if measured {
            // u32 arithmetic throughout, so m is never negative.
            let dval = tp.rcv_tsval.wrapping_sub(self.remote_ref_time);
            let decr = tp.rcv_tsecr.wrapping_sub(self.local_ref_time);
            let mut m = (TCP_TS_HZ.wrapping_mul(dval) / decr) as i64;
            if rhz > 0 {
                m -= rhz >> 6;
                rhz += m;
            } else {
                rhz = m << 6;
            }
        }
        if (rhz >> 6) > 0 {
            self.flag |= LP_VALID_RHZ;
        } else {
            self.flag &= !LP_VALID_RHZ;
        }
        self.remote_ref_time = tp.rcv_tsval;
        self.local_ref_time = tp.rcv_tsecr;
        (rhz >> 6) as u32
    }

    /// Linux `tcp_lp_owd_calculator`.
    fn owd_calculator(&mut self, tp: &TcpCc) -> u32 {
        self.remote_hz = self.remote_hz_estimator(tp);
        let mut owd = 0u32;
        if self.flag & LP_VALID_RHZ != 0 {
            let scale = LP_RESOL.checked_div(self.remote_hz).unwrap_or(0);
            owd = tp
                .rcv_tsval
                .wrapping_mul(scale)
                .wrapping_sub(tp.rcv_tsecr.wrapping_mul(LP_RESOL / TCP_TS_HZ));
        }
        if owd > 0 {
            self.flag |= LP_VALID_OWD;
        } else {
            self.flag &= !LP_VALID_OWD;
        }
        owd
    }

    /// Linux `tcp_lp_rtt_sample`.
    fn rtt_sample(&mut self, tp: &TcpCc) {
        let mut mowd = self.owd_calculator(tp) as i64;
        if self.flag & LP_VALID_RHZ == 0 || self.flag & LP_VALID_OWD == 0 {
            return;
        }
        if mowd < self.owd_min as i64 {
            self.owd_min = mowd as u32;
        }
        // Always forget the largest: owd_max is the one below it.
        if mowd > self.owd_max as i64 {
            if mowd > self.owd_max_rsv as i64 {
                self.owd_max = if self.owd_max_rsv == 0 {
                    mowd as u32
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = mowd as u32;
            } else {
                self.owd_max = mowd as u32;
            }
        }
        if self.sowd != 0 {
            mowd -= (self.sowd >> 3) as i64;
            self.sowd = (self.sowd as i64).wrapping_add(mowd) as u32;
        } else {
            self.sowd = (mowd << 3) as u32;
        }
    }
}

impl CongestionOps for Lp {
    const NAME: &'static str = "lp";
    type Params = NoParams;

    fn new(_params: &NoParams) -> Self {
        Lp {
            flag: 0,
            sowd: 0,
            owd_min: u32::MAX,
            owd_max: 0,
            owd_max_rsv: 0,
            remote_hz: 0,
            remote_ref_time: 0,
            local_ref_time: 0,
            last_drop: 0,
            inference: 0,
        }
    }

    fn init(&mut self, _tp: &mut TcpCc) {
        *self = Lp::new(&NoParams {});
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        if self.flag & LP_WITHIN_INF == 0 {
            tcp_reno_cong_avoid(tp, ack, acked);
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        let now = tp.tcp_time_stamp_ms();
        if sample.rtt_us > 0 {
            self.rtt_sample(tp);
        }
        let delta = now.wrapping_sub(tp.rcv_tsecr);
        if (delta as i32) > 0 {
            self.inference = delta.wrapping_mul(3);
        }
        if self.last_drop != 0 && now.wrapping_sub(self.last_drop) < self.inference {
            self.flag |= LP_WITHIN_INF;
        } else {
            self.flag &= !LP_WITHIN_INF;
        }
        let span = self.owd_max.wrapping_sub(self.owd_min).wrapping_mul(15) / 100;
        if self.sowd >> 3 < self.owd_min.wrapping_add(span) {
            self.flag |= LP_WITHIN_THR;
        } else {
            self.flag &= !LP_WITHIN_THR;
        }
        if self.flag & LP_WITHIN_THR != 0 {
            return;
        }
        // Restart the range from the smoothed delay (Linux's FIXME).
        self.owd_min = self.sowd >> 3;
        self.owd_max = self.sowd >> 2;
        self.owd_max_rsv = self.sowd >> 2;
        tp.snd_cwnd = if self.flag & LP_WITHIN_INF != 0 {
            1
        } else {
            (tp.snd_cwnd >> 1).max(1)
        };
        self.last_drop = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn harness(cwnd: u32) -> Harness<Lp> {
        let mut h = Harness::new(Lp::new(&NoParams {}), 10);
        h.send(20);
        h.tp.snd_cwnd = cwnd;
        h
    }

    /// One ACK of one segment at `now_ms`, echoing a segment sent at
    /// `sent_ms`, sent by the receiver at `tsval_ms`.
    fn ack_at(h: &mut Harness<Lp>, now_ms: u64, sent_ms: u64, tsval_ms: u64) {
        h.tp.now_us = now_ms * 1000;
        h.set_rtt_us(((now_ms - sent_ms) * 1000) as u32);
        h.owd_us = Some(((tsval_ms - sent_ms) * 1000) as u32);
        h.ack_each(1, 1);
    }

    #[test]
    fn the_first_valid_delay_is_an_indication() {
        let mut h = harness(10);
        // ACK 1: no reference times yet: no rate, no delay; Reno slow start.
        ack_at(&mut h, 1_100, 1_000, 1_050);
        assert_eq!((h.cc.remote_hz, h.cc.flag & LP_VALID_RHZ), (0, 0));
        assert_eq!((h.cc.remote_ref_time, h.cc.local_ref_time), (1_050, 1_000));
        assert_eq!((h.cwnd(), h.cc.inference), (11, 300));
        // ACK 2, both clocks 10 ms on: m = 1000·10/10, rhz = 1000 << 6; the
        // delay 1060·(1000/1000) − 1010 = 50 is the first: min = max = 50,
        // sowd = 50 << 3. 50 < 50 + 0 fails: halve 11 → 5, and remember.
        ack_at(&mut h, 1_110, 1_010, 1_060);
        assert_eq!(h.cc.remote_hz, 1000);
        assert_eq!(h.cc.sowd, 400);
        assert_eq!(h.cc.flag & (LP_VALID_RHZ | LP_VALID_OWD | LP_WITHIN_THR), 3);
        // The range restarts from sowd: [sowd/8, sowd/4].
        assert_eq!(
            (h.cc.owd_min, h.cc.owd_max, h.cc.owd_max_rsv),
            (50, 100, 100)
        );
        assert_eq!((h.cc.last_drop, h.cc.inference), (1_110, 300));
        // No earlier indication: growth goes on (5 → 6 in slow start).
        assert_eq!(h.cwnd(), 6);
    }

    #[test]
    fn within_the_inference_time_it_holds_then_a_second_indication_drops_to_one() {
        let mut h = harness(40);
        ack_at(&mut h, 1_100, 1_000, 1_050);
        ack_at(&mut h, 1_110, 1_010, 1_060);
        assert_eq!(h.cwnd(), 21, "41 halved, then slow start +1");
        // 100 ms of our clock, 106 of the receiver's: m = 1060, 60 < 64 above
        // the estimate moves it not at all. Delay 56: sowd = 400 + 56 − 50;
        // 406 >> 3 = 50 < 50 + 15·50/100 = 57: within the threshold. Inference
        // 3·(1170 − 1110) = 180, the last indication 60 ms ago: no growth.
        ack_at(&mut h, 1_170, 1_110, 1_166);
        assert_eq!(
            (h.cc.remote_hz, h.cc.sowd, h.cc.inference),
            (1000, 406, 180)
        );
        assert_eq!(
            h.cc.flag & (LP_WITHIN_THR | LP_WITHIN_INF),
            LP_WITHIN_THR | LP_WITHIN_INF
        );
        assert_eq!(h.cwnd(), 21);
        // A delay of 57 20 ms later (m = 1000·21/20 = 1050, no move):
        // sowd = 406 + 57 − 50 = 413; inference 180, 80 ms after: held.
        ack_at(&mut h, 1_190, 1_130, 1_187);
        assert_eq!((h.cc.sowd, h.cwnd()), (413, 21));
        // 60 after 100 ms (m = 1030): sowd = 413 + 60 − 51 = 422, 52 < 57;
        // 180 ms after the indication, not below the inference time 180:
        // Reno grows again.
        ack_at(&mut h, 1_290, 1_230, 1_290);
        assert_eq!((h.cc.remote_hz, h.cc.sowd), (1000, 422));
        assert_eq!(h.cc.flag & (LP_WITHIN_THR | LP_WITHIN_INF), LP_WITHIN_THR);
        assert_eq!(h.cwnd(), 22);
        // A delay of 100 after 700 ms (m = 1000·740/700 = 1057, no move) on a
        // 470-ms RTT: sowd = 422 + 100 − 52 = 470, 58 ≥ 57: an indication,
        // 1290 ms after the last, within the inference time 3·470: cwnd 1,
        // and no growth.
        ack_at(&mut h, 2_400, 1_930, 2_030);
        assert_eq!(
            (h.cc.remote_hz, h.cc.sowd, h.cc.inference),
            (1000, 470, 1_410)
        );
        assert_eq!((h.cwnd(), h.cc.last_drop), (1, 2_400));
        assert_eq!((h.cc.owd_min, h.cc.owd_max), (58, 117));
    }

    #[test]
    fn the_rate_estimate_keeps_only_its_integer_part() {
        let mut h = harness(10);
        ack_at(&mut h, 1_100, 1_000, 1_050);
        // The receiver's clock runs twice as fast: m = 1000·20/10 = 2000.
        ack_at(&mut h, 1_110, 1_010, 1_070);
        assert_eq!(h.cc.remote_hz, 2000);
        // 1000/2000 = 0: the delay is 0·tsval − tsecr, −1010 wrapped in u32.
        assert_eq!(h.cc.sowd, 1010u32.wrapping_neg() << 3);
        // m = 1000·10/20 = 500: 2000 + ⌊(500 − 2000)/64⌋ = 2000 − 24 = 1976.
        ack_at(&mut h, 1_130, 1_030, 1_080);
        assert_eq!(h.cc.remote_hz, 1976);
        // m = 1000·10/10 = 1000, below by 976: ⌊−976/64⌋ = −16.
        ack_at(&mut h, 1_140, 1_040, 1_090);
        assert_eq!(h.cc.remote_hz, 1960);
        // Equal again: a measurement 63 above is lost with the fraction.
        let mut lp = Lp::new(&NoParams {});
        lp.remote_hz = 1000;
        (lp.remote_ref_time, lp.local_ref_time) = (1_000, 1_000);
        let mut tp = TcpCc::new(1448, 10);
        (tp.rcv_tsval, tp.rcv_tsecr) = (1_000 + 1_063, 1_000 + 1_000);
        assert_eq!(lp.remote_hz_estimator(&tp), 1000);
    }

    #[test]
    fn without_timestamps_no_delay_is_valid_and_it_is_reno() {
        let mut h = Harness::new(Lp::new(&NoParams {}), 10);
        h.timestamps = false;
        h.set_rtt_ms(100);
        let mut reno = Harness::new(crate::algos::reno::Reno, 10);
        reno.set_rtt_ms(100);
        for _ in 0..6 {
            h.round();
            reno.round();
            assert_eq!(h.cwnd(), reno.cwnd());
        }
        h.loss();
        reno.loss();
        assert_eq!((h.cwnd(), h.ssthresh()), (reno.cwnd(), reno.ssthresh()));
        assert_eq!(h.cc.flag & (LP_VALID_RHZ | LP_VALID_OWD), 0);
    }
}

crate::cc_property_suite!(lp_properties, Lp);
