//! Per-flow TCP knobs: initial ssthresh, ACK counting, delayed ACKs every N
//! segments, per-connection access delay. Hand-computed expectations: each
//! test fails without its feature.

use hscc_sim::config::{AckCounting, DelayDist, FlowConfig};
use hscc_sim::packet::Packet;
use hscc_sim::prelude::*;
use hscc_sim::tcp::receiver::RxAction;
use hscc_sim::tcp::{Receiver, Sender};
use hscc_sim::testing::{flow_rng, reno, started, NullWire};

/// cwnd at the start and after each of `rounds` round trips in which every
/// segment outstanding at the round's start is acknowledged, one cumulative
/// ACK per two segments (a delayed-ACK receiver; an odd last segment gets its
/// own ACK, as the delayed-ACK timer would send).
fn cwnd_per_round(edit: impl FnOnce(&mut FlowConfig), rounds: usize) -> Vec<u32> {
    let mut cfg = reno();
    edit(&mut cfg);
    let (mut s, mut w) = started::<NullWire>(&cfg);
    let mut out = vec![s.tp.snd_cwnd];
    for _ in 0..rounds {
        w.now += 100 * MS;
        let end = s.snd_nxt();
        let mut una = s.snd_una();
        while una < end {
            una = (una + 2).min(end);
            s.on_ack(&Packet::ack(0, una, 52, 0, 0), &mut w);
        }
        out.push(s.tp.snd_cwnd);
    }
    out
}

#[test]
fn ack_counting_segments_doubles_slow_start_and_acks_grows_it_by_half() {
    // Segments (Linux ABC): +2 per ACK of two segments, ×2 per round.
    let seg = cwnd_per_round(|_| {}, 4);
    assert_eq!(seg, vec![10, 20, 40, 80, 160]);
    // Acks (ns-2, ns-3 NewReno): +1 per ACK, ⌈W/2⌉ ACKs per round: W + ⌈W/2⌉.
    let acks = cwnd_per_round(|f| f.ack_counting = AckCounting::Acks, 4);
    assert_eq!(acks, vec![10, 15, 23, 35, 53]);
}

#[test]
fn ack_counting_in_congestion_avoidance_is_one_vs_one_half_segment_per_rtt() {
    // Start in congestion avoidance: cwnd 20 = ssthresh 20.
    let ca = |f: &mut FlowConfig| {
        f.init_cwnd = 20;
        f.init_ssthresh = Some(20);
    };
    // Segments: snd_cwnd_cnt gains 2 per ACK, W per round: +1 per round.
    let seg = cwnd_per_round(ca, 8);
    assert_eq!(seg, vec![20, 21, 22, 23, 24, 25, 26, 27, 28]);
    // Acks: snd_cwnd_cnt gains 1 per ACK, ⌈W/2⌉ per round: +1 every two rounds.
    // W = 20: 10 + 10 ACKs reach 20 at the last ACK of round 2 → 21; W = 21:
    // 11 + 11 = 22 ≥ 21 at the 10th ACK of round 4 → 22 (1 left); and so on.
    let acks = cwnd_per_round(
        |f| {
            ca(f);
            f.ack_counting = AckCounting::Acks;
        },
        8,
    );
    assert_eq!(acks, vec![20, 20, 21, 21, 22, 22, 23, 23, 24]);
}

#[test]
fn init_ssthresh_ends_slow_start_there() {
    // IW 10, ssthresh 20: one round of slow start (10 → 20, exactly at
    // ssthresh, nothing left over), then +1 per round.
    let r = cwnd_per_round(|f| f.init_ssthresh = Some(20), 3);
    assert_eq!(r, vec![10, 20, 21, 22]);
    // Unlimited (today's default): slow start goes on.
    assert_eq!(cwnd_per_round(|_| {}, 3), vec![10, 20, 40, 80]);
}

