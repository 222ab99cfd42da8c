//! The stack a thread's hook calls run on: [`SIZE`] bytes of their own, with
//! an inaccessible page above the top and one below the bottom, mapped once
//! per thread and unmapped when the thread ends. A write past a local array
//! that the stack protector's canary does not stop first (one that runs on
//! far past its frame) runs over the program's own frames into the page above
//! and faults in the hook; the simulator's frames and the jump buffer a fault
//! returns through are on the thread's own stack, out of its reach. A hook
//! that recurses without end faults in the page below: the signal handler
//! needs a stack of its own then, so a thread without one (Python's threads,
//! the main thread of an interpreter without faulthandler) is given one.

use std::cell::OnceCell;

use crate::guard::page_size;

/// The hook stack's size: far more than the 512 bytes the kernel's verifier
/// allows a program, for the C build's spills and the runtime's helpers
/// (bpf_printk formats with the C library). Only the pages touched are used.
pub const SIZE: usize = 256 * 1024;

/// One thread's hook stack: guard page, [`SIZE`] bytes, guard page; and the
/// signal stack given to the thread, if it had none (kept for its Drop).
struct Stack {
    base: *mut u8,
    len: usize,
    _signal: Option<SignalStack>,
}

/// The size of a signal stack this module gives a thread.
const SIGNAL_SIZE: usize = 64 * 1024;

/// A signal stack given to a thread that had none.
struct SignalStack {
    base: *mut libc::c_void,
}

impl SignalStack {
    /// A signal stack for this thread when it has none (None when it has one,
    /// or none can be mapped: the handler then runs on the hook's stack).
    fn give() -> Option<SignalStack> {
        // SAFETY: sigaltstack reads `new` and writes `old`, both valid; the
        // mapping is new and becomes the thread's signal stack, unmapped only
        // after it stops being that (Drop).
        unsafe {
            let mut old: libc::stack_t = core::mem::zeroed();
            if libc::sigaltstack(core::ptr::null(), &mut old) != 0
                || old.ss_flags & libc::SS_DISABLE == 0
            {
                return None;
            }
            let m = libc::mmap(
                core::ptr::null_mut(),
                SIGNAL_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if m == libc::MAP_FAILED {
                return None;
            }
            let new = libc::stack_t {
                ss_sp: m,
                ss_flags: 0,
                ss_size: SIGNAL_SIZE,
            };
            if libc::sigaltstack(&new, core::ptr::null_mut()) != 0 {
                libc::munmap(m, SIGNAL_SIZE);
                return None;
            }
            Some(SignalStack { base: m })
        }
    }
}

impl Drop for SignalStack {
    fn drop(&mut self) {
        // SAFETY: as in `give`; the thread's signal stack is switched off
        // first if it is still this one (another may have replaced it).
        unsafe {
            let mut now: libc::stack_t = core::mem::zeroed();
            if libc::sigaltstack(core::ptr::null(), &mut now) == 0 && now.ss_sp == self.base {
                let off = libc::stack_t {
                    ss_sp: core::ptr::null_mut(),
                    ss_flags: libc::SS_DISABLE,
                    ss_size: 0,
                };
                if libc::sigaltstack(&off, core::ptr::null_mut()) != 0 {
                    return; // still in use: leave it mapped
                }
            }
            libc::munmap(self.base, SIGNAL_SIZE);
        }
    }
}

impl Stack {
    fn map() -> Option<Stack> {
        let page = page_size();
        let len = SIZE.div_ceil(page) * page + 2 * page;
        // SAFETY: a new private anonymous mapping, inaccessible, then all but
        // its first and last pages made readable and writable; nothing else
        // refers to it.
        unsafe {
            let m = libc::mmap(
                core::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if m == libc::MAP_FAILED {
                return None;
            }
            let m = m.cast::<u8>();
            let rw = libc::PROT_READ | libc::PROT_WRITE;
            if libc::mprotect(m.add(page).cast(), len - 2 * page, rw) != 0 {
                libc::munmap(m.cast(), len);
                return None;
            }
            Some(Stack {
                base: m,
                len,
                _signal: SignalStack::give(),
            })
        }
    }

    /// The first byte above the stack (its top, page-aligned): where the
    /// inaccessible page begins.
    fn top(&self) -> u64 {
        self.base as u64 + (self.len - page_size()) as u64
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: unmaps the mapping `map` made; the thread is ending, so no
        // hook call runs on it.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

thread_local! {
    static STACK: OnceCell<Option<Stack>> = const { OnceCell::new() };
}

/// The top of this thread's hook stack, for the runtime; null (the hook runs
/// on the caller's stack, unguarded) when it cannot be mapped or the thread
/// is ending.
pub fn top() -> *mut libc::c_void {
    STACK
        .try_with(|s| s.get_or_init(Stack::map).as_ref().map_or(0, Stack::top))
        .unwrap_or(0) as usize as *mut libc::c_void
}

/// Where `addr` lies against this thread's hook stack: just above its top, or
/// just below its bottom.
pub fn guard_hit(addr: u64) -> Option<Guard> {
    let page = page_size() as u64;
    STACK
        .try_with(|s| {
            let st = s.get()?.as_ref()?;
            let top = st.top();
            let bottom = st.base as u64 + page;
            if (top..top + page).contains(&addr) {
                Some(Guard::AboveTop)
            } else if (bottom - page..bottom).contains(&addr) {
                Some(Guard::BelowBottom)
            } else {
                None
            }
        })
        .ok()
        .flatten()
}

/// Which of the hook stack's guard pages a fault hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    AboveTop,
    BelowBottom,
}
