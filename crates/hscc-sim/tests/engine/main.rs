//! The engine's integration tests as one binary, a module per subject: one
//! link instead of one per file, which dominated building the tests on 2
//! cores. Run one subject with `cargo test -p hscc-sim --test engine NAME::`.
//!
//! The tests that measure peak heap use (`estimate.rs`,
//! `estimate_links_web.rs`, `scenario_fuzz.rs`) stay binaries of their own:
//! their counting allocator is global and its counters process-wide, one
//! measurement at a time.

mod ack_loss;
mod aqm;
mod capture;
mod cc_log;
mod dctcp;
mod ecn;
mod fairness;
mod flows;
mod fold;
mod host_timing;
mod knobs;
mod limits;
mod links_web;
mod network;
mod papers;
mod properties;
mod rate;
mod rate_halving;
mod record;
mod recovery;
mod response;
mod rtt_sampling;
mod sack1;
mod scenario_errors;
mod sender;
mod sync_switching;
mod traffic;
mod validation;
