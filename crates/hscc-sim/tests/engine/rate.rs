//! Delivery-rate samples (Linux `tcp_rate.c`), `cong_control` in every state
//! (`tcp_cong_control`) and internal pacing (`tcp_internal_pacing`), on
//! scripted paths: a one-way delay of 50 ms each way and no serialization,
//! so a flight sent at once is acknowledged at once, one RTT (100 ms) later,
//! and every sample can be written down by hand. A stand-in `cong_control`
//! records each ACK's sample and, unless a test says otherwise, declines, so
//! Reno's slow start runs underneath: each ACK of one segment sends two.

use std::cell::RefCell;

use hscc_cc::trace::Hook;
use hscc_cc::{CaEvent, CaState, LostSkb, RateSample, TcpCc};
use hscc_sim::testing::{dropping, linux, Script, ScriptedPath, OWD};
use hscc_sim::time::{Time, MS, US};
use hscc_sim::FlowConfig;

/// One `cong_control` call: the time (µs), the state, cwnd before it, the sample, and
/// `tp.lost` (C.lost) when it was called.
type Call = (u64, CaState, u32, RateSample, u32);

thread_local! {
    static CALLS: RefCell<Vec<Call>> = const { RefCell::new(Vec::new()) };
}

fn record(tp: &mut TcpCc, rs: &RateSample) -> bool {
    CALLS.with(|c| {
        c.borrow_mut()
            .push((tp.now_us, tp.ca_state, tp.snd_cwnd, *rs, tp.lost))
    });
    false
}

/// A sender whose `cong_control` calls are recorded (this thread's record starts empty).
fn recorded(cfg: FlowConfig, script: Script) -> ScriptedPath {
    CALLS.with(|c| c.borrow_mut().clear());
    ScriptedPath::prepared(cfg, script, |s| s.cong_control_hook = Some(record))
}

fn calls() -> Vec<Call> {
    CALLS.with(|c| c.borrow().clone())
}

fn every_segment_on_time() -> Script {
    Box::new(|_, _, t| Some(t + OWD))
}

/// A sample's fields a test checks, in one tuple:
/// (prior_delivered, prior_mstamp, delivered, interval_us, snd_interval_us,
/// rcv_interval_us, is_app_limited, is_retrans).
fn fields(rs: &RateSample) -> (u32, u64, i32, i64, u32, u32, bool, bool) {
    (
        rs.prior_delivered,
        rs.prior_mstamp,
        rs.delivered,
        rs.interval_us,
        rs.snd_interval_us,
        rs.rcv_interval_us,
        rs.is_app_limited,
        rs.is_retrans,
    )
}

const RTT_US: u64 = 100_000;

#[test]
fn a_plain_train_samples_one_window_per_rtt() {
    // Unlimited Reno, initial window 10, every ACK acknowledges one segment.
    let mut run = recorded(linux(), every_segment_on_time());
    run.run_until(250 * MS);
    let c = calls();
    // Round 1: segments 0-9 sent at 0, acknowledged at 100 ms. Their stamps:
    // delivered 0, both clocks started at their send (0). The application's
    // first write found an empty socket: app-limited until delivered passes
    // 0 + 0 in flight, i.e. the mark 1, so all ten carry the mark.
    // ACK k (of segment k-1): delivered k since 0, send phase 0, ACK phase
    // 100 ms = min_rtt: interval 100 ms.
    assert_eq!(c.len(), 10 + 20, "ACKs of rounds 1 and 2");
    for (k, (now, state, _, rs, _)) in c[..10].iter().enumerate() {
        let k = k as u32 + 1;
        assert_eq!((*now, *state), (RTT_US, CaState::Open));
        assert_eq!(
            fields(rs),
            (0, 0, k as i32, 100_000, 0, 100_000, true, false),
            "ACK {k}"
        );
        assert_eq!((rs.acked_sacked, rs.losses, rs.rtt_us), (1, 0, 100_000));
        assert_eq!(rs.prior_in_flight, 10 + (k - 1) * 2 - (k - 1));
        assert!(!rs.is_ack_delayed);
        // Segment k - 1 left k in flight at its send; nothing lost.
        assert_eq!((rs.tx_in_flight, rs.lost), (k, 0));
    }
    // Round 2: ACK j (j = 1..10) of round 1 sent segments 10 + 2(j-1) and
    // 11 + 2(j-1) at 100 ms, stamped delivered j, delivered_mstamp 100 ms
    // (that ACK's), first_tx 0 (the send time of the segment that ACK's
    // sample came from): send phase 100 ms. The mark cleared at ACK 2
    // (delivered 2 > 1): only segments 10 and 11 (sent at ACK 1) carry it.
    // Acknowledged at 200 ms, segment 10 + i leaves delivered 11 + i; its
    // sample covers delivered - j.
    for (i, (now, _, _, rs, _)) in c[10..].iter().enumerate() {
        let i = i as u32;
        let j = i / 2 + 1;
        assert_eq!(*now, 2 * RTT_US);
        assert_eq!(
            fields(rs),
            (
                j,
                RTT_US,
                (11 + i - j) as i32,
                100_000,
                100_000,
                100_000,
                j == 1,
                false
            ),
            "segment {}",
            10 + i
        );
        // ACK j left 9 + j - 1 in flight (prior_in_flight above, less one);
        // its two sends made it 9 + j and 10 + j.
        assert_eq!(rs.tx_in_flight, 9 + j + i % 2, "segment {}", 10 + i);
    }
}

