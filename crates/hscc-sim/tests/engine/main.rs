//! The engine's integration tests as one binary, a module per subject: one
//! link instead of one per file, which dominated building the tests on 2
//! cores. Run one subject with `cargo test -p hscc-sim --test engine NAME::`.
//!
//! Every allocation is counted per thread (`peak.rs`) for the tests that
//! measure peak heap use (`estimate`, `estimate_links_web`, `scenario_fuzz`).

mod ack_loss;
mod aqm;
mod capture;
mod cc_log;
mod dctcp;
mod ecn;
mod estimate;
mod estimate_links_web;
mod fairness;
mod flows;
mod fold;
mod host_timing;
mod knobs;
mod lazy;
mod limits;
mod links_web;
mod network;
mod papers;
mod peak;
mod properties;
mod rate;
mod rate_halving;
mod record;
mod recovery;
mod reno_pairs;
mod response;
mod rto_restart;
mod rtt_sampling;
mod sack1;
mod scenario_errors;
mod scenario_fuzz;
mod sender;
mod sync_switching;
mod traffic;
mod validation;
