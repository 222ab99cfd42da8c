//! Sync-TCP against legacy TCP (Wu et al., ICNP 2009 §V, §V.A).
//!
//! "When the network utilization is high because of the increased legacy TCP
//! applications [...], Sync-TCP flows may be starved and per-flow throughput
//! becomes low. In this scenario, letting flows of bandwidth-greedy and
//! elastic applications act as legacy TCP is fairer" (§V.A). A Sync-TCP flow
//! always yields to a loss-based flow (it backs off at Th_qd = 12 ms of
//! queueing, Reno fills the buffer), so without a working fall-back it is
//! starved; with it, it acts as Reno for most of the time and gets a share
//! comparable to Reno's.

use hscc_cc::algos::sync::SyncState;
use hscc_cc::Cc;
use hscc_sim::prelude::*;

/// Goodputs (Sync-TCP, Reno) in Mbit/s and the fraction of 100-ms ticks the
/// Sync-TCP flow spent in legacy mode.
///
/// Set-up of §VI.C scaled to 100 Mbit/s (the paper's 1 Gbit/s would make the
/// test ten times slower): a DropTail dumbbell, bottleneck delay 20 ms, side
/// links 5 ms each (10 ms of access delay here), so RTPD = 60 ms; qsize = 0.5
/// BDP = 250 packets; packet error rate 10⁻⁶. One Sync-TCP flow (default
/// parameters: legacy start, switching on) and one Reno flow — the "legacy TCP
/// [...] under the assumption that socket buffer is large enough" of §VI, i.e.
/// §V.A's TCP "well tuned for high speed data transmission". Both start at 0,
/// no background traffic (the paper's web and VoIP cross traffic is left out,
/// it would only add load on the Reno side).
fn sync_vs_reno(seconds: u64, seed: u64) -> (f64, f64, f64) {
    let rate = 100_000_000;
    let bn = LinkConfig::new(rate, 20 * MS, Buffer::Packets(250)).with_loss(1e-6);
    let rev = LinkConfig::new(rate, 20 * MS, Buffer::Packets(100_000));
    let a = AccessSpec::new(rate * 10, 10 * MS);
    let db = dumbbell(bn, rev, &[a.clone(), a]);
    let flows = vec![
        FlowConfig::bulk(
            db.pairs[0].0,
            db.pairs[0].1,
            CcParams::from_name("sync").unwrap(),
        ),
        FlowConfig::bulk(
            db.pairs[1].0,
            db.pairs[1].1,
            CcParams::from_name("reno").unwrap(),
        ),
    ];
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: seconds * SEC,
        seed,
        sample_interval: None,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    let dt = 100 * MS;
    let ticks = seconds * SEC / dt;
    let mut legacy = 0;
    for k in 1..=ticks {
        sim.run_until(k * dt);
        let Cc::Sync(s) = &*sim.flows[0].sender.cc else {
            unreachable!()
        };
        legacy += (s.state() == SyncState::Legacy) as u64;
    }
    let g = sim.run().goodputs();
    (g[0] / 1e6, g[1] / 1e6, legacy as f64 / ticks as f64)
}

/// Acceptance: the Sync-TCP flow's goodput is within a factor of 2
/// of the Reno flow's, for each of three seeds, over 200 s (long enough for
/// two starved Sync-TCP episodes and the legacy periods after them).
///
/// Measured (goodput Mbit/s Sync / Reno, Reno/Sync, fraction of time in
/// legacy mode): seed 1: 38.0 / 54.9, 1.44, 0.78; seed 2: 34.3 / 59.6, 1.74,
/// 0.78; seed 3: 36.6 / 56.4, 1.54, 0.75. Before the fix the Sync→legacy test
/// ran only on a Probing tick, which a starved flow never reaches, and a
/// flow that did switch re-entered Sync-TCP within about a second.
#[test]
fn sync_tcp_against_reno_gets_a_share_within_a_factor_of_2() {
    for seed in 1..=3 {
        let (sync, reno, legacy) = sync_vs_reno(200, seed);
        eprintln!("seed {seed}: Sync-TCP {sync:.2} Mbit/s, Reno {reno:.2} Mbit/s, Reno/Sync {:.2}, legacy mode {legacy:.2} of the time", reno / sync);
        assert!(sync + reno > 85.0, "link not used: {sync} + {reno}");
        assert!(
            reno <= 2.0 * sync,
            "seed {seed}: Sync-TCP {sync} Mbit/s against Reno {reno}"
        );
        // It gets there by acting as legacy TCP, not by beating Reno in Sync mode.
        assert!(
            legacy > 0.5,
            "seed {seed}: legacy mode only {legacy} of the time"
        );
    }
}
