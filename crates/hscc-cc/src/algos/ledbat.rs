//! LEDBAT, Low Extra Delay Background Transport (Shalunov et al., RFC 6817,
//! 2012), as ns-3's `TcpLedbat` (src/internet/model/tcp-ledbat.cc and
//! tcp-ledbat.h since ns-3.47, commit 609503fb5 "tcp: fix LEDBAT congestion
//! window calculation"; read in full, with `TcpNewReno`'s `SlowStart`,
//! `CongestionAvoidance` and `GetSsThresh` in tcp-congestion-ops.cc and the
//! calls of `TcpSocketBase::ProcessAck`).
//!
//! LEDBAT uses the capacity other traffic leaves and keeps the queue it
//! builds near a target delay. ns-3's version, with the window in bytes:
//!
//! - **One-way delay** per ACK: `rcv_tsval − rcv_tsecr` (u32), the receiver's
//!   clock when it sent the ACK less this sender's when it sent the segment
//!   echoed. It is valid when neither is 0; it is sampled, once an RTT has
//!   been measured, when `rcv_tsval ≥ rcv_tsecr` (`PktsAcked`).
//! - **Noise filter**: the current delay is the smallest of the last
//!   `noise_filter_len − 1` samples. **Base history**: the base delay is the
//!   smallest of up to `base_history_len − 1` slots; a sample lowers the last
//!   slot, and opens a new one when more than 60 s have passed since the
//!   last did (the first slot is the first sample; the clock is the run's).
//!   Both as `AddDelay`: append, then once the buffer holds the length, drop
//!   the oldest, so it keeps one sample fewer than its length.
//! - **Slow start** (`IncreaseWindow`): while cwnd ≤ ssthresh and slow start is
//!   allowed, NewReno's, one segment per ACK. Slow start is allowed at first
//!   (`slow_start`) and again whenever cwnd ≤ one segment; it ends for good
//!   at the first congestion-avoidance step.
//! - **Congestion avoidance** with a valid delay: queue = current − base,
//!   offset = (target − queue)·gain (target + |queue| when current < base),
//!   cwnd += offset·acked·MSS²/(target·cwnd) bytes (one segment per RTT at
//!   zero queue, none at the target, a decrease above it), then at most the
//!   flight before the ACK plus `allowed_increase` segments, at least
//!   `min_cwnd` segments; ssthresh = cwnd − 1 whenever cwnd ≤ ssthresh.
//!   Without a valid delay, NewReno's: + max(1, MSS²/cwnd) bytes per ACK.
//! - **Loss**: NewReno's `GetSsThresh`, max(2 segments, flight/2).
//!
//! # Deviations from ns-3
//! - **Bytes and segments.** ns-3's window and threshold are bytes; hscc's
//!   sender counts segments. The byte window and threshold are the
//!   algorithm's state (`cwnd`, `ssthresh`); `snd_cwnd` is ⌊cwnd/MSS⌋, the
//!   segments ns-3's sender can send, and `snd_ssthresh` ⌊ssthresh/MSS⌋, at
//!   least 2 (every hscc algorithm keeps it there; LEDBAT decides from its
//!   own bytes). When the sender changed `snd_cwnd` or `snd_ssthresh` itself
//!   (recovery, timeout, undo), the bytes restart at segments × MSS (an
//!   infinite `snd_ssthresh`, at u32::MAX, ns-3's initial threshold): what ns-3
//!   keeps below a segment there is lost.
//! - **Integer arithmetic** (the eBPF program has no floating point). The
//!   increase is ⌊cwnd + p·acked·MSS²/(2¹⁶·target·cwnd)⌋, p = offset·gain in
//!   Q16, exact in 128 bits. ns-3 rounds three times in doubles (offset·gain·
//!   acked·MSS, its quotient by target·cwnd, the product with MSS, the sum);
//!   its result differs from the exact floor by at most one byte, and only
//!   when the exact value is an integer or within about cwnd·2⁻⁵¹ of one
//!   (`the_integer_increase_is_ns3s_doubles_within_a_byte`). Out of the u32
//!   range, where ns-3's double-to-u32 conversion is undefined (x86-64 wraps
//!   a negative window to ~4 GiB, which the cap then turns into the flight
//!   size), the window saturates: 0 below (then `min_cwnd`), u32::MAX above
//!   (then the cap).
//! - **Gain and allowed increase in Q16** (ns-3: doubles): rounded to the
//!   nearest 2⁻¹⁶, exact for 1.0 and every multiple of 2⁻¹⁶, within 2⁻¹⁷ of
//!   ns-3's value otherwise; ⌊allowed·MSS⌋ is ns-3's `static_cast<uint32_t>`.
//! - **Bounded filters.** ns-3's are vectors of any length; here the filter
//!   keeps at most 7 samples and the history 10 slots (`noise_filter_len` ≤ 8,
//!   `base_history_len` ≤ 11, one sample fewer than the length, as ns-3): the
//!   state then fits the kernel's `icsk_ca_priv` (104 bytes).
//! - **When ns-3 calls the hooks.** ns-3's `PktsAcked` gets the smoothed RTT
//!   (positive from the first sample on): here `srtt_us > 0`. `IncreaseWindow`
//!   runs for an ACK that advances the cumulative ACK, with the segments it
//!   acknowledges: here `cong_avoid` takes the count `pkts_acked` saw
//!   (cumulatively acknowledged, as ns-3's `segsAcked`, not hscc's
//!   acknowledged-or-SACKed `acked`) and does nothing when it is 0. Like
//!   ns-3 it does not ask whether the sender is cwnd-limited.
//! - **Flight size.** ns-3's `m_bytesInFlight` is the RFC 6675 pipe after the
//!   ACK; here `packets_in_flight()` × MSS, Linux's pipe.
//! - **Loss.** hscc's sender asks `ssthresh()`, which returns Linux's
//!   max(cwnd/2, 2); with `ssthresh_from = "pipe"` (the `ns3` stack profile
//!   sets it for LEDBAT) the sender shows it the segments in flight, which
//!   makes it ns-3's max(2 segments, bytesInFlight/2) in whole segments.
//! - Additions saturate where ns-3's u32 would wrap past 4 GiB.

