//! The TCP sender driven by hand: scripted ACKs, hand-computed expectations.

use hscc_cc::CaState;
use hscc_sim::config::Recovery;
use hscc_sim::event::Event;
use hscc_sim::packet::Packet;
use hscc_sim::tcp::Sender;
use hscc_sim::testing::{ack, classic, flow_rng, reno, started, Capture};
use hscc_sim::time::{Time, MS, SEC};

fn sender(sack: bool) -> (Sender, Capture) {
    // RFC 6675 / 6582 recovery as specified: these tests check its rules.
    let mut cfg = classic();
    cfg.sack = sack;
    cfg.recovery = Recovery::Classic;
    started(&cfg)
}

fn seqs(sent: &[Packet]) -> Vec<(u64, bool)> {
    sent.iter().map(|p| (p.seq, p.is_retrans())).collect()
}

#[test]
fn initial_window_is_sent_at_once_with_the_rto_armed_at_one_second() {
    let (s, w) = sender(true);
    assert_eq!(
        seqs(&w.sent),
        (0..10).map(|i| (i, false)).collect::<Vec<_>>()
    );
    assert_eq!(s.tp.packets_out, 10);
    assert_eq!(s.rto_timer.deadline, SEC);
}

#[test]
fn each_ack_in_slow_start_releases_two_segments_per_acked_segment() {
    let (mut s, mut w) = sender(true);
    w.sent.clear();
    w.now = 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    // cwnd 10 -> 11, in flight 9: segments 10 and 11 go out.
    assert_eq!(s.tp.snd_cwnd, 11);
    assert_eq!(seqs(&w.sent), vec![(10, false), (11, false)]);
    // The RTT sample is now - send time of segment 0 = 100 ms.
    assert_eq!(s.rtt.srtt(), 100 * MS);
    assert_eq!(s.tp.srtt_us >> 3, 100_000);
}

