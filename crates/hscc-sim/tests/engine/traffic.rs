//! Traffic sources, scheduled changes and the papers' metrics, checked with
//! hand-computed or statistical expectations (fixed seeds).

use hscc_sim::prelude::*;
use hscc_sim::rng::{component_rng, Component};

/// A dumbbell with `pairs` host pairs: bottleneck `rate`, 10 ms each way, access 10× faster, 5 ms.
fn net(rate: u64, buffer: u64, pairs: usize) -> Dumbbell {
    let bn = LinkConfig::new(rate, 10 * MS, Buffer::Packets(buffer));
    dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(rate * 10, 5 * MS); pairs],
    )
}

fn udp(src: u32, dst: u32, pattern: UdpPattern, size: u32) -> UdpConfig {
    UdpConfig {
        src,
        dst,
        pattern,
        packet_size: size,
        start: 0,
        stop: None,
    }
}

#[test]
fn cbr_delivers_exactly_its_rate_with_constant_delay() {
    let db = net(100_000_000, 1000, 1);
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(
            s,
            d,
            UdpPattern::Cbr {
                rate_bps: 10_000_000,
            },
            1250,
        )],
        duration: 10 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let u = &r.udp[0];
    // 10 Mbit/s of 1250-byte packets: one per ms at 0, 1, …, 10 000 ms (the run
    // includes its last instant). The 16 sent at 9985 ms or later are still in
    // flight at 10 s (one-way delay 15.2 ms): received, not lost.
    assert_eq!(u.sent, 10_001);
    assert_eq!((u.received, u.lost), (9_985, 0));
    // One-way delay: 5 + 10 + 0 ms of propagation + serialization at 1 Gbit/s, 100 Mbit/s and 1 Gbit/s.
    let expected = 0.015 + 10_000.0 / 1e9 + 10_000.0 / 1e8 + 10_000.0 / 1e9;
    assert!(
        (u.mean_delay_s - expected).abs() < 1e-6,
        "{}",
        u.mean_delay_s
    );
    assert!(u.jitter_s < 1e-9);
}

#[test]
fn on_off_sends_at_peak_rate_half_the_time() {
    // CTCP Table 1: 10 s on, 10 s off. 100 Mbit/s peak, 1500-byte packets (one per
    // 120 µs), 60 s: three on periods of 83 334 packets, plus the first packet of the
    // fourth on period at exactly 60 s; mean 50 Mbit/s.
    let db = net(1_000_000_000, 1000, 1);
    let (s, d) = db.pairs[0];
    let pattern = UdpPattern::OnOff {
        rate_bps: 100_000_000,
        on: 10 * SEC,
        off: 10 * SEC,
    };
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(s, d, pattern, 1500)],
        duration: 60 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(15 * SEC);
    assert_eq!(
        sim.udp[0].source.sent, 83_334,
        "nothing is sent in the first off period (10-15 s)"
    );
    let r = sim.finish_after(60 * SEC);
    assert_eq!(r.udp[0].sent, 250_003);
    assert!((r.udp[0].throughput_bps / 50e6 - 1.0).abs() < 1e-3);
}

#[test]
fn poisson_arrivals_have_the_configured_mean_and_exponential_gaps() {
    // TCP-Africa's background: 3 % of 1 Gbit/s = 30 Mbit/s of 1500-byte packets, 2500 packets/s.
    let cfg = udp(
        0,
        1,
        UdpPattern::Poisson {
            rate_bps: 30_000_000,
        },
        1500,
    );
    let mut src = hscc_sim::udp::UdpSource::new(cfg, component_rng(3, Component::Traffic, 0));
    let mut t = src.first().unwrap();
    let mut gaps = Vec::new();
    for _ in 0..200_000 {
        let next = src.next_after(t).unwrap();
        gaps.push(secs(next - t));
        t = next;
    }
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n).sqrt();
    // Mean 400 µs; the standard error of the mean is 400 µs/√200000 ≈ 0.9 µs.
    assert!((mean - 400e-6).abs() < 4e-6, "mean gap {mean}");
    // An exponential distribution has a coefficient of variation of 1.
    assert!((sd / mean - 1.0).abs() < 0.01, "cv {}", sd / mean);
}