use crate::helpers::tcp_reno_ssthresh;
use crate::ops::{AckSample, CongestionOps, TcpCc};

crate::params! {
    /// LEDBAT parameters (ns-3 `TcpLedbat`'s attributes).
    pub struct LedbatParams {
        /// Target queueing delay, ms.
        target_delay_ms: u32 = 100, [1, 60_000], "ns-3 tcp-ledbat.cc TargetDelay MilliSeconds(100) (RFC 6817 §2.5.1 TARGET); up to a minute";
        /// Length of the base-delay history (it keeps one slot fewer).
        base_history_len: u32 = 10, [1, 11], "ns-3 tcp-ledbat.cc BaseHistoryLen 10 (RFC 6817 BASE_HISTORY); at most 11: the state fits icsk_ca_priv";
        /// Length of the noise filter of current delays (it keeps one sample fewer).
        noise_filter_len: u32 = 4, [1, 8], "ns-3 tcp-ledbat.cc NoiseFilterLen 4 (RFC 6817 CURRENT_FILTER); at most 8: the state fits icsk_ca_priv";
        /// Gain on the offset from the target, in steps of 2^-16.
        gain: f64 = 1.0, [0.0000152587890625, 16.0], "ns-3 tcp-ledbat.cc Gain DoubleValue(1.0) (RFC 6817 GAIN); Q16, from 2^-16";
        /// Segments the window may exceed the flight before the ACK by, in steps of 2^-16.
        allowed_increase: f64 = 1.0, [0.0000152587890625, 16.0], "ns-3 tcp-ledbat.cc AllowedIncrease DoubleValue(1.0) (RFC 6817 ALLOWED_INCREASE); Q16, from 2^-16";
        /// Whether LEDBAT starts in slow start.
        slow_start: bool = true, [0, 1], "ns-3 tcp-ledbat.cc SSParam DO_SLOWSTART";
        /// Smallest window of the LEDBAT increase, segments.
        min_cwnd: u32 = 2, [1, 65_536], "ns-3 tcp-ledbat.cc MinCwnd UintegerValue(2) (RFC 6817 MIN_CWND); min_cwnd·MSS fits u32";
    }
}

