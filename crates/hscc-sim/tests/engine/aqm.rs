//! Queue disciplines and ECN in whole runs: CoDel holds the standing queue
//! near its target where DropTail fills its buffer, ECN flows see marks
//! instead of drops and reduce once per window, FQ-CoDel isolates a TCP flow
//! from a UDP flood, and the per-link counters add up (fixed seeds).

use hscc_sim::prelude::*;

const RATE: u64 = 20_000_000;

/// One bottleneck of 20 Mbit/s, 10 ms each way (RTT 2·(10 + 10) = 40 ms),
/// `buffer` packets, `queue` in both directions; 100 Mbit/s access links.
fn net(queue: QueueConfig, buffer: u64, pairs: usize) -> Dumbbell {
    let bn = LinkConfig::new(RATE, 10 * MS, Buffer::Packets(buffer)).with_queue(queue);
    dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(100_000_000, 10 * MS); pairs],
    )
}

fn reno(s: u32, d: u32, ecn: bool) -> FlowConfig {
    FlowConfig {
        ecn,
        ..FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())
    }
}

fn run(db: Dumbbell, flows: Vec<FlowConfig>, udp: Vec<UdpConfig>, secs: u64) -> RunResult {
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        udp,
        duration: secs * SEC,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    for k in 1..=4 {
        sim.run_until(k * secs * SEC / 4);
        sim.check_conservation().unwrap();
    }
    sim.finish()
}

fn codel(ecn: bool) -> QueueConfig {
    QueueConfig::Codel(CodelParams {
        ecn,
        ..CodelParams::default()
    })
}

#[test]
fn codel_keeps_the_standing_queue_near_target_where_droptail_fills_its_buffer() {
    // A 1000-packet buffer is 600 ms at 20 Mbit/s: bufferbloat.
    let go = |q: QueueConfig| {
        let db = net(q, 1000, 1);
        let (s, d) = db.pairs[0];
        run(db, vec![reno(s, d, false)], vec![], 60)
    };
    let (dt, cd) = (go(QueueConfig::DropTail), go(codel(false)));
    let (b_dt, b_cd) = (&dt.links[0], &cd.links[0]);
    println!(
        "droptail: qdelay {:.4} util {:.3}; codel: qdelay {:.4} p99 {:.4} util {:.3} drops {}",
        b_dt.mean_qdelay_s,
        b_dt.utilization,
        b_cd.mean_qdelay_s,
        b_cd.p99_qdelay_s,
        b_cd.utilization,
        b_cd.counters.drops_aqm
    );
    // DropTail: Reno fills the buffer, hundreds of ms of queue.
    assert!(b_dt.mean_qdelay_s > 0.2, "{}", b_dt.mean_qdelay_s);
    // CoDel: a standing queue of the order of its 5 ms target, found by
    // drops at dequeue (no buffer overflow), while the link stays busy.
    assert!(b_cd.mean_qdelay_s < 0.015, "{}", b_cd.mean_qdelay_s);
    assert!(
        b_cd.counters.drops_aqm > 0 && b_cd.counters.drops_queue == 0,
        "{:?}",
        b_cd.counters
    );
    // One Reno flow halving over a queue this short leaves the link idle for
    // part of each sawtooth (BDP ≈ 67 packets here).
    assert!(b_cd.utilization > 0.75, "{}", b_cd.utilization);
}

#[test]
fn ecn_flows_see_marks_not_drops_and_reduce_once_per_window() {
    // RED marks in its forced region too (Linux's default; with harddrop it
    // would drop there, as ns-2 does).
    let red = RedParams {
        ecn: true,
        harddrop: false,
        min_th: 20.0,
        max_th: 60.0,
        ..RedParams::default()
    };
    for q in [codel(true), QueueConfig::Red(red)] {
        let db = net(q.clone(), 1000, 2);
        let flows = db.pairs.iter().map(|&(s, d)| reno(s, d, true)).collect();
        let r = run(db, flows, vec![], 60);
        let b = &r.links[0];
        println!("{q:?}: {:?}, qdelay {:.4}", b.counters, b.mean_qdelay_s);
        assert!(b.counters.marks > 0, "{:?}", b.counters);
        assert_eq!(
            (b.counters.drops_aqm, b.counters.drops_queue),
            (0, 0),
            "ECN-capable data is marked, never dropped"
        );
        let ce: u64 = r.flows.iter().map(|f| f.counters.ce_received).sum();
        assert_eq!(ce, b.counters.marks, "every mark reaches a receiver");
        for f in &r.flows {
            let c = &f.counters;
            println!(
                "  flow {}: reductions {} ce {} retrans {} recoveries {} goodput {:.2e}",
                f.id, c.ecn_reductions, c.ce_received, c.retrans, c.recoveries, f.goodput_bps
            );
            assert_eq!(
                (c.retrans, c.recoveries, c.timeouts),
                (0, 0, 0),
                "no loss at all"
            );
            assert!(c.ecn_reductions > 0);
            // Once per window: never more reductions than round trips (≥ 40 ms each).
            assert!(
                c.ecn_reductions as f64 <= 60.0 / 0.040,
                "{}",
                c.ecn_reductions
            );
            assert!(c.ecn_reductions <= c.ce_received);
        }
        assert!(b.utilization > 0.85, "{}", b.utilization);
    }
}

