//! Link options (loss point, framing, reordering jitter, Dummynet ticks) and
//! web traffic (reverse direction, PackMime sessions), each with hand-computed
//! expectations (docs/links-and-web.md).

use hscc_sim::event::{Event, EventQueue};
use hscc_sim::link::{Link, Offer};
use hscc_sim::packet::Packet;
use hscc_sim::prelude::*;
use hscc_sim::rng::{component_rng, Component};
use hscc_sim::web::packmime;

fn link(cfg: &LinkConfig) -> (Link, EventQueue) {
    (
        Link::new(cfg, 1, component_rng(1, Component::Link, 0), true),
        EventQueue::default(),
    )
}

fn pkt(i: u64, size: u32) -> Packet {
    Packet::data(0, i, size, 0, 0)
}

/// Run a FIFO link's events up to `until`, returning (arrival time, seq).
fn drain_fifo(l: &mut Link, q: &mut EventQueue, until: Time, out: &mut Vec<(Time, u64)>) {
    while q.peek_time().is_some_and(|t| t <= until) {
        let (t, ev) = q.pop().unwrap();
        assert_eq!(ev, Event::LinkArrive(0));
        let p = l.on_arrive(t, 0, q);
        out.push((t, p.seq));
    }
}

/// Run a reordering link's wake-ups up to `until`.
fn drain_reorder(l: &mut Link, q: &mut EventQueue, until: Time, out: &mut Vec<(Time, u64)>) -> u64 {
    let mut events = 0;
    while q.peek_time().is_some_and(|t| t <= until) {
        let (t, _) = q.pop().unwrap();
        events += 1;
        while let Some(p) = l.pop_due(t) {
            assert_eq!(p.t, t, "delivered at its arrival time");
            out.push((t, p.seq));
        }
        l.rearm(t, 0, q);
    }
    events
}

fn udp(src: u32, dst: u32, rate_bps: u64, size: u32) -> UdpConfig {
    UdpConfig {
        src,
        dst,
        pattern: UdpPattern::Cbr { rate_bps },
        packet_size: size,
        start: 0,
        stop: None,
    }
}

/// A one-pair dumbbell with `bn` forward and a plain reverse bottleneck.
fn one_pair(bn: LinkConfig, access_bps: u64) -> Dumbbell {
    let rev = LinkConfig::new(bn.rate_bps, bn.delay, Buffer::Packets(10_000));
    dumbbell(bn, rev, &[AccessSpec::new(access_bps, 5 * MS)])
}

// ---------------------------------------------------------------- loss point

#[test]
fn loss_after_the_queue_uses_the_queue_and_the_transmitter() {
    // Certain loss: before the queue nothing is accepted; after it, every
    // packet is queued, serialized (1 Mbit/s: 12 ms each) and lost at the far end.
    let mut cfg = LinkConfig::new(1_000_000, MS, Buffer::Packets(100)).with_loss(1.0);
    let (mut l, mut q) = link(&cfg);
    assert!((0..5).all(|i| l.offer(&pkt(i, 1500), 0, 0, 0, &mut q) == Offer::RandomDrop));
    assert_eq!(
        (l.counters.drops_random, l.queue_len(), l.in_flight()),
        (5, 0, 0)
    );

    cfg.loss_point = LossPoint::AfterQueue;
    let (mut l, mut q) = link(&cfg);
    assert!((0..5).all(|i| l.offer(&pkt(i, 1500), 0, 0, 0, &mut q) == Offer::Accepted));
    assert_eq!(l.queue_len(), 4, "one in service, four waiting");
    let mut lost = 0;
    let mut times = Vec::new();
    while let Some((t, _)) = q.pop() {
        let p = l.on_arrive(t, 0, &mut q);
        lost += u64::from(l.corrupted(&p, t));
        times.push(t);
    }
    assert_eq!(times, (1..=5).map(|k| k * 12 * MS + MS).collect::<Vec<_>>());
    assert_eq!(
        (
            lost,
            l.counters.drops_random,
            l.counters.tx_packets,
            l.counters.tx_bytes
        ),
        (5, 5, 5, 7500)
    );
}

/// UDP CBR at `offered` bit/s of 1250-byte datagrams over a 10 Mbit/s
/// bottleneck with 20 % random loss at `point`, for 20 s; also the packets
/// still on the bottleneck at the end.
fn lossy_run(point: LossPoint, offered: u64, buffer: u64) -> (RunResult, u64) {
    let mut bn = LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(buffer)).with_loss(0.2);
    bn.loss_point = point;
    let db = one_pair(bn, 1_000_000_000);
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(s, d, offered, 1250)],
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    // Every hop on its own: a folded hop (link/fold.rs) holds the packets on
    // their way to it that are still on the bottleneck.
    sim.net.unfold();
    sim.run_until(20 * SEC);
    sim.check_conservation().unwrap();
    let on_link = sim.net.links[0].in_flight() as u64;
    (sim.finish(), on_link)
}