#[test]
fn sacked_segments_sample_from_their_own_send_and_are_not_used_again() {
    // Initial window 4; segment 1 arrives 1 ms late, after 2 and 3: the
    // receiver SACKs them at 50 ms and acknowledges 0-3 at 51 ms. Two SACKed
    // segments stay below the reordering degree (3), so RACK waits a quarter
    // of min_rtt and the hole fills first: no retransmission.
    let late: Script = Box::new(|seq, _, t| Some(t + OWD + if seq == 1 { MS } else { 0 }));
    let cfg = FlowConfig {
        init_cwnd: 4,
        ..linux()
    };
    let mut run = recorded(cfg, late);
    run.run_until(101 * MS);
    assert!(run.log.iter().all(|&(_, _, retx)| !retx));
    let c = calls();
    assert_eq!(c.len(), 4);
    // 100 ms, ACK 1: segment 0, stamped at 0 (delivered 0, app-limited).
    assert_eq!(fields(&c[0].3), (0, 0, 1, 100_000, 0, 100_000, true, false));
    // ACK 1 SACK 2: segment 2's own stamp (sent at 0), 2 delivered in 100 ms;
    // the state machine, which runs first, has moved to Disorder.
    assert_eq!(fields(&c[1].3), (0, 0, 2, 100_000, 0, 100_000, true, false));
    assert_eq!((c[1].1, c[1].3.acked_sacked), (CaState::Disorder, 1));
    // ACK 1 SACK 2-3: only 3 is new.
    assert_eq!(fields(&c[2].3), (0, 0, 3, 100_000, 0, 100_000, true, false));
    assert_eq!((c[2].1, c[2].3.acked_sacked), (CaState::Disorder, 1));
    // 101 ms, ACK 4: 1, 2 and 3 leave the scoreboard but 2 and 3 were
    // SACKed, so the sample is segment 1's: 4 delivered since its send at 0,
    // over 101 ms.
    assert_eq!(c[3].0, 101_000);
    assert_eq!(fields(&c[3].3), (0, 0, 4, 101_000, 0, 101_000, true, false));
    assert_eq!(c[3].3.acked_sacked, 1);
}

