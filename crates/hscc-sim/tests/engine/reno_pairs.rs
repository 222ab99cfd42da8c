//! The scenario the tests of folded hops and lazy host lines share: Reno
//! flows on the host pairs of a dumbbell.

use hscc_sim::prelude::*;

/// Reno's parameters.
pub fn reno() -> CcParams {
    CcParams::from_name("reno").unwrap()
}

/// `n` Reno flows on each of `pairs` host pairs of a dumbbell: 100 Mbit/s,
/// RTT 40 ms, a `buffer`-packet buffer, 1 Gbit/s access links, host jitter
/// `jitter`, sampled every 100 ms.
pub fn reno_pairs(n: usize, pairs: usize, jitter: Time, buffer: u64) -> SimConfig {
    let bn = || LinkConfig::new(100_000_000, MS, Buffer::Packets(buffer));
    let access = vec![AccessSpec::new(1_000_000_000, 19 * MS); pairs];
    let db = dumbbell(bn(), bn(), &access);
    let flows = db
        .pairs
        .iter()
        .flat_map(|&(s, d)| {
            (0..n).map(move |i| {
                let mut f = FlowConfig::bulk(s, d, reno());
                f.host_jitter = jitter;
                f.start = i as Time * 7 * MS;
                f
            })
        })
        .collect();
    SimConfig {
        topology: db.topology,
        flows,
        duration: 3 * SEC,
        seed: 5,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    }
}
