//! TCP-NV, "New Vegas" (Lawrence Brakmo, "TCP-NV: An Update to TCP-Vegas",
//! 2010, and the Linux module's own description; Linux 6.12
//! `net/ipv4/tcp_nv.c`, read in full and followed line for line).
//!
//! Congestion avoidance from the delivery rate: per ACK with an RTT sample
//! (Open or Disorder only), the average RTT (½ old + ½ new) and the rate
//! `in_flight`·80000/avg_rtt (in_flight is Linux's `ack_sample` field, the
//! bytes delivered since the newest delivered segment was sent, so the rate
//! is in 100s of bit/s); the round's largest rate is kept, and the minimum
//! of the averages (reset every `nv_reset_period` s, ±25 % at random). Once
//! per RTT, the window the rate would need at the minimum RTT plus
//! `nv_pad` segments is max_win:
//!
//! - cwnd > max_win (congestion), after `nv_rtt_min_cnt` rounds and
//!   `nv_dec_eval_min_calls` samples (`nv_ssthresh_eval_min_calls` in slow
//!   start): stop growing, ssthresh = max_win·`nv_ssthresh_factor`/8, and cwnd
//!   drops by `nv_cong_dec_mult`/128 of the excess (at least 2), or to max_win
//!   when the excess is at most 2. Before enough samples, growth stops after
//!   `nv_stop_rtt_cnt` rounds.
//! - cwnd ≤ max_win − `nv_pad_buffer` (no congestion), after
//!   `nv_inc_eval_min_calls` samples: grow again (Reno's rate, slower by
//!   2^−factor after timeouts, the factor recovering after
//!   `nv_cwnd_growth_rate_neg` rounds without congestion).
//! - In between: nothing.
//!
//! A round where a single sample arrived and it delivered nearly
//! `nv_min_cwnd` (the per-connection one, from 4 by 2 up to 81) segments
//! raises that floor (TSO, LRO and interrupt coalescence, in Linux's words).
//! Loss: ssthresh = cwnd·`nv_loss_dec_factor`/1024 (≥ 2), no growth until NV
//! decides again; a timeout also slows the growth (factor −1, down to −8).
//! Undo is Reno's.
//!
//! Every tunable of the file is a parameter with its Linux name and default
//! (Linux makes `nv_pad`, `nv_reset_period` and `nv_min_cwnd` module
//! parameters; the others are file-static ints). Linux's types are kept:
//! counters u8 (saturating where Linux checks), the growth factor s8, the
//! rest u32 and u64 with Linux's wrapping. The ints are non-negative here
//! (the ranges), where C's int and u32 arithmetic agree.
//!
//! # Deviations from Linux
//! - `tcpnv_init` asks a sockops BPF program for a base RTT
//!   (`BPF_SOCK_OPS_BASE_RTT`); hscc has none, so `nv_base_rtt` and
//!   `nv_lower_bound_rtt` are 0 as when none answers (the bounds are kept).
//! - The reset time is in 32-bit jiffies ([`TcpCc::jiffies32`], compared
//!   wrapping) where Linux keeps an `unsigned long`: the same for periods
//!   below 24 days at HZ = 1000.
//! - `get_random_bytes` is the low byte of the connection's seeded generator
//!   ([`crate::algos::bbr::prandom_u32`]), so a run is reproducible.
//! - The growth factor's shifts take their amount modulo 32 (x86's), where
//!   Linux's C is undefined: reached only if `nv_cwnd_growth_rate_pos` lets
//!   the factor pass 31.
//! - No `get_info` (hscc has no netlink).

use crate::algos::bbr::prandom_u32;
use crate::helpers::{tcp_cong_avoid_ai, tcp_slow_start};
use crate::ops::{before, AckSample, CaState, CongestionOps, TcpCc, TCP_INFINITE_SSTHRESH};