/// ns-3 `LEDBAT_VALID_OWD`: the last ACK had both timestamps.
pub const LEDBAT_VALID_OWD: u32 = 1 << 1;
/// ns-3 `LEDBAT_CAN_SS`: slow start is allowed.
pub const LEDBAT_CAN_SS: u32 = 1 << 3;
/// Samples the noise filter keeps at most (`noise_filter_len` − 1).
pub const NOISE_FILTER_MAX: usize = 7;
/// Slots the base history keeps at most (`base_history_len` − 1).
pub const BASE_HISTORY_MAX: usize = 10;
/// ns-3 `UpdateBaseDelay`: a new slot after `Seconds(60)`, µs.
const ROLLOVER_US: u64 = 60_000_000;

/// ns-3 `OwdCircBuf`: delays, oldest first, and the index of the smallest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwdBuf<const N: usize> {
    /// The delays, ms (the first `len`).
    pub buf: [u32; N],
    /// Delays held.
    pub len: u8,
    /// Index of the smallest (the first of equals).
    pub min: u8,
}

impl<const N: usize> OwdBuf<N> {
    fn new() -> Self {
        OwdBuf {
            buf: [0; N],
            len: 0,
            min: 0,
        }
    }

    /// ns-3 `MinCircBuf`: the smallest delay, u32::MAX when empty.
    pub fn min_delay(&self) -> u32 {
        if self.len == 0 {
            u32::MAX
        } else {
            self.buf[self.min as usize]
        }
    }

    /// ns-3 `AddDelay`: append; once `maxlen` are held drop the oldest and
    /// find the smallest again. The buffer never holds more than
    /// max(maxlen − 1, 1), so it is appended to after the shift.
    fn add(&mut self, owd: u32, maxlen: u32) {
        let len = self.len as usize;
        if len == 0 {
            self.buf[0] = owd;
            self.len = 1;
            self.min = 0;
            return;
        }
        if len + 1 < maxlen as usize {
            self.buf[len] = owd;
            if self.buf[self.min as usize] > owd {
                self.min = len as u8;
            }
            self.len += 1;
            return;
        }
        // Full: the oldest goes, the new one comes; the length stays.
        for i in 1..len {
            self.buf[i - 1] = self.buf[i];
        }
        self.buf[len - 1] = owd;
        self.min = 0;
        for i in 1..len {
            if self.buf[i] < self.buf[self.min as usize] {
                self.min = i as u8;
            }
        }
    }
}

/// cwnd + p·acked·mss²/(2¹⁶·target·cwnd), floored, within [0, u32::MAX]:
/// ns-3's `cwnd += (m_sndCwndCnt / (target·cwnd))·mss` with
/// `m_sndCwndCnt = offset·gain·acked·mss` and p = offset·gain in Q16.
pub fn ledbat_window(cwnd: u32, p: i64, acked: u32, mss: u32, target_ms: u32) -> u32 {
    let t = target_ms as u64 * cwnd as u64;
    if t == 0 {
        return cwnd;
    }
    let n = p.unsigned_abs() as u128 * (acked as u128 * mss as u128 * mss as u128);
    let d = (t as u128) << 16;
    if p >= 0 {
        let q = n / d;
        (cwnd as u128 + q).min(u32::MAX as u128) as u32
    } else {
        let q = n.div_ceil(d);
        if q > cwnd as u128 {
            0
        } else {
            cwnd - q as u32
        }
    }
}

/// LEDBAT state (ns-3 `TcpLedbat`), bytes and ms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledbat {
    target_ms: u32,
    base_history_len: u32,
    noise_filter_len: u32,
    gain_q16: u32,
    allowed_increase_q16: u32,
    slow_start: bool,
    min_cwnd: u32,
    /// ns-3 `m_lastRollover`: when the last base-history slot opened, µs.
    pub last_rollover_us: u64,
    /// ns-3's `m_cWnd`, bytes.
    pub cwnd: u32,
    /// ns-3's `m_ssThresh`, bytes.
    pub ssthresh: u32,
    /// `snd_cwnd` as last set or seen (the sender changed it when it differs).
    pub cwnd_seen: u32,
    /// `snd_ssthresh` as last set or seen.
    pub ssthresh_seen: u32,
    /// `LEDBAT_*` flags (ns-3 `m_flag`).
    pub flag: u32,
    /// Segments the last ACK acknowledged cumulatively (ns-3's `segsAcked`).
    pub acked: u32,
    /// ns-3 `m_noiseFilter`.
    pub noise: OwdBuf<NOISE_FILTER_MAX>,
    /// ns-3 `m_baseHistory`.
    pub base: OwdBuf<BASE_HISTORY_MAX>,
}

