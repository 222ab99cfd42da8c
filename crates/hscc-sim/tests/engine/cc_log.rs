//! The per-ACK congestion-control log (`[output] cc_log`): what it records,
//! that it agrees with the sampled traces and replays to the same run, that
//! it changes nothing when on and is refused when too large.

use hscc_cc::trace::{replay, Hook};
use hscc_cc::{algorithm_names, CaEvent, CaState, Cc, TCP_INFINITE_SSTHRESH};
use hscc_sim::estimate::CC_LOG_ROWS_PER_ACK;
use hscc_sim::tcp::FlowCcLog;
use hscc_sim::{RunResult, ScenarioSpec, Sim};

/// Two flows of `algorithm` through a 20 Mbit/s, 40 ms RTT dumbbell with a
/// 30-packet buffer (losses every few seconds), `extra` appended.
fn dumbbell(algorithm: &str, duration: f64, extra: &str) -> String {
    format!(
        r#"{{"duration": {duration}, "seed": 3, "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate": 2e7, "delay": 0.01, "buffer": {{"packets": 30}}}},
            "pairs": [{{"rate": 1e9, "delay": 0.01}}, {{"rate": 1e9, "delay": 0.01}}]}},
            "flows": [{{"pair": 0, "algorithm": "{algorithm}"}}, {{"pair": 1, "algorithm": "{algorithm}", "start": 0.5}}]{extra}}}"#
    )
}

fn run(json: &str) -> RunResult {
    let cfg = ScenarioSpec::from_json(json).unwrap().build().unwrap();
    Sim::new(cfg).unwrap().run()
}