#[test]
fn utilization_counts_packets_lost_after_the_queue_but_not_before() {
    // 10 Mbit/s of 1250-byte datagrams: one per ms, exactly the bottleneck's
    // rate, so its queue never builds; 20 001 sent (t = 0 … 20 s).
    let (before, b_on) = lossy_run(LossPoint::BeforeQueue, 10_000_000, 10_000);
    let (after, a_on) = lossy_run(LossPoint::AfterQueue, 10_000_000, 10_000);
    let (b, a) = (&before.links[0], &after.links[0]);
    let sent = before.udp[0].sent;
    assert_eq!(sent, 20_001);
    // Datagrams sent up to 19.995 s reach the bottleneck (5 ms + 10 µs of access link).
    let offered = 19_995;
    for l in [a, b] {
        // Binomial(19 995, 0.2): σ = 57; allow 5σ.
        assert!(
            (l.counters.drops_random as f64 - 0.2 * offered as f64).abs() < 290.0,
            "{}",
            l.counters.drops_random
        );
        assert_eq!(l.counters.drops_queue, 0);
    }
    // Lost before the queue: never transmitted, the link idles 20 % of the time.
    assert_eq!(
        b.counters.tx_packets + b.counters.drops_random + b_on,
        offered
    );
    assert!(
        (b.utilization - 0.8).abs() < 0.015,
        "before: {}",
        b.utilization
    );
    // Lost after it: every packet used the transmitter, lost ones included.
    // Datagram k reaches the far end at k ms + 16.01 ms (5.01 ms of access
    // link, 1 ms of serialization, 10 ms of delay): 19 984 by 20 s, 1 ms each.
    assert_eq!(a.counters.tx_packets + a_on, offered);
    assert_eq!(a.counters.tx_packets, 19_984);
    assert_eq!(a.utilization, 19_984.0 * 10_000.0 / (10e6 * 20.0));
    // The receiver loses the same share either way.
    for r in [&before, &after] {
        assert!(
            (r.udp[0].received as f64 / offered as f64 - 0.8).abs() < 0.015,
            "{}",
            r.udp[0].received
        );
    }
}

#[test]
fn queue_drops_and_random_losses_are_counted_apart() {
    // 12.5 Mbit/s into 10 Mbit/s with 100 packets of buffer, loss after the
    // queue: the queue drops the excess; the random process drops 20 % of
    // what crosses. The bottleneck is busy from 5.01 ms: 19 984 crossings by 20 s.
    let (r, on_link) = lossy_run(LossPoint::AfterQueue, 12_500_000, 100);
    let l = &r.links[0];
    assert_eq!(l.counters.tx_packets, 19_984);
    // Datagrams sent every 0.8 ms up to 19.995 s reached the bottleneck.
    let offered = 19_995 * 5 / 4 + 1;
    assert_eq!(
        l.counters.drops_queue + l.counters.tx_packets + on_link,
        offered
    );
    assert_eq!(
        on_link, 111,
        "a full queue, the packet on the wire, 10 ms of propagation"
    );
    assert!(
        (l.counters.drops_random as f64 / l.counters.tx_packets as f64 - 0.2).abs() < 0.015,
        "random {}",
        l.counters.drops_random
    );
    // Every crossing datagram not lost there reaches the receiver (fast last hop).
    assert!(
        r.udp[0]
            .received
            .abs_diff(l.counters.tx_packets - l.counters.drops_random)
            <= 1
    );
}

// ---------------------------------------------------------------- framing

#[test]
fn framing_adds_to_serialization_and_byte_buffers() {
    // 1 Mbit/s, 1000-byte packets, Ethernet's 38 bytes: 1038 · 8 µs each.
    let mut cfg = LinkConfig::new(1_000_000, MS, Buffer::Packets(100));
    cfg.framing = 38;
    let (mut l, mut q) = link(&cfg);
    for i in 0..5 {
        l.offer(&pkt(i, 1000), 0, 0, 0, &mut q);
    }
    let mut out = Vec::new();
    drain_fifo(&mut l, &mut q, Time::MAX, &mut out);
    assert_eq!(
        out.iter().map(|o| o.0).collect::<Vec<_>>(),
        (1..=5).map(|k| k * 8_304 * US + MS).collect::<Vec<_>>()
    );
    // Utilization counts the framing, tx_bytes does not.
    assert_eq!((l.counters.tx_bytes, l.wire_bytes()), (5_000, 5_190));

    // A 3000-byte buffer holds two 1000-byte packets with 500 bytes of framing each (three without).
    let mut cfg = LinkConfig::new(1_000_000, MS, Buffer::Bytes(3000));
    cfg.framing = 500;
    let (mut l, mut q) = link(&cfg);
    let accepted = (0..10)
        .filter(|&i| l.offer(&pkt(i, 1000), 0, 0, 0, &mut q) == Offer::Accepted)
        .count();
    assert_eq!((accepted, l.queue_len(), l.queue_bytes()), (3, 2, 3000));
}

/// Goodput of a receiver-window-limited Reno flow that keeps a 10 Mbit/s
/// bottleneck (framing `f`) busy without loss, from 5 s to 15 s.
fn framed_goodput(f: u32) -> (f64, RunResult) {
    let mut bn = LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(1000));
    bn.framing = f;
    let db = one_pair(bn, 1_000_000_000);
    let (s, d) = db.pairs[0];
    let mut flow = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
    // 200 segments: far above the BDP (≈ 26 packets), far below the buffer.
    flow.rwnd = Some(200 * flow.mss as u64);
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![flow],
        duration: 16 * SEC,
        sample_interval: Some(SEC),
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    assert_eq!(r.links[0].counters.drops_queue, 0);
    (r.goodput_between(0, 5.0, 15.0).unwrap(), r)
}

#[test]
fn goodput_scales_by_payload_over_frame() {
    // The bottleneck sends back to back: 10^7 / (8 · (1500 + f)) packets a
    // second, each carrying 1448 payload bytes. Over 10 s the count is exact
    // to one packet (1158 bit/s).
    for f in [0u32, 2, 38] {
        let (g, r) = framed_goodput(f);
        let expected = 10_000_000.0 * 1448.0 / (1500.0 + f as f64);
        assert!(
            (g - expected).abs() < 2.0 * 1158.0,
            "framing {f}: goodput {g}, expected {expected}"
        );
        // Utilization counts frames: the link is busy all the time.
        assert!(r.links[0].utilization > 0.99, "{}", r.links[0].utilization);
    }
}

