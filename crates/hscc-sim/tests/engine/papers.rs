//! Checks against the papers' own analysis, in simulation:
//! - CTCP (Tan et al., INFOCOM 2006): the stable phase holds about γ packets in
//!   the queue (§IV.A, eq. 6); the response function under random loss (eq. 16–17).
//! - TCP-FIT (Wang et al., INFOCOM 2011): E[N] = α·rtt̄/(rtt̄ − rtt_min) (§III, eq. 4).
//! - Sync-TCP (Wu et al., ICNP 2009): the queueing delay is held around
//!   Th_qd = 12 ms (§IV.A, §IV.E); competing flows detect the same
//!   delay signals within T_wait (§IV.B, §VI.A).
//!
//! Where hscc and the papers' idealised analysis part, the assertion is on what
//! is robustly true and the comment says why; the measured numbers are the
//! rows these tests record (validation/results/engine.json).

use crate::record::Row;
use hscc_cc::algos::sync::SyncState;
use hscc_cc::Cc;
use hscc_sim::prelude::*;
use hscc_sim::ScenarioSpec;
use serde_json::json;

/// One bulk flow over a dumbbell: bottleneck `rate`, 1 ms one way, `buffer`
/// packets, random loss `loss`; access links 10× faster. Base RTT =
/// 2·(`access` + 1 ms). Returns the simulation and the bottleneck link index.
fn one_flow(
    rate: u64,
    access: Time,
    buffer: u64,
    loss: f64,
    cc: CcParams,
    seconds: u64,
    sample: Time,
) -> (Sim, usize) {
    let bn = LinkConfig::new(rate, MS, Buffer::Packets(buffer)).with_loss(loss);
    let rev = LinkConfig::new(rate, MS, Buffer::Packets(100_000));
    let db = dumbbell(bn, rev, &[AccessSpec::new(rate * 10, access)]);
    let (s, d) = db.pairs[0];
    let flow = FlowConfig::bulk(s, d, cc);
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![flow],
        duration: seconds * SEC,
        seed: 5,
        sample_interval: Some(sample),
        ..SimConfig::default()
    };
    (Sim::new(cfg).unwrap(), db.bottleneck.0 as usize)
}

