//! Retransmission-timeout estimators: RFC 6298's and Linux's.
//!
//! RFC 6298: SRTT ← 7/8·SRTT + 1/8·R, RTTVAR ← 3/4·RTTVAR + 1/4·|SRTT − R|
//! (§2.3), RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)) (§2.2–2.4), with G = 1 µs
//! (hscc's clock resolution for RTT samples).
//!
//! Linux (`tcp_rtt_estimator`, `__tcp_set_rto` in net/ipv4/tcp_input.c): the same
//! SRTT; a mean deviation `mdev` (kept as 4× the deviation, so that it is added
//! to SRTT as is; a sample below SRTT moves it with gain 1/32 instead of 1/4),
//! whose largest value over the current round trip, never less than min_rto,
//! gives `rttvar` (raised at once, lowered by a quarter of the gap once per
//! round trip); RTO = SRTT + rttvar. So Linux's RTO is never below SRTT +
//! min_rto, where RFC 6298's can come down to max(min_rto, SRTT + a few ms): with
//! a queue that makes the RTT steady and large, a retransmission that waits in it
//! times out under RFC 6298 and not in Linux (docs/validation/kernel.md, 10 Mbit/s).
//!
//! ns-2.35's RFC 6298 estimator in clock ticks (`rto_tick` > 0; tcp/tcp.cc
//! `rtt_update`, `rtt_timeout`, with `tcpTick_`): the sample is counted in
//! whole ticks, at least one; SRTT is kept as 8× and RTTVAR as 4× their
//! value in ticks, integers (`T_SRTT_BITS` 3, `T_RTTVAR_BITS` 2); RTO =
//! ⌊SRTT + 4·RTTVAR⌋ ticks, then at least min_rto, backed off, at least two
//! ticks. So a 240-ms path's RTTVAR keeps a tick or more where the exact
//! estimator's falls to microseconds.
//!
//! Both: exponential backoff (RFC 6298 §5.5) up to Linux's `TCP_RTO_MAX` of
//! 120 s. Which ACKs give a sample is the caller's (`rtt_sampling`): every
//! one that can, as Linux does with timestamps (RFC 7323 §4.2), or one timed
//! segment per round trip as ns-2; the caller applies Karn's rule (§3).

use crate::time::{Time, US};
pub use hscc_model::tcp::{RtoEstimator, RtoRestart, RttSampling, MAX_RTO};

const GRANULARITY: Time = US;

/// SRTT/RTTVAR state and the current RTO.
#[derive(Clone, Copy, Debug)]
pub struct RttEstimator {
    kind: RtoEstimator,
    srtt: Time,
    /// RFC 6298's RTTVAR; Linux's `rttvar_us`.
    rttvar: Time,
    /// Linux's `mdev_us` and `mdev_max_us` (4× the mean deviation), and `rtt_seq`:
    /// the round trip whose largest deviation `mdev_max` is, ends when snd_una passes it.
    mdev: Time,
    mdev_max: Time,
    rtt_seq: u64,
    min_rto: Time,
    rto: Time,
    /// Smallest sample of any ACK, whether the estimator takes it or not: the
    /// sender keeps it (`note_min_rtt`), the estimator leaves it alone.
    pub min_rtt: Time,
    /// Most recent sample the estimator took.
    pub latest: Time,
    /// ns-2's clock tick and its state in ticks (0: exact times).
    tick: Time,
    ticks: TickState,
}

/// ns-2's `t_srtt_` (8× SRTT) and `t_rttvar_` (4× RTTVAR), in ticks.
#[derive(Clone, Copy, Debug, Default)]
struct TickState {
    srtt8: i64,
    rttvar4: i64,
}

/// ns-2's `T_SRTT_BITS` and `T_RTTVAR_BITS` (tcl/lib/ns-default.tcl).
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// ns-2's `rttvar_exp_`: RTO = SRTT + 2^2·RTTVAR.
const RTTVAR_EXP: u32 = 2;

impl RttEstimator {
    /// Before any sample: RTO = `initial_rto` (RFC 6298 §2.1).
    pub fn new(kind: RtoEstimator, min_rto: Time, initial_rto: Time) -> Self {
        Self::with_tick(kind, min_rto, initial_rto, 0)
    }

    /// As [`RttEstimator::new`], with ns-2's clock tick `tick` (0: none).
    pub fn with_tick(kind: RtoEstimator, min_rto: Time, initial_rto: Time, tick: Time) -> Self {
        RttEstimator {
            tick,
            ticks: TickState::default(),
            kind,
            srtt: 0,
            rttvar: 0,
            mdev: 0,
            mdev_max: 0,
            rtt_seq: 0,
            min_rto,
            rto: initial_rto,
            min_rtt: Time::MAX,
            latest: 0,
        }
    }

