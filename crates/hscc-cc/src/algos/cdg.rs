//! CAIA Delay-Gradient, CDG (Hayes & Armitage, "Revisiting TCP congestion
//! control using delay gradients", IFIP Networking 2011; Linux 6.12
//! `tcp_cdg.c`, read in full and followed line for line).
//!
//! Per RTT round (a round ends when data sent after its start is
//! acknowledged), CDG keeps the smallest and largest RTT sample; their
//! differences from the previous round are summed over the last `window`
//! rounds (Linux's moving sums, the division by `window` dropped) into the
//! gradients gmin, gmax. A positive gradient g (gmin if positive, else gmax;
//! scaled up by `window`/filled while the window fills) backs off with
//! probability 1 − e^(−g·`backoff_factor`/10⁶) (`nexp_u32`, a draw from the
//! connection's generator): CWR through Linux's `tcp_enter_cwr` with ssthresh
//! = cwnd·`backoff_beta`/1024, the shadow window remembering the cwnd before.
//! After `use_ineff` backoffs in a row that did not lower either gradient by
//! 32 µs, CDG stops backing off until one does. On loss, ssthresh =
//! max(2, shadow/2 (`use_shadow`), cwnd/2); with `use_tolerance`, a loss while
//! gmin and gmax say the queue is not full (rounded to 64 µs) keeps cwnd.
//! Growth is Reno's; slow start ends by HyStart (`hystart_detect`: 1 = ACK
//! train, 2 = delay over delay_min·9/8, 3 = both) with Hayes' delayed-ACK
//! filter on the samples. An idle restart (`CwndRestart`) forgets everything;
//! the end of a reduction (`CompleteCwr`) starts a new round.
//!
//! Linux's parameters, names and defaults: `window` = 8 (a power of two,
//! at most 256, as `tcp_cdg_register` requires), `backoff_beta` = 0.7071·1024
//! = 724, `backoff_factor` = 42, `hystart_detect` = 3, `use_ineff` = 5,
//! `use_shadow` = true, `use_tolerance` = false. Types are Linux's: RTTs and
//! gradients s32 (wrapping), `backoff_cnt` and `sample_cnt` u16, `tail` u8.
//!
//! # Deviations from Linux
//! - `tcp_enter_cwr` is asked of the sender through [`TcpCc::enter_cwr`]
//!   (the sender enters CWR when `cong_avoid` returns, as the module returns
//!   right after the call).
//! - Linux's `get_random_u32` is the connection's seeded generator
//!   ([`crate::algos::bbr::prandom_u32`]), so a run is reproducible.
//! - The gradient window is always allocated (Linux's `kcalloc` may fail and
//!   then extrapolates `grad *= window`; that branch is kept but not reached).
//! - ssthresh is at least 2 where Linux sets it to cwnd = 1: HyStart leaving
//!   slow start at cwnd 1 (after a timeout) and a tolerated loss at cwnd 1
//!   (the sender's contract keeps ssthresh ≥ 2). cwnd is the same.

use crate::algos::bbr::prandom_u32;
use crate::helpers::{tcp_enter_cwr, tcp_reno_cong_avoid};
use crate::ops::{after, before, AckSample, CaEvent, CongestionOps, TcpCc};
use crate::params::{ParamError, ParamOrder, ParamSpec, Params};

