//! A built program loaded for a run: [`Program`] (the object and what was
//! read from it), one [`Registration`] per run and set of parameter values
//! (a private copy of the object with its globals set, as the kernel loads a
//! struct_ops map once per registration), and a [`Connection`] per flow (its
//! socket, whose private area holds the program's per-flow state).

use core::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use hscc_cc::registry::Unregistered;
use hscc_cc::{
    AckSample, CaEvent, CaState, ExternalOps, ExternalParam, ExternalProgram, ExternalRegistration,
    LostSkb, RateSample, TcpCc,
};

use crate::compile::Built;
use crate::elf::{self, Layout};
use crate::fault::{self, FaultJump};
use crate::globals::{self, Fences};
use crate::guard::Guarded;
use crate::sock::{rust_layout, CAckSample, CRateSample, CSkBuff, CTcpSock, Ops, LAYOUT_LEN};
use crate::stack;

/// The hooks, numbered as runtime.c's `enum hscc_rt_hook`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
enum Hook {
    Init,
    Ssthresh,
    CongAvoid,
    SetState,
    CwndEvent,
    InAckEvent,
    PktsAcked,
    UndoCwnd,
    Release,
    CongControl,
    SkbMarkedLost,
}

impl Hook {
    fn name(self) -> &'static str {
        match self {
            Hook::Init => "init",
            Hook::Ssthresh => "ssthresh",
            Hook::CongAvoid => "cong_avoid",
            Hook::SetState => "set_state",
            Hook::CwndEvent => "cwnd_event",
            Hook::InAckEvent => "in_ack_event",
            Hook::PktsAcked => "pkts_acked",
            Hook::UndoCwnd => "undo_cwnd",
            Hook::Release => "release",
            Hook::CongControl => "cong_control",
            Hook::SkbMarkedLost => "skb_marked_lost",
        }
    }
}

/// runtime.c's `struct hscc_rt_fault`.
#[repr(C)]
#[derive(Clone, Copy)]
struct RtFault {
    kind: u32,
    line: u32,
    column: u32,
    signal: i32,
    pc: u64,
    addr: u64,
    file: [u8; 256],
}

/// runtime.c's `struct hscc_rt_call`.
#[repr(C)]
struct RtCall {
    ops: *const Ops,
    sk: *mut CTcpSock,
    hook: u32,
    a: u32,
    b: u32,
    ret: u32,
    p: *const c_void,
    prandom: u64,
    now_ns: u64,
    stack: *mut c_void,
    fault: RtFault,
}

type CallFn = unsafe extern "C" fn(*mut RtCall) -> i32;
type ReleaseFn = unsafe extern "C" fn(*mut c_void);
type LayoutFn = unsafe extern "C" fn(*mut usize);

/// A program built and checked, ready to register.
#[derive(Debug)]
pub struct Program {
    name: &'static str,
    built: Built,
    image: Vec<u8>,
    layout: Layout,
    /// The struct_ops variable that runs: name and address ([`choose_ops`]).
    ops: (String, u64),
    params: Vec<ExternalParam>,
    has_cong_control: bool,
    /// The struct_ops' `.flags` (TCP_CONG_NEEDS_ECN turns ECN on in the simulator).
    flags: u32,
}

