//! Linux ≤ 3.1's rate halving (`recovery = "rate_halving"`, tcp_input.c
//! `tcp_cwnd_down` and `tcp_complete_cwr`) driven by hand: cwnd one lower
//! every second ACK down to the floor, never above the segments in flight + 1,
//! min(cwnd, ssthresh) at the end. Each expectation is counted from those rules.

use hscc_cc::CaState;
use hscc_sim::config::{AckCounting, FlowConfig, Recovery, ReductionFloor};
use hscc_sim::packet::Packet;
use hscc_sim::tcp::Sender;
use hscc_sim::testing::{ack, classic, started, Capture};
use hscc_sim::time::MS;

fn seqs(sent: &[Packet]) -> Vec<(u64, bool)> {
    sent.iter().map(|p| (p.seq, p.is_retrans())).collect()
}

/// Reno (ssthresh 10 after a loss at cwnd 20, growth per ACK) with
/// duplicate-ACK detection and rate halving down to `floor`. Segments 0..5 of 0..20 are lost; the
/// third duplicate ACK marks them lost and enters recovery.
fn five_lost_of_20(floor: ReductionFloor) -> (Sender, Capture) {
    let cfg = FlowConfig {
        recovery: Recovery::RateHalving,
        reduction_floor: floor,
        init_cwnd: 20,
        ack_counting: AckCounting::Acks,
        ..classic()
    };
    let (mut s, mut w) = started::<Capture>(&cfg);
    w.sent.clear();
    w.now = 100 * MS;
    for top in 6..=8 {
        s.on_ack(&ack(0, &[(5, top)]), &mut w);
    }
    (s, w)
}

/// The 14 duplicate ACKs of 8..21 that follow, and what each one sent.
fn fourteen_dupacks(s: &mut Sender, w: &mut Capture) -> Vec<Vec<(u64, bool)>> {
    (1..=14u64)
        .map(|j| {
            w.sent.clear();
            s.on_ack(&ack(0, &[(5, 8 + j)]), w);
            seqs(&w.sent)
        })
        .collect()
}

#[test]
fn entry_leaves_cwnd_to_the_flight_clamp_and_retransmits_one() {
    let (s, w) = five_lost_of_20(ReductionFloor::Ssthresh);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    // 22 out, 3 SACKed, 5 lost: 14 in flight, so cwnd = min(20, 14 + 1) = 15,
    // room for the retransmission of 0 alone. No decrement on this first ACK.
    assert_eq!(s.tp.snd_ssthresh, 10);
    assert_eq!(s.tp.snd_cwnd, 15);
    assert_eq!(seqs(&w.sent), vec![(20, false), (21, false), (0, true)]);
}

#[test]
fn one_segment_per_two_acks_until_the_floor_then_one_per_ack() {
    let (mut s, mut w) = five_lost_of_20(ReductionFloor::Ssthresh);
    let sent = fourteen_dupacks(&mut s, &mut w);
    // Odd ACKs take one off cwnd (15 → 10 by the 9th) and send nothing; even
    // ACKs send one: holes 1..4, then new data 22. From the 11th, cwnd sits
    // at ssthresh = 10 and each ACK sends one (23..26).
    let expect: Vec<Vec<(u64, bool)>> = vec![
        vec![],
        vec![(1, true)],
        vec![],
        vec![(2, true)],
        vec![],
        vec![(3, true)],
        vec![],
        vec![(4, true)],
        vec![],
        vec![(22, false)],
        vec![(23, false)],
        vec![(24, false)],
        vec![(25, false)],
        vec![(26, false)],
    ];
    assert_eq!(sent, expect);
    assert_eq!(s.tp.snd_cwnd, 10);
    // The repairs arrive: recovery ends at min(cwnd, ssthresh) = 10.
    w.now = 200 * MS;
    s.on_ack(&ack(22, &[]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Open);
    assert_eq!(s.tp.snd_cwnd, 10);
}

#[test]
fn half_ssthresh_lets_the_window_fall_below_ssthresh_and_slow_start_back() {
    let (mut s, mut w) = five_lost_of_20(ReductionFloor::HalfSsthresh);
    let sent = fourteen_dupacks(&mut s, &mut w);
    // As above to the 10th ACK; then odd ACKs keep taking one off (9, 8),
    // so only even ACKs send: 23 and 24.
    let after_ten: Vec<Vec<(u64, bool)>> = sent[10..].to_vec();
    assert_eq!(
        after_ten,
        vec![vec![], vec![(23, false)], vec![], vec![(24, false)]]
    );
    assert_eq!(s.tp.snd_cwnd, 8);
    w.now = 200 * MS;
    s.on_ack(&ack(22, &[]), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Open);
    // min(8, 10) = 8, below ssthresh: the same ACK's slow start adds one.
    assert_eq!((s.tp.snd_cwnd, s.tp.snd_ssthresh), (9, 10));
    assert!(s.tp.in_slow_start());
}
