//! The C side: the `#[repr(C)]` mirror of the shim's `struct tcp_sock`
//! (bpf/shim/user.h), the programs of bpf/ built for user space, and
//! [`CAlgo`], which runs one of them on a [`TcpCc`].

use core::ffi::{c_char, c_int, CStr};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use hscc_cc::{AckSample, CaEvent, CaState, LostSkb, RateSample, TcpCc};

pub use hscc_program::sock::{
    rust_layout, CAckSample, CRateSample, CSkBuff, CTcpSock, MinmaxSample, Ops, Sk, Sock,
    LAYOUT_LEN,
};

/// One program of bpf/, built for user space.
#[derive(Clone, Copy)]
pub struct CProgram {
    /// File name without `.bpf.c`: the Rust algorithm's name.
    pub name: &'static str,
    ops: &'static Ops,
    set_global: unsafe extern "C" fn(*const c_char, i64) -> c_int,
    global_names: unsafe extern "C" fn() -> *const *const c_char,
}

impl core::fmt::Debug for CProgram {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "CProgram({})", self.name)
    }
}

include!(concat!(env!("OUT_DIR"), "/programs.rs"));

extern "C" {
    fn hscc_user_layout(out: *mut usize);
    fn hscc_user_prandom_set(state: u64);
    fn hscc_user_prandom_get() -> u64;
    fn hscc_user_hstcp_table(out: *mut u32) -> c_int;
    fn hscc_user_mul_q16(a: u64, b: u32) -> u64;
    fn hscc_user_div_ceil_q16(a: u64, d: u32) -> u64;
    fn hscc_user_hstcp_formula(
        w: u32,
        constants: *const HstcpFormulaC,
        log2_q16: *mut u32,
        a_q10: *mut u32,
        b_q32: *mut u64,
        ssthresh: *mut u32,
    );
    fn hscc_user_hstcp_formula_rfc(out: *mut HstcpFormulaC);
}

/// bpf/hstcp_table.h's `struct hstcp_formula`.
#[repr(C)]
struct HstcpFormulaC {
    low_window: u32,
    log2_low_q16: u32,
    log2_cap_q16: u32,
    b_drop_q32: u64,
    k_q32: i64,
}

/// What bpf/hstcp_table.h's formula gives at one window: log₂ w (Q16), a(w)
/// (Q10), b(w) (Q32) and the decrease, for the constants `f`.
pub fn c_hstcp_formula(
    f: &hscc_cc::algos::highspeed::HstcpFormula,
    w: u32,
) -> (u32, u32, u64, u32) {
    let c = HstcpFormulaC {
        low_window: f.low_window,
        log2_low_q16: f.log2_low_q16,
        log2_cap_q16: f.log2_cap_q16,
        b_drop_q32: f.b_drop_q32,
        k_q32: f.k_q32,
    };
    let (mut l, mut a, mut b, mut ss) = (0, 0, 0, 0);
    // SAFETY: the C function reads `c` and writes one integer through each out pointer,
    // all of them live locals of the matching C types (#[repr(C)] struct, u32/u64).
    unsafe { hscc_user_hstcp_formula(w, &c, &mut l, &mut a, &mut b, &mut ss) };
    (l, a, b, ss)
}

/// bpf/hstcp_table.h's `HSTCP_FORMULA_RFC`, the constants TCP-Africa's program uses.
pub fn c_hstcp_formula_rfc() -> hscc_cc::algos::highspeed::HstcpFormula {
    let mut c = HstcpFormulaC {
        low_window: 0,
        log2_low_q16: 0,
        log2_cap_q16: 0,
        b_drop_q32: 0,
        k_q32: 0,
    };
    // SAFETY: the C function fills the #[repr(C)] struct `c` and keeps no pointer to it.
    unsafe { hscc_user_hstcp_formula_rfc(&mut c) };
    hscc_cc::algos::highspeed::HstcpFormula {
        low_window: c.low_window,
        log2_low_q16: c.log2_low_q16,
        log2_cap_q16: c.log2_cap_q16,
        b_drop_q32: c.b_drop_q32,
        k_q32: c.k_q32,
    }
}

