//! A crash or a hang inside a program's hook becomes a report, not the end of
//! the process: while a hook runs, this thread's signal handler jumps back to
//! the runtime's entry point (runtime.c), which returns an error; the
//! simulator then stops the run and names the program, the hook and the line.
//!
//! - Divisions: a `div` that traps on operands BPF defines (by zero, MIN by
//!   -1) gets BPF's result and the hook goes on ([`crate::divide`]).
//! - Crashes: one handler for SIGSEGV, SIGBUS, SIGFPE and SIGILL, installed
//!   once per process when the first program loads. A signal while no hook
//!   runs on the thread goes to whatever handled it before (Python's
//!   faulthandler, or the default: the process ends as it would have without
//!   hscc).
//! - Hangs: a watchdog thread looks at every thread that calls hooks once per
//!   [`WATCH_PERIOD`]; one that has been inside the same hook call for
//!   [`hook_limit`] gets SIGXCPU, which jumps out of the hook the same way (the
//!   kernel's verifier would have refused a loop it cannot bound).

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

/// The runtime's `hscc_rt_fault_signal`: records the signal and jumps back
/// into `hscc_rt_call` (it does not return).
pub type FaultJump = unsafe extern "C" fn(libc::c_int, u64, u64);

/// How often the watchdog looks.
pub const WATCH_PERIOD: Duration = Duration::from_millis(250);

/// How long one hook call may run: `$HSCC_HOOK_LIMIT_S` seconds, else 10
/// (a hook of a real algorithm takes microseconds).
pub fn hook_limit() -> Duration {
    static LIMIT: OnceLock<Duration> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("HSCC_HOOK_LIMIT_S")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(Duration::from_secs(10), Duration::from_secs_f64)
    })
}

/// The signal the watchdog sends to a thread stuck in a hook.
pub const HANG_SIGNAL: libc::c_int = libc::SIGXCPU;

/// What the watchdog sees of one thread that calls hooks.
struct Watched {
    thread: libc::pthread_t,
    /// Hook calls begun so far.
    calls: AtomicU64,
    /// Inside a hook now.
    inside: AtomicBool,
}

thread_local! {
    static ACTIVE: Cell<Option<FaultJump>> = const { Cell::new(None) };
    static WATCHED: Arc<Watched> = {
        let w = Arc::new(Watched {
            // SAFETY: pthread_self has no preconditions.
            thread: unsafe { libc::pthread_self() },
            calls: AtomicU64::new(0),
            inside: AtomicBool::new(false),
        });
        watchdog().lock().unwrap_or_else(|e| e.into_inner()).push(Arc::downgrade(&w));
        w
    };
}

/// The threads to watch; the watchdog thread starts with the first.
fn watchdog() -> &'static Mutex<Vec<Weak<Watched>>> {
    static LIST: OnceLock<Mutex<Vec<Weak<Watched>>>> = OnceLock::new();
    LIST.get_or_init(|| {
        let _ = std::thread::Builder::new()
            .name("hscc-hook-watchdog".into())
            .spawn(watch);
        Mutex::new(Vec::new())
    })
}

fn watch() {
    // Per watched thread: the call seen inside a hook, and since how many looks.
    let mut seen: Vec<(Weak<Watched>, u64, u32)> = Vec::new();
    let looks = (hook_limit().as_secs_f64() / WATCH_PERIOD.as_secs_f64()).ceil() as u32;
    loop {
        std::thread::sleep(WATCH_PERIOD);
        let list: Vec<Weak<Watched>> = {
            let mut l = watchdog().lock().unwrap_or_else(|e| e.into_inner());
            l.retain(|w| w.strong_count() > 0);
            l.clone()
        };
        seen.retain(|(w, _, _)| w.strong_count() > 0);
        for w in list {
            let Some(t) = w.upgrade() else { continue };
            let call = t.calls.load(Ordering::Acquire);
            let inside = t.inside.load(Ordering::Acquire);
            let slot = seen.iter_mut().find(|(s, _, _)| Weak::ptr_eq(s, &w));
            match (inside, slot) {
                (true, Some(s)) if s.1 == call => {
                    s.2 += 1;
                    if s.2 >= looks {
                        // SAFETY: the thread is alive (its Watched is, and it
                        // is dropped with the thread's locals); the handler
                        // for HANG_SIGNAL is installed (`install`).
                        unsafe { libc::pthread_kill(t.thread, HANG_SIGNAL) };
                        s.2 = 0;
                    }
                }
                (true, Some(s)) => *s = (w.clone(), call, 1),
                (true, None) => seen.push((w.clone(), call, 1)),
                (false, Some(s)) => s.2 = 0,
                (false, None) => {}
            }
        }
    }
}

const SIGNALS: [libc::c_int; 5] = [
    libc::SIGSEGV,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGILL,
    HANG_SIGNAL,
];

struct Previous([libc::sigaction; 5]);

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
            let mut old: [libc::sigaction; 5] = core::mem::zeroed();
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

/// Run `f` (a call into a program) with this thread's faults going to `jump`
/// and the watchdog looking.
#[inline]
pub fn guarded<R>(jump: FaultJump, f: impl FnOnce() -> R) -> R {
    WATCHED.with(|w| {
        w.calls.fetch_add(1, Ordering::Release);
        w.inside.store(true, Ordering::Release);
        ACTIVE.set(Some(jump));
        let r = f();
        ACTIVE.set(None);
        w.inside.store(false, Ordering::Release);
        r
    })
}

extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    if let Some(jump) = ACTIVE.get() {
        // SAFETY: the kernel's siginfo and ucontext for this SIGFPE, on the
        // thread that faulted.
        if sig == libc::SIGFPE && unsafe { crate::divide::emulate(info, ctx) } {
            return; // the hook goes on with the kernel's result
        }
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
    if sig == HANG_SIGNAL {
        return; // the hook returned just before the watchdog's signal came
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
