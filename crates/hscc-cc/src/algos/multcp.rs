//! MulTCP(N) (J. Crowcroft, P. Oechslin, "Differentiated end-to-end Internet
//! services using a weighted proportional fair sharing TCP", ACM CCR 28(3), 1998;
//! as summarised in TCP-FIT, INFOCOM 2011 §II–III).
//!
//! One connection that behaves like N virtual Reno flows sharing its window:
//! - congestion avoidance: w += N per RTT (N/w per acknowledged segment);
//! - loss: w ← w − w/(2N), i.e. β = 1/(2N): only one of the N virtual flows halves.
//!
//! N = 1 is Reno exactly. TCP-FIT §IV notes that this does not give exactly N
//! times Reno's throughput (the Padhye-type model gives √(2N² − N/2) rather than
//! N·√1.5 in units of Reno's); TCP-FIT replaces β by 2/(3N + 1).
//!
//! Integer form: `tcp_cong_avoid_ai(cwnd, N·acked)` (N credits per segment,
//! +1 segment per cwnd credits) and ssthresh = ⌊cwnd·(2N − 1)/(2N)⌋, at least 2.
//!
//! # Deviations from the paper
//! - Slow start and the timeout are Reno's (cwnd = 1, ssthresh as after a loss);
//!   MulTCP's own slow start and timeout rules are not implemented: TCP-FIT,
//!   the paper that compares against MulTCP, runs it at a fixed N (Fig. 1).

use crate::helpers::{cong_avoid_start, tcp_cong_avoid_ai};
use crate::ops::{CongestionOps, TcpCc};

crate::params! {
    /// MulTCP parameters.
    pub struct MulTcpParams {
        /// N: number of virtual Reno flows emulated.
        n: u32 = 1, [1, 10000], "Crowcroft & Oechslin, CCR 1998; TCP-FIT §II (N = 1 is Reno)";
    }
}

/// MulTCP(N) (no state besides N).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MulTcp {
    /// Virtual flows.
    n: u32,
}

impl CongestionOps for MulTcp {
    const NAME: &'static str = "multcp";
    type Params = MulTcpParams;

    fn new(p: &MulTcpParams) -> Self {
        MulTcp { n: p.n }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![("n", self.n.into())]
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let two_n = 2 * self.n as u64;
        ((tp.snd_cwnd as u64 * (two_n - 1) / two_n) as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        let w = tp.snd_cwnd;
        tcp_cong_avoid_ai(tp, w, acked.saturating_mul(self.n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algos::reno::Reno;
    use crate::testing::{Harness, Op};

    fn multcp(n: u32, cwnd: u32, ssthresh: u32) -> Harness<MulTcp> {
        let mut h = Harness::with_params(&MulTcpParams { n }, cwnd);
        h.tp.snd_ssthresh = ssthresh;
        h
    }

    #[test]
    fn n_equals_one_is_reno() {
        let mut m = multcp(1, 10, crate::ops::TCP_INFINITE_SSTHRESH);
        let mut r = Harness::new(Reno, 10);
        let script = [
            Op::Round,
            Op::Round,
            Op::Round,
            Op::Loss,
            Op::Round,
            Op::Ack(3, 2),
            Op::Send(7),
            Op::Ack(20, 2),
            Op::Round,
            Op::Round,
            Op::Loss,
            Op::Round,
            Op::Timeout,
            Op::Round,
            Op::Round,
            Op::Round,
            Op::Round,
            Op::Round,
            Op::Round,
            Op::Loss,
            Op::Round,
        ];
        for (i, op) in script.iter().enumerate() {
            m.apply(*op);
            r.apply(*op);
            assert_eq!(m.tp, r.tp, "after op {i} {op:?}");
        }
        // Odd windows halve downwards, as Reno: ⌊75·1/2⌋.
        let mut m = multcp(1, 75, 2);
        m.loss();
        assert_eq!(m.cwnd(), 37);
    }

    #[test]
    fn n_4_adds_four_per_rtt() {
        let mut h = multcp(4, 100, 50);
        h.send_all();
        // 25 segments · 4 credits = 100 = cwnd → +1.
        h.ack_each(25, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (101, 0));
        // The other 75 segments: 300 credits → +2 (101 + 102 = 203), 97 left.
        h.ack_all();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (103, 97));
        // Next rounds: 103·4 + 97 = 509 credits ≥ 103 + 104 + 105 + 106 = 418 → 107, 91;
        // then 107·4 + 91 = 519 ≥ 107 + … + 110 = 434 → 111, 85.
        h.round();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (107, 91));
        h.round();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (111, 85));
    }

    #[test]
    fn n_4_decreases_by_one_eighth() {
        // β = 1/(2·4): ⌊cwnd·7/8⌋.
        for (cwnd, expected) in [(100, 87), (1000, 875), (8, 7), (2, 2)] {
            let mut h = multcp(4, cwnd, 2);
            h.loss();
            assert_eq!(h.cwnd(), expected, "cwnd {cwnd}");
        }
        // Timeout: ssthresh by the same rule, cwnd 1.
        let mut h = multcp(4, 1000, 2);
        h.timeout();
        assert_eq!((h.cwnd(), h.ssthresh()), (1, 875));
    }

    #[test]
    fn n_4_sawtooth_period() {
        // Between losses at W = 800: 700 → 800 at 4 per RTT is 25 RTTs in the fluid
        // model (Reno: 400 → 800 in 400 RTTs).
        let mut h = multcp(4, 800, 2);
        h.loss();
        assert_eq!(h.cwnd(), 700);
        h.tp.snd_cwnd_cnt = 0;
        let rounds = h.rounds_until(100, "cwnd back to 800", |h| h.cwnd() >= 800);
        // The integer counter: +3 in the first round (as above), 799 after 25, 803 after 26.
        assert_eq!((rounds, h.cwnd()), (26, 803));
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::registry::CcParams::with("multcp", &[("n", 4.0)]).unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "multcp");
    }
}

crate::cc_property_suite!(multcp_properties, MulTcp);
crate::cc_property_suite!(multcp_n8_properties, MulTcp, MulTcpParams { n: 8 });
