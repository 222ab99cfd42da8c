//! The programs of bpf/, built for user space, against the Rust algorithms:
//! identical snd_cwnd, snd_ssthresh, snd_cwnd_cnt and pacing rate after every
//! hook call (`Lockstep`), under scripted sequences and random ones.

use std::collections::BTreeSet;

use hscc_bpf_conformance::ffi::{c_layout, rust_layout};
use hscc_bpf_conformance::{ops, programs, CProgram, Lockstep};
use hscc_cc::testing::{proptest_cases, Harness, Op, PacedPath, Policer};
use hscc_cc::{algorithm_names, algorithms, Cc, CcParams, ParamKind, TCP_CONG_NEEDS_ECN};
use proptest::prelude::{any, Strategy};
use proptest::test_runner::{Config, TestRunner};

/// Rust algorithms that have no program in bpf/ yet. The test below fails
/// when this list is out of date either way.
const NOT_YET_IN_BPF: &[&str] = &[];

#[test]
fn the_shims_layout_is_the_rust_mirrors() {
    assert_eq!(c_layout(), rust_layout());
}

#[test]
fn every_program_is_a_registered_algorithm_with_its_globals() {
    let names = algorithm_names();
    let programs = programs();
    assert!(!programs.is_empty());
    for p in &programs {
        assert!(
            names.contains(&p.name),
            "bpf/{}.bpf.c: no Rust algorithm of that name",
            p.name
        );
        assert_eq!(
            p.kernel_name(),
            format!("hscc_{}", p.name.replace('-', "_"))
        );
        assert!(
            p.kernel_name().len() < 16,
            "{}: kernel names have at most 15 bytes",
            p.kernel_name()
        );
        assert_eq!(
            p.flags() & 1,
            1,
            "{}: register with TCP_CONG_NON_RESTRICTED",
            p.name
        );
        let rust: Vec<String> = Cc::new(&CcParams::from_name(p.name).unwrap())
            .bpf_globals()
            .into_iter()
            .map(|(n, _)| n.to_string())
            .collect();
        assert_eq!(
            rust,
            p.global_names(),
            "{}: Cc::bpf_globals and the program's globals",
            p.name
        );
    }
    let have: BTreeSet<&str> = programs.iter().map(|p| p.name).collect();
    let missing: BTreeSet<&str> = names
        .iter()
        .copied()
        .filter(|n| !have.contains(n))
        .collect();
    assert_eq!(
        missing,
        NOT_YET_IN_BPF.iter().copied().collect(),
        "update NOT_YET_IN_BPF"
    );
}

/// Integer parameters that choose a mode, with their values: (algorithm,
/// parameter, values). HighSpeed's and TCP-Africa's `response`: 0 = RFC 3649's
/// table, 1 = its formulas.
const CHOICES: &[(&str, &str, &[f64])] = &[
    ("highspeed", "response", &[0.0, 1.0]),
    ("africa", "response", &[0.0, 1.0]),
];

/// The defaults, then each switch of the algorithm flipped alone; for an
/// algorithm with a choice (`CHOICES`), that for each of its values.
fn variants(name: &str) -> Vec<CcParams> {
    let info = algorithms().into_iter().find(|a| a.name == name).unwrap();
    let choices: Vec<(&str, f64)> = match CHOICES.iter().find(|c| c.0 == name) {
        Some(&(_, param, values)) => values.iter().map(|&v| (param, v)).collect(),
        None => Vec::new(),
    };
    let bases: Vec<Vec<(&str, f64)>> = if choices.is_empty() {
        vec![vec![]]
    } else {
        choices.into_iter().map(|c| vec![c]).collect()
    };
    let mut out = Vec::new();
    for base in bases {
        out.push(CcParams::with(name, &base).unwrap());
        for s in info.params.iter().filter(|s| s.kind == ParamKind::Bool) {
            let mut pairs = base.clone();
            pairs.push((s.name, 1.0 - s.default));
            if let Ok(p) = CcParams::with(name, &pairs) {
                out.push(p);
            }
        }
    }
    out
}

