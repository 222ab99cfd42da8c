//! The estimate against reality: peak heap use measured by a counting global
//! allocator over build, run and JSON results, for four representative
//! scenarios. The estimate must fall within 0.5× to 3× of the measured peak.

mod peak;

use hscc_sim::{ScenarioSpec, Sim};

/// Peak heap bytes above the level at the start, for build + run + JSON.
fn measure(json: &str) -> (u64, u64, u64, u64) {
    let spec = ScenarioSpec::from_json(json).unwrap();
    let est = spec.estimate().unwrap();
    let base = peak::start();
    let r = Sim::new(spec.build().unwrap()).unwrap().run();
    let out = r.to_json();
    let peak = peak::since(base) as u64;
    drop(out);
    (est.memory_bytes, peak, est.events, r.events)
}

const TESTBED: &str = r#"{"duration": 20, "output": {"sample_interval": 0.1}, "topology": {"kind": "dumbbell",
    "bottleneck": {"rate": 7e8, "delay": 0.001, "buffer": {"packets": 1500}},
    "pairs": [{"rate": 1e10, "delay": 0.049}, {"rate": 1e10, "delay": 0.049}, {"rate": 1e10, "delay": 0.049}, {"rate": 1e10, "delay": 0.049}]},
    "flows": [{"pair": 0, "algorithm": "ctcp", "count": 2}, {"pair": 1, "count": 2}, {"pair": 2, "algorithm": "ctcp", "count": 2}, {"pair": 3, "count": 2}]}"#;

const MANY_FLOWS: &str = r#"{"duration": 5, "topology": {"kind": "dumbbell",
    "bottleneck": {"rate": 1e8, "delay": 0.01, "buffer": {"bdp": 1}},
    "pairs": [{"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.015}]},
    "flows": [{"pair": 0, "count": 1000}, {"pair": 1, "count": 1000}]}"#;

const WEB: &str = r#"{"duration": 20, "topology": {"kind": "dumbbell",
    "bottleneck": {"rate": 1e8, "delay": 0.01, "buffer": {"bdp": 1}},
    "pairs": [{"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.01}, {"rate": 1e9, "delay": 0.02}]},
    "flows": [{"pair": 0, "count": 4}],
    "web": [{"pairs": [1, 2], "rate": 300}]}"#;

const LONG_TRACES: &str = r#"{"duration": 60, "output": {"sample_interval": 0.0005}, "topology": {"kind": "dumbbell",
    "bottleneck": {"rate": 1e7, "delay": 0.01, "buffer": {"packets": 100}},
    "pairs": [{"rate": 1e8, "delay": 0.01}]},
    "flows": [{"pair": 0, "count": 20}], "voip": [{"pair": 0}]}"#;

#[test]
fn the_estimate_is_within_half_and_three_times_the_measured_peak() {
    // One test: the allocator's counters are process-wide.
    let mut report = String::new();
    for (name, json) in [("testbed", TESTBED), ("many flows", MANY_FLOWS), ("web", WEB), ("long traces", LONG_TRACES)] {
        let (est, peak, est_events, events) = measure(json);
        let ratio = est as f64 / peak as f64;
        let ev_ratio = est_events as f64 / events as f64;
        report += &format!("{name}: memory estimate {est} B, measured peak {peak} B ({ratio:.2}×); events estimate {est_events}, run {events} ({ev_ratio:.2}×)\n");
        assert!((0.5..=3.0).contains(&ratio), "{report}");
        assert!((0.3..=3.0).contains(&ev_ratio), "{report}");
    }
    eprintln!("{report}");
}