// ---------------------------------------------------------------- reordering jitter

/// CBR packets every `spacing` on a fast link with delay 50 ms and jitter σ.
fn jittered_arrivals(
    reorders: bool,
    sigma: Time,
    spacing: Time,
    n: u64,
) -> (Vec<(Time, u64)>, u64) {
    let mut cfg = LinkConfig::new(10_000_000_000, 50 * MS, Buffer::Packets(1_000_000));
    cfg.jitter = sigma;
    cfg.jitter_reorders = reorders;
    let (mut l, mut q) = link(&cfg);
    assert_eq!(l.reorders(), reorders);
    let mut out = Vec::new();
    let mut events = 0;
    for i in 0..n {
        let now = i * spacing;
        if reorders {
            events += drain_reorder(&mut l, &mut q, now, &mut out);
        } else {
            drain_fifo(&mut l, &mut q, now, &mut out);
        }
        l.offer(&pkt(i, 125), 0, now, 0, &mut q);
    }
    if reorders {
        events += drain_reorder(&mut l, &mut q, Time::MAX, &mut out);
    } else {
        drain_fifo(&mut l, &mut q, Time::MAX, &mut out);
    }
    assert_eq!(out.len() as u64, n);
    assert!(
        out.windows(2).all(|w| w[0].0 <= w[1].0),
        "delivered in time order"
    );
    (out, events)
}

/// Standard normal CDF (Abramowitz–Stegun 7.1.26, |error| < 1.5e-7).
fn phi(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs() / std::f64::consts::SQRT_2);
    let y = 1.0
        - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t
            + 0.254_829_592)
            * t
            * (-(x * x / 2.0)).exp();
    if x >= 0.0 {
        0.5 * (1.0 + y)
    } else {
        0.5 * (1.0 - y)
    }
}

#[test]
fn reordering_jitter_swaps_neighbours_at_the_gaussian_rate() {
    // Packets sent 1 ms apart with delay 50 ms + N(0, σ²), σ = 1 ms: packet
    // i+1 arrives first when D_i − D_{i+1} > 1 ms, D_i − D_{i+1} ~ N(0, 2σ²):
    // P = 1 − Φ(1/√2) = 0.2398. (Truncation at 0 is 50σ away.)
    let n = 40_000;
    let (out, events) = jittered_arrivals(true, MS, MS, n);
    let mut pos = vec![0usize; n as usize];
    for (k, &(_, seq)) in out.iter().enumerate() {
        pos[seq as usize] = k;
    }
    let swapped =
        (0..n as usize - 1).filter(|&i| pos[i + 1] < pos[i]).count() as f64 / (n - 1) as f64;
    let p = 1.0 - phi(1.0 / 2f64.sqrt());
    assert!((p - 0.2398).abs() < 1e-4);
    // Neighbouring pairs share a packet: a few times the binomial σ (0.0021).
    assert!(
        (swapped - p).abs() < 0.012,
        "swapped {swapped}, expected {p}"
    );
    // One wake-up per packet, plus one for each packet that overtakes the earliest pending one.
    assert!(events <= 2 * n, "{events} events for {n} packets");

    // The same link without reordering keeps the order exactly.
    let (out, _) = jittered_arrivals(false, MS, MS, n);
    assert!(out.iter().enumerate().all(|(k, &(_, seq))| seq == k as u64));
}

#[test]
fn a_udp_receiver_counts_reordered_datagrams_as_rfc_4737() {
    // 1 Mbit/s of 125-byte datagrams (one per ms) over a bottleneck with 50 ms
    // delay and σ = 0.5 ms: a datagram arrives after a later one when it is
    // overtaken by one of the next: P1 = 1 − Φ(2/√2) = 0.0786 (next), P2 =
    // 1 − Φ(4/√2) = 0.0023 (the one after), so the share lies in [P1, P1 + P2 + P3].
    for reorders in [true, false] {
        let mut bn = LinkConfig::new(100_000_000, 50 * MS, Buffer::Packets(10_000));
        bn.jitter = MS / 2;
        bn.jitter_reorders = reorders;
        let db = one_pair(bn, 1_000_000_000);
        let (s, d) = db.pairs[0];
        let cfg = SimConfig {
            topology: db.topology,
            udp: vec![udp(s, d, 1_000_000, 125)],
            duration: 40 * SEC,
            ..SimConfig::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        sim.run_until(40 * SEC);
        sim.check_conservation().unwrap();
        let r = sim.finish();
        let u = &r.udp[0];
        let share = u.reordered as f64 / u.received as f64;
        if reorders {
            let (p1, p2, p3) = (
                1.0 - phi(2.0 / 2f64.sqrt()),
                1.0 - phi(4.0 / 2f64.sqrt()),
                1.0 - phi(6.0 / 2f64.sqrt()),
            );
            // Binomial σ over 40 000: 0.0013; allow 4σ either side.
            assert!(
                share > p1 - 0.0055 && share < p1 + p2 + p3 + 0.0055,
                "reordered share {share} (P1 {p1})"
            );
        } else {
            assert_eq!(u.reordered, 0);
        }
    }
}

/// Reno over 10 Mbit/s with σ = 2 ms of reordering jitter and no loss at
/// all: every segment marked lost is a spurious retransmission caused by
/// reordering alone. The receiver window (300 segments) keeps the queue from
/// overflowing once the reductions stop.
fn over_a_reordering_link(tcp: impl Fn(FlowConfig) -> FlowConfig) -> hscc_sim::results::FlowResult {
    let mut bn = LinkConfig::new(10_000_000, 20 * MS, Buffer::Packets(10_000));
    bn.jitter = 2 * MS;
    bn.jitter_reorders = true;
    let db = one_pair(bn, 1_000_000_000);
    let (s, d) = db.pairs[0];
    let flow = tcp(FlowConfig {
        rwnd: Some(300 * 1448),
        ..FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())
    });
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![flow],
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    for k in 1..=20 {
        sim.run_until(k * SEC);
        sim.check_conservation().unwrap();
    }
    let r = sim.finish();
    let l = &r.links[0];
    assert_eq!((l.counters.drops_queue, l.counters.drops_random), (0, 0));
    r.flows[0].clone()
}

