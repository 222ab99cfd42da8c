//! HighSpeed TCP (RFC 3649; Linux `tcp_highspeed.c`).
//!
//! An AIMD whose increase a(w) grows and whose decrease b(w) shrinks with the
//! window, so that the response function above `Low_Window` is
//! w = 0.12 / p^0.835 (RFC 3649 §5) instead of Reno's 1.22 / √p:
//!
//! - p(w): log–log line from (Low_Window, 1.5/Low_Window²) to (High_Window, High_P),
//!   ≈ 0.078 / w^1.2 with the defaults (RFC 3649 §5).
//! - b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window − ln Low_Window) + 0.5.
//! - a(w) = w²·p(w)·2·b(w)/(2 − b(w)): the increase in segments *per RTT* that,
//!   with the decrease b(w), gives the response function (RFC 3649 §5 and App. A,
//!   the deterministic AIMD model w = √(a(w)·(2 − b(w))/(2·b(w)·p))).
//! - In congestion avoidance w += a(w)/w per acknowledged segment; on loss
//!   w ← (1 − b(w))·w; w ≤ Low_Window: a = 1, b = 1/2 (Reno).
//!
//! Check values (RFC 3649 App. A/B): a(38) = 1, b = 0.50; a(1058) = 8, b = 0.33;
//! a(10661) = 30, b = 0.21; a(83000) ≈ 70.7 (formula) / 71 (table), b = 0.10.
//!
//! # Per segment (RFC, default) or per ACK (Linux, `per_ack`)
//! The response function needs a(w) segments per RTT, i.e. a(w)/w for each of
//! the w segments a window delivers — the model behind Reno's 1.22/√p and the
//! RFC's App. A, where every segment is acknowledged. That is what the ns-2
//! HSTCP agent (`tcp.cc`, `windowOption_ 8`: `opencwnd()` adds
//! `increase_param()` = a(w)/w per new ACK) does with ns-2's default receiver,
//! which acknowledges every packet, and it is the HSTCP that CTCP ("according to
//! RFC 3645 \[sic\] and the reference implementation in NS2", §VI.A) and
//! TCP-Africa (ns-2.27, §IV) compared against. hscc therefore credits a(w) per
//! acknowledged segment by default (`acked`·a(w), so a stretch ACK of k
//! segments counts k times, and the part of an ACK beyond ssthresh at the end of
//! slow start is carried into congestion avoidance): with delayed ACKs the
//! window still grows by a(w) per RTT.
//!
//! Linux `tcp_highspeed.c` adds a(w) to `snd_cwnd_cnt` once per ACK whatever it
//! acknowledges, grows cwnd by at most 1 per ACK and drops the part of an ACK
//! beyond ssthresh after slow start: under delayed ACKs (one ACK per two
//! segments) it grows by about a(w)/2 per RTT, half the RFC's rate.
//! [`HighSpeedParams::linux()`] (`per_ack = true`) reproduces that. (Setting the
//! flow's `ack_counting = "acks"` with the default gives ns-2's per-ACK rule under
//! any receiver.)
//!
//! # Response: table (default, Linux) or formula (ns-2), `response`
//! `response = 0` walks RFC 3649 App. B's table as Linux does (below);
//! `response = 1` evaluates the RFC §5 formulas at the current window, as the
//! ns-2 HSTCP agent that the CTCP and TCP-Africa papers compared against does
//! (`tcp.cc`: `increase_param()`, `decrease_param()`, constants `hstcp_.p1`,
//! `p2`, `dec1`, `dec2` from `low_window_`, `high_window_`, `high_p_`,
//! `high_decrease_`). Between the table's rows the two differ most at small
//! windows: a(40) = 2 in the table against 1.034 by the formula, a(100) = 2
//! against 1.882, a(200) = 3 against 2.939; b(100) = 0.4375 against 0.4497.
//!
//! What ns-2 does, and what the formula mode keeps of it:
//! - p(w) = exp(p1 + p2·ln w), the exact log–log line from (Low_Window,
//!   1.5/Low_Window²) to (High_Window, High_P) — not the RFC's rounded
//!   0.078/w^1.2, so a(1058) = 8.31 where App. A/B say 8 (the rounded line
//!   gives 8.01); b(w) = dec1 + dec2·ln w; a(w) = w²·p(w)/(1/b(w) − 0.5).
//! - ns-2's cwnd is a double and a(w)/w is added per ACK at that cwnd; here w
//!   is the integer `snd_cwnd` and a(w)/w goes into `snd_cwnd_cnt` in units of
//!   2⁻¹⁰ segment (fewer bits only above 2²² segments, so that w·2^s fits 32
//!   bits), per acknowledged segment (or per ACK with `per_ack`).
//! - cwnd ≤ Low_Window: a = 1 (ns-2: `answer = 1 / cwnd_`); the decrease uses
//!   b(w) only when cwnd > Low_Window, else 1/2.
//! - The decrease rounds down: ns-2 (`precisionReduce_ true`) sets ssthresh to
//!   `(int)(w − b·w)`, so ssthresh = ⌊w·(1 − b(w))⌋, at least 2 (the table
//!   mode keeps Linux's w − ⌊w·b·256⌋/256).
//! - ns-2's `cwnd_range_` cache (default 0: off) is not modelled.
//! - ns-2's a(w) peaks at w ≈ 1.55·10⁵ (RFC constants) and falls beyond,
//!   and its b(w) reaches 0 at ≈ 5.7·10⁵ (a decrease that would raise the
//!   window): a and b are held at their values at the peak, as Linux's table
//!   holds its last row.
//!
//! In integer arithmetic, identical in bpf/hstcp_table.h ([`HstcpFormula`]):
//! log₂ w in Q16 by repeated squaring ([`log2_q16`]); b(w) (Q32) and
//! log₂(w²·p(w)) (Q24) linear in it; 2^x as a product of the constants
//! 2^(2⁻ⁱ) ([`exp2_q30`]); a(w) in Q10, rounded to nearest. Against ns-2's
//! double precision, for every integer window 39 ≤ w ≤ 10⁵ with the RFC's
//! constants: |a_fixed/a − 1| ≤ 0.05 % (4.6·10⁻⁴ at w = 41, a's 2⁻¹⁰ step)
//! and |b_fixed − b| ≤ 10⁻⁶ (4.5·10⁻⁷), tested; both monotone in w.
//!
//! # Table, not formula (`response = 0`)
//! As Linux, the per-ACK path never evaluates the formulas: it walks a table
//! [`HSTCP_AIMD_VALS`] (RFC 3649 App. B) of windows w_i at which a(w) reaches
//! i + 1, with b(w_i) scaled by 256. An index `ai` follows cwnd up and down so
//! that `w_{ai−1} < cwnd ≤ w_ai`; then a = ai + 1 and b = md/256. Between rows
//! this rounds a(w) up and b(w) down (a(1000) = 8 where the formula gives 7.7).
//! The rows end at 89053 (a = 72, b = 24/256); beyond it a and b stay there.
//!
//! The four RFC constants are parameters. With their defaults the RFC table is
//! used verbatim. With any other value a table is generated in [`CongestionOps::new`]
//! from the RFC §5 formulas (w_i = smallest integer window with a(w) ≥ i + 1,
//! md_i = ⌊256·b(w_i)⌋, rows up to the first w_i beyond High_Window, at most
//! [`MAX_ROWS`]). For the defaults that generator gives windows up to 9 % below the
//! RFC's: the RFC table follows the rounded p(w) = 0.078/w^1.2 (to 0.3 %), not the
//! exact log–log line, hence the verbatim table.
//!
//! Other algorithms reuse the default table through [`hstcp_ai`] and [`hstcp_md`].
//!
//! # Deviations from the RFC / from Linux
//! - `ssthresh` re-indexes the table at the current cwnd before taking b(w), in
//!   both modes. Linux uses the index left by the last congestion-avoidance ACK,
//!   so a loss right after slow start halves cwnd whatever its size; RFC 3649
//!   asks for b(w).
//! - The decrease cwnd·md is computed in 64 bits; Linux instead lowers
//!   `snd_cwnd_clamp` to 2³²/128.
//! - Limited slow start (RFC 3742, `max_ssthresh`) is not implemented (Linux
//!   removed it; ns-2's default `max_ssthresh_ 0` leaves it off too).