fn mean(v: impl IntoIterator<Item = f64>) -> f64 {
    let (n, s) = v
        .into_iter()
        .fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    s / n as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

// ---------------------------------------------------------------- CTCP

/// Queue (packets) during the stable phases of one CTCP flow.
struct Stable {
    cycles: usize,
    /// Time-average over the stable phases.
    mean: f64,
    /// Median of the queue just before each dwnd decrease (diff ≥ γ detected).
    peak: f64,
}

/// One CTCP flow alone, no random loss, sampled every 10 ms: the queue from
/// the monitored-link trace, dwnd from the algorithm. The stable phase of a
/// loss-free period (E→F of Fig. 4) runs from its first dwnd decrease (diff
/// reached γ) to its last sample with dwnd > 0 (cwnd has taken over).
fn ctcp_stable_phase(rate: u64, buffer: u64, gamma: f64) -> Stable {
    let (dt, seconds) = (10 * MS, 300);
    let cc = CcParams::with("ctcp", &[("gamma", gamma)]).unwrap();
    let (mut sim, _) = one_flow(rate, 29 * MS, buffer, 0.0, cc, seconds, dt);
    let (mut dwnd, mut loss) = (Vec::new(), Vec::new());
    for k in 1..=seconds * SEC / dt {
        sim.run_until(k * dt);
        let Cc::Ctcp(c) = &*sim.flows[0].sender.cc else {
            unreachable!()
        };
        dwnd.push(c.dwnd());
        loss.push(sim.flows[0].sender.counters.recoveries + sim.flows[0].sender.counters.timeouts);
    }
    let q = &sim.traces.links[0].queue_pkts;
    assert_eq!(q.len(), dwnd.len());
    let (mut cycles, mut stable, mut peaks) = (0, Vec::new(), Vec::new());
    let mut start = 0;
    while start < q.len() {
        let end = (start..q.len())
            .find(|&i| loss[i] != loss[start])
            .unwrap_or(q.len());
        // Complete loss-free periods only (not the initial slow start, not the last).
        if loss[start] > 0 && end < q.len() {
            let e = (start + 1..end).find(|&i| dwnd[i] < dwnd[i - 1]);
            let f = (start..end).rev().find(|&i| dwnd[i] > 0);
            if let (Some(e), Some(f)) = (e, f) {
                cycles += 1;
                stable.extend((e..=f).map(|i| q[i] as f64));
                peaks.extend(
                    (e..=f)
                        .filter(|&i| dwnd[i] < dwnd[i - 1])
                        .map(|i| q[i - 1] as f64),
                );
            }
        }
        start = end;
    }
    Stable {
        cycles,
        mean: mean(stable),
        peak: median(peaks),
    }
}

/// §IV.A: in the stable phase "CTCP tries to maintain γ packets backlogged at
/// the bottleneck queue", w0 = γ·R/(R − baseRTT) (eq. 6; with one flow, diff =
/// w·(R − baseRTT)/R is the queue). RTT 60 ms; buffer between γ and the BDP so
/// that every loss brings the window, (BDP + B)/2, below BDP + γ and each cycle
/// has a stable phase (a buffer ≥ BDP + 2γ would leave the queue above γ after
/// the loss and make CTCP pure Reno); B > γ is Theorem 3's condition.
///
/// hscc: the backlog reaches γ and then the queue drains — with ζ = 1 one
/// round removes the whole estimate ζ·diff ≈ γ — so the queue saw-tooths
/// between ≈ 0 and the peak instead of staying at γ (the Vegas-style "average
/// diff ≈ γ" behind eq. 6 assumes small steps). The measured means and peaks
/// are in validation/results/engine.json (docs/validation/engine.md). Asserted: the peak (queue when the decrease fires) is between γ and
/// γ + two rounds of binomial growth α·win^k at win = BDP + γ (the decision
/// uses the round's average RTT, one round behind the queue); the time-average
/// is between γ/2 (a sawtooth from 0 to ≥ γ) and γ; doubling γ doubles the
/// mean within 25%.
#[test]
fn ctcp_holds_about_gamma_packets_queued_in_its_stable_phase() {
    for (rate, buffer, bdp) in [(20_000_000, 80, 100.0), (100_000_000, 200, 500.0)] {
        let mut means = Vec::new();
        for gamma in [30.0, 60.0] {
            let s = ctcp_stable_phase(rate, buffer, gamma);
            let step = 0.125 * f64::powf(bdp + gamma, 0.75);
            eprintln!(
                "CTCP {} Mbit/s, B {buffer}, γ {gamma}: {} cycles, stable-phase queue mean {:.1} ({:.2}γ), peak {:.0} (bound γ..{:.0})",
                rate / 1_000_000, s.cycles, s.mean, s.mean / gamma, s.peak, gamma + 2.0 * step
            );
            Row {
                name: &format!("ctcp-queue-{}M-gamma{gamma}", rate / 1_000_000),
                group: "ctcp-queue",
                label: &format!("{} Mbit/s, BDP {bdp}, buffer {buffer}", rate / 1_000_000),
                conditions: "one CTCP flow, RTT 60 ms, no random loss, 300 s, traces every 10 ms, seed 5",
            }
            .write(
                json!({"cycles": s.cycles, "mean_queue": s.mean, "mean_over_gamma": s.mean / gamma, "peak_queue": s.peak}),
                json!({"gamma": gamma}),
                json!({"cycles": {"min": 5}, "peak_queue": {"min": gamma, "max": gamma + 2.0 * step}, "mean_queue": {"min": gamma / 2.0, "max": gamma}}),
            );
            assert!(s.cycles >= 5, "{} cycles", s.cycles);
            assert!(
                (gamma..=gamma + 2.0 * step).contains(&s.peak),
                "peak {} for γ {gamma}",
                s.peak
            );
            assert!(
                (gamma / 2.0..=gamma).contains(&s.mean),
                "mean queue {} for γ {gamma}",
                s.mean
            );
            means.push(s.mean);
        }
        let ratio = means[1] / means[0];
        eprintln!("  γ 60 / γ 30: mean queue ratio {ratio:.2}");
        Row {
            name: &format!("ctcp-queue-{}M-doubling", rate / 1_000_000),
            group: "ctcp-queue-doubling",
            label: &format!(
                "{} Mbit/s, buffer {buffer}: mean queue at γ 60 / at γ 30",
                rate / 1_000_000
            ),
            conditions: "the two runs above",
        }
        .write(
            json!({"ratio": ratio}),
            json!({"ratio": 2.0}),
            json!({"ratio": 0.25}),
        );
        assert!((ratio / 2.0 - 1.0).abs() <= 0.25, "ratio {ratio}");
    }
}

/// Eq. 16–17 with α = 1/8, β = 1/2, k = 3/4: the peak window W_m and the mean
/// window W̄ = Λ·R of a loss-free period that ends before any queue builds.
fn ctcp_response(p: f64) -> (f64, f64) {
    let (a, b, k): (f64, f64, f64) = (0.125, 0.5, 0.75);
    let wm = (a * (2.0 - k) / (1.0 - (1.0 - b).powf(2.0 - k))).powf(1.0 / (2.0 - k))
        * p.powf(-1.0 / (2.0 - k));
    let wbar = a * (1.0 - k) / (p * wm.powf(1.0 - k) * (1.0 - (1.0 - b).powf(1.0 - k)));
    (wm, wbar)
}

/// One CTCP flow, 1 Gbit/s, RTT 100 ms, unlimited buffer, random loss `p`:
/// send rate (segments/s) after 20 s, the model's at the realized loss rate
/// and measured RTT, and the model's peak window.
fn ctcp_lossy(p: f64, seconds: u64) -> (f64, f64, f64, f64) {
    let warm = 20;
    let (mut sim, bn) = one_flow(
        1_000_000_000,
        49 * MS,
        100_000,
        p,
        CcParams::from_name("ctcp").unwrap(),
        seconds,
        SEC,
    );
    sim.run_until(warm * SEC);
    let (l0, s0) = (sim.net.links[bn].counters, sim.flows[0].sender.counters);
    sim.run_until(seconds * SEC);
    let (l1, s1) = (sim.net.links[bn].counters, sim.flows[0].sender.counters);
    let dropped = (l1.drops_random - l0.drops_random) as f64;
    let measured_p = dropped / (dropped + (l1.tx_packets - l0.tx_packets) as f64);
    let qdelay = mean(
        sim.traces.links[0].qdelay_s[warm as usize..]
            .iter()
            .copied(),
    );
    let rtt = secs(sim.flows[0].sender.rtt.min_rtt) + qdelay;
    assert!(
        qdelay < 0.001,
        "p {p}: mean queueing delay {qdelay} s — not the no-queue regime"
    );
    let (wm, wbar) = ctcp_response(measured_p);
    let rate = (s1.segs_sent - s0.segs_sent) as f64 / (seconds - warm) as f64;
    (rate, wbar / rtt, measured_p, wm)
}

fn check_ctcp_response(cases: &[(f64, u64)]) {
    for &(p, seconds) in cases {
        let (rate, model, measured_p, wm) = ctcp_lossy(p, seconds);
        let err = rate / model - 1.0;
        Row {
            name: &format!("ctcp-response-{p:e}"),
            group: "ctcp-response",
            label: &format!("{p:e}"),
            conditions: &format!("one CTCP flow, 1 Gbit/s, RTT 100 ms, unlimited buffer, Bernoulli loss {p:e}, {seconds} s (from 20 s), seed 5"),
        }
        .write(
            json!({"p": measured_p, "send_rate": rate}),
            json!({"p": p, "send_rate": model, "w_m": wm}),
            json!({"p": 0.1, "send_rate": 0.2}),
        );
        eprintln!(
            "CTCP p {p:e} (measured {measured_p:.3e}): {rate:.0} seg/s vs eq. 17 {model:.0} ({:+.1}%), W_m {wm:.0}; Reno 1.31/√p: {:.0}",
            err * 100.0,
            1.31 / measured_p.sqrt() / 0.1
        );
        assert!(
            (measured_p / p - 1.0).abs() < 0.1,
            "realized loss rate {measured_p}"
        );
        assert!(err.abs() < 0.2, "p {p}: {rate:.0} seg/s vs {model:.0}");
    }
}

/// CTCP paper, §IV.A, eq. 16–17 (with α = 1/8, β = 1/2, k = 3/4,
/// W_m ≈ 0.350·p^−0.8): under random loss with no queue, CTCP's throughput
/// follows its binomial response function within 20%.
/// It applies where the delay component runs the whole loss-free period and no
/// queue forms: W_m(1 − β) ≥ lowwnd = 41 (p ≤ ~1e-3) and W_m ≪ BDP = 8333.
/// The measured deviations are in validation/results/engine.json (Reno's 1.31/√p
/// is far below at every p). At p = 1e-3 (W_m = 94) hscc is about 20% below: i.i.d. loss-free periods
/// often start below lowwnd (Reno growth), and the per-round increase
/// ⌊α·win^0.75 − 1⌋ loses up to 40% to flooring at win ≈ 60.
#[test]
fn ctcp_follows_its_response_function_under_random_loss() {
    check_ctcp_response(&[(3e-4, 500), (1e-4, 800), (3e-5, 1000)]);
}

#[test]
#[ignore = "slow: 2000 s at 27k segments/s"]
fn ctcp_follows_its_response_function_at_low_loss() {
    check_ctcp_response(&[(1e-5, 2000)]);
}

// ---------------------------------------------------------------- TCP-FIT

/// §III, eq. 4: at steady state E[N] = α·rtt̄/(rtt̄ − rtt_min). One TCP-FIT flow,
/// 100 Mbit/s, RTT 120 ms (BDP 1000), a DropTail buffer of B packets, so that
/// its own queueing delay is what N reacts to. At each loss event (after
/// 100 s) the test reads from the algorithm the N just set by eq. 2 and the
/// rtt̄ of the updating period that ended (with rtt_min: the inputs of eq. 3),
/// and compares the mean N with eq. 4 at the mean rtt̄.
///
/// Tolerance ±1: eq. 2 moves N by whole steps once per loss-free period and
/// the decrease in force lags N by one period, so at equilibrium N cycles over
/// the integers around the fixed point. The measured N and eq. 4's value are in
/// validation/results/engine.json. From the link's queueing delay instead, eq. 4
/// gives slightly less (`n_from_link_qdelay` there): the flow's RTT samples lag the
/// queue by an RTT and skip recovery, so they see ≈ 0.45 ms less queueing
/// than the link — 11% of the 4 ms at N = 16.
#[test]
fn fit_mean_n_approaches_alpha_rtt_over_queueing_delay() {
    let mut ns = Vec::new();
    for (buffer, fixed_alpha) in [(100, Some(0.5)), (50, Some(0.5)), (100, None)] {
        let params: Vec<(&str, f64)> =
            fixed_alpha.map_or(vec![], |a| vec![("alpha_auto", 0.0), ("alpha", a)]);
        let (dt, seconds, warm) = (10 * MS, 400, 100);
        let (mut sim, _) = one_flow(
            100_000_000,
            59 * MS,
            buffer,
            0.0,
            CcParams::with("fit", &params).unwrap(),
            seconds,
            dt,
        );
        let (mut n, mut rtt, mut losses, mut alpha, mut rtt_min) =
            (Vec::new(), Vec::new(), 0, 0.0, 0.0);
        for k in 1..=seconds * SEC / dt {
            sim.run_until(k * dt);
            let c = sim.flows[0].sender.counters;
            let Cc::Fit(f) = &*sim.flows[0].sender.cc else {
                unreachable!()
            };
            assert!(
                c.recoveries + c.timeouts <= losses + 1,
                "two loss events in 10 ms"
            );
            if c.recoveries + c.timeouts > losses && k * dt > warm * SEC {
                let (avg, min) = f.rtts_us();
                n.push(f.n() as f64);
                rtt.push(avg as f64 * 1e-6);
                rtt_min = min as f64 * 1e-6;
            }
            losses = c.recoveries + c.timeouts;
            alpha = f.alpha();
        }
        let (n_mean, rtt_mean) = (mean(n.iter().copied()), mean(rtt.iter().copied()));
        let predicted = alpha * rtt_mean / (rtt_mean - rtt_min);
        let link_qd = mean(
            sim.traces.links[0].qdelay_s[(warm * SEC / dt) as usize..]
                .iter()
                .copied(),
        );
        eprintln!(
            "TCP-FIT B {buffer}, α {alpha:.3}{}: mean N {n_mean:.2} over {} loss-free periods vs α·rtt̄/(rtt̄ − rtt_min) = {alpha:.3}·{:.2}/{:.2} ms = {predicted:.2} ({:+.1}%); from the link's queueing delay {:.2} ms: {:.2}",
            if fixed_alpha.is_some() { "" } else { " (§V.B rule)" },
            n.len(),
            rtt_mean * 1e3,
            (rtt_mean - rtt_min) * 1e3,
            (n_mean / predicted - 1.0) * 100.0,
            link_qd * 1e3,
            alpha * (rtt_min + link_qd) / link_qd
        );
        Row {
            name: &format!(
                "fit-n-buffer{buffer}-{}",
                if fixed_alpha.is_some() {
                    "alpha0.5"
                } else {
                    "alpha-rule"
                }
            ),
            group: "fit",
            label: &if fixed_alpha.is_some() {
                format!("α = 0.5, buffer {buffer}")
            } else {
                format!("α by §V.B's rule, buffer {buffer}")
            },
            conditions:
                "one TCP-FIT flow, 100 Mbit/s, RTT 120 ms, 400 s (loss events after 100 s), seed 5",
        }
        .write(
            json!({"mean_n": n_mean, "periods": n.len(), "alpha": alpha, "rtt_ms": rtt_mean * 1e3,
                   "rtt_min_ms": rtt_min * 1e3, "link_qdelay_ms": link_qd * 1e3,
                   "n_from_link_qdelay": alpha * (rtt_min + link_qd) / link_qd}),
            json!({"mean_n": predicted}),
            json!({"mean_n": {"abs": 1.0}, "periods": {"min": 30}}),
        );
        assert!(n.len() >= 30, "{} loss-free periods", n.len());
        assert!(
            (n_mean - predicted).abs() <= 1.0,
            "mean N {n_mean} vs {predicted}"
        );
        ns.push(n_mean);
    }
    // Half the buffer, half the queueing delay per virtual Reno flow: N grows (eq. 4).
    Row {
        name: "fit-n-rises-when-the-buffer-halves",
        group: "fit-buffer",
        label: "α = 0.5: mean N at buffer 50 − mean N at buffer 100",
        conditions: "the first two runs above",
    }
    .write(
        json!({"n_increase": ns[1] - ns[0]}),
        json!(null),
        json!({"n_increase": {"min": 3.0}}),
    );
    assert!(ns[1] > ns[0] + 3.0, "N {ns:?}");
}

/// Table III's set-up (§VI): 10 + 10 TCP-FIT flows on 50 Mbit/s with 0.1 %
/// random loss, RTT 50 ms against 400 ms (ratio 1/8); the buffer, which the
/// paper does not give, is a quarter of the long path's BDP (417 packets),
/// with which 10 + 10 Reno flows give about the paper's Reno ratio (5.19). The paper's argument for RTT fairness (Table II, η = 1: eq. 19
/// without D) needs one α for every flow (§V.B: the mean over the TCP-FIT
/// connections of (rtt_max − rtt_min)/rtt_max); with a per-flow α the RTT
/// returns and FIT is as unfair as Reno (the paper's shared ratio is 1.9).
#[test]
fn fit_shares_alpha_among_flows_for_rtt_fairness() {
    let ratio = |shared: bool, seed: u64| {
        let json = format!(
            r#"{{"duration": 100, "seed": {seed},
                "topology": {{"kind": "dumbbell",
                    "bottleneck": {{"rate": 5e7, "delay": 0.001, "buffer": {{"bdp": 0.25}}, "loss": 0.001}},
                    "pairs": [{{"rate": 1e9, "rtt": 0.05}}, {{"rate": 1e9, "rtt": 0.4}}]}},
                "flows": [{{"pair": 0, "algorithm": "fit", "count": 10, "params": {{"alpha_shared": {shared}}}}},
                          {{"pair": 1, "algorithm": "fit", "count": 10, "params": {{"alpha_shared": {shared}}}}}]}}"#
        );
        let g = Sim::new(ScenarioSpec::from_json(&json).unwrap().build().unwrap())
            .unwrap()
            .run()
            .goodputs();
        g[..10].iter().sum::<f64>() / g[10..].iter().sum::<f64>()
    };
    for seed in [1, 2] {
        let (shared, own) = (ratio(true, seed), ratio(false, seed));
        eprintln!("TCP-FIT throughput ratio at RTT ratio 1/8, seed {seed}: α shared {shared:.2}, per flow {own:.2} (paper 1.9)");
        assert!(shared < 2.5, "shared α: ratio {shared}");
        assert!(own > 4.0, "per-flow α: ratio {own}");
    }
}