#[test]
fn tcp_runs_over_a_reordering_link() {
    let classic = over_a_reordering_link(FlowConfig::with_classic_recovery);
    assert!(
        classic.counters.lost_fast > 0,
        "reordering triggers duplicate ACKs"
    );
    assert!(classic.goodput_bps > 1e6, "{}", classic.goodput_bps);
    // Measured: 51 segments marked lost, 43 recoveries, 2.2 Mbit/s. RACK waits
    // min_RTT/4 once reordering was seen and the one spurious recovery before
    // that is undone: 1 segment, 9.6 Mbit/s of 10.
    // Reordering no longer looks like loss.
    let linux = over_a_reordering_link(|f| f);
    assert!(
        linux.counters.lost_fast * 10 < classic.counters.lost_fast,
        "{} vs {}",
        linux.counters.lost_fast,
        classic.counters.lost_fast
    );
    assert!(linux.goodput_bps > 9e6, "{}", linux.goodput_bps);
}

// ---------------------------------------------------------------- Dummynet ticks

/// A 1 Mbit/s link served every 10 ms: 10 000 bits (1250 bytes) of credit a tick.
fn ticked(delay: Time) -> (Link, EventQueue) {
    let mut cfg = LinkConfig::new(1_000_000, delay, Buffer::Packets(100));
    cfg.tick = 10 * MS;
    link(&cfg)
}

#[test]
fn a_ticked_link_releases_bursts_at_tick_boundaries() {
    // Six 500-byte packets (4000 bits) offered at 0.5 ms into an idle link:
    // p1 waits ⌈4000/10000⌉ = 1 tick (credit then 6000); p2 fits (2000 left);
    // p3 needs a tick (credit 10000 + 2000 − 4000 = 8000); p4, p5 fit (4000, 0);
    // p6 needs a tick (6000). Releases: 10, 10, 20, 20, 20, 30 ms; with a
    // one-tick delay line, arrivals 10 ms later, in bursts.
    let (mut l, mut q) = ticked(10 * MS);
    let t0 = MS / 2;
    for i in 0..6 {
        assert_eq!(l.offer(&pkt(i, 500), 0, t0, 0, &mut q), Offer::Accepted);
    }
    // Dummynet counts every unreleased packet in the queue.
    assert_eq!(l.queue_len(), 6);
    let mut out = Vec::new();
    drain_fifo(&mut l, &mut q, 35 * MS, &mut out);
    let ms: Vec<Time> = out.iter().map(|o| o.0 / MS).collect();
    assert_eq!(ms, vec![20, 20, 30, 30, 30]);
    l.drain(35 * MS);
    assert_eq!(l.queue_len(), 0);

    // At 35 ms (tick 3, the tick of the last release, credit 6000 left) a
    // packet is paid for at once: released now, it leaves the delay line one
    // tick after its tick, at 40 ms, together with p6.
    l.offer(&pkt(6, 500), 0, 35 * MS, 0, &mut q);
    // At 45 ms (tick 4: the queue went idle in an earlier tick) the credit
    // restarts from 0: released at tick 5 (50 ms), arriving at 60 ms.
    l.offer(&pkt(7, 500), 0, 45 * MS, 0, &mut q);
    drain_fifo(&mut l, &mut q, Time::MAX, &mut out);
    let tail: Vec<(Time, u64)> = out[5..].iter().map(|&(t, s)| (t / MS, s)).collect();
    assert_eq!(tail, vec![(40, 5), (40, 6), (60, 7)]);
}