#[test]
fn an_algorithms_own_initial_ssthresh_takes_precedence_as_in_linux() {
    let ssthresh = |algo: &str, params: &[(&str, f64)], init: Option<u32>| {
        let mut cfg = FlowConfig::bulk(0, 1, CcParams::with(algo, params).unwrap());
        cfg.init_ssthresh = init;
        Sender::new(0, &cfg, flow_rng(1, 0)).tp.snd_ssthresh
    };
    const INFINITE: u32 = hscc_cc::TCP_INFINITE_SSTHRESH;
    assert_eq!(ssthresh("reno", &[], None), INFINITE);
    assert_eq!(ssthresh("reno", &[], Some(64)), 64);
    // CUBIC's and BIC's `initial_ssthresh` (0 = unset) are applied in their
    // `init`, after the flow's value (Linux: route metrics, then the CA's init).
    assert_eq!(ssthresh("cubic", &[], Some(64)), 64);
    assert_eq!(
        ssthresh("cubic", &[("initial_ssthresh", 100.0)], Some(64)),
        100
    );
    assert_eq!(ssthresh("cubic", &[("initial_ssthresh", 100.0)], None), 100);
    // With HyStart on, CUBIC ignores its own initial_ssthresh (Linux): the flow's stays.
    assert_eq!(
        ssthresh(
            "cubic",
            &[("initial_ssthresh", 100.0), ("hystart", 1.0)],
            Some(64)
        ),
        64
    );
    assert_eq!(
        ssthresh("bic", &[("initial_ssthresh", 100.0)], Some(64)),
        100
    );
    assert_eq!(ssthresh("bic", &[], Some(64)), 64);
}

#[test]
fn knob_values_out_of_range_are_refused_with_field_value_and_range() {
    let db = dumbbell(
        LinkConfig::new(10_000_000, MS, Buffer::Packets(100)),
        LinkConfig::new(10_000_000, MS, Buffer::Packets(100)),
        &[AccessSpec::new(100_000_000, MS)],
    );
    let (s, d) = db.pairs[0];
    let check = |edit: &dyn Fn(&mut FlowConfig)| {
        let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
        edit(&mut f);
        let cfg = SimConfig {
            topology: db.topology.clone(),
            flows: vec![f],
            ..SimConfig::default()
        };
        Sim::new(cfg).err().map(|e| e.to_string())
    };
    assert_eq!(
        check(&|f| f.init_ssthresh = Some(1)).unwrap(),
        "flows[0].init_ssthresh: 1 is not allowed (2 to 10^9 segments (None: unlimited))"
    );
    assert!(check(&|f| f.init_ssthresh = Some(2)).is_none());
    assert_eq!(
        check(&|f| f.access_delay = DelayDist::Uniform { min: 25 * MS, max: 5 * MS }).unwrap(),
        "flows[0].access_delay: uniform on [0.025 s, 0.005 s] is not allowed (0 <= min <= max <= one hour)"
    );
    assert_eq!(
        check(&|f| f.access_delay = DelayDist::Fixed(3601 * SEC)).unwrap(),
        "flows[0].access_delay: 3601 s is not allowed (0 to one hour)"
    );
    assert_eq!(
        check(&|f| f.host_jitter = 2 * SEC).unwrap(),
        "flows[0].host_jitter: 2 s is not allowed (0 to 1 s)"
    );
    assert_eq!(
        check(&|f| f.start_jitter = 3601 * SEC).unwrap(),
        "flows[0].start_jitter: 3601 s is not allowed (0 to one hour)"
    );
    assert_eq!(
        check(&|f| f.delack_segments = 0).unwrap(),
        "flows[0].delack_segments: 0 is not allowed (at least 1)"
    );
}

fn seg(s: u64) -> Packet {
    Packet::data(0, s, 1500, s * 10 + 1, 0)
}

#[test]
fn delayed_ack_every_n_segments_and_at_once_for_holes() {
    let mut cfg = reno();
    cfg.delack_segments = 3;
    let mut r = Receiver::new(&cfg);
    let timer = |t: Time| RxAction::Delay(t + 40 * MS);
    // Every third in-order full segment is acknowledged at once.
    assert_eq!(r.on_data(&seg(0), 0), timer(0));
    assert_eq!(r.on_data(&seg(1), 1), timer(1)); // the timer armed at segment 0 stays (the simulator arms it once)
    assert_eq!(r.on_data(&seg(2), 2), RxAction::AckNow);
    let a = r.make_ack(0, 0);
    assert_eq!((a.seq, a.ts), (3, 1)); // TSecr: the first segment it covers (RFC 7323 §4.3)
    assert_eq!(r.on_data(&seg(3), 3), timer(3));
    // Out of order: at once, with the SACK block, whatever the count.
    assert_eq!(r.on_data(&seg(5), 4), RxAction::AckNow);
    let a = r.make_ack(0, 0);
    assert_eq!((a.seq, a.nsack, a.sack[0]), (4, 1, (1, 2)));
    // Filling the hole: at once; the count starts again after it.
    assert_eq!(r.on_data(&seg(4), 5), RxAction::AckNow);
    assert_eq!(r.make_ack(0, 0).seq, 6);
    assert_eq!(r.on_data(&seg(6), 6), timer(6));
    assert_eq!(r.on_data(&seg(7), 7), timer(7));
    assert_eq!(r.on_data(&seg(8), 8), RxAction::AckNow);
    // A duplicate: at once.
    r.make_ack(0, 0);
    assert_eq!(r.on_data(&seg(2), 9), RxAction::AckNow);
}