fn harness(p: &CcParams, init_cwnd: u32) -> Harness<Lockstep> {
    Harness::new(Lockstep::new_checked(p).unwrap(), init_cwnd)
}

/// Window clamps (snd_cwnd_clamp) for the scripted and the random sequences
/// of algorithms that would otherwise outgrow any test: FAST doubles cwnd
/// every RTT until queueing delay appears, and the harness's RTT holds none
/// unless a sequence changes it, so its windows (and the ACKs of a round)
/// would reach 2³¹. The scripted clamp still allows the 20 000-segment window.
/// Hybla adds up to 2¹⁶ − 1 segments per ACK in slow start (ρ ≥ 16 from an
/// RTT of 400 ms at its rtt0 of 25 ms, or 16 ms at rtt0 = 1 ms), so its
/// random windows sit at the clamp; its scripted clamp is the one its `init`
/// sets (Linux's 65 535). LEDBAT's slow start (ns-3's) adds a segment per
/// ACK whether or not the sender fills the window, so the random sequences'
/// ACKs of a few segments in flight grow it to the clamp until a loss; its
/// scripted sequences keep the harness's clamp.
const WINDOW_CLAMPS: &[(&str, u32, u32)] = &[
    ("fast", 20_000, 1_000),
    ("hybla", 65_535, 500),
    ("ledbat", u32::MAX / 2, 1_000),
];

/// The window clamp of every other algorithm's random sequences. Parameters
/// drawn at their ends grow some windows geometrically (CTCP with α = 8 and
/// k = 1 adds 8·win per round), and each op that ACKs a round walks the whole
/// window: unclamped, a rare draw reaches 10⁹ segments and never ends in a
/// test's time. The scripted sequences keep the harness's clamp (2³¹).
const RANDOM_WINDOW_CLAMP: u32 = 100_000;

/// The harness for `name`, with its window clamp.
fn clamped_harness(name: &str, p: &CcParams, random: bool) -> Harness<Lockstep> {
    let mut h = harness(p, 10);
    match WINDOW_CLAMPS.iter().find(|c| c.0 == name) {
        Some(&(_, scripted, random_clamp)) => {
            h.tp.snd_cwnd_clamp = if random { random_clamp } else { scripted };
        }
        None if random => h.tp.snd_cwnd_clamp = RANDOM_WINDOW_CLAMP,
        None => {}
    }
    h
}

