//! The estimate against reality: peak heap use measured by a counting global
//! allocator over build, run and JSON results, for nine representative
//! scenarios. The estimate must fall within 0.5× to 3× of the measured peak.

use crate::peak;

use hscc_sim::{ScenarioSpec, SimConfig};

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

const CC_LOG: &str = r#"{"duration": 20, "topology": {"kind": "dumbbell",
    "bottleneck": {"rate": 5e7, "delay": 0.01, "buffer": {"packets": 60}},
    "pairs": [{"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.02}]},
    "flows": [{"pair": 0, "algorithm": "cubic"}, {"pair": 1}],
    "output": {"cc_log": {"flows": ["cubic 0", "reno 1"]}}}"#;
/// Packet captures of a flow and of the bottleneck (docs/traces.md).
const CAPTURES: &str = r#"{"duration": 10, "output": {"traces": [], "pcap": {"flows": ["ctcp 0"], "links": ["bottleneck:fwd"]}},
    "topology": {"kind": "dumbbell", "bottleneck": {"rate": 2e8, "delay": 0.001, "buffer": {"packets": 500}},
    "pairs": [{"rate": 1e10, "delay": 0.02}, {"rate": 1e10, "delay": 0.02}]},
    "flows": [{"pair": 0, "algorithm": "ctcp", "count": 2}, {"pair": 1, "count": 2}]}"#;

/// 5 000 host pairs with a flow each for 20 ms: the bottleneck carries about
/// 12 600 packets in the run, the first windows of about 1 260 flows; the
/// others never reach their receivers' links (crates/hscc-sim/src/estimate/reach.rs).
fn short_many_pairs() -> String {
    let pairs = vec![r#"{"rate": 1e11, "rtt": 0.02}"#; 5000].join(", ");
    let flows: Vec<String> = (0..5000).map(|i| format!(r#"{{"pair": {i}}}"#)).collect();
    format!(
        r#"{{"duration": 0.02, "output": {{"traces": []}}, "topology": {{"kind": "dumbbell",
        "bottleneck": {{"rate": 1e10, "delay": 0.001, "buffer": {{"bdp": 0.5}}}}, "pairs": [{pairs}]}},
        "flows": [{}]}}"#,
        flows.join(", ")
    )
}

/// `flows` Reno flows on each of `pairs` host pairs of the flows dumbbell of
/// scripts/bench.py (10 Gbit/s bottleneck, half a BDP of buffer, 20-ms pairs)
/// for 0.05 s: the flows' state and summary rows, not their packets, set the peak.
fn flows_on_pairs(pairs: usize, flows: usize) -> String {
    let pair_list = vec![r#"{"rate": 1e11, "rtt": 0.02}"#; pairs].join(", ");
    let flow_list: Vec<String> = (0..pairs)
        .map(|i| format!(r#"{{"pair": {i}, "count": {flows}}}"#))
        .collect();
    format!(
        r#"{{"duration": 0.05, "output": {{"traces": []}}, "topology": {{"kind": "dumbbell",
        "bottleneck": {{"rate": 1e10, "delay": 0.001, "buffer": {{"bdp": 0.5}}}}, "pairs": [{pair_list}]}},
        "flows": [{}]}}"#,
        flow_list.join(", ")
    )
}

#[test]
fn the_estimate_is_within_half_and_three_times_the_measured_peak() {
    // One test: the allocator's counters are process-wide.
    fn cfg(json: &str) -> SimConfig {
        ScenarioSpec::from_json(json).unwrap().build().unwrap()
    }
    peak::check_estimates([
        ("testbed", (|| cfg(TESTBED)) as fn() -> SimConfig),
        ("many flows", || cfg(MANY_FLOWS)),
        ("web", || cfg(WEB)),
        ("long traces", || cfg(LONG_TRACES)),
        ("per-ACK log", || cfg(CC_LOG)),
        ("captures", || cfg(CAPTURES)),
        ("short run of many pairs", || cfg(&short_many_pairs())),
        ("10 000 flows on one pair", || {
            cfg(&flows_on_pairs(1, 10_000))
        }),
        ("1 000 pairs of 10 flows", || cfg(&flows_on_pairs(1000, 10))),
    ]);
}