/// One flow of `segments` full segments over 100 ms of RTT at 10 Gbit/s.
fn transfer(segments: u64, edit: impl FnOnce(&mut FlowConfig)) -> (f64, u64) {
    let bn = LinkConfig::new(10_000_000_000, MS, Buffer::Packets(10_000));
    let db = dumbbell(bn.clone(), bn, &[AccessSpec::new(10_000_000_000, 49 * MS)]);
    let (s, d) = db.pairs[0];
    let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
    f.size = Some(segments * f.mss as u64);
    edit(&mut f);
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![f],
        duration: 2 * SEC,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    (
        r.flows[0].completion_s.expect("completed"),
        r.flows[0].counters.acks_sent,
    )
}

#[test]
fn a_transfer_waits_for_the_delayed_ack_timer_only_when_n_does_not_divide_it() {
    // 6 segments in the initial window arrive back to back after 50 ms; the
    // receiver ACKs every N: the last ACK leaves at once when N divides 6,
    // else after the delayed-ACK timer. Completion: 100 ms (+ µs of
    // serialization and host jitter), or 100 ms + the timer.
    for (n, done, acks) in [
        (1, 0.100, 6),
        (2, 0.100, 3),
        (3, 0.100, 2),
        (4, 0.140, 2),
        (5, 0.140, 2),
        (6, 0.100, 1),
        (7, 0.140, 1),
    ] {
        let (t, a) = transfer(6, |f| f.delack_segments = n);
        assert!(
            (t - done).abs() < 1e-4,
            "N = {n}: completed at {t}, expected {done}"
        );
        assert_eq!(a, acks, "N = {n}");
    }
    // The timer's length is the flow's delack_timeout.
    let (t, _) = transfer(6, |f| {
        f.delack_segments = 4;
        f.delack_timeout = 100 * MS;
    });
    assert!((t - 0.200).abs() < 1e-4, "{t}");
}

#[test]
fn the_window_opening_acknowledges_its_segments_one_by_one() {
    // 6 segments, delayed ACKs every 2: the first quick_acks are ACKed one by
    // one, the rest in pairs (an odd one at the timer).
    for (quick, done, acks) in [
        (0, 0.100, 3),
        (2, 0.100, 4),
        (3, 0.140, 5),
        (4, 0.100, 5),
        (6, 0.100, 6),
        (100, 0.100, 6),
    ] {
        let (t, a) = transfer(6, |f| f.quick_acks = quick);
        assert!(
            (t - done).abs() < 1e-4,
            "quick_acks = {quick}: completed at {t}, expected {done}"
        );
        assert_eq!(a, acks, "quick_acks = {quick}");
    }
}

fn access_run(seed: u64, flows: usize, dist: DelayDist, duration: Time) -> RunResult {
    let bn = LinkConfig::new(100_000_000, MS, Buffer::Packets(1000));
    let db = dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(1_000_000_000, 9 * MS); flows],
    );
    let fl = db
        .pairs
        .iter()
        .map(|&(s, d)| {
            let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
            f.access_delay = dist;
            f
        })
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows: fl,
        duration,
        seed,
        ..SimConfig::default()
    };
    Sim::new(cfg).unwrap().run()
}

