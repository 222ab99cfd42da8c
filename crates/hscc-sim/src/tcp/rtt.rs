//! Retransmission-timeout estimators: RFC 6298's and Linux's.
//!
//! RFC 6298: SRTT ← 7/8·SRTT + 1/8·R, RTTVAR ← 3/4·RTTVAR + 1/4·|SRTT − R|
//! (§2.3), RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)) (§2.2–2.4), with G = 1 µs
//! (hscc's clock resolution for RTT samples).
//!
//! Linux (`tcp_rtt_estimator`, `__tcp_set_rto` in net/ipv4/tcp_input.c): the same
//! SRTT; a mean deviation `mdev` (kept as 4× the deviation, so that it is added
//! to SRTT as is; a sample below SRTT moves it with gain 1/32 instead of 1/4),
//! whose largest value over the current round trip, never less than min_rto,
//! gives `rttvar` (raised at once, lowered by a quarter of the gap once per
//! round trip); RTO = SRTT + rttvar. So Linux's RTO is never below SRTT +
//! min_rto, where RFC 6298's can come down to max(min_rto, SRTT + a few ms): with
//! a queue that makes the RTT steady and large, a retransmission that waits in it
//! times out under RFC 6298 and not in Linux (docs/validation/kernel.md, 10 Mbit/s).
//!
//! Both: exponential backoff (RFC 6298 §5.5) up to Linux's `TCP_RTO_MAX` of
//! 120 s. Samples are taken on every ACK that gives one, as Linux does with
//! timestamps (RFC 7323 §4.2); the caller applies Karn's rule (§3) by not
//! sampling retransmitted segments.

use crate::time::{Time, US};
pub use hscc_model::tcp::{RtoEstimator, MAX_RTO};

const GRANULARITY: Time = US;

/// SRTT/RTTVAR state and the current RTO.
#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    kind: RtoEstimator,
    srtt: Time,
    /// RFC 6298's RTTVAR; Linux's `rttvar_us`.
    rttvar: Time,
    /// Linux's `mdev_us` and `mdev_max_us` (4× the mean deviation), and `rtt_seq`:
    /// the round trip whose largest deviation `mdev_max` is, ends when snd_una passes it.
    mdev: Time,
    mdev_max: Time,
    rtt_seq: u64,
    min_rto: Time,
    rto: Time,
    /// Smallest sample seen.
    pub min_rtt: Time,
    /// Most recent sample.
    pub latest: Time,
}

impl RttEstimator {
    /// Before any sample: RTO = `initial_rto` (RFC 6298 §2.1).
    pub fn new(kind: RtoEstimator, min_rto: Time, initial_rto: Time) -> Self {
        RttEstimator {
            kind,
            srtt: 0,
            rttvar: 0,
            mdev: 0,
            mdev_max: 0,
            rtt_seq: 0,
            min_rto,
            rto: initial_rto,
            min_rtt: Time::MAX,
            latest: 0,
        }
    }

    /// Feed one RTT measurement, taken when the sender's `snd_una` and `snd_nxt`
    /// (segments) are as given (Linux's estimator counts round trips by them).
    pub fn sample(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        let r = r.max(1);
        self.min_rtt = self.min_rtt.min(r);
        self.latest = r;
        self.rto = match self.kind {
            RtoEstimator::Rfc6298 => {
                if self.srtt == 0 {
                    self.srtt = r;
                    self.rttvar = r / 2;
                } else {
                    let err = self.srtt.abs_diff(r);
                    self.rttvar = (3 * self.rttvar + err) / 4;
                    self.srtt = (7 * self.srtt + r) / 8;
                }
                (self.srtt + GRANULARITY.max(4 * self.rttvar)).max(self.min_rto)
            }
            RtoEstimator::Linux => {
                self.linux_sample(r, snd_una, snd_nxt);
                self.srtt + self.rttvar
            }
        }
        .min(MAX_RTO);
    }