crate::params! {
    /// TCP CDG's module parameters as the macro checks them (ranges only);
    /// [`CdgParams`] adds `window`'s power of two.
    pub struct CdgRangeParams {
        /// Gradient window, RTT rounds: a power of two from 1 to 256.
        window: u32 = 8, [1, 256], "Linux tcp_cdg.c window = 8; a power of two <= 256 (tcp_cdg_register)";
        /// Backoff multiplier, 1/1024 (ssthresh = cwnd·backoff_beta/1024 on a backoff).
        backoff_beta: u32 = 724, [0, 1024], "Linux tcp_cdg.c backoff_beta = 0.7071 * 1024 (sqrt 0.5, an unsigned int: 724); at most 1024 (tcp_cdg_register)";
        /// Backoff probability scale: P = 1 − exp(−gradient·backoff_factor/10⁶), gradient in µs.
        backoff_factor: u32 = 42, [0, u32::MAX], "Linux tcp_cdg.c backoff_factor = 42 (= 1000/(G·window), the paper's G)";
        /// HyStart: 0 off, 1 ACK train, 2 delay threshold, 3 both.
        hystart_detect: u32 = 3, [0, 3], "Linux tcp_cdg.c hystart_detect = 3";
        /// Consecutive ineffectual backoffs after which CDG stops backing off (0: never stops).
        use_ineff: u32 = 5, [0, u32::MAX], "Linux tcp_cdg.c use_ineff = 5";
        /// Shadow window: ssthresh on loss at least half the window before the last backoffs.
        use_shadow: bool = true, [0, 1], "Linux tcp_cdg.c use_shadow = true";
        /// Loss tolerance: a loss while the gradients say the queue is not full keeps cwnd.
        use_tolerance: bool = false, [0, 1], "Linux tcp_cdg.c use_tolerance = false";
    }
}

/// TCP CDG parameters: Linux's module parameters ([`CdgRangeParams`]) with
/// `window` a power of two.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct CdgParams(pub CdgRangeParams);

impl Params for CdgParams {
    fn specs() -> Vec<ParamSpec> {
        CdgRangeParams::specs()
    }
    fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name)
    }
    fn set(&mut self, name: &str, value: f64) -> Result<(), ParamError> {
        let mut p = self.0.clone();
        p.set(name, value)?;
        if name == "window" && !p.window.is_power_of_two() {
            return Err(ParamError::Invalid {
                name: name.to_string(),
                value,
                allowed: "a power of two from 1 to 256 (1, 2, 4, ..., 256), as Linux's tcp_cdg"
                    .to_string(),
            });
        }
        self.0 = p;
        Ok(())
    }
    fn orders() -> Vec<ParamOrder> {
        CdgRangeParams::orders()
    }
}

/// Linux `enum cdg_state`.
pub const CDG_UNKNOWN: u8 = 0;
/// Linux `CDG_NONFULL`: the queue is not full (loss tolerance).
pub const CDG_NONFULL: u8 = 1;
/// Linux `CDG_FULL`: the queue is full.
pub const CDG_FULL: u8 = 2;
/// Linux `CDG_BACKOFF`: CDG backed off (the next ssthresh is the backoff's).
pub const CDG_BACKOFF: u8 = 3;

/// Linux `HYSTART_ACK_TRAIN`.
const HYSTART_ACK_TRAIN: u32 = 1;
/// Linux `HYSTART_DELAY`.
const HYSTART_DELAY: u32 = 2;

/// Linux `struct cdg_minmax`: a pair of s32 (its `v64` is both at once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CdgMinmax {
    /// Smallest (RTT, µs, or gradient).
    pub min: i32,
    /// Largest.
    pub max: i32,
}

impl CdgMinmax {
    /// Linux `v64 == 0`.
    #[inline]
    fn is_zero(&self) -> bool {
        self.min == 0 && self.max == 0
    }
}

/// Linux `min_not_zero` on s32.
#[inline]
fn min_not_zero(x: i32, y: i32) -> i32 {
    if x == 0 {
        y
    } else if y == 0 {
        x
    } else {
        x.min(y)
    }
}

/// Linux `DIV_ROUND_CLOSEST(x, 64)` on s32 (C division truncates, as Rust's).
#[inline]
fn div_round_closest_64(x: i32) -> i32 {
    if x > 0 {
        x.wrapping_add(32) / 64
    } else {
        x.wrapping_sub(32) / 64
    }
}

