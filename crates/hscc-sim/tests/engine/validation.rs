//! Validation against analytical models and published expectations.
//! These runs are long in simulated time but take seconds of wall time.

use crate::record::Row;
use hscc_sim::prelude::*;
use serde_json::json;

/// Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), eq. (31): the send rate of
/// a Reno flow with loss rate p, round-trip time `rtt`, timeout `t0` and `b`
/// segments acknowledged per window increment, in segments per second.
fn padhye(p: f64, rtt: f64, t0: f64, b: f64) -> f64 {
    let td = rtt * (2.0 * b * p / 3.0).sqrt();
    let to = t0 * (1.0f64).min(3.0 * (3.0 * b * p / 8.0).sqrt()) * p * (1.0 + 32.0 * p * p);
    1.0 / (td + to)
}

struct Lossy {
    send_rate: f64,
    measured_p: f64,
    model: f64,
    rtt: f64,
    t0: f64,
}

/// One Reno flow, 1 Gbit/s, RTT 100 ms, a buffer that never fills: only
/// random loss on the data path limits it. As Padhye et al. did in their
/// validation, the model is evaluated at the loss rate the run realized
/// (drops / packets offered to the lossy link), with the measured RTT and RTO.
fn lossy_reno(p: f64, seconds: u64) -> Lossy {
    let bn = LinkConfig::new(1_000_000_000, MS, Buffer::Packets(100_000)).with_loss(p);
    let rev = LinkConfig::new(1_000_000_000, MS, Buffer::Packets(100_000));
    let db = dumbbell(bn, rev, &[AccessSpec::new(10_000_000_000, 49 * MS)]);
    let (s, d) = db.pairs[0];
    let flow = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![flow],
        duration: seconds * SEC,
        seed: 7,
        sample_interval: None,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(seconds * SEC);
    let link = sim.net.links[db.bottleneck.0 as usize].counters;
    let measured_p = link.drops_random as f64 / (link.drops_random + link.tx_packets) as f64;
    let s = &sim.flows[0].sender;
    let (rtt, t0) = (secs(s.rtt.srtt()), secs(s.rtt.rto(0)));
    // Linux byte counting grows cwnd one segment per RTT with delayed ACKs too: b = 1.
    Lossy {
        send_rate: s.counters.segs_sent as f64 / seconds as f64,
        measured_p,
        model: padhye(measured_p, rtt, t0, 1.0),
        rtt,
        t0,
    }
}

/// Target: within 15% of Padhye at p = 1e-4, 1e-3, 1e-2 (SACK, PRR: Linux defaults).
/// hscc runs above the model by 3–10%: Padhye assumes the packets after a loss
/// in the same round are lost too (a deterministic sawtooth, W̄ = 1.22/√p),
/// whereas independent losses give W̄ ≈ 1.31/√p (Altman et al. 2005; a
/// stochastic fluid or per-round model gives the same 1.31). See docs/validation/engine.md.
#[test]
fn reno_follows_the_padhye_model_under_random_loss() {
    for (p, seconds) in [(1e-4, 6000), (1e-3, 1500), (1e-2, 600)] {
        let r = lossy_reno(p, seconds);
        let err = r.send_rate / r.model - 1.0;
        Row {
            name: &format!("padhye-reno-{p:e}"),
            group: "padhye",
            label: &format!("{p:e} ({seconds} s)"),
            conditions: &format!("one Reno flow (SACK, PRR, delayed ACKs), 1 Gbit/s, RTT 100 ms, Bernoulli loss {p:e}, {seconds} s, seed 7"),
        }
        .write(
            json!({"p": r.measured_p, "send_rate": r.send_rate, "srtt_s": r.rtt, "rto_s": r.t0}),
            json!({"p": p, "send_rate": r.model}),
            json!({"p": 0.1, "send_rate": 0.15}),
        );
        eprintln!(
            "p {p:e} (measured {:.3e}): {:.1} seg/s vs Padhye {:.1} ({:+.1}%)",
            r.measured_p,
            r.send_rate,
            r.model,
            err * 100.0
        );
        assert!(
            (r.measured_p / p - 1.0).abs() < 0.1,
            "realized loss rate {} far from {p}",
            r.measured_p
        );
        assert!(
            err.abs() < 0.15,
            "p = {p}: {:.1} seg/s vs model {:.1}",
            r.send_rate,
            r.model
        );
    }
}

