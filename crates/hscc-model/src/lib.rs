//! # hscc-model — what a run is made of, as plain data
//!
//! Links, topology and routes, TCP flows, queues, UDP and web traffic,
//! captures and outputs: every type a configuration is written in, every
//! default and range defined once, and the validation that turns a
//! configuration into one the engine can run ([`SimConfig::validate`]).
//!
//! This crate is the bottom layer: it knows nothing of the simulator
//! (`hscc-sim` depends on it, never the other way), so the engine, the
//! scenario format, the estimate and the Python binding all read the same
//! definitions.

#![forbid(unsafe_code)]

pub mod capture;
pub mod config;
pub mod error;
pub mod flow;
pub mod limits;
pub mod link;
pub mod packet;
pub mod queue;
pub mod routing;
pub mod tcp;
pub mod time;
pub mod topology;
pub mod udp;
pub mod web;
mod work;

pub use config::{
    Buffer, ConfigError, FlowConfig, LinkChange, LinkConfig, LossPoint, Recovery, SimConfig,
    Topology,
};
pub use limits::BuildLimits;
pub use queue::QueueConfig;
