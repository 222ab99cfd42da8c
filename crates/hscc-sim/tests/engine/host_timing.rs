//! Properties of the host timing knobs (host jitter, start-up jitter, access
//! delay) and the other per-flow knobs in random small scenarios: a flow's
//! segments leave its host in order and within their bounds; packets are
//! conserved; runs repeat bit for bit and are the same run in steps; a seed
//! changes a run; with every jitter at 0 the old event order is back.
//!
//! 64 cases per property by default; `PROPTEST_CASES` overrides it.

use hscc_cc::testing::proptest_cases;
use hscc_sim::config::{AckCounting, DelayDist, JitterUnit};
use hscc_sim::packet::Packet;
use hscc_sim::prelude::*;
use hscc_sim::tcp::Sender;
use hscc_sim::testing::{flow_rng, Capture};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Knobs {
    host_jitter: Time,
    start_jitter: Time,
    access: DelayDist,
    acks: bool,
    delack: u32,
    init_ssthresh: Option<u32>,
    per_send: bool,
}

fn knobs() -> impl Strategy<Value = Knobs> {
    let access = prop_oneof![
        Just(DelayDist::Fixed(0)),
        (0u64..30_000).prop_map(|us| DelayDist::Fixed(us * US)),
        (0u64..20_000, 0u64..20_000).prop_map(|(a, b)| DelayDist::Uniform {
            min: a * US,
            max: (a + b) * US
        }),
    ];
    (
        prop_oneof![Just(0u64), 0u64..200_000],
        prop_oneof![Just(0u64), 0u64..50_000],
        access,
        any::<bool>(),
        1u32..5,
        prop_oneof![Just(None), (2u32..200).prop_map(Some)],
        any::<bool>(),
    )
        .prop_map(
            |(hj, sj, access, acks, delack, init_ssthresh, per_send)| Knobs {
                host_jitter: hj * NS,
                start_jitter: sj * US,
                access,
                acks,
                delack,
                init_ssthresh,
                per_send,
            },
        )
}

fn apply(f: &mut FlowConfig, k: &Knobs) {
    f.host_jitter = k.host_jitter;
    f.start_jitter = k.start_jitter;
    f.access_delay = k.access;
    f.ack_counting = if k.acks {
        AckCounting::Acks
    } else {
        AckCounting::Segments
    };
    f.delack_segments = k.delack;
    f.init_ssthresh = k.init_ssthresh;
    f.jitter_unit = if k.per_send {
        JitterUnit::Send
    } else {
        JitterUnit::Segment
    };
}

/// `n` flows on `pairs` host pairs (flows beyond the pairs share them), plus
/// web traffic when `web`, on a 10 Mbit/s dumbbell.
fn scenario(k: &Knobs, n: usize, pairs: usize, web: bool, seed: u64, buffer: u64) -> SimConfig {
    let bn = LinkConfig::new(10_000_000, 5 * MS, Buffer::Packets(buffer));
    let db = dumbbell(
        bn.clone(),
        bn,
        &vec![AccessSpec::new(100_000_000, 2 * MS); pairs + 1],
    );
    let flows = (0..n)
        .map(|i| {
            let (s, d) = db.pairs[i % pairs];
            let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
            apply(&mut f, k);
            f
        })
        .collect();
    let mut tcp = FlowConfig::bulk(0, 0, CcParams::from_name("reno").unwrap());
    apply(&mut tcp, k);
    let (ws, wc) = db.pairs[pairs];
    let web = if web {
        vec![WebConfig {
            servers: vec![ws],
            clients: vec![wc],
            rate: 20.0,
            size: SizeDist::Exponential { mean: 20_000.0 },
            tcp,
            start: 0,
            stop: None,
            model: Default::default(),
        }]
    } else {
        Vec::new()
    };
    SimConfig {
        topology: db.topology,
        flows,
        web,
        duration: 3 * SEC,
        seed,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(64)))]

    #[test]
    fn a_flows_segments_leave_its_host_in_order_and_within_their_bounds(k in knobs(), seed in any::<u64>(), script in proptest::collection::vec((1u64..3, 0u64..50_000), 1..60)) {
        let mut cfg = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
        apply(&mut cfg, &k);
        let mut s = Sender::new(0, &cfg, flow_rng(seed, 0));
        let d = s.access_delay;
        match k.access {
            DelayDist::Fixed(x) => prop_assert_eq!(d, x),
            DelayDist::Uniform { min, max } => prop_assert!((min..=max).contains(&d)),
        }
        prop_assert!(s.start_offset <= k.start_jitter);
        let mut w = Capture::default();
        s.start(&mut w);
        // ACKs of one or two segments at random gaps (µs).
        for &(n, gap) in &script {
            w.now += gap * US + 1;
            let ack = (s.snd_una() + n).min(s.snd_nxt());
            s.on_ack(&Packet::ack(0, ack, 52, 0, 0), &mut w);
        }
        let mut last = 0;
        for (&(now, at), seq) in w.times.iter().zip(w.sent.iter().map(|p| p.seq)) {
            prop_assert!(at >= last, "segment {} at {} before an earlier one at {}", seq, at, last);
            prop_assert!(at >= now + d, "segment {} at {} sent at {} with access delay {}", seq, at, now, d);
            prop_assert!(at <= (now + d + k.host_jitter).max(last), "segment {} at {}: more than the jitter after {}", seq, at, now + d);
            last = at;
        }
    }

    #[test]
    fn packets_are_conserved_and_runs_repeat(k in knobs(), n in 1usize..4, pairs in 1usize..3, web in any::<bool>(), seed in any::<u64>(), buffer in 5u64..100) {
        let cfg = scenario(&k, n, pairs.min(n), web, seed, buffer);
        let mut sim = Sim::new(cfg.clone()).unwrap();
        let mut t = 0;
        while t < 3 * SEC {
            t += 70 * MS;
            sim.run_until(t);
            if let Err(e) = sim.check_conservation() {
                return Err(TestCaseError::fail(format!("at {t}: {e}")));
            }
            for f in &sim.flows {
                prop_assert!(f.sender.tp.snd_cwnd >= 1 && f.sender.tp.snd_ssthresh >= 2);
                prop_assert!(f.sender.snd_una() <= f.receiver.rcv_nxt && f.receiver.rcv_nxt <= f.sender.snd_nxt());
            }
        }
        let stepped = sim.finish();
        for (f, c) in stepped.flows.iter().zip(&cfg.flows) {
            prop_assert!(f.start_s >= hscc_sim::time::secs(c.start) && f.start_s <= hscc_sim::time::secs(c.start + c.start_jitter) + 1e-12);
            prop_assert!(f.goodput_bps.is_finite() && f.goodput_bps <= 10e6 * 1.0001);
        }
        // In steps or in one go, twice: the same bytes.
        prop_assert_eq!(stepped.to_json(), Sim::new(cfg.clone()).unwrap().run().to_json());
    }
}