#[test]
fn voip_delay_grows_when_a_bulk_flow_fills_the_queue() {
    // 64 kbit/s voice in 20 ms packets: 160 bytes + 40 bytes of IP/UDP/RTP headers
    // = 200 bytes every 20 ms, 80 kbit/s on the wire; 1001 packets in [0, 20 s].
    let voip = |db: &Dumbbell| {
        let (s, d) = db.pairs[0];
        vec![
            udp(s, d, UdpPattern::Cbr { rate_bps: 80_000 }, 200),
            udp(d, s, UdpPattern::Cbr { rate_bps: 80_000 }, 200),
        ]
    };
    let db = net(10_000_000, 200, 2);
    let alone = SimConfig {
        topology: db.topology.clone(),
        udp: voip(&db),
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(alone).unwrap().run();
    assert_eq!(r.udp[0].sent, 1001);
    let base = r.udp[0].mean_delay_s;
    assert!((base - 0.0152).abs() < 0.0002, "{base}");
    let (s, d) = db.pairs[1];
    let loaded = SimConfig {
        topology: db.topology.clone(),
        flows: vec![FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())],
        udp: voip(&db),
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(loaded).unwrap().run();
    // A 200-packet queue at 10 Mbit/s holds up to 240 ms; Reno keeps it partly full.
    assert!(
        r.udp[0].mean_delay_s > base + 0.05,
        "forward VoIP delay {}",
        r.udp[0].mean_delay_s
    );
    assert!(r.udp[0].jitter_s > 0.0);
    // The reverse direction carries only ACKs: its VoIP delay barely moves.
    assert!(
        r.udp[1].mean_delay_s < base + 0.005,
        "reverse VoIP delay {}",
        r.udp[1].mean_delay_s
    );
}

#[test]
fn pareto_sizes_match_their_median_and_tail() {
    // Pareto(shape 1.2, mean 12 kB): scale = 12000·0.2/1.2 = 2000 bytes,
    // median = scale·2^(1/1.2) = 3563.6 bytes, P(X > 20 kB) = (2000/20000)^1.2 = 0.0631.
    let d = SizeDist::Pareto {
        shape: 1.2,
        mean: 12_000.0,
    };
    let mut rng = component_rng(5, Component::Traffic, 9);
    let mut v: Vec<u64> = (0..200_000).map(|_| d.sample(&mut rng)).collect();
    v.sort_unstable();
    let median = v[v.len() / 2] as f64;
    assert!((median / 3563.6 - 1.0).abs() < 0.01, "median {median}");
    let tail = v.iter().filter(|&&x| x > 20_000).count() as f64 / v.len() as f64;
    assert!((tail - 0.0631).abs() < 0.003, "tail {tail}");
    assert!(v[0] >= 2000);
    let e = SizeDist::Exponential { mean: 5000.0 };
    let m = (0..200_000).map(|_| e.sample(&mut rng) as f64).sum::<f64>() / 200_000.0;
    assert!((m / 5000.0 - 1.0).abs() < 0.01, "exponential mean {m}");
}

#[test]
fn web_transfers_arrive_as_poisson_and_report_response_times_by_size() {
    let db = net(100_000_000, 500, 4);
    let servers: Vec<u32> = db.pairs.iter().map(|p| p.0).collect();
    let clients: Vec<u32> = db.pairs.iter().map(|p| p.1).collect();
    let tcp = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
    let web = WebConfig {
        servers,
        clients,
        rate: 50.0,
        size: SizeDist::Pareto {
            shape: 1.2,
            mean: 12_000.0,
        },
        tcp,
        start: 0,
        stop: None,
        model: Default::default(),
    };
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: 40 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(40 * SEC);
    sim.check_conservation().unwrap();
    // Slots are recycled: far fewer slots than transfers.
    let slots = sim.flows.len();
    let r = sim.finish();
    let w = &r.web[0];
    // 50/s for 40 s: 2000 ± 3·√2000 ≈ 134.
    assert!(
        (w.started as f64 - 2000.0).abs() < 134.0,
        "started {}",
        w.started
    );
    assert!(w.completed + 50 >= w.started && w.completed <= w.started);
    assert!(slots < 200, "{slots} slots for {} transfers", w.started);
    // Every completed transfer takes at least the one-way delay (15 ms) plus serialization;
    // small ones (one round trip) take well under a second on an idle-ish link.
    let small = w
        .bins
        .iter()
        .find(|b| b.size_min == 2048)
        .expect("2-4 kB bin");
    assert!(small.median_s > 0.015 && small.median_s < 0.2, "{small:?}");
    let big = w
        .bins
        .iter()
        .filter(|b| b.size_min >= 65_536)
        .map(|b| b.median_s)
        .fold(0.0, f64::max);
    assert!(big > small.median_s, "larger transfers take longer");
}

#[test]
fn a_rate_change_takes_effect_at_its_scheduled_time() {
    // CBR at 8 Mbit/s through a 10 Mbit/s bottleneck that drops to 4 Mbit/s at 5 s.
    let db = net(10_000_000, 50, 1);
    let (s, d) = db.pairs[0];
    let change = LinkChange {
        at: 5 * SEC,
        link: db.bottleneck.0,
        rate_bps: Some(4_000_000),
        delay: None,
    };
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(
            s,
            d,
            UdpPattern::Cbr {
                rate_bps: 8_000_000,
            },
            1000,
        )],
        changes: vec![change],
        duration: 15 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(5 * SEC);
    let at_change = sim.udp[0].sink.bytes;
    assert_eq!(
        sim.net.links[db.bottleneck.0 as usize].counters.drops_queue,
        0
    );
    sim.run_until(15 * SEC);
    // After the change the link delivers 4 Mbit/s: 5 MB in 10 s (± what was in flight).
    let after = (sim.udp[0].sink.bytes - at_change) as f64;
    assert!(
        (after / 5e6 - 1.0).abs() < 0.005,
        "{after} bytes after the change"
    );
    assert!(sim.net.links[db.bottleneck.0 as usize].counters.drops_queue > 0);
}

