//! Scenarios that used to crash, hang or run as nonsense are refused with an
//! error naming the field, the value and what is allowed.

use hscc_sim::{ConfigError, ScenarioSpec};

fn build(json: &str) -> Result<hscc_sim::SimConfig, ConfigError> {
    ScenarioSpec::from_json(json)?.build()
}

fn refused(json: &str) -> String {
    build(json)
        .map(|_| ())
        .expect_err("the scenario should be refused")
        .to_string()
}

/// A three-node graph with `extra` JSON members appended at the top level.
fn graph(extra: &str) -> String {
    format!(
        r#"{{"duration": 5, "topology": {{"kind": "graph", "nodes": ["a", "b", "c"],
            "links": [{{"a": "a", "b": "b", "fwd": {{"rate": 1e8, "delay": 0.01, "buffer": {{"packets": 50}}}}}},
                      {{"a": "b", "b": "c", "fwd": {{"rate": 1e8, "delay": 0.01, "buffer": {{"packets": 50}}}}}}]}}{extra}}}"#
    )
}

/// A one-pair dumbbell with `extra` appended.
fn dumbbell(extra: &str) -> String {
    format!(
        r#"{{"duration": 10, "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate": 1e8, "delay": 0.01, "buffer": {{"packets": 100}}}},
            "pairs": [{{"rate": 1e9, "delay": 0.005}}, {{"rate": 1e9, "delay": 0.005}}]}}{extra}}}"#
    )
}

