//! Response functions: one flow alone on a path whose only congestion signal is
//! random loss reaches the average window its defining document predicts, within
//! 20 %, wherever that prediction applies.
//!
//! Path: 10 Gbit/s everywhere, base RTT 2·(49 + 1) ms = 100 ms, buffers of 10⁶
//! packets that never fill (all links run at the same rate, so no queue forms),
//! Bernoulli loss p on the forward bottleneck.
//!
//! Measured window W̄ = (segments sent per second, retransmissions included) ×
//! (time-mean of the smoothed RTT), over the run after a warm-up of a tenth of
//! it; the time-mean of cwnd (sampled every 10 ms) is printed alongside and
//! agrees within 1 %. Every model is evaluated at the loss rate the run realized
//! (random drops / packets offered to the lossy link), as `validation.rs` does.
//!
//! The models are deterministic-sawtooth models (a loss every 1/p packets).
//! Under i.i.d. losses AIMD windows average more: W̄ = √(2α/(πp))·Πₙ(1 − β²ⁿ)/(1 − β²ⁿ⁻¹)
//! for an increase of α per RTT and a decrease to βW (fluid model with losses at
//! rate p per packet: Ott, Kemperman & Mathis 1996 for Reno, 1.31/√p; Dumas,
//! Guillemin & Robert 2002 in general), printed as "iid". That is why Reno
//! runs 7–10 % above 1.22/√p here, as in the Padhye test of `validation.rs`.
//!
//! The long points (p = 10⁻⁵) are in `#[ignore]` tests:
//! `cargo test --release -p hscc-sim --test engine response:: -- --ignored`.

use crate::record::{slug, Row};
use hscc_sim::prelude::*;
use serde_json::json;

/// What one run measured.
struct Point {
    /// Realized loss rate.
    p: f64,
    /// Segments sent per second × mean RTT.
    w: f64,
    /// Time-mean cwnd, segments.
    w_cwnd: f64,
    /// Time-mean smoothed RTT, s.
    rtt: f64,
    /// Window reductions (fast recoveries + timeouts).
    events: u64,
    /// Of which timeouts.
    timeouts: u64,
}

/// One flow for `seconds` over the lossy 100 ms path described in the module doc.
fn lossy(cc: CcParams, p: f64, seconds: u64, delayed_ack: bool) -> Point {
    let bn = LinkConfig::new(10_000_000_000, MS, Buffer::Packets(1_000_000)).with_loss(p);
    let rev = LinkConfig::new(10_000_000_000, MS, Buffer::Packets(1_000_000));
    let mut access = AccessSpec::new(10_000_000_000, 49 * MS);
    access.buffer = Buffer::Packets(1_000_000);
    let db = dumbbell(bn, rev, &[access]);
    let (s, d) = db.pairs[0];
    let mut flow = FlowConfig::bulk(s, d, cc);
    flow.delayed_ack = delayed_ack;
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![flow],
        duration: seconds * SEC,
        seed: 1,
        sample_interval: None,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    let bottleneck = db.bottleneck.0 as usize;
    let (start, end, step) = (seconds * SEC / 10, seconds * SEC, 10 * MS);
    sim.run_until(start);
    let (l0, c0) = (
        sim.net.links[bottleneck].counters,
        sim.flows[0].sender.counters,
    );
    let (mut n, mut cwnd, mut rtt) = (0u64, 0.0, 0.0);
    let mut t = start;
    while t < end {
        t += step;
        sim.run_until(t);
        let s = &sim.flows[0].sender;
        cwnd += s.tp.snd_cwnd as f64;
        rtt += secs(s.rtt.srtt());
        n += 1;
    }
    let (l1, c1) = (
        sim.net.links[bottleneck].counters,
        sim.flows[0].sender.counters,
    );
    let drops = (l1.drops_random - l0.drops_random) as f64;
    let rtt = rtt / n as f64;
    Point {
        p: drops / (drops + (l1.tx_packets - l0.tx_packets) as f64),
        w: (c1.segs_sent - c0.segs_sent) as f64 / secs(end - start) * rtt,
        w_cwnd: cwnd / n as f64,
        rtt,
        events: (c1.recoveries - c0.recoveries) + (c1.timeouts - c0.timeouts),
        timeouts: c1.timeouts - c0.timeouts,
    }
}

