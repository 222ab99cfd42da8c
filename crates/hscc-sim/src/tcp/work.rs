//! A test-only tally of the entries the TCP model steps over (scoreboard
//! slots, out-of-order intervals, a B-tree lookup counted as ⌈log2(n+1)⌉),
//! so a test can check that the work per packet does not grow with the window
//! without timing anything. Outside `cfg(test)` it compiles to nothing.

#[cfg(test)]
thread_local! {
    static STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Count `n` entries stepped over.
#[inline(always)]
pub(crate) fn step(n: u64) {
    #[cfg(test)]
    STEPS.with(|s| s.set(s.get() + n));
    #[cfg(not(test))]
    let _ = n;
}

/// The entries counted on this thread since the last call.
#[cfg(test)]
pub(crate) fn take() -> u64 {
    STEPS.with(|s| s.replace(0))
}

#[cfg(test)]
mod tests {
    use hscc_cc::CcParams;

    use crate::config::{Buffer, FlowConfig, LinkConfig, SimConfig};
    use crate::sim::Sim;
    use crate::time::{MS, SEC};
    use crate::topology::{dumbbell, AccessSpec};

    /// Entries stepped over per event when a window of `w` segments loses
    /// every other segment at once (the `loss_burst` benchmark's scenario).
    fn steps_per_event(w: u64, sack: bool) -> f64 {
        let bottleneck = LinkConfig::new(10_000_000_000, MS, Buffer::Packets(100));
        let db = dumbbell(
            bottleneck.clone(),
            bottleneck,
            &[AccessSpec::new(20_000_000_000, 99 * MS)],
        );
        let (s, d) = db.pairs[0];
        let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
        f.sack = sack;
        f.init_cwnd = w as u32;
        f.rwnd = Some(w * f.mss as u64);
        let cfg = SimConfig {
            topology: db.topology,
            flows: vec![f],
            duration: 2 * SEC,
            ..SimConfig::default()
        };
        super::take();
        let r = Sim::new(cfg).unwrap().run();
        assert!(
            r.links[0].counters.drops_queue >= w / 3,
            "the burst happened"
        );
        super::take() as f64 / r.events as f64
    }

    /// At most log2(W) entries per event: less than one binary search over the
    /// window. With the out-of-order data in a sorted list it was 78 (SACK) and
    /// 314 (NewReno) at W = 1k, 23 506 and 25 753 at 80k; now 0.5 to 2.5.
    #[test]
    fn loss_burst_work_per_event_is_logarithmic_in_the_window() {
        for sack in [true, false] {
            for w in [1_000, 80_000] {
                let bound = (w as f64).log2();
                let got = steps_per_event(w, sack);
                assert!(
                    got <= bound,
                    "sack {sack}, W = {w}: {got:.1} entries per event, bound {bound:.1}"
                );
            }
        }
    }
}
