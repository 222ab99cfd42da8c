//! H-TCP (D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004; draft-leith-tcp-htcp; Linux `tcp_htcp.c`).
//!
//! The increase grows with the time Δ since the last congestion event:
//!
//!   α(Δ) = 1                                   for Δ ≤ Δ_L = 1 s,
//!   α(Δ) = 1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)²    for Δ > Δ_L,
//!
//! applied as cwnd += 2(1 − β)·α(Δ)/cwnd per ACK, so that the average rate does not
//! depend on β. The backoff adapts to the path: β = RTT_min/RTT_max, clamped to
//! [0.5, 0.8], which empties the queue but no more; β = 0.5 after the first
//! congestion event, when RTT_min ≤ 10 ms, or when the achieved throughput
//! moved by more than 20 % between congestion epochs ("bandwidth switch").
//! With RTT scaling α is multiplied by RTT_min/100 ms (ratio clamped to [0.1, 2])
//! so that flows with different RTTs grow alike in time.
//!
//! # Fixed point, as Linux
//! - α and β are ×128 (`ALPHA_BASE` = 128 = 1.0, β_min = 64, β_max = 102 ≈ 0.797).
//! - Time in jiffies: Δ = jiffies − `last_cong`, RTT_min and RTT_max from the
//!   per-ACK RTT samples, rounded up to jiffies. α(Δ) is an integer:
//!   1 + (10·d + (d/2)²/HZ)/HZ with d = Δ − Δ_L in jiffies (α(2 s) = 11, not 11.25).
//! - Per ACK: if cnt·α/128 ≥ cwnd then cwnd += 1, cnt = 0 and α is recomputed;
//!   else cnt += segments acknowledged by this ACK (at most +1 per ACK).
//! - RTT_max only grows by jumps of ≤ 20 ms, and only while Open; at each
//!   congestion event it fades: RTT_max ← RTT_min + 0.95·(RTT_max − RTT_min).
//! - Throughput B (segments/s) is measured over about a window of ACKs, EWMA 3/4;
//!   β is forced to 0.5 unless 5·B_max ∈ [4·B_max_old, 6·B_max_old].
//!
//! # Deviations from the paper / from Linux
//! - Linux's α overflows 32 bits 131 s after a congestion event ((d/2)² with d in
//!   jiffies); hscc computes α(Δ) in 64 bits and caps the factor at 2²⁰, and the
//!   throughput estimate in 64 bits saturated to 32.
//! - Linux marks "undo data saved" by `undo_last_cong != 0`; hscc uses a flag
//!   (jiffies may be 0 in a simulation).
//! - Δ_L, β_min, β_max, RTT scaling and the bandwidth switch are parameters
//!   (Linux: constants and the module parameters `use_rtt_scaling`,
//!   `use_bandwidth_switch`). The RTT-scaling reference stays 100 ms (Linux).

use crate::helpers::{in_congestion_avoidance, tcp_reno_undo_cwnd};
use crate::ops::{AckSample, CaState, CongestionOps, TcpCc};

/// α = 1.0 in ×128 fixed point (Linux `ALPHA_BASE`).
const ALPHA_BASE: u32 = 1 << 7;
/// Largest α(Δ) factor (Linux's 32-bit arithmetic would wrap instead).
const MAX_FACTOR: u64 = 1 << 20;

crate::params! {
    /// H-TCP parameters.
    pub struct HtcpParams {
        /// Δ_L: time after a congestion event during which H-TCP is Reno, ms.
        delta_l_ms: u32 = 1000, [0, 100000], "Leith & Shorten PFLDnet 2004 §3; Linux tcp_htcp.c (HZ)";
        /// Lower bound of the adaptive backoff β (and its value when not adapting).
        beta_min: f64 = 0.5, [0.1, 0.9], "Leith & Shorten; Linux tcp_htcp.c BETA_MIN";
        /// Upper bound of the adaptive backoff β (×128, rounded: 0.8 → 102).
        beta_max: f64 = 0.8, [0.1, 0.95], "Leith & Shorten; Linux tcp_htcp.c BETA_MAX";
        /// Scale α by RTT_min/100 ms (ratio clamped to [0.1, 2]).
        rtt_scaling: bool = true, [0, 1], "Linux tcp_htcp.c use_rtt_scaling";
        /// Force β = β_min when throughput moved by more than 20 % between congestion epochs.
        bandwidth_switch: bool = true, [0, 1], "Leith & Shorten; Linux tcp_htcp.c use_bandwidth_switch";
    }
    order { beta_min <= beta_max; }
}