#[test]
fn without_jitter_a_run_is_the_same_for_every_seed_and_with_it_not() {
    // Lossless, two flows sharing a host pair, started together: before this
    // change nothing in such a run was random.
    let k = Knobs {
        host_jitter: 0,
        start_jitter: 0,
        access: DelayDist::Fixed(0),
        acks: false,
        delack: 2,
        init_ssthresh: None,
        per_send: false,
    };
    let run = |k: &Knobs, seed| {
        let mut r = Sim::new(scenario(k, 2, 1, false, seed, 20)).unwrap().run();
        r.seed = 0;
        r.to_json()
    };
    assert_eq!(run(&k, 1), run(&k, 2));
    for k in [
        Knobs {
            host_jitter: 8 * US,
            ..k.clone()
        },
        Knobs {
            start_jitter: MS,
            ..k.clone()
        },
        Knobs {
            access: DelayDist::Uniform { min: 0, max: MS },
            ..k.clone()
        },
    ] {
        assert_ne!(run(&k, 1), run(&k, 2), "{k:?}");
    }
}

#[test]
fn a_start_jitter_never_moves_a_start_past_the_stop_or_the_end() {
    let bn = LinkConfig::new(10_000_000, 5 * MS, Buffer::Packets(50));
    let db = dumbbell(bn.clone(), bn, &[AccessSpec::new(100_000_000, 2 * MS)]);
    let (s, d) = db.pairs[0];
    for seed in 1..20 {
        let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
        f.start = 500 * MS;
        f.stop = Some(501 * MS);
        f.start_jitter = 10 * SEC;
        let mut g = f.clone();
        g.stop = None;
        let cfg = SimConfig {
            topology: db.topology.clone(),
            flows: vec![f, g],
            duration: SEC,
            seed,
            ..SimConfig::default()
        };
        let r = Sim::new(cfg).unwrap().run();
        assert!(
            r.flows[0].start_s >= 0.5 && r.flows[0].start_s < 0.501,
            "{}",
            r.flows[0].start_s
        );
        assert!(
            r.flows[1].start_s >= 0.5 && r.flows[1].start_s <= 1.0,
            "{}",
            r.flows[1].start_s
        );
        assert!(r.flows[0].counters.segs_sent > 0);
    }
}

/// ns-2's `overhead_` (`JitterUnit::Send`): the segments one ACK releases leave
/// together after a single draw, an ACK that comes while that send waits joins
/// it, and the next send after it draws again.
#[test]
fn a_send_jitter_delays_each_send_once_and_segments_asked_for_meanwhile_join_it() {
    let mut cfg = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
    cfg.host_jitter = 8 * US;
    cfg.jitter_unit = JitterUnit::Send;
    cfg.init_cwnd = 2;
    for seed in 0..20 {
        let mut s = Sender::new(0, &cfg, flow_rng(seed, 0));
        let mut w = Capture::default();
        s.start(&mut w);
        // The initial window: both segments at one instant within the jitter.
        let (t0, a0) = w.times[0];
        assert_eq!(w.times[1].1, a0, "seed {seed}");
        assert!(a0 >= t0 && a0 <= t0 + 8 * US, "seed {seed}");
        // Two ACKs 1 ns apart, the second while the first's send waits (unless it
        // drew 0): all their segments leave at the first's instant.
        w.now = 10 * MS;
        let first = w.times.len();
        s.on_ack(&Packet::ack(0, 1, 52, 0, 0), &mut w);
        w.now += 1;
        s.on_ack(&Packet::ack(0, 2, 52, 0, 0), &mut w);
        let at = w.times[first].1;
        assert!(w.times.len() > first + 2, "seed {seed}: both ACKs sent");
        if at > 10 * MS {
            assert!(
                w.times[first..].iter().all(|&(_, a)| a == at),
                "seed {seed}: {:?}",
                w.times
            );
        }
        // Much later, a new send: a new draw.
        w.now = 20 * MS;
        let before = w.times.len();
        s.on_ack(&Packet::ack(0, 3, 52, 0, 0), &mut w);
        assert!(w.times[before..]
            .iter()
            .all(|&(_, a)| (20 * MS..=20 * MS + 8 * US).contains(&a)));
    }
}
