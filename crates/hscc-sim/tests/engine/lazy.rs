//! Lazy host lines (`sim/lazy.rs`): which first links take their held
//! segments in lazily, and that a run gives the same results that way as
//! through the shared host line, with fewer events. The flows have host
//! jitter: without it, events can fall on the same picosecond, whose order
//! a lazy line may change.

use hscc_sim::config::DelayDist;
use hscc_sim::prelude::*;
use proptest::prelude::*;

use hscc_cc::testing::proptest_cases;

use crate::reno_pairs::reno_pairs;

/// `cfg` run with its lazy lines (as built) and through the shared host
/// line: the same results but for the events. Its lazy links, and the
/// events of each run.
fn both_ways(cfg: SimConfig) -> (Vec<u32>, u64, u64) {
    let lazy = Sim::new(cfg.clone()).unwrap();
    let links = lazy.lazy_links().to_vec();
    let mut a = lazy.run();
    let mut shared = Sim::new(cfg).unwrap();
    shared.unlazy();
    assert!(shared.lazy_links().is_empty());
    let b = shared.run();
    let events = (a.events, b.events);
    a.events = b.events;
    assert_eq!(a.to_json(), b.to_json());
    (links, events.0, events.1)
}

/// [`both_ways`], where host jitter makes the lazy lines save events (when
/// there are any). Its lazy links.
fn same_both_ways(cfg: SimConfig) -> Vec<u32> {
    let (links, lazy, shared) = both_ways(cfg);
    if links.is_empty() {
        assert_eq!(lazy, shared);
    } else {
        assert!(lazy < shared, "{lazy} events, not fewer than {shared}");
    }
    links
}

#[test]
fn flows_sharing_a_host_take_its_access_link_lazily() {
    // Links: 0 L→R, 1 R→L, then s→L, L→s, R→d, d→R for each pair.
    assert_eq!(same_both_ways(reno_pairs(8, 1, 8 * US, 100)), [2]);
    assert_eq!(same_both_ways(reno_pairs(3, 2, 8 * US, 30)), [2, 6]);
}

#[test]
fn a_link_one_flow_uses_or_that_carries_anything_else_is_not_lazy() {
    // One flow per pair: it offers its segments to its link directly.
    assert!(same_both_ways(reno_pairs(1, 2, 8 * US, 100)).is_empty());
    // ACKs of a flow the other way.
    let mut cfg = reno_pairs(2, 1, 8 * US, 100);
    let mut back = cfg.flows[0].clone();
    (back.src, back.dst) = (cfg.flows[0].dst, cfg.flows[0].src);
    cfg.flows.push(back);
    assert!(same_both_ways(cfg).is_empty());
    // A scheduled change of the link.
    let mut cfg = reno_pairs(2, 1, 8 * US, 100);
    cfg.changes.push(LinkChange {
        at: SEC,
        link: 2,
        rate_bps: Some(500_000_000),
        delay: None,
    });
    assert!(same_both_ways(cfg).is_empty());
}

#[test]
fn a_shared_access_link_that_drops_takes_its_segments_in_the_same_way() {
    // The hosts' 20 Mbit/s access link, with 4 packets of buffer and 20 %
    // random loss, is the bottleneck: segments taken in are dropped there,
    // sometimes every one while nothing is on the link, which leaves the
    // rest to the line's timer.
    let mut cfg = reno_pairs(4, 1, 30 * US, 100);
    let mut access = AccessSpec::new(20_000_000, 19 * MS);
    access.buffer = Buffer::Packets(4);
    let bn = || LinkConfig::new(100_000_000, MS, Buffer::Packets(100));
    cfg.topology = dumbbell(bn(), bn(), &[access]).topology;
    cfg.topology.links[2].cfg.loss = 0.2;
    let sim = Sim::new(cfg.clone()).unwrap();
    assert_eq!(sim.lazy_links(), [2]);
    let r = sim.run();
    let c = &r.links[2].counters;
    assert!(c.drops_queue > 5 && c.drops_random > 50, "{c:?}");
    assert_eq!(same_both_ways(cfg), [2]);
}

#[test]
fn without_host_timing_a_lazy_line_holds_nothing_and_saves_nothing() {
    let (links, lazy, shared) = both_ways(reno_pairs(4, 1, 0, 100));
    assert_eq!((links, lazy), (vec![2], shared));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

    /// Random flow counts, jitter, access delays, buffers and seeds: the
    /// same run lazily as through the shared line, and the same in steps
    /// (what is due by each step's end is on the links), packets conserved
    /// at every step.
    #[test]
    fn a_lazy_run_is_the_shared_lines_run_and_the_same_in_steps(
        n in 2usize..6,
        npairs in 1usize..3,
        jitter_us in 1u64..300,
        access_us in prop_oneof![Just(0u64), 0u64..5_000],
        buffer in 5u64..120,
        seed in any::<u64>(),
        steps in proptest::collection::vec(1u64..400, 1..12),
    ) {
        let mut cfg = reno_pairs(n, npairs, jitter_us * US, buffer);
        cfg.seed = seed;
        cfg.duration = 2 * SEC;
        for f in &mut cfg.flows {
            f.access_delay = DelayDist::Fixed(access_us * US);
        }
        let links = same_both_ways(cfg.clone());
        prop_assert_eq!(links.len(), npairs);
        let mut sim = Sim::new(cfg.clone()).unwrap();
        let mut t = 0;
        for ms in steps {
            t += ms * MS;
            sim.run_until(t);
            prop_assert!(sim.check_conservation().is_ok(), "{:?}", sim.check_conservation());
        }
        sim.run_until(cfg.duration);
        let stepped = sim.finish();
        prop_assert_eq!(stepped.to_json(), Sim::new(cfg).unwrap().run().to_json());
    }
}