/// H-TCP state (Linux `struct htcp`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Htcp {
    /// Increase per RTT ×128, including the 2(1 − β) factor.
    alpha: u32,
    /// Backoff ×128.
    beta: u32,
    /// Adaptive β allowed (one congestion event seen with a stable bandwidth).
    modeswitch: bool,
    /// Segments acknowledged by the current ACK (1 outside Open).
    pkts_acked: u32,
    /// Segments acknowledged in the current throughput sample.
    packetcount: u32,
    /// RTT_min, jiffies (0 = none).
    min_rtt: u32,
    /// RTT_max, jiffies.
    max_rtt: u32,
    /// Last congestion event, jiffies.
    last_cong: u32,
    /// Values before the last reduction, for undo.
    undo_valid: bool,
    undo_last_cong: u32,
    undo_max_rtt: u32,
    undo_old_max_b: u32,
    /// Throughput: smallest, largest, previous epoch's largest, current estimate, segments/s.
    min_b: u32,
    max_b: u32,
    old_max_b: u32,
    bi: u32,
    /// Start of the current throughput sample, jiffies.
    lasttime: u32,
    /// Converted parameters.
    cfg: Config,
}

/// Parameters in the units the per-ACK path uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Config {
    /// Δ_L, ms.
    delta_l_ms: u32,
    /// β bounds ×128.
    beta_min: u32,
    beta_max: u32,
    rtt_scaling: bool,
    bandwidth_switch: bool,
}

/// ⌈ms·HZ/1000⌉ (Linux `msecs_to_jiffies`).
fn ms_to_jiffies(ms: u32, hz: u32) -> u32 {
    (ms as u64 * hz as u64).div_ceil(1000) as u32
}

impl Htcp {
    /// Linux `htcp_init`: everything zero but α = 1, β = β_min, last_cong = now.
    fn fresh(cfg: Config, now: u32) -> Self {
        Htcp {
            alpha: ALPHA_BASE,
            beta: cfg.beta_min,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: now,
            undo_valid: false,
            undo_last_cong: 0,
            undo_max_rtt: 0,
            undo_old_max_b: 0,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            bi: 0,
            lasttime: 0,
            cfg,
        }
    }

    /// Time since the last congestion event, jiffies.
    fn cong_time(&self, tp: &TcpCc) -> u32 {
        tp.jiffies32().wrapping_sub(self.last_cong)
    }

    /// α ×128 (2(1 − β)·α(Δ), RTT-scaled).
    pub fn alpha(&self) -> u32 {
        self.alpha
    }

    /// β ×128.
    pub fn beta(&self) -> u32 {
        self.beta
    }

    fn reset(&mut self, tp: &TcpCc) {
        self.undo_valid = true;
        self.undo_last_cong = self.last_cong;
        self.undo_max_rtt = self.max_rtt;
        self.undo_old_max_b = self.old_max_b;
        self.last_cong = tp.jiffies32();
    }

    /// Linux `measure_rtt`: RTT_min always, RTT_max by small steps while Open.
    fn measure_rtt(&mut self, tp: &TcpCc, rtt: u32) {
        if self.min_rtt > rtt || self.min_rtt == 0 {
            self.min_rtt = rtt;
        }
        if tp.ca_state == CaState::Open {
            self.max_rtt = self.max_rtt.max(self.min_rtt);
            if self.max_rtt < rtt && rtt <= self.max_rtt + ms_to_jiffies(20, tp.hz) {
                self.max_rtt = rtt;
            }
        }
    }