// ---------------------------------------------------------------- Sync-TCP

const TH_QD: f64 = 0.012;
const QD_MAX: f64 = 0.020;

/// §IV.A/§IV.E: Sync-TCP detects congestion when the queueing delay exceeds
/// Th_qd = 12 ms and slows its increase as qd approaches it, "such that the
/// maximal queue delay will not be much larger than Th_qd" (qd_max = 20 ms).
/// One flow, default parameters (legacy start and switching), 100 Mbit/s,
/// RTT 100 ms, a buffer of one BDP (833 packets = 100 ms ≫ Th_qd).
///
/// A cycle: Probing lifts qd from ≈ 0 to Th_qd; Waiting holds it there for
/// T_wait = 500 ms; the reduction (λ = 1.25 > 1) cuts 25% more than the
/// backlog, so the queue empties and stays empty through Emptying (500 ms).
/// The time-average is therefore well below Th_qd — a ramp from 0 to Th_qd
/// averages Th_qd/2. Asserted band: mean in [Th_qd/4, 3·Th_qd/4] = [3, 9] ms,
/// every 100-ms mean below qd_max = 20 ms, no buffer overflow, utilization
/// ≥ 95%. The measured values are in validation/results/engine.json. (Paper
/// Table I, testbed with web cross traffic:
/// mean queueing delay 44% of 25 ms = 11 ms.)
#[test]
fn sync_tcp_alone_keeps_the_queueing_delay_below_th_qd() {
    let (seconds, skip) = (200, 400);
    let (mut sim, _) = one_flow(
        100_000_000,
        49 * MS,
        833,
        0.0,
        CcParams::from_name("sync").unwrap(),
        seconds,
        100 * MS,
    );
    sim.run_until(40 * SEC);
    let Cc::Sync(s) = &*sim.flows[0].sender.cc else {
        unreachable!()
    };
    let signals0 = s.congestion_signals().0;
    sim.run_until(seconds * SEC);
    let Cc::Sync(s) = &*sim.flows[0].sender.cc else {
        unreachable!()
    };
    let signals = s.congestion_signals().0 - signals0;
    let t = &sim.traces.links[0];
    let qd = &t.qdelay_s[skip..];
    let (avg, max) = (
        mean(qd.iter().copied()),
        qd.iter().copied().fold(0.0, f64::max),
    );
    let util = mean(t.utilization[skip..].iter().copied());
    let drops: u64 = t.drops[skip..].iter().sum();
    eprintln!(
        "Sync-TCP alone: mean queueing delay {:.2} ms (Th_qd 12), largest 100-ms mean {:.2} ms, utilization {util:.3}, {drops} drops, {signals} delay signals",
        avg * 1e3,
        max * 1e3
    );
    Row {
        name: "sync-alone",
        group: "sync",
        label: "one Sync-TCP flow, 100 Mbit/s, RTT 100 ms, buffer 833 packets (100 ms)",
        conditions: "default parameters, 200 s (measured from 40 s), traces every 100 ms, seed 5",
    }
    .write(
        json!({"mean_qdelay_ms": avg * 1e3, "max_100ms_qdelay_ms": max * 1e3, "utilization": util,
               "drops": drops, "delay_signals": signals}),
        json!({"th_qd_ms": TH_QD * 1e3, "qd_max_ms": QD_MAX * 1e3}),
        json!({"mean_qdelay_ms": {"min": TH_QD / 4.0 * 1e3, "max": 0.75 * TH_QD * 1e3},
               "max_100ms_qdelay_ms": {"max": QD_MAX * 1e3}, "utilization": {"min": 0.95},
               "drops": {"max": 0}, "delay_signals": {"min": 10}}),
    );
    assert!(
        signals >= 10,
        "{signals} delay signals: the control loop did not cycle"
    );
    assert!(
        (TH_QD / 4.0..=0.75 * TH_QD).contains(&avg),
        "mean queueing delay {avg}"
    );
    assert!(max < QD_MAX, "100-ms mean queueing delay reached {max}");
    assert_eq!(drops, 0);
    assert!(util >= 0.95, "utilization {util}");
}