crate::params! {
    /// TCP-NV's tunables (tcp_nv.c's file-static ints, same names and defaults).
    pub struct NvParams {
        /// Most segments NV lets queue in the network.
        nv_pad: u32 = 10, [0, 10_000], "Linux 6.12 tcp_nv.c (same name): 10 (module parameter)";
        /// cwnd does not grow within this many segments of max_win.
        nv_pad_buffer: u32 = 2, [0, 10_000], "Linux 6.12 tcp_nv.c (same name): 2";
        /// Period of the min-RTT reset, s (drawn in [3/4, 5/4) of it).
        nv_reset_period: u32 = 5, [0, 3000], "Linux 6.12 tcp_nv.c (same name): 5 (module parameter); at most 3000 so that Linux's int period·639·HZ does not overflow";
        /// NV does not decrease cwnd below this without losses, segments.
        nv_min_cwnd: u32 = 2, [1, 10_000], "Linux 6.12 tcp_nv.c (same name): 2 (module parameter); at least 1, or a decrease could leave cwnd 0";
        /// Share of the excess over max_win removed on congestion, 1/128.
        nv_cong_dec_mult: u32 = 38, [0, 128], "Linux 6.12 tcp_nv.c (same name): 30 * 128 / 100 (30 %); at most 128 (all of it)";
        /// ssthresh on congestion = this × max_win / 8.
        nv_ssthresh_factor: u32 = 8, [0, 64], "Linux 6.12 tcp_nv.c (same name): 8 (= 1)";
        /// Weight of the new sample in the RTT average, 1/256 (0: no average).
        nv_rtt_factor: u32 = 128, [0, 256], "Linux 6.12 tcp_nv.c (same name): 128 (1/2 old + 1/2 new)";
        /// ssthresh on loss = cwnd × this / 1024.
        nv_loss_dec_factor: u32 = 819, [0, 1024], "Linux 6.12 tcp_nv.c (same name): 819 (80 %)";
        /// Rounds without congestion that double a slowed growth rate (0: never slowed).
        nv_cwnd_growth_rate_neg: u32 = 8, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 8";
        /// Rounds without congestion that double the growth rate (0: Reno's, fixed).
        nv_cwnd_growth_rate_pos: u32 = 0, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 0";
        /// RTT samples before NV decreases cwnd.
        nv_dec_eval_min_calls: u32 = 60, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 60";
        /// RTT samples before NV lets cwnd grow.
        nv_inc_eval_min_calls: u32 = 20, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 20";
        /// RTT samples before NV ends slow start on congestion.
        nv_ssthresh_eval_min_calls: u32 = 30, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 30";
        /// Rounds of growth without a decision after which growth stops.
        nv_stop_rtt_cnt: u32 = 10, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 10";
        /// Rounds before NV decides congestion.
        nv_rtt_min_cnt: u32 = 2, [0, 1000], "Linux 6.12 tcp_nv.c (same name): 2";
    }
}

/// Linux `NV_INIT_RTT`: no RTT yet.
const NV_INIT_RTT: u32 = u32::MAX;
/// Linux `NV_MIN_CWND`: the per-connection floor's start and least value.
const NV_MIN_CWND: u8 = 4;
/// Linux `NV_MIN_CWND_GROW`: step of the per-connection floor.
const NV_MIN_CWND_GROW: u8 = 2;
/// Linux `NV_TSO_CWND_BOUND`: the per-connection floor stays ≤ this + 1.
const NV_TSO_CWND_BOUND: u8 = 80;
/// Linux's rate unit: `in_flight`·80000/µs is 100s of bit/s.
const RATE_SCALE: u64 = 80_000;