    /// Linux `measure_achieved_throughput` after the RTT part.
    fn measure_throughput(&mut self, tp: &TcpCc, pkts_acked: u32) {
        let now = tp.jiffies32();
        if !matches!(tp.ca_state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount = self.packetcount.saturating_add(pkts_acked);
        // About a window acknowledged (Linux wraps cwnd − α to "never" when α > cwnd).
        let window_done = tp
            .snd_cwnd
            .checked_sub((self.alpha >> 7).max(1))
            .is_some_and(|w| self.packetcount >= w);
        let elapsed = now.wrapping_sub(self.lasttime);
        if window_done && elapsed >= self.min_rtt && self.min_rtt > 0 {
            let cur = (self.packetcount as u64 * tp.hz as u64 / elapsed as u64).min(u32::MAX as u64)
                as u32;
            if self.cong_time(tp) / self.min_rtt <= 3 {
                // Just after a backoff.
                (self.min_b, self.max_b, self.bi) = (cur, cur, cur);
            } else {
                self.bi = ((3 * self.bi as u64 + cur as u64) / 4) as u32;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    /// Linux `htcp_beta_update`.
    fn beta_update(&mut self, tp: &TcpCc) {
        if self.cfg.bandwidth_switch {
            let (max_b, old) = (self.max_b as u64, self.old_max_b as u64);
            self.old_max_b = self.max_b;
            if !(4 * old <= 5 * max_b && 5 * max_b <= 6 * old) {
                self.beta = self.cfg.beta_min;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > ms_to_jiffies(10, tp.hz) && self.max_rtt != 0 {
            self.beta =
                ((self.min_rtt << 7) / self.max_rtt).clamp(self.cfg.beta_min, self.cfg.beta_max);
        } else {
            self.beta = self.cfg.beta_min;
            self.modeswitch = true;
        }
    }

    /// Linux `htcp_alpha_update`: α = 2(1 − β)·α(Δ), scaled by RTT_min/100 ms.
    fn alpha_update(&mut self, tp: &TcpCc) {
        let hz = tp.hz as u64;
        let mut diff = self.cong_time(tp) as u64;
        let delta_l = ms_to_jiffies(self.cfg.delta_l_ms, tp.hz) as u64;
        let mut factor = 1u64;
        if diff > delta_l {
            diff -= delta_l;
            factor = (1 + (10 * diff + (diff / 2) * (diff / 2) / hz) / hz).min(MAX_FACTOR);
        }
        if self.cfg.rtt_scaling && self.min_rtt != 0 {
            // (100 ms / RTT_min) << 3, clamped to [0.5, 10] << 3.
            let scale = ((hz << 3) / (10 * self.min_rtt as u64)).clamp(1 << 2, 10 << 3);
            factor = ((factor << 3) / scale).max(1);
        }
        self.alpha = (2 * factor * (ALPHA_BASE - self.beta) as u64) as u32;
        if self.alpha == 0 {
            self.alpha = ALPHA_BASE;
        }
    }
}

impl CongestionOps for Htcp {
    const NAME: &'static str = "htcp";
    type Params = HtcpParams;

    fn new(p: &HtcpParams) -> Self {
        let beta_min = (p.beta_min * 128.0).round() as u32;
        let cfg = Config {
            delta_l_ms: p.delta_l_ms,
            beta_min,
            beta_max: ((p.beta_max * 128.0).round() as u32).max(beta_min),
            rtt_scaling: p.rtt_scaling,
            bandwidth_switch: p.bandwidth_switch,
        };
        Htcp::fresh(cfg, 0)
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let c = &self.cfg;
        vec![
            ("delta_l_ms", c.delta_l_ms.into()),
            ("beta_min", c.beta_min.into()),
            ("beta_max", c.beta_max.into()),
            ("rtt_scaling", c.rtt_scaling.into()),
            ("bandwidth_switch", c.bandwidth_switch.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        *self = Htcp::fresh(self.cfg, tp.jiffies32());
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        self.beta_update(tp);
        self.alpha_update(tp);
        // Slowly fading memory of RTT_max, for route changes.
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * 95 / 100;
        }
        (((tp.snd_cwnd as u64 * self.beta as u64) >> 7) as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        if !in_congestion_avoidance(tp, acked) {
            return;
        }
        // cwnd += α/cwnd per segment, one step per ACK at most.
        if (tp.snd_cwnd_cnt as u64 * self.alpha as u64) >> 7 >= tp.snd_cwnd as u64 {
            if tp.snd_cwnd < tp.snd_cwnd_clamp {
                tp.snd_cwnd += 1;
            }
            tp.snd_cwnd_cnt = 0;
            self.alpha_update(tp);
        } else {
            tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.saturating_add(self.pkts_acked);
        }
        self.pkts_acked = 1;
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        match new_state {
            CaState::Open => {
                if self.undo_valid {
                    self.last_cong = tp.jiffies32();
                    self.undo_valid = false;
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => self.reset(tp),
            CaState::Disorder => {}
        }
    }

    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        if self.undo_valid {
            self.last_cong = self.undo_last_cong;
            self.max_rtt = self.undo_max_rtt;
            self.old_max_b = self.undo_old_max_b;
            self.undo_valid = false;
        }
        tcp_reno_undo_cwnd(tp)
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        if tp.ca_state == CaState::Open {
            self.pkts_acked = sample.pkts_acked;
        }
        if sample.rtt_us > 0 {
            let us_per_jiffy = 1_000_000 / tp.hz;
            self.measure_rtt(tp, (sample.rtt_us as u32).div_ceil(us_per_jiffy));
        }
        if self.cfg.bandwidth_switch {
            self.measure_throughput(tp, sample.pkts_acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;
    use crate::testing::Harness;

    fn htcp(p: &HtcpParams) -> Harness<Htcp> {
        Harness::with_params(p, 10)
    }

    /// α ×128 at Δ seconds since the last congestion event, RTT_min in ms, β = 0.5.
    fn alpha_at(p: &HtcpParams, delta_ms: u64, min_rtt_ms: u32) -> u32 {
        let mut h = htcp(p);
        h.cc.min_rtt = min_rtt_ms;
        h.advance_ms(delta_ms);
        h.cc.alpha_update(&h.tp);
        h.cc.alpha()
    }

    #[test]
    fn alpha_of_delta_by_hand() {
        let p = HtcpParams::default();
        // β = 0.5 → 2(1 − β) = 1, so α ×128 = 128·α(Δ). RTT_min = 100 ms: no scaling.
        // Δ = 0.5 s ≤ Δ_L: α = 1.
        assert_eq!(alpha_at(&p, 500, 100), 128);
        // Δ = 2 s: d = 1000 jiffies; 1 + (10·1000 + 500²/1000)/1000 = 1 + 10250/1000 = 11
        // (the formula's 1 + 10 + 0.25 = 11.25, truncated).
        assert_eq!(alpha_at(&p, 2000, 100), 11 * 128);
        // Δ = 5 s: d = 4000; 1 + (40000 + 2000²/1000)/1000 = 1 + 44 = 45 = 1 + 40 + 4.
        assert_eq!(alpha_at(&p, 5000, 100), 45 * 128);
        // Δ = 1 s exactly is still Reno.
        assert_eq!(alpha_at(&p, 1000, 100), 128);
    }

    #[test]
    fn alpha_rtt_scaling() {
        let p = HtcpParams::default();
        // scale = 8000/(10·RTT_min) clamped to [4, 80]; factor = 11·8/scale.
        assert_eq!(alpha_at(&p, 2000, 200), 22 * 128); // scale 4: ×2
        assert_eq!(alpha_at(&p, 2000, 50), 5 * 128); // scale 16: 88/16 = 5
        assert_eq!(alpha_at(&p, 2000, 10), 128); // scale 80: 88/80 = 1
        assert_eq!(alpha_at(&p, 2000, 1000), 22 * 128); // scale 0 → 4: ratio capped at 2
        let mut off = HtcpParams::default();
        off.set("rtt_scaling", 0.0).unwrap();
        assert_eq!(alpha_at(&off, 2000, 10), 11 * 128);
    }

    #[test]
    fn alpha_includes_two_times_one_minus_beta() {
        let mut h = htcp(&HtcpParams::default());
        h.cc.min_rtt = 100;
        h.cc.beta = 102; // 0.8: 2·(128 − 102) = 52
        h.advance_ms(5000);
        h.cc.alpha_update(&h.tp);
        assert_eq!(h.cc.alpha(), 2 * 45 * 26);
    }

    fn beta_after(min_rtt: u32, max_rtt: u32) -> u32 {
        let mut h = htcp(&HtcpParams::default());
        (h.cc.min_rtt, h.cc.max_rtt, h.cc.modeswitch) = (min_rtt, max_rtt, true);
        h.tp.snd_cwnd = 1000;
        h.fast_retransmit();
        h.cc.beta()
    }

    #[test]
    fn beta_is_rtt_ratio_within_bounds() {
        assert_eq!(beta_after(100, 300), 64); // 12800/300 = 42 → 0.5
        assert_eq!(beta_after(100, 150), 85); // 12800/150 = 85 (0.66)
        assert_eq!(beta_after(100, 110), 102); // 116 → 0.8 (102)
        assert_eq!(beta_after(10, 12), 64); // RTT_min ≤ 10 ms: 0.5

        // ssthresh = cwnd·β >> 7.
        let mut h = htcp(&HtcpParams::default());
        (h.cc.min_rtt, h.cc.max_rtt, h.cc.modeswitch) = (100, 150, true);
        h.tp.snd_cwnd = 1000;
        h.loss();
        assert_eq!(h.cwnd(), 664); // 85000/128 = 664.06
    }

    #[test]
    fn adaptive_backoff_scripted() {
        let mut p = HtcpParams::default();
        p.set("bandwidth_switch", 0.0).unwrap();
        let mut h = htcp(&p);
        h.set_rtt_ms(100);
        h.tp.snd_ssthresh = 10;
        h.rounds(2);
        h.set_rtt_ms(115); // a queue of 15 ms: RTT_max = 115 (jump ≤ 20 ms)
        h.rounds(2);
        assert_eq!((h.cc.min_rtt, h.cc.max_rtt), (100, 115));
        // The first congestion event backs off by 0.5 and enables the adaptive mode.
        h.tp.snd_cwnd = 100;
        h.loss();
        assert_eq!((h.cc.beta(), h.cwnd()), (64, 50));
        // RTT_max faded to 100 + 15·95/100 = 114, then back to 115.
        assert_eq!(h.cc.max_rtt, 114);
        h.rounds(2);
        h.tp.snd_cwnd = 100;
        h.loss();
        // β = 12800/115 = 111 → capped at 102: 100·102/128 = 79.7.
        assert_eq!((h.cc.beta(), h.cwnd()), (102, 79));
        // A 25 ms RTT jump is ignored as a spike.
        h.set_rtt_ms(140);
        h.round();
        assert_eq!(h.cc.max_rtt, 114);
    }

    #[test]
    fn reno_growth_in_the_first_second() {
        // α = 1: +1 per cwnd segments, but the +1 lands on the ACK after the cwnd-th.
        let mut h = htcp(&HtcpParams::default());
        h.tp.snd_cwnd = 100;
        h.tp.snd_ssthresh = 50;
        h.set_rtt_ms(10);
        h.round(); // 100 ACKs: cnt = 100, no increase yet
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (100, 100));
        h.round(); // first ACK: 100·1 ≥ 100 → 101, cnt 0; 99 more ACKs
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (101, 99));
        h.round(); // 101 ACKs: the 3rd sees cnt 101 → 102, 98 more
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (102, 98));
    }

    #[test]
    fn fast_growth_long_after_a_congestion_event() {
        let mut h = htcp(&HtcpParams::default());
        h.tp.snd_cwnd = 1000;
        h.tp.snd_ssthresh = 500;
        h.set_rtt_ms(100);
        h.advance_ms(4900);
        h.round(); // t = 5.0 s: 1000 ACKs at α = 1 leave cnt = 1000, no step yet
        assert_eq!((h.cwnd(), h.cc.alpha()), (1000, 128));
        h.round(); // t = 5.1 s

        // First ACK: 1000 ≥ 1000 → 1001 and α = α(5.1 s): d = 4100 jiffies,
        // 1 + (41000 + 2050²/1000)/1000 = 1 + 45 = 46 (formula: 1 + 41 + 4.2 = 46.2).
        assert_eq!(h.cc.alpha(), 46 * 128);
        // Then +1 whenever cnt·46 ≥ cwnd, i.e. every 23rd ACK (cnt 22·46 = 1012 ≥ 1001…):
        // 999 ACKs give 42 more.
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1043, 3));
    }

    #[test]
    fn undo_restores_the_epoch() {
        let mut h = htcp(&HtcpParams::default());
        h.advance_ms(3000);
        h.fast_retransmit();
        assert_eq!(h.cc.last_cong, 3000);
        h.undo();
        assert_eq!(h.cc.last_cong, 0);
        // Recovery then Open restarts Δ at the end of recovery.
        h.fast_retransmit();
        h.advance_ms(200);
        h.end_recovery();
        assert_eq!(h.cc.last_cong, 3200);
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::registry::CcParams::with("h-tcp", &[("rtt_scaling", 0.0)]).unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "htcp");
    }
}

crate::cc_property_suite!(htcp_properties, Htcp);
