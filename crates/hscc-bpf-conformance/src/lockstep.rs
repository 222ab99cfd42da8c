//! [`Lockstep`]: one algorithm twice, the Rust one and its C program, fed
//! every hook call together and compared after each.

use core::fmt;

use hscc_cc::params::NoParams;
use hscc_cc::{
    AckSample, CaEvent, CaState, Cc, CcParams, CongestionOps, LostSkb, RateSample, Shared, TcpCc,
};

use crate::ffi::{CAlgo, CProgram};

thread_local! {
    /// The Rust twin of the shim's per-thread shared state (HSCC_SHARED).
    static SHARED: Shared = Shared::default();
}

/// Why a [`Lockstep`] could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockstepError {
    /// bpf/ has no program for the algorithm.
    NoProgram(&'static str),
    /// The Rust algorithm names a global the program does not declare.
    UnknownGlobal {
        algorithm: &'static str,
        global: String,
    },
}

impl fmt::Display for LockstepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockstepError::NoProgram(a) => write!(f, "bpf/{a}.bpf.c does not exist"),
            LockstepError::UnknownGlobal { algorithm, global } => {
                write!(f, "bpf/{algorithm}.bpf.c declares no global '{global}' (Cc::bpf_globals names it)")
            }
        }
    }
}

/// The Rust algorithm and its C program in lockstep. As a [`CongestionOps`]
/// it drives both through every hook and panics, naming the hook, the
/// count of hook calls so far and both states, as soon as `snd_cwnd`,
/// `snd_ssthresh`, `snd_cwnd_cnt`, the pacing rate or a hook's return value
/// differ. The Rust results are the ones the driver goes on with.
#[derive(Clone, Debug)]
pub struct Lockstep {
    rust: Cc,
    c: CAlgo,
    /// Hook calls so far (for the failure message).
    calls: u64,
}

impl Lockstep {
    /// Both versions of the algorithm `params` selects, configured alike.
    pub fn new_checked(params: &CcParams) -> Result<Lockstep, LockstepError> {
        let mut rust = Cc::new(params);
        // What the kernel's sockets of one registration share (a program's
        // globals), the shim keeps per thread: the Rust side joins the
        // thread's Shared, so the connections of one thread share both.
        SHARED.with(|shared| rust.attach(shared));
        let name = rust.name();
        let prog = CProgram::find(name).ok_or(LockstepError::NoProgram(name))?;
        let c = CAlgo::new(prog, rust.bpf_globals()).map_err(|e| LockstepError::UnknownGlobal {
            algorithm: name,
            global: e.0,
        })?;
        Ok(Lockstep { rust, c, calls: 0 })
    }

    /// A pair made by hand (for testing the comparison itself).
    pub fn with_parts(rust: Cc, c: CAlgo) -> Lockstep {
        Lockstep { rust, c, calls: 0 }
    }

    /// The Rust algorithm.
    pub fn rust(&self) -> &Cc {
        &self.rust
    }

    /// Hook calls compared so far.
    pub fn calls(&self) -> u64 {
        self.calls
    }

    #[track_caller]
    fn compare(&mut self, hook: &str, rust: &TcpCc, c: &TcpCc, ret: Option<(u32, u32)>) {
        self.calls += 1;
        let same = |t: &TcpCc| {
            (
                t.snd_cwnd,
                t.snd_ssthresh,
                t.snd_cwnd_cnt,
                t.pacing_rate,
                t.pacing_needed,
                t.app_limited,
                t.prandom_state,
                t.enter_cwr,
            )
        };
        if same(rust) != same(c) || ret.is_some_and(|(r, c)| r != c) {
            panic!(
                "{} diverged at hook call {} ({hook}): (snd_cwnd, snd_ssthresh, snd_cwnd_cnt, pacing_rate, \
                 pacing_needed, app_limited, prandom_state, enter_cwr) Rust {:?} vs C {:?}; return value (Rust, C) \
                 {:?}\nRust state: {:?}\nsender: {:?}",
                self.rust.name(),
                self.calls,
                same(rust),
                same(c),
                ret,
                self.rust,
                rust
            );
        }
    }
}

impl CongestionOps for Lockstep {
    const NAME: &'static str = "lockstep";
    type Params = NoParams;

    /// Reno in lockstep (CcParams' default); use [`Lockstep::new_checked`].
    fn new(_params: &NoParams) -> Self {
        Lockstep::new_checked(&CcParams::default()).expect("bpf/reno.bpf.c")
    }

    fn init(&mut self, tp: &mut TcpCc) {
        let mut tc = tp.clone();
        self.rust.init(tp);
        self.c.init(&mut tc);
        self.compare("init", tp, &tc, None);
    }

    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let mut tc = tp.clone();
        let r = self.rust.ssthresh(tp);
        let c = self.c.ssthresh(&mut tc);
        self.compare("ssthresh", tp, &tc, Some((r, c)));
        r
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        let mut tc = tp.clone();
        self.rust.cong_avoid(tp, ack, acked);
        self.c.cong_avoid(&mut tc, ack, acked);
        self.compare("cong_avoid", tp, &tc, None);
    }

    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        let mut tc = tp.clone();
        self.rust.set_state(tp, new_state);
        self.c.set_state(&mut tc, new_state);
        self.compare("set_state", tp, &tc, None);
    }

    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        let mut tc = tp.clone();
        self.rust.cwnd_event(tp, ev);
        self.c.cwnd_event(&mut tc, ev);
        self.compare("cwnd_event", tp, &tc, None);
    }

    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        let mut tc = tp.clone();
        self.rust.in_ack_event(tp, flags);
        self.c.in_ack_event(&mut tc, flags);
        self.compare("in_ack_event", tp, &tc, None);
    }

    fn pkts_acked(&mut self, tp: &mut TcpCc, sample: &AckSample) {
        let mut tc = tp.clone();
        self.rust.pkts_acked(tp, sample);
        self.c.pkts_acked(&mut tc, sample);
        self.compare("pkts_acked", tp, &tc, None);
    }

    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        let mut tc = tp.clone();
        let r = self.rust.undo_cwnd(tp);
        let c = self.c.undo_cwnd(&mut tc);
        self.compare("undo_cwnd", tp, &tc, Some((r, c)));
        r
    }

    fn delay_signals(&self) -> u32 {
        self.rust.delay_signals()
    }

    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        let mut tc = tp.clone();
        let r = self.rust.cong_control(tp, rs);
        let c = self.c.cong_control(&mut tc, rs);
        self.compare("cong_control", tp, &tc, Some((r as u32, c as u32)));
        r
    }

    fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
        let mut tc = tp.clone();
        self.rust.skb_marked_lost(tp, skb);
        self.c.skb_marked_lost(&mut tc, skb);
        self.compare("skb_marked_lost", tp, &tc, None);
    }
}