fn dumbbell_reno(n: usize, rate: u64, access_delay: Time, buffer: u64, seconds: u64) -> RunResult {
    let bn = LinkConfig::new(rate, MS, Buffer::Packets(buffer));
    let pairs: Vec<AccessSpec> = (0..n)
        .map(|_| AccessSpec::new(rate * 10, access_delay))
        .collect();
    let db = dumbbell(bn.clone(), bn, &pairs);
    let flows = db
        .pairs
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap()))
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: seconds * SEC,
        seed: 3,
        sample_interval: Some(SEC),
        ..SimConfig::default()
    };
    Sim::new(cfg).unwrap().run()
}

#[test]
fn one_flow_with_a_bdp_buffer_fills_the_bottleneck() {
    // 100 Mbit/s, RTT 2·(24 + 1) = 50 ms: BDP = 100e6·0.05/12000 ≈ 417 packets.
    let r = dumbbell_reno(1, 100_000_000, 24 * MS, 417, 120);
    // Utilization after the initial slow start (from 10 s on).
    let u = &r.traces.links[0].utilization;
    let steady = u[10..].iter().sum::<f64>() / u[10..].len() as f64;
    eprintln!(
        "utilization {:.4} (whole run {:.4}), recoveries {}",
        steady, r.links[0].utilization, r.flows[0].counters.recoveries
    );
    Row {
        name: "reno-fills-a-bdp-buffer",
        group: "aimd",
        label: "one Reno flow, 100 Mbit/s, RTT 50 ms, buffer = BDP (417 packets), 120 s",
        conditions: "dumbbell, DropTail, seed 3",
    }
    .write(
        json!({"utilization_after_10_s": steady, "utilization_whole_run": r.links[0].utilization, "recoveries": r.flows[0].counters.recoveries}),
        json!(null),
        json!({"utilization_after_10_s": {"min": 0.95}, "recoveries": {"min": 3}}),
    );
    assert!(steady >= 0.95, "utilization {steady}");
    assert!(
        r.flows[0].counters.recoveries >= 3,
        "the flow must have been through several sawtooth cycles"
    );
}

#[test]
fn four_reno_flows_with_equal_rtt_share_fairly() {
    // 50 Mbit/s, RTT 2·(19 + 1) = 40 ms, buffer = BDP ≈ 167 packets, 200 s.
    let r = dumbbell_reno(4, 50_000_000, 19 * MS, 167, 200);
    let g = r.goodputs();
    eprintln!(
        "goodputs {:?} Mbit/s, Jain {:?}",
        g.iter()
            .map(|x| (x / 1e5).round() / 10.0)
            .collect::<Vec<_>>(),
        r.jain_index
    );
    let total: f64 = g.iter().sum();
    Row {
        name: "four-reno-share-fairly",
        group: "aimd",
        label: "four Reno flows, 50 Mbit/s, RTT 40 ms, buffer = BDP (167 packets), 200 s",
        conditions: "dumbbell, DropTail, seed 3",
    }
    .write(
        json!({"jain": r.jain_index, "aggregate_mbps": total / 1e6}),
        json!(null),
        json!({"jain": {"min": 0.95}, "aggregate_mbps": {"min": 45.0}}),
    );
    assert!(r.jain_index.unwrap() >= 0.95, "Jain {:?}", r.jain_index);
    assert!(total >= 0.9 * 50e6, "aggregate {total}");
}