use std::borrow::Cow;

use crate::helpers::{cong_avoid_start, in_congestion_avoidance, tcp_cong_avoid_ai};
use crate::ops::{CongestionOps, TcpCc};

crate::params! {
    /// HighSpeed TCP parameters (RFC 3649 §5).
    pub struct HighSpeedParams {
        /// Low_Window: at or below this window (segments) HighSpeed TCP is Reno.
        low_window: u32 = 38, [4, 500], "RFC 3649 §5";
        /// High_Window: window (segments) at which the response function reaches High_P.
        high_window: u32 = 83000, [1000, 100000000], "RFC 3649 §5";
        /// High_P: loss rate at which the window is High_Window.
        high_p: f64 = 1e-7, [1e-12, 1e-6], "RFC 3649 §5";
        /// High_Decrease: b(High_Window), the decrease factor at High_Window.
        high_decrease: f64 = 0.1, [0.01, 0.5], "RFC 3649 §5";
        /// Add a(w) once per ACK, at most +1 segment per ACK (Linux), instead of per acknowledged segment (RFC).
        per_ack: bool = false, [0, 1], "RFC 3649 §5 / App. A: a(w) per RTT, per segment; Linux tcp_highspeed.c: per ACK";
        /// Response function: 0 = table (RFC 3649 App. B walked as Linux does: between rows a(w) rounds up, b(w) down), 1 = formula (RFC 3649 §5's a(w), b(w) at the current window, as ns-2's HSTCP).
        response: u32 = 0, [0, 1], "Linux tcp_highspeed.c (0 = table); ns-2 tcp.cc windowOption_ 8 (1 = formula)";
    }
    order { low_window <= high_window; }
}

/// `response` 0: RFC 3649 App. B's table, as Linux `tcp_highspeed.c` walks it.
pub const RESPONSE_TABLE: u32 = 0;
/// `response` 1: RFC 3649 §5's formulas at the current window, as ns-2's HSTCP.
pub const RESPONSE_FORMULA: u32 = 1;

impl HighSpeedParams {
    /// Linux `tcp_highspeed.c`: a(w) once per ACK (half the RFC's growth under delayed ACKs).
    pub fn linux() -> HighSpeedParams {
        HighSpeedParams {
            per_ack: true,
            ..HighSpeedParams::default()
        }
    }

    /// ns-2's HSTCP (`windowOption_ 8`): the RFC 3649 §5 formulas at the current
    /// window, a(w)/w per acknowledged segment.
    pub fn ns2() -> HighSpeedParams {
        HighSpeedParams {
            response: RESPONSE_FORMULA,
            ..HighSpeedParams::default()
        }
    }

    /// Whether the four RFC 3649 constants are the RFC's (then its App. B table is used).
    fn rfc_constants(&self) -> bool {
        let d = HighSpeedParams::default();
        (
            self.low_window,
            self.high_window,
            self.high_p,
            self.high_decrease,
        ) == (d.low_window, d.high_window, d.high_p, d.high_decrease)
    }
}

/// One table row: from the previous row's window (exclusive) up to `cwnd`
/// (inclusive), a = row index + 1 and b = `md`/256.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AimdVal {
    /// Upper window of the row, segments.
    pub cwnd: u32,
    /// b(w) scaled by 256.
    pub md: u32,
}

const fn row(cwnd: u32, md: u32) -> AimdVal {
    AimdVal { cwnd, md }
}

/// RFC 3649 Appendix B (a = index + 1, b scaled by 256), as in Linux `tcp_highspeed.c`.
#[rustfmt::skip]
pub const HSTCP_AIMD_VALS: [AimdVal; 72] = [
    row(38, 128), row(118, 112), row(221, 104), row(347, 98), row(495, 93),
    row(663, 89), row(851, 86), row(1058, 83), row(1284, 81), row(1529, 78),
    row(1793, 76), row(2076, 74), row(2378, 72), row(2699, 71), row(3039, 69),
    row(3399, 68), row(3778, 66), row(4177, 65), row(4596, 64), row(5036, 62),
    row(5497, 61), row(5979, 60), row(6483, 59), row(7009, 58), row(7558, 57),
    row(8130, 56), row(8726, 55), row(9346, 54), row(9991, 53), row(10661, 52),
    row(11358, 52), row(12082, 51), row(12834, 50), row(13614, 49), row(14424, 48),
    row(15265, 48), row(16137, 47), row(17042, 46), row(17981, 45), row(18955, 45),
    row(19965, 44), row(21013, 43), row(22101, 43), row(23230, 42), row(24402, 41),
    row(25618, 41), row(26881, 40), row(28193, 39), row(29557, 39), row(30975, 38),
    row(32450, 38), row(33986, 37), row(35586, 36), row(37253, 36), row(38992, 35),
    row(40808, 35), row(42707, 34), row(44694, 33), row(46776, 33), row(48961, 32),
    row(51258, 32), row(53677, 31), row(56230, 30), row(58932, 30), row(61799, 29),
    row(64851, 28), row(68113, 28), row(71617, 27), row(75401, 26), row(79517, 26),
    row(84035, 25), row(89053, 24),
];

/// Most rows a generated table may have (a(w) saturates at this value).
pub const MAX_ROWS: usize = 1024;

/// Index of the row for `cwnd`: the first whose window is ≥ cwnd, or the last.
#[inline]
fn table_index(table: &[AimdVal], cwnd: u32) -> usize {
    table
        .partition_point(|r| r.cwnd < cwnd)
        .min(table.len() - 1)
}

/// a(w) of the RFC 3649 table: segments added per RTT at window `cwnd` (≥ 1).
#[inline]
pub fn hstcp_ai(cwnd: u32) -> u32 {
    table_index(&HSTCP_AIMD_VALS, cwnd) as u32 + 1
}

