//! Which ACKs restart the retransmission timer (`rto_restart`): those of new
//! data (RFC 6298 §5.3) or every one, duplicates included (ns-2.35's TCP-Linux
//! agent, tcp/tcp-linux.cc `time_processing`: `renew_timer`). Hand-computed
//! deadlines.

use hscc_sim::config::FlowConfig;
use hscc_sim::tcp::rtt::RtoRestart;
use hscc_sim::testing::{ack, classic, started, Capture};
use hscc_sim::time::{Time, MS, NS, US};
use hscc_sim::ScenarioSpec;

/// Ten segments out at 0; the ACK of segment 0 at 100 ms, whose sample sets
/// SRTT = 100 ms and RTTVAR = 50 ms, so RTO = 100 + 4 · 50 = 300 ms (RFC 6298
/// §2.2); then two duplicate ACKs, each SACKing one more segment sent at 0 (too
/// few for a fast retransmission), at 350 and 390 ms, whose samples move the
/// RTO (§2.3: RTTVAR from the old SRTT, then SRTT): at 350 ms RTTVAR =
/// 3/4 · 50 + 1/4 · 250 = 100, SRTT = 7/8 · 100 + 1/8 · 350 = 131.25, RTO =
/// 531.25 ms; at 390 ms RTTVAR = 3/4 · 100 + 1/4 · 258.75 = 139.6875, SRTT =
/// 131.25 + 258.75 / 8 = 163.59375, RTO = 722.34375 ms. The timer's deadline
/// after each ACK.
fn deadlines(restart: RtoRestart) -> Vec<Time> {
    let cfg = FlowConfig {
        rto_restart: restart,
        ..classic()
    };
    let (mut s, mut w) = started::<Capture>(&cfg);
    w.now = 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    let mut out = vec![s.rto_timer.deadline];
    for (sacked, at) in [(2, 350), (3, 390)] {
        w.now = at * MS;
        s.on_ack(&ack(1, &[(sacked, sacked + 1)]), &mut w);
        out.push(s.rto_timer.deadline);
    }
    assert_eq!(s.counters.retrans, 0, "no fast retransmission yet");
    out
}

#[test]
fn only_an_ack_of_new_data_restarts_the_rto_by_default() {
    assert_eq!(deadlines(RtoRestart::NewData), [400 * MS; 3]);
}

#[test]
fn with_every_ack_a_duplicate_ack_restarts_it_too() {
    assert_eq!(
        deadlines(RtoRestart::EveryAck),
        [400 * MS, 881_250 * US, 1_112_343_750 * NS]
    );
}

#[test]
fn a_scenario_names_it_per_flow_and_refuses_other_values() {
    let scenario = |value: &str| {
        ScenarioSpec::from_json(&format!(
            r#"{{"duration": 1, "topology": {{"kind": "dumbbell",
                "bottleneck": {{"rate": 1e7, "delay": 0.005, "buffer": {{"packets": 50}}}},
                "pairs": [{{"rate": 1e8, "delay": 0.01}}]}},
                "flows": [{{"pair": 0, "rto_restart": {value}}}]}}"#
        ))
        .and_then(|s| s.build())
    };
    let built = scenario(r#""every_ack""#).unwrap();
    assert_eq!(built.flows[0].rto_restart, RtoRestart::EveryAck);
    let e = scenario(r#""always""#).unwrap_err().to_string();
    assert!(
        e.contains("rto_restart") && e.contains("every_ack") && e.contains("always"),
        "{e}"
    );
}