/// Linux `nexp_u32`: e^(−ux/10⁶) · U32_MAX, from a table of e^(−x) for
/// x = 0.000256·2^k (times 65536, minus 1) and a linear first eight bits;
/// 0 from ux ≥ 2^24.
pub fn nexp_u32(ux: u32) -> u32 {
    const V: [u16; 17] = [
        65535, 65518, 65501, 65468, 65401, 65267, 65001, 64470, 63422, 61378, 57484, 50423, 38795,
        22965, 8047, 987, 14,
    ];
    let mut msb = ux >> 8;
    // Cut off when ux >= 2^24 (the result is at most 222/U32_MAX).
    if msb > u16::MAX as u32 {
        return 0;
    }
    // The first eight bits, linearly.
    let mut res = u32::MAX - (ux & 0xff) * (u32::MAX / 1_000_000);
    // e^(x + y + ...) = e^x · e^y · ...: at most 16 factors (msb < 2^16).
    let mut i = 1usize;
    while msb != 0 {
        let y = V[i & (msb & 1).wrapping_neg() as usize] as u32 + 1;
        res = ((res as u64 * y as u64) >> 16) as u32;
        i += 1;
        msb >>= 1;
    }
    res
}

/// TCP CDG state (Linux `struct cdg`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cdg {
    window: u32,
    backoff_beta: u32,
    backoff_factor: u32,
    hystart_detect: u32,
    use_ineff: u32,
    use_shadow: bool,
    use_tolerance: bool,
    /// Smallest and largest RTT sample of the current round, µs (0: none).
    pub rtt: CdgMinmax,
    /// The previous round's.
    pub rtt_prev: CdgMinmax,
    /// The last `window` rounds' differences (Linux's `kcalloc`ed array; None for window 1).
    pub gradients: Option<Vec<CdgMinmax>>,
    /// Their sums.
    pub gsum: CdgMinmax,
    /// Whether the window has filled once.
    pub gfilled: bool,
    /// Next slot of `gradients`.
    pub tail: u8,
    /// [`CDG_UNKNOWN`], [`CDG_NONFULL`], [`CDG_FULL`] or [`CDG_BACKOFF`].
    pub state: u8,
    /// Delayed-ACK filter credit (Hayes' heuristic), 0..5.
    pub delack: u8,
    /// The round ends when an ACK passes this sequence number.
    pub rtt_seq: u32,
    /// Shadow window, segments.
    pub shadow_wnd: u32,
    /// Backoffs since one was effectual.
    pub backoff_cnt: u16,
    /// HyStart delay samples this round.
    pub sample_cnt: u16,
    /// Smallest round minimum seen in slow start, µs.
    pub delay_min: i32,
    /// HyStart: last ACK of the train, µs (low 32 bits of the clock).
    pub last_ack: u32,
    /// HyStart: start of the train, µs.
    pub round_start: u32,
}

impl Cdg {
    /// Linux `tcp_cdg_hystart_update`.
    fn hystart_update(&mut self, tp: &mut TcpCc) {
        self.delay_min = min_not_zero(self.delay_min, self.rtt.min);
        if self.delay_min == 0 {
            return;
        }
        if self.hystart_detect & HYSTART_ACK_TRAIN != 0 {
            let now_us = tp.now_us as u32;
            if self.last_ack == 0 || !tp.is_cwnd_limited() {
                self.last_ack = now_us;
                self.round_start = now_us;
            } else if before(now_us, self.last_ack.wrapping_add(3000)) {
                let base_owd = (self.delay_min as u32 / 2).max(125);
                self.last_ack = now_us;
                if after(now_us, self.round_start.wrapping_add(base_owd)) {
                    tp.snd_ssthresh = tp.snd_cwnd.max(2);
                    return;
                }
            }
        }
        if self.hystart_detect & HYSTART_DELAY != 0 {
            if self.sample_cnt < 8 {
                self.sample_cnt += 1;
            } else {
                let dm = self.delay_min as u32;
                let thresh = dm.wrapping_add(dm / 8).max(125) as i32;
                if self.rtt.min > thresh {
                    tp.snd_ssthresh = tp.snd_cwnd.max(2);
                }
            }
        }
    }

