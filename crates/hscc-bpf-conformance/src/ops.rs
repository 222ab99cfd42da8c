//! Random inputs: operation sequences as hscc-cc's property suite makes them
//! (`cc_property_suite!`), and parameter sets drawn from each parameter's
//! declared range.

use hscc_cc::testing::Op;
use hscc_cc::{algorithms, CcParams, ParamKind};
use proptest::prelude::*;

/// One operation, with the property suite's mix and ranges.
pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (1u32..200).prop_map(Op::Send),
        4 => (1u32..50, 1u32..4).prop_map(|(n, k)| Op::Ack(n, k)),
        1 => Just(Op::DupAck),
        1 => Just(Op::Loss),
        1 => Just(Op::EnterRecovery),
        1 => Just(Op::EndRecovery),
        1 => Just(Op::Timeout),
        2 => (0u64..2_000_000).prop_map(Op::Advance),
        1 => (1u32..2_000_000).prop_map(Op::SetRtt),
        3 => Just(Op::Round),
        1 => Just(Op::Undo),
    ]
}

/// [`op`] with ACKs that echo ECN and the receiving side's ECN events: the
/// mix for programs flagged `TCP_CONG_NEEDS_ECN`.
pub fn ecn_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => op(),
        3 => (1u32..50, 1u32..4).prop_map(|(n, k)| Op::EceAck(n, k)),
        1 => any::<bool>().prop_map(Op::EcnEvent),
    ]
}

/// Upper ends of random draws below a parameter's declared range, where the
/// range's end would make the harness's per-ACK driving too slow for the
/// default suite: (algorithm, parameter, largest draw). The end itself has a
/// scripted test of its own.
pub const DRAW_CAPS: &[(&str, &str, f64)] = &[
    // N virtual Reno flows add N segments per RTT: N = 10^6 grows windows of
    // millions in a few rounds, each ACKed one by one (fit_at_the_largest_n
    // in tests/bpf/conformance.rs runs 10^6).
    ("fit", "n_fixed", 1000.0),
];

/// Parameters of `algorithm`: its defaults, or each parameter drawn from its
/// range (integers and switches uniformly; reals uniformly, plus both ends;
/// `DRAW_CAPS` lowers a few upper ends). A draw the algorithm's cross-field
/// checks refuse falls back to the defaults, so every value is one `hscc`
/// itself would accept.
pub fn params(algorithm: &'static str) -> impl Strategy<Value = CcParams> {
    let info = algorithms()
        .into_iter()
        .find(|a| a.name == algorithm)
        .expect("registered algorithm");
    let specs = info.params;
    let draws: Vec<BoxedStrategy<f64>> = specs
        .iter()
        .map(|s| match s.kind {
            ParamKind::Bool => prop_oneof![Just(0.0), Just(1.0)].boxed(),
            ParamKind::Integer => {
                // Whole numbers: the ends, the default, and anything between.
                let max = DRAW_CAPS
                    .iter()
                    .find(|c| c.0 == algorithm && c.1 == s.name)
                    .map_or(s.max, |c| c.2.min(s.max));
                let (lo, hi) = (s.min as u64, max as u64);
                prop_oneof![
                    Just(s.min),
                    Just(max),
                    Just(s.default),
                    (lo..=hi).prop_map(|v| v as f64)
                ]
                .boxed()
            }
            ParamKind::Real => {
                prop_oneof![Just(s.min), Just(s.max), Just(s.default), (s.min..=s.max)].boxed()
            }
        })
        .collect();
    let names: Vec<&'static str> = specs.iter().map(|s| s.name).collect();
    (any::<bool>(), draws).prop_map(move |(defaults, values)| {
        if defaults {
            return CcParams::from_name(algorithm).unwrap();
        }
        let pairs: Vec<(&str, f64)> = names.iter().copied().zip(values).collect();
        CcParams::with(algorithm, &pairs)
            .unwrap_or_else(|_| CcParams::from_name(algorithm).unwrap())
    })
}

/// One step of a random sequence for an algorithm with `cong_control`: a
/// property-suite operation, or an ACK with a rate sample.
#[derive(Clone, Copy, Debug)]
pub enum RateOp {
    /// An operation of the property suite (`op`).
    Op(Op),
    /// An ACK of `acked` segments (after `losses` marked lost), then
    /// `cong_control` with the sample; see [`apply_rate_op`].
    Sample {
        acked: u32,
        losses: u32,
        delivered: i32,
        interval_us: i64,
        rtt_us: i64,
        new_round: bool,
        is_app_limited: bool,
        is_ack_delayed: bool,
        /// How far the next departure time lies ahead, µs (`tcp_wstamp_ns`).
        edt_ahead_us: u32,
        /// RS.tx_in_flight and RS.lost as the simulator gives them (None: a
        /// mainline kernel's sample, without them).
        stamps: Option<(u32, u32)>,
    },
    /// The sender marks one packet lost and calls `skb_marked_lost` with its
    /// stamp: the flight at its send, how many were marked lost since (this
    /// one included, at most C.lost), whether it was sent app-limited.
    MarkLost {
        tx_in_flight: u32,
        lost_since: u32,
        is_app_limited: bool,
    },
}

