//! A crash inside a program's hook becomes a report, not the end of the
//! process: while a hook runs, this thread's signal handler jumps back to the
//! runtime's entry point (runtime.c), which returns an error; the simulator
//! then stops the run and names the program, the hook and the line.
//!
//! One handler for SIGSEGV, SIGBUS, SIGFPE and SIGILL, installed once per
//! process when the first program loads. A signal while no hook runs on the
//! thread goes to whatever handled it before (Python's faulthandler, or the
//! default: the process ends as it would have without hscc).

use std::cell::Cell;
use std::sync::OnceLock;

/// The runtime's `hscc_rt_fault_signal`: records the signal and jumps back
/// into `hscc_rt_call` (it does not return).
pub type FaultJump = unsafe extern "C" fn(libc::c_int, u64, u64);

thread_local! {
    static ACTIVE: Cell<Option<FaultJump>> = const { Cell::new(None) };
}

const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL];

struct Previous([libc::sigaction; 4]);

// SAFETY: the saved actions are plain data (handler addresses and flags),
// written once before any reader.
unsafe impl Sync for Previous {}
// SAFETY: as above.
unsafe impl Send for Previous {}

static PREVIOUS: OnceLock<Previous> = OnceLock::new();

/// Install the handler (once per process).
pub fn install() {
    PREVIOUS.get_or_init(|| {
        // SAFETY: zeroed sigaction structs are valid (no handler, empty mask);
        // sigaction only reads `act` and writes `old`.
        unsafe {
            let mut old: [libc::sigaction; 4] = core::mem::zeroed();
            let mut act: libc::sigaction = core::mem::zeroed();
            act.sa_sigaction = handler as *const () as usize;
            // NODEFER: the handler leaves by a jump, so the signal must not
            // stay blocked; ONSTACK: a program that overflowed its stack.
            act.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
            libc::sigemptyset(&mut act.sa_mask);
            for (i, s) in SIGNALS.iter().enumerate() {
                libc::sigaction(*s, &act, &mut old[i]);
            }
            Previous(old)
        }
    });
}

/// Run `f` (a call into a program) with this thread's faults going to `jump`.
#[inline]
pub fn guarded<R>(jump: FaultJump, f: impl FnOnce() -> R) -> R {
    ACTIVE.set(Some(jump));
    let r = f();
    ACTIVE.set(None);
    r
}

extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    if let Some(jump) = ACTIVE.get() {
        ACTIVE.set(None);
        // SAFETY: the kernel passes a valid siginfo and ucontext to an
        // SA_SIGINFO handler; the program counter is read where the
        // architecture keeps it.
        let (pc, addr) = unsafe { (program_counter(ctx), (*info).si_addr() as u64) };
        // SAFETY: `jump` is the runtime entry of the program whose hook this
        // thread is running (set by `guarded` around the call); it jumps back
        // to that call's frame. The frames it leaves (this handler's and the
        // signal frame) own nothing that needs dropping.
        unsafe { jump(sig, pc, addr) };
    }
    // Not ours: restore what was there and return, so the instruction faults
    // again under it.
    if let (Some(prev), Some(i)) = (PREVIOUS.get(), SIGNALS.iter().position(|s| *s == sig)) {
        // SAFETY: restoring a sigaction saved by `install`.
        unsafe { libc::sigaction(sig, &prev.0[i], core::ptr::null_mut()) };
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
unsafe fn program_counter(ctx: *mut libc::c_void) -> u64 {
    let uc = ctx as *const libc::ucontext_t;
    // SAFETY: `ctx` is the handler's ucontext (see the caller).
    unsafe { (*uc).uc_mcontext.gregs[libc::REG_RIP as usize] as u64 }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
unsafe fn program_counter(_ctx: *mut libc::c_void) -> u64 {
    0
}