/// b(w) of the RFC 3649 table scaled by 256 (128 = 1/2 at w ≤ 38).
#[inline]
pub fn hstcp_md(cwnd: u32) -> u32 {
    HSTCP_AIMD_VALS[table_index(&HSTCP_AIMD_VALS, cwnd)].md
}

/// Bits of a(w)'s fraction ([`HstcpFormula::a_q10`]), and of `snd_cwnd_cnt`'s
/// in the formula mode while w·2¹⁰ fits 32 bits.
pub const A_SHIFT: u32 = 10;

/// 2^(2^−(i+1)) in Q30, rounded to nearest, i = 0..24: the factors of [`exp2_q30`].
pub const EXP2_STEPS_Q30: [u64; 24] = [
    1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106, 1079572136, 1076653033,
    1075196443, 1074468888, 1074105294, 1073923544, 1073832680, 1073787251, 1073764537, 1073753181,
    1073747502, 1073744663, 1073743244, 1073742534, 1073742179, 1073742001, 1073741913, 1073741868,
];

/// log₂ 1.5 in Q24 (0.58496250072 · 2²⁴ = 9814042.0): log₂(w²·p(w)) at
/// Low_Window, where p = 1.5/Low_Window².
pub const LOG2_1_5_Q24: i64 = 9814042;

/// log₂ w in Q16 (w = 0 counts as 1): the integer part n from the highest
/// set bit, then 16 fraction bits by squaring the mantissa (w·2³⁰/2ⁿ, Q30 in
/// [1, 2)) and taking a bit whenever the square reaches 2. Each square is
/// truncated, so the result is at most a few units of 2⁻¹⁶ low; it never
/// decreases as w grows. Branch-free, as the eBPF verifier needs it.
pub fn log2_q16(w: u32) -> u32 {
    let w = w.max(1);
    let n = 31 - w.leading_zeros();
    let mut m = ((w as u64) << 30) >> n;
    let mut frac = 0;
    for i in 0..16 {
        m = (m * m) >> 30; // in [2³⁰, 2³²)
        let bit = m >> 31;
        m >>= bit;
        frac |= (bit as u32) << (15 - i);
    }
    (n << 16) | frac
}

/// 2^(frac/2²⁴) in Q30 for a Q24 fraction (its low 24 bits): the product of
/// [`EXP2_STEPS_Q30`]\[i\] over its set bits 2^−(i+1), each product truncated
/// (at most 24·2⁻³⁰ low, below the 4·10⁻⁸ that one step of the fraction
/// adds). Branch-free: a clear bit multiplies by 1 (2³⁰).
pub fn exp2_q30(frac: u32) -> u64 {
    let mut m: u64 = 1 << 30;
    for (i, step) in EXP2_STEPS_Q30.iter().enumerate() {
        let bit = ((frac >> (23 - i)) & 1) as u64;
        m = (m * ((1 << 30) + bit * (step - (1 << 30)))) >> 30;
    }
    m
}

/// RFC 3649 §5's a(w) and b(w) at a window, as ns-2 evaluates them
/// (`increase_param()`, `decrease_param()`), in integer arithmetic that
/// bpf/hstcp_table.h repeats operation for operation. With L = log₂ w (Q16)
/// and d = min(L, `log2_cap_q16`) − log₂ Low_Window:
/// - b(w) = 1/2 − `b_drop_q32`·d (Q32),
/// - x = log₂(w²·p(w)) = log₂ 1.5 + `k_q32`·d (Q24), k = 2 + the log–log slope of p,
/// - a(w) = 2^x · 2b/(2 − b) (2b/(2 − b) in Q30; a in Q10, rounded to nearest);
/// - w ≤ Low_Window: a = 1, b = 1/2.
///
/// ns-2's a(w) peaks where k = 2·drop/(ln 2·b(2 − b)) (w ≈ 1.55·10⁵, b = 0.0675
/// with the RFC's constants), then falls, and its b(w) reaches 0 at ≈ 5.7·10⁵
/// (a decrease that would raise the window): a and b are held at the peak,
/// as Linux's table holds its last row, so both are monotone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HstcpFormula {
    /// Low_Window, segments.
    pub low_window: u32,
    /// [`log2_q16`] of Low_Window.
    pub log2_low_q16: u32,
    /// log₂ of the window (Q16) beyond which a and b stay constant: where a(w)
    /// peaks (log₂ Low_Window when it never grows; 32.0 when b does not fall).
    pub log2_cap_q16: u32,
    /// (1/2 − High_Decrease)/(log₂ High_Window − log₂ Low_Window), Q32: b's
    /// fall per unit of log₂ w.
    pub b_drop_q32: u64,
    /// 2 + (ln High_P − ln p(Low_Window))/(ln High_Window − ln Low_Window),
    /// Q32: the slope of log₂(w²·p(w)) in log₂ w.
    pub k_q32: i64,
}

impl HstcpFormula {
    /// The RFC's constants (38, 83000, 10⁻⁷, 0.1), as [`HstcpFormula::new`]
    /// computes them (tested), written out so that TCP-Africa's program can
    /// have them as constants: drop = 0.4/11.093063 = 0.0360587 → 154872712;
    /// k = 2 − 1.2028062 = 0.7971938 → 3423921373; the peak of a at
    /// b = 1 − √(1 − 2·0.0360587/(0.7971938·ln 2)) = 0.0675357, d = (0.5 −
    /// 0.0675357)/0.0360587 = 11.99333, log₂ 38 + d = 17.24126 → 1129911.
    pub const RFC: HstcpFormula = HstcpFormula {
        low_window: 38,
        log2_low_q16: 343928,
        log2_cap_q16: 1129911,
        b_drop_q32: 154872712,
        k_q32: 3423921373,
    };

    /// The constants for `p`'s Low_Window, High_Window, High_P and High_Decrease,
    /// from double precision as ns-2's `reset()` computes `hstcp_` (the RFC's
    /// own are [`HstcpFormula::RFC`]).
    pub fn new(p: &HighSpeedParams) -> HstcpFormula {
        if p.rfc_constants() {
            return HstcpFormula::RFC;
        }
        let (lw, hw) = (p.low_window as f64, p.high_window as f64);
        let low_p = 1.5 / (lw * lw);
        let k = 2.0 + (p.high_p.ln() - low_p.ln()) / (hw.ln() - lw.ln());
        let drop = (0.5 - p.high_decrease) / (hw.log2() - lw.log2());
        let log2_low_q16 = log2_q16(p.low_window);
        // a peaks where d log₂ a / d log₂ w = k − 2·drop/(ln 2·b(2 − b)) = 0.
        let cap = if drop <= 0.0 {
            32 << 16
        } else {
            let r = 2.0 * drop / (k * std::f64::consts::LN_2);
            let d = if k > 0.0 && r < 1.0 {
                (0.5 - (1.0 - (1.0 - r).sqrt())) / drop
            } else {
                0.0
            };
            (log2_low_q16 as f64 + (d * 65536.0).round()).min((32u32 << 16) as f64) as u32
        };
        HstcpFormula {
            low_window: p.low_window,
            log2_low_q16,
            log2_cap_q16: cap,
            b_drop_q32: (drop * 4294967296.0).round() as u64,
            k_q32: (k * 4294967296.0).round() as i64,
        }
    }

