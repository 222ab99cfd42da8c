//! YeAH-TCP (Baiocchi, Castellani & Vacirca, "YeAH-TCP: Yet Another Highspeed
//! TCP", PFLDnet 2007; Linux 6.12 `tcp_yeah.c` with the Vegas RTT sampling of
//! `tcp_vegas.c`/`tcp_vegas.h`, read in full and followed line for line).
//!
//! Two modes, chosen once per round from the Vegas estimate of the segments
//! queued at the bottleneck, Q = cwnd·(RTT − baseRTT)/RTT (RTT = the smallest
//! sample of the round + 1 µs, baseRTT = the smallest ever + 1 µs; only
//! rounds with more than 2 samples count):
//!
//! - Fast (Q ≤ α = 80 and RTT − baseRTT ≤ baseRTT/φ, φ = 8): Scalable's
//!   increase, `tcp_cong_avoid_ai(min(cwnd, 100))`, +1 per 100 segments
//!   acknowledged once cwnd ≥ 100.
//! - Slow (otherwise): Reno's increase, and when Q > α and cwnd > `reno_count`
//!   the precautionary decongestion cwnd −= min(Q/γ, cwnd >> ε) (γ = 1, ε = 1),
//!   not below `reno_count`, with ssthresh = cwnd. `reno_count` (the
//!   estimated Reno window) becomes max(cwnd/2, 2) on the first such round
//!   and grows by one per further round; `doing_reno_now` counts consecutive
//!   slow rounds (at most 0xffffff).
//! - More than ζ = 50 fast rounds reset `reno_count` to 2.
//! - Loss: after fewer than ρ = 16 consecutive slow rounds the window drops
//!   by the last Q, within [cwnd >> δ, max(cwnd/2, 2)] (δ = 3); otherwise it
//!   halves. ssthresh ≥ 2; `reno_count` halves (at least 2).
//!
//! The constants are Linux's `#define`s (`TCP_YEAH_ALPHA` 80, `_GAMMA` 1,
//! `_DELTA` 3, `_EPSILON` 1, `_PHY` 8, `_RHO` 16, `_ZETA` 50,
//! `TCP_SCALABLE_AI_CNT` 100); the module has no parameters, nor has this.
//! Slow start is Reno's; `init` caps the clamp at 0xffffffff/128 (for the
//! arithmetic); the RTT sampling, its restart on entering Open and after idle
//! (`TxStart`, `CwndRestart`) are Vegas's (`tcp_vegas_state`,
//! `tcp_vegas_cwnd_event`, `tcp_vegas_pkts_acked`); undo is Reno's.
//!
//! Linux's types are kept: the sample count is a u16 that wraps, as in
//! `struct vegas`, and Q is the low 32 bits of the 64-bit quotient.
//! YeAH grows in every state (it does not consult `doing_vegas_now`), as Linux.

use crate::helpers::{tcp_cong_avoid_ai, tcp_slow_start};
use crate::ops::{after, AckSample, CaEvent, CaState, CongestionOps, TcpCc};
use crate::params::NoParams;

/// Linux `TCP_YEAH_ALPHA`: segments queued at the bottleneck.
const TCP_YEAH_ALPHA: u32 = 80;
/// Linux `TCP_YEAH_GAMMA`: fraction of the queue removed per RTT.
const TCP_YEAH_GAMMA: u32 = 1;
/// Linux `TCP_YEAH_DELTA`: log of the smallest fraction of cwnd removed on loss.
const TCP_YEAH_DELTA: u32 = 3;
/// Linux `TCP_YEAH_EPSILON`: log of the largest fraction removed by decongestion.
const TCP_YEAH_EPSILON: u32 = 1;
/// Linux `TCP_YEAH_PHY`: largest queueing delay, as a fraction 1/φ of baseRTT.
const TCP_YEAH_PHY: u32 = 8;
/// Linux `TCP_YEAH_RHO`: consecutive slow rounds after which a loss halves.
const TCP_YEAH_RHO: u32 = 16;
/// Linux `TCP_YEAH_ZETA`: fast rounds after which `reno_count` resets.
const TCP_YEAH_ZETA: u32 = 50;
/// Linux `TCP_SCALABLE_AI_CNT` (tcp_yeah.c).
const TCP_SCALABLE_AI_CNT: u32 = 100;
/// Linux `tcp_yeah_cong_avoid`: `doing_reno_now` saturates here.
const DOING_RENO_MAX: u32 = 0xff_ffff;
/// Linux `tcp_vegas_init`/`vegas_enable`: no RTT sample yet.
const RTT_NONE: u32 = 0x7fff_ffff;