/// §VI.A: "For each queue-delay-based congestion signal, we record the time that
/// this signal is first detected by a flow. We then count the number of flows
/// that also detect congestion through queue delay within the following T_wait
/// period": 5651 of 5853 (96.6%) were detected by all active flows; the rest
/// missed by flows in Emptying after a segment loss.
///
/// Eight Sync-TCP flows with RTPDs 40…240 ms (§VI.A: RTPDs "differ
/// significantly"), started 2 s apart, 200 Mbit/s, buffer 833 packets (50 ms),
/// packet error rate 1e-6 as in §VI.B–D; signals after 40 s. Signal times come
/// exactly from `congestion_signals()` polled every 50 ms (one flow's signals
/// are ≥ T_wait = 500 ms apart). The measured share detected by all 8 is in
/// validation/results/engine.json; a miss is a flow in Emptying after a random
/// loss, as in the paper, or in legacy mode. Asserted: ≥ 90%.
///
/// The Sync → legacy test (`s2t_share`, hscc's assumption, not the paper's)
/// can fire among Sync-TCP flows alone: here flow 3 (RTT 160 ms) is starved
/// below half its reference rate at 39.5 s and is back in Sync-TCP at 42.55 s
/// (1 % of its 260 measured seconds). Asserted: no flow spends more than 5 %
/// of the measured time in legacy mode, i.e. none is stuck there.
#[test]
fn sync_tcp_flows_detect_the_same_congestion_signals() {
    let rtts = [40u64, 80, 120, 160, 200, 240, 60, 100];
    let (rate, seconds, warm, t_wait_us) = (200_000_000, 300, 40 * SEC, 500_000);
    let bn = LinkConfig::new(rate, MS, Buffer::Packets(833)).with_loss(1e-6);
    let rev = LinkConfig::new(rate, MS, Buffer::Packets(100_000));
    let access: Vec<AccessSpec> = rtts
        .iter()
        .map(|&r| AccessSpec::new(rate * 10, (r / 2 - 1) * MS))
        .collect();
    let db = dumbbell(bn, rev, &access);
    let flows = db
        .pairs
        .iter()
        .enumerate()
        // The paper's ns-2 senders: three duplicate ACKs, no RACK-TLP or undo.
        // (With Linux's recovery flow 4 is starved into legacy TCP here.)
        .map(|(i, &(s, d))| FlowConfig {
            start: 2 * SEC * i as u64,
            ..FlowConfig::bulk(s, d, CcParams::from_name("sync").unwrap()).with_classic_recovery()
        })
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: seconds * SEC,
        seed: 1,
        sample_interval: None,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    let n = rtts.len();
    let (dt, mut seen, mut signals, mut legacy) =
        (50 * MS, vec![0u32; n], Vec::new(), vec![0u64; n]);
    for k in 1..=seconds * SEC / dt {
        sim.run_until(k * dt);
        for (i, f) in sim.flows.iter().enumerate() {
            let Cc::Sync(s) = &*f.sender.cc else {
                unreachable!()
            };
            let (count, last) = s.congestion_signals();
            assert!(count <= seen[i] + 1, "two signals of one flow within 50 ms");
            if k * dt > warm {
                legacy[i] += (s.state() == SyncState::Legacy) as u64;
                if count > seen[i] {
                    signals.push((last.unwrap(), i));
                }
            }
            seen[i] = count;
        }
    }
    let measured = (seconds * SEC - warm) / dt;
    let most_legacy = legacy.iter().copied().max().unwrap_or(0) as f64 / measured as f64;
    for (i, &l) in legacy.iter().enumerate() {
        assert!(
            l * 20 <= measured,
            "flow {i} in legacy TCP for {l} of {measured} samples"
        );
    }
    signals.sort();
    let (mut groups, mut by_all, mut at) = (0, 0, 0);
    while at < signals.len() {
        let first = signals[at].0;
        let mut detected = vec![false; n];
        while at < signals.len() && signals[at].0 <= first + t_wait_us {
            detected[signals[at].1] = true;
            at += 1;
        }
        groups += 1;
        by_all += detected.iter().all(|&d| d) as usize;
    }
    let fraction = by_all as f64 / groups as f64;
    eprintln!(
        "Sync-TCP, {n} flows: {} signals in {groups} congestion events, {by_all} ({:.1}%) detected by all within T_wait (paper: 96.6%)",
        signals.len(),
        fraction * 100.0
    );
    Row {
        name: "sync-synchronization",
        group: "sync",
        label: "eight Sync-TCP flows, RTTs 40–240 ms, 200 Mbit/s, buffer 833 packets, packet error rate 1e-6",
        conditions: "classic recovery, flows started 2 s apart, 300 s, counted after 40 s, seed 1",
    }
    .write(
        json!({"events": groups, "detected_by_all": by_all, "fraction_detected_by_all": fraction,
               "largest_legacy_fraction": most_legacy}),
        json!({"fraction_detected_by_all": 5651.0 / 5853.0}),
        json!({"events": {"min": 40}, "fraction_detected_by_all": {"min": 0.9},
               "largest_legacy_fraction": {"max": 0.05}}),
    );
    assert!(groups >= 40, "{groups} congestion events");
    assert!(fraction >= 0.9, "{by_all} of {groups} detected by all");
}