#[test]
fn without_ecn_the_same_queues_drop_instead() {
    for q in [
        codel(true),
        QueueConfig::Red(RedParams {
            ecn: true,
            ..RedParams::default()
        }),
        QueueConfig::Pie(PieParams {
            ecn: true,
            ..PieParams::default()
        }),
    ] {
        let db = net(q, 1000, 1);
        let (s, d) = db.pairs[0];
        let r = run(db, vec![reno(s, d, false)], vec![], 30);
        let b = &r.links[0];
        assert!(
            b.counters.drops_aqm > 0 && b.counters.marks == 0,
            "{:?}",
            b.counters
        );
        assert_eq!(r.flows[0].counters.ecn_reductions, 0);
    }
}

#[test]
fn fq_codel_isolates_a_tcp_flow_from_a_udp_flood() {
    // UDP at 1.5× the bottleneck from pair 1; one Reno flow from pair 0.
    let go = |q: QueueConfig| {
        let db = net(q, 1000, 2);
        let ((s, d), (us, ud)) = (db.pairs[0], db.pairs[1]);
        let flood = UdpConfig {
            src: us,
            dst: ud,
            pattern: UdpPattern::Cbr {
                rate_bps: RATE * 3 / 2,
            },
            packet_size: 1500,
            start: 0,
            stop: None,
        };
        run(db, vec![reno(s, d, false)], vec![flood], 30)
    };
    let dt = go(QueueConfig::DropTail);
    let fq = go(QueueConfig::FqCodel(FqCodelParams::default()));
    println!(
        "tcp goodput: droptail {:.3e}, fq_codel {:.3e}; udp received fq {}",
        dt.flows[0].goodput_bps, fq.flows[0].goodput_bps, fq.udp[0].received
    );
    // DropTail: the flood takes the buffer and the link; TCP starves.
    assert!(
        dt.flows[0].goodput_bps < 0.1 * RATE as f64,
        "{}",
        dt.flows[0].goodput_bps
    );
    // FQ-CoDel: each flow gets its round-robin share, about half the link.
    assert!(
        fq.flows[0].goodput_bps > 0.4 * RATE as f64,
        "{}",
        fq.flows[0].goodput_bps
    );
    let b = &fq.links[0];
    assert!(b.counters.drops_queue + b.counters.drops_aqm > 0);
}

#[test]
fn pie_and_red_hold_the_delay_down_too() {
    for q in [
        QueueConfig::Pie(PieParams::default()),
        QueueConfig::Red(RedParams::default()),
    ] {
        let db = net(q.clone(), 1000, 2);
        let flows = db.pairs.iter().map(|&(s, d)| reno(s, d, false)).collect();
        let r = run(db, flows, vec![], 60);
        let b = &r.links[0];
        println!(
            "{q:?}: qdelay {:.4} util {:.3} {:?}",
            b.mean_qdelay_s, b.utilization, b.counters
        );
        // PIE's target is 15 ms; RED's thresholds (5–15 packets) are 3–9 ms here.
        assert!(b.mean_qdelay_s < 0.04, "{}", b.mean_qdelay_s);
        assert!(
            b.counters.drops_aqm > 0 && b.counters.drops_queue == 0,
            "{:?}",
            b.counters
        );
        // Floyd's thresholds are far below this path's BDP (≈ 67 packets): RED
        // keeps the delay low at a cost in throughput; PIE's 15 ms does not.
        let floor = if matches!(q, QueueConfig::Red(_)) {
            0.7
        } else {
            0.9
        };
        assert!(b.utilization > floor, "{}", b.utilization);
    }
}