/// Linux `struct vegas` (tcp_vegas.h), with its types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VegasRtt {
    /// Right edge of the current round (`beg_snd_nxt`).
    pub beg_snd_nxt: u32,
    /// Left edge of the current round (`beg_snd_una`; kept, unused, as Linux).
    pub beg_snd_una: u32,
    /// cwnd at the start of the round (`beg_snd_cwnd`; kept, unused, as Linux).
    pub beg_snd_cwnd: u32,
    /// Whether Vegas sampling is on (Open state; YeAH does not consult it).
    pub doing_vegas_now: bool,
    /// RTT samples in the round (Linux's u16, wrapping).
    pub cnt_rtt: u16,
    /// Smallest sample + 1 in the round, µs.
    pub min_rtt: u32,
    /// Smallest sample + 1 ever, µs.
    pub base_rtt: u32,
}

impl VegasRtt {
    /// Linux `vegas_enable`.
    fn enable(&mut self, tp: &TcpCc) {
        self.doing_vegas_now = true;
        self.beg_snd_nxt = tp.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = RTT_NONE;
    }

    /// Linux `tcp_vegas_init`.
    fn init(&mut self, tp: &TcpCc) {
        self.base_rtt = RTT_NONE;
        self.enable(tp);
    }
}

/// YeAH-TCP state (Linux `struct yeah`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Yeah {
    /// The Vegas RTT sampling.
    pub vegas: VegasRtt,
    /// Queue estimate of the last evaluated round, segments.
    pub last_q: u32,
    /// Consecutive slow (Reno) rounds; 0 in the fast (Scalable) mode.
    pub doing_reno_now: u32,
    /// Estimated Reno window, segments.
    pub reno_count: u32,
    /// Consecutive fast rounds since the last reset.
    pub fast_count: u32,
}

impl CongestionOps for Yeah {
    const NAME: &'static str = "yeah";
    type Params = NoParams;

    fn new(_p: &NoParams) -> Self {
        // Linux zeroes icsk_ca_priv before init.
        Yeah {
            vegas: VegasRtt {
                beg_snd_nxt: 0,
                beg_snd_una: 0,
                beg_snd_cwnd: 0,
                doing_vegas_now: false,
                cnt_rtt: 0,
                min_rtt: 0,
                base_rtt: 0,
            },
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 0,
            fast_count: 0,
        }
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.vegas.init(tp);
        self.doing_reno_now = 0;
        self.last_q = 0;
        self.reno_count = 2;
        // Keeps the decrease's arithmetic in range (Linux's comment).
        tp.snd_cwnd_clamp = tp.snd_cwnd_clamp.min(0xffff_ffff / 128);
    }