    /// d = min(log₂ w, cap) − log₂ Low_Window, Q16.
    fn dlog_q16(&self, w: u32) -> u64 {
        log2_q16(w)
            .min(self.log2_cap_q16)
            .saturating_sub(self.log2_low_q16) as u64
    }

    /// b at d, Q32 (2³¹ = 1/2; at least 2⁻³²).
    fn b_at(&self, d: u64) -> u64 {
        let drop = (self.b_drop_q32 * d) >> 16;
        (1 << 31) - drop.min((1 << 31) - 1)
    }

    /// b(w) in Q32: 2³¹ = 1/2 at w ≤ Low_Window.
    pub fn b_q32(&self, w: u32) -> u64 {
        if w <= self.low_window {
            return 1 << 31;
        }
        self.b_at(self.dlog_q16(w))
    }

    /// a(w) in Q10 (1024 = one segment per RTT at w ≤ Low_Window).
    pub fn a_q10(&self, w: u32) -> u32 {
        if w <= self.low_window {
            return 1 << A_SHIFT;
        }
        let d = self.dlog_q16(w);
        let b = self.b_at(d);
        // log₂(w²·p(w)), Q24, at most 20 (a below 2²⁰ segments per RTT).
        let x = (LOG2_1_5_Q24 + ((self.k_q32 * d as i64) >> 24)).min(20 << 24);
        // 2b/(2 − b), Q30 (at most 2/3).
        let f = (b << 31) / ((1 << 33) - b);
        // 2^x·f = exp2_q30(frac)·2^n·f / 2⁶⁰; to Q10: shift by 50 − n (≥ 30).
        let prod = exp2_q30((x & 0xff_ffff) as u32) * f;
        let shift = 50 - (x >> 24);
        if shift >= 64 {
            return 0;
        }
        ((prod + (1 << (shift - 1))) >> shift) as u32
    }

    /// ns-2's decrease `(int)(w − b·w)`: ⌊w·(1 − b(w))⌋ = w − ⌈w·b⌉, at least 2.
    pub fn ssthresh(&self, w: u32) -> u32 {
        let cut = (w as u64 * self.b_q32(w)).div_ceil(1 << 32);
        (w - cut as u32).max(2)
    }

    /// w += a(w)/w for each of `segments`: `snd_cwnd_cnt` counts 2^−s segment,
    /// s = [`credit_shift`]\(w\), through Linux's `tcp_cong_avoid_ai` at w·2^s.
    pub fn cong_avoid_ai(&self, tp: &mut TcpCc, segments: u32) {
        let w = tp.snd_cwnd.max(1);
        let s = credit_shift(w);
        let credit = (segments as u64 * self.a_q10(w) as u64) >> (A_SHIFT - s);
        tcp_cong_avoid_ai(tp, w << s, credit.min(u32::MAX as u64) as u32);
    }

    /// Linux's per-ACK form with the formula's a(w): a(w) once, at most +1.
    pub fn cong_avoid_per_ack(&self, tp: &mut TcpCc) {
        let w = tp.snd_cwnd.max(1);
        let s = credit_shift(w);
        tp.snd_cwnd_cnt = tp
            .snd_cwnd_cnt
            .saturating_add(self.a_q10(w) >> (A_SHIFT - s));
        if tp.snd_cwnd_cnt >= w << s {
            tp.snd_cwnd_cnt -= w << s;
            tp.snd_cwnd += 1;
        }
    }

    /// The program globals that carry these constants (HighSpeed's).
    fn bpf_globals(&self) -> [(&'static str, i64); 5] {
        [
            ("formula_low_window", self.low_window.into()),
            ("formula_log2_low_q16", self.log2_low_q16.into()),
            ("formula_log2_cap_q16", self.log2_cap_q16.into()),
            ("formula_b_drop_q32", self.b_drop_q32 as i64),
            ("formula_k_q32", self.k_q32),
        ]
    }
}

/// Fraction bits of `snd_cwnd_cnt` in the formula mode at window w: [`A_SHIFT`],
/// fewer when w·2^A_SHIFT would not fit 32 bits.
#[inline]
pub fn credit_shift(w: u32) -> u32 {
    w.leading_zeros().min(A_SHIFT)
}

/// The names of the program's table globals, `table_cwnd[i]` and `table_md[i]`
/// for every row a generated table may have (made once).
fn table_global_names() -> &'static [(String, String)] {
    static NAMES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        (0..MAX_ROWS)
            .map(|i| (format!("table_cwnd[{i}]"), format!("table_md[{i}]")))
            .collect()
    })
}

/// A table generated from the RFC 3649 §5 formulas for non-default parameters.
fn generate_table(p: &HighSpeedParams) -> Vec<AimdVal> {
    let (lw, hw) = (p.low_window as f64, p.high_window as f64);
    let low_p = 1.5 / (lw * lw);
    let inv_s = (p.high_p.ln() - low_p.ln()) / (hw.ln() - lw.ln());
    let b = |w: f64| (p.high_decrease - 0.5) * (w.ln() - lw.ln()) / (hw.ln() - lw.ln()) + 0.5;
    let a = |w: f64| {
        let bw = b(w);
        w * w * low_p * (w / lw).powf(inv_s) * 2.0 * bw / (2.0 - bw)
    };
    let mut rows = vec![row(p.low_window, 128)];
    let mut w = p.low_window;
    while w <= p.high_window && rows.len() < MAX_ROWS {
        let target = rows.len() as f64 + 1.0;
        // Bracket the first window with a(w) ≥ target, then bisect.
        let (mut lo, mut hi) = (w, w.saturating_mul(2));
        while a(hi as f64) < target {
            if hi >= u32::MAX / 4 {
                return rows; // a(w) does not grow with these parameters
            }
            (lo, hi) = (hi, hi * 2);
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if a(mid as f64) >= target {
                hi = mid
            } else {
                lo = mid
            }
        }
        w = hi;
        rows.push(row(w, ((b(w as f64) * 256.0) as u32).clamp(1, 128)));
    }
    rows
}

/// HighSpeed TCP state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HighSpeed {
    /// Table index tracking cwnd; a(w) = ai + 1.
    ai: u32,
    /// The AIMD table: RFC 3649 App. B, or generated from non-default parameters.
    table: Cow<'static, [AimdVal]>,
    /// a(w) per ACK (Linux) instead of per acknowledged segment (RFC).
    per_ack: bool,
    /// The formulas at the current window (`response = 1`) instead of the table.
    formula: Option<HstcpFormula>,
}