/// Rate samples with valid and invalid intervals, RTTs around the harness's,
/// losses, app-limited and delayed ACKs, mixed with the property suite's operations.
pub fn rate_op() -> impl Strategy<Value = RateOp> {
    let sample = (
        (0u32..20, prop_oneof![4 => Just(0u32), 1 => 1u32..10]),
        (
            prop_oneof![1 => Just(-1i32), 8 => 0i32..400],
            prop_oneof![1 => Just(-1i64), 1 => Just(0i64), 8 => 1i64..400_000],
            prop_oneof![1 => Just(-1i64), 8 => 1_000i64..300_000],
        ),
        (
            any::<bool>(),
            prop_oneof![5 => Just(false), 1 => Just(true)],
            any::<bool>(),
        ),
        prop_oneof![3 => Just(0u32), 1 => 0u32..5_000],
        prop_oneof![1 => Just(None), 2 => (1u32..400, 0u32..12).prop_map(Some)],
    )
        .prop_map(
            |(
                (acked, losses),
                (delivered, interval_us, rtt_us),
                (new_round, app, delayed),
                edt,
                stamps,
            )| {
                RateOp::Sample {
                    acked,
                    losses,
                    delivered,
                    interval_us,
                    rtt_us,
                    new_round,
                    is_app_limited: app,
                    is_ack_delayed: delayed,
                    edt_ahead_us: edt,
                    stamps,
                }
            },
        );
    let mark_lost = (
        1u32..400,
        1u32..12,
        prop_oneof![5 => Just(false), 1 => Just(true)],
    )
        .prop_map(
            |(tx_in_flight, lost_since, is_app_limited)| RateOp::MarkLost {
                tx_in_flight,
                lost_since,
                is_app_limited,
            },
        );
    prop_oneof![
        2 => op().prop_map(RateOp::Op),
        6 => sample,
        1 => mark_lost,
    ]
}

/// Apply one [`RateOp`] to a harness: for a sample, the sender's side of an
/// ACK (`packets_out`, `delivered`, `lost`, `delivered_mstamp`, RTT, the
/// clock a little further), then `cong_control` with the sample. A new round
/// samples a packet sent at the current round's end mark (`prior_delivered`
/// = `delivered` before the ACK), an old one a packet sent before it.
pub fn apply_rate_op<A: hscc_cc::CongestionOps>(h: &mut hscc_cc::testing::Harness<A>, op: RateOp) {
    let RateOp::Sample {
        acked,
        losses,
        delivered,
        interval_us,
        rtt_us,
        new_round,
        is_app_limited,
        is_ack_delayed,
        edt_ahead_us,
        stamps,
    } = op
    else {
        match op {
            RateOp::Op(o) => h.apply(o),
            RateOp::MarkLost {
                tx_in_flight,
                lost_since,
                is_app_limited,
            } => {
                let tp = &mut h.tp;
                tp.packets_out = tp.packets_out.saturating_sub(1);
                tp.lost = tp.lost.wrapping_add(1);
                let skb = hscc_cc::LostSkb {
                    tx_in_flight,
                    tx_lost: tp.lost.wrapping_sub(lost_since.min(tp.lost)),
                    tx_delivered: tp.delivered,
                    is_app_limited,
                };
                h.cc.skb_marked_lost(&mut h.tp, &skb);
            }
            RateOp::Sample { .. } => unreachable!(),
        }
        return;
    };
    let tp = &mut h.tp;
    let prior_in_flight = tp.packets_in_flight();
    let prior_delivered = if new_round {
        tp.delivered
    } else {
        tp.delivered.wrapping_sub(prior_in_flight + 1)
    };
    let acked = acked.min(tp.packets_out);
    let losses = losses.min(tp.packets_out - acked);
    tp.now_us += 100;
    tp.packets_out -= acked + losses;
    tp.delivered = tp.delivered.wrapping_add(acked);
    tp.lost = tp.lost.wrapping_add(losses);
    if acked > 0 {
        tp.delivered_mstamp = tp.now_us;
    }
    if rtt_us > 0 {
        let m = rtt_us as u32;
        tp.srtt_us = if tp.srtt_us == 0 {
            m << 3
        } else {
            tp.srtt_us - (tp.srtt_us >> 3) + m
        };
        tp.min_rtt_us = tp.min_rtt_us.min(m);
    }
    tp.tcp_wstamp_ns = (tp.now_us + edt_ahead_us as u64) * 1000;
    let rs = hscc_cc::RateSample {
        prior_mstamp: tp.delivered_mstamp,
        prior_delivered,
        delivered,
        interval_us,
        rtt_us,
        losses,
        acked_sacked: acked,
        prior_in_flight,
        is_app_limited,
        is_ack_delayed,
        // A stamp counts its own packet: a sample of delivered data has at least 1.
        tx_in_flight: stamps.map_or(0, |(f, _)| if delivered > 0 { f } else { 0 }),
        lost: stamps.map_or(0, |(_, l)| l.min(h.tp.lost)),
        ..hscc_cc::RateSample::default()
    };
    h.cc.cong_control(&mut h.tp, &rs);
    h.tp.snd_cwnd = h.tp.snd_cwnd.clamp(1, h.tp.snd_cwnd_clamp);
}