#[test]
fn a_delay_change_moves_one_way_delay_at_its_scheduled_time() {
    // Rerouting (Sync-TCP §V.C): the bottleneck delay goes from 10 ms to 50 ms at 5 s.
    let db = net(10_000_000, 50, 1);
    let (s, d) = db.pairs[0];
    let change = LinkChange {
        at: 5 * SEC,
        link: db.bottleneck.0,
        rate_bps: None,
        delay: Some(50 * MS),
    };
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(s, d, UdpPattern::Cbr { rate_bps: 80_000 }, 200)],
        changes: vec![change],
        duration: 10 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let u = &r.udp[0];
    // Half the packets see 15.2 ms, half 55.2 ms.
    assert!(
        (u.mean_delay_s - 0.0352).abs() < 0.001,
        "{}",
        u.mean_delay_s
    );
    assert!((u.max_delay_s - 0.0552).abs() < 0.0002, "{}", u.max_delay_s);
}

#[test]
fn bandwidth_stolen_is_zero_for_reno_against_reno_and_large_for_highspeed() {
    // CTCP §IV.C: 4 regular Reno flows with 4 tested flows; baseline = the tested ones as Reno.
    let cfg = |algo: &str| {
        let db = net(100_000_000, 400, 8);
        let flows = db
            .pairs
            .iter()
            .enumerate()
            .map(|(i, &(s, d))| {
                FlowConfig::bulk(
                    s,
                    d,
                    CcParams::from_name(if i < 4 { "reno" } else { algo }).unwrap(),
                )
            })
            .collect();
        SimConfig {
            topology: db.topology,
            flows,
            duration: 60 * SEC,
            ..SimConfig::default()
        }
    };
    let tested = [4, 5, 6, 7];
    let reno = bandwidth_stolen(&cfg("reno"), &tested).unwrap();
    assert!(reno.stolen.abs() < 0.05, "{}", reno.stolen);
    assert!(reno.p_bps > 40e6);
    let hs = bandwidth_stolen(&cfg("scalable"), &tested).unwrap();
    assert!(hs.stolen > 0.2, "Scalable steals {}", hs.stolen);
    assert_eq!(hs.p_bps, reno.p_bps, "the baseline is the same run");
}

#[test]
fn losses_during_slow_start_are_counted_apart() {
    // One Reno flow overshoots in slow start into a 20-packet buffer, then saws in congestion avoidance.
    let db = net(10_000_000, 20, 1);
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())],
        duration: 60 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let c = r.links[db.bottleneck.0 as usize].counters;
    assert!(c.drops_queue_slow_start > 0, "{c:?}");
    assert!(c.drops_queue > c.drops_queue_slow_start, "{c:?}");
}

#[test]
fn udp_drops_at_a_full_queue_are_counted_apart() {
    // A Reno flow and 5 Mbit/s of CBR share a 10 Mbit/s link with a 20-packet buffer: every
    // datagram the UDP source loses is lost there, and the TCP flow loses packets there too.
    let db = net(10_000_000, 20, 1);
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())],
        udp: vec![udp(
            s,
            d,
            UdpPattern::Cbr {
                rate_bps: 5_000_000,
            },
            1250,
        )],
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let c = r.links[db.bottleneck.0 as usize].counters;
    assert!(r.udp[0].lost > 0);
    assert_eq!(c.drops_queue_udp, r.udp[0].lost, "{c:?}");
    assert!(
        c.drops_queue > c.drops_queue_udp + c.drops_queue_slow_start,
        "TCP losses after slow start: {c:?}"
    );
}