impl Program {
    /// Load `built`: read it, register it once to choose its struct_ops
    /// ([`choose_ops`]) and check that its socket layout is the simulator's.
    pub fn load(name: &'static str, built: Built) -> Result<Program, String> {
        let image = std::fs::read(&built.object)
            .map_err(|e| format!("cannot read {}: {e}", built.object.display()))?;
        let layout = elf::read(&image)?;
        let params = layout
            .globals
            .iter()
            .map(|g| ExternalParam {
                name: g.name.clone(),
                size: g.size,
                default: g.default as f64,
            })
            .collect();
        let mut p = Program {
            name,
            built,
            image,
            ops: layout.ops[0].clone(),
            layout,
            params,
            has_cong_control: false,
            flags: 0,
        };
        let r = p.open(&[])?;
        let candidates: Vec<Candidate> = p
            .layout
            .ops
            .iter()
            .map(|(var, at)| {
                // SAFETY: each struct_ops variable lies in the object `r`
                // keeps loaded, at its address from the load base.
                let ops = unsafe { &*(r.base.wrapping_add(*at) as usize as *const Ops) };
                Candidate::of(var, ops)
            })
            .collect();
        let chosen = choose_ops(&candidates)?;
        p.ops = p.layout.ops[chosen].clone();
        drop(r);
        let r = p.open(&[])?;
        // SAFETY: `ops` points into the object `r` keeps loaded.
        let ops = unsafe { &*r.ops };
        p.has_cong_control = ops.cong_control.is_some();
        p.flags = ops.flags;
        let mut c = [0usize; LAYOUT_LEN];
        // SAFETY: hscc_rt_layout writes LAYOUT_LEN size_t (hscc_layout.h).
        unsafe { (r.layout_fn)(c.as_mut_ptr()) };
        if c != rust_layout() {
            return Err(format!(
                "its socket layout {c:?} is not the simulator's {:?}: it was built against other headers",
                rust_layout()
            ));
        }
        Ok(p)
    }

    /// The struct_ops variable the program runs (its name in the file).
    pub fn ops_variable(&self) -> &str {
        &self.ops.0
    }

    /// The kernel name in the program's ops (`.name`).
    pub fn kernel_name(&self) -> Result<String, String> {
        let r = self.open(&[])?;
        // SAFETY: `ops` points into the object `r` keeps loaded; `name` is a
        // C string within its 16 bytes (the compiler NUL-pads a shorter literal).
        let name = unsafe { CStr::from_ptr((*r.ops).name.as_ptr()) };
        Ok(name.to_string_lossy().into_owned())
    }

    /// A private copy of the object with `values` written over the globals'
    /// defaults, loaded.
    fn open(&self, values: &[(String, f64)]) -> Result<Registration, String> {
        let mut image = self.image.clone();
        for (name, v) in values {
            let g = self
                .layout
                .globals
                .iter()
                .find(|g| g.name == *name)
                .ok_or_else(|| format!("no parameter {name}"))?;
            let at = g.offset as usize;
            // A whole number in the global's range (ExternalParams::set checked it).
            let bytes = (*v as i64).to_le_bytes();
            image[at..at + g.size as usize].copy_from_slice(&bytes[..g.size as usize]);
        }
        static SERIAL: AtomicU64 = AtomicU64::new(0);
        let copy = std::env::temp_dir().join(format!(
            "hscc-program-{}-{}-{}.so",
            self.built.key,
            std::process::id(),
            SERIAL.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&copy, &image)
            .map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
        // SAFETY: the object is one compile.rs built from the shim's headers
        // and runtime; loading it runs no constructors of the user's (a BPF
        // program has none).
        let lib = unsafe { libloading::Library::new(&copy) };
        // The mapping stays when the file goes; nothing is left behind.
        let _ = std::fs::remove_file(&copy);
        let lib = lib.map_err(|e| format!("cannot load {}: {e}", self.built.source.display()))?;
        fault::install();
        // SAFETY: the runtime's functions have these C signatures (runtime.c).
        let (call, jump, release, layout_fn) = unsafe {
            let call = *lib
                .get::<CallFn>(b"hscc_rt_call\0")
                .map_err(|e| e.to_string())?;
            let jump = *lib
                .get::<FaultJump>(b"hscc_rt_fault_signal\0")
                .map_err(|e| e.to_string())?;
            let release = *lib
                .get::<ReleaseFn>(b"hscc_rt_release_socket\0")
                .map_err(|e| e.to_string())?;
            let layout_fn = *lib
                .get::<LayoutFn>(b"hscc_rt_layout\0")
                .map_err(|e| e.to_string())?;
            (call, jump, release, layout_fn)
        };
        // The load base: where the entry point is, less its address in the file.
        let base = (call as usize as u64).wrapping_sub(self.layout.entry);
        let ops = base.wrapping_add(self.ops.1) as usize as *const Ops;
        let (pad, guard) = self.layout.fences;
        let fences = globals::protect(base, pad, guard)
            .map_err(|e| format!("{}: {e}", self.built.source.display()))?;
        Ok(Registration {
            _lib: lib,
            ops,
            call,
            jump,
            release,
            layout_fn,
            base,
            fences,
            source: self.built.source.clone(),
            object: self.built.object.clone(),
        })
    }
}

impl ExternalProgram for Program {
    fn name(&self) -> &'static str {
        self.name
    }
    fn origin(&self) -> &str {
        self.built.source.to_str().unwrap_or("")
    }
    fn params(&self) -> &[ExternalParam] {
        &self.params
    }
    fn has_cong_control(&self) -> bool {
        self.has_cong_control
    }
    fn flags(&self) -> u32 {
        self.flags
    }
    fn register(&self, values: &[(String, f64)]) -> Result<Arc<dyn ExternalRegistration>, String> {
        Ok(Arc::new(self.open(values)?))
    }
}