    fn pkts_acked(&mut self, _tp: &mut TcpCc, sample: &AckSample) {
        // Linux tcp_vegas_pkts_acked.
        if sample.rtt_us < 0 {
            return;
        }
        // Never a zero RTT or baseRTT.
        let vrtt = (sample.rtt_us as u32).wrapping_add(1);
        if vrtt < self.vegas.base_rtt {
            self.vegas.base_rtt = vrtt;
        }
        self.vegas.min_rtt = self.vegas.min_rtt.min(vrtt);
        self.vegas.cnt_rtt = self.vegas.cnt_rtt.wrapping_add(1);
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        // Linux tcp_vegas_state.
        if new_state == CaState::Open {
            self.vegas.enable(tp);
        } else {
            self.vegas.doing_vegas_now = false;
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        // Linux tcp_vegas_cwnd_event.
        if matches!(ev, CaEvent::CwndRestart | CaEvent::TxStart) {
            self.vegas.init(tp);
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, mut acked: u32) {
        if !tp.is_cwnd_limited() {
            return;
        }
        let mut grow = true;
        if tp.in_slow_start() {
            acked = tcp_slow_start(tp, acked);
            grow = acked > 0;
        }
        if grow {
            if self.doing_reno_now == 0 {
                // Scalable.
                let w = tp.snd_cwnd.min(TCP_SCALABLE_AI_CNT);
                tcp_cong_avoid_ai(tp, w, acked);
            } else {
                // Reno.
                let w = tp.snd_cwnd;
                tcp_cong_avoid_ai(tp, w, acked);
            }
        }
        // do_vegas: once per round.
        if after(ack, self.vegas.beg_snd_nxt) {
            // More than 2 samples: at least one not from a delayed ACK.
            if self.vegas.cnt_rtt > 2 {
                let rtt = self.vegas.min_rtt;
                let excess = rtt.wrapping_sub(self.vegas.base_rtt);
                // Segments queued beyond the bandwidth-delay product.
                let queue = (tp.snd_cwnd as u64 * excess as u64 / rtt as u64) as u32;
                if queue > TCP_YEAH_ALPHA || excess > self.vegas.base_rtt / TCP_YEAH_PHY {
                    if queue > TCP_YEAH_ALPHA && tp.snd_cwnd > self.reno_count {
                        let reduction =
                            (queue / TCP_YEAH_GAMMA).min(tp.snd_cwnd >> TCP_YEAH_EPSILON);
                        tp.snd_cwnd -= reduction;
                        tp.snd_cwnd = tp.snd_cwnd.max(self.reno_count);
                        tp.snd_ssthresh = tp.snd_cwnd;
                    }
                    if self.reno_count <= 2 {
                        self.reno_count = (tp.snd_cwnd >> 1).max(2);
                    } else {
                        self.reno_count = self.reno_count.wrapping_add(1);
                    }
                    self.doing_reno_now = (self.doing_reno_now + 1).min(DOING_RENO_MAX);
                } else {
                    self.fast_count = self.fast_count.wrapping_add(1);
                    if self.fast_count > TCP_YEAH_ZETA {
                        self.reno_count = 2;
                        self.fast_count = 0;
                    }
                    self.doing_reno_now = 0;
                }
                self.last_q = queue;
            }
            // The extent of this round, for the end of the next.
            self.vegas.beg_snd_una = self.vegas.beg_snd_nxt;
            self.vegas.beg_snd_nxt = tp.snd_nxt;
            self.vegas.beg_snd_cwnd = tp.snd_cwnd;
            self.vegas.cnt_rtt = 0;
            self.vegas.min_rtt = RTT_NONE;
        }
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let cwnd = tp.snd_cwnd;
        let reduction = if self.doing_reno_now < TCP_YEAH_RHO {
            self.last_q
                .min((cwnd >> 1).max(2))
                .max(cwnd >> TCP_YEAH_DELTA)
        } else {
            (cwnd >> 1).max(2)
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        // Linux's max_t(int, cwnd - reduction, 2): a negative difference gives 2.
        (cwnd.wrapping_sub(reduction) as i32).max(2) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// ACK one segment `n` times, refilling cwnd after each ACK.
    fn acks(h: &mut Harness<Yeah>, n: u32) {
        for _ in 0..n {
            h.ack_each(1, 1);
            h.send_all();
        }
    }

    /// Congestion avoidance at cwnd 300, 300 segments out (the first
    /// transmission restarts the sampling), baseRTT 100 001 µs from a
    /// duplicate ACK's sample, then every ACK at `rtt_ms`. The first ACK ends
    /// the initial round (2 samples: nothing evaluated) and starts one that
    /// the 301st ACK ends.
    fn flow(rtt_ms: u32) -> Harness<Yeah> {
        let mut h = Harness::new(Yeah::new(&NoParams::default()), 10);
        h.tp.snd_cwnd = 300;
        h.tp.snd_ssthresh = 300;
        h.set_rtt_ms(100);
        h.send_all();
        h.dupack();
        h.set_rtt_ms(rtt_ms);
        h
    }

    #[test]
    fn no_queue_is_scalable_and_a_loss_cuts_an_eighth() {
        let mut h = flow(100);
        // Scalable: +1 per 100 ACKs: 301, 302, 303 after ACKs 100, 200, 300.
        acks(&mut h, 300);
        assert_eq!(
            (h.cwnd(), h.cc.doing_reno_now, h.cc.fast_count),
            (303, 0, 0)
        );
        // ACK 301 ends the round: Q = 303·0/100 001 = 0, no delay: fast.
        acks(&mut h, 1);
        assert_eq!(
            (h.cc.last_q, h.cc.doing_reno_now, h.cc.fast_count),
            (0, 0, 1)
        );
        // Loss: reduction = max(min(0, 151), 303 >> 3 = 37) = 37: 303 − 37 = 266.
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 266);
        assert_eq!((h.cc.reno_count, h.cc.fast_count), (2, 0));
    }

    #[test]
    fn a_queue_beyond_alpha_is_drained_and_sets_the_reno_window() {
        let mut h = flow(150);
        acks(&mut h, 301);
        // At ACK 301 cwnd is 303: Q = ⌊303·50 000/150 001⌋ = 100 > 80;
        // reduction = min(100, 151) = 100: cwnd = ssthresh = 203;
        // reno_count = max(203/2, 2) = 101; one slow round.
        assert_eq!((h.cc.last_q, h.cwnd(), h.ssthresh()), (100, 203, 203));
        assert_eq!((h.cc.reno_count, h.cc.doing_reno_now), (101, 1));
        // Loss: reduction = max(min(100, 101), 203 >> 3 = 25) = 100: 103.
        h.fast_retransmit();
        assert_eq!((h.ssthresh(), h.cc.reno_count), (103, 50));
    }

    #[test]
    fn queueing_delay_alone_switches_to_reno_and_sixteen_rounds_halve() {
        // RTT 120 ms over baseRTT 100 ms: 20 000 µs > 100 001/8 = 12 500 with
        // Q ≤ 80: slow rounds, no decongestion.
        let mut h = Harness::new(Yeah::new(&NoParams::default()), 20);
        h.tp.snd_ssthresh = 20;
        h.set_rtt_ms(100);
        h.send_all();
        h.dupack();
        h.set_rtt_ms(120);
        // Each clocked round's first ACK ends a Vegas round. Round 1 (20
        // ACKs): the first ends the initial round (2 samples), Scalable
        // (w = min(20, 100)) reaches 21 at the 20th. Round 2's first ACK
        // evaluates cwnd 21: Q = ⌊21·20 000/120 001⌋ = 3: slow,
        // reno_count = max(21/2, 2) = 10; the next 20 ACKs count Reno's
        // 21 (1 + 20): cwnd 22.
        h.clocked_rounds(2);
        assert_eq!((h.cc.last_q, h.cc.doing_reno_now), (3, 1));
        assert_eq!((h.cc.reno_count, h.cwnd()), (10, 22));
        // 15 more rounds: +1 each (Reno), reno_count + 1 each.
        h.clocked_rounds(15);
        assert_eq!(
            (h.cc.doing_reno_now, h.cc.reno_count, h.cwnd()),
            (16, 25, 37)
        );
        // A loss after 16 slow rounds halves: 37 − max(18, 2) = 19.
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 19);
    }

    #[test]
    fn a_loss_at_tiny_windows_keeps_ssthresh_two() {
        // cwnd 1 with lastQ 5: reduction = max(min(5, 2), 0) = 2; 1 − 2 < 0 → 2.
        let mut h = Harness::new(Yeah::new(&NoParams::default()), 1);
        h.cc.last_q = 5;
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 2);
    }
}

crate::cc_property_suite!(yeah_properties, Yeah);