/// hscc.h's `mul_q16(a, b)`: Rust's `(a as u128 * b as u128 >> 16) as u64` for b ≤ 2^16.
pub fn c_mul_q16(a: u64, b: u32) -> u64 {
    assert!(b <= 1 << 16);
    // SAFETY: a pure C function of two integers (csrc/layout.c).
    unsafe { hscc_user_mul_q16(a, b) }
}

/// hscc.h's `div_ceil_q16(a, d)`: Rust's `((a as u128) << 16).div_ceil(d).min(u64::MAX)` for d in [1, 2^16].
pub fn c_div_ceil_q16(a: u64, d: u32) -> u64 {
    assert!((1..=1 << 16).contains(&d));
    // SAFETY: a pure C function of two integers; d ≠ 0 (asserted above).
    unsafe { hscc_user_div_ceil_q16(a, d) }
}

/// bpf/hstcp_table.h's rows as (cwnd, md).
pub fn c_hstcp_table() -> Vec<(u32, u32)> {
    let mut out = [0u32; 2 * 128];
    // SAFETY: the C function writes 2 × HSTCP_ROWS u32s, and hstcp_table.h has
    // 72 rows: within the 2 × 128 of `out` (the assert below guards the size).
    let n = unsafe { hscc_user_hstcp_table(out.as_mut_ptr()) } as usize;
    assert!(n <= 128);
    out[..2 * n].chunks(2).map(|r| (r[0], r[1])).collect()
}

impl CProgram {
    /// The program of bpf/ for the Rust algorithm `name`.
    pub fn find(name: &str) -> Option<CProgram> {
        programs().into_iter().find(|p| p.name == name)
    }