// ---- Models. Windows in segments, p per packet, RTT in seconds. ----

/// Reno (Mathis et al. 1997; RFC 3649 §5's Standard TCP): W̄ = √(3/(2p)) ≈ 1.22/√p.
fn reno(p: f64) -> f64 {
    1.22 / p.sqrt()
}

/// AIMD, +α per RTT, W ← (1 − b)·W per loss, deterministic sawtooth:
/// W̄ = √(α(2 − b)/(2bp)) (1.22/√p for α = 1, b = ½).
fn aimd(alpha: f64, b: f64, p: f64) -> f64 {
    (alpha * (2.0 - b) / (2.0 * b * p)).sqrt()
}

/// The same AIMD under i.i.d. losses (see the module doc): 1.31/√p for Reno.
fn aimd_iid(alpha: f64, b: f64, p: f64) -> f64 {
    let beta = 1.0 - b;
    let mut prod = 1.0;
    let mut k = beta; // β^(2n−1)
    while k > 1e-15 {
        prod *= (1.0 - k * beta) / (1.0 - k);
        k *= beta * beta;
    }
    (2.0 * alpha / (std::f64::consts::PI * p)).sqrt() * prod
}

/// HighSpeed TCP above Low_Window = 38 (RFC 3649 §5): W̄ = 0.12/p^0.835. It
/// meets Reno's 1.22/√p at W = 38, p = 1.0·10⁻³; below W = 38 it is Reno.
fn highspeed(p: f64) -> f64 {
    0.12 / p.powf(0.835)
}

/// Scalable TCP increase per acknowledged segment and decrease (Kelly, CCR 2003 §2).
const STCP_A: f64 = 0.01;
const STCP_B: f64 = 0.125;

/// Scalable TCP above its legacy window (MIMD). Derivation: each acknowledged
/// segment adds a, so over one RTT (W segments) dW/dt = a·W per RTT, i.e.
/// d(ln W)/dt = a; each loss (rate p per segment, p·W per RTT) adds
/// ln(1 − b) to ln W. ln W is stationary, so its mean drift vanishes:
/// a − p·ln(1/(1 − b))·W̄ = 0, and the time-mean window (= segments per RTT) is
///   W̄ = a / (p·ln(1/(1 − b))) = 0.01/(0.1335·p) = 0.0749/p.
/// The argument needs only the mean loss rate, so it holds for the deterministic
/// sawtooth (an epoch of ln(1/0.875)/ln(1.01) = 13.4 RTTs) and for i.i.d. losses
/// alike. Kelly's equilibrium a(1 − p) = p·b·W, W = a/(bp) = 0.08/p, balances the
/// expected change per ACK, i.e. it is the per-packet (W-weighted) mean; the
/// time-mean is 6.4 % lower. It applies while the whole sawtooth, 0.07/p to
/// 0.08/p, is above the legacy window: p < 4.4·10⁻³ for Kelly's 16, p < 7·10⁻⁴
/// for Linux's 100.
fn scalable(p: f64) -> f64 {
    STCP_A / (p * (1.0 / (1.0 - STCP_B)).ln())
}

/// Linux's Scalable below 100 segments: Reno's +1 per RTT, but the decrease
/// stays 1/8 (Linux `tcp_scalable.c` has no legacy decrease; Kelly's legacy mode,
/// hscc's default, is Reno): AIMD(1, 1/8), W̄ = √(7.5/p) = 2.74/√p. It applies
/// while the sawtooth peak 2·W̄/1.875 stays below 100: p > 8.5·10⁻⁴.
fn scalable_legacy(p: f64) -> f64 {
    aimd(1.0, STCP_B, p)
}

