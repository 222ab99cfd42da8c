//! Random loss in the ACK direction: the dumbbell's reverse bottleneck with a
//! loss rate drops ACKs only, and a cumulative ACK covers a lost one.

use hscc_sim::{RunResult, ScenarioSpec, Sim};

fn run(reverse_loss: f64) -> RunResult {
    let json = format!(
        r#"{{"duration": 20, "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate": "10Mbps", "delay": "10ms", "buffer": "1bdp"}},
            "reverse": {{"rate": "10Mbps", "delay": "10ms", "buffer": "1bdp", "loss": {reverse_loss}}},
            "pairs": [{{"rtt": "50ms"}}]}},
           "flows": [{{"pair": 0}}], "output": {{"traces": []}}}}"#
    );
    let cfg = ScenarioSpec::from_json(&json).unwrap().build().unwrap();
    Sim::new(cfg).unwrap().run()
}

#[test]
fn loss_on_the_reverse_bottleneck_drops_acks_not_data() {
    let (clean, lossy) = (run(0.0), run(0.1));
    let link =
        |r: &RunResult, name: &str| r.links.iter().find(|l| l.name == name).unwrap().counters;
    let (fwd, rev) = (
        link(&lossy, "bottleneck:fwd"),
        link(&lossy, "bottleneck:rev"),
    );
    assert_eq!(fwd.drops_random, 0);
    // About 10 % of the ACKs crossing the reverse bottleneck (± 5 standard deviations).
    let offered = (rev.drops_random + rev.tx_packets) as f64;
    let p = rev.drops_random as f64 / offered;
    assert!(
        (p - 0.1).abs() < 5.0 * (0.1 * 0.9 / offered).sqrt(),
        "ACK loss rate {p}"
    );
    // Cumulative ACKs cover the lost ones: the flow still fills the link (within 5 %).
    assert!(
        lossy.flows[0].goodput_bps > 0.95 * clean.flows[0].goodput_bps,
        "{} vs {}",
        lossy.flows[0].goodput_bps,
        clean.flows[0].goodput_bps
    );
    assert_eq!(lossy.flows[0].counters.timeouts, 0);
}
