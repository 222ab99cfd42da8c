//! A counting global allocator for the test binaries that measure peak heap
//! use (`mod peak;`): process-wide counters, so one measurement at a time.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        PEAK.fetch_max(NOW.fetch_add(l.size(), Relaxed) + l.size(), Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        NOW.fetch_sub(l.size(), Relaxed);
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
