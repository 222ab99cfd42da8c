//! Random, often absurd, scenario JSON (huge, tiny, negative and fractional
//! numbers, empty and long lists, big counts) never panics and never allocates
//! without bound: `from_json` + `build` return a configuration or a
//! `ConfigError`, and what builds is started and run for a millisecond.
//! 64 cases by default; `PROPTEST_CASES` raises it for the slow suite.

use crate::peak;

use hscc_cc::testing::proptest_cases;
use hscc_sim::{time::MS, Estimated, ScenarioSpec, Sim};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Numbers that break things: zero, negatives, tiny, huge, past u64, fractions, not a number.
fn absurd() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            0.0, -1.0, -1e300, 1e-300, 1e-9, 0.5, 1e6, 1e9, 1e13, 1e19, 1e30, 1e300
        ])
        .prop_map(Value::from),
        prop::sample::select(vec![
            0u64,
            1,
            65535,
            65536,
            100_000,
            4_294_967_295,
            4_294_967_296,
            u64::MAX
        ])
        .prop_map(Value::from),
        Just(Value::from("x")),
    ]
}

/// A real number, usually in [lo, hi), sometimes absurd.
fn real(lo: f64, hi: f64) -> impl Strategy<Value = Value> {
    prop_oneof![30 => (lo..hi).prop_map(Value::from), 1 => absurd()]
}

/// A whole number, usually in [lo, hi), sometimes absurd.
fn int(lo: u64, hi: u64) -> impl Strategy<Value = Value> {
    prop_oneof![30 => (lo..hi).prop_map(Value::from), 1 => absurd()]
}

fn link() -> impl Strategy<Value = Value> {
    (real(1e5, 1e10), real(0.0, 0.05), int(1, 2000), 0..3usize).prop_map(
        |(rate, delay, b, kind)| {
            let buffer = match kind {
                0 => json!({"packets": b}),
                1 => json!({"bytes": b}),
                _ => json!({"bdp": b}),
            };
            json!({"rate": rate, "delay": delay, "buffer": buffer})
        },
    )
}

fn topology(kind: usize) -> BoxedStrategy<Value> {
    let kinds = [
        (link(), prop::collection::vec((real(1e6, 1e10), real(0.0, 0.05)), 0..4)).prop_map(|(b, pairs)| {
            let pairs: Vec<Value> = pairs.into_iter().map(|(r, d)| json!({"rate": r, "delay": d})).collect();
            json!({"kind": "dumbbell", "bottleneck": b, "pairs": pairs})
        }).boxed(),
        (int(1, 5), link(), real(1e6, 1e10), real(0.0, 0.05), int(0, 3), int(0, 3)).prop_map(|(hops, l, ar, ad, long, cross)| {
            json!({"kind": "parking_lot", "hops": hops, "link": l, "access": {"rate": ar, "delay": ad}, "long": long, "cross": cross})
        }).boxed(),
        (prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d", ""]), 0..5), prop::collection::vec((0..4usize, 0..4usize, link()), 0..5)).prop_map(|(nodes, links)| {
            let names = ["a", "b", "c", "d"];
            let links: Vec<Value> = links.into_iter().map(|(a, b, l)| json!({"a": names[a], "b": names[b], "fwd": l})).collect();
            json!({"kind": "graph", "nodes": nodes, "links": links})
        }).boxed(),
    ];
    kinds.into_iter().nth(kind).expect("three kinds")
}

/// A place in any topology: a pair, a long or cross pair, or graph nodes.
fn place(v: &mut Value, kind: usize, k: u64, a: usize, b: usize) {
    let names = ["a", "b", "c", "d"];
    // Mostly the topology's own terms, sometimes another's.
    let how = if k.is_multiple_of(10) {
        k / 10
    } else {
        [0, 1 + k % 2, 3][kind]
    };
    match how % 4 {
        0 => v["pair"] = json!(a),
        1 => v["long"] = json!(a),
        2 => v["cross"] = json!([a, b]),
        _ => (v["src"], v["dst"]) = (json!(names[a % 4]), json!(names[b % 4])),
    }
}