#[test]
fn traces_count_marks_and_drops_per_interval() {
    let db = net(codel(true), 1000, 2);
    let flows = vec![
        reno(db.pairs[0].0, db.pairs[0].1, true),
        reno(db.pairs[1].0, db.pairs[1].1, false),
    ];
    let r = run(db, flows, vec![], 20);
    let b = &r.links[0];
    let t = r.traces.links.iter().find(|t| t.link == 0).unwrap();
    assert!(
        b.counters.marks > 0 && b.counters.drops_aqm > 0,
        "{:?}",
        b.counters
    );
    // The traces' per-interval counts add up to the counters, up to the last
    // interval (the run's final instant is sampled too).
    let (marks, drops): (u64, u64) = (t.marks.iter().sum(), t.drops.iter().sum());
    assert_eq!(marks, b.counters.marks);
    assert_eq!(
        drops,
        b.counters.drops_aqm + b.counters.drops_queue + b.counters.drops_random
    );
    assert_eq!(
        r.flows[0].counters.ce_received, b.counters.marks,
        "only the ECN flow is marked"
    );
    assert_eq!(r.flows[1].counters.ce_received, 0);
}

#[test]
fn aqm_runs_are_deterministic() {
    let go = || {
        let db = net(QueueConfig::FqCodel(FqCodelParams::default()), 200, 3);
        let flows = db.pairs.iter().map(|&(s, d)| reno(s, d, true)).collect();
        run(db, flows, vec![], 10).to_json()
    };
    assert_eq!(go(), go());
}

#[test]
fn udp_dropped_from_the_queue_leaves_the_networks_count() {
    // A CBR flood at twice the link rate through CoDel: most of its drops
    // happen at dequeue, after the datagrams entered the network.
    let db = net(codel(false), 100, 1);
    let (s, d) = db.pairs[0];
    let flood = UdpConfig {
        src: s,
        dst: d,
        pattern: UdpPattern::Cbr { rate_bps: RATE * 2 },
        packet_size: 1500,
        start: 0,
        stop: None,
    };
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![flood],
        duration: 5 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(5 * SEC);
    sim.check_conservation().unwrap();
    let b = &sim.net.links[0];
    assert!(
        b.queued_drops().packets > 0 && b.counters.drops_aqm > 0,
        "{:?}",
        b.counters
    );
    let in_links = sim
        .net
        .links
        .iter()
        .flat_map(|l| l.packets())
        .filter(|p| p.kind == hscc_sim::packet::Kind::Udp)
        .count() as u64;
    let gone: u64 = sim.net.links.iter_mut().map(|l| l.take_udp_drops()).sum();
    assert_eq!(sim.net.udp_in_network - gone, in_links);
    let r = sim.finish();
    assert_eq!(r.udp[0].sent, r.udp[0].received + r.udp[0].lost + in_links);
}

#[test]
fn a_queue_discipline_refuses_ticks_and_reordering() {
    let bn = |f: fn(LinkConfig) -> LinkConfig| {
        let db = net(codel(false), 100, 1);
        let mut t = db.topology;
        t.links[0].cfg = f(t.links[0].cfg.clone());
        let (s, d) = db.pairs[0];
        Sim::new(SimConfig {
            topology: t,
            flows: vec![reno(s, d, false)],
            ..SimConfig::default()
        })
        .err()
        .map(|e| e.to_string())
    };
    let e = bn(|c| LinkConfig {
        tick: MS,
        delay: 10 * MS,
        ..c
    })
    .unwrap();
    assert!(
        e.starts_with("links[0].tick: 0.001 s") && e.contains("droptail"),
        "{e}"
    );
    let e = bn(|c| LinkConfig {
        jitter: MS,
        jitter_reorders: true,
        ..c
    })
    .unwrap();
    assert!(
        e.starts_with("links[0].jitter_reorders: true") && e.contains("droptail"),
        "{e}"
    );
    assert_eq!(
        bn(|c| LinkConfig {
            jitter: MS,
            loss: 0.01,
            framing: 38,
            ..c
        }),
        None,
        "in-order jitter, loss and framing are fine"
    );
}