/// Segments as bytes; u32::MAX for what does not fit (an infinite ssthresh).
fn bytes(segments: u32, mss: u32) -> u32 {
    segments.saturating_mul(mss)
}

impl Ledbat {
    /// Take the sender's own changes of `snd_cwnd` and `snd_ssthresh`.
    fn sync(&mut self, tp: &TcpCc) {
        if tp.snd_cwnd != self.cwnd_seen {
            self.cwnd = bytes(tp.snd_cwnd, tp.mss_cache);
            self.cwnd_seen = tp.snd_cwnd;
        }
        if tp.snd_ssthresh != self.ssthresh_seen {
            self.ssthresh = bytes(tp.snd_ssthresh, tp.mss_cache);
            self.ssthresh_seen = tp.snd_ssthresh;
        }
    }

    /// ns-3 `UpdateBaseDelay`.
    fn update_base_delay(&mut self, owd: u32, now_us: u64) {
        if self.base.len == 0 {
            self.base.add(owd, self.base_history_len);
            return;
        }
        if now_us.wrapping_sub(self.last_rollover_us) > ROLLOVER_US {
            self.last_rollover_us = now_us;
            self.base.add(owd, self.base_history_len);
            return;
        }
        let last = self.base.len as usize - 1;
        if owd < self.base.buf[last] {
            self.base.buf[last] = owd;
            if owd < self.base.buf[self.base.min as usize] {
                self.base.min = last as u8;
            }
        }
    }

    /// ns-3 `TcpLedbat::CongestionAvoidance`.
    fn congestion_avoidance(&mut self, tp: &TcpCc, acked: u32) {
        let mss = tp.mss_cache;
        if self.flag & LEDBAT_VALID_OWD == 0 {
            // TcpNewReno::CongestionAvoidance: max(1, MSS²/cwnd) bytes per ACK.
            let adder = mss.wrapping_mul(mss).checked_div(self.cwnd).unwrap_or(0);
            self.cwnd = self.cwnd.saturating_add(adder.max(1));
            return;
        }
        let current = self.noise.min_delay();
        let base = self.base.min_delay();
        let target = self.target_ms as i64;
        let offset = if current > base {
            target - (current - base) as i64
        } else {
            target + (base - current) as i64
        };
        let p = offset * self.gain_q16 as i64;
        let cwnd = ledbat_window(self.cwnd, p, acked, mss, self.target_ms);
        // The flight before this ACK, as ns-3's bytesInFlight + segsAcked·MSS.
        let flight = tp
            .packets_in_flight()
            .wrapping_mul(mss)
            .wrapping_add(acked.wrapping_mul(mss));
        let allowed = ((self.allowed_increase_q16 as u64 * mss as u64) >> 16) as u32;
        let max_cwnd = flight.wrapping_add(allowed);
        self.cwnd = cwnd.min(max_cwnd).max(self.min_cwnd.wrapping_mul(mss));
        if self.cwnd <= self.ssthresh {
            self.ssthresh = self.cwnd.wrapping_sub(1);
            // cong_avoid shows it as snd_ssthresh.
            self.ssthresh_seen = (self.ssthresh / mss).max(2);
        }
    }
}

impl CongestionOps for Ledbat {
    const NAME: &'static str = "ledbat";
    type Params = LedbatParams;

