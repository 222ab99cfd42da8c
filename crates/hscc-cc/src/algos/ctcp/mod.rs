//! Compound TCP (CTCP): Tan, Song, Zhang, Sridharan, "A Compound TCP Approach
//! for High-speed and Long Distance Networks", IEEE INFOCOM 2006 (§III, §V),
//! with the γ auto-tuning of the authors' slides ("Compound TCP: A Scalable and
//! TCP-friendly Congestion Control for High-speed Networks", PFLDnet 2006).
//!
//! The sending window is the sum of two components (§III.A), win = cwnd + dwnd
//! (the receiver window is the sender's business):
//! - `cwnd`, the loss-based Reno component: Reno slow start, then
//!   cwnd += 1/(cwnd + dwnd) per acknowledged segment (eq. 2), halved on loss;
//! - `dwnd`, the delay-based component, updated once per round (§V) from
//!   diff = (win/baseRTT − win/RTT)·baseRTT = win·(RTT − baseRTT)/RTT
//!   (§III.B, baseRTT = minimum RTT sample, RTT = average sample of the round):
//!   - diff < γ: dwnd += (α·win^k − 1)⁺ (eq. 5, first line),
//!   - diff ≥ γ: dwnd ← (dwnd − ζ·diff)⁺ (eq. 5, second line),
//!   - loss (3 dupACKs): dwnd ← (win·(1 − β) − cwnd/2)⁺ and cwnd ← cwnd/2
//!     (eq. 5, third line), so win ← win·(1 − β) (eq. 4).
//!
//! The sender sees one window, `snd_cwnd`. As in the Linux ports (Lachlan
//! Andrew's `tcp_compound.c` 1.3, "LA13"), `dwnd` is kept here and the Reno
//! part is derived: Reno growth runs on the total `snd_cwnd` (eq. 2 grows by
//! one segment per win acknowledged) and then `cwnd = snd_cwnd − dwnd`; any
//! external reduction of `snd_cwnd` (idle restart, timeout) is shared between
//! the two components in proportion, as LA13 does.
//!
//! Constants (all parameters): α = 1/8, β = 1/2, k = 0.75 (§IV.A; slides
//! "Parameters setting"); ζ = 1 (slides "z = 1"); γ = 30 packets (§III.B,
//! §VI.B.4); lowwnd = 41, the smallest window with α·win^0.75 − 1 ≥ 1 (§V);
//! N = 5 samples (§V); one RTT sample per δ = 1 ms, i.e. M ≈ RTT/δ samples per
//! window (§V). γ auto-tuning (slides "Auto-tuning Gamma"):
//! γ = max(γ_min, W_low·κ/(1 + κ)) with κ ≈ (RTTmax − RTTmin)/RTTmin, so
//! κ/(1 + κ) = (RTTmax − RTTmin)/RTTmax.
//!
//! Variants: CTCP-NWR (§VI.B.6, `nwr`): no window reduction on delay — when
//! diff ≥ γ, dwnd is held. γ auto-tuning (`gamma_auto`).
//!
//! Lachlan Andrew's Linux CTCP, the variant TCP-FIT compared against, is
//! `ctcp-la` ([`la`]): this algorithm with LA13's choices as parameters.
//!
//! # Choices where the sources are ambiguous
//! - Round RTT: the average of the round's samples (§V); `rtt_min_filter`
//!   selects the minimum, as LA13 and Linux Vegas do.
//! - Sample count: §V updates dwnd "if more than N (currently set to 5) RTT
//!   samples are taken" — implemented literally, `count > min_samples`, so 5
//!   samples are not enough and 6 are (LA13: `> 2`).
//! - Sampling: up to M ≈ RTT/δ samples per window "uniformly distributed
//!   among the whole window" (§V, δ = `sample_interval_us` = 1 ms), i.e. one
//!   sample per win·δ/srtt segments acknowledged — by packet count, not by
//!   time, so a window whose ACKs arrive bunched (unpaced, below the BDP)
//!   still gets min(win, M) samples; 0 takes every ACK's sample (Linux ports).
//!   baseRTT is the minimum of the samples taken, kept for the whole
//!   connection (§V; LA13 keeps it too).
//! - `win` in diff and in α·win^k: the nominal window cwnd + dwnd at the end of
//!   the round (paper); LA13 uses the data actually sent in the round.
//! - lowwnd gate: tested on win (the 41 comes from α·win^0.75 − 1 ≥ 1 and
//!   LA13 tests the total window), although §V writes "cwnd". Below lowwnd
//!   and in slow start dwnd is set to 0 at the round boundary (LA13).
//! - Freeze: sampling and the dwnd update are frozen in Recovery and Loss
//!   (§V "loss recovery phase"); the round spanning the recovery is discarded
//!   (LA13 restarts the round on return to Open). No dwnd update while the
//!   sender is not cwnd-limited (nothing to grow; LA13 alike).
//! - Loss split: with β ≠ 1/2, eq. 5 is applied literally (cwnd halves, dwnd
//!   fills up to win·(1 − β)); LA13 scales both in proportion (same at β = 1/2).
//!   ssthresh = the new total, so the sender ends recovery at win·(1 − β).
//! - Timeout: dwnd ← 0; the delay component stays off while in slow start,
//!   i.e. until snd_cwnd reaches ssthresh = win·(1 − β) (§III.B last paragraph).
//! - γ auto-tuning: W_low = lowwnd, RTTmin = baseRTT, RTTmax = the largest
//!   round RTT since the previous loss; γ is recomputed at each loss; γ_min = 5
//!   is an assumption (LA13 GAMMA_LOW) — the slides give none.
//! - Rounding: w^k by fixed-point log2/exp2 (relative error < 1e-6, rounded to
//!   1/256 segment); the increase and ζ·diff are floored to whole segments.
//!
//! - LA13's choices are parameters of `ctcp` too (`win_sent`, `gamma_tube`,
//!   `pace_dwnd`), off by default: the paper's win is cwnd + dwnd (§III.B), γ is
//!   fixed at 30 (§III.B, §VI.B.4) and eq. 5 applies at the round end (§V).
//!
//! LA13: CtcpLa