#[test]
fn a_web_node_both_server_and_client_is_refused() {
    // Used to build, then panic in the run (a transfer from a node to itself has an empty route).
    let e = refused(&graph(
        r#", "web": [{"servers": ["a", "b"], "clients": ["c", "a"], "rate": 50}]"#,
    ));
    assert!(
        e.starts_with(r#"web[0].clients: "a" is not allowed"#) && e.contains("not also servers"),
        "{e}"
    );
    assert!(build(&graph(
        r#", "web": [{"servers": ["a"], "clients": ["c"], "rate": 50}]"#
    ))
    .is_ok());
}

#[test]
fn graph_flows_and_voip_need_two_different_nodes() {
    let e = refused(&graph(r#", "flows": [{"src": "b", "dst": "b"}]"#));
    assert!(
        e.starts_with(r#"flows[0].dst: "b""#) && e.contains("other than src"),
        "{e}"
    );
    let e = refused(&graph(r#", "voip": [{"src": "c", "dst": "c"}]"#));
    assert!(e.starts_with(r#"voip[0].dst: "c""#), "{e}");
}

#[test]
fn graph_names_and_links_are_unique_and_meaningful() {
    let e = refused(&graph("").replace(
        r#""nodes": ["a", "b", "c"]"#,
        r#""nodes": ["a", "b", "c", ""]"#,
    ));
    assert!(e.starts_with(r#"topology.nodes[3]: "" is not allowed (a name that is not empty and has no control characters)"#), "{e}");
    let parallel = graph("").replace(r#"{"a": "b", "b": "c""#, r#"{"a": "b", "b": "a""#);
    let e = refused(&parallel);
    assert!(
        e.starts_with(r#"topology.links[1]: "b-a""#) && e.contains("topology.links[0] is a-b"),
        "{e}"
    );
    let self_loop = graph("").replace(r#"{"a": "b", "b": "c""#, r#"{"a": "c", "b": "c""#);
    assert!(refused(&self_loop).starts_with(r#"topology.links[1].b: "c""#));
    // "a-b" + "c" and "a" + "b-c" would both be named "a-b-c".
    let clash = r#"{"duration": 1, "topology": {"kind": "graph", "nodes": ["a-b", "c", "a", "b-c"],
        "links": [{"a": "a-b", "b": "c", "fwd": {"rate": 1e8, "delay": 0.01}},
                  {"a": "a", "b": "b-c", "fwd": {"rate": 1e8, "delay": 0.01}}]}}"#;
    assert!(refused(clash).starts_with(r#"topology.links[1]: "a-b-c""#));
}

#[test]
fn nothing_starts_at_or_after_the_end_of_the_run() {
    let cases = [
        (
            r#", "flows": [{"pair": 0}, {"pair": 1, "start": 10}]"#,
            "flows[1].start: 10 s",
        ),
        (
            r#", "udp": [{"pair": 0, "pattern": "cbr", "rate": 1e6, "start": 12}]"#,
            "udp[0].start: 12 s",
        ),
        (
            r#", "voip": [{"pair": 0, "start": 10}]"#,
            "voip[0].start: 10 s",
        ),
        (
            r#", "web": [{"pairs": [1], "rate": 5, "start": 11}]"#,
            "web[0].start: 11 s",
        ),
        (
            r#", "changes": [{"at": 10, "link": "bottleneck:fwd", "rate": 1e6}]"#,
            "changes[0].at: 10 s",
        ),
        (
            r#", "udp": [{"pair": 0, "pattern": "cbr", "rate": 1e6, "start": 2, "stop": 2}]"#,
            "udp[0].stop: 2 s",
        ),
    ];
    for (extra, want) in cases {
        let e = refused(&dumbbell(extra));
        assert!(e.starts_with(want), "{e}");
    }
    assert!(
        refused(&dumbbell(r#", "flows": [{"pair": 0, "start": 10}]"#))
            .contains("before the end of the run (duration = 10 s)")
    );
    assert!(build(&dumbbell(r#", "flows": [{"pair": 0, "start": 9.9}], "changes": [{"at": 9.9, "link": "bottleneck:fwd", "rate": 1e6}]"#)).is_ok());
}

#[test]
fn reversed_algorithm_bounds_name_the_parameter() {
    let e = refused(&dumbbell(
        r#", "flows": [{"pair": 0, "algorithm": "sync", "params": {"beta_min": 0.9, "beta_max": 0.5}}]"#,
    ));
    assert_eq!(
        e,
        "flows[0].params.beta_min: 0.9 is not allowed (at most beta_max = 0.5)"
    );
    let e = refused(&dumbbell(
        r#", "web": [{"pairs": [1], "rate": 5, "algorithm": "htcp", "params": {"beta_min": 0.9, "beta_max": 0.6}}]"#,
    ));
    assert_eq!(
        e,
        "web[0].params.beta_min: 0.9 is not allowed (at most beta_max = 0.6)"
    );
}

#[test]
fn json_errors_name_the_field_path() {
    // Used to be serde's "invalid type: floating point `1e30`, expected u64 at line 1 column 414".
    let e = refused(&dumbbell("").replace(r#"{"packets": 100}"#, r#"{"packets": 1e30}"#));
    assert_eq!(e, "topology.bottleneck.buffer.packets: 1e+30 is not allowed (a whole number from 0 to 18446744073709551615)");
    let e = refused(&dumbbell(r#", "flows": [{"pair": 0, "mss": -1}]"#));
    assert_eq!(e, "flows[0].mss: -1 is not allowed (a size such as 64KB, 1MiB, 1448B or a whole number of bytes)");
    let e = refused(&dumbbell(r#", "flows": [{"pair": 0, "colour": 1}]"#));
    assert!(
        e.starts_with("flows[0].colour: colour is not allowed (one of the fields pair, long"),
        "{e}"
    );
    let e = refused(&dumbbell("").replace(r#""kind": "dumbbell""#, r#""kind": "ring""#));
    assert!(
        e.starts_with(r#"topology.kind: "ring""#)
            && e.contains(r#""dumbbell", "parking_lot", "graph""#),
        "{e}"
    );
}

#[test]
fn huge_numbers_are_refused_not_wrapped() {
    // payload + header used to overflow a u32.
    let e = refused(&dumbbell(
        r#", "voip": [{"pair": 0, "header": 4294967295}]"#,
    ));
    assert!(e.starts_with("voip[0].rate"), "{e}");
    let e = refused(&dumbbell(r#", "flows": [{"pair": 0, "min_rto": 1e6}]"#));
    assert!(
        e.starts_with("flows[0].min_rto: 1000000 s") && e.contains("120 s"),
        "{e}"
    );
    let e = refused(&dumbbell(r#", "flows": [{"pair": 0}]"#).replace(
        r#""duration": 10,"#,
        r#""duration": 10, "output": {"sample_interval": 20},"#,
    ));
    assert!(
        e.starts_with("output.sample_interval: 20 s") && e.contains("at most the duration"),
        "{e}"
    );
    let e = refused(&dumbbell(r#", "web": [{"pairs": [1], "rate": 1e-300}]"#));
    assert!(e.starts_with("web[0].rate: 1e-300 is not allowed"), "{e}");
    let e = refused(&dumbbell(
        r#", "web": [{"pairs": [1], "rate": 5, "size": {"dist": "exponential", "mean": 1e300}}]"#,
    ));
    assert!(e.starts_with("web[0].size"), "{e}");
    for bad in ["1e30", "-1", "1e400"] {
        let e =
            refused(&dumbbell("").replace(r#""duration": 10"#, &format!(r#""duration": {bad}"#)));
        assert!(e.starts_with("duration: "), "{e}");
    }
}

#[test]
fn an_rto_tick_needs_the_rfc6298_estimator_and_at_most_a_second() {
    let e = refused(&dumbbell(
        r#", "flows": [{"pair": 0, "rto_tick": "10ms", "rto_estimator": "linux"}]"#,
    ));
    assert!(
        e.starts_with("flows[0].rto_tick: 0.01 s with rto_estimator = \"linux\"")
            && e.contains("\"rfc6298\""),
        "{e}"
    );
    let e = refused(&dumbbell(r#", "flows": [{"pair": 0, "rto_tick": 2}]"#));
    assert!(
        e.starts_with("flows[0].rto_tick: 2 s") && e.contains("1 s"),
        "{e}"
    );
    let e = refused(&dumbbell(
        r#", "flows": [{"pair": 0, "rtt_sampling": "per_segment"}]"#,
    ));
    assert!(
        e.contains("flows[0].rtt_sampling") || e.contains("per_rtt"),
        "{e}"
    );
    assert!(build(&dumbbell(
        r#", "flows": [{"pair": 0, "rtt_sampling": "per_rtt", "rto_tick": "10ms"}]"#
    ))
    .is_ok());
}

#[test]
fn tail_loss_probes_need_rack() {
    let e = refused(&dumbbell(
        r#", "flows": [{"pair": 0, "loss_detection": "dupack", "tlp": true}]"#,
    ));
    assert!(
        e.starts_with("flows[0].tlp: true with loss_detection = \"dupack\"") && e.contains("rack"),
        "{e}"
    );
    build(&dumbbell(
        r#", "flows": [{"pair": 0, "loss_detection": "dupack", "tlp": false}]"#,
    ))
    .unwrap();
}