#[test]
fn a_fixed_access_delay_adds_twice_itself_to_the_rtt() {
    let base = access_run(1, 1, DelayDist::Fixed(0), 2 * SEC);
    let slow = access_run(1, 1, DelayDist::Fixed(15 * MS), 2 * SEC);
    let (b, s) = (&base.flows[0], &slow.flows[0]);
    // Path: 2·(9 + 1) ms of propagation + serialization: 1500 B at 1 Gbit/s
    // twice and 100 Mbit/s (144 µs), 52 B back (4.992 µs) = 20.148992 ms.
    assert!(
        (b.base_rtt_s - 0.020148992).abs() < 1e-12,
        "{}",
        b.base_rtt_s
    );
    assert!(
        (s.base_rtt_s - (b.base_rtt_s + 0.030)).abs() < 1e-12,
        "{}",
        s.base_rtt_s
    );
    // The sender measures it: its smallest RTT sample is 30 ms longer (within
    // the host jitter, 8 µs each way). (Both samples are the base RTT plus one
    // bottleneck serialization, 120 µs: a delayed ACK covers two segments and
    // the sample is the newer one, which queued behind the other.)
    assert!(
        (s.min_rtt_s - b.min_rtt_s - 0.030).abs() < 16e-6,
        "{} vs {}",
        s.min_rtt_s,
        b.min_rtt_s
    );
    assert!(
        b.min_rtt_s >= b.base_rtt_s && b.min_rtt_s < b.base_rtt_s + 130e-6,
        "{} vs {}",
        b.min_rtt_s,
        b.base_rtt_s
    );
}

#[test]
fn uniform_access_delays_are_drawn_per_connection_from_the_seed() {
    let u = DelayDist::Uniform {
        min: 5 * MS,
        max: 25 * MS,
    };
    let path = access_run(1, 1, DelayDist::Fixed(0), SEC).flows[0].base_rtt_s;
    let draws = |seed: u64| -> Vec<f64> {
        access_run(seed, 8, u, SEC)
            .flows
            .iter()
            .map(|f| (f.base_rtt_s - path) / 2.0)
            .collect()
    };
    let a = draws(1);
    // Each flow's base RTT is the path's plus twice its own draw, in [5, 25] ms,
    // and its RTT samples see it.
    for d in &a {
        assert!((0.005..=0.025).contains(d), "{d}");
    }
    // (The 8 initial windows meet at the bottleneck: a first sample may also
    // wait behind the others' segments, 8 × 10 × 120 µs at most.)
    let r = access_run(1, 8, u, SEC);
    for f in &r.flows {
        assert!(
            f.min_rtt_s >= f.base_rtt_s - 1e-9 && f.min_rtt_s < f.base_rtt_s + 0.0097,
            "{} vs {}",
            f.min_rtt_s,
            f.base_rtt_s
        );
    }
    // Different flows draw differently, the same seed draws the same, another seed otherwise.
    let mut sorted = a.clone();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    assert_eq!(sorted.len(), 8, "{a:?}");
    assert_eq!(draws(1), a);
    assert_ne!(draws(2), a);
}

#[test]
fn access_delay_draws_are_uniform_on_min_max() {
    // The draw is made when a sender is built: 4000 connections (flow ids of
    // one run) against U[5, 25] ms, Kolmogorov–Smirnov distance against the
    // uniform CDF. Critical value at α = 0.001: 1.95/√n = 0.031.
    let mut cfg = reno();
    cfg.access_delay = DelayDist::Uniform {
        min: 5 * MS,
        max: 25 * MS,
    };
    let n = 4000;
    let mut x: Vec<f64> = (0..n)
        .map(|i| Sender::new(i as u32, &cfg, flow_rng(7, i)).access_delay as f64)
        .collect();
    x.sort_by(f64::total_cmp);
    let (lo, hi) = ((5 * MS) as f64, (25 * MS) as f64);
    assert!(x[0] >= lo && x[n as usize - 1] <= hi);
    let d = x.iter().enumerate().map(|(i, &v)| {
        let f = (v - lo) / (hi - lo);
        (f - i as f64 / n as f64)
            .abs()
            .max(((i + 1) as f64 / n as f64 - f).abs())
    });
    let ks = d.fold(0.0, f64::max);
    assert!(ks < 1.95 / (n as f64).sqrt(), "KS distance {ks}");
    // Fixed: exactly the value, and min = max draws that value.
    cfg.access_delay = DelayDist::Fixed(7 * MS);
    assert_eq!(Sender::new(0, &cfg, flow_rng(7, 0)).access_delay, 7 * MS);
    cfg.access_delay = DelayDist::Uniform {
        min: 3 * MS,
        max: 3 * MS,
    };
    assert_eq!(Sender::new(0, &cfg, flow_rng(7, 0)).access_delay, 3 * MS);
}

fn web_tcp(access: DelayDist) -> FlowConfig {
    let mut tcp = FlowConfig::bulk(0, 0, CcParams::from_name("reno").unwrap());
    tcp.access_delay = access;
    tcp
}