use crate::helpers::{tcp_cong_avoid_ai, tcp_slow_start};
use crate::ops::{after, AckSample, CaEvent, CaState, CongestionOps, TcpCc};

pub mod la;
pub use la::{CtcpLa, CtcpLaParams};

crate::params! {
    /// Compound TCP parameters.
    pub struct CtcpParams {
        /// α: scale of the binomial increase α·win^k per round.
        alpha: f64 = 0.125, [0.0, 8.0], "INFOCOM 2006 §IV.A; slides 'Parameters setting'";
        /// β: multiplicative decrease of the total window on loss.
        beta: f64 = 0.5, [0.0, 1.0], "INFOCOM 2006 §IV.A; slides";
        /// k: exponent of the binomial increase (0.8 would match HSTCP).
        k: f64 = 0.75, [0.0, 1.0], "INFOCOM 2006 §IV.A";
        /// ζ: how fast dwnd shrinks per packet of estimated backlog.
        zeta: f64 = 1.0, [0.0, 16.0], "slides 'z = 1'; LA13 ETA = 1";
        /// γ: backlog threshold (packets) for early congestion detection.
        gamma: f64 = 30.0, [0.0, 1000000.0], "INFOCOM 2006 §III.B, §VI.B.4";
        /// lowwnd: delay component active only when win ≥ lowwnd (segments).
        lowwnd: u32 = 41, [0, 1000000000], "INFOCOM 2006 §V (α·w^0.75 − 1 ≥ 1 ⇒ 41)";
        /// N: dwnd is updated only if more than N samples were taken in the round.
        min_samples: u32 = 5, [0, 1000000], "INFOCOM 2006 §V";
        /// Use the minimum instead of the average RTT of the round.
        rtt_min_filter: bool = false, [0, 1], "INFOCOM 2006 §V (average); LA13 minimum";
        /// δ: up to RTT/δ RTT samples per window, µs (0 = every ACK).
        sample_interval_us: u32 = 1000, [0, 1000000], "INFOCOM 2006 §V (δ = 1 ms)";
        /// CTCP-NWR: hold dwnd instead of reducing it when diff ≥ γ.
        nwr: bool = false, [0, 1], "INFOCOM 2006 §VI.B.6";
        /// Recompute γ at each loss by the slides' auto-tuning rule.
        gamma_auto: bool = false, [0, 1], "slides 'Auto-tuning Gamma algorithm'";
        /// γ_min of the auto-tuning rule (packets).
        gamma_min: f64 = 5.0, [0.0, 1000000.0], "assumption = LA13 GAMMA_LOW (slides give none)";
        /// W_low of the auto-tuning rule (segments).
        gamma_wlow: u32 = 41, [0, 1000000], "slides (W_low, taken = lowwnd)";
        /// LA13's γ tuning: at each loss γ ← γ + λ·(¾·diff_reno − γ), clipped to [γ_min, γ_max].
        gamma_tube: bool = false, [0, 1], "LA13 tcp_compound_ssthresh (off: not in the paper or slides)";
        /// γ_max, the upper clip of `gamma_tube` (packets).
        gamma_max: f64 = 30.0, [0.0, 1000000.0], "LA13 GAMMA_HIGH = 30";
        /// log2(1/λ), the forgetting factor of `gamma_tube` (λ = 1/4).
        gamma_lambda_shift: u32 = 2, [0, 16], "LA13 LAMBDA_SHIFT = 2 (release 1.1: 'LAMBDA = 1/4 (was 1/2)')";
        /// LA13's pacing: spread a round's dwnd increase over the next round's ACKs.
        pace_dwnd: bool = false, [0, 1], "LA13 PACE_DWND (off: the paper applies eq. 5 at the round end, §V)";
        /// win in diff and in α·win^k = segments sent in the round just measured (LA13's old_wnd).
        win_sent: bool = false, [0, 1], "LA13 old_wnd (off: the paper's win = cwnd + dwnd, §III.B)";
    }
    order { gamma_min <= gamma_max; }
}