#[test]
fn a_retransmission_samples_from_its_retransmission() {
    // Initial window 4; segment 1's first transmission is lost. RACK marks
    // it lost once its reordering window passes and it is retransmitted at
    // some time T; the ACK of everything up to 8 (4-7 were sent at 100 ms
    // and are SACKed by then) comes back at T + 100 ms and ends the recovery
    // before cong_control sees it.
    let cfg = FlowConfig {
        init_cwnd: 4,
        ..linux()
    };
    let mut run = recorded(cfg, dropping(&[(1, 0)]));
    run.run_until(600 * MS);
    let t = run.sends(1)[1];
    assert!(t > 100 * MS && t < 200 * MS, "retransmitted at {t}");
    let t_us = t / US;
    let c = calls();
    let (now, state, _, rs, _) = *c
        .iter()
        .find(|call| call.3.is_retrans)
        .expect("a sample from the retransmission");
    assert_eq!((now, state), (t_us + RTT_US, CaState::Open));
    // Linux re-stamps a segment at each transmission: the sample starts at
    // the retransmission, when 3 segments (0, 2, 3) were delivered, the last
    // at 100 ms (delivered_mstamp), and the sample before took segment 3,
    // sent at 0 (first_tx). Delivered since: 8 - 3 = 5. Send phase T - 0,
    // ACK phase (T + 100 ms) - 100 ms: both T.
    assert_eq!(
        fields(&rs),
        (
            3,
            RTT_US,
            5,
            t_us as i64,
            t_us as u32,
            t_us as u32,
            false,
            true
        )
    );
    // Karn: no RTT sample from a retransmission (and the echoed timestamp is
    // the retransmission's: T + 100 ms - T).
    assert_eq!(rs.rtt_us, 100_000);
}

#[test]
fn an_app_limited_period_is_marked_until_its_data_is_delivered() {
    // Two segments written at the start; a third write of three segments at
    // 150 ms, when the first two are acknowledged and nothing is in flight.
    let cfg = FlowConfig {
        size: Some(2 * 1448),
        ..linux()
    };
    let mut run = recorded(cfg, every_segment_on_time());
    // The first write found an empty socket: the mark is delivered + in
    // flight = 0, written as 1 (Linux: `?: 1`).
    assert_eq!(run.s.app_limited_mark(), 1);
    run.run_until(100 * MS);
    // ACK 1 delivered 1: not past the mark; ACK 2 delivered 2: cleared.
    assert_eq!(run.s.app_limited_mark(), 0);
    run.w.now = 150 * MS;
    assert_eq!(run.append(3 * 1448), 5);
    // Nothing unsent, nothing in flight: the mark is 2 + 0.
    assert_eq!(run.s.app_limited_mark(), 2);
    run.run_until(250 * MS);
    assert_eq!(run.s.app_limited_mark(), 0);
    let c = calls();
    assert_eq!(c.len(), 5);
    // Segments 2-4 went out at 150 ms into an empty network: both clocks
    // restart at 150 ms; stamped delivered 2, app-limited. At 250 ms the
    // first ACK (delivered 3 > 2) clears the mark, but the samples keep the
    // stamps' flag.
    for (k, (now, _, _, rs, _)) in c[2..].iter().enumerate() {
        let k = k as i32 + 1;
        assert_eq!(*now, 250_000);
        assert_eq!(
            fields(rs),
            (2, 150_000, k, 100_000, 0, 100_000, true, false)
        );
    }
}

#[test]
fn an_ack_of_a_lone_runt_is_taken_for_a_delayed_ack() {
    // Linux's guess (tcp_clean_rtx_queue, FLAG_ACK_MAYBE_DELAYED): an ACK
    // of one short segment that was alone in flight, nothing SACKed or
    // echoed, is likely a delayed ACK. A full segment then a 100-byte one.
    let cfg = FlowConfig {
        size: Some(1448),
        ..linux()
    };
    let mut run = recorded(cfg, every_segment_on_time());
    run.run_until(100 * MS);
    run.w.now = 150 * MS;
    run.append(100);
    run.run_until(250 * MS);
    let c = calls();
    assert_eq!(c.len(), 2);
    // A full segment: not a runt.
    assert!(!c[0].3.is_ack_delayed);
    // The runt: stamped delivered 1, and the ACK leaves delivered 2.
    assert!(c[1].3.is_ack_delayed);
    assert_eq!(
        fields(&c[1].3),
        (1, 150_000, 1, 100_000, 0, 100_000, true, false)
    );
    // Two runts in flight: the ACK of the second is not the lone one's.
    let cfg = FlowConfig {
        size: Some(100),
        ..linux()
    };
    let mut run = recorded(cfg, every_segment_on_time());
    run.run_until(100 * MS);
    run.w.now = 150 * MS;
    run.append(100);
    run.append(100);
    run.run_until(250 * MS);
    let c = calls();
    assert_eq!(
        c.iter()
            .map(|call| call.3.is_ack_delayed)
            .collect::<Vec<_>>(),
        [true, true, false]
    );
}

