//! The sender's reaction to ECN echoes, ACK by ACK (RFC 3168 §6.1.2, Linux
//! `tcp_enter_cwr`): one reduction per window, CWR on the next new segment,
//! the CWR state left once data above the reduction point is acknowledged.

use hscc_cc::CaState;
use hscc_sim::packet::{Packet, CWR, ECE, ECT};
use hscc_sim::tcp::Sender;
use hscc_sim::testing::{reno, started, Capture};
use hscc_sim::time::MS;
use hscc_sim::{FlowConfig, Recovery};

fn sender(ecn: bool, recovery: Recovery) -> (Sender, Capture) {
    let mut cfg = FlowConfig {
        ecn,
        recovery,
        ..reno()
    }
    .without_jitter();
    cfg.init_cwnd = 10;
    started(&cfg)
}

fn ack(seq: u64, ece: bool) -> Packet {
    let mut a = Packet::ack(0, seq, 52, 0, 0);
    a.flags = if ece { ECE } else { 0 };
    a
}

#[test]
fn one_reduction_per_window_then_cwr_on_the_next_new_segment() {
    let (mut s, mut w) = sender(true, Recovery::Prr);
    assert_eq!(w.sent.len(), 10);
    assert!(
        w.sent
            .iter()
            .all(|p| p.flags & ECT != 0 && p.flags & CWR == 0),
        "new data is ECT(0)"
    );
    w.now = 50 * MS;
    // An echo on the ACK of segment 0: Reno's ssthresh = max(10/2, 2) = 5, CWR state.
    s.on_ack(&ack(1, true), &mut w);
    assert_eq!(
        (s.tp.ca_state, s.tp.snd_ssthresh, s.counters.ecn_reductions),
        (CaState::Cwr, 5, 1)
    );
    // PRR: in flight 9 > ssthresh 5, so sndcnt = ⌈5·1/10⌉ − 0 = 1: one segment, with CWR.
    assert_eq!(w.sent.len(), 11);
    assert_eq!(w.sent[10].flags & (ECT | CWR), ECT | CWR);
    // More echoes in the same window change nothing; CWR is not repeated.
    for a in 2..=9 {
        s.on_ack(&ack(a, true), &mut w);
        assert_eq!(
            (s.tp.ca_state, s.tp.snd_ssthresh, s.counters.ecn_reductions),
            (CaState::Cwr, 5, 1)
        );
    }
    assert!(w.sent[11..].iter().all(|p| p.flags & CWR == 0));
    // PRR brought cwnd down to ssthresh over the window.
    assert_eq!(s.tp.snd_cwnd, 5);
    // The reduction point was snd_nxt = 10: ACKing 10 itself keeps CWR (the
    // receiver may not have seen CWR yet), ACKing past it ends the state.
    s.on_ack(&ack(10, false), &mut w);
    assert_eq!(s.tp.ca_state, CaState::Cwr);
    s.on_ack(&ack(11, false), &mut w);
    assert_eq!((s.tp.ca_state, s.tp.snd_cwnd), (CaState::Open, 5));
    // A new echo in the next window reduces again: ssthresh = max(5/2, 2) = 2.
    let una = s.snd_una();
    s.on_ack(&ack(una + 1, true), &mut w);
    assert_eq!(
        (s.tp.ca_state, s.tp.snd_ssthresh, s.counters.ecn_reductions),
        (CaState::Cwr, 2, 2)
    );
    s.check_scoreboard().unwrap();
}

#[test]
fn classic_reduction_sets_cwnd_to_ssthresh_at_once() {
    let (mut s, mut w) = sender(true, Recovery::Classic);
    w.now = 50 * MS;
    s.on_ack(&ack(1, true), &mut w);
    assert_eq!((s.tp.ca_state, s.tp.snd_cwnd), (CaState::Cwr, 5));
    // 9 in flight ≥ cwnd 5: nothing sent until the window drains.
    assert_eq!(w.sent.len(), 10);
}

#[test]
fn a_loss_during_cwr_enters_recovery_without_a_second_reduction() {
    let (mut s, mut w) = sender(true, Recovery::Prr);
    w.now = 50 * MS;
    s.on_ack(&ack(1, true), &mut w);
    assert_eq!(s.tp.snd_ssthresh, 5);
    // Segment 1 lost: SACKs of 2, 3, 4 make it lost (DupThresh 3).
    let mut a = ack(1, true);
    a.sack[0] = (1, 4);
    a.nsack = 1;
    s.on_ack(&a, &mut w);
    assert_eq!(
        (s.tp.ca_state, s.tp.snd_ssthresh, s.counters.recoveries),
        (CaState::Recovery, 5, 1)
    );
    s.check_scoreboard().unwrap();
    // The retransmission goes out Not-ECT (RFC 3168 §6.1.5).
    let rtx = w
        .sent
        .iter()
        .find(|p| p.is_retrans())
        .expect("a fast retransmit");
    assert_eq!(rtx.flags & ECT, 0);
}

#[test]
fn without_ecn_echoes_are_ignored_and_nothing_is_ect() {
    let (mut s, mut w) = sender(false, Recovery::Prr);
    assert!(w.sent.iter().all(|p| p.flags & ECT == 0));
    w.now = 50 * MS;
    s.on_ack(&ack(1, true), &mut w);
    assert_eq!(
        (s.tp.ca_state, s.counters.ecn_reductions),
        (CaState::Open, 0)
    );
}

#[test]
fn dctcp_has_ecn_without_the_flow_asking_and_cuts_by_alpha_over_two() {
    let mut cfg = FlowConfig {
        ecn: false,
        ..reno()
    }
    .without_jitter();
    cfg.cc = hscc_cc::CcParams::from_name("dctcp").unwrap();
    cfg.init_cwnd = 10;
    let (mut s, mut w): (Sender, Capture) = started(&cfg);
    assert!(
        w.sent.iter().all(|p| p.flags & ECT != 0),
        "TCP_CONG_NEEDS_ECN: ECT"
    );
    w.now = 50 * MS;
    // The first ACK closes the window opened at init: 1 of 1 delivered with
    // ECE, α = 1024 − 64 + (1 << 6)/1 = 1024; the echo cuts to
    // 10 − (10·1024 >> 11) = 5.
    s.on_ack(&ack(1, true), &mut w);
    assert_eq!((s.tp.ca_state, s.tp.snd_ssthresh), (CaState::Cwr, 5));
    assert_eq!((s.tp.delivered, s.tp.delivered_ce), (1, 1));
    // The next window (to snd_nxt = 10) has no marks: α = 1024 − 64 = 960.
    for a in 2..=11 {
        s.on_ack(&ack(a, false), &mut w);
    }
    assert_eq!((s.tp.ca_state, s.tp.snd_cwnd), (CaState::Open, 5));
    assert_eq!(s.tp.delivered_ce, 1);
    // An echo now: 5 − (5·960 >> 11) = 5 − 2 = 3, where Reno halves to 2.
    let una = s.snd_una();
    s.on_ack(&ack(una + 1, true), &mut w);
    assert_eq!((s.tp.ca_state, s.tp.snd_ssthresh), (CaState::Cwr, 3));
    s.check_scoreboard().unwrap();
}
