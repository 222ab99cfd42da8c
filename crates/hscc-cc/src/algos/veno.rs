//! TCP Veno (Fu & Liew, "TCP Veno: TCP Enhancement for Transmission over
//! Wireless Access Networks", IEEE JSAC 21(2), 2003; Linux `tcp_veno.c`).
//!
//! Reno whose increase and decrease depend on the Vegas backlog estimate
//! N = (cwnd/baseRTT − cwnd/RTT)·baseRTT = cwnd·(RTT − baseRTT)/RTT segments
//! (paper §II.A), compared with β = 3 segments (paper §II.B):
//!
//! - N < β (non-congestive): Reno growth, +1 segment per RTT; a loss is taken
//!   as random, ssthresh = cwnd·4/5 (paper §II.C).
//! - N ≥ β (congestive): +1 segment every other RTT; a loss halves,
//!   ssthresh = cwnd/2 (paper §II.B–C).
//!
//! As in Linux, N is kept doubled (`V_PARAM_SHIFT` = 1, β = 6 half-segments)
//! and evaluated on every ACK with RTT = the smallest sample since the
//! previous ACK and baseRTT = the smallest sample ever, both + 1 µs
//! ([`RttRound`]). Until 3 samples have been taken, and outside the Open
//! state, Veno is Reno. An idle restart (`TxStart`, `CwndRestart`) forgets
//! baseRTT. Slow start is Reno's. The state last computed decides the
//! decrease.
//!
//! # Deviations from the paper / from Linux
//! - From the paper (as Linux): N is evaluated per ACK, not once per RTT.
//! - From Linux: the sample counter saturates (Linux's u16 wraps every 65536
//!   samples, making Veno Reno for 3 ACKs).

use super::vegas::{RttRound, RTT_NONE};
use crate::helpers::{tcp_cong_avoid_ai, tcp_reno_cong_avoid, tcp_slow_start};
use crate::ops::{AckSample, CaEvent, CaState, CongestionOps, TcpCc};

crate::params! {
    /// TCP Veno parameters.
    pub struct VenoParams {
        /// β: backlog (segments) at and above which the path counts as congested.
        beta: f64 = 3.0, [0.5, 1000.0], "Fu & Liew 2003 §II.B; Linux tcp_veno.c";
    }
}

/// Fractional bits of the backlog and β (Linux `V_PARAM_SHIFT`).
const V_PARAM_SHIFT: u32 = 1;

/// TCP Veno state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Veno {
    /// β, segments << `V_PARAM_SHIFT`.
    beta: u32,
    /// Whether the Veno rules apply (Open state).
    doing_veno_now: bool,
    /// baseRTT, the minimum since the previous ACK, and the sample count
    /// (never reset: Linux counts samples over the connection).
    pub rtt: RttRound,
    /// In the congestive state, whether the next "RTT" of ACKs increases cwnd.
    inc: bool,
    /// Last backlog estimate, segments << `V_PARAM_SHIFT`.
    pub diff: u32,
}

impl Veno {
    /// Linux `tcp_veno_init`.
    fn restart(&mut self) {
        self.rtt.base_rtt = RTT_NONE;
        self.inc = true;
        self.enable();
    }

    /// Linux `veno_enable`.
    fn enable(&mut self) {
        self.doing_veno_now = true;
        self.rtt.min_rtt = RTT_NONE;
    }
}

impl CongestionOps for Veno {
    const NAME: &'static str = "veno";
    type Params = VenoParams;

    fn new(p: &VenoParams) -> Self {
        Veno {
            beta: (p.beta * (1 << V_PARAM_SHIFT) as f64).round() as u32,
            doing_veno_now: true,
            rtt: RttRound::default(),
            inc: true,
            diff: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![("beta", self.beta.into())]
    }

    fn init(&mut self, _tp: &mut TcpCc) {
        self.restart();
    }

    fn pkts_acked(&mut self, _tp: &mut TcpCc, sample: &AckSample) {
        self.rtt.sample(sample.rtt_us);
    }

    fn set_state(&mut self, _tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable();
        } else {
            self.doing_veno_now = false;
        }
    }