    /// The kernel name in the program's ops (`hscc_NAME`).
    pub fn kernel_name(&self) -> String {
        // SAFETY: `ops` is a static of the C program; its `name` is a C string
        // within its 16 bytes (the kernel's TCP_CA_NAME_MAX, NUL included).
        unsafe { CStr::from_ptr(self.ops.name.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    /// Whether the program owns cwnd and pacing (`cong_control`).
    pub fn has_cong_control(&self) -> bool {
        self.ops.cong_control.is_some()
    }

    /// The ops' flags (TCP_CONG_NON_RESTRICTED expected).
    pub fn flags(&self) -> u32 {
        self.ops.flags
    }

    /// The load-time globals the program declares, in declaration order.
    pub fn global_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        // SAFETY: HSCC_GLOBALS (bpf/shim/user.h) defines the function without
        // arguments; it returns a static array of C string literals ending with a null.
        let mut p = unsafe { (self.global_names)() };
        // The list ends with a null; a program has a few dozen globals at most.
        for _ in 0..256 {
            // SAFETY: `p` is within the array: every element before it was not the null.
            let s = unsafe { *p };
            if s.is_null() {
                return out;
            }
            // SAFETY: a non-null element is a static C string literal.
            out.push(unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned());
            // SAFETY: `s` was not the null, so the array goes on after `p`.
            p = unsafe { p.add(1) };
        }
        panic!("{}: global name list without its end", self.name);
    }
}

/// The shim's layout as C sees it, in the order of `hscc_user_layout_fill`.
pub fn c_layout() -> [usize; LAYOUT_LEN] {
    let mut out = [0usize; LAYOUT_LEN];
    // SAFETY: hscc_user_layout_fill (bpf/shim/user.h) writes exactly LAYOUT_LEN size_t.
    unsafe { hscc_user_layout(out.as_mut_ptr()) };
    out
}

static NEXT_CONFIG: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// Which configuration this thread's C globals hold (0 = none).
    static LOADED: Cell<u64> = const { Cell::new(0) };
}

/// A connection driven by a C program: its socket (with the private area
/// that holds the program's state) and its load-time globals. Dropping it
/// closes the connection: the program's `release` runs, as Linux's
/// `tcp_cleanup_congestion_control`.
#[derive(Debug)]
pub struct CAlgo {
    prog: CProgram,
    sk: Box<CTcpSock>,
    globals: Vec<(&'static str, i64)>,
    config: u64,
    /// Whether dropping runs `release` (not for clones, see Clone).
    owns_socket: bool,
}

impl Clone for CAlgo {
    /// A copy of the socket's state that does not close the connection when
    /// dropped: the kernel never copies a live socket's congestion state, so
    /// state the program shares between sockets (TCP-FIT's α pool) counts
    /// the original only. Rust's TCP-FIT counts a clone as one more connection;
    /// do not clone a Lockstep of `fit` with a shared α.
    fn clone(&self) -> CAlgo {
        CAlgo {
            prog: self.prog,
            sk: self.sk.clone(),
            globals: self.globals.clone(),
            config: self.config,
            owns_socket: false,
        }
    }
}

impl Drop for CAlgo {
    fn drop(&mut self) {
        if let (true, Some(f)) = (self.owns_socket, self.prog.ops.release) {
            self.load_globals();
            let sk: Sk = &mut *self.sk;
            // SAFETY: as for every hook (`CAlgo::call`): `sk` is this connection's
            // own socket, whose layout matches C's (`c_layout`, tested).
            unsafe { f(sk) };
        }
    }
}

/// `CAlgo::new` refused its globals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownGlobal(pub String);

impl CAlgo {
    /// A connection of `prog` with these globals (from `Cc::bpf_globals`).
    pub fn new(prog: CProgram, globals: Vec<(&'static str, i64)>) -> Result<CAlgo, UnknownGlobal> {
        let names = prog.global_names();
        // Array elements ("name[i]") are checked by the C setter when loaded.
        let known = |g: &str| g.contains('[') || names.iter().any(|n| n == g);
        if let Some((g, _)) = globals.iter().find(|(g, _)| !known(g)) {
            return Err(UnknownGlobal(g.to_string()));
        }
        let config = NEXT_CONFIG.fetch_add(1, Ordering::Relaxed);
        Ok(CAlgo {
            prog,
            sk: Box::default(),
            globals,
            config,
            owns_socket: true,
        })
    }

    /// The program it runs.
    pub fn program(&self) -> CProgram {
        self.prog
    }

    /// Load this connection's globals into the thread's C variables if another
    /// configuration is there.
    fn load_globals(&self) {
        if LOADED.get() == self.config {
            return;
        }
        for (name, value) in &self.globals {
            let key = std::ffi::CString::new(*name).unwrap();
            // SAFETY: `key` is a C string that outlives the call; the setter
            // (HSCC_GLOBALS, bpf/shim/user.h) only reads it and returns -1 for an
            // unknown name.
            let r = unsafe { (self.prog.set_global)(key.as_ptr(), *value) };
            assert_eq!(r, 0, "{}: no global {name}", self.prog.name);
        }
        LOADED.set(self.config);
    }

    /// Run one hook on `tp`: copy the sender's view in, call, copy back what
    /// the kernel lets a program write (snd_cwnd, snd_cwnd_cnt, snd_ssthresh,
    /// sk_pacing_rate, sk_pacing_status, app_limited;
    /// bpf_tcp_ca_btf_struct_access), and the generator state
    /// `bpf_get_prandom_u32` advanced.
    ///
    /// The hooks below call the program's function pointers inside `hook`. They
    /// are sound because `sk` points to this connection's own socket, boxed and
    /// exclusively borrowed for the call, whose `#[repr(C)]` layout is the one
    /// the C was compiled against (`c_layout` = `rust_layout`, tested), and each
    /// pointer has the C signature its `Ops` field declares.
    fn call<R>(&mut self, tp: &mut TcpCc, hook: impl FnOnce(Sk) -> R) -> R {
        assert_eq!(
            tp.hz,
            hscc_cc::HZ,
            "the programs count time at HZ = {}",
            hscc_cc::HZ
        );
        self.load_globals();
        let sk = &mut *self.sk;
        sk.load(tp);
        // SAFETY: a plain store to the thread's generator state (csrc/layout.c).
        unsafe { hscc_user_prandom_set(tp.prandom_state) };
        let r = hook(sk as *mut CTcpSock);
        sk.store(tp);
        // SAFETY: a plain load of the thread's generator state (csrc/layout.c).
        tp.prandom_state = unsafe { hscc_user_prandom_get() };
        r
    }

    /// `init`, as the kernel calls it: on a zeroed private area.
    pub fn init(&mut self, tp: &mut TcpCc) {
        self.sk.icsk_ca_priv = [0; 13];
        if let Some(f) = self.prog.ops.init {
            // SAFETY: see `CAlgo::call`.
            self.call(tp, |sk| unsafe { f(sk) });
        }
    }

    /// `ssthresh` (required).
    pub fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let f = self.prog.ops.ssthresh.expect("ssthresh is required");
        // SAFETY: see `CAlgo::call`.
        self.call(tp, |sk| unsafe { f(sk) })
    }