    /// Whether the estimator counts in ns-2's ticks.
    pub fn ticked(&self) -> bool {
        self.tick > 0
    }

    /// The sample `r` as both estimators take it (at least 1 ps), kept as the latest.
    #[inline]
    fn take(&mut self, r: Time) -> Time {
        self.latest = r.max(1);
        self.latest
    }

    /// Feed one RTT measurement `r` taken at `now` to the ticked estimator
    /// (ns-2 `rtt_update`): `r` in ticks is, from an echoed timestamp
    /// (`from_echo`), rounded (`int(tao / tcp_tick_ + 0.5)`), else the ticks
    /// the clock crossed since the segment left (`int((tao + tickoff) /
    /// tcp_tick_)`, `tickoff` the send time's offset in its tick: ns-2's random
    /// `boot_time_` taken as 0).
    pub fn tick_sample(&mut self, r: Time, now: Time, from_echo: bool) {
        let r = self.take(r);
        let t = self.tick;
        let ticks = if from_echo {
            (r + t / 2) / t
        } else {
            now / t - (now - r) / t
        };
        self.update_ticks(ticks.max(1) as i64);
    }

    /// ns-2 `rtt_update` from a sample of `m` ticks: the first sets SRTT = m and
    /// RTTVAR = m/2; later ones move them by 1/8 and 1/4 of the error, in the
    /// scaled integers, neither below 1; `t_rtxcur_` = ⌊SRTT + 4·RTTVAR⌋ ticks.
    fn update_ticks(&mut self, m: i64) {
        let k = &mut self.ticks;
        if k.srtt8 != 0 {
            let mut delta = m - (k.srtt8 >> SRTT_BITS);
            k.srtt8 = (k.srtt8 + delta).max(1);
            delta = delta.abs() - (k.rttvar4 >> RTTVAR_BITS);
            k.rttvar4 = (k.rttvar4 + delta).max(1);
        } else {
            k.srtt8 = m << SRTT_BITS;
            k.rttvar4 = m << (RTTVAR_BITS - 1);
        }
        let rtxcur = ((k.rttvar4 << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + k.srtt8) >> SRTT_BITS;
        self.srtt = k.srtt8 as Time * self.tick / 8;
        self.rttvar = k.rttvar4 as Time * self.tick / 4;
        // rtt_timeout (rfc2988_ true): min_rto before the backoff.
        self.rto = (rtxcur as Time * self.tick).max(self.min_rto).min(MAX_RTO);
    }

    /// The timer backed off to 2^`backoff` (ns-2 `rtt_backoff`): past 8×, the
    /// ticked estimator folds SRTT into RTTVAR and restarts from its next
    /// sample; the RTO in force stays until then.
    pub fn backed_off(&mut self, backoff: u32) {
        if self.ticked() && backoff > 3 {
            let k = &mut self.ticks;
            k.rttvar4 += k.srtt8 >> SRTT_BITS;
            k.srtt8 = 0;
        }
    }

    /// Feed one RTT measurement, taken when the sender's `snd_una` and `snd_nxt`
    /// (segments) are as given (Linux's estimator counts round trips by them).
    pub fn sample(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        let r = self.take(r);
        self.rto = match self.kind {
            RtoEstimator::Rfc6298 => {
                if self.srtt == 0 {
                    self.srtt = r;
                    self.rttvar = r / 2;
                } else {
                    let err = self.srtt.abs_diff(r);
                    self.rttvar = (3 * self.rttvar + err) / 4;
                    self.srtt = (7 * self.srtt + r) / 8;
                }
                (self.srtt + GRANULARITY.max(4 * self.rttvar)).max(self.min_rto)
            }
            RtoEstimator::Linux => {
                self.linux_sample(r, snd_una, snd_nxt);
                self.srtt + self.rttvar
            }
        }
        .min(MAX_RTO);
    }

    /// Linux `tcp_rtt_estimator` (in picoseconds where Linux counts microseconds).
    fn linux_sample(&mut self, r: Time, snd_una: u64, snd_nxt: u64) {
        if self.srtt == 0 {
            self.srtt = r;
            self.mdev = 2 * r; // "make sure rto = 3*rtt"
            self.rttvar = self.mdev.max(self.min_rto);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
            return;
        }
        let err = r as i64 - self.srtt as i64;
        self.srtt = (self.srtt as i64 + err / 8).max(1) as Time;
        let quarter = (self.mdev / 4) as i64;
        let step = if err < 0 {
            // A sample below SRTT moves the deviation with gain 1/32 only (Linux's Eifel-like damping).
            let m = -err - quarter;
            if m > 0 {
                m / 8
            } else {
                m
            }
        } else {
            err - quarter
        };
        self.mdev = (self.mdev as i64 + step).max(0) as Time;
        if self.mdev > self.mdev_max {
            self.mdev_max = self.mdev;
            self.rttvar = self.rttvar.max(self.mdev_max);
        }
        if snd_una > self.rtt_seq {
            if self.mdev_max < self.rttvar {
                self.rttvar -= (self.rttvar - self.mdev_max) / 4;
            }
            self.rtt_seq = snd_nxt;
            self.mdev_max = self.min_rto;
        }
    }

    /// Smoothed RTT (0 before the first sample).
    pub fn srtt(&self) -> Time {
        self.srtt
    }

    /// RTO after `backoff` doublings (with ticks, at least two: ns-2 `rtt_timeout`).
    pub fn rto(&self, backoff: u32) -> Time {
        self.rto
            .saturating_mul(1 << backoff.min(16))
            .min(MAX_RTO)
            .max(2 * self.tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;
    use crate::time::SEC;

    #[test]
    fn first_sample_and_update_follow_rfc6298() {
        let mut e = RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC);
        assert_eq!(e.rto(0), SEC);
        e.sample(100 * MS, 0, 0);
        // SRTT = 100, RTTVAR = 50, RTO = 100 + 200 = 300 ms.
        assert_eq!(e.rto(0), 300 * MS);
        e.sample(180 * MS, 0, 0);
        // RTTVAR = (3·50 + 80)/4 = 57.5, SRTT = (7·100 + 180)/8 = 110, RTO = 110 + 230 = 340 ms.
        assert_eq!(e.srtt(), 110 * MS);
        assert_eq!(e.rto(0), 340 * MS);
        assert_eq!(e.rto(2), 1360 * MS);
    }

    #[test]
    fn min_rto_and_max_rto_bound() {
        let mut e = RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC);
        for _ in 0..50 {
            e.sample(MS, 0, 0);
        }
        assert_eq!(e.rto(0), 200 * MS);
        assert_eq!(e.rto(12), MAX_RTO);
    }

    #[test]
    fn ns2_ticks_round_an_echo_and_count_the_ticks_crossed_without_one() {
        // 10-ms ticks, min_rto 200 ms. From an echo, 14.9 ms rounds to 1 tick;
        // timed without one, the same 14.9 ms from 5 ms to 19.9 ms crosses 1 tick, and
        // from 9 ms to 23.9 ms crosses 2.
        let tick = 10 * MS;
        let mut e = RttEstimator::with_tick(RtoEstimator::Rfc6298, 200 * MS, SEC, tick);
        e.tick_sample(14_900 * US, 15 * MS, true);
        assert_eq!(e.srtt(), tick);
        let mut e = RttEstimator::with_tick(RtoEstimator::Rfc6298, 200 * MS, SEC, tick);
        e.tick_sample(14_900 * US, 19_900 * US, false);
        assert_eq!(e.srtt(), tick);
        let mut e = RttEstimator::with_tick(RtoEstimator::Rfc6298, 200 * MS, SEC, tick);
        e.tick_sample(14_900 * US, 23_900 * US, false);
        assert_eq!(e.srtt(), 2 * tick);
        // t_srtt_ 16, t_rttvar_ 4: t_rtxcur_ = (32 + 16) >> 3 = 6 ticks, below minrto_.
        assert_eq!(e.rto(0), 200 * MS);
        assert_eq!(e.rto(1), 400 * MS);
    }

    #[test]
    fn ns2_ticks_keep_rttvar_at_three_quarters_of_a_tick_where_exact_time_lets_it_vanish() {
        // A steady 240-ms RTT (24 ticks): each sample takes t_rttvar_ >> 2 off t_rttvar_,
        // 48, 36, 27, ... 4, 3, then nothing (3 >> 2 = 0): t_rtxcur_ = ((3 << 3) + 192) >> 3
        // = 27 ticks; RFC 6298 in exact time comes down to the RTT.
        let mut ns2 = RttEstimator::with_tick(RtoEstimator::Rfc6298, 200 * MS, SEC, 10 * MS);
        let mut exact = RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC);
        for k in 1..=200u64 {
            ns2.tick_sample(240 * MS, k * 240 * MS, false);
            exact.sample(240 * MS, k, k);
        }
        assert_eq!(ns2.srtt(), 240 * MS);
        assert_eq!(ns2.rto(0), 270 * MS);
        assert!(exact.rto(0) < 241 * MS, "{}", exact.rto(0));
    }