/// Compound TCP state. Windows in segments, times in µs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctcp {
    /// α, Q16.
    alpha_q16: u32,
    /// β, Q10.
    beta_q10: u32,
    /// k, Q24.
    k_q24: u32,
    /// ζ, Q8.
    zeta_q8: u32,
    /// lowwnd, segments.
    lowwnd: u32,
    /// N, samples.
    min_samples: u32,
    /// Round RTT = minimum (true) or average (false) sample.
    rtt_min_filter: bool,
    /// δ: up to RTT/δ samples per window, µs.
    sample_interval_us: u32,
    /// CTCP-NWR.
    nwr: bool,
    /// γ auto-tuning on.
    gamma_auto: bool,
    /// γ_min, packets Q8.
    gamma_min_q8: u32,
    /// W_low, segments.
    gamma_wlow: u32,
    /// LA13 γ tuning on.
    gamma_tube: bool,
    /// γ_max, packets Q8.
    gamma_max_q8: u32,
    /// log2(1/λ) of the LA13 γ tuning.
    gamma_lambda_shift: u32,
    /// LA13 paced dwnd increase.
    pace_dwnd: bool,
    /// win = segments sent in the measured round (LA13 old_wnd).
    win_sent: bool,
    /// γ at the start, packets Q8.
    gamma_init_q8: u32,

    /// Reno (loss-based) component, segments.
    cwnd: u32,
    /// Delay-based component, segments.
    dwnd: u32,
    /// γ in force, packets Q8.
    gamma_q8: u32,
    /// baseRTT: minimum RTT sample, µs (`u32::MAX` before the first).
    base_rtt_us: u32,
    /// snd_nxt when the current round began (bytes, wrapping).
    beg_snd_nxt: u32,
    /// Left edge of the data acknowledged in the current round (bytes,
    /// wrapping): the previous round's `beg_snd_nxt`, or snd_una at a restart.
    beg_snd_una: u32,
    /// Reno component when the current round began, segments (LA13 beg_cwnd).
    beg_cwnd: u32,
    /// LA13 diff_reno = beg_cwnd·(RTT − baseRTT)/RTT of the last measured
    /// round, packets Q8 (none since the last loss or restart).
    diff_reno_q8: Option<u64>,
    /// Paced dwnd increments still to apply this round, segments.
    dwnd_left: u32,
    /// One paced increment per `incr_interval` + 1 ACKs.
    incr_interval: u32,
    /// ACKs since the last paced increment.
    acks_since_inc: u32,
    /// Samples taken this round.
    cnt_rtt: u32,
    /// Sum of this round's samples, µs.
    sum_rtt_us: u64,
    /// Minimum of this round's samples, µs.
    min_rtt_us: u32,
    /// Segments acknowledged since the last sample.
    acked_since_sample: u32,
    /// Largest round RTT since the last loss, µs (γ auto-tuning).
    max_round_rtt_us: u32,
    /// cwnd before the last loss reduction, segments (undo).
    prior_cwnd: u32,
    /// dwnd before the last loss reduction, segments (undo).
    prior_dwnd: u32,
}

/// 2^(2^−(i+1)) in Q30, for `exp2_q30`.
const EXP2_Q30: [u64; 30] = [
    1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106, 1079572136, 1076653033,
    1075196443, 1074468888, 1074105294, 1073923544, 1073832680, 1073787251, 1073764537, 1073753181,
    1073747502, 1073744663, 1073743244, 1073742534, 1073742179, 1073742001, 1073741913, 1073741868,
    1073741846, 1073741835, 1073741830, 1073741827, 1073741825, 1073741825,
];

/// log2(w) in Q30 for w ≥ 1, by repeated squaring (30 fraction bits).
fn log2_q30(w: u32) -> u64 {
    let n = 31 - w.leading_zeros();
    let mut x = (w as u64) << (31 - n); // Q31 in [1, 2)
    let mut frac = 0u64;
    for i in 0..30 {
        x = (x * x) >> 31;
        if x >= 1 << 32 {
            x >>= 1;
            frac |= 1 << (29 - i);
        }
    }
    ((n as u64) << 30) | frac
}

/// w^k in Q8 (rounded), k in Q24 (≤ 1), via 2^(k·log2 w).
pub(crate) fn pow_q8(w: u32, k_q24: u32) -> u64 {
    if w == 0 {
        return 0;
    }
    let y = (k_q24 as u64 * log2_q30(w)) >> 24; // Q30, < 32
    let mut r: u64 = 1 << 30; // 2^frac(y), Q30
    for (i, c) in EXP2_Q30.iter().enumerate() {
        if y & (1 << (29 - i)) != 0 {
            r = (r * c) >> 30;
        }
    }
    ((r << (y >> 30)) + (1 << 21)) >> 22
}

impl Ctcp {
    /// Reno component, segments.
    pub fn cwnd(&self) -> u32 {
        self.cwnd
    }

    /// Delay component, segments.
    pub fn dwnd(&self) -> u32 {
        self.dwnd
    }

    /// γ in force, packets.
    pub fn gamma(&self) -> f64 {
        self.gamma_q8 as f64 / 256.0
    }

    /// (α·win^k − 1)⁺, floored to whole segments (eq. 5, first line).
    fn dwnd_increase(&self, win: u32) -> u32 {
        let inc_q8 = (self.alpha_q16 as u64 * pow_q8(win, self.k_q24)) >> 16;
        (inc_q8.saturating_sub(256) >> 8).min(u32::MAX as u64) as u32
    }

    /// Adopt changes the sender made to snd_cwnd: a reduction is shared in
    /// proportion (LA13), an increase goes to the Reno part.
    fn sync(&mut self, tp: &TcpCc) {
        let total = self.cwnd as u64 + self.dwnd as u64;
        if (tp.snd_cwnd as u64) < total {
            self.dwnd = (self.dwnd as u64 * tp.snd_cwnd as u64 / total) as u32;
        }
        self.cwnd = tp.snd_cwnd - self.dwnd;
    }

