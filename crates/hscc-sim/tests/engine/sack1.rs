//! ns-2.35's Sack1 recovery (`recovery = "sack1"`) driven by hand: the pipe
//! counted down by one per ACK, holes retransmitted in order, the exit at
//! `recover_`, and the RTO when a large loss leaves too few ACKs; each
//! expectation is computed from tcp/tcp-sack1.cc's rules (see `sack1.rs`).

use hscc_cc::CaState;
use hscc_sim::config::{FlowConfig, Recovery};
use hscc_sim::packet::Packet;
use hscc_sim::tcp::Sender;
use hscc_sim::testing::{ack, classic, dropping, started, Capture, ScriptedPath};
use hscc_sim::time::MS;

/// Reno with duplicate-ACK detection, `recovery`, and 20 segments sent at once.
fn window_of_20(recovery: Recovery) -> FlowConfig {
    FlowConfig {
        recovery,
        init_cwnd: 20,
        ..classic()
    }
}

fn seqs(sent: &[Packet]) -> Vec<(u64, bool)> {
    sent.iter().map(|p| (p.seq, p.is_retrans())).collect()
}

/// Segments 0..5 of 0..20 are lost: the three duplicate ACKs of 5, 6 and 7.
/// The first two send 20 and 21 (SACKed data leaves the window), the third
/// enters recovery and retransmits 0.
fn five_lost_of_20(recovery: Recovery) -> (Sender, Capture) {
    let (mut s, mut w) = started::<Capture>(&window_of_20(recovery));
    w.sent.clear();
    w.now = 100 * MS;
    for top in 6..=8 {
        s.on_ack(&ack(0, &[(5, top)]), &mut w);
    }
    (s, w)
}

#[test]
fn the_pipe_starts_at_the_segments_outstanding_less_three_and_falls_by_one_per_ack() {
    let (mut s, mut w) = five_lost_of_20(Recovery::Sack1);
    // Entry: pipe = 22 outstanding - 3 = 19; Reno's ssthresh = 20 / 2 = 10 = cwnd.
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!((s.tp.snd_ssthresh, s.tp.snd_cwnd), (10, 10));
    assert_eq!(seqs(&w.sent), vec![(20, false), (21, false), (0, true)]);
    w.sent.clear();
    // The duplicate ACKs of 8..21, the j-th leaving pipe = 19 - j: the first
    // 9 send nothing (pipe 18..10 >= cwnd 10); from the 10th each brings the
    // pipe to 9 and sends one segment, back to 10: holes 1..4 in order, then
    // new data (no hole left below the highest SACK).
    for j in 1..=14u64 {
        s.on_ack(&ack(0, &[(5, 8 + j)]), &mut w);
        let expect: Vec<(u64, bool)> = match j {
            1..=9 => vec![],
            10..=13 => vec![(j - 9, true)],
            _ => vec![(22, false)],
        };
        assert_eq!(seqs(&w.sent), expect, "duplicate ACK {j}");
        w.sent.clear();
    }
    // Partial ACKs (the retransmissions of 0..3 arriving): the pipe falls by
    // two, 10 -> 8, and two new segments go out each time.
    for una in 1..=4u64 {
        s.on_ack(&ack(una, &[(5, 22)]), &mut w);
        assert_eq!(s.tp.ca_state, CaState::Recovery);
        let next = 23 + 2 * (una - 1);
        assert_eq!(seqs(&w.sent), vec![(next, false), (next + 1, false)]);
        w.sent.clear();
    }
    // 4's retransmission arrives: 22 = snd_nxt at entry (recover_) is
    // acknowledged, recovery ends with cwnd = ssthresh = 10; 22..31 are out
    // (9 < 10), so one more segment goes.
    s.on_ack(&ack(22, &[]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!(s.tp.snd_cwnd, 10);
    assert_eq!(seqs(&w.sent), vec![(31, false)]);
    assert_eq!((s.counters.retrans, s.counters.timeouts), (5, 0));
    s.check_scoreboard().unwrap();
}

#[test]
fn rfc6675s_pipe_drops_by_the_lost_segments_and_sends_four_acks_earlier() {
    // The same losses with classic recovery: in flight at entry = 22 - 3
    // SACKed - 5 lost + 1 retransmitted = 15, so the 6th duplicate ACK already
    // sends, where Sack1's pipe (19) waits for the 10th.
    let (mut s, mut w) = five_lost_of_20(Recovery::Classic);
    w.sent.clear();
    let mut first = None;
    for j in 1..=14u64 {
        s.on_ack(&ack(0, &[(5, 8 + j)]), &mut w);
        if first.is_none() && !w.sent.is_empty() {
            first = Some(j);
        }
    }
    assert_eq!(first, Some(6));
}

/// 0..12 of the first 20 segments are lost; everything else crosses the
/// path (50 ms each way).
fn twelve_lost_of_20(recovery: Recovery) -> ScriptedPath {
    const LOST: [(u64, u32); 12] = {
        let mut l = [(0, 0); 12];
        let mut i = 0;
        while i < 12 {
            l[i] = (i as u64, 0);
            i += 1;
        }
        l
    };
    let mut run = ScriptedPath::new(window_of_20(recovery), dropping(&LOST));
    run.run_until(1_000 * MS);
    run
}

#[test]
fn when_most_of_the_window_is_lost_the_acks_run_out_and_the_rto_fires() {
    let run = twelve_lost_of_20(Recovery::Sack1);
    // At 100 ms the ACKs of 12..19 arrive: 20 and 21 go out, the third enters
    // recovery (pipe 22 - 3 = 19, cwnd 10) and retransmits 0; the other five
    // leave pipe 14. At 200 ms the duplicate ACKs of 20 and 21 (pipe 12) and
    // the partial ACK of 0 (pipe 10) arrive: the pipe never falls below cwnd,
    // nothing more is sent, and no ACK is left to come.
    let before_rto: Vec<(u64, u64, bool)> = run
        .log
        .iter()
        .filter(|&&(t, _, _)| t <= 200 * MS)
        .map(|&(t, seq, re)| (t / MS, seq, re))
        .collect();
    let mut expect: Vec<(u64, u64, bool)> = (0..20).map(|seq| (0, seq, false)).collect();
    expect.extend([(100, 20, false), (100, 21, false), (100, 0, true)]);
    assert_eq!(before_rto, expect);
    // The RTO, restarted by the partial ACK at 200 ms: RTT samples of 100 ms
    // only, so SRTT + 4 RTTVAR < 200 ms = min_rto; it fires at 400 ms and
    // retransmits 1.
    let c = run.s.counters;
    assert_eq!((c.recoveries, c.timeouts), (1, 1), "{c:?}");
    assert_eq!(run.sends(1), vec![0, 400 * MS]);
}

#[test]
fn rfc6675s_pipe_repairs_the_same_loss_without_a_timeout_in_a_burst() {
    let run = twelve_lost_of_20(Recovery::Classic);
    // In flight at entry = 22 - 3 SACKed - 12 lost + 1 retransmitted = 8 < 10:
    // 1 and 2 leave with 0, the rest one per duplicate ACK.
    let at_100: Vec<(u64, bool)> = run
        .log
        .iter()
        .filter(|&&(t, _, _)| t == 100 * MS)
        .map(|&(_, seq, re)| (seq, re))
        .collect();
    assert_eq!(
        at_100[..5],
        [(20, false), (21, false), (0, true), (1, true), (2, true)]
    );
    assert_eq!(run.s.counters.timeouts, 0);
}