/// CUBIC's constants (RFC 9438 §5, §4.6).
const CUBIC_C: f64 = 0.4;
const CUBIC_BETA: f64 = 0.7;

/// CUBIC (RFC 9438 §5.1): W̄ = (C(3 + β)/(4(1 − β)))^¼ · RTT^¾ / p^¾, or where
/// larger the Reno-friendly estimate: W_est is AIMD(α_cubic = 3(1 − β)/(1 + β),
/// 1 − β) (RFC 9438 §4.3), whose sawtooth average is √(3/(2p)) = 1.22/√p.
/// At RTT 100 ms the two meet at p = 5.5·10⁻⁴.
fn cubic(p: f64, rtt: f64) -> f64 {
    let c = (CUBIC_C * (3.0 + CUBIC_BETA) / (4.0 * (1.0 - CUBIC_BETA))).powf(0.25) * rtt.powf(0.75)
        / p.powf(0.75);
    let alpha = 3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA);
    c.max(aimd(alpha, 1.0 - CUBIC_BETA, p))
}

/// The tolerance asked of every point.
const TOLERANCE: f64 = 0.2;

/// Run one point, print its table row, and return a failure message if the
/// window is not within 20 % of `model` or the run saw fewer than 100 losses.
fn point(
    label: &str,
    cc: CcParams,
    p: f64,
    seconds: u64,
    delayed_ack: bool,
    model: impl Fn(&Point) -> f64,
    iid: Option<(f64, f64)>,
) -> (Point, Option<String>) {
    measure(label, cc, p, seconds, delayed_ack, model, iid, true)
}

/// A point whose window is reported but not asserted (its failure message,
/// if any, is for the caller to ignore): recorded without a tolerance.
fn reported(
    label: &str,
    cc: CcParams,
    p: f64,
    seconds: u64,
    delayed_ack: bool,
    model: impl Fn(&Point) -> f64,
) -> (Point, Option<String>) {
    measure(label, cc, p, seconds, delayed_ack, model, None, false)
}

#[allow(
    clippy::too_many_arguments,
    reason = "point's arguments and whether its row is asserted"
)]
fn measure(
    label: &str,
    cc: CcParams,
    p: f64,
    seconds: u64,
    delayed_ack: bool,
    model: impl Fn(&Point) -> f64,
    iid: Option<(f64, f64)>,
    asserted: bool,
) -> (Point, Option<String>) {
    let r = lossy(cc, p, seconds, delayed_ack);
    let m = model(&r);
    let err = r.w / m - 1.0;
    let iid_w = iid.map(|(a, b)| aimd_iid(a, b, r.p));
    let iid = iid.map_or(String::new(), |(a, b)| {
        format!(", iid model {:.1}", aimd_iid(a, b, r.p))
    });
    eprintln!(
        "{label:<28} p {p:.0e} (realized {:.3e}): W {:.1} (cwnd {:.1}, RTT {:.4} s) vs model {m:.1} ({:+.1} %){iid}; {} loss events, {} timeouts",
        r.p,
        r.w,
        r.w_cwnd,
        r.rtt,
        err * 100.0,
        r.events,
        r.timeouts
    );
    Row {
        name: &format!("response-{}-{p:e}", slug(label)),
        group: "response",
        label,
        conditions: &format!(
            "one flow, 10 Gbit/s, RTT 100 ms, Bernoulli loss {p:e}, {seconds} s (10 % warm-up), {} ACKs, seed 1",
            if delayed_ack { "delayed" } else { "per-segment" }
        ),
    }
    .write(
        json!({"p": r.p, "w": r.w, "w_cwnd": r.w_cwnd, "srtt_s": r.rtt, "events": r.events, "timeouts": r.timeouts}),
        json!({"p": p, "w": m, "iid": iid_w}),
        if asserted {
            json!({"w": TOLERANCE, "events": {"min": 100}})
        } else {
            json!({})
        },
    );
    let mut fail = None;
    if r.events < 100 {
        fail = Some(format!("{label} p {p}: only {} loss events", r.events));
    } else if err.abs() > TOLERANCE {
        fail = Some(format!(
            "{label} p {p}: W {:.1} vs model {m:.1} ({:+.1} %)",
            r.w,
            err * 100.0
        ));
    }
    (r, fail)
}