/// A loaded copy of a program, with its globals set.
#[derive(Debug)]
pub struct Registration {
    _lib: libloading::Library,
    ops: *const Ops,
    call: CallFn,
    jump: FaultJump,
    release: ReleaseFn,
    layout_fn: LayoutFn,
    base: u64,
    fences: Fences,
    source: PathBuf,
    object: PathBuf,
}

// SAFETY: the registration is immutable after loading; the program's own
// globals are touched only by hook calls, and one run (one thread at a time)
// owns a registration's connections.
unsafe impl Send for Registration {}
// SAFETY: as above: `&Registration` gives no access to mutable state.
unsafe impl Sync for Registration {}

impl ExternalRegistration for Registration {
    fn connect(self: Arc<Self>) -> Box<dyn ExternalOps> {
        let source = self.source.clone();
        match Connection::on_socket(self, CTcpSock::default(), true) {
            Ok(c) => Box::new(c),
            Err(e) => Box::new(Unregistered(format!("{}: {e}", source.display()))),
        }
    }
}

/// The samples a connection's hooks are given (`pkts_acked`'s, `cong_control`'s),
/// the larger last: a run past either stays in them or faults.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Samples {
    ack: CAckSample,
    skb: CSkBuff,
    rs: CRateSample,
}

/// One flow's connection: its socket and the first failure of a hook.
#[derive(Debug)]
pub struct Connection {
    reg: Arc<Registration>,
    /// The socket, at the end of its own memory: the private area is its
    /// last bytes, and a write past them faults in the hook.
    sk: Guarded<CTcpSock>,
    /// The samples a hook is given, in memory of their own for the same reason.
    samples: Guarded<Samples>,
    fault: Option<String>,
    owns_socket: bool,
}

// SAFETY: a connection's socket is its own (its mapping), and its registration is
// Send + Sync; the raw pointers it passes to the program point into both.
unsafe impl Send for Connection {}
// SAFETY: `&Connection` reads only the fault message.
unsafe impl Sync for Connection {}

impl Drop for Connection {
    fn drop(&mut self) {
        if self.owns_socket && self.fault.is_none() && self.ops().release.is_some() {
            // On the socket as the last hook left it: nothing comes back from release.
            let (mut prandom, now_ns) = (0, self.sk.tcp_clock_cache);
            self.enter(Hook::Release, 0, 0, core::ptr::null(), &mut prandom, now_ns);
        }
        let sk: *mut CTcpSock = &mut *self.sk;
        // SAFETY: frees the runtime's storage keyed by this socket's address.
        unsafe { (self.reg.release)(sk.cast()) };
    }
}

impl Connection {
    /// A connection on the socket `sk`, in memory of its own; why not when
    /// that cannot be mapped.
    fn on_socket(
        reg: Arc<Registration>,
        sk: CTcpSock,
        owns_socket: bool,
    ) -> Result<Connection, String> {
        Ok(Connection {
            reg,
            sk: Guarded::new(sk)?,
            samples: Guarded::new(Samples::default())?,
            fault: None,
            owns_socket,
        })
    }

