//! The programs of bpf/ against the Rust algorithms, as one binary: hook by
//! hook under scripted and random sequences (`conformance`), and replaying
//! per-ACK logs of simulator runs (`replay`). Run one with
//! `cargo test -p hscc-bpf-conformance --test bpf NAME::`.

mod conformance;
mod replay;