    /// Linux `tcp_cdg_grad`: the gradient of this round (0 or less: none).
    fn grad(&mut self) -> i32 {
        let mut gmin = self.rtt.min.wrapping_sub(self.rtt_prev.min);
        let mut gmax = self.rtt.max.wrapping_sub(self.rtt_prev.max);
        if let Some(g) = &mut self.gradients {
            let t = self.tail as usize;
            self.gsum.min = self.gsum.min.wrapping_add(gmin.wrapping_sub(g[t].min));
            self.gsum.max = self.gsum.max.wrapping_add(gmax.wrapping_sub(g[t].max));
            g[t] = CdgMinmax {
                min: gmin,
                max: gmax,
            };
            self.tail = ((self.tail as u32 + 1) & (self.window - 1)) as u8;
            gmin = self.gsum.min;
            gmax = self.gsum.max;
        }
        // Sums, not averages: the division by window is dropped.
        let mut grad = if gmin > 0 { gmin } else { gmax };
        // Extrapolate while the window fills.
        if !self.gfilled {
            if self.gradients.is_none() && self.window > 1 {
                grad = grad.wrapping_mul(self.window as i32);
            } else if self.tail == 0 {
                self.gfilled = true;
            } else {
                grad = grad.wrapping_mul(self.window as i32) / self.tail as i32;
            }
        }
        // The backoff was effectual.
        if gmin <= -32 || gmax <= -32 {
            self.backoff_cnt = 0;
        }
        if self.use_tolerance {
            // Small variations count as none.
            gmin = div_round_closest_64(gmin);
            gmax = div_round_closest_64(gmax);
            if gmin > 0 && gmax <= 0 {
                self.state = CDG_FULL;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.state = CDG_NONFULL;
            }
        }
        grad
    }

    /// Linux `tcp_cdg_backoff`: whether CDG backs off (and enters CWR).
    fn backoff(&mut self, tp: &mut TcpCc, grad: u32) -> bool {
        if prandom_u32(tp) <= nexp_u32(grad.wrapping_mul(self.backoff_factor)) {
            return false;
        }
        if self.use_ineff != 0 {
            self.backoff_cnt = self.backoff_cnt.wrapping_add(1);
            if self.backoff_cnt as u32 > self.use_ineff {
                return false;
            }
        }
        self.shadow_wnd = self.shadow_wnd.max(tp.snd_cwnd);
        self.state = CDG_BACKOFF;
        tcp_enter_cwr(tp);
        true
    }

    /// Linux `memset(ca, 0, ...)` but for the gradient array, zeroed in place.
    fn clear(&mut self) {
        if let Some(g) = &mut self.gradients {
            g.fill(CdgMinmax::default());
        }
        self.rtt = CdgMinmax::default();
        self.rtt_prev = CdgMinmax::default();
        self.gsum = CdgMinmax::default();
        self.gfilled = false;
        self.tail = 0;
        self.state = CDG_UNKNOWN;
        self.delack = 0;
        self.rtt_seq = 0;
        self.shadow_wnd = 0;
        self.backoff_cnt = 0;
        self.sample_cnt = 0;
        self.delay_min = 0;
        self.last_ack = 0;
        self.round_start = 0;
    }
}

impl CongestionOps for Cdg {
    const NAME: &'static str = "cdg";
    type Params = CdgParams;