#[test]
fn a_ticked_link_keeps_its_long_run_rate() {
    // 1.2 Mbit/s of 1000-byte UDP into 1 Mbit/s served every ms for 20 s: the
    // link carries 1 Mbit/s, to within one tick of credit and one packet.
    let mut bn = LinkConfig::new(1_000_000, 10 * MS, Buffer::Packets(50));
    bn.tick = MS;
    let db = one_pair(bn, 100_000_000);
    let (s, d) = db.pairs[0];
    let cfg = SimConfig {
        topology: db.topology,
        udp: vec![udp(s, d, 1_200_000, 1000)],
        duration: 20 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let l = &r.links[0];
    // Started at 5 ms (the access link's delay), 10 ms in flight at the end.
    let bits = l.counters.tx_bytes as f64 * 8.0;
    let expected = 1_000_000.0 * (20.0 - 0.005 - 0.010);
    assert!(
        (bits - expected).abs() <= 1000.0 + 8000.0 + 8000.0,
        "{bits} bits, expected {expected}"
    );
    assert!(l.counters.drops_queue > 0);
}

#[test]
fn a_rate_change_on_a_ticked_link_keeps_the_head_and_reschedules_the_rest() {
    // 1 Mbit/s every 10 ms, five 1250-byte packets (one tick each) at 0:
    // releases at 10, 20, 30, 40, 50 ms. At 15 ms the rate doubles: the head
    // (20 ms) keeps its release, the rest follow at 2 packets a tick from it:
    // 30, 30, 40 ms.
    let (mut l, mut q) = ticked(0);
    for i in 0..5 {
        l.offer(&pkt(i, 1250), 0, 0, 0, &mut q);
    }
    let mut out = Vec::new();
    drain_fifo(&mut l, &mut q, 15 * MS, &mut out);
    l.set_rate(15 * MS, 2_000_000);
    drain_fifo(&mut l, &mut q, Time::MAX, &mut out);
    assert_eq!(
        out.iter().map(|o| o.0 / MS).collect::<Vec<_>>(),
        vec![10, 20, 30, 30, 40]
    );
}

// ---------------------------------------------------------------- validation

#[test]
fn new_link_and_web_values_are_checked() {
    let db = one_pair(
        LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(100)),
        100_000_000,
    );
    let (s, d) = db.pairs[0];
    let base = SimConfig {
        topology: db.topology,
        udp: vec![udp(s, d, 1_000_000, 1000)],
        duration: SEC,
        ..SimConfig::default()
    };
    let err = |f: &dyn Fn(&mut SimConfig)| {
        let mut c = base.clone();
        f(&mut c);
        Sim::new(c).err().map(|e| e.to_string()).unwrap_or_default()
    };
    assert!(err(&|c| c.topology.links[0].cfg.framing = 70_000)
        .starts_with("links[0].framing: 70000 bytes is not allowed (0 to 65535"));
    assert!(err(&|c| c.topology.links[0].cfg.tick = 500).starts_with("links[0].tick: "));
    assert!(err(&|c| c.topology.links[0].cfg.tick = 3 * MS)
        .starts_with("links[0].delay: 0.01 s is not allowed (a whole number of ticks"));
    assert_eq!(err(&|c| c.topology.links[0].cfg.tick = 5 * MS), "");
    let change = |c: &mut SimConfig| {
        c.topology.links[0].cfg.tick = 5 * MS;
        c.changes.push(LinkChange {
            at: 100 * MS,
            link: 0,
            rate_bps: None,
            delay: Some(12 * MS),
        });
    };
    assert!(err(&change)
        .starts_with("changes[0].delay: 0.012 s is not allowed (a whole number of ticks"));
    let web = |m: WebModel| {
        move |c: &mut SimConfig| {
            let tcp = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
            c.web.push(WebConfig {
                servers: vec![2],
                clients: vec![3],
                rate: 1.0,
                size: SizeDist::PackmimeResponse,
                tcp,
                start: 0,
                stop: None,
                model: m.clone(),
            });
        }
    };
    assert_eq!(err(&web(WebModel::Sessions(Sessions::default()))), "");
    assert!(err(&web(WebModel::Sessions(Sessions {
        persistent: 1.5,
        ..Sessions::default()
    })))
    .starts_with("web[0].persistent: 1.5 is not allowed"));
    assert!(err(&web(WebModel::Sessions(Sessions {
        request_size: SizeDist::Fixed(0),
        ..Sessions::default()
    })))
    .starts_with("web[0].request_size: Fixed(0)"));
}

// ---------------------------------------------------------------- web: reverse direction

#[test]
fn web_servers_on_the_receiving_side_load_the_reverse_bottleneck() {
    // The engine takes any server and client lists: servers d_i (right) and
    // clients s_i (left) send responses right to left. 20 transfers/s of
    // 50 kB = 8 Mbit/s on a 20 Mbit/s reverse bottleneck; forward: only ACKs.
    let bn = LinkConfig::new(20_000_000, 10 * MS, Buffer::Packets(500));
    let db = dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(200_000_000, 5 * MS); 4],
    );
    let tcp = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
    let web = WebConfig {
        servers: db.pairs.iter().map(|p| p.1).collect(),
        clients: db.pairs.iter().map(|p| p.0).collect(),
        rate: 20.0,
        size: SizeDist::Fixed(50_000),
        tcp,
        start: 0,
        stop: None,
        model: WebModel::Transfers,
    };
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: 30 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    let (fwd, rev) = (
        &r.links[db.bottleneck.0 as usize],
        &r.links[db.bottleneck.1 as usize],
    );
    let w = &r.web[0];
    // Each transfer: 35 segments of 1448 (the last 768), 52 bytes of header each.
    let per_transfer = 50_000.0 + 35.0 * 52.0;
    assert!(
        (rev.counters.tx_bytes as f64 / per_transfer - w.completed as f64).abs() < 3.0,
        "{} bytes for {} transfers",
        rev.counters.tx_bytes,
        w.completed
    );
    // Poisson count over 30 s: 600 ± 3σ (73).
    assert!((w.started as f64 - 600.0).abs() < 74.0, "{}", w.started);
    assert!(
        (rev.utilization - 20.0 * per_transfer * 8.0 / 20e6).abs() < 0.05,
        "{}",
        rev.utilization
    );
    // ACKs only (one per two segments, 52 bytes) the other way.
    assert!(
        fwd.counters.tx_bytes < rev.counters.tx_bytes / 20,
        "forward {} bytes",
        fwd.counters.tx_bytes
    );
}

// ---------------------------------------------------------------- web: sessions

fn session_net() -> Dumbbell {
    // Bottleneck 10 Mbit/s, 10 ms each way; access 100 Mbit/s, 5 ms on the
    // left (servers), 0 on the right (clients).
    let bn = LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(1000));
    dumbbell(bn.clone(), bn, &[AccessSpec::new(100_000_000, 5 * MS)])
}

