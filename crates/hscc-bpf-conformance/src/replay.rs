//! Replay of per-ACK logs: the hook calls a simulator run recorded
//! (`[output] cc_log`, hscc-sim's `LoggedCc`) made again on the C program,
//! each from the sender state the recorded call saw, with the requirement
//! that the program leave exactly what the Rust algorithm left in the run:
//! `snd_cwnd`, `snd_ssthresh`, `snd_cwnd_cnt`, pacing rate and return value.
//!
//! Where the random and scripted sequences drive the hooks through hscc-cc's
//! `Harness`, these are the calls of a real sender: RACK-TLP, PRR, undo,
//! F-RTO, ECN and timeouts shape them.

use hscc_cc::trace::{replay, HookCall, Hooks, Mismatch};
use hscc_cc::{AckSample, CaEvent, CaState, Cc, CcParams, LostSkb, RateSample, TcpCc};

use crate::ffi::{CAlgo, CProgram};
use crate::lockstep::LockstepError;

impl Hooks for CAlgo {
    fn init(&mut self, tp: &mut TcpCc) {
        CAlgo::init(self, tp)
    }
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        CAlgo::ssthresh(self, tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        CAlgo::cong_avoid(self, tp, ack, acked)
    }
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        CAlgo::set_state(self, tp, s)
    }
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        CAlgo::cwnd_event(self, tp, ev)
    }
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        CAlgo::in_ack_event(self, tp, flags)
    }
    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        CAlgo::pkts_acked(self, tp, s)
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        CAlgo::undo_cwnd(self, tp)
    }
    /// A program without `cong_control` declines, as Linux then calls
    /// `cong_avoid`, and as a declining Rust algorithm does.
    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        CAlgo::cong_control(self, tp, rs)
    }
    fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
        CAlgo::skb_marked_lost(self, tp, skb)
    }
}

/// Why a replay failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// No program, or globals it does not declare.
    Program(LockstepError),
    /// The program left something else than the recorded call.
    Diverged(Box<Mismatch>),
}

impl core::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ReplayError::Program(e) => e.fmt(f),
            ReplayError::Diverged(m) => {
                write!(f, "the C program diverged from the recorded run at {m}")
            }
        }
    }
}

/// Replay `calls`, recorded from the algorithm `params` selects, on its C
/// program configured with the same globals; the number of hook calls compared.
pub fn replay_on_c(params: &CcParams, calls: &[HookCall]) -> Result<u64, ReplayError> {
    let rust = Cc::new(params);
    let name = rust.name();
    let prog = CProgram::find(name).ok_or(ReplayError::Program(LockstepError::NoProgram(name)))?;
    replay_on(prog, rust.bpf_globals(), calls)
}

/// Replay `calls` on `prog` with these globals.
pub fn replay_on(
    prog: CProgram,
    globals: Vec<(&'static str, i64)>,
    calls: &[HookCall],
) -> Result<u64, ReplayError> {
    let name = prog.name;
    let mut c = CAlgo::new(prog, globals).map_err(|e| {
        ReplayError::Program(LockstepError::UnknownGlobal {
            algorithm: name,
            global: e.0,
        })
    })?;
    replay(&mut c, calls).map_err(ReplayError::Diverged)
}
