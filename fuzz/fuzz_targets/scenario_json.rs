//! The engine's scenario path on arbitrary bytes: JSON → ScenarioSpec →
//! build (SimConfig) → Sim::new → a short run → results. A rejection at any
//! step is fine; a panic, a timeout (-timeout) or running out of memory
//! (-rss_limit_mb, -malloc_limit_mb) is a finding.
#![no_main]

use hscc_sim::time::{MS, SEC};
use hscc_sim::{Estimated, ScenarioSpec, Sim};
use libfuzzer_sys::fuzz_target;

/// Simulated time run at most per input: reaches the first RTOs (1 s).
const RUN: u64 = SEC;
/// Run in steps of at most this much simulated time...
const STEP: u64 = MS;
/// ...until this many events: bounds the work of an input by events, not by
/// simulated time, so busy and idle scenarios cost about the same. Steps are
/// shortened so that each holds about a tenth of this by the engine's own
/// estimate: a scenario of 10^10 events per second (allowed, if slow) is then
/// stopped by its events too, not left inside one long step. An input that
/// still takes too long within one step is a timeout finding.
const EVENTS: u64 = 20_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = ScenarioSpec::from_json(text) else {
        return;
    };
    let Ok(cfg) = spec.build() else { return };
    let per_ps = cfg.estimate().events as f64 / cfg.duration.max(1) as f64;
    let step = ((EVENTS / 10) as f64 / per_ps).clamp(1.0, STEP as f64) as u64;
    let Ok(mut sim) = Sim::new(cfg) else { return };
    let end = RUN.min(sim.cfg.duration);
    let mut t = 0;
    while t < end && sim.events < EVENTS {
        t = (t + step).min(end);
        sim.run_until(t);
    }
    let _ = sim.finish().to_json();
});
