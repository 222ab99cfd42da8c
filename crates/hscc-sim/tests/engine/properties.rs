//! Property tests over random small scenarios: packet conservation, scoreboard
//! consistency, finite positive windows, queues within their buffers (never
//! negative), time that only runs forward, no panics (debug assertions include
//! "never retransmit cumulatively acknowledged data"), determinism.
//!
//! 96 cases per property by default; `PROPTEST_CASES` overrides it (the slow
//! suite, `scripts/test-slow.sh`, runs thousands).

use hscc_cc::testing::proptest_cases;
use hscc_sim::prelude::*;
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Scenario {
    flows: Vec<(u64, bool, bool, bool, u64)>, // access delay ms, sack, prr, delayed ack, start ms
    rate: u64,
    delay_ms: u64,
    buffer: Buffer,
    loss: f64,
    rev_loss: f64,
    jitter_us: u64,
    duration_ms: u64,
    seed: u64,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        proptest::collection::vec(
            (
                0u64..40,
                any::<bool>(),
                any::<bool>(),
                any::<bool>(),
                0u64..500,
            ),
            1..5,
        ),
        1_000_000u64..50_000_000,
        1u64..30,
        prop_oneof![
            (2u64..150).prop_map(Buffer::Packets),
            (3_000u64..200_000).prop_map(Buffer::Bytes)
        ],
        prop_oneof![Just(0.0), 0.0f64..0.05],
        prop_oneof![Just(0.0), 0.0f64..0.02],
        prop_oneof![Just(0u64), 0u64..2_000],
        500u64..4_000,
        any::<u64>(),
    )
        .prop_map(
            |(flows, rate, delay_ms, buffer, loss, rev_loss, jitter_us, duration_ms, seed)| {
                Scenario {
                    flows,
                    rate,
                    delay_ms,
                    buffer,
                    loss,
                    rev_loss,
                    jitter_us,
                    duration_ms,
                    seed,
                }
            },
        )
}

fn build(s: &Scenario) -> SimConfig {
    let mut fwd = LinkConfig::new(s.rate, s.delay_ms * MS, s.buffer).with_loss(s.loss);
    fwd.jitter = s.jitter_us * US;
    let rev = LinkConfig::new(s.rate, s.delay_ms * MS, s.buffer).with_loss(s.rev_loss);
    let pairs: Vec<AccessSpec> = s
        .flows
        .iter()
        .map(|f| AccessSpec::new(s.rate * 10, f.0 * MS))
        .collect();
    let db = dumbbell(fwd, rev, &pairs);
    let flows = s
        .flows
        .iter()
        .zip(&db.pairs)
        .map(|(f, &(src, dst))| {
            let mut c = FlowConfig::bulk(src, dst, CcParams::from_name("reno").unwrap());
            c.sack = f.1;
            c.recovery = if f.2 {
                Recovery::Prr
            } else {
                Recovery::Classic
            };
            c.delayed_ack = f.3;
            c.start = f.4 * MS;
            c
        })
        .collect();
    SimConfig {
        topology: db.topology,
        flows,
        duration: s.duration_ms * MS,
        seed: s.seed,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    }
}

/// How a test advances a run: by a fixed amount, or to the next pending event
/// (where `run_until` stops exactly on an event time).
#[derive(Clone, Copy, Debug)]
enum Step {
    By(Time),
    ToNextEvent,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    let step = prop_oneof![
        (1u64..1_000).prop_map(Step::By),
        (1u64..MS).prop_map(Step::By),
        (MS..100 * MS).prop_map(Step::By),
        Just(Step::ToNextEvent),
    ];
    proptest::collection::vec(step, 1..20)
}

/// At `t`, right after `run_until(t)`: the clock reads `t`, nothing pending or
/// still on a link lies in the past, each link delivers in order, and no queue
/// is negative (a wrapped counter) or above its buffer.
fn check_time_and_queues(sim: &mut Sim, t: Time) -> Result<(), String> {
    if sim.net.now != t {
        return Err(format!(
            "the clock reads {} after running to {t}",
            sim.net.now
        ));
    }
    if let Some(e) = sim.net.q.peek_time().filter(|&e| e <= t) {
        return Err(format!("an event at {e} is still pending at {t}"));
    }
    for (i, (l, spec)) in sim
        .net
        .links
        .iter()
        .zip(&sim.cfg.topology.links)
        .enumerate()
    {
        let arrivals: Vec<Time> = l.packets().map(|p| p.t).collect();
        if arrivals.first().is_some_and(|&a| a <= t) {
            return Err(format!(
                "link {i}: a packet due at {} is still on the link at {t}",
                arrivals[0]
            ));
        }
        if arrivals.windows(2).any(|w| w[1] < w[0]) {
            return Err(format!(
                "link {i}: arrival times out of order: {arrivals:?}"
            ));
        }
        check_queue(i, l.queue_len() as u64, l.queue_bytes(), spec.cfg.buffer)?;
    }
    Ok(())
}

