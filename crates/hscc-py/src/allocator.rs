//! The extension's allocator, mimalloc, and the one call into it beyond allocating.
//!
//! A run's network (packets, scoreboards, flow state) is freed when the run ends, just
//! before the run directory's files are made. mimalloc keeps freed pages for later reuse
//! and hands them back to the system only on later allocator activity of the same
//! thread, so the files, made largely by Python's own allocator, would otherwise stack
//! on memory the process no longer uses: the peak then depended on timing (up to 1.4×
//! from one run to the next). Handing the pages back at the end of the run makes the
//! whole process's peak the larger of the run's and the files', as the memory estimate
//! (`hscc_sim::estimate`) counts it; for runs of any size worth it
//! ([`KEEP_BELOW_BYTES`]).

#![allow(
    unsafe_code,
    reason = "FFI: mimalloc's mi_collect, the one allocator call with no safe wrapper"
)]

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Linked with the `mimalloc` crate's library (libmimalloc-sys builds all of mimalloc;
// its `extended` feature only declares this function, at the price of a new dependency).
extern "C" {
    fn mi_collect(force: bool);
}

/// Runs estimated to need less keep what they free: a sweep's next run reuses those
/// pages, where handing them back costs a one-second two-flow run about half its time
/// in page faults (1.1 → 1.7 ms), and the peak can pass the estimate by this much at most.
pub(crate) const KEEP_BELOW_BYTES: u64 = 64 << 20;

/// Hand the memory this thread freed back to the system now.
pub(crate) fn return_freed_memory() {
    // SAFETY: mi_collect takes no pointers and may be called at any time from any
    // thread; it only returns free pages of mimalloc's own heaps to the system.
    unsafe { mi_collect(true) }
}
