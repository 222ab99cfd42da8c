//! # hscc-sim — a packet-level discrete-event network simulator
//!
//! Integer picosecond time, a deterministic event loop (see [`event`] for the
//! ordering contract), links with DropTail or AQM queues ([`queue`]: RED,
//! CoDel, FQ-CoDel, PIE; ECN end to end), random loss and jitter,
//! static shortest-path routing, and a real TCP model (SACK or NewReno loss
//! recovery, PRR, RFC 6298 RTO, delayed ACKs, pacing) driven by the
//! algorithms of [`hscc_cc`].
//!
//! Data flows one way: [`SimConfig`] → [`Sim`] → [`RunResult`].
//!
//! ```
//! use hscc_sim::prelude::*;
//! let db = dumbbell(
//!     LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(100)),
//!     LinkConfig::new(10_000_000, 10 * MS, Buffer::Packets(100)),
//!     &[AccessSpec::new(100_000_000, MS)],
//! );
//! let (s, d) = db.pairs[0];
//! let cfg = SimConfig {
//!     topology: db.topology,
//!     flows: vec![FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap())],
//!     duration: 5 * SEC,
//!     ..SimConfig::default()
//! };
//! let r = Sim::new(cfg).unwrap().run();
//! assert!(r.flows[0].goodput_bps > 8e6);
//! ```

#![forbid(unsafe_code)]

pub mod capture;
mod deque;
pub use hscc_model::config;
pub mod estimate;
pub mod event;
mod json;
pub use hscc_model::limits;
pub mod link;
pub mod metrics;
pub mod packet;
pub mod queue;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod tcp;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub use hscc_model::time;
pub use hscc_model::topology;
pub mod udp;
pub mod web;

pub use config::{
    Buffer, ConfigError, FlowConfig, LinkChange, LinkConfig, LossPoint, Recovery, SimConfig,
    Topology,
};
pub use estimate::{Estimate, Estimated};
pub use limits::BuildLimits;
pub use queue::QueueConfig;
pub use results::RunResult;
pub use scenario::ScenarioSpec;
pub use sim::Sim;

/// Everything needed to build and run a scenario.
pub mod prelude {
    pub use crate::config::{
        Buffer, ConfigError, FlowConfig, LinkChange, LinkConfig, LossPoint, Recovery, SimConfig,
        Topology,
    };
    pub use crate::estimate::{Estimate, Estimated};
    pub use crate::metrics::bandwidth_stolen;
    pub use crate::queue::{
        CodelParams, FqCodelParams, PieParams, QueueConfig, RedParams, StepParams,
    };
    pub use crate::results::RunResult;
    pub use crate::sim::Sim;
    pub use crate::stats::jain_index;
    pub use crate::time::{from_secs, secs, Time, MS, NS, SEC, US};
    pub use crate::topology::{dumbbell, parking_lot, AccessSpec, Dumbbell, ParkingLot};
    pub use crate::udp::{UdpConfig, UdpPattern};
    pub use crate::web::{Sample as _, Sessions, SizeDist, WebConfig, WebModel};
    pub use hscc_cc::CcParams;
}