fn check_queue(link: usize, pkts: u64, bytes: u64, buffer: Buffer) -> Result<(), String> {
    let within = match buffer {
        Buffer::Packets(n) => pkts <= n,
        Buffer::Bytes(b) => bytes <= b,
    };
    if !within || (pkts == 0) != (bytes == 0) {
        return Err(format!(
            "link {link}: queue of {pkts} packets, {bytes} bytes in a buffer of {buffer:?}"
        ));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(96)))]

    #[test]
    fn conservation_and_finite_windows_hold_throughout(s in scenario()) {
        let mut sim = Sim::new(build(&s)).unwrap();
        let step = 50 * MS;
        let mut t = 0;
        while t < s.duration_ms * MS {
            t += step;
            sim.run_until(t);
            if let Err(e) = sim.check_conservation() {
                return Err(TestCaseError::fail(format!("at {t}: {e}")));
            }
            for f in &sim.flows {
                let tp = &f.sender.tp;
                prop_assert!(tp.snd_cwnd >= 1 && tp.snd_cwnd < u32::MAX / 2, "cwnd {}", tp.snd_cwnd);
                prop_assert!(tp.snd_ssthresh >= 2, "ssthresh {}", tp.snd_ssthresh);
                prop_assert!(f.receiver.rcv_nxt <= f.sender.snd_nxt());
                prop_assert!(f.sender.snd_una() <= f.receiver.rcv_nxt);
            }
        }
        let r = sim.finish();
        for f in &r.flows {
            prop_assert!(f.goodput_bps.is_finite() && f.goodput_bps >= 0.0);
            prop_assert!(f.goodput_bps <= s.rate as f64 * 1.0001, "goodput above the link rate");
        }
    }

    #[test]
    fn time_runs_forward_and_queues_stay_within_their_buffers(s in scenario(), steps in steps()) {
        let mut sim = Sim::new(build(&s)).unwrap();
        let end = s.duration_ms * MS;
        // `steps` over and over, each time followed by 50 ms: the run ends
        // within end / 50 ms rounds.
        let rounds = end.div_ceil(50 * MS) as usize;
        let schedule = steps.iter().copied().chain([Step::By(50 * MS)]).cycle().take(rounds * (steps.len() + 1));
        let mut t = 0;
        for step in schedule {
            let next = match step {
                Step::By(dt) => t + dt,
                Step::ToNextEvent => sim.net.q.peek_time().unwrap_or(end),
            };
            t = next.min(end);
            sim.run_until(t);
            if let Err(e) = check_time_and_queues(&mut sim, t) {
                return Err(TestCaseError::fail(format!("after {step:?} to {t}: {e}")));
            }
            if t == end {
                break;
            }
        }
        prop_assert_eq!(t, end);
        let buffers: Vec<Buffer> = sim.cfg.topology.links.iter().map(|l| l.cfg.buffer).collect();
        let stepped = sim.finish();
        let tr = &stepped.traces;
        prop_assert!(tr.time_s.windows(2).all(|w| w[0] < w[1]), "sample times not increasing: {:?}", tr.time_s);
        for l in &tr.links {
            for (&pkts, &bytes) in l.queue_pkts.iter().zip(&l.queue_bytes) {
                check_queue(l.link as usize, pkts, bytes, buffers[l.link as usize]).map_err(TestCaseError::fail)?;
            }
            // The per-interval mean delay is a difference of float sums, which
            // can round to -2e-16 s: allow rounding, nothing more.
            prop_assert!(l.qdelay_s.iter().all(|&d| d >= -1e-12), "negative queuing delay on link {}: {:?}", l.link, l.qdelay_s);
        }
        // Running in steps (as the Python package does, to show progress)
        // changes nothing: the order of events is the same.
        prop_assert_eq!(stepped.to_json(), Sim::new(build(&s)).unwrap().run().to_json());
    }

    #[test]
    fn same_scenario_and_seed_give_identical_results(s in scenario()) {
        let a = Sim::new(build(&s)).unwrap().run().to_json();
        let b = Sim::new(build(&s)).unwrap().run().to_json();
        prop_assert_eq!(a, b);
    }
}

#[test]
fn a_different_seed_changes_a_lossy_run() {
    let s = Scenario {
        flows: vec![(10, true, true, true, 0)],
        rate: 10_000_000,
        delay_ms: 10,
        buffer: Buffer::Packets(50),
        loss: 0.01,
        rev_loss: 0.0,
        jitter_us: 0,
        duration_ms: 3_000,
        seed: 1,
    };
    let a = Sim::new(build(&s)).unwrap().run();
    let b = Sim::new(build(&Scenario { seed: 2, ..s })).unwrap().run();
    assert_ne!(a.flows[0].counters, b.flows[0].counters);
}

#[test]
fn adding_a_flow_does_not_change_other_links_random_draws() {
    // Per-component seeding: the bottleneck's loss process is the same stream
    // whatever else is in the scenario, so with no competing traffic at first,
    // flow 0's first second is identical with and without a late second flow.
    let base = Scenario {
        flows: vec![(10, true, true, true, 0)],
        rate: 10_000_000,
        delay_ms: 10,
        buffer: Buffer::Packets(1000),
        loss: 0.01,
        rev_loss: 0.0,
        jitter_us: 0,
        duration_ms: 1_000,
        seed: 9,
    };
    let mut two = base.clone();
    two.flows.push((10, true, true, true, 999));
    let a = Sim::new(build(&base)).unwrap().run();
    let b = Sim::new(build(&two)).unwrap().run();
    assert_eq!(a.flows[0].counters, b.flows[0].counters);
}