    #[test]
    fn ns2_backoff_past_eight_restarts_the_estimate_at_the_next_sample() {
        // rtt_backoff: t_backoff_ 16 (4 doublings) folds SRTT into RTTVAR and zeroes it;
        // the RTO in force stays; the next sample starts over (SRTT = m, RTTVAR = m/2).
        let mut e = RttEstimator::with_tick(RtoEstimator::Rfc6298, 200 * MS, SEC, 10 * MS);
        e.tick_sample(300 * MS, 300 * MS, false);
        assert_eq!(e.rto(0), 900 * MS);
        e.backed_off(3);
        e.tick_sample(100 * MS, 500 * MS, false);
        // Not restarted: delta = 10 - 30 = -20, t_srtt_ = 220, t_rttvar_ = 60 + 20 - 15 = 65.
        assert_eq!(e.rto(0), (((65 << 3) + 220) >> 3) * 10 * MS);
        e.backed_off(4);
        assert_eq!(e.rto(0), (((65 << 3) + 220) >> 3) * 10 * MS);
        e.tick_sample(100 * MS, 700 * MS, false);
        assert_eq!(e.srtt(), 100 * MS);
        assert_eq!(e.rto(0), 300 * MS);
    }

    #[test]
    fn linux_first_sample_gives_three_rtts_or_srtt_plus_min_rto() {
        // tcp_rtt_estimator's first sample: mdev = 2·R, rttvar = max(mdev, rto_min); RTO = SRTT + rttvar.
        let mut e = RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC);
        e.sample(150 * MS, 0, 10);
        assert_eq!(e.rto(0), 450 * MS);
        let mut e = RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC);
        e.sample(40 * MS, 0, 10);
        assert_eq!(e.rto(0), 240 * MS); // 40 + max(80, 200)
    }

    #[test]
    fn linux_rto_stays_min_rto_above_a_steady_srtt_where_rfc6298_comes_down() {
        // A steady 200-ms RTT (a full queue): RFC 6298's RTTVAR decays to 0 and its RTO to
        // SRTT + 4·RTTVAR → 200 ms, the RTT itself; Linux's rttvar never goes below rto_min.
        let (mut rfc, mut linux) = (
            RttEstimator::new(RtoEstimator::Rfc6298, 200 * MS, SEC),
            RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC),
        );
        for k in 0..2000u64 {
            rfc.sample(200 * MS, k + 1, k + 1); // one sample per round trip
            linux.sample(200 * MS, k + 1, k + 1);
        }
        assert_eq!(linux.srtt(), 200 * MS);
        assert!(
            (400 * MS..400 * MS + US).contains(&linux.rto(0)),
            "{}",
            linux.rto(0)
        );
        assert!(rfc.rto(0) < 201 * MS, "{}", rfc.rto(0));
    }

    #[test]
    fn linux_deviation_rises_at_once_and_decays_once_per_round_trip() {
        // From SRTT = 100 ms (mdev 200, rttvar 200 ms after the first sample): a 300-ms sample
        // (err = +200 ms) sets mdev = 200 − 50 + 200 = 350 ms, above rttvar at once: RTO = 125 + 350.
        let mut e = RttEstimator::new(RtoEstimator::Linux, 200 * MS, SEC);
        e.sample(100 * MS, 0, 10);
        e.sample(300 * MS, 5, 20); // snd_una 5 has not passed rtt_seq 10: same round trip
        assert_eq!(e.srtt(), 125 * MS);
        assert_eq!(e.rto(0), 475 * MS);
        // A sample at SRTT (err = 0) lowers mdev by a quarter, to 262.5 ms; it ends the round trip
        // (snd_una 11 > 10): rttvar stays (the round's largest mdev, 350, is not below it) and the
        // next round's largest starts from rto_min.
        e.sample(125 * MS, 11, 30);
        assert_eq!(e.rto(0), 125 * MS + 350 * MS);
        // The next round (snd_una 31 > 30): mdev 196.875 ms stays below rto_min, so rttvar comes
        // down by a quarter of its gap to 200 ms: 350 − 37.5 = 312.5 ms.
        e.sample(125 * MS, 31, 40);
        assert_eq!(e.rto(0), 125 * MS + 312 * MS + 500 * US);
    }
}
