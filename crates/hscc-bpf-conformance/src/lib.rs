//! # hscc-bpf-conformance — the eBPF programs against the Rust algorithms
//!
//! Each `bpf/NAME.bpf.c` is a Linux `tcp_congestion_ops` in eBPF, written to
//! mirror `crates/hscc-cc/src/algos/NAME.rs`. This crate compiles the same
//! source as ordinary C for user space (build.rs, through
//! `bpf/shim/user.h`), and drives the C build and the Rust algorithm with the
//! same events, hook call by hook call ([`Lockstep`]): the tests in `tests/`
//! feed it scripted sequences and random operation sequences through hscc-cc's
//! [`Harness`](hscc_cc::testing::Harness) and require identical `snd_cwnd`,
//! `snd_ssthresh`, `snd_cwnd_cnt` and pacing rate after every hook.
//!
//! - [`ffi`]: the C mirror of the shim's `struct tcp_sock` and [`CAlgo`].
//! - [`lockstep`]: [`Lockstep`], both versions behind one `CongestionOps`.
//! - [`ops`]: random operation sequences and random parameter sets.
//! - [`replay`]: per-ACK logs recorded in simulator runs, replayed on the C program.

#[allow(
    unsafe_code,
    reason = "FFI: the bpf/ programs built as C (build.rs) are called through raw pointers"
)]
pub mod ffi;
pub mod lockstep;
pub mod ops;
pub mod replay;

pub use ffi::{programs, CAlgo, CProgram};
pub use lockstep::{Lockstep, LockstepError};