    fn new(p: &LedbatParams) -> Self {
        Ledbat {
            target_ms: p.target_delay_ms,
            base_history_len: p.base_history_len,
            noise_filter_len: p.noise_filter_len,
            gain_q16: (p.gain * 65536.0).round() as u32,
            allowed_increase_q16: (p.allowed_increase * 65536.0).round() as u32,
            slow_start: p.slow_start,
            min_cwnd: p.min_cwnd,
            last_rollover_us: 0,
            cwnd: 0,
            ssthresh: 0,
            cwnd_seen: 0,
            ssthresh_seen: 0,
            flag: 0,
            acked: 0,
            noise: OwdBuf::new(),
            base: OwdBuf::new(),
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("target_ms", self.target_ms.into()),
            ("base_history_len", self.base_history_len.into()),
            ("noise_filter_len", self.noise_filter_len.into()),
            ("gain_q16", self.gain_q16.into()),
            ("allowed_increase_q16", self.allowed_increase_q16.into()),
            ("slow_start", self.slow_start.into()),
            ("min_cwnd", self.min_cwnd.into()),
        ]
    }

    fn init(&mut self, tp: &mut TcpCc) {
        self.last_rollover_us = 0;
        self.cwnd = bytes(tp.snd_cwnd, tp.mss_cache);
        self.ssthresh = bytes(tp.snd_ssthresh, tp.mss_cache);
        self.cwnd_seen = tp.snd_cwnd;
        self.ssthresh_seen = tp.snd_ssthresh;
        // ns-3 SetDoSs: slow start allowed or not from the start.
        self.flag = if self.slow_start { LEDBAT_CAN_SS } else { 0 };
        self.acked = 0;
        self.noise = OwdBuf::new();
        self.base = OwdBuf::new();
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        tcp_reno_ssthresh(tp)
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        self.acked = sample.pkts_acked;
        if tp.rcv_tsval == 0 || tp.rcv_tsecr == 0 {
            self.flag &= !LEDBAT_VALID_OWD;
        } else {
            self.flag |= LEDBAT_VALID_OWD;
        }
        if tp.srtt_us > 0 && tp.rcv_tsval >= tp.rcv_tsecr {
            let owd = tp.rcv_tsval - tp.rcv_tsecr;
            self.noise.add(owd, self.noise_filter_len);
            self.update_base_delay(owd, tp.now_us);
        }
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, _ack: u32, _acked: u32) {
        self.sync(tp);
        let acked = self.acked;
        if acked == 0 {
            return;
        }
        let mss = tp.mss_cache;
        // ns-3 TcpLedbat::IncreaseWindow.
        if self.cwnd <= mss {
            self.flag |= LEDBAT_CAN_SS;
        }
        if self.slow_start && self.cwnd <= self.ssthresh && self.flag & LEDBAT_CAN_SS != 0 {
            // TcpNewReno::SlowStart: one segment per ACK.
            self.cwnd = self.cwnd.saturating_add(mss);
        } else {
            self.flag &= !LEDBAT_CAN_SS;
            self.congestion_avoidance(tp, acked);
            tp.snd_ssthresh = self.ssthresh_seen;
        }
        tp.snd_cwnd = self.cwnd / mss;
        self.cwnd_seen = tp.snd_cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Harness, MSS};

    /// A LEDBAT at 100 ms RTT, 10 s into the run, ACKs 50 ms after their
    /// segments (no queue); `slow_start` as given.
    fn harness(slow_start: bool) -> Harness<Ledbat> {
        let p = LedbatParams {
            slow_start,
            ..LedbatParams::default()
        };
        let mut h = Harness::with_params(&p, 10);
        h.set_rtt_ms(100);
        h.owd_us = Some(50_000);
        h.advance_ms(10_000);
        h
    }

    /// One ACK of one segment, then send what cwnd allows.
    fn ack(h: &mut Harness<Ledbat>) {
        if h.tp.packets_out == 0 {
            h.send_all();
            h.advance_ms(100);
        }
        h.ack_each(1, 1);
        h.send_all();
    }

