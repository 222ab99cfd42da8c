//! Reno / NewReno congestion control (RFC 5681 §3; Linux `tcp_cong.c`).
//!
//! - Slow start: cwnd += acked segments per ACK while cwnd < ssthresh
//!   (RFC 5681 §3.1 with RFC 3465 byte counting, Linux `tcp_slow_start`).
//! - Congestion avoidance: +1 segment per cwnd segments acknowledged
//!   (RFC 5681 eq. 3, Linux `tcp_cong_avoid_ai`).
//! - On loss: ssthresh = max(cwnd/2, 2) (RFC 5681 eq. 4, Linux `tcp_reno_ssthresh`).
//! - Undo: max(cwnd, prior_cwnd) (Linux `tcp_reno_undo_cwnd`).
//!
//! NewReno (RFC 6582) is a property of the sender's loss recovery, not of the
//! window law: select it per flow with SACK off. "newreno" is an alias.
//!
//! Deviations from RFC 5681: ssthresh is computed from cwnd rather than
//! FlightSize (as Linux does); equal when the sender is cwnd-limited.

use crate::helpers::{tcp_reno_cong_avoid, tcp_reno_ssthresh};
use crate::ops::{CongestionOps, TcpCc};
use crate::params::NoParams;

/// Reno has no state of its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reno;

impl CongestionOps for Reno {
    const NAME: &'static str = "reno";
    type Params = NoParams;

    fn new(_params: &NoParams) -> Self {
        Reno
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        tcp_reno_cong_avoid(tp, ack, acked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn harness() -> Harness<Reno> {
        Harness::new(Reno, 10)
    }

    #[test]
    fn slow_start_doubles_per_rtt() {
        let mut h = harness();
        h.set_rtt_ms(100);
        for expected in [20, 40, 80, 160] {
            h.round();
            assert_eq!(h.cwnd(), expected);
        }
    }

    #[test]
    fn slow_start_with_delayed_acks_still_doubles() {
        // Byte counting (RFC 3465, Linux): an ACK for 2 segments adds 2.
        let mut h = harness();
        h.send_all();
        h.ack_each(5, 2);
        assert_eq!(h.cwnd(), 20);
    }

    #[test]
    fn congestion_avoidance_adds_one_per_rtt() {
        let mut h = harness();
        h.tp.snd_ssthresh = 10;
        for expected in [11, 12, 13] {
            h.round();
            assert_eq!(h.cwnd(), expected);
        }
    }

    #[test]
    fn loss_halves_and_recovery_ends_at_ssthresh() {
        let mut h = harness();
        h.tp.snd_cwnd = 101;
        h.tp.snd_ssthresh = 50;
        h.fast_retransmit();
        assert_eq!(h.tp.snd_ssthresh, 50);
        h.end_recovery();
        assert_eq!((h.cwnd(), h.tp.snd_ssthresh), (50, 50));
    }

    #[test]
    fn timeout_restarts_from_one_segment() {
        let mut h = harness();
        h.tp.snd_cwnd = 64;
        h.timeout();
        assert_eq!((h.cwnd(), h.tp.snd_ssthresh), (1, 32));
        // Slow start back up to ssthresh: 1, 2, 4, 8, 16, 32 then linear.
        for expected in [2, 4, 8, 16, 32, 33] {
            h.round();
            assert_eq!(h.cwnd(), expected);
        }
    }

    #[test]
    fn app_limited_sender_does_not_grow() {
        let mut h = harness();
        h.tp.snd_ssthresh = 10;
        h.send(3);
        h.ack_each(3, 1);
        assert_eq!(h.cwnd(), 10);
    }
}
