//! Links, queues and whole-flow behaviour with hand-computed expectations.

use hscc_sim::event::{Event, EventQueue};
use hscc_sim::link::{Link, Offer};
use hscc_sim::packet::Packet;
use hscc_sim::prelude::*;
use hscc_sim::rng::{component_rng, Component};

fn link(cfg: &LinkConfig) -> (Link, EventQueue) {
    (
        Link::new(cfg, 1, component_rng(1, Component::Link, 0), true),
        EventQueue::default(),
    )
}

fn pkt(i: u64, size: u32) -> Packet {
    Packet::data(0, i, size, 0, 0)
}

/// Offer `n` packets at time 0, run the link, return arrival times.
fn arrivals(cfg: &LinkConfig, n: u64, size: u32) -> (Vec<Time>, Link) {
    let (mut l, mut q) = link(cfg);
    for i in 0..n {
        l.offer(&pkt(i, size), 0, 0, 0, &mut q);
    }
    let mut out = Vec::new();
    while let Some((t, Event::LinkArrive(0))) = q.pop() {
        out.push(l.on_arrive(t, 0, &mut q).t);
    }
    (out, l)
}

#[test]
fn a_link_delivers_at_exactly_its_rate() {
    // 700 Mbit/s: a 1500-byte packet takes 17 142 857.142… ps; with the
    // remainder carried, packet k arrives at floor(k·12000·10^12 / 7·10^8) + delay.
    let cfg = LinkConfig::new(700_000_000, MS, Buffer::Packets(100_000));
    let (t, l) = arrivals(&cfg, 70_000, 1500);
    for (k, &a) in t.iter().enumerate() {
        let k = k as u128 + 1;
        assert_eq!(
            a as u128,
            k * 12_000 * 1_000_000_000_000 / 700_000_000 + MS as u128,
            "packet {k}"
        );
    }
    // 70 000 packets of 12 000 bits at 700 Mbit/s: exactly 1.2 s, no drift.
    assert_eq!(*t.last().unwrap(), 1_200 * MS + MS);
    assert_eq!(l.counters.tx_bytes, 70_000 * 1500);
}

#[test]
fn a_full_queue_drops_tail_in_packets_and_bytes() {
    let cfg = LinkConfig::new(1_000_000, MS, Buffer::Packets(5));
    let (mut l, mut q) = link(&cfg);
    let offers: Vec<Offer> = (0..10)
        .map(|i| l.offer(&pkt(i, 1500), 0, 0, 0, &mut q))
        .collect();
    // One is serialized at once, five wait, four are dropped.
    assert_eq!(offers.iter().filter(|o| **o == Offer::Accepted).count(), 6);
    assert_eq!(&offers[6..], &[Offer::QueueDrop; 4]);
    assert_eq!((l.queue_len(), l.counters.drops_queue), (5, 4));
    // 12 ms later (one packet time at 1 Mbit/s) one slot is free again.
    l.drain(12 * MS);
    assert_eq!(l.queue_len(), 4);
    assert_eq!(
        l.offer(&pkt(10, 1500), 0, 12 * MS, 0, &mut q),
        Offer::Accepted
    );

    let cfg = LinkConfig::new(1_000_000, MS, Buffer::Bytes(3000));
    let (mut l, mut q) = link(&cfg);
    let accepted = (0..10)
        .filter(|&i| l.offer(&pkt(i, 1500), 0, 0, 0, &mut q) == Offer::Accepted)
        .count();
    assert_eq!((accepted, l.queue_bytes()), (3, 3000));
}

#[test]
fn random_loss_drops_the_configured_fraction() {
    let cfg = LinkConfig::new(10_000_000_000, MS, Buffer::Packets(1_000_000)).with_loss(0.1);
    let (_, l) = arrivals(&cfg, 200_000, 100);
    let p = l.counters.drops_random as f64 / 200_000.0;
    // Binomial standard deviation: sqrt(0.1·0.9/200000) = 0.00067; allow 5σ.
    assert!((p - 0.1).abs() < 0.0034, "loss fraction {p}");
}