    #[test]
    fn slow_start_is_newrenos_until_cwnd_passes_ssthresh_then_never_again_above_a_segment() {
        let mut h = harness(true);
        assert_eq!((h.cc.cwnd, h.cc.ssthresh), (14_480, u32::MAX));
        // NewReno's slow start: one segment per ACK, 10 → 20 in a round.
        h.clocked_round();
        assert_eq!((h.cc.cwnd, h.cwnd()), (28_960, 20));
        // Reno's halving (the sender's); the bytes restart from its segments.
        h.loss();
        assert_eq!((h.cwnd(), h.ssthresh()), (10, 10));
        // cwnd ≤ ssthresh (14 480 bytes both) and slow start still allowed.
        ack(&mut h);
        assert_eq!((h.cc.cwnd, h.cc.ssthresh), (15_928, 14_480));
        assert_ne!(h.cc.flag & LEDBAT_CAN_SS, 0);
        // Above ssthresh: LEDBAT's increase, and slow start is over:
        // + ⌊100·1448²/(100·15 928)⌋ = 131 bytes.
        ack(&mut h);
        assert_eq!((h.cc.cwnd, h.cwnd()), (16_059, 11));
        assert_eq!(h.cc.flag & LEDBAT_CAN_SS, 0);
        // A timeout (ssthresh max(11/2, 2) = 5, cwnd 1): at one segment slow
        // start is allowed again.
        h.timeout();
        ack(&mut h);
        assert_eq!((h.cc.cwnd, h.cc.ssthresh, h.cwnd()), (2_896, 7_240, 2));
        assert_ne!(h.cc.flag & LEDBAT_CAN_SS, 0);
    }

    #[test]
    fn at_zero_queueing_delay_the_window_grows_about_a_segment_per_rtt() {
        let mut h = harness(false);
        h.clocked_round();
        // offset = target: + ⌊1448²/cwnd⌋ per ACK: 14 480 + 144, + 143, + 141,
        // …, 15 863 after ten (10.96 segments).
        assert_eq!(h.cc.cwnd, 15_863);
        assert_eq!(h.cwnd(), 10);
        // ssthresh = cwnd − 1 while cwnd ≤ ssthresh: once, at the first ACK.
        assert_eq!((h.cc.ssthresh, h.ssthresh()), (14_623, 10));
        h.clocked_round();
        assert_eq!(h.cwnd(), 11);
    }

    #[test]
    fn at_the_target_it_holds_and_above_it_shrinks_to_min_cwnd() {
        let mut h = harness(false);
        h.send_all();
        h.advance_ms(100);
        // Base 50 ms: + 144.
        ack(&mut h);
        assert_eq!(h.cc.cwnd, 14_624);
        // 150 ms (a 100-ms queue): the filter's minimum is 50 while it holds
        // a 50 (+ ⌊1448²/14 624⌋ = 143, then + 141), then 150: offset 0.
        h.owd_us = Some(150_000);
        ack(&mut h);
        ack(&mut h);
        assert_eq!(h.cc.cwnd, 14_908);
        ack(&mut h);
        assert_eq!(h.cc.noise.min_delay(), 150);
        assert_eq!(h.cc.cwnd, 14_908);
        for _ in 0..20 {
            ack(&mut h);
        }
        assert_eq!(h.cc.cwnd, 14_908);
        // 250 ms: offset −100, − ⌈1448²/14 908⌉ = −141 once the filter is all 250.
        h.owd_us = Some(250_000);
        ack(&mut h);
        ack(&mut h);
        assert_eq!(h.cc.cwnd, 14_908);
        ack(&mut h);
        assert_eq!(h.cc.cwnd, 14_767);
        for _ in 0..200 {
            ack(&mut h);
        }
        // MinCwnd: 2 segments; ssthresh 2 895 bytes, shown as 2.
        assert_eq!((h.cc.cwnd, h.cwnd()), (2_896, 2));
        assert_eq!((h.cc.ssthresh, h.ssthresh()), (2_895, 2));
    }

    #[test]
    fn the_window_is_at_most_the_flight_before_the_ack_plus_one_segment() {
        let mut h = harness(false);
        h.send(2);
        h.advance_ms(100);
        h.ack_each(1, 1);
        // Two in flight before the ACK: 2·1448 + 1448.
        assert_eq!((h.cc.cwnd, h.cwnd()), (4_344, 3));
        // A quarter segment allowed: ⌊0.25·1448⌋ = 362.
        let p = LedbatParams {
            slow_start: false,
            allowed_increase: 0.25,
            ..LedbatParams::default()
        };
        let mut h = Harness::<Ledbat>::with_params(&p, 10);
        h.advance_ms(10_000);
        h.send(2);
        h.advance_ms(100);
        h.ack_each(1, 1);
        assert_eq!(h.cc.cwnd, 2 * 1448 + 362);
    }

