//! A counting global allocator for the test binaries that measure peak heap
//! use (`mod peak;`): process-wide counters, so one measurement at a time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use hscc_sim::Estimated as _;

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every request goes to the system allocator unchanged; the counters
// are atomics and never allocate.
#[allow(unsafe_code, reason = "GlobalAlloc is an unsafe trait")]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        PEAK.fetch_max(NOW.fetch_add(l.size(), Relaxed) + l.size(), Relaxed);
        // SAFETY: the caller's contract for `alloc`, passed on.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
        // SAFETY: `p` came from `alloc` above, that is from `System`, with `l`.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

/// Start a measurement: the peak is reset to the heap in use now, which is returned.
pub fn start() -> usize {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    base
}

/// Peak heap bytes above `base` (from [`start`]) since that start.
pub fn since(base: usize) -> usize {
    PEAK.load(Relaxed) - base
}

/// Each named run's estimate against what it measured: peak heap over
/// building its configuration, the run and the JSON results within 0.5× to
/// 3× of the memory estimate, events within 0.3× to 3× (docs/performance.md).
/// Panics with the report of every run so far; prints it on success.
#[allow(
    dead_code,
    reason = "not every binary that counts allocations checks estimates"
)]
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