fn sessions(db: &Dumbbell, rate: f64, size: SizeDist, model: Sessions) -> WebConfig {
    let tcp = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
    WebConfig {
        servers: vec![db.pairs[0].0],
        clients: vec![db.pairs[0].1],
        rate,
        size,
        tcp,
        start: 0,
        stop: None,
        model: WebModel::Sessions(model),
    }
}

#[test]
fn a_lone_object_takes_its_request_and_response_path_times() {
    // HTTP/1.0 sessions, 300-byte requests, 3-segment responses (4344 bytes),
    // no server delay, one session every 5 s on average so that they rarely meet.
    // Request (352 bytes) client → server: 28.16 µs (100 Mbit/s) + 281.6 µs +
    // 10 ms (bottleneck) + 28.16 µs + 5 ms = 15.33792 ms.
    // Response (3 × 1500 bytes) server → client, sent back to back: the last
    // leaves the access link at 360 µs, reaches the bottleneck at 5.36 ms and
    // waits for the two before it (1.2 ms each from 5.12 ms): done at 8.72 ms,
    // + 10 ms, + 120 µs on the last link = 18.84 ms. Object: 34.17792 ms.
    let db = session_net();
    let model = Sessions {
        request_size: SizeDist::Fixed(300),
        persistent: 0.0,
        server_delay: false,
    };
    let web = sessions(&db, 0.2, SizeDist::Fixed(3 * 1448), model);
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: 200 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(200 * SEC);
    sim.check_conservation().unwrap();
    let r = sim.finish();
    let w = &r.web[0];
    let s = w.sessions.as_ref().expect("session summary");
    assert_eq!(w.bins.len(), 1);
    let b = &w.bins[0];
    assert_eq!((b.size_min, b.count), (4096, w.completed));
    // Histograms keep 3 significant digits.
    let hand = 0.034_177_92;
    assert!(
        (b.median_s / hand - 1.0).abs() < 1e-3,
        "object median {}",
        b.median_s
    );
    assert!(
        (s.median_s / hand - 1.0).abs() < 1e-3,
        "session median {}",
        s.median_s
    );
    assert_eq!(
        (s.completed, w.completed, s.refused, s.aborted),
        (s.started, s.started, 0, 0)
    );
    assert!((s.started as f64 - 40.0).abs() < 20.0, "{}", s.started);
    // The forward bottleneck carried 3 response segments per object, the
    // reverse one the requests and ACKs.
    assert_eq!(
        r.links[0].counters.tx_bytes,
        w.completed * 4500 + w.started * 52
    );
}

#[test]
fn persistent_sessions_fetch_packmimes_pages_of_objects() {
    // Every session persistent (PackMime HTTP/1.1 with P = 1): objects per
    // session average 0.82 · 3.13 + 0.18 · 2.10 · (0.69 + 0.31 · 3.13) = 3.19.
    let db = session_net();
    let model = Sessions {
        request_size: SizeDist::PackmimeRequest,
        persistent: 1.0,
        server_delay: true,
    };
    let web = sessions(&db, 20.0, SizeDist::Fixed(1000), model);
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: 300 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(300 * SEC);
    sim.check_conservation().unwrap();
    let r = sim.finish();
    let w = &r.web[0];
    let s = w.sessions.as_ref().unwrap();
    let (mean_objects, _) = packmime::mean_objects_pages();
    assert!((mean_objects - 3.19).abs() < 0.01, "{mean_objects}");
    // Sessions still in think time at the end have started objects but not
    // completed: compare objects started per session that arrived.
    let per_session = w.started as f64 / s.started as f64;
    assert!(
        (per_session / mean_objects - 1.0).abs() < 0.06,
        "{per_session} objects per session"
    );
    assert!(s.completed > 5000 && s.completed <= s.started, "{s:?}");
    // Each object waits a server delay (≤ 0.1 s) and a request: session times exceed object times.
    assert!(s.mean_s > w.bins[0].mean_s);
}

#[test]
fn persistent_objects_are_timed_from_their_request_to_their_last_byte() {
    // HTTP/1.1 sessions of the lone-object set-up: every object of a session
    // rides its connection pair, its request and its 3-segment response
    // within the window whatever the window has become, so every object takes
    // the lone object's 34.17792 ms, measured from its own request.
    let db = session_net();
    let model = Sessions {
        request_size: SizeDist::Fixed(300),
        persistent: 1.0,
        server_delay: false,
    };
    let web = sessions(&db, 0.05, SizeDist::Fixed(3 * 1448), model);
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: 600 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    let mut reused = 0;
    for k in 1..=12_000 {
        sim.run_until(k * 50 * MS);
        // A response connection that has sent more than one object's segments.
        reused += sim
            .flows
            .iter()
            .filter(|f| {
                f.web.is_some_and(|w| !w.request && !w.freed) && f.sender.counters.segs_sent > 3
            })
            .count();
    }
    sim.check_conservation().unwrap();
    let r = sim.finish();
    let w = &r.web[0];
    let s = w.sessions.as_ref().unwrap();
    let b = &w.bins[0];
    assert_eq!((b.size_min, b.count), (4096, w.completed));
    let hand = 0.034_177_92;
    assert!(
        (b.median_s / hand - 1.0).abs() < 1e-3,
        "object median {}",
        b.median_s
    );
    assert!(
        w.completed as f64 > 2.5 * s.completed as f64,
        "{} objects, {} sessions",
        w.completed,
        s.completed
    );
    assert!(reused > 50, "{reused}");
    // The forward bottleneck carried the responses and at most one ACK per
    // request (a delayed ACK may cover two requests of a session).
    let acks = r.links[0].counters.tx_bytes - w.completed * 4500;
    assert!(
        acks <= w.started * 52 + 4500 * (w.started - w.completed) && acks >= w.started / 2 * 52,
        "{acks}"
    );
}