#[test]
fn jitter_keeps_order_and_its_mean() {
    let mut cfg = LinkConfig::new(10_000_000_000, 10 * MS, Buffer::Packets(1_000_000));
    cfg.jitter = MS;
    let (mut l, mut q) = link(&cfg);
    let n = 20_000u64;
    // One packet every 2 ms: the jitter (σ = 1 ms) rarely needs clamping.
    let mut sent = Vec::new();
    for i in 0..n {
        let now = i * 2 * MS;
        while q.peek_time().is_some_and(|t| t <= now) {
            let (t, _) = q.pop().unwrap();
            sent.push(l.on_arrive(t, 0, &mut q).t);
        }
        l.offer(&pkt(i, 1250), 0, now, 0, &mut q);
    }
    while let Some((t, _)) = q.pop() {
        sent.push(l.on_arrive(t, 0, &mut q).t);
    }
    assert!(sent.windows(2).all(|w| w[0] <= w[1]), "reordered");
    let delays: Vec<f64> = sent
        .iter()
        .enumerate()
        .map(|(i, &a)| secs(a - i as u64 * 2 * MS))
        .collect();
    let mean = delays.iter().sum::<f64>() / n as f64;
    let sd = (delays.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
    assert!((mean - 0.010).abs() < 0.0001, "mean {mean}");
    assert!((sd - 0.001).abs() < 0.0001, "sd {sd}");
}

fn one_flow(bn: LinkConfig, access_delay: Time, duration: Time) -> Sim {
    one_flow_with(bn, access_delay, duration, |f| f)
}

fn one_flow_with(
    bn: LinkConfig,
    access_delay: Time,
    duration: Time,
    tcp: impl Fn(FlowConfig) -> FlowConfig,
) -> Sim {
    let db = dumbbell(
        bn.clone(),
        bn,
        &[AccessSpec::new(10_000_000_000, access_delay)],
    );
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![tcp(FlowConfig::bulk(
            s,
            d,
            CcParams::from_name("reno").unwrap(),
        ))],
        duration,
        seed: 1,
        sample_interval: None,
        ..SimConfig::default()
    };
    Sim::new(cfg).unwrap()
}

#[test]
fn slow_start_doubles_cwnd_every_rtt_without_loss() {
    // RTT 2·(49 + 1) = 100 ms; 10 Gbit/s everywhere so the rate never limits.
    let mut sim = one_flow(
        LinkConfig::new(10_000_000_000, MS, Buffer::Packets(100_000)),
        49 * MS,
        2 * SEC,
    );
    for k in 1..=7u32 {
        // Half an RTT after the ACKs of round k arrive.
        sim.run_until(k as u64 * 100 * MS + 50 * MS);
        let s = &sim.flows[0].sender;
        assert_eq!(s.tp.snd_cwnd, 10 << k, "round {k}");
        assert_eq!(s.counters.retrans, 0);
    }
}

#[test]
fn losing_every_packet_gives_rtos_with_exponential_backoff() {
    // Every data packet is lost: RTO at 1 s (initial), then 2 s later, then 4 s later.
    let lossy = || LinkConfig::new(10_000_000, MS, Buffer::Packets(100)).with_loss(1.0);
    let mut sim = one_flow_with(lossy(), 9 * MS, 8 * SEC, FlowConfig::with_classic_recovery);
    sim.run_until(6 * SEC);
    let c = sim.flows[0].sender.counters;
    assert_eq!((c.timeouts, c.segs_sent, c.retrans), (2, 12, 2));
    assert_eq!(sim.flows[0].sender.tp.snd_cwnd, 1);
    sim.run_until(7 * SEC + MS);
    assert_eq!(sim.flows[0].sender.counters.timeouts, 3);
    // With a tail loss probe (Linux): the probe timer, 1 s before any RTT
    // sample, fires first and sends one new segment; the RTO is re-armed from
    // then: timeouts at 2 s, 4 s later, 8 s later.
    let mut sim = one_flow(lossy(), 9 * MS, 9 * SEC);
    sim.run_until(6 * SEC);
    let c = sim.flows[0].sender.counters;
    assert_eq!((c.tlps, c.timeouts, c.segs_sent, c.retrans), (1, 2, 13, 2));
    sim.run_until(8 * SEC - MS);
    assert_eq!(sim.flows[0].sender.counters.timeouts, 2);
    sim.run_until(8 * SEC + MS);
    assert_eq!(sim.flows[0].sender.counters.timeouts, 3);
}

#[test]
fn a_buffer_overflow_is_recovered_by_fast_retransmit_not_timeouts() {
    // 10 Mbit/s, RTT 40 ms, buffer 25 packets (≈ 0.75 BDP): losses are single
    // drops per window and SACK recovery repairs them without an RTO.
    let mut sim = one_flow(
        LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(25)),
        10 * MS,
        60 * SEC,
    );
    sim.run_until(60 * SEC);
    let c = sim.flows[0].sender.counters;
    assert!(c.recoveries >= 10, "{c:?}");
    assert_eq!(c.timeouts, 0, "{c:?}");
    assert!(c.retrans >= c.recoveries);
    sim.check_conservation().unwrap();
}