    #[test]
    fn the_noise_filter_keeps_one_sample_fewer_than_its_length() {
        let mut b = OwdBuf::<NOISE_FILTER_MAX>::new();
        assert_eq!(b.min_delay(), u32::MAX);
        for owd in [50, 40, 60] {
            b.add(owd, 4);
        }
        assert_eq!((&b.buf[..3], b.len, b.min), (&[50, 40, 60][..], 3, 1));
        // The fourth drops the first; the smallest is found again.
        b.add(70, 4);
        assert_eq!((&b.buf[..3], b.min_delay()), (&[40, 60, 70][..], 40));
        b.add(80, 4);
        assert_eq!((&b.buf[..3], b.min_delay()), (&[60, 70, 80][..], 60));
        // Equal delays: the first is the minimum.
        b.add(60, 4);
        assert_eq!((&b.buf[..3], b.min), (&[70, 80, 60][..], 2));
        // Length 1 keeps the last sample.
        let mut one = OwdBuf::<NOISE_FILTER_MAX>::new();
        for owd in [30, 90, 70] {
            one.add(owd, 1);
        }
        assert_eq!((one.len, one.min_delay()), (1, 70));
        // The largest length fills the array.
        let mut full = OwdBuf::<NOISE_FILTER_MAX>::new();
        for owd in (1..=20).rev() {
            full.add(owd, NOISE_FILTER_MAX as u32 + 1);
        }
        assert_eq!((full.len as usize, full.min_delay()), (NOISE_FILTER_MAX, 1));
    }

    /// `pkts_acked` with a sample at `now_s`, of delay `owd` (TSecr 1000).
    fn sample(l: &mut Ledbat, tp: &mut TcpCc, now_us: u64, owd: u32) {
        tp.now_us = now_us;
        tp.rcv_tsecr = 1_000;
        tp.rcv_tsval = 1_000 + owd;
        l.pkts_acked(tp, &AckSample::default());
    }

    #[test]
    fn the_base_history_opens_a_slot_after_sixty_seconds_since_the_run_began() {
        let p = LedbatParams {
            base_history_len: 3,
            ..LedbatParams::default()
        };
        let mut l = Ledbat::new(&p);
        let mut tp = TcpCc::new(MSS, 10);
        l.init(&mut tp);
        tp.srtt_us = 100_000 << 3;
        // The first sample is the first slot; later ones lower the last slot.
        sample(&mut l, &mut tp, 1_000_000, 50);
        sample(&mut l, &mut tp, 30_000_000, 40);
        sample(&mut l, &mut tp, 31_000_000, 45);
        assert_eq!((&l.base.buf[..1], l.base.len), (&[40][..], 1));
        // The last rollover is the run's start: 60 s after it is not more.
        sample(&mut l, &mut tp, 60_000_000, 70);
        assert_eq!(l.base.len, 1);
        sample(&mut l, &mut tp, 60_000_001, 70);
        assert_eq!(
            (&l.base.buf[..2], l.last_rollover_us),
            (&[40, 70][..], 60_000_001)
        );
        assert_eq!(l.base.min_delay(), 40);
        // The next slot 60 s after that; length 3 keeps two, so 40 goes.
        sample(&mut l, &mut tp, 120_000_001, 90);
        assert_eq!((l.base.len, l.base.min_delay()), (2, 40));
        sample(&mut l, &mut tp, 120_000_002, 90);
        assert_eq!((&l.base.buf[..2], l.base.min_delay()), (&[70, 90][..], 70));
        // A lower delay in the last slot becomes the base.
        sample(&mut l, &mut tp, 130_000_000, 60);
        assert_eq!((&l.base.buf[..2], l.base.min_delay()), (&[70, 60][..], 60));
    }

