//! Linux's selftests bpf_dctcp.c, unchanged, against hscc-cc's built-in DCTCP
//! hook by hook: the same scripted sender (ACKs with and without ECE, CWR,
//! recovery, timeouts, undo, the receiving end's CE events) drives both, and
//! after every step the sender's state and each hook's return must agree. The
//! simulated runs compare too (tests/python/test_programs.py); this reaches
//! the hooks those runs do not call (undo_cwnd, cwnd_event(LOSS)).

use std::path::PathBuf;

use hscc_cc::algos::dctcp::{Dctcp, DctcpParams};
use hscc_cc::{CaEvent, CaState, CongestionOps, ExternalOps, ExternalProgram, TcpCc, CA_ACK_ECE};

/// The selftests' directory (scripts/linux-selftests.sh), or why it is not here.
fn selftests() -> Result<PathBuf, String> {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/linux-selftests.sh"
    );
    let out = std::process::Command::new("bash")
        .arg(script)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// The hooks the script calls, on either implementation.
trait Hooks {
    fn init(&mut self, tp: &mut TcpCc);
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32;
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32);
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState);
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent);
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32);
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32;
}

impl Hooks for Dctcp {
    fn init(&mut self, tp: &mut TcpCc) {
        CongestionOps::init(self, tp)
    }
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        CongestionOps::ssthresh(self, tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        CongestionOps::cong_avoid(self, tp, ack, acked)
    }
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        CongestionOps::set_state(self, tp, s)
    }
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        CongestionOps::cwnd_event(self, tp, ev)
    }
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        CongestionOps::in_ack_event(self, tp, flags)
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        CongestionOps::undo_cwnd(self, tp)
    }
}

impl Hooks for Box<dyn ExternalOps> {
    fn init(&mut self, tp: &mut TcpCc) {
        ExternalOps::init(&mut **self, tp)
    }
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        ExternalOps::ssthresh(&mut **self, tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        ExternalOps::cong_avoid(&mut **self, tp, ack, acked)
    }
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        ExternalOps::set_state(&mut **self, tp, s)
    }
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        ExternalOps::cwnd_event(&mut **self, tp, ev)
    }
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        ExternalOps::in_ack_event(&mut **self, tp, flags)
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        ExternalOps::undo_cwnd(&mut **self, tp)
    }
}

const MSS: u32 = 1448;

/// A sender reduced to what DCTCP's hooks read, calling them in the order
/// the engine's sender does; each step returns what its hooks returned.
struct Sender<H: Hooks> {
    cc: H,
    tp: TcpCc,
}

impl<H: Hooks> Sender<H> {
    fn new(mut cc: H) -> Self {
        let mut tp = TcpCc::new(MSS, 10);
        tp.ecn_ok = true;
        cc.init(&mut tp);
        Sender { cc, tp }
    }

    fn set_state(&mut self, s: CaState) {
        self.cc.set_state(&mut self.tp, s);
        self.tp.ca_state = s;
    }

    fn send_all(&mut self) -> u32 {
        let room = self.tp.snd_cwnd.saturating_sub(self.tp.packets_out);
        if room > 0 && self.tp.packets_out == 0 {
            self.cc.cwnd_event(&mut self.tp, CaEvent::TxStart);
        }
        self.tp.packets_out += room;
        self.tp.snd_nxt = self.tp.snd_nxt.wrapping_add(room * MSS);
        self.tp.max_packets_out = self.tp.max_packets_out.max(self.tp.packets_out);
        self.tp.is_cwnd_limited = true;
        room
    }

    /// An ACK of `n` segments, echoing CE or not.
    fn ack(&mut self, n: u32, ece: bool) -> u32 {
        let n = n.min(self.tp.packets_out);
        if n == 0 {
            return 0;
        }
        let tp = &mut self.tp;
        tp.snd_una = tp.snd_una.wrapping_add(n * MSS);
        tp.packets_out -= n;
        tp.delivered += n;
        tp.delivered_ce += if ece { n } else { 0 };
        self.cc
            .in_ack_event(&mut self.tp, if ece { CA_ACK_ECE } else { 0 });
        if ece && self.tp.ca_state == CaState::Open {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            let s = self.cc.ssthresh(&mut self.tp);
            self.tp.snd_ssthresh = s;
            self.set_state(CaState::Cwr);
            return s;
        }
        match self.tp.ca_state {
            CaState::Open => {
                let una = self.tp.snd_una;
                self.cc.cong_avoid(&mut self.tp, una, n);
            }
            CaState::Cwr if !ece => {
                self.tp.snd_cwnd = self.tp.snd_cwnd.min(self.tp.snd_ssthresh).max(1);
                self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
                self.set_state(CaState::Open);
            }
            _ => {}
        }
        0
    }