fn logged(algorithm: &str, duration: f64) -> RunResult {
    run(&dumbbell(
        algorithm,
        duration,
        &format!(r#", "output": {{"cc_log": {{"flows": ["{algorithm} 0"]}}}}"#),
    ))
}

#[test]
fn the_log_reproduces_the_sampled_cwnd_at_every_sample() {
    let r = logged("cubic", 10.0);
    let log = &r.cc_log[0];
    assert_eq!((r.cc_log.len(), log.flow), (1, 0));
    let recoveries = log
        .calls
        .iter()
        .filter(|c| c.hook == Hook::SetState(CaState::Recovery))
        .count();
    assert!(
        recoveries >= 2,
        "the run should see losses: {recoveries} recoveries"
    );
    // The window after the last call at or before each sample is the sampled one.
    // Calls carry the sender's µs clock: one in the sample's own microsecond may
    // come before or after it, so there either value is accepted.
    let (mut exact, mut checked) = (0, 0);
    for (t, &cwnd) in r.traces.time_s.iter().zip(&r.traces.flows[0].cwnd) {
        let us = (t * 1e6).round() as u64;
        let upto = |incl: bool| {
            log.calls
                .iter()
                .take_while(|c| c.before.now_us < us || (incl && c.before.now_us == us))
                .last()
        };
        let (before, at) = (upto(false), upto(true));
        let window = |c: Option<&hscc_cc::trace::HookCall>| c.map_or(0, |c| c.after.snd_cwnd);
        assert!(
            cwnd == window(before) || cwnd == window(at),
            "at {t} s: sampled {cwnd}, log {} / {}",
            window(before),
            window(at)
        );
        exact += (window(before) == window(at)) as u32;
        checked += 1;
    }
    assert_eq!(checked, 100);
    assert!(exact >= 95, "only {exact} samples unambiguous");
}

#[test]
fn a_log_changes_nothing_else_in_the_run() {
    let plain = run(&dumbbell("reno", 5.0, ""));
    let traced = logged("reno", 5.0);
    assert!(plain.cc_log.is_empty());
    assert!(traced.cc_log[0].calls.len() > 5_000);
    assert_eq!(plain.to_json(), traced.to_json());
}

#[test]
fn every_algorithm_replays_its_own_log_call_for_call() {
    // The log holds everything an algorithm sees: a fresh copy fed the
    // recorded calls leaves exactly what the run's copy left, every time.
    for name in algorithm_names() {
        let r = logged(name, 3.0);
        let log = &r.cc_log[0].calls;
        let cfg = ScenarioSpec::from_json(&dumbbell(name, 3.0, ""))
            .unwrap()
            .build()
            .unwrap();
        let mut cc = Cc::new(&cfg.flows[0].cc);
        let calls = replay(&mut cc, log).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(calls > 2_000, "{name}: {calls} calls");
    }
}

#[test]
fn a_tiny_run_logs_what_linux_would_call() {
    // One Reno flow, no jitter, an ACK per segment, 20 segments: the
    // calls and the state each saw can be written down by hand.
    let json = r#"{"duration": 1, "topology": {"kind": "dumbbell",
        "bottleneck": {"rate": 1e9, "delay": 0.01, "buffer": {"packets": 1000}},
        "pairs": [{"rate": 1e10, "delay": 0}]},
        "flows": [{"pair": 0, "size": 28960, "delayed_ack": false, "host_jitter": 0, "timestamps": false}],
        "output": {"cc_log": {"flows": ["reno 0"]}}}"#;
    let r = run(json);
    let log = &r.cc_log[0].calls;
    let names: Vec<&str> = log.iter().map(|c| c.hook.name()).collect();
    // init, then the first transmission after idle; then per ACK in Linux's
    // order: in_ack_event, pkts_acked, cong_control (declined), cong_avoid.
    assert_eq!(&names[..2], ["init", "cwnd_event"]);
    assert_eq!(log[1].hook, Hook::CwndEvent(CaEvent::TxStart));
    let per_ack = ["in_ack_event", "pkts_acked", "cong_control", "cong_avoid"];
    assert_eq!(names.len(), 2 + 20 * 4, "{names:?}");
    for (k, ack) in log[2..].chunks(4).enumerate() {
        assert_eq!(
            ack.iter().map(|c| c.hook.name()).collect::<Vec<_>>(),
            per_ack
        );
        let Hook::PktsAcked(s) = ack[1].hook else {
            unreachable!()
        };
        // Segment k+1 acknowledged; Reno's slow start: cwnd 10 + k before, +1 after.
        assert_eq!(
            (s.pkts_acked, ack[3].before.snd_cwnd, ack[3].after.snd_cwnd),
            (1, 10 + k as u32, 11 + k as u32)
        );
        assert_eq!(
            ack[3].hook,
            Hook::CongAvoid {
                ack: (k as u32 + 1) * 1448,
                acked: 1
            }
        );
        assert_eq!(ack[3].before.snd_ssthresh, TCP_INFINITE_SSTHRESH);
        // RTT: 20 ms of propagation; 1500 bytes serialized at 10, 1 and 10 Gbit/s
        // (1.2 + 12 + 1.2 µs) and the 52-byte ACK back (0.6 µs): 20 014 µs for the
        // first segment; those sent in a burst behind it wait 12 µs each at the bottleneck.
        let first = 20_014;
        if k == 0 {
            assert_eq!(s.rtt_us, first);
            // Linux's order: in_ack_event before the RTT estimator takes the
            // sample (no SRTT yet), pkts_acked after it (srtt_us is 8 × µs,
            // of the sample before its rounding to whole µs).
            assert_eq!(
                (ack[0].before.srtt_us, ack[1].before.srtt_us / 8),
                (0, first as u32)
            );
        }
        assert!((first..first + 12 * 20).contains(&s.rtt_us), "{}", s.rtt_us);
        assert_eq!(ack[0].hook, Hook::InAckEvent(0));
        assert_eq!(ack[2].after.ret, 0);
        assert!(
            ack.iter()
                .all(|c| c.before.ca_state == CaState::Open
                    && c.before.now_us == ack[0].before.now_us)
        );
        // Reno reads no in_flight: the sender keeps no delivery stamps.
        assert_eq!(s.in_flight, 0);
    }
    // The clock: the first ACK arrives one RTT after the start (the start, µs 0).
    assert_eq!(log[1].before.now_us, 0);
    assert_eq!(log[2].before.now_us, 20_014);
}