#[test]
fn sack_fast_retransmit_after_three_duplicate_acks() {
    let (mut s, mut w) = sender(true);
    w.now = 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w); // cwnd 11, snd_nxt 12
    w.sent.clear();
    // Segment 1 is lost; 2, 3, 4 arrive and are SACKed.
    s.on_ack(&ack(1, &[(2, 3)]), &mut w);
    s.on_ack(&ack(1, &[(2, 4)]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Disorder);
    assert_eq!(s.counters.recoveries, 0);
    s.on_ack(&ack(1, &[(2, 5)]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(s.counters.recoveries, 1);
    // Reno: ssthresh = cwnd/2 = 11/2 = 5; classic recovery sets cwnd = ssthresh.
    assert_eq!((s.tp.snd_ssthresh, s.tp.snd_cwnd), (5, 5));
    // SACKs shrank the pipe before recovery: each of the first two dupACKs
    // freed one slot (in flight 11 - 1 = 10 < 11), so 12 and 13 went out; then
    // the hole is retransmitted although the pipe (13 - 3 - 1 = 9) exceeds cwnd 5.
    assert_eq!(seqs(&w.sent), vec![(12, false), (13, false), (1, true)]);
    assert_eq!(s.counters.retrans, 1);
    // A full ACK ends recovery with cwnd = ssthresh.
    w.now = 200 * MS;
    let high = s.snd_nxt();
    s.on_ack(&ack(high, &[]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Open);
    s.check_scoreboard().unwrap();
}

#[test]
fn newreno_fast_retransmit_and_partial_ack() {
    let (mut s, mut w) = sender(false);
    w.now = 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w); // cwnd 11, snd_nxt 12
    w.sent.clear();
    for _ in 0..2 {
        s.on_ack(&ack(1, &[]), &mut w);
    }
    assert_eq!(s.counters.recoveries, 0);
    s.on_ack(&ack(1, &[]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(
        w.sent.iter().find(|p| p.is_retrans()).map(|p| p.seq),
        Some(1)
    );
    // Duplicate ACKs counted as SACKs let 12 and 13 out (Linux's Reno emulation).
    assert_eq!(seqs(&w.sent), vec![(12, false), (13, false), (1, true)]);
    // Partial ACK up to 5 (segment 5 also lost): NewReno retransmits 5 at once.
    w.sent.clear();
    s.on_ack(&ack(5, &[]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(
        w.sent.first().map(|p| (p.seq, p.is_retrans())),
        Some((5, true))
    );
    s.check_scoreboard().unwrap();
}

#[test]
fn rto_marks_the_window_lost_and_restarts_from_one_segment() {
    let (mut s, mut w) = sender(true);
    w.sent.clear();
    w.now = SEC;
    s.on_rto(&mut w);
    assert_eq!(s.tp.ca_state, CaState::Loss);
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (1, 5));
    assert_eq!(s.tp.lost_out, 10);
    assert_eq!(seqs(&w.sent), vec![(0, true)]);
    assert_eq!(s.counters.timeouts, 1);
    // Backoff: the next RTO is 2 s later.
    assert_eq!(s.rto_timer.deadline, 3 * SEC);
    // The retransmission is acked: slow start from 1 retransmits 1 and 2.
    w.sent.clear();
    w.now = SEC + 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    assert_eq!(s.tp.snd_cwnd, 2);
    assert_eq!(seqs(&w.sent), vec![(1, true), (2, true)]);
    s.check_scoreboard().unwrap();
}

#[test]
fn timers_are_scheduled_lazily() {
    let (mut s, mut w) = sender(true);
    // One RTO entry for the first window, at the initial RTO of 1 s.
    assert_eq!(w.q.len(), 1);
    // The first ACK (RTT 1 ms) brings the RTO down to min_rto: an earlier entry at 201 ms.
    w.now = MS;
    s.on_ack(&ack(1, &[]), &mut w);
    assert_eq!(w.q.len(), 2);
    // Re-arming later adds no entries.
    for i in 2..=5 {
        w.now = i * MS;
        s.on_ack(&ack(i, &[]), &mut w);
    }
    assert_eq!(w.q.len(), 2);
    assert_eq!(s.rto_timer.deadline, 205 * MS);
    // The 201 ms entry finds the deadline moved and re-schedules itself at 205 ms.
    let (t, ev) = w.q.pop().unwrap();
    assert_eq!((t, ev), (201 * MS, Event::Rto(0)));
    assert_eq!(
        s.rto_timer.fire(t, &mut w.q, ev),
        hscc_sim::event::Fire::Ignore
    );
    assert_eq!(w.q.pop(), Some((205 * MS, Event::Rto(0))));
}

#[test]
fn the_sender_obeys_a_pacing_rate_set_by_the_algorithm() {
    let mut cfg = reno();
    cfg.init_cwnd = 10;
    let mut s = Sender::new(0, &cfg, flow_rng(1, 0));
    // 1.5 MB/s: one 1500-byte packet per millisecond.
    s.tp.pacing_rate = 1_500_000;
    let mut w = Capture::default();
    s.start(&mut w);
    assert_eq!(w.sent.len(), 1);
    assert_eq!(s.pace_timer.deadline, MS);
    for k in 1..10u64 {
        w.now = k * MS;
        s.on_pace(&mut w);
        assert_eq!(w.sent.len() as u64, k + 1, "one packet per pacing interval");
    }
    // cwnd (10) now limits, not pacing.
    w.now = 10 * MS;
    s.on_pace(&mut w);
    assert_eq!(w.sent.len(), 10);
}

#[test]
fn linux_default_pacing_runs_at_twice_cwnd_per_srtt_in_slow_start() {
    let mut cfg = reno();
    cfg.pacing = true;
    let mut s = Sender::new(0, &cfg, flow_rng(1, 0));
    let mut w = Capture::default();
    s.start(&mut w); // no RTT sample yet: no pacing, the whole initial window goes out
    assert_eq!(w.sent.len(), 10);
    w.sent.clear();
    w.now = 100 * MS;
    s.on_ack(&ack(2, &[]), &mut w);
    // cwnd 12, srtt 100 ms: rate = 2 · 1448 · 12 / 0.1 s = 347 520 B/s, so a
    // 1500-byte packet every 1500 / 347 520 s = 4 316 206 896 ps.
    assert_eq!(w.sent.len(), 1);
    assert_eq!(s.pace_timer.deadline, 100 * MS + 1500 * SEC / 347_520);
}

// ------------------------------------------- a persistent connection's writes

/// A Reno sender of a finite first write of `bytes`, started at 0.
fn connection(bytes: u64) -> (Sender, Capture) {
    let mut cfg = reno();
    cfg.size = Some(bytes);
    started(&cfg)
}

/// Acknowledge everything sent, one segment per ACK, one round of 100 ms at
/// a time, until the sender is done; returns when it last sent.
fn drain(s: &mut Sender, w: &mut Capture) -> Time {
    let mut last_send = w.now;
    for _ in 0..100 {
        if s.done_at.is_some() {
            return last_send;
        }
        w.now += 100 * MS;
        let (sent_before, round_end) = (w.sent.len(), s.snd_nxt());
        for seq in s.snd_una() + 1..=round_end {
            s.on_ack(&ack(seq, &[]), w);
        }
        if w.sent.len() > sent_before {
            last_send = w.now;
        }
    }
    panic!("not done after 100 rounds");
}

#[test]
fn a_persistent_connection_carries_its_window_and_restarts_it_after_an_idle_rto() {
    // Write 1: 25 segments, the last 100 bytes. Slow start from 10: round 1
    // acknowledges 10 (cwnd 20) and sends the other 15; round 2 acknowledges
    // 15 (cwnd 35, Reno grows while cwnd < 2 · max_packets_out = 40).
    let (mut s, mut w) = connection(24 * 1448 + 100);
    let last = drain(&mut s, &mut w);
    assert_eq!((last, s.done_at), (100 * MS, Some(200 * MS)));
    assert_eq!(s.tp.snd_cwnd, 35);
    assert_eq!(w.sent[24].size, 100 + 52, "the write's short last segment");
    let rto = s.rtt.rto(0);
    assert!(rto >= 200 * MS, "{rto}");

    // Write 2, half an RTO after the last send: no restart, the 35 segments
    // of the window go at once (of 60), with the window the first write left.
    w.now = last + rto / 2;
    w.sent.clear();
    assert_eq!(s.append(60 * 1448, &mut w), 85);
    assert!(s.done_at.is_none());
    assert_eq!(s.tp.snd_cwnd, 35);
    assert_eq!(
        seqs(&w.sent),
        (25..60).map(|i| (i, false)).collect::<Vec<_>>()
    );
    assert!(w.sent.iter().all(|p| p.size == 1500));
    let last = drain(&mut s, &mut w);
    let c2 = s.tp.snd_cwnd;
    assert!(
        c2 > 35 && s.tp.snd_ssthresh == hscc_cc::TCP_INFINITE_SSTHRESH,
        "{c2}"
    );

    // As if an earlier reduction had set ssthresh to 20: Linux's restart
    // keeps max(ssthresh, 3/4 cwnd) (tcp_current_ssthresh).
    s.tp.snd_ssthresh = 20;
    // Write 3, 1.5 RTOs idle: cwnd halves once (RFC 5681 §4.1, Linux tcp_cwnd_restart).
    let rto = s.rtt.rto(0);
    w.now = last + rto * 3 / 2;
    w.sent.clear();
    s.append(500 * 1448, &mut w);
    assert_eq!(s.tp.snd_cwnd, c2 / 2);
    assert_eq!(s.tp.snd_ssthresh, (c2 >> 1) + (c2 >> 2));
    assert_eq!(w.sent.len() as u32, c2 / 2);
    let last = drain(&mut s, &mut w);

    // Write 4 after 10 s idle: back to the initial window, 10 segments;
    // ssthresh stays the larger of its value (slow start ended there) and 3/4 cwnd.
    let (c3, ssthresh) = (s.tp.snd_cwnd, s.tp.snd_ssthresh);
    assert!(c3 / 2 > 10 && c3 > ssthresh, "{c3}");
    w.now = last + 10 * SEC;
    w.sent.clear();
    s.append(30 * 1448, &mut w);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(s.tp.snd_ssthresh, ssthresh.max((c3 >> 1) + (c3 >> 2)));
    assert_eq!(w.sent.len(), 10);
    s.check_scoreboard().unwrap();
}

#[test]
fn an_earlier_writes_short_segment_keeps_its_size_when_retransmitted() {
    // Write 1: one full segment and 100 bytes; write 2 (3 segments) while
    // both are still in flight. The timeout retransmits from segment 0;
    // ACK 1 then releases 1 (100 bytes) and 2 (full).
    let (mut s, mut w) = connection(1448 + 100);
    w.now = 10 * MS;
    assert_eq!(s.append(3 * 1448, &mut w), 5);
    assert_eq!(
        w.sent.iter().map(|p| p.size).collect::<Vec<_>>(),
        vec![1500, 152, 1500, 1500, 1500]
    );
    w.sent.clear();
    w.now = SEC;
    s.on_rto(&mut w);
    w.now += 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    assert_eq!(seqs(&w.sent), vec![(0, true), (1, true), (2, true)]);
    assert_eq!(
        w.sent.iter().map(|p| p.size).collect::<Vec<_>>(),
        vec![1500, 152, 1500]
    );
    s.check_scoreboard().unwrap();
}
