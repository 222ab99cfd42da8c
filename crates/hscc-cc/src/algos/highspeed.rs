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
//! # Table, not formula
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
    }
    order { low_window <= high_window; }
}

impl HighSpeedParams {
    /// Linux `tcp_highspeed.c`: a(w) once per ACK (half the RFC's growth under delayed ACKs).
    pub fn linux() -> HighSpeedParams {
        HighSpeedParams {
            per_ack: true,
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
        let table = if p.rfc_constants() {
            Cow::Borrowed(&HSTCP_AIMD_VALS[..])
        } else {
            Cow::Owned(generate_table(p))
        };
        HighSpeed {
            ai: 0,
            table,
            per_ack: p.per_ack,
        }
    }

    /// `rows` 0 selects the RFC table the program shares (bpf/hstcp_table.h);
    /// a generated table goes row by row into the array globals
    /// `table_cwnd[i]` and `table_md[i]`.
    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let mut out = vec![("per_ack", self.per_ack.into())];
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
        assert_eq!(hs.bpf_globals(), [("per_ack", 1), ("rows", 0)]);
        // Generated (73 rows, see above): rows, then (cwnd, md) of each row.
        let mut p = HighSpeedParams::default();
        p.set("high_p", 1.000001e-7).unwrap();
        let g = HighSpeed::new(&p).bpf_globals();
        assert_eq!(g.len(), 2 + 2 * 73);
        assert_eq!(
            &g[..6],
            [
                ("per_ack", 0),
                ("rows", 73),
                ("table_cwnd[0]", 38),
                ("table_md[0]", 128),
                ("table_cwnd[1]", 110),
                ("table_md[1]", 113)
            ]
        );
        assert_eq!(g[g.len() - 2].0, "table_cwnd[72]");
    }

    #[test]
    fn selectable_by_name_with_params() {
        let p = crate::registry::CcParams::with("hstcp", &[("low_window", 50.0)]).unwrap();
        assert_eq!(crate::registry::Cc::new(&p).name(), "highspeed");
    }
}

crate::cc_property_suite!(highspeed_properties, HighSpeed);