#[test]
fn nv_gets_linuxs_in_flight_the_bytes_delivered_since_the_newest_segment_was_sent() {
    // The tiny run above with NV, which declares that it reads in_flight.
    // Segments 0–9 leave with delivered = 0; slow start then sends two per
    // ACK, so segment j ≥ 10 leaves with delivered = (j − 10)/2 + 1. ACK k
    // delivers segment k (delivered k + 1): Linux's in_flight is
    // 1448·(k + 1 − that stamp).
    let json = r#"{"duration": 1, "topology": {"kind": "dumbbell",
        "bottleneck": {"rate": 1e9, "delay": 0.01, "buffer": {"packets": 1000}},
        "pairs": [{"rate": 1e10, "delay": 0}]},
        "flows": [{"pair": 0, "size": 28960, "algorithm": "nv", "delayed_ack": false, "host_jitter": 0, "timestamps": false}],
        "output": {"cc_log": {"flows": ["nv 0"]}}}"#;
    let r = run(json);
    let samples: Vec<_> = r.cc_log[0]
        .calls
        .iter()
        .filter_map(|c| match c.hook {
            Hook::PktsAcked(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(samples.len(), 20);
    for (k, s) in samples.iter().enumerate() {
        let k = k as u32;
        let stamp = if k < 10 { 0 } else { (k - 10) / 2 + 1 };
        assert_eq!(
            (s.pkts_acked, s.in_flight),
            (1, 1448 * (k + 1 - stamp)),
            "ACK {k}"
        );
    }
}

#[test]
fn rows_per_ack_stay_within_the_estimate() {
    let json = dumbbell(
        "cubic",
        10.0,
        r#", "output": {"cc_log": {"flows": ["cubic 0", "cubic 1"]}}"#,
    );
    let spec = ScenarioSpec::from_json(&json).unwrap();
    let est = spec.estimate().unwrap();
    let r = run(&json);
    for (FlowCcLog { flow, calls }, &(f, rows)) in r.cc_log.iter().zip(&est.cc_log_rows) {
        assert_eq!(*flow, f);
        let acks = calls
            .iter()
            .filter(|c| matches!(c.hook, Hook::PktsAcked(_)))
            .count() as f64;
        let per_ack = calls.len() as f64 / acks;
        eprintln!(
            "flow {flow}: {} rows, {acks} ACKs, {per_ack:.2} rows per ACK; estimated {rows}",
            calls.len()
        );
        assert!((3.0..=CC_LOG_ROWS_PER_ACK).contains(&per_ack), "{per_ack}");
        assert!(
            (calls.len() as u64) <= rows && calls.len() as u64 >= rows / 3,
            "{} rows, {rows} estimated",
            calls.len()
        );
    }
}

#[test]
fn a_log_too_large_is_refused_before_the_run_with_the_estimate() {
    // An hour at 10 Gbit/s: about 4·10^9 rows.
    let json = r#"{"duration": 3600, "topology": {"kind": "dumbbell",
        "bottleneck": {"rate": 1e10, "delay": 0.01}, "pairs": [{"rate": 1e11, "delay": 0.001}]},
        "flows": [{"pair": 0}], "output": {"cc_log": {"flows": ["reno 0"]}}}"#;
    let e = ScenarioSpec::from_json(json).unwrap().build().unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.value.as_str()),
        ("output.cc_log.flows", "1 flows")
    );
    assert!(
        e.allowed.contains("per-ACK log would hold about")
            && e.allowed.contains("rows")
            && e.allowed.contains("GB"),
        "{e}"
    );
    // The same run without the log is not refused for it.
    let plain = json.replace(r#", "output": {"cc_log": {"flows": ["reno 0"]}}"#, "");
    assert!(
        ScenarioSpec::from_json(&plain)
            .unwrap()
            .estimate()
            .unwrap()
            .memory
            .cc_log
            == 0
    );
}

#[test]
fn unknown_or_missing_flows_are_refused_by_label() {
    let e = ScenarioSpec::from_json(&dumbbell(
        "reno",
        1.0,
        r#", "output": {"cc_log": {"flows": ["cubic 0"]}}"#,
    ))
    .unwrap()
    .build()
    .unwrap_err();
    assert_eq!(e.field, "output.cc_log.flows[0]");
    assert!(e.allowed.contains(r#""reno 0", "reno 1""#), "{e}");
    let e = ScenarioSpec::from_json(&dumbbell(
        "reno",
        1.0,
        r#", "output": {"cc_log": {"flows": []}}"#,
    ))
    .unwrap()
    .build()
    .unwrap_err();
    assert_eq!(e.field, "output.cc_log.flows");
    // Labels as the tables show them: the entry's label, "#k" with a count, canonical algorithm names.
    let spec = ScenarioSpec::from_json(
        &dumbbell("Compound", 1.0, "").replace(r#""start": 0.5}"#, r#""label": "x", "count": 2}"#),
    )
    .unwrap();
    assert_eq!(spec.flow_labels(), ["ctcp 0", "x #0", "x #1"]);
}

#[test]
fn every_timeout_calls_set_state_loss_as_linuxs_tcp_enter_loss() {
    // Every packet lost: timeouts back to back, the later ones in Loss already.
    // Linux's tcp_enter_loss sets the state unguarded, so the algorithm's
    // set_state(Loss) runs at each (BBR restarts its round there).
    let r = run(
        r#"{"duration": 8, "seed": 1, "topology": {"kind": "dumbbell",
            "bottleneck": {"rate": 1e7, "delay": 0.001, "loss": 1.0, "buffer": {"packets": 100}},
            "pairs": [{"rate": 1e9, "delay": 0.009}]},
            "flows": [{"pair": 0, "algorithm": "reno"}],
            "output": {"cc_log": {"flows": ["reno 0"]}}}"#,
    );
    let to_loss = r.cc_log[0]
        .calls
        .iter()
        .filter(|c| c.hook == Hook::SetState(CaState::Loss))
        .count() as u64;
    let timeouts = r.flows[0].counters.timeouts;
    assert!(timeouts >= 3, "{timeouts} timeouts");
    assert_eq!(to_loss, timeouts);
}