/// A `cong_control` that owns the window: cwnd 20 whatever happens.
fn fixed_window(tp: &mut TcpCc, rs: &RateSample) -> bool {
    record(tp, rs);
    tp.snd_cwnd = 20;
    true
}

#[test]
fn cong_control_gets_every_ack_in_recovery_and_owns_the_window() {
    // Segment 3's first transmission is lost; Linux's tcp_cong_control hands
    // every ACK to an algorithm with cong_control, in Recovery too, and
    // skips PRR and, when recovery ends, cwnd = ssthresh and CompleteCwr.
    CALLS.with(|c| c.borrow_mut().clear());
    let cfg = FlowConfig {
        cc_log: true,
        ..linux()
    };
    let mut run = ScriptedPath::prepared(cfg, dropping(&[(3, 0)]), |s| {
        s.cong_control_hook = Some(fixed_window)
    });
    run.run_until(400 * MS);
    let c = calls();
    let in_recovery = c.iter().filter(|call| call.1 == CaState::Recovery).count();
    assert!(in_recovery >= 10, "{in_recovery} calls in Recovery");
    // After the first call, cwnd is always what the algorithm left: nothing
    // else touched it, in Recovery or when it ended.
    assert!(c[1..].iter().all(|call| call.2 == 20), "{c:?}");
    assert_eq!(run.s.tp.snd_cwnd, 20);
    assert_eq!(run.s.tp.ca_state, CaState::Open);
    let log = &run.s.cc.log.as_ref().expect("logged").calls;
    // Recovery was entered (ssthresh asked, as Linux's tcp_init_cwnd_reduction does) and left.
    assert!(log.iter().any(|call| call.hook == Hook::Ssthresh));
    assert!(log
        .iter()
        .any(|call| call.hook == Hook::SetState(CaState::Open)));
    assert!(!log
        .iter()
        .any(|call| call.hook == Hook::CwndEvent(CaEvent::CompleteCwr)));
    // Every ACK reached the algorithm: one call per ACK taken.
    let acks = log
        .iter()
        .filter(|call| matches!(call.hook, Hook::InAckEvent(_)))
        .count();
    assert_eq!(c.len(), acks);
}

#[test]
fn internal_pacing_spaces_segments_by_payload_over_rate() {
    // 1448 bytes of payload at 1.448 MB/s: 1 ms per segment
    // (Linux tcp_update_skb_after_send: skb->len, the payload, over the rate).
    let rate = 1_448_000;
    let mut run = ScriptedPath::prepared(linux(), every_segment_on_time(), |s| {
        s.tp.pacing_needed = true;
        s.tp.pacing_rate = rate;
    });
    run.run_until(119 * MS);
    let sent: Vec<Time> = (0..30).map(|seq| run.sends(seq)[0]).collect();
    // The first 10 segments are not paced (Linux, after sch_fq); the 10th
    // sets the next departure 1 ms after 0.
    assert!(sent[..10].iter().all(|&t| t == 0));
    // The ACKs at 100 ms open cwnd to 20. Segment 10 leaves at once; the
    // sender sat idle 99 ms past its departure time, so its gap is halved
    // (Linux's credit, at most half): 100.5 ms. Then 1 ms apart.
    assert_eq!(sent[10], 100 * MS);
    assert_eq!(sent[11], 100 * MS + MS / 2);
    for seq in 12..30 {
        assert_eq!(sent[seq] - sent[seq - 1], MS, "segment {seq}");
    }
    // max_pacing_rate caps the algorithm's rate: half the rate, 2 ms apart.
    let mut run = ScriptedPath::prepared(linux(), every_segment_on_time(), |s| {
        s.tp.pacing_needed = true;
        s.tp.pacing_rate = rate;
        s.tp.max_pacing_rate = rate / 2;
    });
    run.run_until(119 * MS);
    let sent: Vec<Time> = (10..15).map(|seq| run.sends(seq)[0]).collect();
    assert_eq!(sent[0], 100 * MS);
    assert_eq!(sent[1], 101 * MS);
    assert!(sent.windows(2).skip(1).all(|w| w[1] - w[0] == 2 * MS));
}

