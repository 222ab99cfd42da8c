//! Folded hops (`link/fold.rs`): which links fold, and that a run gives the
//! same results with its hops folded as with every hop on its own, one
//! event fewer for each packet that crossed a folded hop. The flows have
//! hscc's default host jitter: without it, events can fall on the same
//! picosecond, whose order folding may change (docs/architecture.md, "Links").

use hscc_sim::prelude::*;
use proptest::prelude::*;

use hscc_cc::testing::proptest_cases;

use crate::reno_pairs::{reno, reno_pairs};

/// `cfg` run with its hops folded (as built) and with every hop on its own:
/// the results must be the same but for the events, fewer by one for each
/// packet that crossed a folded hop's feeding link on its way to that hop
/// (they all reached the hop's end, or are on its way there). The folds.
fn same_both_ways(cfg: SimConfig) -> Vec<(u32, u32)> {
    let folded = Sim::new(cfg.clone()).unwrap();
    let folds = folded.net.folds.clone();
    let mut a = folded.run();
    let mut plain = Sim::new(cfg).unwrap();
    plain.net.unfold();
    assert!(plain.net.folds.is_empty());
    let end = plain.cfg.duration;
    plain.run_until(end);
    // Packets on a folded hop at the end crossed its feeding link: one event each.
    let on_hops: u64 = folds
        .iter()
        .map(|&(_, h)| plain.net.links[h as usize].in_flight() as u64)
        .sum();
    let b = plain.finish();
    let crossed: u64 = folds
        .iter()
        .map(|&(_, h)| b.links[h as usize].counters.tx_packets)
        .sum::<u64>()
        + on_hops;
    assert_eq!(b.events - a.events, crossed, "one event fewer per packet");
    a.events = b.events;
    assert_eq!(a.to_json(), b.to_json());
    folds
}

#[test]
fn a_one_pair_dumbbell_folds_the_hops_behind_both_bottlenecks() {
    // Links: 0 L→R, 1 R→L, 2 s0→L, 3 L→s0, 4 R→d0, 5 d0→R. Only the
    // bottleneck feeds the receiver's access link (data) and the sender's (ACKs).
    let folds = same_both_ways(reno_pairs(8, 1, 8 * US, 100));
    assert_eq!(folds, [(0, 4), (1, 3)]);
}

#[test]
fn each_receivers_access_link_folds_into_the_bottleneck() {
    // Links: 0 L→R, 1 R→L, then s0→L, L→s0, R→d0, d0→R and the same for pair 1.
    let bn = || LinkConfig::new(50_000_000, MS, Buffer::Packets(60));
    let db = dumbbell(
        bn(),
        bn(),
        &[
            AccessSpec::new(1_000_000_000, 9 * MS),
            AccessSpec::new(1_000_000_000, 29 * MS),
        ],
    );
    let flows = db
        .pairs
        .iter()
        .map(|&(s, d)| FlowConfig::bulk(s, d, reno()))
        .collect();
    let cfg = SimConfig {
        topology: db.topology,
        flows,
        duration: 2 * SEC,
        sample_interval: Some(50 * MS),
        ..SimConfig::default()
    };
    assert_eq!(same_both_ways(cfg), [(0, 4), (0, 8), (1, 3), (1, 7)]);
}

#[test]
fn links_web_transfers_cross_are_not_folded() {
    // Reno flows and web transfers on one host pair: a reused slot's stale
    // packets leave at the first link end they reach, which folding would hide.
    let mut cfg = reno_pairs(2, 1, 8 * US, 100);
    let (s, d) = (cfg.flows[0].src, cfg.flows[0].dst);
    cfg.web.push(WebConfig {
        servers: vec![s],
        clients: vec![d],
        rate: 50.0,
        size: SizeDist::Fixed(20_000),
        tcp: cfg.flows[0].clone(),
        start: 0,
        stop: None,
        model: WebModel::Transfers,
    });
    assert_eq!(same_both_ways(cfg), []);
}