    fn new(p: &CdgParams) -> Self {
        let p = &p.0;
        Cdg {
            window: p.window,
            backoff_beta: p.backoff_beta,
            backoff_factor: p.backoff_factor,
            hystart_detect: p.hystart_detect,
            use_ineff: p.use_ineff,
            use_shadow: p.use_shadow,
            use_tolerance: p.use_tolerance,
            rtt: CdgMinmax::default(),
            rtt_prev: CdgMinmax::default(),
            gradients: None,
            gsum: CdgMinmax::default(),
            gfilled: false,
            tail: 0,
            state: CDG_UNKNOWN,
            delack: 0,
            rtt_seq: 0,
            shadow_wnd: 0,
            backoff_cnt: 0,
            sample_cnt: 0,
            delay_min: 0,
            last_ack: 0,
            round_start: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("window", self.window.into()),
            ("backoff_beta", self.backoff_beta.into()),
            ("backoff_factor", self.backoff_factor.into()),
            ("hystart_detect", self.hystart_detect.into()),
            ("use_ineff", self.use_ineff.into()),
            ("use_shadow", self.use_shadow.into()),
            ("use_tolerance", self.use_tolerance.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.gradients =
            (self.window > 1).then(|| vec![CdgMinmax::default(); self.window as usize]);
        self.rtt_seq = tp.snd_nxt;
        self.shadow_wnd = tp.snd_cwnd;
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        if tp.in_slow_start() && self.hystart_detect != 0 {
            self.hystart_update(tp);
        }
        if after(ack, self.rtt_seq) && !self.rtt.is_zero() {
            let mut grad = 0;
            if !self.rtt_prev.is_zero() {
                grad = self.grad();
            }
            self.rtt_seq = tp.snd_nxt;
            self.rtt_prev = self.rtt;
            self.rtt = CdgMinmax::default();
            self.last_ack = 0;
            self.sample_cnt = 0;
            if grad > 0 && self.backoff(tp, grad as u32) {
                return;
            }
        }
        if !tp.is_cwnd_limited() {
            self.shadow_wnd = self.shadow_wnd.min(tp.snd_cwnd);
            return;
        }
        let prior_snd_cwnd = tp.snd_cwnd;
        tcp_reno_cong_avoid(tp, ack, acked);
        let incr = tp.snd_cwnd.wrapping_sub(prior_snd_cwnd);
        self.shadow_wnd = self.shadow_wnd.max(self.shadow_wnd.wrapping_add(incr));
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        if sample.rtt_us <= 0 {
            return;
        }
        // Hayes' filter of delayed ACKs (CAIA TR 100219A).
        if tp.sacked_out == 0 {
            if sample.pkts_acked == 1 && self.delack != 0 {
                // A delayed ACK counts only if provably below a nonzero minimum.
                self.rtt.min = self.rtt.min.min(sample.rtt_us);
                self.delack -= 1;
                return;
            } else if sample.pkts_acked > 1 && self.delack < 5 {
                self.delack += 1;
            }
        }
        self.rtt.min = min_not_zero(self.rtt.min, sample.rtt_us);
        self.rtt.max = self.rtt.max.max(sample.rtt_us);
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let cwnd = tp.snd_cwnd;
        if self.state == CDG_BACKOFF {
            return (cwnd.wrapping_mul(self.backoff_beta.min(1024)) >> 10).max(2);
        }
        if self.state == CDG_NONFULL && self.use_tolerance {
            return cwnd.max(2);
        }
        self.shadow_wnd = (self.shadow_wnd >> 1).min(cwnd);
        if self.use_shadow {
            return self.shadow_wnd.max(cwnd >> 1).max(2);
        }
        (cwnd >> 1).max(2)
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        match ev {
            CaEvent::CwndRestart => {
                self.clear();
                self.rtt_seq = tp.snd_nxt;
                self.shadow_wnd = tp.snd_cwnd;
            }
            CaEvent::CompleteCwr => {
                self.state = CDG_UNKNOWN;
                self.rtt_seq = tp.snd_nxt;
                self.rtt_prev = self.rtt;
                self.rtt = CdgMinmax::default();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::CaState;
    use crate::registry::CcParams;
    use crate::testing::Harness;

    fn params(pairs: &[(&str, f64)]) -> CdgParams {
        let mut p = CdgParams::default();
        for (k, v) in pairs {
            p.set(k, *v).unwrap();
        }
        p
    }

    fn cdg(pairs: &[(&str, f64)]) -> (Cdg, TcpCc) {
        let mut cc = Cdg::new(&params(pairs));
        let mut tp = TcpCc::new(1448, 10);
        cc.init(&mut tp);
        (cc, tp)
    }

    #[test]
    fn nexp_is_linuxs_table_product() {
        assert_eq!(nexp_u32(0), u32::MAX);
        // 255 µs: linear, U32_MAX − 255·4294 = 4 293 872 325.
        assert_eq!(nexp_u32(255), 4_293_872_325);
        // 256 µs: one factor, ⌊(2³² − 1)·65 519 / 2¹⁶⌋ = 4 293 853 183.
        assert_eq!(nexp_u32(256), 4_293_853_183);
        assert_eq!(nexp_u32(1 << 24), 0);
        // Within 0.1 % of e^(−x) · U32_MAX where that is not tiny.
        for ux in [1_000u32, 10_000, 100_000, 1_000_000, 3_000_000] {
            let exact = (-(ux as f64) / 1e6).exp() * u32::MAX as f64;
            let got = nexp_u32(ux) as f64;
            assert!(
                (got - exact).abs() <= exact * 1e-3,
                "{ux}: {got} vs {exact}"
            );
        }
    }

    #[test]
    fn window_must_be_a_power_of_two() {
        let e = CcParams::with("cdg", &[("window", 6.0)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'window' = 6") && e.contains("power of two"),
            "{e}"
        );
        assert!(CcParams::with("cdg", &[("window", 512.0)]).is_err());
        assert!(CcParams::with("cdg", &[("window", 256.0)]).is_ok());
        assert!(CcParams::with("cdg", &[("window", 1.0)]).is_ok());
    }

    #[test]
    fn gradients_sum_over_the_window_and_extrapolate_until_it_fills() {
        let (mut cc, _) = cdg(&[("window", 2.0)]);
        // Round maxima 100 000, 100 400, 100 800, 101 200; minima flat.
        let mut prev = CdgMinmax {
            min: 100_000,
            max: 100_000,
        };
        let mut grads = Vec::new();
        for k in 1..=3 {
            let rtt = CdgMinmax {
                min: 100_000,
                max: 100_000 + 400 * k,
            };
            (cc.rtt_prev, cc.rtt) = (prev, rtt);
            grads.push((cc.grad(), cc.tail, cc.gfilled));
            prev = rtt;
        }
        // gmin = 0, so g = gmax's sum: 400 ·2/1 (tail 1, not filled), then
        // 800 (tail wraps to 0: filled), then 800 − 400 + 400 = 800.
        assert_eq!(grads, [(800, 1, false), (800, 0, true), (800, 1, true)]);
    }

    #[test]
    fn the_delayed_ack_filter_only_lowers_a_nonzero_minimum() {
        let (mut cc, mut tp) = cdg(&[]);
        let ack = |pkts, rtt| AckSample {
            pkts_acked: pkts,
            rtt_us: rtt,
            in_flight: 10,
        };
        cc.pkts_acked(&mut tp, &ack(2, 50_000));
        assert_eq!((cc.rtt.min, cc.rtt.max, cc.delack), (50_000, 50_000, 1));
        // One segment with delack credit: only a lower minimum counts.
        cc.pkts_acked(&mut tp, &ack(1, 80_000));
        assert_eq!((cc.rtt.min, cc.rtt.max, cc.delack), (50_000, 50_000, 0));
        cc.pkts_acked(&mut tp, &ack(1, 80_000));
        assert_eq!((cc.rtt.min, cc.rtt.max), (50_000, 80_000));
        // A new round (minimum 0) with credit: min(0, x) stays 0.
        cc.rtt = CdgMinmax::default();
        cc.delack = 1;
        cc.pkts_acked(&mut tp, &ack(1, 40_000));
        assert_eq!((cc.rtt.min, cc.rtt.max), (0, 0));
    }

    #[test]
    fn ineffectual_backoffs_stop_after_use_ineff() {
        // grad·factor ≥ 2²⁴: e^−x is 0, so every draw backs off.
        let (mut cc, mut tp) = cdg(&[("backoff_factor", 1e6)]);
        for n in 1..=5 {
            assert!(cc.backoff(&mut tp, 100), "backoff {n}");
            assert!(tp.enter_cwr);
            tp.enter_cwr = false;
        }
        assert!(!cc.backoff(&mut tp, 100));
        assert!(!tp.enter_cwr);
        assert_eq!(cc.backoff_cnt, 6);
    }

    #[test]
    fn hystart_delay_ends_slow_start_past_nine_eighths_of_delay_min() {
        let (mut cc, mut tp) = cdg(&[("hystart_detect", 2.0)]);
        cc.delay_min = 1000;
        cc.sample_cnt = 8;
        // thresh = max(1000 + 125, 125) = 1125.
        cc.rtt.min = 1125;
        cc.hystart_update(&mut tp);
        assert_eq!(tp.snd_ssthresh, crate::ops::TCP_INFINITE_SSTHRESH);
        cc.rtt.min = 1126;
        cc.hystart_update(&mut tp);
        assert_eq!(tp.snd_ssthresh, 10);
    }

    #[test]
    fn a_delay_gradient_backs_off_through_cwr_and_the_shadow_window_stays() {
        // window 1 (no sums), HyStart off, and a factor that makes e^−x = 0.
        let p = params(&[
            ("window", 1.0),
            ("hystart_detect", 0.0),
            ("backoff_factor", 1e6),
        ]);
        let mut h = Harness::<Cdg>::with_params(&p, 20);
        h.tp.snd_ssthresh = 20;
        h.set_rtt_ms(100);
        // Round 1 (20 ACKs at 100 ms): the first ACK ends the initial round
        // (no previous one: no gradient); Reno +1 at the 20th; shadow 21.
        h.clocked_round();
        assert_eq!((h.cwnd(), h.cc.shadow_wnd), (21, 21));
        let flat = CdgMinmax {
            min: 100_000,
            max: 100_000,
        };
        assert_eq!(h.cc.rtt_prev, flat);
        // Round 2 at 110 ms: its first ACK closes the round of ACKs 2..21,
        // min 100 000 and max 110 000: gmin 0, gmax 10 000 > 0: backoff,
        // ssthresh = 21·724 >> 10 = 14, CWR for the rest of the round.
        h.set_rtt_ms(110);
        h.clocked_round();
        assert_eq!((h.tp.ca_state, h.cc.state), (CaState::Cwr, CDG_BACKOFF));
        assert_eq!((h.cwnd(), h.ssthresh(), h.tp.prior_cwnd), (21, 14, 21));
        // The next ACK passes high_seq: cwnd = ssthresh, the round restarts.
        h.ack_each(1, 1);
        assert_eq!(
            (h.tp.ca_state, h.cc.state, h.cwnd()),
            (CaState::Open, CDG_UNKNOWN, 14)
        );
        // A loss now: the shadow window (21, halved: 10) beats cwnd/2 = 7.
        h.fast_retransmit();
        assert_eq!((h.ssthresh(), h.cc.shadow_wnd), (10, 10));
    }

    #[test]
    fn without_shadow_a_loss_halves_and_tolerance_keeps_a_nonfull_window() {
        let (mut cc, mut tp) = cdg(&[("use_shadow", 0.0)]);
        tp.snd_cwnd = 40;
        cc.shadow_wnd = 100;
        assert_eq!(cc.ssthresh(&mut tp), 20);
        let (mut cc, mut tp) = cdg(&[("use_tolerance", 1.0)]);
        tp.snd_cwnd = 40;
        cc.state = CDG_NONFULL;
        assert_eq!(cc.ssthresh(&mut tp), 40);
    }
}

crate::cc_property_suite!(cdg_properties, Cdg);
