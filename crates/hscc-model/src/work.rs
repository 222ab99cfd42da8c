//! A test-only tally of the nodes and links routing steps over, so a test can
//! check how routing grows with the traffic without timing anything. Outside
//! `cfg(test)` it compiles to nothing.

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Count `n` nodes or links stepped over.
#[inline(always)]
pub(crate) fn step(n: u64) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n));
    #[cfg(not(test))]
    let _ = n;
}

/// The steps counted on this thread since the last call.
#[cfg(test)]
pub(crate) fn take() -> u64 {
    STEPS.with(|s| s.replace(0))
}
