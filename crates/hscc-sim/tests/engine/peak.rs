//! A counting global allocator for the tests that measure peak heap use. The
//! counters are per thread, so the tests that run beside each other in this
//! binary (cargo test's threads) do not count each other's allocations; an
//! engine runs on its test's thread. A block freed on another thread than the
//! one that allocated it moves both threads' counts, which are signed for that.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use hscc_sim::Estimated as _;

struct Counting;

thread_local! {
    // Constant-initialized, without a destructor: using them never allocates.
    static NOW: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: every request goes to the system allocator unchanged; the counters
// never allocate.
#[allow(unsafe_code, reason = "GlobalAlloc is an unsafe trait")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = NOW.get().wrapping_add(l.size() as isize);
        NOW.set(now);
        PEAK.set(PEAK.get().max(now));
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.set(NOW.get().wrapping_sub(l.size() as isize));
        // SAFETY: `p` came from `alloc` above, that is from `System`, with `l`.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Start a measurement on this thread: the peak is reset to the heap it holds
/// now, which is returned.
pub fn start() -> isize {
    let base = NOW.get();
    PEAK.set(base);
    base
}

/// Peak heap bytes above `base` (from [`start`]) on this thread since that start.
pub fn since(base: isize) -> usize {
    (PEAK.get() - base) as usize
}

/// Each named run's estimate against what it measured: peak heap over
/// building its configuration, the run and the JSON results within 0.5× to
/// 3× of the memory estimate, events within 0.3× to 3× (docs/performance.md).
/// Panics with the report of every run so far; prints it on success.
pub fn check_estimates(
    runs: impl IntoIterator<Item = (&'static str, fn() -> hscc_sim::SimConfig)>,
) {
    let mut report = String::new();
    for (name, config) in runs {
        let est = config().estimate();
        let base = start();
        let r = hscc_sim::Sim::new(config()).unwrap().run();
        let out = r.to_json();
        let peak = since(base) as u64;
        drop(out);
        let ratio = est.memory_bytes as f64 / peak as f64;
        let ev_ratio = est.events as f64 / r.events as f64;
        report += &format!(
            "{name}: memory estimate {} B, measured peak {peak} B ({ratio:.2}×); events estimate {}, run {} ({ev_ratio:.2}×)\n",
            est.memory_bytes, est.events, r.events
        );
        assert!((0.5..=3.0).contains(&ratio), "{report}");
        assert!((0.3..=3.0).contains(&ev_ratio), "{report}");
    }
    eprintln!("{report}");
}