fn scenario() -> impl Strategy<Value = Value> {
    (0..3usize).prop_flat_map(scenario_on)
}

fn scenario_on(kind: usize) -> impl Strategy<Value = Value> {
    let flow = (any::<u64>(), 0..3usize, 0..3usize, int(1, 5), real(0.0, 2.0), int(1, 20), int(500, 1500), prop::sample::select(vec!["reno", "sync", "htcp", "cubic", "nope"]))
        .prop_map(move |(k, a, b, count, start, iw, mss, algo)| {
            let mut v = json!({"count": count, "start": start, "init_cwnd": iw, "mss": mss, "algorithm": algo});
            if k % 3 == 0 {
                v["params"] = json!({"beta_min": 0.9, "beta_max": 0.6});
            }
            place(&mut v, kind, k, a, b);
            v
        });
    let udp = (any::<u64>(), 0..3usize, 0..3usize, real(1e3, 1e9), int(28, 1500), real(0.5, 3.0)).prop_map(move |(k, a, b, rate, size, stop)| {
        let pattern = ["cbr", "poisson", "onoff"][(k % 3) as usize];
        let mut v = json!({"pattern": pattern, "rate": rate, "packet_size": size, "on": 1, "off": stop, "stop": stop});
        place(&mut v, kind, k / 3, a, b);
        v
    });
    let voip = (
        any::<u64>(),
        0..3usize,
        0..3usize,
        real(1e3, 1e5),
        real(0.001, 0.05),
        int(28, 100),
    )
        .prop_map(move |(k, a, b, rate, interval, header)| {
            let mut v = json!({"rate": rate, "interval": interval, "header": header});
            place(&mut v, kind, k, a, b);
            v
        });
    let web = (real(0.1, 100.0), int(100, 100_000), 0..3usize).prop_map(move |(rate, mean, k)| {
        let size = [
            json!(mean),
            json!({"dist": "exponential", "mean": mean}),
            json!({"dist": "pareto", "shape": 1.2, "mean": mean}),
        ][k]
            .clone();
        match kind {
            0 => json!({"pairs": [0, 1], "rate": rate, "size": size}),
            _ => json!({"servers": ["a"], "clients": ["b", "c"], "rate": rate, "size": size}),
        }
    });
    let change = (real(0.0, 2.0), real(1e5, 1e9)).prop_map(
        |(at, rate)| json!({"at": at, "link": "bottleneck:fwd", "rate": rate, "delay": at}),
    );
    (
        real(0.01, 2.0),
        prop::option::of(real(0.001, 0.5)),
        topology(kind),
        prop::collection::vec(flow, 0..3),
        prop::collection::vec(udp, 0..3),
        prop::collection::vec(voip, 0..2),
        prop::collection::vec(web, 0..2),
        prop::collection::vec(change, 0..2),
    )
        .prop_map(|(duration, sample, topology, flows, udp, voip, web, changes)| {
            let mut v = json!({"duration": duration, "topology": topology, "flows": flows, "udp": udp, "voip": voip, "web": web, "changes": changes});
            v["output"] = match sample {
                Some(s) => json!({"sample_interval": s}),
                None => json!({"traces": []}),
            };
            v
        })
}

/// Peak heap use allowed while parsing and building (the hard caps bound a configuration well below it).
const BUILD_PEAK: usize = 1 << 30;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(64)))]

    #[test]
    fn any_scenario_builds_or_is_refused(v in scenario()) {
        let text = v.to_string();
        let base = peak::start();
        let built = ScenarioSpec::from_json(&text).and_then(|s| s.build());
        let used = peak::since(base);
        prop_assert!(used < BUILD_PEAK, "build peaked at {used} bytes");
        match built {
            Err(e) => prop_assert!(!e.field.is_empty() && !e.allowed.is_empty(), "{e:?}"),
            Ok(cfg) => {
                // Small enough to start: run a millisecond (runtime overflows show here).
                if cfg.estimate().memory_bytes < 64 << 20 {
                    let mut sim = Sim::new(cfg).expect("a built configuration starts");
                    sim.run_until(MS);
                }
            }
        }
    }
}
