//! Every program of bpf/ replays per-ACK logs recorded from short simulator
//! runs of its algorithm (losses and recovery, ECN, timeouts and undone
//! reductions) and leaves, after every hook call, exactly what the Rust
//! algorithm left in the run. Programs are found as conformance.rs finds
//! them (`programs()`), so a new one is replayed without a change here.

use std::collections::BTreeSet;

use hscc_bpf_conformance::replay::{replay_on, replay_on_c, ReplayError};
use hscc_bpf_conformance::{programs, CProgram};
use hscc_cc::trace::{Hook, HookCall};
use hscc_cc::{Cc, CcParams};
use hscc_sim::{ScenarioSpec, Sim};

/// Short runs that exercise a sender's paths: (what, bottleneck, flow options).
const RUNS: &[(&str, &str, &str)] = &[
    (
        "queue overflow, RACK-TLP and PRR",
        r#""buffer": {"packets": 25}"#,
        "",
    ),
    (
        "ECN marks from RED (CWR)",
        r#""buffer": {"packets": 60}, "queue": {"kind": "red", "ecn": true, "min_th": 5, "max_th": 15}"#,
        r#", "ecn": true"#,
    ),
    (
        "random loss with reordering: timeouts, F-RTO, undo",
        r#""buffer": {"packets": 60}, "loss": 0.03, "jitter": 0.002, "jitter_reorders": true"#,
        "",
    ),
    (
        "three duplicate ACKs, classic reduction",
        r#""buffer": {"packets": 25}"#,
        r#", "loss_detection": "dupack", "recovery": "classic""#,
    ),
];

/// The per-ACK logs of both flows of a 10-second run of `algorithm`.
fn record(algorithm: &str, bottleneck: &str, flow: &str) -> (CcParams, Vec<Vec<HookCall>>) {
    // TCP-FIT's shared α couples the two flows, and each log is replayed
    // alone: here each flow keeps its own α. The shared pool is checked in
    // lockstep by conformance.rs (`fit_connections_share_alpha`).
    let own_alpha = if algorithm == "fit" {
        r#", "params": {"alpha_shared": false}"#
    } else {
        ""
    };
    let flow = format!("{own_alpha}{flow}");
    let json = format!(
        r#"{{"duration": 10, "seed": 5, "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate": 2e7, "delay": 0.01, {bottleneck}}},
            "pairs": [{{"rate": 1e9, "delay": 0.005}}, {{"rate": 1e9, "delay": 0.015}}]}},
            "flows": [{{"pair": 0, "algorithm": "{algorithm}"{flow}}}, {{"pair": 1, "algorithm": "{algorithm}", "start": 0.3{flow}}}],
            "output": {{"traces": [], "cc_log": {{"flows": ["{algorithm} 0", "{algorithm} 1"]}}}}}}"#
    );
    let cfg = ScenarioSpec::from_json(&json).unwrap().build().unwrap();
    let params = cfg.flows[0].cc.clone();
    let r = Sim::new(cfg).unwrap().run();
    (params, r.cc_log.into_iter().map(|l| l.calls).collect())
}

/// Whether the sender samples delivery rates for `p`'s algorithm: it has
/// `cong_control`, reads `pkts_acked`'s `in_flight` (NV) or asks for internal
/// pacing at `init` (Sync-TCP).
fn takes_rate_samples(p: &CProgram) -> bool {
    let mut cc = Cc::new(&CcParams::from_name(p.name).unwrap());
    let mut tp = hscc_cc::TcpCc::new(1448, 10);
    cc.init(&mut tp);
    p.has_cong_control() || cc.needs_delivery_stamps() || tp.pacing_needed
}

#[test]
fn every_program_gives_the_recorded_window_after_every_call() {
    let programs = programs();
    assert!(!programs.is_empty());
    for p in &programs {
        let mut hooks = BTreeSet::new();
        let mut compared = 0;
        for (what, bottleneck, flow) in RUNS {
            let (params, logs) = record(p.name, bottleneck, flow);
            for calls in &logs {
                // (A flow whose first window is lost may make few calls: an
                // initial RTO of 1 s, backed off.)
                compared += replay_on_c(&params, calls)
                    .unwrap_or_else(|e| panic!("{} ({what}): {e}", p.name));
                hooks.extend(calls.iter().map(|c| c.hook.name()));
            }
        }
        // Every hook of tcp_congestion_ops that hscc calls was replayed; an
        // algorithm with cong_control never has cong_avoid called
        // (tcp_cong_control), and only one that takes rate samples is told
        // of each lost packet (skb_marked_lost).
        let samples = takes_rate_samples(p);
        let all: BTreeSet<&str> = Hook::NAMES
            .into_iter()
            .filter(|h| !(p.has_cong_control() && *h == "cong_avoid"))
            .filter(|h| samples || *h != "skb_marked_lost")
            .collect();
        assert_eq!(hooks, all, "{}: hooks never called by these runs", p.name);
        // BBR's flows make fewer calls in these runs (about 48 000): the
        // sender does not yet give it delivery-rate samples, so its model
        // has no bandwidth and its window stays near the initial one.
        let least = if p.has_cong_control() { 40_000 } else { 50_000 };
        assert!(compared > least, "{}: {compared} calls", p.name);
        eprintln!("{}: {compared} recorded hook calls replayed", p.name);
    }
}

#[test]
fn a_program_configured_otherwise_diverges_from_the_recording() {
    // CUBIC recorded with β 0.7, replayed on the program with β 0.8: the
    // first ssthresh differs.
    let (params, logs) = record("cubic", RUNS[0].1, RUNS[0].2);
    let other = Cc::new(&CcParams::with("cubic", &[("beta", 0.8)]).unwrap()).bpf_globals();
    let e = replay_on(CProgram::find("cubic").unwrap(), other, &logs[0]).unwrap_err();
    let ReplayError::Diverged(m) = e else {
        panic!("{e}")
    };
    assert_eq!(m.call.hook, Hook::Ssthresh, "{m}");
    assert!(m.replayed.ret > m.call.after.ret);
    assert!(replay_on_c(&params, &logs[0]).is_ok());
}