#[test]
fn access_delay_applies_to_web_transfers_and_keeps_every_packet() {
    // One-segment web transfers built from a template with U[5, 25] ms of
    // access delay, each drawn from the transfer's own stream: the response
    // time (arrival to the last byte at the client, one way) grows by the mean
    // draw, 15 ms; the run is reproducible and packets are conserved.
    let bn = LinkConfig::new(100_000_000, MS, Buffer::Packets(1000));
    let db = dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(1_000_000_000, 9 * MS); 2],
    );
    let run = |access: DelayDist, seed: u64| {
        let web = WebConfig {
            servers: vec![db.pairs[0].0, db.pairs[1].0],
            clients: vec![db.pairs[0].1, db.pairs[1].1],
            rate: 50.0,
            size: SizeDist::Fixed(1448),
            tcp: web_tcp(access),
            start: 0,
            stop: None,
            model: Default::default(),
        };
        let cfg = SimConfig {
            topology: db.topology.clone(),
            web: vec![web],
            duration: 20 * SEC,
            seed,
            ..SimConfig::default()
        };
        let mut sim = Sim::new(cfg).unwrap();
        sim.run_until(20 * SEC);
        sim.check_conservation().unwrap();
        sim.finish()
    };
    let u = DelayDist::Uniform {
        min: 5 * MS,
        max: 25 * MS,
    };
    let (with, without) = (run(u, 1), run(DelayDist::Fixed(0), 1));
    let mean = |r: &RunResult| {
        let b = &r.web[0].bins;
        b.iter().map(|b| b.mean_s * b.count as f64).sum::<f64>()
            / b.iter().map(|b| b.count as f64).sum::<f64>()
    };
    assert!(with.web[0].completed > 800, "{}", with.web[0].completed);
    // ≈ 1000 draws of sd 20/√12 ms: the mean is within 0.6 ms (3 SE) of 15 ms.
    let (a, b) = (mean(&with), mean(&without));
    assert!(
        (a - b - 0.015).abs() < 0.0006,
        "mean response {a} s with, {b} s without access delay"
    );
    assert_eq!(run(u, 1).to_json(), with.to_json());
    assert_ne!(run(u, 2).to_json(), with.to_json());
}

/// CUBIC with HyStart alone at 10 Mbit/s × 100 ms (1 BDP of buffer) for
/// `duration`: its final window and retransmissions.
fn hystart_run(quick_acks: u64, duration: Time) -> (u32, u64) {
    let bn = LinkConfig::new(10_000_000, MS, Buffer::Packets(83));
    let db = dumbbell(bn.clone(), bn, &[AccessSpec::new(1_000_000_000, 49 * MS)]);
    let (s, d) = db.pairs[0];
    let mut cc = CcParams::from_name("cubic").unwrap();
    cc.set("hystart", 1.0).unwrap();
    let mut f = FlowConfig::bulk(s, d, cc);
    f.quick_acks = quick_acks;
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![f],
        duration,
        ..SimConfig::default()
    };
    let r = Sim::new(cfg).unwrap().run();
    (r.flows[0].final_cwnd, r.flows[0].counters.retrans)
}

#[test]
fn acks_one_by_one_let_hystarts_ack_train_end_slow_start_at_10_mbps() {
    // A segment takes 1.2 ms at 10 Mbit/s: ACKs of every second segment come
    // 2.4 ms apart, beyond HyStart's 2 ms train spacing, and slow start runs
    // on until the queue overflows (at 0.7 s, 276 segments at 0.65 s); ACKs of
    // every segment come 1.2 ms apart and the train ends slow start once it
    // spans half the minimum RTT (130 segments at 0.65 s, nothing lost by
    // 1 s), as the kernel's receiver made it do (docs/validation/kernel.md).
    for (quick, still_growing, lost_by_1s) in [(0, true, true), (10_000, false, false)] {
        let (cwnd, _) = hystart_run(quick, 650 * MS);
        assert_eq!(
            cwnd > 200,
            still_growing,
            "quick_acks = {quick}: cwnd {cwnd} at 0.65 s"
        );
        let (_, retrans) = hystart_run(quick, SEC);
        assert_eq!(
            retrans > 0,
            lost_by_1s,
            "quick_acks = {quick}: {retrans} retransmissions by 1 s"
        );
    }
}