impl HighSpeed {
    /// Move `ai` so that `table[ai − 1].cwnd < cwnd ≤ table[ai].cwnd` (Linux walks
    /// one row at a time, which is the same).
    #[inline]
    fn update_ai(&mut self, cwnd: u32) {
        self.ai = table_index(&self.table, cwnd) as u32;
    }

    /// Current a(w), segments per RTT.
    pub fn ai(&self) -> u32 {
        self.ai + 1
    }

    /// The table in use.
    pub fn table(&self) -> &[AimdVal] {
        &self.table
    }
}

impl CongestionOps for HighSpeed {
    const NAME: &'static str = "highspeed";
    type Params = HighSpeedParams;

    fn new(p: &HighSpeedParams) -> Self {
        let formula = (p.response == RESPONSE_FORMULA).then(|| HstcpFormula::new(p));
        // The formula mode needs no table: the RFC's stands in, unused.
        let table = if p.rfc_constants() || formula.is_some() {
            Cow::Borrowed(&HSTCP_AIMD_VALS[..])
        } else {
            Cow::Owned(generate_table(p))
        };
        HighSpeed {
            ai: 0,
            table,
            per_ack: p.per_ack,
            formula,
        }
    }

    /// `response`, and the formula's constants (`formula_*`, the RFC's in the
    /// table mode, where they are unused). `rows` 0 selects the RFC table the
    /// program shares (bpf/hstcp_table.h); a generated table goes row by row
    /// into the array globals `table_cwnd[i]` and `table_md[i]`.
    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let mut out = vec![
            ("per_ack", self.per_ack.into()),
            ("response", self.formula.is_some().into()),
        ];
        out.extend(self.formula.unwrap_or(HstcpFormula::RFC).bpf_globals());
        if let Cow::Borrowed(_) = self.table {
            out.push(("rows", 0));
            return out;
        }
        out.push(("rows", self.table.len() as i64));
        let names = table_global_names();
        for (r, (cwnd, md)) in self.table.iter().zip(names) {
            out.push((cwnd.as_str(), r.cwnd.into()));
            out.push((md.as_str(), r.md.into()));
        }
        out
    }

    fn init(&mut self, _tp: &mut TcpCc) {
        self.ai = 0;
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        if let Some(f) = &self.formula {
            return f.ssthresh(tp.snd_cwnd);
        }
        self.update_ai(tp.snd_cwnd);
        let md = self.table[self.ai as usize].md as u64;
        let cwnd = tp.snd_cwnd as u64;
        ((cwnd - ((cwnd * md) >> 8)) as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, acked: u32) {
        if self.per_ack {
            // Linux: slow start's leftover is dropped; a(w) per ACK, at most +1.
            if !in_congestion_avoidance(tp, acked) {
                return;
            }
            if let Some(f) = &self.formula {
                if tp.snd_cwnd < tp.snd_cwnd_clamp {
                    f.cong_avoid_per_ack(tp);
                }
                return;
            }
            self.update_ai(tp.snd_cwnd);
            if tp.snd_cwnd < tp.snd_cwnd_clamp {
                tp.snd_cwnd_cnt = tp.snd_cwnd_cnt.saturating_add(self.ai + 1);
                if tp.snd_cwnd_cnt >= tp.snd_cwnd {
                    tp.snd_cwnd_cnt -= tp.snd_cwnd;
                    tp.snd_cwnd += 1;
                }
            }
            return;
        }
        // RFC 3649: w += a(w)/w for each acknowledged segment.
        let Some(acked) = cong_avoid_start(tp, acked) else {
            return;
        };
        if let Some(f) = &self.formula {
            f.cong_avoid_ai(tp, acked);
            return;
        }
        self.update_ai(tp.snd_cwnd);
        let w = tp.snd_cwnd;
        tcp_cong_avoid_ai(tp, w, acked.saturating_mul(self.ai + 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algos::reno::Reno;
    use crate::params::Params;
    use crate::testing::Harness;

    fn harness(cwnd: u32, ssthresh: u32) -> Harness<HighSpeed> {
        let mut h = Harness::with_params(&HighSpeedParams::default(), cwnd);
        h.tp.snd_ssthresh = ssthresh;
        h
    }

    #[test]
    fn table_values_match_rfc_3649() {
        // w ≤ 38: Reno, a = 1, b = 128/256 = 0.5.
        assert_eq!((hstcp_ai(1), hstcp_md(1)), (1, 128));
        assert_eq!((hstcp_ai(38), hstcp_md(38)), (1, 128));
        assert_eq!((hstcp_ai(39), hstcp_md(39)), (2, 112));
        // 851 < 1000 ≤ 1058: row 7, a = 8 (formula 7.7), b = 83/256 = 0.324 (formula 0.33).
        assert_eq!((hstcp_ai(1000), hstcp_md(1000)), (8, 83));
        // Spec check values at the rows themselves.
        assert_eq!((hstcp_ai(1058), hstcp_md(1058)), (8, 83));
        // b(10661) = 52/256 = 0.203 ≈ 0.21.
        assert_eq!((hstcp_ai(10661), hstcp_md(10661)), (30, 52));
        // 79517 < 83000 ≤ 84035: row 70, a = 71 (formula 70.7), b = 25/256 = 0.098 ≈ 0.10.
        assert_eq!((hstcp_ai(83000), hstcp_md(83000)), (71, 25));
        // Beyond the table: the last row.
        assert_eq!((hstcp_ai(10_000_000), hstcp_md(10_000_000)), (72, 24));
    }

    #[test]
    fn decrease_uses_b_of_w() {
        for (cwnd, expected) in [
            (38, 19),       // 38 − ⌊38·128/256⌋ = 38 − 19
            (37, 19),       // 37 − ⌊37·128/256⌋ = 37 − 18 (Reno would give 18)
            (1000, 676),    // 1000 − ⌊83000/256⌋ = 1000 − 324
            (83000, 74895), // 83000 − ⌊2075000/256⌋ = 83000 − 8105
            (3, 2),         // 3 − 1, and never below 2
        ] {
            let mut h = harness(cwnd, 2);
            h.fast_retransmit();
            assert_eq!(h.ssthresh(), expected, "cwnd {cwnd}");
        }
    }

    #[test]
    fn loss_right_after_slow_start_uses_b_of_w() {
        // Linux would halve here (index still 0); RFC 3649 asks for b(1000).
        let mut h = harness(1000, u32::MAX / 2);
        h.loss();
        assert_eq!(h.cwnd(), 676);
    }

    #[test]
    fn per_ack_growth_at_1000_segments() {
        let mut h = harness(1000, 500);
        h.send_all();
        // a = 8: cnt += 8 per ACK; after 125 ACKs cnt = 1000 ≥ cwnd → 1001, cnt 0;
        // 125 more ACKs give cnt = 1000 < 1001.
        h.ack_each(250, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1001, 1000));
        // The rest of the round (750 ACKs, 7 more increments: 8·1000 = 8000 credits
        // against thresholds 1000, 1001, …, 1006 sum 7021; 979 left).
        h.ack_all();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1007, 979));
        assert_eq!(h.cc.ai(), 8);
    }

    #[test]
    fn index_follows_cwnd_down_after_loss() {
        let mut h = harness(1000, 500);
        h.round();
        assert_eq!(h.cc.ai(), 8);
        h.tp.snd_cwnd = 100;
        h.tp.snd_cwnd_cnt = 0;
        h.tp.snd_ssthresh = 50;
        h.round(); // 38 < 100 ≤ 118: a = 2 → +2 per 100 ACKs
        assert_eq!((h.cc.ai(), h.cwnd()), (2, 101));
    }

    #[test]
    fn below_low_window_equals_reno() {
        let mut hs = harness(20, 10);
        let mut reno = Harness::new(Reno, 20);
        reno.tp.snd_ssthresh = 10;
        for _ in 0..10 {
            hs.round();
            reno.round();
            assert_eq!(hs.cwnd(), reno.cwnd());
        }
        assert_eq!(hs.cwnd(), 30);
        // Even window: both halve to 15.
        hs.loss();
        reno.loss();
        assert_eq!((hs.cwnd(), reno.cwnd()), (15, 15));
    }

    #[test]
    fn delayed_acks_count_each_segment() {
        // RFC 3649: a(w) per RTT whatever the ACK ratio. 500 ACKs of 2 segments at
        // w = 1000 credit 500·2·8 = 8000, as 1000 ACKs of 1 do: thresholds 1000,
        // 1001, …, 1006 (sum 7021) → +7, 979 left. (Per ACK it would be +3.)
        let mut h = harness(1000, 500);
        h.send_all();
        h.ack_each(500, 2);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1007, 979));
    }

    #[test]
    fn linux_counts_delayed_acks_once() {
        // Linux counts ACKs: 500 ACKs of 2 segments at w = 1000 add 500·8 = 4000
        // credits: thresholds 1000, 1001, 1002 (3003) → +3, 997 left.
        let mut h = Harness::<HighSpeed>::with_params(&HighSpeedParams::linux(), 1000);
        h.tp.snd_ssthresh = 500;
        h.send_all();
        h.ack_each(500, 2);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (1003, 997));
        assert_eq!(h.cc.table(), &HSTCP_AIMD_VALS[..]);
    }

    #[test]
    fn slow_start_leftover_counts_in_congestion_avoidance() {
        // cwnd 99, ssthresh 100, one ACK of 2 segments: slow start takes cwnd to
        // 100, the other segment is congestion avoidance with a(100) = 2 → 2
        // credits (RFC). Linux drops it (0 credits).
        for (p, credits) in [
            (HighSpeedParams::default(), 2),
            (HighSpeedParams::linux(), 0),
        ] {
            let mut h = Harness::<HighSpeed>::with_params(&p, 99);
            h.tp.snd_ssthresh = 100;
            h.send_all();
            h.ack_each(1, 2);
            assert_eq!(
                (h.cwnd(), h.tp.snd_cwnd_cnt),
                (100, credits),
                "per_ack {}",
                p.per_ack
            );
        }
    }

    #[test]
    fn slow_start_is_standard() {
        let mut h = harness(10, 100);
        h.rounds(3);
        assert_eq!(h.cwnd(), 80);
        // 20 ACKs take cwnd to ssthresh 100; the other 60 are congestion avoidance
        // with a(100) = 2: 120 credits → +1, 20 left.
        h.round();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (101, 20));
    }

    #[test]
    fn default_params_use_the_rfc_table() {
        let hs = HighSpeed::new(&HighSpeedParams::default());
        assert!(matches!(hs.table, Cow::Borrowed(_)));
        assert_eq!(hs.table(), &HSTCP_AIMD_VALS[..]);
    }

    #[test]
    fn generated_table_follows_the_formulas() {
        // Tiny change of High_P: the table is generated. Row 0 is Reno; row i holds
        // the first window where the formula's a(w) ≥ i + 1 and md = ⌊256·b(w)⌋.
        let mut p = HighSpeedParams::default();
        p.set("high_p", 1.000001e-7).unwrap();
        let hs = HighSpeed::new(&p);
        let t = hs.table();
        assert_eq!(t[0], row(38, 128));
        // Exact log-log p(w): a(109) = 1.990 < 2 ≤ a(110) = 2.002; ⌊256·b(110)⌋ = ⌊113.8⌋.
        assert_eq!(t[1], row(110, 113));
        // a(83000) = 72.5 by the exact formula: rows a = 1..72 lie ≤ 83000, one beyond.
        assert_eq!(t.iter().filter(|r| r.cwnd <= 83000).count(), 72);
        assert_eq!(t.len(), 73);
        assert!(t
            .windows(2)
            .all(|w| w[0].cwnd < w[1].cwnd && w[0].md >= w[1].md));
        // High_Decrease = 0.5 keeps b = 1/2 everywhere.
        let mut p = HighSpeedParams::default();
        p.set("high_decrease", 0.5).unwrap();
        let mut h = Harness::<HighSpeed>::with_params(&p, 10_000);
        h.tp.snd_ssthresh = 2;
        h.loss();
        assert_eq!(h.cwnd(), 5000);
    }

    #[test]
    fn bpf_globals_give_the_generated_table_row_by_row() {
        // RFC constants: the program's own copy of the RFC table (rows = 0).
        let hs = HighSpeed::new(&HighSpeedParams::linux());
        assert_eq!(
            hs.bpf_globals(),
            [
                ("per_ack", 1),
                ("response", 0),
                ("formula_low_window", 38),
                ("formula_log2_low_q16", 343928),
                ("formula_log2_cap_q16", 1129911),
                ("formula_b_drop_q32", 154872712),
                ("formula_k_q32", 3423921373),
                ("rows", 0)
            ]
        );
        // Generated (73 rows, see above): rows, then (cwnd, md) of each row.
        let mut p = HighSpeedParams::default();
        p.set("high_p", 1.000001e-7).unwrap();
        let g = HighSpeed::new(&p).bpf_globals();
        assert_eq!(g.len(), 8 + 2 * 73);
        assert_eq!(
            &g[7..12],
            [
                ("rows", 73),
                ("table_cwnd[0]", 38),
                ("table_md[0]", 128),
                ("table_cwnd[1]", 110),
                ("table_md[1]", 113)
            ]
        );
        assert_eq!(g[g.len() - 2].0, "table_cwnd[72]");
        // The formula mode: its constants, no table.
        p.set("response", 1.0).unwrap();
        let g = HighSpeed::new(&p).bpf_globals();
        assert_eq!(g[1], ("response", 1));
        assert_eq!(g[2], ("formula_low_window", 38));
        assert_ne!(g[6], ("formula_k_q32", 3423921373));
        assert_eq!(g[7], ("rows", 0));
        assert_eq!(g.len(), 8);
    }

    // ---- response = 1: RFC 3649 §5's formulas as ns-2 evaluates them ----
    //
    // By hand, with ln 38 = 3.637586, ln 83000 = 11.326596 (span 7.689010),
    // p(38) = 1.5/38² = 1.038781e-3 (ln −6.869707), ln 10⁻⁷ = −16.118096:
    // - b(w) = 0.5 − 0.4·r, r = (ln w − ln 38)/7.689010;
    // - p's log-log slope S = (−16.118096 + 6.869707)/7.689010 = −1.202806, so
    //   w²·p(w) = 1.5·(w/38)^k with k = 2 + S = 0.797194;
    // - a(w) = w²·p(w)·2b/(2 − b).

    /// The formula's (a, b) at w as reals, from the fixed point.
    fn formula_at(w: u32) -> (f64, f64) {
        let f = HstcpFormula::RFC;
        (f.a_q10(w) as f64 / 1024.0, f.b_q32(w) as f64 / 4294967296.0)
    }

    #[track_caller]
    fn assert_formula(w: u32, a: f64, b: f64) {
        let (fa, fb) = formula_at(w);
        // The hand values carry 6 digits; the fixed point is within 0.05 % and 10⁻⁶.
        assert!((fa / a - 1.0).abs() <= 5e-4, "a({w}) = {fa}, by hand {a}");
        assert!((fb - b).abs() <= 2e-6, "b({w}) = {fb}, by hand {b}");
    }

    #[test]
    fn formula_at_the_rfc_check_points() {
        // w ≤ 38: Reno.
        assert_eq!(formula_at(1), (1.0, 0.5));
        assert_eq!(formula_at(38), (1.0, 0.5));
        // w = 1058: r = (6.964136 − 3.637586)/7.689010 = 0.432637, b = 0.326945;
        // (1058/38)^k = e^(3.326550·0.797194) = e^2.651905 = 14.181023, w²p = 21.27153;
        // 2b/(2 − b) = 0.653890/1.673055 = 0.390836; a = 8.31369. (App. A/B's
        // a = 8 follows the rounded p = 0.078/w^1.2: w²p = 20.497, a = 8.01.)
        assert_formula(1058, 8.31369, 0.326945);
        // w = 10661: r = (9.274348 − 3.637586)/7.689010 = 0.733093, b = 0.206763;
        // e^(5.636762·0.797194) = e^4.493591 = 89.442082, w²p = 134.16312;
        // 2b/(2 − b) = 0.413526/1.793237 = 0.230603; a = 30.93838 (App. B: 30).
        assert_formula(10661, 30.93838, 0.206763);
        // w = 83000: r = 1, b = 0.1 = High_Decrease; w²p = 83000²·10⁻⁷ = 688.9;
        // 2b/(2 − b) = 0.2/1.9 = 0.105263; a = 72.51579 (App. A: 70.7, rounded p).
        assert_formula(83000, 72.51579, 0.1);
    }

    #[test]
    fn formula_where_the_table_differs_most() {
        // w = 40: r = (3.688879 − 3.637586)/7.689010 = 0.006671, b = 0.497332;
        // e^(0.051293·0.797194) = e^0.040891 = 1.041738, w²p = 1.56261;
        // 2b/(2 − b) = 0.994664/1.502668 = 0.661931; a = 1.03434. Table: a = 2,
        // b = 112/256 = 0.4375.
        assert_formula(40, 1.03434, 0.497332);
        // w = 100: r = (4.605170 − 3.637586)/7.689010 = 0.125840, b = 0.449664;
        // e^(0.967584·0.797194) = e^0.771352 = 2.162688, w²p = 3.24403;
        // 2b/(2 − b) = 0.899328/1.550336 = 0.580086; a = 1.88182. Table: 2, 0.4375.
        assert_formula(100, 1.88182, 0.449664);
        // w = 200: r = (5.298317 − 3.637586)/7.689010 = 0.215988, b = 0.413605;
        // e^(1.660731·0.797194) = e^1.323925 = 3.758142, w²p = 5.63721;
        // 2b/(2 − b) = 0.827210/1.586395 = 0.521440; a = 2.93947. Table: 3, 0.40625.
        assert_formula(200, 2.93947, 0.413605);
        for w in [40, 100, 200] {
            assert!(formula_at(w).0 < hstcp_ai(w) as f64);
            assert!(formula_at(w).1 > hstcp_md(w) as f64 / 256.0);
        }
    }

    #[test]
    fn formula_decrease_rounds_down_as_ns2() {
        // ns-2: ssthresh = (int)(w − b·w) = ⌊w·(1 − b(w))⌋ (b by hand above).
        for (cwnd, expected) in [
            (100, 55),     // ⌊100·0.550336⌋ = ⌊55.0336⌋ (table: 100 − 43 = 57)
            (200, 117),    // ⌊200·0.586395⌋ = ⌊117.279⌋ (table: 200 − 81 = 119)
            (1000, 670),   // ⌊1000·0.670122⌋ = ⌊670.122⌋ (table: 676)
            (10661, 8456), // ⌊10661·0.793237⌋ = ⌊8456.70⌋ (table: 10661 − 2165 = 8496)
            (38, 19),      // w ≤ 38: ⌊38/2⌋
            (37, 18),      // ⌊37/2⌋ (ns-2: (int)(0.5·37)); the table mode gives 19
            (3, 2),        // never below 2
        ] {
            let mut h = Harness::<HighSpeed>::with_params(&HighSpeedParams::ns2(), cwnd);
            h.tp.snd_ssthresh = 2;
            h.fast_retransmit();
            assert_eq!(h.ssthresh(), expected, "cwnd {cwnd}");
        }
    }

    #[test]
    fn formula_matches_double_precision_within_the_stated_bound() {
        // ns-2's own expressions (tcp.cc reset(), increase_param(), decrease_param()).
        let (lw, hw, hp, hd) = (38f64, 83000f64, 1e-7f64, 0.1f64);
        let low_p = 1.5 / (lw * lw);
        let span = hw.ln() - lw.ln();
        let p2 = (hp.ln() - low_p.ln()) / span;
        let p1 = low_p.ln() - lw.ln() * p2;
        let dec1 = 0.5 - lw.ln() * (hd - 0.5) / span;
        let dec2 = (hd - 0.5) / span;
        let (mut worst_a, mut worst_b) = (0f64, 0f64);
        for w in 39..=100_000u32 {
            let cwnd = w as f64;
            let b = dec1 + cwnd.ln() * dec2;
            let a = cwnd * cwnd * (p1 + cwnd.ln() * p2).exp() / (1.0 / b - 0.5);
            let (fa, fb) = formula_at(w);
            worst_a = worst_a.max((fa / a - 1.0).abs());
            worst_b = worst_b.max((fb - b).abs());
        }
        // Measured: 4.6·10⁻⁴ (at w = 41, a's 2⁻¹⁰ step) and 4.5·10⁻⁷.
        assert!(worst_a <= 5e-4, "a: {worst_a}");
        assert!(worst_b <= 1e-6, "b: {worst_b}");
    }

    #[test]
    fn formula_a_grows_and_b_falls_with_the_window() {
        // Every window up to 2¹⁸: beyond the peak (w ≈ 155 000, log₂ w =
        // 17.24) log₂ w is capped, so a and b no longer change.
        let f = HstcpFormula::RFC;
        let (mut a, mut b) = (f.a_q10(1), f.b_q32(1));
        for w in 2..=1 << 18 {
            let (na, nb) = (f.a_q10(w), f.b_q32(w));
            assert!(na >= a && nb <= b, "w = {w}: a {a} → {na}, b {b} → {nb}");
            (a, b) = (na, nb);
        }
        assert_eq!((f.a_q10(38), f.b_q32(38)), (1024, 1 << 31));
        assert!(f.a_q10(39) > 1024 && f.b_q32(39) < 1 << 31);
        // The peak: a = 79.19 (ns-2: 79.1887 at 155 000), b = 0.06754, held.
        assert_eq!((a, b), (f.a_q10(u32::MAX), f.b_q32(u32::MAX)));
        assert_eq!(a, 81089); // 79.188 · 1024
        assert!(f.a_q10(154_000) < a && f.a_q10(156_000) == a);
    }

    #[test]
    fn formula_constants_of_the_rfc_are_computed_ones() {
        // HstcpFormula::RFC, written out for TCP-Africa's program, is what the
        // general computation gives for the RFC's constants.
        // A High_P 10⁻¹³ away makes new() compute them (k moves by ~10⁻¹⁴).
        let mut p = HighSpeedParams::ns2();
        p.set("high_p", 1.0000000000001e-7).unwrap();
        let computed = HstcpFormula::new(&p);
        assert_eq!(
            HstcpFormula {
                k_q32: HstcpFormula::RFC.k_q32,
                ..computed
            },
            HstcpFormula::RFC
        );
        assert!((computed.k_q32 - HstcpFormula::RFC.k_q32).abs() <= 1);
        assert_eq!(
            HstcpFormula::new(&HighSpeedParams::ns2()),
            HstcpFormula::RFC
        );
        // The exp2 steps: 2^(2^−(i+1))·2³⁰ rounded.
        for (i, &c) in EXP2_STEPS_Q30.iter().enumerate() {
            let exact = (2f64.powf(2f64.powi(-(i as i32 + 1))) * 1073741824.0).round();
            assert_eq!(c, exact as u64, "step {i}");
        }
        // log₂ in Q16 at exact powers and at 38 (5.247928·65536 = 343928.3).
        assert_eq!(log2_q16(1), 0);
        assert_eq!(log2_q16(2), 1 << 16);
        assert_eq!(log2_q16(1 << 20), 20 << 16);
        assert_eq!(log2_q16(38), 343928);
        assert_eq!(log2_q16(u32::MAX), (32 << 16) - 1);
        assert_eq!(exp2_q30(0), 1 << 30);
        assert_eq!(exp2_q30(1 << 23), 1518500250); // √2
        assert_eq!(exp2_q30(3 << 22), (1276901417 * 1518500250) >> 30); // 2^0.75
    }

    #[test]
    fn formula_growth_from_100_to_200_segments_as_integrated_by_hand() {
        // Loss-free congestion avoidance, one ACK per segment, w += a(w)/w per
        // ACK (ns-2's opencwnd()): ACKs from w = 100 to 200 = ∫ w/a(w) dw. By
        // Simpson's rule with a(100) = 1.88182, a(150) = 2.44468 (r = 0.178573,
        // b = 0.428571, w²p = 4.48192, 2b/(2 − b) = 0.545454), a(200) = 2.93947:
        // (100/6)·(100/1.88182 + 4·150/2.44468 + 200/2.93947)
        // = 16.6667·(53.1400 + 245.4309 + 68.0395) = 6110 ACKs (≈ 42 RTTs).
        // The table (a = 2 up to w = 118, then 3): Σ_{100..118} w/2 + Σ_{119..199} w/3
        // = 2071/2 + 12879/3 = 1035.5 + 4293 = 5328.5 ACKs (≈ 36 RTTs).
        for (p, hand) in [
            (HighSpeedParams::ns2(), 6110.0),
            (HighSpeedParams::default(), 5328.5),
        ] {
            let mut h = Harness::<HighSpeed>::with_params(&p, 100);
            h.tp.snd_ssthresh = 2;
            let mut acks = 0;
            while h.cwnd() < 200 {
                h.send_all();
                while h.cwnd() < 200 && h.tp.packets_out > 0 {
                    h.ack_each(1, 1);
                    acks += 1;
                }
            }
            // Integer windows: a(w)/w at w's floor, within 0.2 % of the integral.
            assert!(
                (acks as f64 / hand - 1.0).abs() <= 2e-3,
                "response {}: {acks} ACKs, by hand {hand}",
                p.response
            );
        }
    }

    #[test]
    fn formula_credits_fractions_of_a_segment() {
        // w = 100, a = 1927/1024 (1.88182·1024 = 1927.0): each ACK credits
        // 1927 against 100·1024 = 102400; +1 after ⌈102400/1927⌉ = 54 ACKs,
        // leaving 54·1927 − 102400 = 1658.
        let mut h = Harness::<HighSpeed>::with_params(&HighSpeedParams::ns2(), 100);
        h.tp.snd_ssthresh = 2;
        h.send_all();
        h.ack_each(53, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (100, 53 * 1927));
        h.ack_each(1, 1);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (101, 1658));
        // Per ACK (Linux form): a stretch ACK of 2 counts once.
        let p = HighSpeedParams {
            per_ack: true,
            ..HighSpeedParams::ns2()
        };
        let mut h = Harness::<HighSpeed>::with_params(&p, 100);
        h.tp.snd_ssthresh = 2;
        h.send_all();
        h.ack_each(10, 2);
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (100, 10 * 1927));
        // Below Low_Window: Reno in units of 2⁻¹⁰ segment (+1 per 20 ACKs at 20).
        let mut h = Harness::<HighSpeed>::with_params(&HighSpeedParams::ns2(), 20);
        h.tp.snd_ssthresh = 2;
        h.round();
        assert_eq!((h.cwnd(), h.tp.snd_cwnd_cnt), (21, 0));
    }

    #[test]
    fn response_is_shown_as_a_choice() {
        let spec = HighSpeedParams::specs()
            .into_iter()
            .find(|s| s.name == "response")
            .unwrap();
        assert_eq!((spec.default, spec.min, spec.max), (0.0, 0.0, 1.0));
        assert!(spec.doc.contains("0 = table") && spec.doc.contains("1 = formula"));
        let e = HighSpeedParams::default().set("response", 2.0).unwrap_err();
        assert!(e.to_string().contains("from 0 to 1"), "{e}");
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::registry::CcParams::with("hstcp", &[("low_window", 50.0)]).unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "highspeed");
    }
}

crate::cc_property_suite!(highspeed_properties, HighSpeed);
crate::cc_property_suite!(
    highspeed_formula_properties,
    HighSpeed,
    HighSpeedParams::ns2()
);