    fn restart_round(&mut self, tp: &TcpCc) {
        self.beg_snd_nxt = tp.snd_nxt;
        self.beg_snd_una = tp.snd_una;
        self.beg_cwnd = self.cwnd;
        self.cnt_rtt = 0;
        self.sum_rtt_us = 0;
        self.min_rtt_us = u32::MAX;
    }

    /// Start over after a loss recovery, a timeout or an idle restart
    /// (LA13 `ctcp_enable`): a fresh round, no γ-tuning sample, no pending
    /// paced increase.
    fn restart(&mut self, tp: &TcpCc) {
        self.restart_round(tp);
        self.diff_reno_q8 = None;
        self.dwnd_left = 0;
        self.acks_since_inc = 0;
    }

    /// Put the split into snd_cwnd, dwnd limited by the clamp.
    fn apply(&mut self, tp: &mut TcpCc) {
        self.dwnd = self.dwnd.min(tp.snd_cwnd_clamp.saturating_sub(self.cwnd));
        tp.snd_cwnd = self.cwnd + self.dwnd;
    }

    /// LA13 pacing: one pending increment per `incr_interval` + 1 ACKs.
    fn pace(&mut self, tp: &mut TcpCc) {
        self.acks_since_inc += 1;
        if self.acks_since_inc > self.incr_interval {
            self.acks_since_inc = 0;
            self.dwnd_left -= 1;
            self.dwnd = self.dwnd.saturating_add(1);
            self.apply(tp);
        }
    }

    /// End of a round: eq. 5, first two lines.
    fn end_round(&mut self, tp: &mut TcpCc) {
        let win = self.cwnd + self.dwnd;
        // LA13: what pacing has not applied yet is added at the round end.
        self.dwnd = self
            .dwnd
            .saturating_add(core::mem::take(&mut self.dwnd_left));
        // The window that the round measured: the nominal one (paper) or the
        // segments whose ACKs made up the round (LA13 old_wnd).
        let w = match (self.win_sent, tp.mss_cache) {
            (true, mss) if mss > 0 => self.beg_snd_nxt.wrapping_sub(self.beg_snd_una) / mss,
            _ => win,
        };
        let rtt = if self.cnt_rtt > self.min_samples {
            let r = if self.rtt_min_filter {
                self.min_rtt_us
            } else {
                (self.sum_rtt_us / self.cnt_rtt as u64) as u32
            };
            self.max_round_rtt_us = self.max_round_rtt_us.max(r);
            Some(r)
        } else {
            None
        };
        if tp.in_slow_start() || win < self.lowwnd {
            self.dwnd = 0;
        } else if let (Some(rtt), true) = (rtt, tp.is_cwnd_limited()) {
            let queued = (rtt - self.base_rtt_us.min(rtt)) as u64;
            let diff_q8 = (w as u64 * queued).saturating_mul(256) / rtt as u64;
            // LA13: the Reno part's own backlog, for γ tuning at the next loss.
            self.diff_reno_q8 =
                Some((self.beg_cwnd as u64 * queued).saturating_mul(256) / rtt as u64);
            if diff_q8 < self.gamma_q8 as u64 {
                let inc = self.dwnd_increase(w);
                if self.pace_dwnd && inc > 0 {
                    // LA13: over the next round, one +1 per win/(2·inc) ACKs
                    // ("factor of 2 for delayed ACKs").
                    self.dwnd_left = inc;
                    self.incr_interval = (win / (2 * inc)).max(1);
                    self.acks_since_inc = 0;
                } else {
                    self.dwnd = self.dwnd.saturating_add(inc);
                }
            } else if !self.nwr {
                let dec = (self.zeta_q8 as u64 * diff_q8) >> 16;
                self.dwnd = (self.dwnd as u64).saturating_sub(dec) as u32;
            }
        }
        self.apply(tp);
    }

    /// Slides: γ = max(γ_min, W_low·(RTTmax − RTTmin)/RTTmax), at each loss.
    fn tune_gamma(&mut self) {
        let (max, min) = (self.max_round_rtt_us as u64, self.base_rtt_us as u64);
        if max > min {
            let g_q8 = ((self.gamma_wlow as u64 * (max - min)) << 8) / max;
            self.gamma_q8 = g_q8.max(self.gamma_min_q8 as u64) as u32;
        }
        self.max_round_rtt_us = 0;
    }

    /// LA13 γ tuning at a loss, if a round was measured since the last one:
    /// g = ⌊¾·diff_reno⌋, γ ← γ + ⌊(g − γ)·λ⌋ in whole packets, clipped to
    /// [γ_min, γ_max].
    fn tune_gamma_tube(&mut self) {
        if let Some(diff_reno_q8) = self.diff_reno_q8.take() {
            let g = (diff_reno_q8.saturating_mul(3) >> 10).min(i64::MAX as u64) as i64;
            let gamma = (self.gamma_q8 >> 8) as i64;
            let next = gamma + ((g - gamma) >> self.gamma_lambda_shift);
            let next_q8 = (next.max(0) as u64) << 8;
            self.gamma_q8 = next_q8
                .max(self.gamma_min_q8 as u64)
                .min(self.gamma_max_q8 as u64) as u32;
        }
    }
}

fn fixed(v: f64, shift: u32) -> u32 {
    (v * (1u64 << shift) as f64).round().min(u32::MAX as f64) as u32
}

impl CongestionOps for Ctcp {
    const NAME: &'static str = "ctcp";
    type Params = CtcpParams;