    /// `cong_avoid` (required without cong_control). A program with
    /// `cong_control` has none, as Linux's BBR: the kernel never calls it, and
    /// the Rust twin's is empty.
    pub fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        match self.prog.ops.cong_avoid {
            // SAFETY: see `CAlgo::call`.
            Some(f) => self.call(tp, |sk| unsafe { f(sk, ack, acked) }),
            None => assert!(
                self.prog.ops.cong_control.is_some(),
                "{}: cong_avoid is required without cong_control",
                self.prog.name
            ),
        }
    }

    /// `set_state`.
    pub fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        if let Some(f) = self.prog.ops.set_state {
            // SAFETY: see `CAlgo::call`.
            self.call(tp, |sk| unsafe { f(sk, s as u8) });
        }
    }

    /// `cwnd_event`, with Linux's numbering of the events.
    pub fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        let code = hscc_cc::trace::event_code(ev) as i32;
        if let Some(f) = self.prog.ops.cwnd_event {
            // SAFETY: see `CAlgo::call`.
            self.call(tp, |sk| unsafe { f(sk, code) });
        }
    }

    /// `in_ack_event`.
    pub fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        if let Some(f) = self.prog.ops.in_ack_event {
            // SAFETY: see `CAlgo::call`.
            self.call(tp, |sk| unsafe { f(sk, flags) });
        }
    }

    /// `pkts_acked`.
    pub fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        let sample = CAckSample {
            pkts_acked: s.pkts_acked,
            rtt_us: s.rtt_us,
            in_flight: s.in_flight,
        };
        if let Some(f) = self.prog.ops.pkts_acked {
            // SAFETY: see `CAlgo::call`. `&sample` lives until the call returns.
            self.call(tp, |sk| unsafe { f(sk, &sample) });
        }
    }

    /// `cong_control`: whether the program has it (and so handled the ACK),
    /// as Linux's `tcp_cong_control` asks. hscc has no ACK flags: `flag` is 0.
    pub fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        let Some(f) = self.prog.ops.cong_control else {
            return false;
        };
        let sample = CRateSample::of(rs);
        let ack = tp.snd_una;
        // SAFETY: see `CAlgo::call`. `&sample` lives until the call returns.
        self.call(tp, |sk| unsafe { f(sk, ack, 0, &sample) });
        true
    }

    /// `skb_marked_lost` (Google's BBRv3 kernel's hook), if the program has it.
    pub fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
        if let Some(f) = self.prog.ops.skb_marked_lost {
            let c = CSkBuff::of(skb);
            // SAFETY: see `CAlgo::call`. `&c` lives until the call returns.
            self.call(tp, |sk| unsafe { f(sk, &c) });
        }
    }

    /// `undo_cwnd` (required by hscc's trait: Reno's when absent, as Linux).
    pub fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        match self.prog.ops.undo_cwnd {
            // SAFETY: see `CAlgo::call`.
            Some(f) => self.call(tp, |sk| unsafe { f(sk) }),
            None => tp.snd_cwnd.max(tp.prior_cwnd),
        }
    }
}
