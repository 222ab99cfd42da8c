//! Runs that would exhaust memory or never end are refused before anything
//! big is allocated, naming the field that drives the cost and the numbers.

use hscc_sim::{BuildLimits, ScenarioSpec, Sim};

fn refused(json: &str) -> String {
    let spec = ScenarioSpec::from_json(json).unwrap();
    spec.build()
        .map(|_| ())
        .expect_err("the scenario should be refused")
        .to_string()
}

/// A two-pair dumbbell, 60 s, with `extra` appended.
fn dumbbell(extra: &str) -> String {
    format!(
        r#"{{"duration": 60, "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate": 1e9, "delay": 0.01, "buffer": {{"packets": 1000}}}},
            "pairs": [{{"rate": 1e10, "delay": 0.005}}, {{"rate": 1e10, "delay": 0.005}}]}}{extra}}}"#
    )
}

#[test]
fn absurd_web_rates_are_refused_by_memory() {
    // Transfers pile up when they arrive faster than the bottleneck serves them.
    let spec =
        ScenarioSpec::from_json(&dumbbell(r#", "web": [{"pairs": [0, 1], "rate": 1e6}]"#)).unwrap();
    let one_gb = BuildLimits {
        max_memory_bytes: 1_000_000_000,
        ..BuildLimits::default()
    };
    let e = spec.build_with(&one_gb).unwrap_err().to_string();
    // About 2 GB (1e6 transfer slots of ~1 kB, grown by half): the figure moves with
    // the size of a flow slot, the field named and the limit do not.
    assert!(
        e.starts_with("web[0].rate: 1000000 is not allowed (this run needs about "),
        "{e}"
    );
    assert!(
        e.ends_with("GB of memory, above the limit of 1.0 GB; lower it or raise --max-memory)"),
        "{e}"
    );
    // Beyond the range, the range says so.
    assert!(
        refused(&dumbbell(r#", "web": [{"pairs": [0, 1], "rate": 1e9}]"#)).starts_with(
            "web[0].rate: 1000000000 is not allowed (10^-6 to 10^7 transfers per second)"
        )
    );
}

#[test]
fn absurd_udp_and_voip_rates_are_refused_by_events() {
    let e = refused(
        &dumbbell(r#", "udp": [{"pair": 0, "pattern": "cbr", "rate": 1e13}]"#)
            .replace(r#""duration": 60"#, r#""duration": 100000"#),
    );
    assert!(
        e.starts_with(
            "udp[0].rate: 10000000000000 is not allowed (this run needs about 8.3e13 events"
        ),
        "{e}"
    );
    let e = refused(
        &dumbbell(r#", "voip": [{"pair": 0, "interval": 1e-9, "rate": 1e3}]"#)
            .replace(r#""duration": 60"#, r#""duration": 10000"#),
    );
    assert!(
        e.starts_with("voip[0].interval: 0.000000001 s is not allowed")
            || e.starts_with("voip[0].interval: 1e-9 s is not allowed"),
        "{e}"
    );
}

#[test]
fn huge_topologies_are_refused_before_they_are_built() {
    // Used to allocate 2.9 GB inside build.
    let lot = r#"{"duration": 1, "topology": {"kind": "parking_lot", "hops": 1000, "cross": 100000, "long": 1,
        "link": {"rate": 1e8, "delay": 0.001}, "access": {"rate": 1e9, "delay": 0.001}}}"#;
    assert!(refused(lot).starts_with("topology.hops: 1000 is not allowed (1 to 254 bottlenecks"));
    let lot = lot.replace(r#""hops": 1000"#, r#""hops": 100"#);
    assert!(refused(&lot)
        .starts_with("topology.cross: 100000 is not allowed (at most 100000 host pairs in all"));
}

#[test]
fn long_traces_and_huge_windows_name_their_field() {
    let e = refused(&dumbbell(
        r#", "output": {"sample_interval": 1e-6}, "flows": [{"pair": 0, "count": 50}]"#,
    ));
    assert!(
        e.starts_with("output.sample_interval: 0.000001 s is not allowed"),
        "{e}"
    );
    let iw =
        dumbbell(r#", "flows": [{"pair": 0, "init_cwnd": 1000000, "mss": 1000, "count": 100}]"#);
    let spec = ScenarioSpec::from_json(&iw).unwrap();
    let est = spec.estimate().unwrap();
    assert_eq!(est.memory_field.0, "flows[0].init_cwnd", "{est:?}");
    let tight = BuildLimits {
        max_memory_bytes: 1 << 30,
        ..BuildLimits::default()
    };
    let e = spec.build_with(&tight).unwrap_err().to_string();
    assert!(
        e.starts_with("flows[0].init_cwnd: 1000000 is not allowed")
            && e.contains("above the limit of 1.1 GB"),
        "{e}"
    );
}

#[test]
fn rust_callers_get_the_same_limits() {
    let spec = ScenarioSpec::from_json(&dumbbell(r#", "flows": [{"pair": 0}]"#)).unwrap();
    let cfg = spec.build().unwrap();
    let e = Sim::with_limits(
        cfg.clone(),
        &BuildLimits {
            max_events: 1000,
            ..BuildLimits::default()
        },
    )
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.starts_with("duration: 60 s is not allowed (this run needs about"),
        "{e}"
    );
    assert!(Sim::new(cfg).is_ok());
}