#[test]
fn web_transfers_on_another_pair_leave_the_long_flows_hops_folded() {
    // Links: 0 L→R, 1 R→L, then s0→L, L→s0, R→d0, d0→R and the same for
    // pair 1. Reno flows on pair 0, web transfers on pair 1: the bottlenecks
    // carry both and still feed pair 0's hops; pair 1's hops stay on their own.
    let bn = || LinkConfig::new(100_000_000, MS, Buffer::Packets(100));
    let access = AccessSpec::new(1_000_000_000, 19 * MS);
    let db = dumbbell(bn(), bn(), &[access.clone(), access]);
    let ((s0, d0), (s1, d1)) = (db.pairs[0], db.pairs[1]);
    let mut flow = FlowConfig::bulk(s0, d0, reno());
    flow.host_jitter = 8 * US;
    let web = WebConfig {
        servers: vec![s1],
        clients: vec![d1],
        rate: 50.0,
        size: SizeDist::Fixed(20_000),
        tcp: flow.clone(),
        start: 0,
        stop: None,
        model: WebModel::Transfers,
    };
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![flow.clone(), flow],
        web: vec![web],
        duration: 3 * SEC,
        seed: 5,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    };
    assert_eq!(same_both_ways(cfg), [(0, 4), (1, 3)]);
}

/// Hosts a → b → c, a line of two duplex links at rates `r1` then `r2`
/// (buffers `buf1`, `buf2` packets), a Reno flow a → c and a UDP flow a → c
/// of `udp_size`-byte datagrams.
fn line(r1: u64, r2: u64, buf1: u64, buf2: u64, udp_size: u32, seed: u64) -> SimConfig {
    let mut t = Topology::default();
    let [a, b, c] = ["a", "b", "c"].map(|n| t.add_node(n));
    let l1 = LinkConfig::new(r1, 3 * MS, Buffer::Packets(buf1));
    let l2 = LinkConfig::new(r2, 2 * MS, Buffer::Packets(buf2));
    t.add_duplex("ab", a, b, l1.clone(), l1, false);
    t.add_duplex("bc", b, c, l2.clone(), l2, false);
    let udp = UdpConfig {
        src: a,
        dst: c,
        pattern: UdpPattern::Cbr { rate_bps: r1 / 5 },
        packet_size: udp_size,
        start: 100 * MS,
        stop: None,
    };
    SimConfig {
        topology: t,
        flows: vec![FlowConfig::bulk(a, c, reno())],
        udp: vec![udp],
        duration: 2 * SEC,
        seed,
        ..SimConfig::default()
    }
}

#[test]
fn a_folded_hop_that_queues_behind_large_packets_keeps_every_time() {
    // Equal rates: a 60-byte datagram right behind a 1500-byte segment reaches
    // b while the segment is still being sent on: it waits there.
    let cfg = line(20_000_000, 20_000_000, 30, 40, 60, 1);
    // Forward a→b, b→c: 0, 2; back c→b, b→a: 3, 1.
    assert_eq!(same_both_ways(cfg), [(0, 2), (3, 1)]);
}

#[test]
fn a_hop_that_could_drop_or_is_slower_is_not_folded() {
    // 1500 / 52 + 2 = 30 packets: b → c's 29 might refuse one, a → b's 30 cannot.
    let cfg = line(20_000_000, 20_000_000, 30, 29, 52, 1);
    assert_eq!(same_both_ways(cfg), [(3, 1)]);
    // The slower of the two hops is never folded into the faster.
    let cfg = line(20_000_000, 10_000_000, 30, 1000, 100, 1);
    assert_eq!(same_both_ways(cfg), [(3, 1)]);
    let cfg = line(10_000_000, 20_000_000, 30, 1000, 100, 1);
    assert_eq!(same_both_ways(cfg), [(0, 2)]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(proptest_cases(24)))]

    /// Whatever folds, the results are those of the hops on their own.
    #[test]
    fn folding_changes_no_result(
        r1 in 1_000_000u64..40_000_000,
        faster in 1.0f64..3.0,
        buf1 in 2u64..80,
        buf2 in 20u64..200,
        udp_size in 40u32..1500,
        seed in any::<u64>(),
    ) {
        let r2 = (r1 as f64 * faster) as u64;
        same_both_ways(line(r1, r2, buf1, buf2, udp_size, seed));
    }
}