type Script = (&'static str, fn(&mut Harness<Lockstep>));

/// 300 rounds on a path with a 100-segment BDP at 50 ms, one segment per
/// 0.5 ms, and a 100-segment buffer: each round's RTT is the base plus the
/// queue the window builds, a loss when the buffer overflows. Backlogs of
/// every size in between, which delay-based laws (CTCP's γ, Vegas' α/β, CDG's
/// gradients) compare. `after_round` sees the harness after each round.
fn follow_the_queue(h: &mut Harness<Lockstep>, mut after_round: impl FnMut(&Harness<Lockstep>)) {
    h.tp.snd_ssthresh = 60;
    for _ in 0..300 {
        let queue = h.cwnd().saturating_sub(100);
        if queue > 100 {
            h.loss();
            continue;
        }
        h.set_rtt_us(50_000 + queue * 500);
        h.clocked_round();
        after_round(h);
    }
}

/// Scripted sequences in the manner of hscc-cc's Harness tests: slow start,
/// congestion avoidance, losses, timeouts, undo, idle periods, delayed ACKs,
/// RTT changes, at short and long RTTs and small and large windows.
const SCRIPTS: &[Script] = &[
    ("slow start, avoidance and losses at 100 ms", |h| {
        h.set_rtt_ms(100);
        h.rounds(8);
        h.loss();
        h.rounds(40);
        h.loss();
        h.clocked_rounds(40);
    }),
    ("delayed ACKs", |h| {
        h.set_rtt_ms(20);
        h.tp.snd_ssthresh = 300;
        for _ in 0..30 {
            h.send_all();
            h.advance_ms(20);
            let n = h.tp.packets_out;
            h.ack_each(n.div_ceil(2), 2);
        }
        h.loss();
        h.rounds(20);
    }),
    ("timeout and restart", |h| {
        h.set_rtt_ms(50);
        h.rounds(6);
        h.timeout();
        h.rounds(30);
        h.timeout();
        h.timeout();
        h.rounds(10);
    }),
    ("spurious reduction undone", |h| {
        h.set_rtt_ms(30);
        h.rounds(5);
        h.fast_retransmit();
        h.undo();
        h.rounds(5);
        h.loss();
        h.rounds(3);
        h.fast_retransmit();
        h.ack_each(5, 1);
        h.end_recovery();
        h.rounds(5);
    }),
    ("idle periods", |h| {
        h.set_rtt_ms(40);
        h.rounds(6);
        h.loss();
        h.rounds(10);
        h.advance_ms(5_000);
        h.rounds(10);
        h.advance_ms(300);
        h.clocked_rounds(10);
    }),
    ("RTT up and down", |h| {
        h.set_rtt_ms(50);
        h.tp.snd_ssthresh = 100;
        h.clocked_rounds(15);
        h.set_rtt_ms(80);
        h.clocked_rounds(15);
        h.set_rtt_ms(50);
        h.clocked_rounds(15);
        h.loss();
        h.set_rtt_ms(200);
        h.clocked_rounds(15);
        h.set_rtt_ms(10);
        h.clocked_rounds(15);
    }),
    ("short RTT, periodic losses", |h| {
        h.set_rtt_ms(1);
        h.rounds(5);
        h.loss();
        // A loss every 40 RTTs, or as soon as the window passes 5000
        // segments (multiplicative increases outgrow any fixed period).
        for _ in 0..25 {
            for _ in 0..40 {
                if h.cwnd() > 5000 {
                    break;
                }
                h.clocked_round();
            }
            h.loss();
        }
    }),
    ("RTT that follows the queue", |h| {
        follow_the_queue(h, |_| {})
    }),
    ("window cut outside the hooks", |h| {
        // Linux cuts snd_cwnd with no hook call when the sender was
        // application-limited for an RTO (tcp_cwnd_application_limited);
        // a program keeping its own split must notice at the next hook.
        h.set_rtt_ms(50);
        h.tp.snd_ssthresh = 60;
        for i in 0..80 {
            h.clocked_round();
            if i % 7 == 6 {
                h.tp.snd_cwnd = (h.tp.snd_cwnd * 2 / 3).max(2);
            }
        }
    }),
    ("large window", |h| {
        h.set_rtt_ms(100);
        h.tp.snd_ssthresh = 20_000;
        h.rounds(12);
        h.loss();
        h.clocked_rounds(30);
        h.loss();
        h.rounds(30);
    }),
];

fn scripted(name: &str) {
    assert!(CProgram::find(name).is_some(), "bpf/{name}.bpf.c");
    let mut calls = 0;
    for p in variants(name) {
        for (what, script) in SCRIPTS {
            let mut h = clamped_harness(name, &p, false);
            script(&mut h);
            // A script that ran no hook proves nothing.
            assert!(
                h.cc.calls() > 100,
                "{name} {what}: only {} hook calls",
                h.cc.calls()
            );
            calls += h.cc.calls();
        }
    }
    eprintln!("{name}: {calls} hook calls compared");
}

/// Random sequences per program in the default suite; the slow suite
/// (scripts/test-slow.sh) sets PROPTEST_CASES to ten times as many.
const RANDOM_CASES: u32 = 2_000;

/// Random operation sequences (hscc-cc's property-suite mix) on random
/// parameter sets: RANDOM_CASES per algorithm, PROPTEST_CASES to change that.
fn random(name: &'static str) {
    assert!(CProgram::find(name).is_some(), "bpf/{name}.bpf.c");
    let config = Config {
        cases: proptest_cases(RANDOM_CASES),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let needs_ecn = CcParams::from_name(name).unwrap().flags() & TCP_CONG_NEEDS_ECN != 0;
    let op = if needs_ecn {
        ops::ecn_op().boxed()
    } else {
        ops::op().boxed()
    };
    let strategy = (ops::params(name), proptest::collection::vec(op, 1..120));
    runner
        .run(&strategy, |(params, seq)| {
            let mut h = clamped_harness(name, &params, true);
            for op in &seq {
                h.apply(*op);
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

/// A scripted and a random test per program of bpf/.
macro_rules! conformance {
    ($($module:ident => $name:literal),* $(,)?) => {
        $( mod $module {
            #[test]
            fn scripted_sequences() { super::scripted($name) }
            #[test]
            fn random_sequences() { super::random($name) }
        } )*
        #[test]
        fn every_program_has_its_tests() {
            let tested: BTreeSet<&str> = [$($name),*].into_iter().collect();
            let have: BTreeSet<&str> = programs().iter().map(|p| p.name).collect();
            assert_eq!(tested, have, "add the program to conformance! in tests/bpf/conformance.rs");
        }
    };
}

conformance! {
    reno => "reno",
    cubic => "cubic",
    africa => "africa",
    scalable => "scalable",
    multcp => "multcp",
    highspeed => "highspeed",
    bic => "bic",
    htcp => "htcp",
    vegas => "vegas",
    veno => "veno",
    hybla => "hybla",
    yeah => "yeah",
    cdg => "cdg",
    nv => "nv",
    illinois => "illinois",
    westwood => "westwood",
    fast => "fast",
    ctcp => "ctcp",
    ctcp_la => "ctcp-la",
    fit => "fit",
    sync => "sync",
    bbr => "bbr",
    bbr3 => "bbr3",
    dctcp => "dctcp",
    lp => "lp",
    ledbat => "ledbat",
}

/// NV decides once per round from the delivery rate (Linux's
/// `ack_sample.in_flight`, which the harness computes as Linux does): on a
/// path whose RTT follows the queue its cuts without loss, the growth after
/// them and the min-RTT resets (every 3.75–6.25 s, drawn from the generator)
/// all run, and the program follows the Rust through each.
#[test]
fn nv_conforms_through_its_congestion_decisions() {
    let p = CcParams::from_name("nv").unwrap();
    let mut h = harness(&p, 10);
    let (mut cuts, mut cwnd, mut lost) = (0, 0, 0);
    follow_the_queue(&mut h, |h| {
        if h.cwnd() < cwnd && h.tp.lost == lost {
            cuts += 1;
        }
        (cwnd, lost) = (h.cwnd(), h.tp.lost);
    });
    assert!(cuts >= 3, "{cuts} cuts without a loss");
    assert!(h.tp.now_us > 12_000_000, "{} µs: few resets", h.tp.now_us);
}

#[test]
fn dctcp_conforms_on_ecn_echoes_and_events() {
    let flags = programs()
        .iter()
        .find(|p| p.name == "dctcp")
        .unwrap()
        .flags();
    assert_eq!(flags, 1 | TCP_CONG_NEEDS_ECN, "NON_RESTRICTED | NEEDS_ECN");
    for g in [0.0, 4.0, 10.0] {
        let p = CcParams::with("dctcp", &[("dctcp_shift_g", g)]).unwrap();
        let mut h = harness(&p, 10);
        for round in 0..200u32 {
            h.send_all();
            // A marked fraction that moves with the round: 0 to 5 of the ACKs.
            let acks = h.tp.packets_out;
            let marked = (round % 6).min(acks);
            h.ack_each(acks - marked, 1);
            h.ece_ack_each(marked, 1);
            h.apply(Op::EcnEvent(round % 2 == 0));
            if round % 50 == 49 {
                h.loss();
            }
            if round % 70 == 69 {
                h.timeout();
                h.undo();
            }
        }
        assert!(h.cc.calls() > 10_000, "{}", h.cc.calls());
    }
}

/// Random sequences with rate samples (`ops::rate_op`) for the programs that
/// own cwnd and pacing through `cong_control`: RANDOM_CASES per program.
#[test]
fn programs_with_cong_control_conform_on_rate_samples() {
    let owners: Vec<CProgram> = programs()
        .into_iter()
        .filter(|p| p.has_cong_control())
        .collect();
    assert!(owners.iter().any(|p| p.name == "bbr"));
    for p in owners {
        let name = p.name;
        let config = Config {
            cases: proptest_cases(RANDOM_CASES),
            failure_persistence: None,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let strategy = (
            ops::params(name),
            proptest::collection::vec(ops::rate_op(), 1..200),
            any::<u64>(),
        );
        runner
            .run(&strategy, |(params, seq, seed)| {
                let mut h = harness(&params, 10);
                h.tp.prandom_state = seed;
                for op in &seq {
                    ops::apply_rate_op(&mut h, *op);
                }
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// BBR on a bottleneck through all its modes, in lockstep with its program
/// on every hook call: STARTUP, DRAIN and gain cycling at 10 packets/ms and
/// 10 ms; PROBE_RTT once the propagation delay grows (the old minimum
/// expires); a policer at half the rate (long-term sampling, recovery); then
/// the policer gone. For several seeds (random gain-cycle phases) and the
/// variants of its parameters.
#[test]
fn bbr_on_a_path_through_every_mode() {
    let mut modes = BTreeSet::new();
    for p in variants("bbr").into_iter().chain([
        CcParams::with("bbr", &[("extra_acked_gain", 0.0)]).unwrap(),
        CcParams::with("bbr", &[("probe_rtt_mode_ms", 0.0)]).unwrap(),
    ]) {
        for seed in 0..4 {
            let mut h = harness(&p, 10);
            h.tp.prandom_state = seed;
            let mut path = PacedPath::new(h);
            let mut watch = |path: &mut PacedPath<Lockstep>, us: u64| {
                run_watching(path, us, |cc| {
                    if let hscc_cc::Cc::Bbr(b) = cc {
                        modes.insert(format!("{:?}", b.mode));
                        if b.lt_use_bw {
                            modes.insert("policed".into());
                        }
                    }
                })
            };
            watch(&mut path, 2_000_000);
            path.rtprop_us = 15_000;
            watch(&mut path, 11_000_000);
            path.policer = Some(Policer::new(0.005, 20.0, path.h.tp.now_us));
            watch(&mut path, 3_000_000);
            path.policer = None;
            watch(&mut path, 1_000_000);
            assert!(path.h.cc.calls() > 10_000, "{}", path.h.cc.calls());
        }
    }
    let want: BTreeSet<String> = ["Startup", "Drain", "ProbeBw", "ProbeRtt", "policed"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(modes, want);
}

/// Run `path` for `us` µs in 1-ms steps, showing the Rust algorithm's state
/// to `see` after each.
fn run_watching(path: &mut PacedPath<Lockstep>, us: u64, mut see: impl FnMut(&hscc_cc::Cc)) {
    let end = path.h.tp.now_us + us;
    while path.h.tp.now_us < end {
        path.run_for(1000);
        see(path.h.cc.rust());
    }
}

/// BBRv3 on a bottleneck through all its states, in lockstep with its
/// program on every hook call: STARTUP, DRAIN and the PROBE_BW cycle at 10
/// packets/ms and 10 ms; PROBE_RTT within 5 s; a policer at half the rate
/// (losses: the long-term bound from a probe that lost too much, the
/// short-term bounds from lossy rounds outside probing, recovery); then the
/// policer gone. For several seeds (random probe waits) and the variants of
/// its parameters.
#[test]
fn bbr3_on_a_path_through_every_state() {
    let mut seen = BTreeSet::new();
    for p in variants("bbr3") {
        for seed in 0..3 {
            let mut h = harness(&p, 10);
            h.tp.prandom_state = seed;
            let mut path = PacedPath::new(h);
            let mut watch = |path: &mut PacedPath<Lockstep>, us: u64| {
                run_watching(path, us, |cc| {
                    if let hscc_cc::Cc::Bbr3(b) = cc {
                        seen.insert(format!("{:?}", b.state));
                        if b.inflight_longterm != u32::MAX {
                            seen.insert("inflight_longterm".into());
                        }
                        if b.bw_shortterm != u32::MAX {
                            seen.insert("bw_shortterm".into());
                        }
                    }
                })
            };
            watch(&mut path, 6_000_000);
            path.policer = Some(Policer::new(0.005, 20.0, path.h.tp.now_us));
            watch(&mut path, 3_000_000);
            path.policer = None;
            watch(&mut path, 1_000_000);
            assert!(path.h.cc.calls() > 10_000, "{}", path.h.cc.calls());
        }
    }
    let want: BTreeSet<String> = [
        "Startup",
        "Drain",
        "ProbeBwDown",
        "ProbeBwCruise",
        "ProbeBwRefill",
        "ProbeBwUp",
        "ProbeRtt",
        "inflight_longterm",
        "bw_shortterm",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(seen, want);
}

/// TCP-FIT's shared α (`alpha_shared`): the connections of one thread share
/// Rust's `AlphaPool` and the program's pool (the kernel's .bss, per thread
/// in the shim), joining as they end loss-free periods and leaving as they
/// close (`release`). Random operations on 2 to 4 connections of one
/// configuration in turn, now and then one closing and a new one opening.
#[test]
fn fit_connections_share_alpha() {
    let config = Config {
        cases: proptest_cases(2_000),
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let turn = (0usize..4, ops::op(), proptest::bool::weighted(0.02));
    let strategy = (
        ops::params("fit"),
        2usize..5,
        proptest::collection::vec(turn, 1..400),
    );
    runner
        .run(&strategy, |(params, n, seq)| {
            let mut conns: Vec<_> = (0..n).map(|_| harness(&params, 10)).collect();
            for (i, op, reopen) in seq {
                let h = &mut conns[i % n];
                if reopen {
                    *h = harness(&params, 10);
                }
                h.apply(op);
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("fit connections: {e}"));
}

/// TCP-FIT at the largest N its range allows (10^6, above the random
/// draws' cap): +N per window, stretch ACKs whose acked·N saturates 32 bits,
/// decreases of w·(3N − 1)/(3N + 1) and MulTCP's, a timeout.
#[test]
fn fit_at_the_largest_n() {
    for multcp in [0.0, 1.0] {
        let p = CcParams::with(
            "fit",
            &[("n_fixed", 1e6), ("alpha_auto", 0.0), ("multcp", multcp)],
        )
        .unwrap();
        let mut h = harness(&p, 10);
        h.set_rtt_ms(100);
        h.tp.snd_ssthresh = 20;
        for _ in 0..4 {
            h.send_all();
            h.advance_ms(100);
            // 5000-segment stretch ACKs: 5000·10^6 > 2^32.
            let n = h.tp.packets_out;
            h.ack_each(n.div_ceil(5000), 5000);
            h.loss();
        }
        h.timeout();
        h.rounds(8);
        assert!(h.cc.calls() > 50, "{} hook calls", h.cc.calls());
    }
}

/// Sync-TCP over minutes, with each switch flipped: a 100-segment BDP at
/// 50 ms (RTT = 50 ms + 0.5 ms per queued segment, a loss beyond 100 queued),
/// alone (legacy start, the switch to Sync-TCP, Probing ↔ Waiting ↔ Emptying
/// at exact T_wait multiples), then behind `extra_ms` of queue held by other
/// traffic (delay signals every epoch, λ growing, rerouting, the rate falling
/// below its share until the flow starves back to legacy TCP), alone again
/// (the floor and hold before Sync-TCP returns, doubled on a second starved
/// episode), and application-limited for a while.
#[test]
fn sync_switches_between_legacy_and_sync_tcp() {
    use hscc_cc::algos::sync::SyncState;
    fn state(h: &Harness<Lockstep>) -> SyncState {
        match h.cc.rust() {
            Cc::Sync(s) => s.state(),
            other => panic!("not Sync-TCP: {other:?}"),
        }
    }
    /// `rounds` rounds; the (from, to) state changes seen between rounds.
    fn phase(
        h: &mut Harness<Lockstep>,
        rounds: u32,
        extra_ms: u32,
        seen: &mut Vec<(SyncState, SyncState)>,
    ) {
        for _ in 0..rounds {
            let before = state(h);
            let queue = h.cwnd().saturating_sub(100);
            if queue > 100 {
                h.loss();
            } else {
                h.set_rtt_us(50_000 + queue * 500 + extra_ms * 1000);
                h.clocked_round();
            }
            let change = (before, state(h));
            if !seen.contains(&change) {
                seen.push(change);
            }
        }
    }
    for p in variants("sync") {
        let mut seen = Vec::new();
        let mut h = harness(&p, 10);
        for extra_ms in [0, 30, 0, 30, 0] {
            phase(&mut h, 800, extra_ms, &mut seen);
        }
        h.tp.app_limited = true;
        phase(&mut h, 100, 0, &mut seen);
        h.tp.app_limited = false;
        phase(&mut h, 100, 0, &mut seen);
        assert!(h.cc.calls() > 100_000, "{} hook calls", h.cc.calls());
        // The script reaches what it is for: Sync-TCP's cycle, and (with
        // switching) starvation back to legacy TCP.
        use SyncState::*;
        for change in [
            (Legacy, Probing),
            (Probing, Waiting),
            (Waiting, Emptying),
            (Emptying, Probing),
        ] {
            assert!(
                seen.contains(&change),
                "{p:?}: never {change:?} in {seen:?}"
            );
        }
        let starved = seen.iter().any(|&(a, b)| a != Legacy && b == Legacy);
        let switching = p.values().contains(&("switching".to_string(), 1.0));
        assert_eq!(starved, switching, "{p:?}: {seen:?}");
    }
}

/// CDG's backoff in lockstep: `tcp_enter_cwr` (the shim's stand-in and
/// `TcpCc::enter_cwr`), CWR and its end, on the queue-following RTT with every
/// positive gradient backing off (`backoff_factor` = 10⁶, so e^−x = 0), with
/// the defaults' switches and with loss tolerance.
#[test]
fn cdg_backs_off_through_cwr_in_lockstep() {
    use hscc_cc::CaState;
    for tolerance in [0.0, 1.0] {
        let p = CcParams::with(
            "cdg",
            &[("backoff_factor", 1e6), ("use_tolerance", tolerance)],
        )
        .unwrap();
        let mut h = harness(&p, 10);
        let mut backoffs = 0;
        follow_the_queue(&mut h, |h| {
            backoffs += (h.tp.ca_state == CaState::Cwr) as u32
        });
        assert!(backoffs >= 10, "{backoffs} backoffs");
        assert!(h.cc.calls() > 10_000, "{} hook calls", h.cc.calls());
    }
}

/// hscc.h's stand-ins for Rust's u128 products and quotients (Sync-TCP's
/// reference rates): equal to u128 arithmetic, at the ends and at random.
#[test]
fn the_c_q16_arithmetic_is_u128s() {
    use hscc_bpf_conformance::ffi::{c_div_ceil_q16, c_mul_q16};
    let check = |a: u64, b: u32| {
        assert_eq!(
            c_mul_q16(a, b),
            ((a as u128 * b as u128) >> 16) as u64,
            "mul {a} {b}"
        );
        if b > 0 {
            let want = ((a as u128) << 16)
                .div_ceil(b as u128)
                .min(u64::MAX as u128) as u64;
            assert_eq!(c_div_ceil_q16(a, b), want, "div_ceil {a} {b}");
        }
    };
    let ends = [
        0,
        1,
        2,
        0xffff,
        0x10000,
        0x10001,
        u64::MAX >> 16,
        (u64::MAX >> 16) + 1,
        u64::MAX - 1,
        u64::MAX,
    ];
    for a in ends {
        for b in [0, 1, 2, 3, 0x7fff, 0x8000, 0xfffe, 0xffff, 0x10000] {
            check(a, b);
        }
    }
    let config = Config {
        cases: proptest_cases(10_000),
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new(config)
        .run(&(proptest::num::u64::ANY, 0u32..=0x10000), |(a, b)| {
            check(a, b);
            check(a >> (a % 64), b);
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_c_hstcp_table_is_rusts() {
    let c = hscc_bpf_conformance::ffi::c_hstcp_table();
    let rust: Vec<(u32, u32)> = hscc_cc::algos::highspeed::HSTCP_AIMD_VALS
        .iter()
        .map(|r| (r.cwnd, r.md))
        .collect();
    assert_eq!(c, rust);
}

/// bpf/hstcp_table.h's formula (log₂ w, a(w), b(w), the decrease) against
/// highspeed.rs HstcpFormula: every window to 300 000 and around each power
/// of two with the RFC's constants (also TCP-Africa's `HSTCP_FORMULA_RFC`),
/// and random windows for random parameter sets.
#[test]
fn the_c_hstcp_formula_is_rusts() {
    use hscc_bpf_conformance::ffi::{c_hstcp_formula, c_hstcp_formula_rfc};
    use hscc_cc::algos::highspeed::{log2_q16, HighSpeedParams, HstcpFormula};
    let check = |f: &HstcpFormula, w: u32| {
        let rust = (log2_q16(w), f.a_q10(w), f.b_q32(w), f.ssthresh(w));
        assert_eq!(c_hstcp_formula(f, w), rust, "w = {w}, {f:?}");
    };
    let rfc = HstcpFormula::RFC;
    assert_eq!(c_hstcp_formula_rfc(), rfc);
    for w in 0..=300_000 {
        check(&rfc, w);
    }
    for k in 0..32 {
        for w in [(1u32 << k) - 1, 1 << k, (1 << k) + 1] {
            check(&rfc, w);
        }
    }
    check(&rfc, u32::MAX);
    let config = Config {
        cases: proptest_cases(10_000),
        failure_persistence: None,
        ..Config::default()
    };
    let strategy = (
        hscc_bpf_conformance::ops::params("highspeed"),
        proptest::collection::vec(proptest::num::u32::ANY, 8),
    );
    TestRunner::new(config)
        .run(&strategy, |(p, ws)| {
            let mut hp = HighSpeedParams::default();
            for (name, v) in p.values() {
                hscc_cc::Params::set(&mut hp, &name, v).unwrap();
            }
            let f = HstcpFormula::new(&hp);
            for w in ws {
                check(&f, w);
                check(&f, w >> (w % 32));
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_divergence_is_caught() {
    // The harness must fail when the two disagree: feed the C program a
    // different configuration than the Rust one (β 0.8 vs the default 0.7).
    let rust = CcParams::from_name("cubic").unwrap();
    let other = Cc::new(&CcParams::with("cubic", &[("beta", 0.8)]).unwrap()).bpf_globals();
    let c = hscc_bpf_conformance::CAlgo::new(CProgram::find("cubic").unwrap(), other).unwrap();
    let lock = Lockstep::with_parts(Cc::new(&rust), c);
    let mut h = Harness::new(lock, 100);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.apply(Op::Loss)));
    let msg = *r
        .expect_err("β 0.7 and 0.8 give different ssthresh")
        .downcast::<String>()
        .unwrap();
    assert!(
        msg.contains("cubic diverged") && msg.contains("ssthresh"),
        "{msg}"
    );
}