/// TCP-NV state (Linux `struct tcpnv`, its types).
#[derive(Clone, Debug, PartialEq)]
pub struct Nv {
    /// The parameters.
    pub p: NvParams,
    /// When the min RTT is next replaced by `nv_min_rtt_new`, jiffies.
    pub nv_min_rtt_reset_jiffies: u32,
    /// Growth rate exponent (< 0: slower than 1 segment per RTT).
    pub cwnd_growth_factor: i8,
    /// Whether cwnd may grow.
    pub nv_allow_cwnd_growth: bool,
    /// Whether entering Open resets the counters (after a reduction).
    pub nv_reset: bool,
    /// Catch-up growth (Linux never sets it; kept with its test).
    pub nv_catchup: bool,
    /// Samples since the last decision (stops at 255).
    pub nv_eval_call_cnt: u8,
    /// The per-connection floor below which one sample a round raises it.
    pub nv_min_cwnd: u8,
    /// Rounds without a decision (stops at 255).
    pub nv_rtt_cnt: u8,
    /// Average RTT, µs.
    pub nv_last_rtt: u32,
    /// Minimum (averaged) RTT in use, µs.
    pub nv_min_rtt: u32,
    /// Minimum (averaged) RTT since the last reset, µs.
    pub nv_min_rtt_new: u32,
    /// Upper bound on RTTs (0: none; from sockops in Linux).
    pub nv_base_rtt: u32,
    /// Lower bound on RTTs (0: none; 80 % of `nv_base_rtt` in Linux).
    pub nv_lower_bound_rtt: u32,
    /// Largest rate of the round, 100s of bit/s.
    pub nv_rtt_max_rate: u32,
    /// The round ends at an ACK beyond this sequence number.
    pub nv_rtt_start_seq: u32,
    /// `snd_una` at the last sample.
    pub nv_last_snd_una: u32,
    /// Consecutive decisions without congestion.
    pub nv_no_cong_cnt: u32,
}

impl Nv {
    /// Linux `tcpnv_reset`.
    fn reset(&mut self, tp: &TcpCc) {
        self.nv_reset = false;
        self.nv_no_cong_cnt = 0;
        self.nv_rtt_cnt = 0;
        self.nv_last_rtt = 0;
        self.nv_rtt_max_rate = 0;
        self.nv_rtt_start_seq = tp.snd_una;
        self.nv_eval_call_cnt = 0;
        self.nv_last_snd_una = tp.snd_una;
    }

    /// Linux `nv_get_bounded_rtt`.
    fn bounded_rtt(&self, val: u32) -> u32 {
        if self.nv_lower_bound_rtt > 0 && val < self.nv_lower_bound_rtt {
            self.nv_lower_bound_rtt
        } else if self.nv_base_rtt > 0 && val > self.nv_base_rtt {
            self.nv_base_rtt
        } else {
            val
        }
    }

