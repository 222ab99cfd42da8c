//! The estimate against reality for the link options and web sessions
//! (docs/links-and-web.md): peak heap use measured by the counting
//! allocator must fall within 0.5× to 3× of the estimate, events within 0.3×
//! to 3×, as `estimate.rs` requires of the other scenarios.

use crate::peak;

use hscc_sim::prelude::*;

/// Web sessions (PackMime sizes, 9 % persistent) both ways over 100 Mbit/s, plus 4 long flows.
fn sessions() -> SimConfig {
    let bn = LinkConfig::new(100_000_000, 10 * MS, Buffer::Packets(500));
    let db = dumbbell(
        bn.clone(),
        bn,
        &[
            AccessSpec::new(1_000_000_000, 5 * MS),
            AccessSpec::new(1_000_000_000, 10 * MS),
            AccessSpec::new(1_000_000_000, 20 * MS),
        ],
    );
    let tcp = FlowConfig::bulk(0, 1, CcParams::from_name("reno").unwrap());
    let model = WebModel::Sessions(Sessions {
        persistent: 0.09,
        ..Sessions::default()
    });
    let forward = WebConfig {
        servers: vec![db.pairs[1].0, db.pairs[2].0],
        clients: vec![db.pairs[1].1, db.pairs[2].1],
        rate: 300.0,
        size: SizeDist::PackmimeResponse,
        tcp,
        start: 0,
        stop: None,
        model,
    };
    let mut reverse = forward.clone();
    (reverse.servers, reverse.clients, reverse.rate) =
        (forward.clients.clone(), forward.servers.clone(), 100.0);
    let (s, d) = db.pairs[0];
    let flows = (0..4)
        .map(|_| FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap()))
        .collect();
    SimConfig {
        topology: db.topology,
        flows,
        web: vec![forward, reverse],
        duration: 20 * SEC,
        ..SimConfig::default()
    }
}

/// 1 Gbit/s with 50 ms ± 5 ms of reordering jitter, after-queue loss and
/// Ethernet framing, carrying 400 Mbit/s of UDP (2500 datagrams propagating).
/// (TCP over such a link collapses, its fast retransmits all spurious: the
/// fair-share model overestimates what it sends.)
fn reordering() -> SimConfig {
    let mut bn = LinkConfig::new(1_000_000_000, 50 * MS, Buffer::Packets(4000)).with_loss(1e-5);
    (bn.jitter, bn.jitter_reorders, bn.loss_point, bn.framing) =
        (5 * MS, true, LossPoint::AfterQueue, 38);
    let rev = LinkConfig::new(1_000_000_000, 50 * MS, Buffer::Packets(4000));
    let db = dumbbell(bn, rev, &[AccessSpec::new(10_000_000_000, MS)]);
    let (s, d) = db.pairs[0];
    let udp = (0..2)
        .map(|_| UdpConfig {
            src: s,
            dst: d,
            pattern: UdpPattern::Cbr {
                rate_bps: 200_000_000,
            },
            packet_size: 1000,
            start: 0,
            stop: None,
        })
        .collect();
    SimConfig {
        topology: db.topology,
        udp,
        duration: 10 * SEC,
        ..SimConfig::default()
    }
}

/// A Dummynet-like 100 Mbit/s bottleneck served every ms (HZ = 1000), 4 CUBIC flows.
fn ticks() -> SimConfig {
    let mut bn = LinkConfig::new(100_000_000, 10 * MS, Buffer::Packets(1000));
    bn.tick = MS;
    let db = dumbbell(bn.clone(), bn, &[AccessSpec::new(1_000_000_000, 20 * MS)]);
    let (s, d) = db.pairs[0];
    let flows = (0..4)
        .map(|_| FlowConfig::bulk(s, d, CcParams::from_name("cubic").unwrap()))
        .collect();
    SimConfig {
        topology: db.topology,
        flows,
        duration: 20 * SEC,
        sample_interval: Some(100 * MS),
        ..SimConfig::default()
    }
}

#[test]
fn the_estimate_covers_sessions_reordering_and_ticks() {
    // One test: the allocator's counters are process-wide.
    peak::check_estimates([
        ("sessions", sessions as fn() -> SimConfig),
        ("reordering", reordering),
        ("ticks", ticks),
    ]);
}