fn assert_all(fails: Vec<Option<String>>) {
    let fails: Vec<String> = fails.into_iter().flatten().collect();
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

fn cc(name: &str) -> CcParams {
    CcParams::from_name(name).unwrap()
}

/// Reno with Linux defaults (byte counting, so delayed ACKs do not slow it).
/// Expected: 1.31/√p (i.i.d. losses), i.e. 7 % above 1.22/√p; at p = 10⁻²
/// timeouts pull it back towards 1.22/√p.
#[test]
fn reno_reaches_1_22_over_sqrt_p() {
    let fails = [(1e-2, 300), (1e-3, 600), (1e-4, 1500)]
        .into_iter()
        .map(|(p, s)| {
            point(
                "reno",
                cc("reno"),
                p,
                s,
                true,
                |r| reno(r.p),
                Some((1.0, 0.5)),
            )
            .1
        })
        .collect();
    assert_all(fails);
}

#[test]
#[ignore = "slow: 6000 simulated seconds at 4300 segments/s (~10 s in release)"]
fn reno_reaches_1_22_over_sqrt_p_at_1e_5() {
    assert_all(vec![
        point(
            "reno",
            cc("reno"),
            1e-5,
            6000,
            true,
            |r| reno(r.p),
            Some((1.0, 0.5)),
        )
        .1,
    ]);
}

/// HighSpeed TCP with an ACK for every segment. hscc's default credits a(w)/w
/// per acknowledged segment (RFC 3649's a(w) per RTT whatever the ACK ratio);
/// Linux `tcp_highspeed.c` (`per_ack = 1`, `HighSpeedParams::linux()`) adds
/// a(w) per ACK whatever it acknowledges, so with delayed ACKs (2 segments per
/// ACK) its increase per RTT is a(w)/2. In the RFC's derivation
/// a(w) = w²·p(w)·2b(w)/(2 − b(w)) halving a(w) is the same as doubling p: the
/// window is the RFC response function at 2p, 2^−0.835 = 0.56 times the window
/// with an ACK per segment (asserted within 20 %).
///
/// At p = 10⁻⁴ hscc runs ~17 % above 0.12/p^0.835 (seeds 1–5: +15.7 to +18.1 %):
/// the RFC App. B table (as in Linux) takes a = ⌈a(w)⌉ and b(w) at the top of
/// each row, i.e. rounds the increase up and the decrease down. A per-round
/// model with i.i.d. losses gives +17 % with the table and +2 % with the §5
/// formulas; at 10⁻⁵ the rows are relatively finer and the excess is ~6 %.
///
/// Not tested: p = 10⁻³, where the RFC curve crosses Low_Window (W = 38 exactly):
/// the i.i.d. sawtooth straddles 38 and the table's a = 2 just above it, so
/// neither 1.22/√p nor 0.12/p^0.835 (both 38.4) describes it.
#[test]
fn highspeed_reaches_rfc3649_response_function() {
    let (_, f1) = point(
        "highspeed, ACK every segment",
        cc("highspeed"),
        1e-2,
        300,
        false,
        |r| reno(r.p),
        Some((1.0, 0.5)),
    );
    let (every, f2) = point(
        "highspeed, ACK every segment",
        cc("highspeed"),
        1e-4,
        1500,
        false,
        |r| highspeed(r.p),
        None,
    );
    let (delayed, _) = reported(
        "highspeed linux, delayed ACKs",
        linux_hs(),
        1e-4,
        1500,
        true,
        |r| highspeed(r.p),
    );
    assert_all(vec![f1, f2, half_rate(&every, &delayed)]);
}

#[test]
#[ignore = "slow: 1500 simulated seconds at 21000 segments/s and 2000 s at 12000 (~25 s in release)"]
fn highspeed_reaches_rfc3649_response_function_at_1e_5() {
    let (every, f) = point(
        "highspeed, ACK every segment",
        cc("highspeed"),
        1e-5,
        1500,
        false,
        |r| highspeed(r.p),
        None,
    );
    let (delayed, _) = reported(
        "highspeed linux, delayed ACKs",
        linux_hs(),
        1e-5,
        2000,
        true,
        |r| highspeed(r.p),
    );
    assert_all(vec![f, half_rate(&every, &delayed)]);
}

/// Linux's HighSpeed (a(w) per ACK).
fn linux_hs() -> CcParams {
    CcParams::with("highspeed", &[("per_ack", 1.0)]).unwrap()
}

/// Delayed-ACK window / ACK-every-segment window, each normalised by the RFC
/// curve at its own realized p, vs 2^−0.835.
fn half_rate(every: &Point, delayed: &Point) -> Option<String> {
    let ratio = (delayed.w / highspeed(delayed.p)) / (every.w / highspeed(every.p));
    let model = 2f64.powf(-0.835);
    Row {
        // Named by the decade of the loss rate (the nominal 1e-4 or 1e-5).
        name: &format!(
            "response-highspeed-delayed-ratio-1e{}",
            every.p.log10().round()
        ),
        group: "response-ratio",
        label: "HighSpeed `linux()` with delayed ACKs / ACK every segment, each over the RFC curve",
        conditions: "the two HighSpeed points at the same nominal loss rate",
    }
    .write(
        json!({"ratio": ratio, "p": every.p, "events": delayed.events}),
        json!({"ratio": model}),
        json!({"ratio": TOLERANCE, "events": {"min": 100}}),
    );
    eprintln!("highspeed delayed/every-segment window ratio {ratio:.3} vs 2^-0.835 = {model:.3} ({:+.1} %)", (ratio / model - 1.0) * 100.0);
    if delayed.events < 100 {
        return Some(format!(
            "highspeed delayed ACKs: only {} loss events",
            delayed.events
        ));
    }
    ((ratio / model - 1.0).abs() > TOLERANCE)
        .then(|| format!("highspeed delayed-ACK ratio {ratio:.3} vs {model:.3}"))
}

/// Scalable TCP (Kelly's defaults): legacy Reno at or below lwnd = 16, so
/// Reno's 1.22/√p where the whole sawtooth stays below 16 (p = 3·10⁻², W ≈ 7);
/// MIMD above it (0.0749/p) from p = 10⁻³ (sawtooth 70–80 segments). At 10⁻²
/// the sawtooth straddles lwnd and neither law applies (hscc: +26 % over Reno's).
/// Linux's variant (Reno increase up to 100 segments, 1/8 cut everywhere)
/// follows AIMD(1, 1/8) at 10⁻² and 10⁻³ instead.
#[test]
fn scalable_reaches_its_mimd_response_function() {
    let linux = CcParams::with(
        "scalable",
        &[("low_window", 100.0), ("legacy_decrease", 0.0)],
    )
    .unwrap();
    let fails = vec![
        point(
            "scalable (legacy Reno)",
            cc("scalable"),
            3e-2,
            600,
            true,
            |r| reno(r.p),
            Some((1.0, 0.5)),
        )
        .1,
        point(
            "scalable",
            cc("scalable"),
            1e-3,
            600,
            true,
            |r| scalable(r.p),
            None,
        )
        .1,
        point(
            "scalable",
            cc("scalable"),
            1e-4,
            800,
            true,
            |r| scalable(r.p),
            None,
        )
        .1,
        point(
            "scalable linux (AIMD 1, 1/8)",
            linux.clone(),
            1e-2,
            300,
            true,
            |r| scalable_legacy(r.p),
            Some((1.0, STCP_B)),
        )
        .1,
        point(
            "scalable linux (AIMD 1, 1/8)",
            linux,
            1e-3,
            600,
            true,
            |r| scalable_legacy(r.p),
            Some((1.0, STCP_B)),
        )
        .1,
    ];
    assert_all(fails);
}

#[test]
#[ignore = "slow: 400 simulated seconds at 85000 segments/s (~15 s in release)"]
fn scalable_reaches_its_mimd_response_function_at_1e_5() {
    assert_all(vec![
        point(
            "scalable",
            cc("scalable"),
            1e-5,
            400,
            true,
            |r| scalable(r.p),
            None,
        )
        .1,
    ]);
}

/// CUBIC: Reno-friendly at p = 10⁻² and 10⁻³, cubic at 10⁻⁴ and 10⁻⁵. RFC 9438
/// §5.1 assumes a loss every 1/p packets; with i.i.d. losses the epochs vary in
/// length and the long ones reach the fast convex part, so the mean is higher:
/// a per-round model of hscc's CUBIC with i.i.d. losses gives +14 % at 10⁻⁴ and
/// 10⁻⁵ (the measured windows are in validation/results/engine.json). At 10⁻³,
/// near the crossing of the two regions (5.5·10⁻⁴), the larger of the two
/// predictions underestimates the mix of both.
#[test]
fn cubic_reaches_rfc9438_average_window() {
    let fails = [(1e-2, 300), (1e-3, 600), (1e-4, 3000)]
        .into_iter()
        .map(|(p, s)| {
            point(
                "cubic",
                cc("cubic"),
                p,
                s,
                true,
                |r| cubic(r.p, r.rtt),
                None,
            )
            .1
        })
        .collect();
    assert_all(fails);
}

#[test]
#[ignore = "slow: 2000 simulated seconds at 12500 segments/s (~10 s in release)"]
fn cubic_reaches_rfc9438_average_window_at_1e_5() {
    assert_all(vec![
        point(
            "cubic",
            cc("cubic"),
            1e-5,
            2000,
            true,
            |r| cubic(r.p, r.rtt),
            None,
        )
        .1,
    ]);
}

/// Every registered algorithm, alone on a 100 Mbit/s bottleneck with a
/// BDP-sized buffer (RTT 2·(24 + 1) = 50 ms, 417 packets), keeps it ≥ 90 %
/// busy from 10 s to 60 s: catches algorithms that stall in the real sender.
#[test]
fn every_algorithm_fills_a_bdp_buffered_bottleneck() {
    let mut fails = Vec::new();
    for name in hscc_cc::algorithm_names() {
        let bn = LinkConfig::new(100_000_000, MS, Buffer::Packets(417));
        let db = dumbbell(bn.clone(), bn, &[AccessSpec::new(1_000_000_000, 24 * MS)]);
        let (s, d) = db.pairs[0];
        let flow = FlowConfig::bulk(s, d, cc(name));
        let cfg = SimConfig {
            topology: db.topology,
            flows: vec![flow],
            duration: 60 * SEC,
            seed: 1,
            sample_interval: Some(SEC),
            ..SimConfig::default()
        };
        let r = Sim::new(cfg).unwrap().run();
        let u = &r.traces.links[0].utilization[10..];
        let mean = u.iter().sum::<f64>() / u.len() as f64;
        let c = r.flows[0].counters;
        eprintln!(
            "{name:<10} utilization {mean:.4} (10–60 s), {} recoveries, {} timeouts",
            c.recoveries, c.timeouts
        );
        Row {
            name: &format!("fills-bdp-{name}"),
            group: "every-algorithm",
            label: name,
            conditions: "one flow, 100 Mbit/s, RTT 50 ms, buffer 417 packets (BDP), 60 s, seed 1",
        }
        .write(
            json!({"utilization": mean, "recoveries": c.recoveries, "timeouts": c.timeouts}),
            json!(null),
            json!({"utilization": {"min": 0.9}}),
        );
        if mean < 0.9 {
            fails.push(format!("{name}: utilization {mean:.3}"));
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("; "));
}