    /// Linux `tcp_rtt_estimator` (in picoseconds where Linux counts microseconds).
    fn linux_sample(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        if self.srtt == 0 {
            self.srtt = r;
            self.mdev = 2 * r; // "make sure rto = 3*rtt"
            self.rttvar = self.mdev.max(self.min_rto);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
            return;
        }
        let err = r as i64 - self.srtt as i64;
        self.srtt = (self.srtt as i64 + err / 8).max(1) as Time;
        let quarter = (self.mdev / 4) as i64;
        let step = if err < 0 {
            // A sample below SRTT moves the deviation with gain 1/32 only (Linux's Eifel-like damping).
            let m = -err - quarter;
            if m > 0 {
                m / 8
            } else {
                m
            }
        } else {
            err - quarter
        };
        self.mdev = (self.mdev as i64 + step).max(0) as Time;
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if snd_una > self.rtt_seq {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) / 4;
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max = self.min_rto;
        }
    }

    /// Smoothed RTT (0 before the first sample).
    pub fn srtt(&self) -> Time {
        self.srtt
    }

    /// RTO after `backoff` doublings.
    pub fn rto(&self, backoff: u32) -> Time {
        self.rto.saturating_mul(1 << backoff.min(16)).min(MAX_RTO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;
    use crate::time::SEC;

    #[test]
    fn first_sample_and_update_follow_rfc6298() {
        let mut e = RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC);
        assert_eq!(e.rto(0), SEC);
        e.sample(100 * MS, 0, 0);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(0), 300 * MS);
        e.sample(180 * MS, 0, 0);
        // RTTVAR = (3·50 + 80)/4 = 57.5, SRTT = (7·100 + 180)/8 = 110, RTO = 110 + 230 = 340 ms.
        assert_eq!(e.srtt(), 110 * MS);
        assert_eq!(e.rto(0), 340 * MS);
        assert_eq!(e.rto(2), 1360 * MS);
    }

    #[test]
    fn min_rto_and_max_rto_bound() {
        let mut e = RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC);
        for _ in 0..50 {
            e.sample(MS, 0, 0);
        }
        assert_eq!(e.rto(0), 200 * MS);
        assert_eq!(e.rto(12), MAX_RTO);
    }

    #[test]
    fn linux_first_sample_gives_three_rtts_or_srtt_plus_min_rto() {
        // tcp_rtt_estimator's first sample: mdev = 2·R, rttvar = max(mdev, rto_min); RTO = SRTT + rttvar.
        let mut e = RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC);
        e.sample(150 * MS, 0, 10);
        assert_eq!(e.rto(0), 450 * MS);
        let mut e = RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC);
        e.sample(40 * MS, 0, 10);
        assert_eq!(e.rto(0), 240 * MS); // 40 + max(80, 200)
    }

    #[test]
    fn linux_rto_stays_min_rto_above_a_steady_srtt_where_rfc6298_comes_down() {
        // A steady 200-ms RTT (a full queue): RFC 6298's RTTVAR decays to 0 and its RTO to
        // SRTT + 4·RTTVAR → 200 ms, the RTT itself; Linux's rttvar never goes below rto_min.
        let (mut rfc, mut linux) = (
            RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC),
            RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC),
        );
        for k in 0..2000u64 {
            rfc.sample(200 * MS, k + 1, k + 1); // one sample per round trip
            linux.sample(200 * MS, k + 1, k + 1);
        }
        assert_eq!(linux.srtt(), 200 * MS);
        assert!(
            (400 * MS..400 * MS + US).contains(&linux.rto(0)),
            "{}",
            linux.rto(0)
        );
        assert!(rfc.rto(0) < 201 * MS, "{}", rfc.rto(0));
    }

    #[test]
    fn linux_deviation_rises_at_once_and_decays_once_per_round_trip() {
        // From SRTT = 100 ms (mdev 200, rttvar 200 ms after the first sample): a 300-ms sample
        // (err = +200 ms) sets mdev = 200 − 50 + 200 = 350 ms, above rttvar at once: RTO = 125 + 350.
        let mut e = RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC);
        e.sample(100 * MS, 0, 10);
        e.sample(300 * MS, 5, 20); // snd_una 5 has not passed rtt_seq 10: same round trip
        assert_eq!(e.srtt(), 125 * MS);
        assert_eq!(e.rto(0), 475 * MS);
        // A sample at SRTT (err = 0) lowers mdev by a quarter, to 262.5 ms; it ends the round trip
        // (snd_una 11 > 10): rttvar stays (the round's largest mdev, 350, is not below it) and the
        // next round's largest starts from rto_min.
        e.sample(125 * MS, 11, 30);
        assert_eq!(e.rto(0), 125 * MS + 350 * MS);
        // The next round (snd_una 31 > 30): mdev 196.875 ms stays below rto_min, so rttvar comes
        // down by a quarter of its gap to 200 ms: 350 − 37.5 = 312.5 ms.
        e.sample(125 * MS, 31, 40);
        assert_eq!(e.rto(0), 125 * MS + 312 * MS + 500 * US);
    }
}