/// Segments sent at each write on a persistent response connection, against
/// the window the connection had (see the test below).
struct Writes {
    warm: u32,
    restarted: u32,
}

/// Step a run of persistent sessions with `segments`-segment responses 1 ms
/// at a time and check, at each later write on a response connection that had
/// gone quiet, the burst it sends against the window it had: the same window
/// after an idle shorter than the RTO, else halved per RTO idle down to the
/// initial 10 (RFC 5681 §4.1, Linux tcp_cwnd_restart). Writes whose idle
/// time, known to 1 ms, leaves the expectation ambiguous are skipped.
fn check_writes(segments: u64, seconds: u64) -> Writes {
    let db = session_net();
    let model = Sessions {
        request_size: SizeDist::Fixed(300),
        persistent: 1.0,
        server_delay: false,
    };
    let web = sessions(&db, 0.5, SizeDist::Fixed(segments * 1448), model);
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: seconds * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    // Per slot: (generation, segments written, cwnd, done, last step with a send, segs_sent).
    type Slot = (u32, u64, u32, bool, Time, u64);
    let mut seen: Vec<Option<Slot>> = Vec::new();
    let mut out = Writes {
        warm: 0,
        restarted: 0,
    };
    let expect = |idle: Time, rto: Time, cwnd: u32| {
        let mut c = cwnd;
        if idle > rto {
            let (restart, mut left) = (10.min(cwnd), idle);
            while left > rto && c > restart {
                left -= rto;
                c >>= 1;
            }
            c = c.max(restart);
        }
        c
    };
    for step in 1..=seconds * 1000 {
        let t = step * MS;
        sim.run_until(t);
        seen.resize(sim.flows.len(), None);
        for (slot, f) in sim.flows.iter().enumerate() {
            if !f.web.is_some_and(|w| w.keep && !w.request) {
                continue;
            }
            let (total, sent) = (f.sender.total_segs(), f.sender.counters.segs_sent);
            if let Some((gen, before, cwnd, done, last_send, sent_before)) =
                seen[slot].filter(|s| s.0 == f.gen)
            {
                if total > before && done {
                    // A write in (t − 1 ms, t]; the last send in (last_send − 1 ms, last_send].
                    let rto = f.sender.rtt.rto(0);
                    let (lo, hi) = (
                        expect(t - MS - last_send, rto, cwnd),
                        expect(t - last_send + MS, rto, cwnd),
                    );
                    if lo == hi {
                        let burst = f.sender.snd_nxt() - before;
                        assert_eq!(burst, u64::from(lo).min(segments), "slot {slot} gen {gen} at {t}: window {cwnd}, rto {rto}, last send {last_send}");
                        assert_eq!(f.sender.tp.snd_cwnd, lo);
                        if lo == cwnd {
                            out.warm += 1
                        } else {
                            out.restarted += 1
                        }
                    }
                }
                let last = if sent > sent_before { t } else { last_send };
                seen[slot] = Some((
                    f.gen,
                    total,
                    f.sender.tp.snd_cwnd,
                    f.sender.done_at.is_some(),
                    last,
                    sent,
                ));
            } else {
                seen[slot] = Some((
                    f.gen,
                    total,
                    f.sender.tp.snd_cwnd,
                    f.sender.done_at.is_some(),
                    t,
                    sent,
                ));
            }
        }
    }
    sim.check_conservation().unwrap();
    out
}

#[test]
fn a_persistent_connection_starts_each_write_with_the_window_it_had_or_restarts_it_after_an_idle_rto(
) {
    // 40-segment responses: the first object grows the window past 40, so a
    // warm write sends the whole object at once and a restarted one 10 to 20.
    let w = check_writes(40, 120);
    assert!(
        w.warm >= 20 && w.restarted >= 10,
        "{} warm, {} restarted",
        w.warm,
        w.restarted
    );
}

#[test]
fn persistent_connections_hold_two_slots_per_session_in_progress() {
    // 20 persistent sessions per second, PackMime's sizes and think times: a
    // session holds its two connection slots through its think times and
    // frees them when it ends; slots are reused, so they never outnumber
    // twice the sessions in progress at the peak, plus those draining their
    // last ACKs.
    let db = session_net();
    let model = Sessions {
        persistent: 1.0,
        ..Sessions::default()
    };
    let mut web = sessions(&db, 20.0, SizeDist::PackmimeResponse, model);
    web.stop = Some(60 * SEC);
    let cfg = SimConfig {
        topology: db.topology,
        web: vec![web],
        duration: 100 * SEC,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    let (mut peak, mut held_peak) = (0, 0);
    for k in 1..=1000 {
        sim.run_until(k * 100 * MS);
        let live = sim.web[0].live_sessions();
        let held = sim
            .flows
            .iter()
            .filter(|f| f.web.is_some_and(|w| w.keep && !w.freed))
            .count();
        assert!(
            held <= 2 * live,
            "at {k}: {held} slots held by {live} sessions"
        );
        (peak, held_peak) = (peak.max(live), held_peak.max(held));
    }
    sim.check_conservation().unwrap();
    let slots = sim.flows.len();
    assert!(
        held_peak > 100 && slots <= 2 * peak + 20,
        "{slots} slots, at most {peak} sessions"
    );
    // Sessions that ended have given back their slots.
    let live = sim.web[0].live_sessions();
    let unfreed = sim
        .flows
        .iter()
        .filter(|f| f.web.is_some_and(|w| !w.freed))
        .count();
    assert!(
        unfreed <= 2 * live,
        "{unfreed} slots not freed, {live} sessions in progress"
    );
    let r = sim.finish();
    let s = r.web[0].sessions.as_ref().unwrap();
    assert_eq!(s.started, s.completed + live as u64);
    assert_eq!((s.refused, s.aborted), (0, 0));
}

#[test]
fn session_traffic_with_every_link_option_is_deterministic() {
    let run = || {
        let mut bn = LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(200)).with_loss(0.001);
        bn.loss_point = LossPoint::AfterQueue;
        bn.framing = 38;
        bn.jitter = MS;
        bn.jitter_reorders = true;
        let mut rev = LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(200));
        rev.tick = MS;
        let db = dumbbell(bn, rev, &vec![AccessSpec::new(100_000_000, 5 * MS); 2]);
        let (s, d) = db.pairs[0];
        let forward = sessions(
            &db,
            30.0,
            SizeDist::PackmimeResponse,
            Sessions {
                persistent: 0.09,
                ..Sessions::default()
            },
        );
        let mut reverse = forward.clone();
        (reverse.servers, reverse.clients) = (vec![db.pairs[1].1], vec![db.pairs[1].0]);
        let flows = vec![FlowConfig::bulk(
            s,
            d,
            CcParams::from_name("cubic").unwrap(),
        )];
        let cfg = SimConfig {
            topology: db.topology,
            flows,
            web: vec![forward, reverse],
            duration: 20 * SEC,
            sample_interval: Some(SEC),
            ..SimConfig::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        sim.run_until(20 * SEC);
        sim.check_conservation().unwrap();
        sim.finish().to_json()
    };
    let a = run();
    assert_eq!(a, run());
    assert!(a.contains("\"sessions\":{"));
}

