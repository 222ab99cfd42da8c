//! The engine's scenario path on arbitrary bytes: JSON → ScenarioSpec →
//! build (SimConfig) → Sim::new → a short run → results. A rejection at any
//! step is fine; a panic, a timeout (-timeout) or running out of memory
//! (-rss_limit_mb, -malloc_limit_mb) is a finding.
#![no_main]

use hscc_sim::time::{MS, SEC};
use hscc_sim::{ScenarioSpec, Sim};
use libfuzzer_sys::fuzz_target;

/// Simulated time run at most per input: reaches the first RTOs (1 s).
const RUN: u64 = SEC;
/// Run in steps of this much simulated time...
const STEP: u64 = MS;
/// ...until this many events: bounds the work of an input by events, not by
/// simulated time, so busy and idle scenarios cost about the same. An input
/// that takes too long within one step is a timeout finding.
const EVENTS: u64 = 20_000;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(spec) = ScenarioSpec::from_json(text) else { return };
    let Ok(cfg) = spec.build() else { return };
    let Ok(mut sim) = Sim::new(cfg) else { return };
    let end = RUN.min(sim.cfg.duration);
    let mut t = 0;
    while t < end && sim.events < EVENTS {
        t = (t + STEP).min(end);
        sim.run_until(t);
    }
    let _ = sim.finish().to_json();
});