    fn ops(&self) -> &Ops {
        // SAFETY: `ops` points into the loaded object the registration keeps.
        unsafe { &*self.reg.ops }
    }

    /// Call `hook` with the sender's view `tp` copied in; copy back what the
    /// program may write. `None` when the hook failed (now or before): `tp`
    /// is left as it was.
    fn call(
        &mut self,
        tp: &mut TcpCc,
        hook: Hook,
        a: u32,
        b: u32,
        p: *const c_void,
    ) -> Option<u32> {
        if self.fault.is_some() {
            return None;
        }
        self.sk.load(tp);
        let now_ns = tp.now_us.wrapping_mul(1000);
        let ret = self.enter(hook, a, b, p, &mut tp.prandom_state, now_ns)?;
        if let Some(what) = window_fault(hook, &self.sk, ret) {
            self.fault = Some(format!("{}: {what}", self.reg.source.display()));
            return None;
        }
        self.sk.store(tp);
        Some(ret)
    }

    /// Run `hook` on the socket as it is, with the connection's generator
    /// state and clock; `None` (and the fault recorded) when it failed.
    fn enter(
        &mut self,
        hook: Hook,
        a: u32,
        b: u32,
        p: *const c_void,
        prandom: &mut u64,
        now_ns: u64,
    ) -> Option<u32> {
        let mut c = RtCall {
            ops: self.reg.ops,
            sk: &mut *self.sk,
            hook: hook as u32,
            a,
            b,
            ret: 0,
            p,
            prandom: *prandom,
            now_ns,
            stack: stack::top(),
            fault: RtFault {
                kind: 0,
                line: 0,
                column: 0,
                signal: 0,
                pc: 0,
                addr: 0,
                file: [0; 256],
            },
        };
        let call = self.reg.call;
        // SAFETY: `c` holds pointers to this connection's socket and the
        // registration's ops, both alive for the call, and `p` points to a
        // sample of the hook's C type (the callers below); runtime.c calls the
        // hook the ops define (the callers check it is defined).
        let failed = fault::guarded(self.reg.jump, || unsafe { call(&mut c) }) != 0;
        *prandom = c.prandom;
        if failed {
            self.fault = Some(self.describe(hook, &c.fault));
            return None;
        }
        Some(c.ret)
    }

    fn describe(&self, hook: Hook, f: &RtFault) -> String {
        let at = |file: &str, line: u32, column: u32| match column {
            0 => format!("{file}:{line}"),
            c => format!("{file}:{line}:{c}"),
        };
        let file = CStr::from_bytes_until_nul(&f.file)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let place = |pc: u64| {
            line_of(&self.reg.object, pc.wrapping_sub(self.reg.base))
                .unwrap_or_else(|| self.reg.source.display().to_string())
        };
        match f.kind {
            2 => format!(
                "{}: index out of the array's bounds in {}",
                at(&file, f.line, f.column),
                hook.name()
            ),
            // The address the function returns to from __stack_chk_fail: the
            // call before it is the function's check.
            5 => format!(
                "{}: wrote past the end of a local array (over its frame's stack-protector \
                 canary, found as the function returned) in {}",
                place(f.pc.wrapping_sub(1)),
                hook.name()
            ),
            _ => {
                let what = match f.signal {
                    fault::HANG_SIGNAL => format!(
                        "did not return within {} s (a loop the kernel's verifier would refuse?)",
                        fault::hook_limit().as_secs_f64()
                    ),
                    libc::SIGSEGV | libc::SIGBUS if self.sk.just_past(f.addr) => format!(
                        "read or wrote past the {} bytes of inet_csk_ca(sk) (address {:#x})",
                        core::mem::size_of_val(&self.sk.icsk_ca_priv),
                        f.addr
                    ),
                    libc::SIGSEGV | libc::SIGBUS if self.reg.fences.just_past(f.addr) => format!(
                        "read or wrote past the end of the program's globals (address {:#x})",
                        f.addr
                    ),
                    libc::SIGSEGV | libc::SIGBUS if self.reg.fences.just_before(f.addr) => {
                        format!(
                            "read or wrote before the start of the program's globals (address {:#x})",
                            f.addr
                        )
                    }
                    libc::SIGSEGV | libc::SIGBUS => match stack::guard_hit(f.addr) {
                        Some(stack::Guard::AboveTop) => format!(
                            "wrote past the top of the hook's stack, over every frame on it \
                             (address {:#x}; a local array written far past its end?)",
                            f.addr
                        ),
                        Some(stack::Guard::BelowBottom) => format!(
                            "ran out of the hook's {} KiB stack (address {:#x}; \
                             recursion without end?)",
                            stack::SIZE / 1024,
                            f.addr
                        ),
                        None => format!("crashed reading or writing address {:#x}", f.addr),
                    },
                    libc::SIGFPE => "crashed on an arithmetic fault".to_string(),
                    libc::SIGILL => "crashed on an illegal instruction".to_string(),
                    s => format!("crashed with signal {s}"),
                };
                format!("{}: {what} in {}", place(f.pc), hook.name())
            }
        }
    }
}