// ---------------------------------------------------------------- properties

mod properties {
    use super::*;
    use hscc_cc::testing::proptest_cases;
    use proptest::prelude::*;

    /// Options of one bottleneck direction: (loss after the queue, framing,
    /// reorders, jitter, byte buffer, loss, tick).
    fn options() -> impl Strategy<Value = (bool, u32, bool, Time, bool, f64, Time)> {
        (
            any::<bool>(),
            prop_oneof![Just(0u32), Just(2), Just(38)],
            any::<bool>(),
            prop_oneof![Just(0), Just(MS / 2), Just(3 * MS)],
            any::<bool>(),
            prop_oneof![Just(0.0), Just(1e-3), Just(0.05)],
            prop_oneof![Just(0), Just(MS), Just(5 * MS)],
        )
    }

    fn link_with(
        (after, framing, reorders, jitter, _, loss, tick): (bool, u32, bool, Time, bool, f64, Time),
        buffer: Buffer,
    ) -> LinkConfig {
        let mut l = LinkConfig::new(20_000_000, 10 * MS, buffer).with_loss(loss);
        l.loss_point = if after {
            LossPoint::AfterQueue
        } else {
            LossPoint::BeforeQueue
        };
        (l.framing, l.jitter_reorders, l.jitter, l.tick) = (framing, reorders, jitter, tick);
        l
    }

    fn sim(fwd: LinkConfig, rev: LinkConfig, seed: u64) -> Sim {
        let db = dumbbell(fwd, rev, &vec![AccessSpec::new(200_000_000, 5 * MS); 2]);
        let (s, d) = db.pairs[0];
        let flows = vec![FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())];
        let udp = vec![udp(d, s, 2_000_000, 500)];
        let model = Sessions {
            persistent: 0.3,
            ..Sessions::default()
        };
        let mut web = sessions(&db, 20.0, SizeDist::PackmimeResponse, model);
        (web.servers, web.clients) = (vec![db.pairs[1].0], vec![db.pairs[1].1]);
        Sim::new(SimConfig {
            topology: db.topology,
            flows,
            udp,
            web: vec![web],
            duration: 4 * SEC,
            seed,
            ..SimConfig::default()
        })
        .unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

        /// Any mix of the options on both bottlenecks, with a Reno flow, UDP
        /// and web sessions: packets are conserved, queues stay within their
        /// buffers, nothing due is left on a link, and a rerun is identical.
        #[test]
        fn any_mix_of_options_conserves_packets_and_bounds_queues(f in options(), r in options(), seed in 1u64..1000) {
            let buffer = if f.4 { Buffer::Bytes(60_000) } else { Buffer::Packets(40) };
            let (fwd, rev) = (link_with(f, buffer), link_with(r, Buffer::Packets(40)));
            let run = |fwd: LinkConfig, rev: LinkConfig| {
                let mut s = sim(fwd, rev, seed);
                for k in 1..=8 {
                    let t = k * SEC / 2;
                    s.run_until(t);
                    s.check_conservation().map_err(|e| TestCaseError::fail(format!("at {t}: {e}")))?;
                    if let Some(e) = s.net.q.peek_time().filter(|&e| e <= t) {
                        return Err(TestCaseError::fail(format!("event at {e} pending at {t}")));
                    }
                    for (i, (l, spec)) in s.net.links.iter().zip(&s.cfg.topology.links).enumerate() {
                        if l.packets().any(|p| p.t <= t) {
                            return Err(TestCaseError::fail(format!("link {i}: a packet overdue at {t}")));
                        }
                        let within = match spec.cfg.buffer {
                            Buffer::Packets(n) => l.queue_len() as u64 <= n,
                            Buffer::Bytes(b) => l.queue_bytes() <= b,
                        };
                        prop_assert!(within, "link {}: queue {} packets, {} bytes", i, l.queue_len(), l.queue_bytes());
                    }
                }
                Ok(s.finish().to_json())
            };
            let a = run(fwd.clone(), rev.clone())?;
            prop_assert_eq!(a, run(fwd, rev)?);
        }
    }
}
