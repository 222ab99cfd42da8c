//! The loader's and the runtime's integration tests as one binary, a module
//! per subject: one link instead of one per file. Run one subject with
//! `cargo test -p hscc-program --test program NAME::`.

mod divide;
mod kernel_helpers;
mod linux_dctcp;
mod load;