    fn new(p: &CtcpParams) -> Self {
        Ctcp {
            alpha_q16: fixed(p.alpha, 16),
            beta_q10: fixed(p.beta, 10),
            k_q24: fixed(p.k, 24),
            zeta_q8: fixed(p.zeta, 8),
            lowwnd: p.lowwnd,
            min_samples: p.min_samples,
            rtt_min_filter: p.rtt_min_filter,
            sample_interval_us: p.sample_interval_us,
            nwr: p.nwr,
            gamma_auto: p.gamma_auto,
            gamma_min_q8: fixed(p.gamma_min, 8),
            gamma_wlow: p.gamma_wlow,
            gamma_tube: p.gamma_tube,
            gamma_max_q8: fixed(p.gamma_max, 8),
            gamma_lambda_shift: p.gamma_lambda_shift,
            pace_dwnd: p.pace_dwnd,
            win_sent: p.win_sent,
            gamma_init_q8: fixed(p.gamma, 8),
            cwnd: 0,
            dwnd: 0,
            gamma_q8: fixed(p.gamma, 8),
            base_rtt_us: u32::MAX,
            beg_snd_nxt: 0,
            beg_snd_una: 0,
            beg_cwnd: 0,
            diff_reno_q8: None,
            dwnd_left: 0,
            incr_interval: 0,
            acks_since_inc: 0,
            cnt_rtt: 0,
            sum_rtt_us: 0,
            min_rtt_us: u32::MAX,
            acked_since_sample: 0,
            max_round_rtt_us: 0,
            prior_cwnd: 0,
            prior_dwnd: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("alpha_q16", self.alpha_q16.into()),
            ("beta_q10", self.beta_q10.into()),
            ("k_q24", self.k_q24.into()),
            ("zeta_q8", self.zeta_q8.into()),
            ("lowwnd", self.lowwnd.into()),
            ("min_samples", self.min_samples.into()),
            ("rtt_min_filter", self.rtt_min_filter.into()),
            ("sample_interval_us", self.sample_interval_us.into()),
            ("nwr", self.nwr.into()),
            ("gamma_auto", self.gamma_auto.into()),
            ("gamma_min_q8", self.gamma_min_q8.into()),
            ("gamma_wlow", self.gamma_wlow.into()),
            ("gamma_tube", self.gamma_tube.into()),
            ("gamma_max_q8", self.gamma_max_q8.into()),
            ("gamma_lambda_shift", self.gamma_lambda_shift.into()),
            ("pace_dwnd", self.pace_dwnd.into()),
            ("win_sent", self.win_sent.into()),
            ("gamma_init_q8", self.gamma_init_q8.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.cwnd = tp.snd_cwnd;
        self.dwnd = 0;
        self.restart(tp);
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        // §V: no sampling during loss recovery; M ≈ RTT/δ samples per window,
        // uniformly over its packets: one per win·δ/srtt segments.
        if matches!(tp.ca_state, CaState::Recovery | CaState::Loss) {
            return;
        }
        self.acked_since_sample = self.acked_since_sample.saturating_add(s.pkts_acked);
        let spacing = match tp.srtt_us >> 3 {
            0 => 0,
            srtt => tp.snd_cwnd as u64 * self.sample_interval_us as u64 / srtt as u64,
        };
        if s.rtt_us < 0 || (self.acked_since_sample as u64) < spacing {
            return;
        }
        self.acked_since_sample = 0;
        let rtt = (s.rtt_us as u32).max(1);
        self.base_rtt_us = self.base_rtt_us.min(rtt);
        self.min_rtt_us = self.min_rtt_us.min(rtt);
        self.sum_rtt_us += rtt as u64;
        self.cnt_rtt += 1;
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, mut acked: u32) {
        self.sync(tp);
        if self.dwnd_left > 0 && tp.is_cwnd_limited() {
            self.pace(tp);
        }
        if after(ack, self.beg_snd_nxt) {
            let edge = self.beg_snd_nxt;
            self.end_round(tp);
            self.restart_round(tp);
            self.beg_snd_una = edge;
        }
        if !tp.is_cwnd_limited() {
            return;
        }
        if tp.in_slow_start() {
            acked = tcp_slow_start(tp, acked);
            if acked == 0 {
                self.cwnd = tp.snd_cwnd - self.dwnd;
                return;
            }
        }
        // eq. 2: the Reno part gains 1/(cwnd + dwnd) per segment acknowledged.
        let win = tp.snd_cwnd;
        tcp_cong_avoid_ai(tp, win, acked);
        self.cwnd = tp.snd_cwnd - self.dwnd;
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        self.sync(tp);
        (self.prior_cwnd, self.prior_dwnd) = (self.cwnd, self.dwnd);
        if self.gamma_tube {
            self.tune_gamma_tube();
        } else if self.gamma_auto {
            self.tune_gamma();
        }
        // eq. 5, third line: cwnd halves, dwnd fills up to win·(1 − β).
        let win = self.cwnd as u64 + self.dwnd as u64;
        let target = (win * (1024 - self.beta_q10.min(1024)) as u64) >> 10;
        let half = self.cwnd / 2;
        self.dwnd = target.saturating_sub(half as u64) as u32;
        self.cwnd = half.max(2u32.saturating_sub(self.dwnd));
        self.cwnd + self.dwnd
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        let recovering = |s| matches!(s, CaState::Recovery | CaState::Loss);
        if recovering(new_state) || recovering(tp.ca_state) {
            self.restart(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        // Timeout (§III.B) and idle restart: the delay component starts over;
        // it is re-enabled once slow start has ended.
        if matches!(ev, CaEvent::Loss | CaEvent::CwndRestart) {
            self.dwnd = 0;
            self.restart(tp);
        }
    }

    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        // Linux Reno: max(cwnd, prior_cwnd), with the pre-loss split restored.
        let total = tp.snd_cwnd.max(self.prior_cwnd + self.prior_dwnd);
        self.dwnd = self.prior_dwnd;
        self.cwnd = total - self.dwnd;
        total
    }
}

crate::cc_property_suite!(ctcp_properties, Ctcp);
crate::cc_property_suite!(
    ctcp_nwr_auto_properties,
    Ctcp,
    CtcpParams {
        nwr: true,
        gamma_auto: true,
        sample_interval_us: 0,
        ..Default::default()
    }
);

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::testing::Harness;

    /// Congestion avoidance with the given split and baseRTT = 100 ms.
    pub(super) fn ca(p: &CtcpParams, cwnd: u32, dwnd: u32) -> Harness<Ctcp> {
        let mut h = Harness::<Ctcp>::with_params(p, cwnd + dwnd);
        h.tp.snd_ssthresh = 2;
        (h.cc.cwnd, h.cc.dwnd) = (cwnd, dwnd);
        h.cc.beg_cwnd = cwnd;
        h.cc.base_rtt_us = 100_000;
        h
    }

    /// Send a window, start a round at it, and ACK it segment by segment 1 ms
    /// apart (so each ACK is sampled, δ = 1 ms), the i-th with RTT `rtt_ms(i)`.
    pub(super) fn measure(h: &mut Harness<Ctcp>, rtt_ms: impl Fn(u32) -> u32) {
        h.send_all();
        h.cc.beg_snd_nxt = h.tp.snd_nxt;
        for i in 0..h.tp.packets_out {
            h.set_rtt_ms(rtt_ms(i));
            h.advance_ms(1);
            h.ack_each(1, 1);
        }
    }

    /// Send the next window and deliver its first ACK, which ends the round.
    pub(super) fn close_round(h: &mut Harness<Ctcp>, rtt_ms: u32) {
        h.send_all();
        h.set_rtt_ms(rtt_ms);
        h.advance_ms(1);
        h.ack_each(1, 1);
    }

    pub(super) fn split(h: &Harness<Ctcp>) -> (u32, u32, u32) {
        (h.cc.cwnd, h.cc.dwnd, h.cwnd())
    }

    #[test]
    fn pow_matches_float_and_is_exact_on_powers() {
        for k in [0.5, 0.75, 0.8, 1.0] {
            for w in [
                1u32,
                2,
                3,
                16,
                40,
                41,
                100,
                1_000,
                10_000,
                65_536,
                1_000_000,
                1_000_000_000,
            ] {
                let exact = (w as f64).powf(k) * 256.0;
                let got = pow_q8(w, fixed(k, 24)) as f64;
                // Within 1/256 segment or 1e-6 relative.
                assert!(
                    (got - exact).abs() <= 1.0f64.max(exact * 1e-6),
                    "{w}^{k}: {got} vs {exact}"
                );
            }
        }
        assert_eq!(pow_q8(16, fixed(0.75, 24)), 8 * 256);
        assert_eq!(pow_q8(10_000, fixed(0.75, 24)), 1000 * 256);
    }

    #[test]
    fn lowwnd_41_is_the_first_window_with_a_whole_segment_of_increase() {
        // α·w^0.75 − 1: 40 → 15.905/8 − 1 = 0.988; 41 → 16.203/8 − 1 = 1.025 (§V).
        let c = Ctcp::new(&CtcpParams::default());
        assert_eq!(c.dwnd_increase(40), 0);
        assert_eq!(c.dwnd_increase(41), 1);
        // 10000^0.75/8 − 1 = 124 exactly; 100^0.75/8 − 1 = 2.95.
        assert_eq!(c.dwnd_increase(10_000), 124);
        assert_eq!(c.dwnd_increase(100), 2);
    }

    #[test]
    fn no_backlog_grows_dwnd_binomially() {
        // eq. 5 line 1. The measured round (100 ACKs at win 100) gives the Reno
        // part +1 → 101; at the round end diff = 0 < 30 and
        // dwnd += ⌊101^0.75/8 − 1⌋ = ⌊31.86/8 − 1⌋ = ⌊2.98⌋ = 2.
        let mut h = ca(&CtcpParams::default(), 100, 0);
        measure(&mut h, |_| 100);
        assert_eq!(split(&h), (101, 0, 101));
        close_round(&mut h, 100);
        assert_eq!(split(&h), (101, 2, 103));
    }

    #[test]
    fn backlog_above_gamma_shrinks_dwnd_by_zeta_diff() {
        // eq. 5 line 2. win 200 → Reno +1 → 201; RTT 125 ms, baseRTT 100 ms:
        // diff = 201·25/125 = 40.2 ≥ 30, dwnd = 100 − ⌊40.2⌋ = 60.
        let mut h = ca(&CtcpParams::default(), 100, 100);
        measure(&mut h, |_| 125);
        close_round(&mut h, 125);
        assert_eq!(split(&h), (101, 60, 161));
    }

    #[test]
    fn dwnd_reduction_stops_at_zero() {
        // diff = 111·100/200 = 55.5 > dwnd = 10: (10 − 55.5)⁺ = 0.
        let mut h = ca(&CtcpParams::default(), 100, 10);
        measure(&mut h, |_| 200);
        close_round(&mut h, 200);
        assert_eq!(split(&h), (101, 0, 101));
    }

    #[test]
    fn zeta_scales_the_reduction() {
        // ζ = 0.5: dwnd = 100 − ⌊0.5·40.2⌋ = 80.
        let p = CtcpParams {
            zeta: 0.5,
            ..Default::default()
        };
        let mut h = ca(&p, 100, 100);
        measure(&mut h, |_| 125);
        close_round(&mut h, 125);
        assert_eq!(split(&h), (101, 80, 181));
    }

    #[test]
    fn nwr_holds_dwnd_under_backlog() {
        // CTCP-NWR (§VI.B.6): same round as above, dwnd stays 100.
        let p = CtcpParams {
            nwr: true,
            ..Default::default()
        };
        let mut h = ca(&p, 100, 100);
        measure(&mut h, |_| 125);
        close_round(&mut h, 125);
        assert_eq!(split(&h), (101, 100, 201));
        // Without backlog NWR still grows: diff 0, +⌊202^0.75/8 − 1⌋ = 5.
        measure(&mut h, |_| 100);
        close_round(&mut h, 100);
        assert_eq!(h.cc.dwnd, 105);
    }

    #[test]
    fn loss_halves_cwnd_and_refills_dwnd_to_win_times_one_minus_beta() {
        // eq. 5 line 3: win 160 = 100 + 60 → cwnd 50, dwnd (80 − 50)⁺ = 30.
        let mut h = ca(&CtcpParams::default(), 100, 60);
        h.fast_retransmit();
        assert_eq!(h.ssthresh(), 80);
        h.end_recovery();
        assert_eq!(split(&h), (50, 30, 80));
        // β = 0.3: win·0.7 = 112 → dwnd 62.
        let mut h = ca(
            &CtcpParams {
                beta: 0.3,
                ..Default::default()
            },
            100,
            60,
        );
        h.loss();
        assert_eq!(split(&h), (50, 62, 112));
        // dwnd = 0: (50 − 50)⁺ = 0, plain Reno halving.
        let mut h = ca(&CtcpParams::default(), 101, 0);
        h.loss();
        assert_eq!(split(&h), (50, 0, 50));
    }

    #[test]
    fn undo_restores_both_components() {
        let mut h = ca(&CtcpParams::default(), 100, 60);
        h.fast_retransmit();
        h.undo();
        assert_eq!(split(&h), (100, 60, 160));
    }

    #[test]
    fn delay_component_needs_win_of_lowwnd() {
        // 39 → Reno +1 → win 40 < 41: dwnd stays 0.
        let mut h = ca(&CtcpParams::default(), 39, 0);
        measure(&mut h, |_| 100);
        close_round(&mut h, 100);
        assert_eq!(split(&h), (40, 0, 40));
        // 40 → 41 ≥ 41: +⌊41^0.75/8 − 1⌋ = 1.
        let mut h = ca(&CtcpParams::default(), 40, 0);
        measure(&mut h, |_| 100);
        close_round(&mut h, 100);
        assert_eq!(split(&h), (41, 1, 42));
        // Falling below lowwnd clears dwnd: 30 + 9 → Reno +1 → win 40.
        let mut h = ca(&CtcpParams::default(), 30, 9);
        measure(&mut h, |_| 100);
        close_round(&mut h, 100);
        assert_eq!(split(&h), (31, 0, 31));
    }

    #[test]
    fn more_than_n_samples_are_needed() {
        // 60 segments in 4 stretch ACKs + the closing ACK = 5 samples: not > 5.
        for (acks, per_ack, dwnd) in [(4, 15, 0), (5, 12, 1)] {
            let mut h = ca(&CtcpParams::default(), 60, 0);
            h.send_all();
            h.cc.beg_snd_nxt = h.tp.snd_nxt;
            for _ in 0..acks {
                h.advance_ms(1);
                h.ack_each(1, per_ack);
            }
            close_round(&mut h, 100);
            // 6 samples: +⌊61^0.75/8 − 1⌋ = ⌊1.72⌋ = 1.
            assert_eq!(split(&h), (61, dwnd, 61 + dwnd), "{acks} ACKs");
        }
    }

    #[test]
    fn samples_are_spread_over_the_window_not_over_time() {
        // §V: up to M ≈ RTT/δ samples per window, uniformly among its packets.
        // All 100 ACKs of a round at one instant (an unpaced window with no
        // queue): M = 100 ms / 1 ms = 100, so every ACK is sampled and the
        // round updates dwnd by ⌊100^0.75/8 − 1⌋ = ⌊2.95⌋ = 2. (Spacing
        // samples 1 ms apart in time took 2 and never updated dwnd.)
        for interval in [1000, 0] {
            let p = CtcpParams {
                sample_interval_us: interval,
                ..Default::default()
            };
            let mut h = ca(&p, 100, 0);
            h.send_all();
            h.cc.beg_snd_nxt = h.tp.snd_nxt;
            h.advance_ms(100);
            h.ack_all();
            close_round(&mut h, 100);
            assert_eq!(h.cc.dwnd, 2, "interval {interval}");
        }
        // win 1000, srtt 100 ms: one sample per 1000·δ/100 ms segments —
        // δ = 1 ms: every 10th → 100; δ = 10 ms: every 100th → 10; δ = 0: all.
        for (interval, samples) in [(1000, 100), (10_000, 10), (0, 1000)] {
            let p = CtcpParams {
                sample_interval_us: interval,
                ..Default::default()
            };
            let mut h = ca(&p, 1000, 0);
            h.send_all();
            h.cc.beg_snd_nxt = h.tp.snd_nxt;
            h.advance_ms(100);
            h.ack_all();
            assert_eq!(h.cc.cnt_rtt, samples, "interval {interval}");
        }
    }

    #[test]
    fn round_rtt_is_the_average_or_optionally_the_minimum() {
        // Samples alternate 100/140 ms: 100 of each (the closing one is 100).
        // Average 120: diff = 201·20/120 = 33.5 ≥ 30 → dwnd 100 − 33 = 67.
        // Minimum 100: diff 0 → dwnd 100 + ⌊201^0.75/8 − 1⌋ = 105.
        for (min_filter, dwnd) in [(false, 67), (true, 105)] {
            let p = CtcpParams {
                rtt_min_filter: min_filter,
                ..Default::default()
            };
            let mut h = ca(&p, 100, 100);
            measure(&mut h, |i| if i % 2 == 0 { 140 } else { 100 });
            close_round(&mut h, 100);
            assert_eq!(h.cc.dwnd, dwnd, "min filter {min_filter}");
        }
    }

    #[test]
    fn sampling_and_dwnd_are_frozen_in_recovery() {
        let mut h = ca(&CtcpParams::default(), 100, 60);
        h.fast_retransmit();
        // Samples during recovery (one below baseRTT) are ignored.
        h.send(20);
        h.set_rtt_ms(50);
        h.advance_ms(1);
        h.ack_each(10, 1);
        assert_eq!(
            (h.cc.base_rtt_us, h.cc.cnt_rtt, h.cc.dwnd),
            (100_000, 0, 30)
        );
        // Leaving recovery starts a fresh round at snd_nxt.
        h.end_recovery();
        assert_eq!((h.cc.beg_snd_nxt, h.cc.cnt_rtt), (h.tp.snd_nxt, 0));
    }

    #[test]
    fn timeout_clears_dwnd_until_slow_start_ends() {
        // win 160 → ssthresh 80, dwnd 0, cwnd 1 (§III.B).
        let mut h = ca(&CtcpParams::default(), 100, 60);
        h.timeout();
        assert_eq!((h.cc.dwnd, h.ssthresh(), h.cwnd()), (0, 80, 1));
        let spaced_round = |h: &mut Harness<Ctcp>| {
            h.send_all();
            for _ in 0..h.tp.packets_out {
                h.advance_ms(1);
                h.ack_each(1, 1);
            }
        };
        // Slow start without a queue: no delay component.
        for expected in [2, 4, 8, 16, 32, 64, 80] {
            spaced_round(&mut h);
            assert_eq!((h.cwnd(), h.cc.dwnd), (expected, 0));
        }
        // The round of 64 ended slow start at ACK 16 and left 48 credits at w 80.
        // The next round's first ACK closes it in CA: +⌊80^0.75/8 − 1⌋ = 2 → 82,
        // then 34 more ACKs complete 82 credits → 83.
        spaced_round(&mut h);
        assert_eq!(split(&h), (81, 2, 83));
    }

    #[test]
    fn gamma_auto_tunes_from_the_buffer_ratio_at_loss() {
        // RTTmax 150, RTTmin 100: γ = 41·50/150 = 13.67 (Q8: 3498).
        let p = CtcpParams {
            gamma_auto: true,
            ..Default::default()
        };
        let mut h = ca(&p, 100, 100);
        h.cc.max_round_rtt_us = 150_000;
        h.loss();
        assert_eq!(h.cc.gamma_q8, 3498);
        // Now a backlog of 151·15/115 = 19.7 packets (< 30) already shrinks dwnd.
        h.tp.snd_cwnd = 150;
        (h.cc.cwnd, h.cc.dwnd) = (100, 50);
        measure(&mut h, |_| 115);
        close_round(&mut h, 115);
        assert_eq!(h.cc.dwnd, 50 - 19);
        // γ_min: RTTmax 104 → 41·4/104 = 1.58 < 5.
        h.cc.max_round_rtt_us = 104_000;
        h.loss();
        assert_eq!(h.cc.gamma_q8, 5 * 256);
    }

    #[test]
    fn fixed_gamma_is_not_tuned() {
        let mut h = ca(&CtcpParams::default(), 100, 100);
        h.cc.max_round_rtt_us = 150_000;
        h.loss();
        assert_eq!(h.cc.gamma_q8, 30 * 256);
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::CcParams::with("compound", &[("gamma", 20.0), ("nwr", 1.0), ("k", 0.8)])
            .unwrap();
        assert_eq!(p.name(), "ctcp");
        assert!(crate::CcParams::with("ctcp", &[("lowwnd", 1.5)]).is_err());
    }

    #[test]
    fn round_maximum_rtt_is_tracked_for_gamma() {
        let mut h = ca(&CtcpParams::default(), 100, 0);
        measure(&mut h, |_| 130);
        close_round(&mut h, 130);
        assert_eq!(h.cc.max_round_rtt_us, 130_000);
    }
}
