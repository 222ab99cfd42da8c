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

/// Upper ends of random draws below a parameter's declared range, where the
/// range's end would make the harness's per-ACK driving too slow for the
/// default suite: (algorithm, parameter, largest draw). The end itself has a
/// scripted test of its own.
pub const DRAW_CAPS: &[(&str, &str, f64)] = &[
    // N virtual Reno flows add N segments per RTT: N = 10^6 grows windows of
    // millions in a few rounds, each ACKed one by one (fit_at_the_largest_n
    // in tests/conformance.rs runs 10^6).
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