/// One struct_ops variable of a program: its name in the file, its `.name`
/// and the hooks the kernel requires that it leaves out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub variable: String,
    pub name: String,
    pub missing: Vec<&'static str>,
}

impl Candidate {
    fn of(variable: &str, ops: &Ops) -> Candidate {
        let mut missing = Vec::new();
        if ops.ssthresh.is_none() {
            missing.push("ssthresh");
        }
        if ops.undo_cwnd.is_none() {
            missing.push("undo_cwnd");
        }
        if ops.cong_avoid.is_none() && ops.cong_control.is_none() {
            missing.push("cong_avoid (or cong_control)");
        }
        let name: Vec<u8> = ops
            .name
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        Candidate {
            variable: variable.to_string(),
            name: String::from_utf8_lossy(&name).into_owned(),
            missing,
        }
    }

    fn describe(&self) -> String {
        match self.missing.as_slice() {
            [] => format!("{} (\"{}\", complete)", self.variable, self.name),
            m => format!(
                "{} (\"{}\", leaves out {})",
                self.variable,
                self.name,
                m.join(" and ")
            ),
        }
    }
}

/// Which of a file's struct_ops variables runs: the one the kernel could
/// register as a congestion control (ssthresh, undo_cwnd and cong_avoid or
/// cong_control defined). A file may hold others, incomplete (Linux's
/// bpf_dctcp.c has `dctcp_nouse`, init and set_state only, which its test
/// expects the kernel to refuse); exactly one must be complete.
pub fn choose_ops(candidates: &[Candidate]) -> Result<usize, String> {
    let complete: Vec<usize> = (0..candidates.len())
        .filter(|&i| candidates[i].missing.is_empty())
        .collect();
    match (candidates, complete.as_slice()) {
        (_, [one]) => Ok(*one),
        ([only], []) => Err(format!(
            "its struct tcp_congestion_ops {} leaves out {}, which the kernel requires",
            only.variable,
            only.missing.join(" and ")
        )),
        _ => Err(format!(
            "it defines {} struct tcp_congestion_ops: {}; hscc runs the one that defines \
             ssthresh, undo_cwnd and cong_avoid (or cong_control), as the kernel requires, \
             and needs exactly one such in the file",
            candidates.len(),
            candidates
                .iter()
                .map(Candidate::describe)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// What the sender cannot run with, after `hook` left the socket `tp`.
fn window_fault(hook: Hook, tp: &CTcpSock, ret: u32) -> Option<String> {
    match hook {
        Hook::Ssthresh | Hook::UndoCwnd if ret == 0 => Some(format!(
            "{} returned 0: a window is at least 1 segment",
            hook.name()
        )),
        _ if tp.snd_cwnd == 0 => Some(format!("{} set snd_cwnd to 0", hook.name())),
        _ if tp.snd_cwnd > tp.snd_cwnd_clamp => Some(format!(
            "{} set snd_cwnd to {}, beyond snd_cwnd_clamp {}",
            hook.name(),
            tp.snd_cwnd,
            tp.snd_cwnd_clamp
        )),
        _ => None,
    }
}

/// `file:line (function)` of an address in the object, from its line table
/// (binutils' addr2line), where one is installed.
fn line_of(object: &Path, offset: u64) -> Option<String> {
    static LOCK: Mutex<()> = Mutex::new(());
    let _serial = LOCK.lock();
    let out = std::process::Command::new("addr2line")
        .arg("-f")
        .arg("-e")
        .arg(object)
        .arg(format!("{offset:#x}"))
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let function = lines.next()?.trim().to_string();
    let place = lines.next()?.trim().split(" (").next()?.to_string();
    if place.starts_with("??") {
        return None;
    }
    Some(format!("{place} ({function})"))
}

impl ExternalOps for Connection {
    fn init(&mut self, tp: &mut TcpCc) {
        self.sk.icsk_ca_priv = [0; 13];
        if self.ops().init.is_some() {
            self.call(tp, Hook::Init, 0, 0, core::ptr::null());
        }
    }
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        self.call(tp, Hook::Ssthresh, 0, 0, core::ptr::null())
            .unwrap_or(tp.snd_ssthresh)
    }
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        if self.ops().cong_avoid.is_some() {
            self.call(tp, Hook::CongAvoid, ack, acked, core::ptr::null());
        }
    }
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        if self.ops().set_state.is_some() {
            self.call(tp, Hook::SetState, s as u32, 0, core::ptr::null());
        }
    }
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        if self.ops().cwnd_event.is_some() {
            self.call(tp, Hook::CwndEvent, ev as u32, 0, core::ptr::null());
        }
    }
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        if self.ops().in_ack_event.is_some() {
            self.call(tp, Hook::InAckEvent, flags, 0, core::ptr::null());
        }
    }
    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        if self.ops().pkts_acked.is_some() {
            self.samples.ack = CAckSample::of(s);
            let c: *const CAckSample = &self.samples.ack;
            self.call(tp, Hook::PktsAcked, 0, 0, c.cast());
        }
    }
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        self.call(tp, Hook::UndoCwnd, 0, 0, core::ptr::null())
            .unwrap_or(tp.snd_cwnd)
    }
    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        if self.ops().cong_control.is_none() {
            return false;
        }
        self.samples.rs = CRateSample::of(rs);
        let c: *const CRateSample = &self.samples.rs;
        // Linux passes the ACK's sequence and flags; hscc's hooks take neither
        // (0, as for BBR, which reads neither).
        self.call(tp, Hook::CongControl, 0, 0, c.cast()).is_some()
    }
    fn has_cong_control(&self) -> bool {
        self.ops().cong_control.is_some()
    }
    fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
        if self.ops().skb_marked_lost.is_some() {
            self.samples.skb = CSkBuff::of(skb);
            let c: *const CSkBuff = &self.samples.skb;
            self.call(tp, Hook::SkbMarkedLost, 0, 0, c.cast());
        }
    }
    fn has_skb_marked_lost(&self) -> bool {
        self.ops().skb_marked_lost.is_some()
    }
    fn needs_delivery_stamps(&self) -> bool {
        // A program cannot say which fields it reads: one with pkts_acked
        // gets Linux's in_flight.
        self.ops().pkts_acked.is_some()
    }
    fn fault(&self) -> Option<String> {
        self.fault.clone()
    }
    fn clone_box(&self) -> Box<dyn ExternalOps> {
        match Connection::on_socket(Arc::clone(&self.reg), *self.sk, false) {
            Ok(mut c) => {
                c.fault = self.fault.clone();
                Box::new(c)
            }
            Err(e) => Box::new(Unregistered(format!("{}: {e}", self.reg.source.display()))),
        }
    }
}
