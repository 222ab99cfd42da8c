//! # hscc-cc — congestion-control algorithms behind one trait
//!
//! Pure, sans-IO and deterministic: an algorithm reads no clock and no entropy.
//! Everything it may look at arrives in a [`TcpCc`] view of the sender, in the
//! Linux kernel's units (windows in segments, RTTs in microseconds, the clock
//! in `now_us`). The trait [`CongestionOps`] mirrors the kernel's
//! `struct tcp_congestion_ops` hook for hook so that each algorithm can be
//! mirrored line by line as an eBPF struct_ops program.
//!
//! Map of the crate:
//! - [`ops`]: the trait, the sender view and the event types.
//! - [`helpers`]: Linux-exact shared helpers (`tcp_slow_start`, `tcp_cong_avoid_ai`, Reno ssthresh/undo).
//! - [`mod@params`]: typed, validated, documented parameters (`reno.x`, `cubic.beta`, …).
//! - [`registry`]: selection by name with static dispatch ([`Cc`], [`CcParams`]).
//! - [`algos`]: one file per algorithm.
//! - [`external`]: programs loaded at run time (a user's `.bpf.c`), behind the same hooks.
//! - [`testing`]: a scripted harness (send/ack/lose/advance) and the generic property suite.
//! - [`trace`]: hook calls as data, to log a run call by call and replay it.

#![forbid(unsafe_code)]

pub mod algos;
pub mod external;
pub mod helpers;
pub mod ops;
pub mod params;
pub mod registry;
pub mod testing;
pub mod trace;

pub use external::{
    ExternalOps, ExternalParam, ExternalParams, ExternalProgram, ExternalRegistration,
};
pub use ops::{
    AckSample, CaEvent, CaState, CongestionOps, LostSkb, RateSample, TcpCc, CA_ACK_ECE,
    CA_ACK_SLOWPATH, CA_ACK_WIN_UPDATE, GSO_MAX_SIZE, HZ, TCP_CONG_NEEDS_ECN,
    TCP_INFINITE_SSTHRESH, TCP_TS_HZ,
};
pub use params::{ParamError, ParamKind, ParamOrder, ParamSpec, Params};
pub use registry::{
    algorithm_names, algorithms, AlgorithmInfo, Cc, CcError, CcParams, ExternalCc, Shared,
};
