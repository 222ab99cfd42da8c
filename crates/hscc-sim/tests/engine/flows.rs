//! Flow-level features: receiver window, finite transfers, delayed-ACK timer, stop time.

use hscc_sim::prelude::*;

fn run_one(
    rtt_half: Time,
    rate: u64,
    edit: impl FnOnce(&mut FlowConfig),
    duration: Time,
) -> RunResult {
    let bn = LinkConfig::new(rate, MS, Buffer::Packets(10_000));
    let db = dumbbell(
        bn.clone(),
        bn,
        &[AccessSpec::new(10_000_000_000, rtt_half - MS)],
    );
    let (s, d) = db.pairs[0];
    let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
    edit(&mut f);
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![f],
        duration,
        seed: 1,
        sample_interval: None,
        ..SimConfig::default()
    };
    Sim::new(cfg).unwrap().run()
}

#[test]
fn a_64kb_receiver_window_caps_throughput_at_rwnd_per_rtt() {
    // floor(65536 / 1448) = 45 segments per 100 ms: 45·1448·8 / 0.1 = 5.2128 Mbit/s.
    let r = run_one(50 * MS, 1_000_000_000, |f| f.rwnd = Some(65_536), 60 * SEC);
    let g = r.flows[0].goodput_bps;
    assert!((g / 5.2128e6 - 1.0).abs() < 0.02, "goodput {g}");
    assert_eq!(r.flows[0].counters.retrans, 0);
}

#[test]
fn a_one_segment_transfer_waits_for_the_delayed_ack_timer() {
    // 1000 bytes: one segment; the receiver holds its ACK for 40 ms.
    let r = run_one(50 * MS, 1_000_000_000, |f| f.size = Some(1000), 2 * SEC);
    let f = &r.flows[0];
    let done = f.completion_s.expect("completed");
    // 100 ms of propagation + 40 ms delayed ACK + serialization (µs).
    assert!((done - 0.140).abs() < 0.0001, "completed at {done}");
    assert_eq!(f.counters.delivered_bytes, 1000);
    // Without delayed ACKs it completes one delayed-ACK timeout earlier.
    let r = run_one(
        50 * MS,
        1_000_000_000,
        |f| {
            f.size = Some(1000);
            f.delayed_ack = false;
        },
        2 * SEC,
    );
    assert!((r.flows[0].completion_s.unwrap() - 0.100).abs() < 0.0001);
}

#[test]
fn a_finite_transfer_delivers_exactly_its_size_in_slow_start_rounds() {
    // 1 MB = 691 segments (690 full + 1 of 1120 bytes). With IW 10 and doubling
    // per RTT, rounds carry 10, 20, 40, 80, 160, 320 (= 630) and the 7th the
    // remaining 61: an odd count, so the last segment's ACK waits for the 40 ms
    // delayed-ACK timer. Completion: 7 RTTs of 100 ms + 40 ms + serialization.
    let r = run_one(
        50 * MS,
        10_000_000_000,
        |f| {
            f.size = Some(1_000_000);
            f.start = 5 * SEC;
        },
        10 * SEC,
    );
    let f = &r.flows[0];
    assert_eq!(f.counters.delivered_bytes, 1_000_000);
    assert_eq!(f.counters.segs_sent, 691);
    let elapsed = f.completion_s.unwrap() - 5.0;
    assert!((0.740..0.745).contains(&elapsed), "took {elapsed}");
    assert!((f.goodput_bps - 8e6 / elapsed).abs() < 1.0);
}

#[test]
fn a_stopped_flow_sends_no_new_data_after_its_stop_time() {
    let bn = LinkConfig::new(10_000_000, MS, Buffer::Packets(100));
    let db = dumbbell(bn.clone(), bn, &[AccessSpec::new(1_000_000_000, 9 * MS)]);
    let (s, d) = db.pairs[0];
    let mut f = FlowConfig::bulk(s, d, CcParams::from_name("reno").unwrap());
    f.start = SEC;
    f.stop = Some(3 * SEC);
    let cfg = SimConfig {
        topology: db.topology,
        flows: vec![f],
        duration: 10 * SEC,
        seed: 1,
        sample_interval: None,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(cfg).unwrap();
    sim.run_until(3 * SEC);
    let new_at_stop = sim.flows[0].sender.snd_nxt();
    let r = sim.finish_after(10 * SEC);
    let f = &r.flows[0];
    // Everything sent before the stop is delivered (losses repaired), nothing new after it.
    assert_eq!(f.counters.delivered_segs, new_at_stop);
    let end = f.completion_s.expect("drained");
    assert!(end > 3.0 && end < 3.5, "drained at {end}");
    assert!((f.end_s - end).abs() < 1e-12);
    // 2 s at 10 Mbit/s carry at most 2·10e6/(1500·8) = 1667 packets, plus what the queue held.
    assert!(
        new_at_stop > 1500 && new_at_stop <= 1667 + 100,
        "{new_at_stop}"
    );
}