    #[test]
    fn only_acks_with_both_timestamps_and_an_rtt_and_tsval_not_below_tsecr_give_samples() {
        let mut l = Ledbat::new(&LedbatParams::default());
        let mut tp = TcpCc::new(MSS, 10);
        l.init(&mut tp);
        // No RTT yet: valid, but no sample.
        sample(&mut l, &mut tp, 1_000_000, 50);
        assert_eq!(
            (l.flag & LEDBAT_VALID_OWD, l.noise.len),
            (LEDBAT_VALID_OWD, 0)
        );
        tp.srtt_us = 8;
        // TSval below TSecr: no sample (ns-3's u32 difference would wrap).
        tp.rcv_tsval = 999;
        l.pkts_acked(&mut tp, &AckSample::default());
        assert_eq!(l.noise.len, 0);
        // A zero TSecr: not valid (the sample is taken all the same).
        tp.rcv_tsval = 20;
        tp.rcv_tsecr = 0;
        l.pkts_acked(&mut tp, &AckSample::default());
        assert_eq!((l.flag & LEDBAT_VALID_OWD, l.noise.min_delay()), (0, 20));
    }

    #[test]
    fn without_timestamps_congestion_avoidance_is_newrenos() {
        let mut h = harness(false);
        h.timestamps = false;
        h.send_all();
        h.advance_ms(100);
        // + max(1, ⌊1448²/cwnd⌋) per ACK, no cap.
        for want in [14_624, 14_767, 14_908] {
            h.ack_each(1, 1);
            assert_eq!(h.cc.cwnd, want);
        }
        assert_eq!(h.cc.flag & LEDBAT_VALID_OWD, 0);
        // ns-3 samples 0 − 0 all the same; it is not used.
        assert_eq!(h.cc.noise.min_delay(), 0);
        // Far beyond MSS²: one byte per ACK.
        h.tp.snd_cwnd = 3_000;
        h.ack_each(1, 1);
        assert_eq!(h.cc.cwnd, 3_000 * MSS + 1);
    }

    /// ns-3's `CongestionAvoidance` arithmetic in doubles, None where its
    /// conversion to u32 is undefined.
    fn ns3_window(
        cwnd: u32,
        offset: i64,
        gain: f64,
        acked: u32,
        mss: u32,
        target: i64,
    ) -> Option<u32> {
        let mut off = offset as f64;
        off *= gain;
        let cnt = off * acked as f64 * mss as f64;
        let inc = cnt / (target * cwnd as i64) as f64;
        let x = cwnd as f64 + inc * mss as f64;
        (0.0..4_294_967_296.0).contains(&x).then_some(x as u32)
    }

    #[test]
    fn the_integer_increase_is_ns3s_doubles_within_a_byte() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % n
        };
        let (mut off_by_one, mut n) = (0, 0);
        for _ in 0..200_000 {
            let mss = [536, 1448, 1460, 8948, 65_483][next(5) as usize];
            let cwnd = mss + next(1 << 26) as u32;
            let target = [25, 100, 1000][next(3) as usize];
            let offset = next(20_001) as i64 - 10_000;
            let gain_q16 = [65_536, 32_768, 49_152, 3, 65_536 * 16][next(5) as usize];
            let acked = 1 + next(64) as u32;
            let exact = ledbat_window(cwnd, offset * gain_q16 as i64, acked, mss, target as u32);
            match ns3_window(cwnd, offset, gain_q16 as f64 / 65_536.0, acked, mss, target) {
                Some(w) => {
                    n += 1;
                    assert!(
                        w.abs_diff(exact) <= 1,
                        "{cwnd} {offset} {gain_q16} {acked} {mss} {target}: {w} vs {exact}"
                    );
                    off_by_one += (w != exact) as u32;
                }
                // Out of range: saturated.
                None => assert!(exact == 0 || exact == u32::MAX),
            }
        }
        assert!(n > 150_000);
        // Rare: an exact value at (or within rounding of) an integer.
        assert!(off_by_one < n / 1000, "{off_by_one} of {n}");
    }

    #[test]
    fn the_window_saturates_where_ns3s_conversion_is_undefined() {
        // 1 s of queue at two segments: offset −900, −⌈900·1448²/(100·2896)⌉
        // = −6516 bytes from 2896: 0 (then min_cwnd).
        assert_eq!(ledbat_window(2_896, -900 << 16, 1, MSS, 100), 0);
        // 2^32 of base (a delay that wrapped): u32::MAX (then the cap).
        assert_eq!(
            ledbat_window(2_896, (u32::MAX as i64 + 100) << 16, 64, MSS, 100),
            u32::MAX
        );
    }
}

crate::cc_property_suite!(ledbat_properties, Ledbat);
