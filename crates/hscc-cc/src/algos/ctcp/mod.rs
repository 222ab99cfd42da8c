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

mod dwnd;
mod gamma;
pub mod la;
mod pow;
#[cfg(test)]
mod tests;
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