    /// The once-per-round decision of `tcpnv_acked` (its last block).
    fn decide(&mut self, tp: &mut TcpCc, bytes_acked: u32) {
        let p = &self.p;
        self.nv_rtt_start_seq = tp.snd_nxt;
        // Linux stops at 0xff.
        self.nv_rtt_cnt = self.nv_rtt_cnt.saturating_add(1);
        // One sample in the round: cwnd too small to fill the pipe (TSO,
        // LRO, coalescing); raise the per-connection floor.
        if self.nv_eval_call_cnt == 1
            && bytes_acked
                >= (self.nv_min_cwnd as u32)
                    .wrapping_sub(1)
                    .wrapping_mul(tp.mss_cache)
            && self.nv_min_cwnd < NV_TSO_CWND_BOUND + 1
        {
            self.nv_min_cwnd = (self.nv_min_cwnd + NV_MIN_CWND_GROW).min(NV_TSO_CWND_BOUND + 1);
            self.nv_rtt_start_seq = tp
                .snd_nxt
                .wrapping_add((self.nv_min_cwnd as u32).wrapping_mul(tp.mss_cache));
            self.nv_eval_call_cnt = 0;
            self.nv_allow_cwnd_growth = true;
            return;
        }
        // cwnd for the round's best rate at the min RTT: rate / (80000·mss/min_rtt).
        let cwnd_by_slope = (self.nv_rtt_max_rate as u64 * self.nv_min_rtt as u64
            / (RATE_SCALE * tp.mss_cache as u64)) as u32;
        let max_win = cwnd_by_slope.wrapping_add(p.nv_pad);
        let eval = self.nv_eval_call_cnt as u32;
        let rtts = self.nv_rtt_cnt as u32;
        if tp.snd_cwnd > max_win {
            // Congestion: decide only with enough rounds and samples.
            if rtts < p.nv_rtt_min_cnt {
                return;
            } else if tp.snd_ssthresh == TCP_INFINITE_SSTHRESH {
                if eval < p.nv_ssthresh_eval_min_calls {
                    return;
                }
            } else if eval < p.nv_dec_eval_min_calls {
                if self.nv_allow_cwnd_growth && rtts > p.nv_stop_rtt_cnt {
                    self.nv_allow_cwnd_growth = false;
                }
                return;
            }
            self.nv_allow_cwnd_growth = false;
            tp.snd_ssthresh = p.nv_ssthresh_factor.wrapping_mul(max_win) >> 3;
            let excess = tp.snd_cwnd - max_win;
            if excess > 2 {
                // Linux's int dec, from a u32.
                let dec = (excess.wrapping_mul(p.nv_cong_dec_mult) >> 7).max(2);
                tp.snd_cwnd = tp.snd_cwnd.wrapping_sub(dec);
            } else if p.nv_cong_dec_mult > 0 {
                tp.snd_cwnd = max_win;
            }
            if self.cwnd_growth_factor > 0 {
                self.cwnd_growth_factor = 0;
            }
            self.nv_no_cong_cnt = 0;
        } else if tp.snd_cwnd <= max_win.wrapping_sub(p.nv_pad_buffer) {
            // No congestion: grow, faster after enough such rounds.
            if eval < p.nv_inc_eval_min_calls {
                return;
            }
            self.nv_allow_cwnd_growth = true;
            self.nv_no_cong_cnt = self.nv_no_cong_cnt.wrapping_add(1);
            if self.cwnd_growth_factor < 0
                && p.nv_cwnd_growth_rate_neg > 0
                && self.nv_no_cong_cnt > p.nv_cwnd_growth_rate_neg
            {
                self.cwnd_growth_factor += 1;
                self.nv_no_cong_cnt = 0;
            } else if self.cwnd_growth_factor >= 0
                && p.nv_cwnd_growth_rate_pos > 0
                && self.nv_no_cong_cnt > p.nv_cwnd_growth_rate_pos
            {
                // s8, wrapping as C's conversion does.
                self.cwnd_growth_factor = self.cwnd_growth_factor.wrapping_add(1);
                self.nv_no_cong_cnt = 0;
            }
        } else {
            // In between: nothing.
            return;
        }
        self.nv_eval_call_cnt = 0;
        self.nv_rtt_cnt = 0;
        self.nv_rtt_max_rate = 0;
        // Not below nv_min_cwnd because of NV's own decrease.
        if tp.snd_cwnd < p.nv_min_cwnd {
            tp.snd_cwnd = p.nv_min_cwnd;
        }
    }
}

impl CongestionOps for Nv {
    const NAME: &'static str = "nv";
    type Params = NvParams;
    const NEEDS_DELIVERY_STAMPS: bool = true;