    fn cwnd_event(&mut self, _tp: &mut TcpCc, ev: CaEvent) {
        if matches!(ev, CaEvent::CwndRestart | CaEvent::TxStart) {
            self.restart();
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, mut acked: u32) {
        if !self.doing_veno_now {
            return tcp_reno_cong_avoid(tp, ack, acked);
        }
        if !tp.is_cwnd_limited() {
            return;
        }
        if self.rtt.cnt_rtt <= 2 {
            tcp_reno_cong_avoid(tp, ack, acked);
        } else {
            // diff = 2·cwnd − 2·cwnd·baseRTT/RTT = 2·N.
            let cwnd = tp.snd_cwnd as u64;
            let target = (cwnd * self.rtt.base_rtt as u64) << V_PARAM_SHIFT;
            let target = target / self.rtt.min_rtt as u64;
            self.diff =
                ((cwnd << V_PARAM_SHIFT).saturating_sub(target)).min(u32::MAX as u64) as u32;

            let mut grow = true;
            if tp.in_slow_start() {
                acked = tcp_slow_start(tp, acked);
                grow = acked > 0;
            }
            if grow {
                if self.diff < self.beta {
                    // Non-congestive: Reno, +1 per RTT.
                    let w = tp.snd_cwnd;
                    tcp_cong_avoid_ai(tp, w, acked);
                } else if tp.snd_cwnd_cnt >= tp.snd_cwnd {
                    // Congestive: +1 every other window of ACKs.
                    if self.inc && tp.snd_cwnd < tp.snd_cwnd_clamp {
                        tp.snd_cwnd += 1;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    tp.snd_cwnd_cnt = 0;
                } else {
                    tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.saturating_add(acked);
                }
            }
            tp.snd_cwnd = tp.snd_cwnd.clamp(2, tp.snd_cwnd_clamp.max(2));
        }
        // The next decision uses only samples from the next ACK on.
        self.rtt.min_rtt = RTT_NONE;
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        if self.diff < self.beta {
            // Random loss: cut by 1/5.
            ((tp.snd_cwnd as u64 * 4 / 5) as u32).max(2)
        } else {
            (tp.snd_cwnd >> 1).max(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// ACK one segment `n` times, refilling cwnd after each ACK.
    fn acks(h: &mut Harness<Veno>, n: u32) {
        for _ in 0..n {
            h.ack_each(1, 1);
            h.send_all();
        }
    }

    /// A Veno flow at cwnd 20 in congestion avoidance whose baseRTT is
    /// 100 001 µs (3 samples at 100 ms taken), then RTT = `rtt_us`, with the
    /// Reno credits of the first ACKs cleared.
    fn flow(rtt_us: u32) -> Harness<Veno> {
        let mut h = Harness::with_params(&VenoParams::default(), 20);
        h.tp.snd_ssthresh = 20;
        h.set_rtt_ms(100);
        h.send_all();
        acks(&mut h, 3);
        assert_eq!((h.cc.rtt.base_rtt, h.cwnd()), (100_001, 20));
        h.tp.snd_cwnd_cnt = 0;
        h.set_rtt_us(rtt_us);
        h
    }

    #[test]
    fn non_congestive_grows_as_reno_and_cuts_by_a_fifth() {
        let mut h = flow(100_000);
        // N = 0: +1 after cwnd (20) ACKs, then after 21 more.
        acks(&mut h, 19);
        assert_eq!(h.cwnd(), 20);
        acks(&mut h, 1);
        assert_eq!(h.cwnd(), 21);
        acks(&mut h, 21);
        assert_eq!(h.cwnd(), 22);
        h.fast_retransmit();
        // 22·4/5 = 17.6 → 17.
        assert_eq!(h.ssthresh(), 17);
    }

    #[test]
    fn congestive_grows_every_other_rtt_and_halves() {
        // RTT 150 ms at cwnd 20: 2N = 40 − 20·100001·2/150001 = 40 − 26 = 14 ≥ 6.
        let mut h = flow(150_000);
        acks(&mut h, 1);
        assert_eq!(h.cc.diff, 14);
        // snd_cwnd_cnt climbs to 20 in 20 ACKs; the 21st increases (inc = 1).
        acks(&mut h, 20);
        assert_eq!(h.cwnd(), 21);
        // The next full window of 22 ACKs only re-arms inc …
        acks(&mut h, 22);
        assert_eq!(h.cwnd(), 21);
        // … and the one after that increases.
        acks(&mut h, 22);
        assert_eq!(h.cwnd(), 22);
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 11);
    }

    #[test]
    fn threshold_is_n_equal_beta() {
        // RTT 114 ms: 2N = 40 − ⌊4000040/114001⌋ = 40 − 35 = 5 < 6 (N = 2.5): ×4/5.
        let mut h = flow(114_000);
        acks(&mut h, 1);
        assert_eq!(h.cc.diff, 5);
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 16);
        // RTT 117 ms: 2N = 40 − ⌊4000040/117001⌋ = 40 − 34 = 6 = 2β (N = 3): ×1/2.
        let mut h = flow(117_000);
        acks(&mut h, 1);
        assert_eq!(h.cc.diff, 6);
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 10);
    }

    #[test]
    fn first_two_samples_and_idle_restart_are_reno() {
        let mut h = Harness::with_params(&VenoParams::default(), 10);
        h.tp.snd_ssthresh = 10;
        h.set_rtt_ms(100);
        h.send_all();
        acks(&mut h, 2);
        assert_eq!(h.cc.diff, 0);
        assert_eq!(h.tp.snd_cwnd_cnt, 2);
        h.cc.cwnd_event(&mut h.tp, CaEvent::TxStart);
        assert_eq!(h.cc.rtt.base_rtt, RTT_NONE);
    }
}

crate::cc_property_suite!(veno_properties, Veno);