#[test]
fn mean_backlog_follows_littles_law() {
    // CBR at 12 Mbit/s into a 10 Mbit/s link with a 100-packet buffer: after
    // ~0.6 s the queue stays full (100 packets) for the rest of the 20 s run.
    let db = net(10_000_000, 100, 1);
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(
            s,
            d,
            UdpPattern::Cbr {
                rate_bps: 12_000_000,
            },
            1250,
        )],
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let l = &r.links[db.bottleneck.0 as usize];
    assert!(
        l.mean_queue_pkts > 95.0 && l.mean_queue_pkts <= 100.0,
        "{}",
        l.mean_queue_pkts
    );
    assert!((l.normalized_occupancy - l.mean_queue_pkts / 100.0).abs() < 1e-12);
    assert!((l.mean_queue_bytes / l.mean_queue_pkts - 1250.0).abs() < 1.0);
}

#[test]
fn short_term_jain_and_throughput_ratio() {
    // Two Reno flows, RTT 40 ms and 120 ms (CTCP Table 2's shape): the short one gets more.
    let bn = LinkConfig::new(20_000_000, MS, Buffer::Packets(100));
    let db = dumbbell(
        bn.clone(),
        bn,
        &[
            AccessSpec::new(200_000_000, 19 * MS),
            AccessSpec::new(200_000_000, 59 * MS),
        ],
    );
    let flows = db
        .pairs
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap()))
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: 120 * SEC,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let ratio = r.throughput_ratio(&[0], &[1]);
    assert!(ratio > 1.5, "short/long throughput ratio {ratio}");
    let j = r.short_term_jain(1.0, 10.0).unwrap();
    assert!(
        j > 0.5 && j < r.jain_index.unwrap() + 0.05,
        "short-term Jain {j}, long-term {:?}",
        r.jain_index
    );
}

#[test]
fn sender_processing_jitter_keeps_order_and_bounds() {
    // ns-2 overhead_ = 8 µs (TCP-Africa §IV): every packet leaves within 8 µs, in order.
    let db = net(100_000_000, 1000, 1);
    let (s, d) = db.pairs[0];
    let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
    f.host_jitter = 8 * US;
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![f],
        duration: 10 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(10 * SEC);
    sim.check_conservation().unwrap();
    let r = sim.finish();
    assert!(r.flows[0].goodput_bps > 80e6);
    assert_eq!(r.flows[0].counters.timeouts, 0);
}

#[test]
fn two_hundred_fifty_six_flows_with_web_traffic_run() {
    // Sync-TCP §VI.B scale: 256 long flows plus web traffic on a 1 Gbit/s dumbbell.
    let n = 256;
    let bn = LinkConfig::new(1_000_000_000, 25 * MS, Buffer::Packets(2000));
    let pairs: Vec<AccessSpec> = (0..n + 4)
        .map(|i| AccessSpec::new(10_000_000_000, (5 + (i % 21) as u64) * MS))
        .collect();
    let db = dumbbell(bn.clone(), bn, &pairs);
    let flows = db.pairs[..n]
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap()))
        .collect();
    let tcp = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
    let web = WebConfig {
        servers: db.pairs[n..].iter().map(|p| p.0).collect(),
        clients: db.pairs[n..].iter().map(|p| p.1).collect(),
        rate: 200.0,
        size: SizeDist::Pareto {
            shape: 1.2,
            mean: 12_000.0,
        },
        tcp,
        start: 0,
        stop: None,
        model: Default::default(),
    };
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        web: vec![web],
        duration: 10 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(10 * SEC);
    sim.check_conservation().unwrap();
    let r = sim.finish();
    assert!(r.flows.iter().all(|f| f.counters.delivered_segs > 0));
    assert!(r.links[0].utilization > 0.9, "{}", r.links[0].utilization);
    assert!(r.web[0].completed > 1500, "{:?}", r.web[0].completed);
}

#[test]
#[ignore = "slow: 1024 flows for 30 s (run with --ignored)"]
fn a_thousand_flows_run() {
    let n = 1024;
    let bn = LinkConfig::new(1_000_000_000, 25 * MS, Buffer::Packets(4000));
    let pairs: Vec<AccessSpec> = (0..n)
        .map(|i| AccessSpec::new(10_000_000_000, (5 + (i % 21) as u64) * MS))
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
        duration: 30 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(30 * SEC);
    sim.check_conservation().unwrap();
    let r = sim.finish();
    assert!(r.links[0].utilization > 0.9);
    assert!(r.flows.iter().all(|f| f.counters.delivered_segs > 0));
}
