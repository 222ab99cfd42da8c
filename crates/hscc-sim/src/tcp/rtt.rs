//! RFC 6298 retransmission-timeout estimator.
//!
//! SRTT ← 7/8·SRTT + 1/8·R, RTTVAR ← 3/4·RTTVAR + 1/4·|SRTT − R| (§2.3),
//! RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)) (§2.2–2.4), with G = 1 µs
//! (hscc's clock resolution for RTT samples), exponential backoff (§5.5) up to
//! Linux's `TCP_RTO_MAX` of 120 s. Samples are taken on every ACK that gives
//! one, as Linux does with timestamps (RFC 7323 §4.2); the caller applies
//! Karn's rule (§3) by not sampling retransmitted segments.

use crate::time::{Time, SEC, US};

/// Linux `TCP_RTO_MAX`.
pub const MAX_RTO: Time = 120 * SEC;
const GRANULARITY: Time = US;

/// SRTT/RTTVAR state and the current RTO.
#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    srtt: Time,
    rttvar: Time,
    min_rto: Time,
    rto: Time,
    /// Smallest sample seen.
    pub min_rtt: Time,
    /// Most recent sample.
    pub latest: Time,
}

impl RttEstimator {
    /// Before any sample: RTO = `initial_rto` (RFC 6298 §2.1).
    pub fn new(min_rto: Time, initial_rto: Time) -> Self {
        RttEstimator { srtt: 0, rttvar: 0, min_rto, rto: initial_rto, min_rtt: Time::MAX, latest: 0 }
    }

    /// Feed one RTT measurement.
    pub fn sample(&mut self, r: Time) {
        let r = r.max(1);
        if self.srtt == 0 {
            self.srtt = r;
            self.rttvar = r / 2;
        } else {
            let err = self.srtt.abs_diff(r);
            self.rttvar = (3 * self.rttvar + err) / 4;
            self.srtt = (7 * self.srtt + r) / 8;
        }
        self.min_rtt = self.min_rtt.min(r);
        self.latest = r;
        self.rto = (self.srtt + GRANULARITY.max(4 * self.rttvar)).max(self.min_rto).min(MAX_RTO);
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

    #[test]
    fn first_sample_and_update_follow_rfc6298() {
        let mut e = RttEstimator::new(200 * MS, SEC);
        assert_eq!(e.rto(0), SEC);
        e.sample(100 * MS);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(0), 300 * MS);
        e.sample(180 * MS);
        // RTTVAR = (3·50 + 80)/4 = 57.5, SRTT = (7·100 + 180)/8 = 110, RTO = 110 + 230 = 340 ms.
        assert_eq!(e.srtt(), 110 * MS);
        assert_eq!(e.rto(0), 340 * MS);
        assert_eq!(e.rto(2), 1360 * MS);
    }

    #[test]
    fn min_rto_and_max_rto_bound() {
        let mut e = RttEstimator::new(200 * MS, SEC);
        for _ in 0..50 {
            e.sample(MS);
        }
        assert_eq!(e.rto(0), 200 * MS);
        assert_eq!(e.rto(12), MAX_RTO);
    }
}