    fn fast_retransmit(&mut self) -> u32 {
        if matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            return 0;
        }
        let mut s = 0;
        if self.tp.ca_state != CaState::Cwr {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            s = self.cc.ssthresh(&mut self.tp);
            self.tp.snd_ssthresh = s;
        }
        self.set_state(CaState::Recovery);
        s
    }

    fn end_recovery(&mut self) -> u32 {
        if !matches!(self.tp.ca_state, CaState::Recovery | CaState::Loss) {
            return 0;
        }
        self.tp.snd_cwnd = self.tp.snd_ssthresh.max(1);
        self.cc.cwnd_event(&mut self.tp, CaEvent::CompleteCwr);
        self.set_state(CaState::Open);
        0
    }

    fn timeout(&mut self) -> u32 {
        let mut s = 0;
        if self.tp.ca_state != CaState::Loss {
            self.tp.prior_cwnd = self.tp.snd_cwnd;
            s = self.cc.ssthresh(&mut self.tp);
            self.tp.snd_ssthresh = s;
            self.cc.cwnd_event(&mut self.tp, CaEvent::Loss);
        }
        self.tp.snd_una = self.tp.snd_nxt;
        self.tp.packets_out = 0;
        self.tp.snd_cwnd = 1;
        self.tp.snd_cwnd_cnt = 0;
        self.set_state(CaState::Loss);
        s
    }

    fn undo(&mut self) -> u32 {
        if self.tp.ca_state == CaState::Open {
            return 0;
        }
        let w = self.cc.undo_cwnd(&mut self.tp);
        self.tp.snd_cwnd = w;
        self.set_state(CaState::Open);
        w
    }

    /// The receiving end's CE event, which hscc raises to no sender: here it
    /// must leave the sender's state alone.
    fn receiver_event(&mut self, ce: bool) -> u32 {
        let ev = if ce {
            CaEvent::EcnIsCe
        } else {
            CaEvent::EcnNoCe
        };
        self.cc.cwnd_event(&mut self.tp, ev);
        0
    }

    fn step(&mut self, op: u32) -> u32 {
        match op % 100 {
            0..=29 => self.ack(1 + op / 100 % 2, false),
            30..=59 => self.ack(1 + op / 100 % 2, true),
            60..=79 => self.send_all(),
            80..=84 => self.fast_retransmit(),
            85..=89 => self.end_recovery(),
            90..=92 => self.timeout(),
            93..=96 => self.undo(),
            _ => self.receiver_event((op / 100).is_multiple_of(2)),
        }
    }
}

#[test]
fn linux_bpf_dctcp_unchanged_runs_hook_for_hook_as_the_builtin_dctcp() {
    let dir = match selftests() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("skipped: Linux's BPF selftests are not here: {why}");
            return;
        }
    };
    crate::test_env();
    let program = hscc_program::load(&dir.join("bpf_dctcp.c")).unwrap();
    assert_eq!(program.kernel_name().unwrap(), "bpf_dctcp");
    assert_eq!(program.ops_variable(), "dctcp", "not dctcp_nouse");
    let mut bpf = Sender::new(program.register(&[]).unwrap().connect());
    let mut builtin = Sender::new(Dctcp::new(&DctcpParams::default()));
    assert_eq!(bpf.tp, builtin.tp);
    // A fixed LCG (Numerical Recipes' constants): the script is the same every run.
    let mut x: u32 = 12345;
    let mut ops = [0u32; 100];
    for i in 0..20_000 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let op = x >> 8;
        ops[(op % 100) as usize] += 1;
        let (a, b) = (bpf.step(op), builtin.step(op));
        assert_eq!(bpf.cc.fault(), None);
        assert_eq!((a, &bpf.tp), (b, &builtin.tp), "step {i}, op {}", op % 100);
    }
    // Every kind of step ran, and the script reached what it is for.
    assert!(ops.iter().all(|&n| n > 50), "{ops:?}");
    assert!(builtin.tp.delivered_ce > 1000 && builtin.tp.delivered > 5000);
}