/// The `skb_marked_lost` calls of a logged run: (time µs, the segment, C.lost as the hook saw it).
fn lost_reports(run: &ScriptedPath) -> Vec<(u64, LostSkb, u32)> {
    let log = &run.s.cc.log.as_ref().expect("logged").calls;
    log.iter()
        .filter_map(|call| match call.hook {
            Hook::SkbMarkedLost(skb) => Some((call.before.now_us, skb, call.before.lost)),
            _ => None,
        })
        .collect()
}

#[test]
fn each_lost_segment_is_reported_with_the_stamp_of_its_send() {
    // Initial window 10, all sent at 0: segment k leaves k + 1 in flight.
    // Segment 3's first transmission is lost; the algorithm (a sampler that
    // declines, Reno underneath) is told of it once, as it is marked, with
    // its own stamp: 4 in flight at its send, nothing lost or delivered
    // then, the first window app-limited (see the plain train above).
    let cfg = FlowConfig {
        cc_log: true,
        ..linux()
    };
    let mut run = recorded(cfg, dropping(&[(3, 0)]));
    run.run_until(400 * MS);
    let lost = lost_reports(&run);
    assert_eq!(lost.len(), 1, "{lost:?}");
    let (_, skb, c_lost) = lost[0];
    assert_eq!(
        (
            skb.tx_in_flight,
            skb.tx_lost,
            skb.tx_delivered,
            skb.is_app_limited
        ),
        (4, 0, 0, true)
    );
    assert_eq!(c_lost, 1, "C.lost already counts it");
    // The ACKs of 0, 1 and 2 and the SACKs of 4 and 5 sample segments sent
    // at 0 with k + 1 in flight and see no loss; the SACK of 6, the third
    // above the hole, marks 3 lost before its sample: segment 6's, 7 in
    // flight at its send and 1 lost since.
    let samples = calls();
    let seen: Vec<_> = samples[..6]
        .iter()
        .map(|&(_, _, _, rs, c_lost)| (c_lost, rs.tx_in_flight, rs.lost, rs.prior_mstamp))
        .collect();
    assert_eq!(
        seen,
        [
            (0, 1, 0, 0),
            (0, 2, 0, 0),
            (0, 3, 0, 0),
            (0, 5, 0, 0),
            (0, 6, 0, 0),
            (1, 7, 1, 0)
        ]
    );
    // The retransmission was stamped after the marking: its sample saw none.
    let retx = samples
        .iter()
        .find(|call| call.3.is_retrans)
        .expect("retransmission sampled");
    assert_eq!(retx.3.lost, 0);
}

#[test]
fn a_timeout_reports_each_segment_it_marks_lost_once() {
    // The whole first window of 4 is lost, and so is the tail loss probe
    // (new segment 4, sent at 1 s, the PTO before any RTT sample): no ACK
    // comes back, and the retransmission timeout marks all five lost at once,
    // each reported with its own stamp: k + 1 in flight after segment k,
    // nothing lost before.
    let script: Script = Box::new(|seq, n, t| (!(seq < 5 && n == 0)).then_some(t + OWD));
    let cfg = FlowConfig {
        init_cwnd: 4,
        cc_log: true,
        ..linux()
    };
    let mut run = recorded(cfg, script);
    run.run_until(4000 * MS);
    assert_eq!(run.log[4], (1000 * MS, 4, false), "the probe");
    let lost = lost_reports(&run);
    let at = lost[0].0;
    assert!(at > 1_000_000, "marked at {at} µs");
    let flights: Vec<_> = lost
        .iter()
        .map(|&(t, skb, _)| (t == at, skb.tx_in_flight, skb.tx_lost))
        .collect();
    let log = &run.s.cc.log.as_ref().expect("logged").calls;
    assert_eq!(
        flights,
        [
            (true, 1, 0),
            (true, 2, 0),
            (true, 3, 0),
            (true, 4, 0),
            (true, 5, 0)
        ],
        "{lost:?}"
    );
    // A timeout, not an ACK, marked them: the state is Loss.
    assert!(log
        .iter()
        .any(|c| c.hook == Hook::SetState(CaState::Loss) && c.before.now_us == at));
}
