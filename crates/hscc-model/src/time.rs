//! Simulated time: integer picoseconds, as htsim keeps it.
//!
//! `u64` picoseconds cover 213 days and make serialization exact at any link
//! rate once the remainder is carried (see `hscc_sim::link`).

/// A point or span of simulated time, in picoseconds.
pub type Time = u64;

/// One nanosecond.
pub const NS: Time = 1_000;
/// One microsecond.
pub const US: Time = 1_000_000;
/// One millisecond.
pub const MS: Time = 1_000_000_000;
/// One second.
pub const SEC: Time = 1_000_000_000_000;
/// "Never": the time of a timer that is not armed.
pub const NEVER: Time = Time::MAX;

/// Seconds as simulated time (rounded to the nearest picosecond).
pub fn from_secs(s: f64) -> Time {
    (s * SEC as f64).round() as Time
}

/// Simulated time in seconds.
pub fn secs(t: Time) -> f64 {
    t as f64 / SEC as f64
}