    fn new(p: &NvParams) -> Self {
        // Linux zeroes icsk_ca_priv before init.
        Nv {
            p: p.clone(),
            nv_min_rtt_reset_jiffies: 0,
            cwnd_growth_factor: 0,
            nv_allow_cwnd_growth: false,
            nv_reset: false,
            nv_catchup: false,
            nv_eval_call_cnt: 0,
            nv_min_cwnd: 0,
            nv_rtt_cnt: 0,
            nv_last_rtt: 0,
            nv_min_rtt: 0,
            nv_min_rtt_new: 0,
            nv_base_rtt: 0,
            nv_lower_bound_rtt: 0,
            nv_rtt_max_rate: 0,
            nv_rtt_start_seq: 0,
            nv_last_snd_una: 0,
            nv_no_cong_cnt: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let p = &self.p;
        vec![
            ("nv_pad", p.nv_pad.into()),
            ("nv_pad_buffer", p.nv_pad_buffer.into()),
            ("nv_reset_period", p.nv_reset_period.into()),
            ("nv_min_cwnd", p.nv_min_cwnd.into()),
            ("nv_cong_dec_mult", p.nv_cong_dec_mult.into()),
            ("nv_ssthresh_factor", p.nv_ssthresh_factor.into()),
            ("nv_rtt_factor", p.nv_rtt_factor.into()),
            ("nv_loss_dec_factor", p.nv_loss_dec_factor.into()),
            ("nv_cwnd_growth_rate_neg", p.nv_cwnd_growth_rate_neg.into()),
            ("nv_cwnd_growth_rate_pos", p.nv_cwnd_growth_rate_pos.into()),
            ("nv_dec_eval_min_calls", p.nv_dec_eval_min_calls.into()),
            ("nv_inc_eval_min_calls", p.nv_inc_eval_min_calls.into()),
            (
                "nv_ssthresh_eval_min_calls",
                p.nv_ssthresh_eval_min_calls.into(),
            ),
            ("nv_stop_rtt_cnt", p.nv_stop_rtt_cnt.into()),
            ("nv_rtt_min_cnt", p.nv_rtt_min_cnt.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        // Linux tcpnv_init.
        self.reset(tp);
        // No sockops program gives a base RTT (module documentation).
        self.nv_base_rtt = 0;
        self.nv_lower_bound_rtt = 0;
        self.nv_allow_cwnd_growth = true;
        self.nv_min_rtt_reset_jiffies = tp.jiffies32().wrapping_add(2 * tp.hz);
        self.nv_min_rtt = NV_INIT_RTT;
        self.nv_min_rtt_new = NV_INIT_RTT;
        self.nv_min_cwnd = NV_MIN_CWND;
        self.nv_catchup = false;
        self.cwnd_growth_factor = 0;
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, mut acked: u32) {
        // Linux tcpnv_cong_avoid.
        if !tp.is_cwnd_limited() {
            return;
        }
        // Only while NV has not detected congestion.
        if !self.nv_allow_cwnd_growth {
            return;
        }
        if tp.in_slow_start() {
            acked = tcp_slow_start(tp, acked);
            if acked == 0 {
                return;
            }
        }
        let cnt = if self.cwnd_growth_factor < 0 {
            let shift = (self.cwnd_growth_factor as i32).wrapping_neg() as u32;
            tp.snd_cwnd.wrapping_shl(shift)
        } else {
            let shift = self.cwnd_growth_factor as u32;
            4u32.max(tp.snd_cwnd.wrapping_shr(shift))
        };
        tcp_cong_avoid_ai(tp, cnt, acked);
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        // Linux tcpnv_recalc_ssthresh.
        (tp.snd_cwnd.wrapping_mul(self.p.nv_loss_dec_factor) >> 10).max(2)
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        // Linux tcpnv_state.
        if new_state == CaState::Open && self.nv_reset {
            self.reset(tp);
        } else if matches!(new_state, CaState::Loss | CaState::Cwr | CaState::Recovery) {
            self.nv_reset = true;
            self.nv_allow_cwnd_growth = false;
            if new_state == CaState::Loss {
                // Back to Reno's growth rate, then slower if allowed.
                if self.cwnd_growth_factor > 0 {
                    self.cwnd_growth_factor = 0;
                }
                if self.p.nv_cwnd_growth_rate_neg > 0 && self.cwnd_growth_factor > -8 {
                    self.cwnd_growth_factor -= 1;
                }
            }
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        // Linux tcpnv_acked.
        if sample.rtt_us < 0 {
            return;
        }
        if !matches!(tp.ca_state, CaState::Open | CaState::Disorder) {
            return;
        }
        // Stop growing at the end of a catch-up.
        if self.nv_catchup && tp.snd_cwnd >= self.p.nv_min_cwnd {
            self.nv_catchup = false;
            self.nv_allow_cwnd_growth = false;
        }
        let bytes_acked = tp.snd_una.wrapping_sub(self.nv_last_snd_una);
        self.nv_last_snd_una = tp.snd_una;
        if sample.in_flight == 0 {
            return;
        }
        // Moving average of the RTT.
        let mut avg_rtt;
        if self.p.nv_rtt_factor > 0 {
            if self.nv_last_rtt > 0 {
                avg_rtt = ((sample.rtt_us as u64 * self.p.nv_rtt_factor as u64
                    + self.nv_last_rtt as u64 * (256 - self.p.nv_rtt_factor) as u64)
                    >> 8) as u32;
            } else {
                avg_rtt = sample.rtt_us as u32;
                self.nv_min_rtt = avg_rtt << 1;
            }
            self.nv_last_rtt = avg_rtt;
        } else {
            avg_rtt = sample.rtt_us as u32;
        }
        // Rate in 100s of bit/s (do_div by avg_rtt ?: 1).
        let rate = (sample.in_flight as u64 * RATE_SCALE / avg_rtt.max(1) as u64) as u32;
        // The round's largest rate.
        if self.nv_rtt_max_rate < rate {
            self.nv_rtt_max_rate = rate;
        }
        // Linux stops at 255.
        self.nv_eval_call_cnt = self.nv_eval_call_cnt.saturating_add(1);
        // The bounds apply to the min RTT only.
        avg_rtt = self.bounded_rtt(avg_rtt);
        self.nv_min_rtt = self.nv_min_rtt.min(avg_rtt);
        self.nv_min_rtt_new = self.nv_min_rtt_new.min(avg_rtt);
        // Every nv_reset_period·[3/4, 5/4) s the min RTT restarts from the
        // period's own; the per-connection floor halves (at least 4).
        let now = tp.jiffies32();
        if now.wrapping_sub(self.nv_min_rtt_reset_jiffies) as i32 >= 0 {
            self.nv_min_rtt = self.nv_min_rtt_new;
            self.nv_min_rtt_new = NV_INIT_RTT;
            let rand = prandom_u32(tp) as u8;
            let period = (self.p.nv_reset_period as u64 * (384 + rand as u64) * tp.hz as u64) >> 9;
            self.nv_min_rtt_reset_jiffies = now.wrapping_add(period as u32);
            self.nv_min_cwnd = (self.nv_min_cwnd / 2).max(NV_MIN_CWND);
        }
        // Once per RTT: the congestion decision.
        if before(self.nv_rtt_start_seq, tp.snd_una) {
            self.decide(tp, bytes_acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn nv(init_cwnd: u32) -> Harness<Nv> {
        Harness::new(Nv::new(&NvParams::default()), init_cwnd)
    }

    /// `(nv_last_rtt, nv_min_rtt, nv_min_rtt_new)`.
    fn rtts(h: &Harness<Nv>) -> (u32, u32, u32) {
        (h.cc.nv_last_rtt, h.cc.nv_min_rtt, h.cc.nv_min_rtt_new)
    }

    #[test]
    fn the_min_rtt_is_the_least_average_and_restarts_each_period() {
        let mut h = nv(10);
        h.set_rtt_ms(100);
        h.send_all();
        h.advance_ms(100);
        // The first sample is the average (min_rtt first set to twice it).
        h.ack_each(1, 1);
        assert_eq!(rtts(&h), (100_000, 100_000, 100_000));
        // Averages of half old, half new: (200 000 + 100 000)/2.
        h.set_rtt_ms(200);
        h.ack_each(1, 1);
        assert_eq!(rtts(&h), (150_000, 100_000, 100_000));
        h.set_rtt_ms(20);
        h.ack_each(1, 1);
        assert_eq!(rtts(&h), (85_000, 85_000, 85_000));
        // init set the first reset 2 s (2000 jiffies) ahead: at 2.0 s the
        // min RTT becomes the period's (85 000), a new period starts empty,
        // (5·(384 + 57)·1000) >> 9 = 4306 jiffies long (57: the low byte of
        // the generator's first draw from state 0, 3 793 791 033).
        h.advance_ms(1900);
        h.set_rtt_ms(100);
        h.ack_each(1, 1);
        assert_eq!(rtts(&h), (92_500, 85_000, NV_INIT_RTT));
        assert_eq!((h.cc.nv_min_rtt_reset_jiffies, h.cc.nv_min_cwnd), (6306, 4));
        h.ack_each(1, 1);
        assert_eq!(rtts(&h), (96_250, 85_000, 96_250));
        // At 6.306 s the period's least average (96 250) replaces 85 000;
        // the next period: (5·(384 + 106)·1000) >> 9 = 4785.
        h.advance_ms(4306);
        h.ack_each(1, 1);
        assert_eq!(rtts(&h), (98_125, 96_250, NV_INIT_RTT));
        assert_eq!(h.cc.nv_min_rtt_reset_jiffies, 6306 + 4785);
    }

    /// cwnd 200 with 200 segments out at a 100 ms RTT, the min RTT 100 ms,
    /// the round's best rate 173 760 (150 segments at the min RTT:
    /// 173 760·100 000/(80 000·1448) = 150), `rtt_cnt` rounds and `eval`
    /// samples so far; the next ACK ends the round and adds one of each.
    fn congested(cwnd: u32, ssthresh: u32, rtt_cnt: u8, eval: u8) -> Harness<Nv> {
        let mut h = nv(10);
        h.tp.snd_cwnd = cwnd;
        h.tp.snd_ssthresh = ssthresh;
        h.set_rtt_ms(100);
        h.send_all();
        h.cc.nv_last_rtt = 100_000;
        h.cc.nv_min_rtt = 100_000;
        h.cc.nv_rtt_max_rate = 173_760;
        h.cc.nv_rtt_cnt = rtt_cnt;
        h.cc.nv_eval_call_cnt = eval;
        h.advance_ms(100);
        h.ack_each(1, 1);
        h
    }

    #[test]
    fn congestion_cuts_thirty_percent_of_the_excess() {
        // max_win = 150 + nv_pad 10 = 160 < cwnd 200, 2 rounds, 60 samples:
        // ssthresh = 8·160 >> 3 = 160, cwnd −= max(2, 40·38 >> 7 = 11) = 189,
        // and no growth until NV sees no congestion.
        let mut h = congested(200, 300, 1, 59);
        assert_eq!((h.cwnd(), h.ssthresh()), (189, 160));
        assert!(!h.cc.nv_allow_cwnd_growth);
        assert_eq!((h.cc.nv_eval_call_cnt, h.cc.nv_rtt_cnt), (0, 0));
        h.ack_all();
        assert_eq!(h.cwnd(), 189);
        // An excess of at most 2 sets cwnd to max_win.
        let h = congested(162, 300, 1, 59);
        assert_eq!((h.cwnd(), h.ssthresh()), (160, 160));
    }

    #[test]
    fn congestion_waits_for_rounds_and_samples() {
        // One round only (nv_rtt_min_cnt = 2): no decision; cwnd 200 < ssthresh
        // 300 grows in slow start.
        let h = congested(200, 300, 0, 59);
        assert_eq!((h.cwnd(), h.ssthresh(), h.cc.nv_rtt_cnt), (201, 300, 1));
        // 59 samples (nv_dec_eval_min_calls = 60): no decision either, and
        // growth goes on until more than nv_stop_rtt_cnt = 10 rounds passed.
        let h = congested(200, 300, 1, 58);
        assert_eq!((h.cwnd(), h.cc.nv_eval_call_cnt), (201, 59));
        let h = congested(200, 300, 10, 58);
        assert_eq!((h.cwnd(), h.cc.nv_rtt_cnt), (200, 11));
        assert!(!h.cc.nv_allow_cwnd_growth);
    }

    #[test]
    fn slow_start_ends_after_thirty_samples() {
        // Infinite ssthresh: nv_ssthresh_eval_min_calls = 30 samples decide.
        let h = congested(200, TCP_INFINITE_SSTHRESH, 1, 28);
        assert_eq!((h.cwnd(), h.ssthresh()), (201, TCP_INFINITE_SSTHRESH));
        let h = congested(200, TCP_INFINITE_SSTHRESH, 1, 29);
        assert_eq!((h.cwnd(), h.ssthresh()), (189, 160));
        assert!(!h.tp.in_slow_start());
    }

    #[test]
    fn a_loss_stops_growth_until_twenty_samples_see_no_congestion() {
        let mut h = nv(100);
        h.tp.snd_ssthresh = 300;
        h.set_rtt_ms(100);
        h.send_all();
        // ssthresh = 100·819 >> 10 = 79; Open again resets the counters.
        h.loss();
        assert_eq!((h.cwnd(), h.ssthresh()), (79, 79));
        assert!(!h.cc.nv_allow_cwnd_growth);
        assert_eq!((h.cc.nv_rtt_start_seq, h.cc.nv_last_rtt), (0, 0));
        // A best rate of 115 840 (100 segments) and 19 samples: max_win 110,
        // cwnd 79 ≤ 110 − nv_pad_buffer 2, and the 20th sample lets it grow,
        // Reno's way (cnt = max(4, cwnd >> 0)).
        h.cc.nv_rtt_max_rate = 115_840;
        h.cc.nv_eval_call_cnt = 19;
        h.advance_ms(100);
        h.ack_each(1, 1);
        assert!(h.cc.nv_allow_cwnd_growth);
        assert_eq!(
            (h.cc.nv_no_cong_cnt, h.cwnd(), h.tp.snd_cwnd_cnt),
            (1, 79, 1)
        );
        h.ack_each(78, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (80, 0));
    }

    #[test]
    fn after_a_timeout_cwnd_waits_twenty_rounds_then_grows_slower() {
        let mut h = nv(10);
        h.set_rtt_ms(100);
        h.send_all();
        // ssthresh = max(10·819 >> 10, 2) = 7; the growth factor drops to −1.
        h.timeout();
        assert_eq!(
            (h.cwnd(), h.ssthresh(), h.cc.cwnd_growth_factor),
            (1, 7, -1)
        );
        // Round 1's ACK comes in Loss (ignored), then Open resets; each
        // later round's one sample delivers 1448 bytes: rate 1158, max_win
        // 0 + 10, cwnd 1 ≤ 8 but fewer than 20 samples: no growth.
        h.rounds(20);
        assert_eq!((h.cwnd(), h.cc.nv_eval_call_cnt), (1, 19));
        assert!(!h.cc.nv_allow_cwnd_growth);
        // The 20th sample: growth; NV's floor nv_min_cwnd lifts cwnd to 2
        // and slow start adds the ACK: 3.
        h.round();
        assert!(h.cc.nv_allow_cwnd_growth);
        assert_eq!((h.cwnd(), h.cc.nv_no_cong_cnt), (3, 1));
        // Beyond ssthresh the growth factor −1 doubles Reno's count: cwnd 7
        // grows by one per 14 segments acknowledged.
        h.tp.snd_cwnd = 7;
        h.tp.snd_cwnd_cnt = 0;
        h.send_all();
        h.ack_each(7, 1);
        h.send_all();
        h.ack_each(6, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (7, 13));
        h.ack_each(1, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (8, 0));
    }

    #[test]
    fn one_sample_per_round_raises_the_floor() {
        // A stretch ACK of 4 segments, alone in its round: 5792 ≥ (4 − 1)·1448
        // bytes, so nv_min_cwnd 4 → 6 and the round extends 6 segments.
        let mut h = nv(10);
        h.set_rtt_ms(100);
        h.send_all();
        h.advance_ms(100);
        h.ack_each(1, 4);
        assert_eq!(h.cc.nv_min_cwnd, 6);
        assert_eq!(h.cc.nv_rtt_start_seq, 16 * 1448);
        assert_eq!(h.cc.nv_eval_call_cnt, 0);
    }
}

crate::cc_property_suite!(nv_properties, Nv);
