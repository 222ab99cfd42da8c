//! # hscc-program — a user's congestion-control program in the simulator
//!
//! A program written for the kernel's BPF struct_ops (`SEC(".struct_ops")
//! struct tcp_congestion_ops ...`, vmlinux.h types, `BPF_PROG`, the TCP
//! kfuncs) is built for user space with the system C compiler against the
//! shim's headers ([`compile`]), loaded, and run by the simulator behind
//! hscc-cc's [`ExternalOps`](hscc_cc::ExternalOps), hook for hook, with the
//! socket layout the shim gives ([`sock`]). A division by zero gives the
//! kernel's BPF result ([`divide`]); an index out of bounds, a write past the
//! memory the program was given (its socket, samples and storage, its
//! globals, a local array) or a crash in a hook stops the run with the
//! program's file and line ([`fault`]) instead of ending the process.
//!
//! - [`compile`]: building and caching by content.
//! - [`divide`]: BPF's result for a division that traps.
//! - [`elf`]: the struct_ops variable and the parameters, read from the object.
//! - [`globals`]: the program's globals between inaccessible pages.
//! - [`guard`]: the socket at the end of its memory, guard pages around it.
//! - [`program`]: loading, one registration per run and set of values, one
//!   connection per flow.
//! - [`sock`]: the `#[repr(C)]` mirror of the shim's socket and samples.
//! - [`stack`]: the stack hooks run on, guard pages around it.
//! - [`symbols`]: what a program may use from outside its file.

#![allow(
    unsafe_code,
    reason = "loads and calls C programs: each unsafe block says why it is sound"
)]

pub mod compile;
pub mod divide;
pub mod elf;
pub mod fault;
pub mod globals;
pub mod guard;
pub mod program;
pub mod sock;
pub mod stack;
pub mod symbols;

use std::path::Path;
use std::sync::Arc;

pub use compile::{build, cache_dir, BuildError, Built};
pub use program::Program;

/// Whether an algorithm value names a program file (it ends in `.c`).
pub fn is_program(algorithm: &str) -> bool {
    algorithm.ends_with(".c")
}

/// The name flows running the program `path` are labelled with: the file's
/// name without `.c` and `.bpf` ("tests/mycc.bpf.c" → "mycc").
pub fn program_name(path: &str) -> &str {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = file.strip_suffix(".c").unwrap_or(file);
    stem.strip_suffix(".bpf").unwrap_or(stem)
}

/// Build (or find built) and load the program at `path`.
pub fn load(path: &Path) -> Result<Arc<Program>, String> {
    let built = build(path).map_err(|e| e.to_string())?;
    let name = hscc_cc::external::interned(program_name(&path.to_string_lossy()));
    Program::load(name, built)
        .map(Arc::new)
        .map_err(|e| format!("{}: {e}", path.display()))
}
