//! DCTCP over a step-marking queue in whole runs (Alizadeh et al., SIGCOMM
//! 2010 §3.3; RFC 8257 §3.3): long-lived flows hold the queue near K and the
//! link busy, where Reno over DropTail fills the buffer.
//!
//! The bounds come from the paper's analysis of N synchronized flows
//! (§3.3), with C·RTT the path's window in packets:
//! W* = (C·RTT + K)/N, the queue peaks at Q_max = K + N, the sawtooth's
//! amplitude is A ≈ ½·√(2N(C·RTT + K)), so its trough is Q_min = Q_max − A;
//! Q_min > 0 (here K > C·RTT/7, the paper's guideline, §3.4) keeps the link busy. Here
//! C = 1 Gbit/s of 1500-byte packets (83 333/s) and RTT = 1 ms: C·RTT = 83.3,
//! K = 20 (the paper's K at 1 Gbit/s, §4):
//! N = 2: Q_max = 22, A = 10.2, Q_min = 11.8;
//! N = 10: Q_max = 30, A = 22.7, Q_min = 7.3.
//! The analysis is fluid (every flow sees each mark, windows change
//! smoothly); the mean of a sawtooth between Q_min and Q_max lies between
//! them, which is what is asserted, over samples taken every millisecond
//! after a 200 ms start-up.

use hscc_sim::prelude::*;

const RATE: u64 = 1_000_000_000;
const K: u64 = 20;
const BUFFER: u64 = 500;

fn run(algorithm: &str, queue: QueueConfig, n: usize) -> RunResult {
    let bn = LinkConfig::new(RATE, 250 * US, Buffer::Packets(BUFFER)).with_queue(queue);
    let db = dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(10 * RATE, 250 * US); n],
    );
    let flows = db
        .pairs
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, CcParams::from_name(algorithm).unwrap()))
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: SEC,
        sample_interval: Some(MS),
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(SEC);
    sim.check_conservation().unwrap();
    sim.finish()
}

/// Mean and largest queue (packets) and mean utilization of the bottleneck after start-up.
fn steady(r: &RunResult) -> (f64, u64, f64) {
    let t = &r.traces;
    let link = &t.links[0];
    let from = t.time_s.iter().position(|&s| s > 0.2).unwrap();
    let q = &link.queue_pkts[from..];
    let u = &link.utilization[from..];
    let mean = q.iter().sum::<u64>() as f64 / q.len() as f64;
    let util = u.iter().sum::<f64>() / u.len() as f64;
    (mean, *q.iter().max().unwrap(), util)
}

fn step() -> QueueConfig {
    QueueConfig::Step(StepParams {
        k_packets: Some(K),
        k_bytes: None,
    })
}

#[test]
fn dctcp_holds_the_queue_near_k_where_reno_fills_the_buffer() {
    for (n, q_min, q_max) in [(2, 11.8, 22.0), (10, 7.3, 30.0)] {
        let r = run("dctcp", step(), n);
        let (mean, max, util) = steady(&r);
        let b = &r.links[0];
        println!(
            "dctcp N={n}: queue mean {mean:.1} max {max} util {util:.3}; marks {} drops {}",
            b.counters.marks, b.counters.drops_queue
        );
        assert!((q_min..=q_max).contains(&mean), "N={n}: mean queue {mean}");
        assert!(util > 0.99, "N={n}: utilization {util}");
        assert_eq!(b.counters.drops_queue, 0, "N={n}: marks, no drops");
        if n == 2 {
            let again = run("dctcp", step(), n);
            assert_eq!(again.to_json(), r.to_json(), "same seed, same run");
        }
        let reno = run("reno", QueueConfig::DropTail, n);
        let (mean, _, util) = steady(&reno);
        println!("reno/droptail N={n}: queue mean {mean:.1} util {util:.3}");
        // Reno halves from a full buffer: its sawtooth stays above BUFFER/2 − C·RTT/2.
        assert!(
            mean > (BUFFER as f64 - 83.3) / 2.0,
            "N={n}: reno mean queue {mean}"
        );
    }
}
