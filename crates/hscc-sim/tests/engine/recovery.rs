//! Loss detection and recovery driven through a scripted path: RACK-TLP,
//! D-SACK undo, Eifel and F-RTO undo, reordering. Each segment crosses the
//! path in 50 ms unless the script drops or delays that transmission; ACKs
//! return in 50 ms (RTT 100 ms); delayed ACKs and host jitter are off, so every
//! time below is computed by hand from the rules the module docs state.

use hscc_cc::{CaState, TCP_INFINITE_SSTHRESH};
use hscc_sim::config::{FlowConfig, LossDetection, SsthreshFrom};
use hscc_sim::testing::{dropping, linux, Script, ScriptedPath, OWD};
use hscc_sim::time::MS;

fn dupack() -> FlowConfig {
    FlowConfig {
        loss_detection: LossDetection::DupAck,
        ..linux()
    }
}

// Slow start from 10 segments, all sent at once: 0..9 at 0 ms, 10..29 at
// 100 ms (each of the 10 ACKs adds one to cwnd and releases two), 30.. at 200 ms.

#[test]
fn a_lost_retransmission_is_recovered_by_rack_one_rtt_later() {
    // 15 (sent at 100 ms) and its first retransmission are lost.
    let mut run = ScriptedPath::new(linux(), dropping(&[(15, 0), (15, 1)]));
    run.run_until(2_000 * MS);
    // At 200 ms the third SACK above 15 makes reo_wnd 0 (no reordering seen
    // yet): 15, sent before the SACKed segments, is lost at once and
    // retransmitted. At 300 ms the SACKs of data sent with it at 200 ms show
    // the retransmission overdue (sent 200 ms + RACK.rtt 100 ms <= now).
    assert_eq!(run.sends(15), vec![100 * MS, 200 * MS, 300 * MS]);
    let c = run.s.counters;
    assert_eq!((c.timeouts, c.recoveries, c.rack_lost), (0, 1, 2), "{c:?}");
}

#[test]
fn with_duplicate_acks_a_lost_retransmission_waits_for_the_rto() {
    let mut run = ScriptedPath::new(dupack(), dropping(&[(15, 0), (15, 1)]));
    run.run_until(2_000 * MS);
    // The third duplicate ACK at 200 ms retransmits 15; its loss leaves a hole
    // no SACK can mark again. The RTO was last re-armed by the cumulative ACK
    // at 200 ms: RTO = max(200 ms, SRTT + 4 RTTVAR) = 200 ms, fires at 400 ms.
    assert_eq!(run.sends(15), vec![100 * MS, 200 * MS, 400 * MS]);
    assert_eq!(run.s.counters.timeouts, 1);
    assert_eq!(run.s.counters.rack_lost, 0);
}

fn finite(cfg: FlowConfig, segs: u64) -> FlowConfig {
    FlowConfig {
        size: Some(segs * cfg.mss as u64),
        min_rto: 1_000 * MS,
        initial_rto: 1_000 * MS,
        ..cfg
    }
}

#[test]
fn a_tail_loss_is_repaired_by_a_probe_without_an_rto() {
    // 20 segments; the last two (18, 19, sent at 100 ms) are lost. RTO 1 s
    // (RFC 6298's minimum) so that the probe and the RTO are far apart.
    let mut run = ScriptedPath::new(finite(linux(), 20), dropping(&[(18, 0), (19, 0)]));
    run.run_until(5_000 * MS);
    // The last ACK (cum 18) at 200 ms arms the probe: PTO = 2 SRTT + 2 ms =
    // 202 ms (two segments out), before the RTO (1 s). No new data: the probe
    // retransmits 19 at 402 ms. Its SACK at 502 ms lets RACK mark 18 lost
    // (sent at 100 ms, 100 ms + RACK.rtt 100 ms + reo_wnd 25 ms < 502 ms):
    // retransmitted at once, acknowledged at 602 ms.
    assert_eq!(run.sends(19), vec![100 * MS, 402 * MS]);
    assert_eq!(run.sends(18), vec![100 * MS, 502 * MS]);
    assert_eq!(run.s.done_at, Some(602 * MS));
    let c = run.s.counters;
    assert_eq!((c.tlps, c.timeouts, c.rack_lost), (1, 0, 1), "{c:?}");
}

#[test]
fn without_probes_the_same_tail_loss_waits_for_the_rto() {
    let mut run = ScriptedPath::new(finite(dupack(), 20), dropping(&[(18, 0), (19, 0)]));
    run.run_until(5_000 * MS);
    // RTO from the last cumulative ACK at 200 ms: 1.2 s; slow start from one
    // segment: 18 at 1.2 s, 19 after its ACK at 1.3 s, done at 1.4 s.
    assert_eq!(run.sends(18), vec![100 * MS, 1_200 * MS]);
    assert_eq!(run.s.done_at, Some(1_400 * MS));
    assert_eq!((run.s.counters.tlps, run.s.counters.timeouts), (0, 1));
}

#[test]
fn rack_without_probes_waits_for_the_rto_too() {
    // `tlp = false` (ns-2's TCP-Linux agent, whose losses RACK models, sends no
    // probes): the same tail loss and the same times as with duplicate ACKs.
    let cfg = FlowConfig {
        tlp: false,
        ..linux()
    };
    let mut run = ScriptedPath::new(finite(cfg, 20), dropping(&[(18, 0), (19, 0)]));
    run.run_until(5_000 * MS);
    assert_eq!(run.sends(18), vec![100 * MS, 1_200 * MS]);
    assert_eq!(run.s.done_at, Some(1_400 * MS));
    assert_eq!((run.s.counters.tlps, run.s.counters.timeouts), (0, 1));
}

/// ssthresh at the first recovery of a Reno flow in congestion avoidance
/// (cwnd 20 = ssthresh) that loses 2, 3 and 4 of its first window.
fn ssthresh_after_losing_2_3_4(from: SsthreshFrom) -> u32 {
    let cfg = FlowConfig {
        init_cwnd: 20,
        init_ssthresh: Some(20),
        ssthresh_from: from,
        ..dupack()
    };
    let mut run = ScriptedPath::new(cfg, dropping(&[(2, 0), (3, 0), (4, 0)]));
    run.run_until(150 * MS);
    assert_eq!(run.s.counters.recoveries, 1);
    run.s.tp.snd_ssthresh
}

#[test]
fn ssthresh_from_pipe_reduces_from_the_segments_in_flight_as_ns3_does() {
    // 0..19 sent at 0 ms; at 100 ms the ACKs of 0 and 1 each release one new
    // segment (20, 21; cwnd stays 20 in congestion avoidance) and the first two
    // duplicate ACKs (SACK 5, 5-6) one each (22, 23): 22 outstanding. The third
    // (SACK 5-7) marks 2, 3 and 4 lost (three SACKed above each).
    // Linux: ssthresh = cwnd / 2 = 10.
    assert_eq!(ssthresh_after_losing_2_3_4(SsthreshFrom::Cwnd), 10);
    // ns-3 (NewReno's GetSsThresh(tcb, BytesInFlight())): pipe = 22 outstanding
    // − 3 SACKed − 3 lost = 16, ssthresh = 16 / 2 = 8.
    assert_eq!(ssthresh_after_losing_2_3_4(SsthreshFrom::Pipe), 8);
}

#[test]
fn entering_recovery_clears_the_additive_increase_credit_as_linux_does() {
    // As above: at 100 ms the ACKs of 0 and 1 each add one to snd_cwnd_cnt
    // (congestion avoidance at cwnd 20), so the count is 2 when the third
    // duplicate ACK enters recovery. Linux's tcp_init_cwnd_reduction sets
    // snd_cwnd_cnt = 0 there: credit earned at the old window does not carry
    // into the reduced one (carried, it would be 2 here and buy the first +1
    // after the recovery two ACKs early).
    let cfg = FlowConfig {
        init_cwnd: 20,
        init_ssthresh: Some(20),
        ..dupack()
    };
    let mut run = ScriptedPath::new(cfg, dropping(&[(2, 0), (3, 0), (4, 0)]));
    run.run_until(150 * MS);
    assert_eq!(run.s.counters.recoveries, 1);
    assert_eq!(run.s.tp.snd_cwnd_cnt, 0);
}

/// 15 arrives 5 ms after 16..29, all sent together at 100 ms: three of them are
/// SACKed first, so 15 is retransmitted at 200 ms although it is not lost.
fn reorder_15() -> Script {
    Box::new(|seq, n, t| Some(t + OWD + if (seq, n) == (15, 0) { 5 * MS } else { 0 }))
}

#[test]
fn a_spurious_fast_retransmit_is_undone_by_dsack_with_cwnd_restored() {
    for detection in [LossDetection::Rack, LossDetection::DupAck] {
        // Without timestamps only the D-SACK can tell.
        let cfg = FlowConfig {
            timestamps: false,
            loss_detection: detection,
            ..linux()
        };
        let mut run = ScriptedPath::new(cfg, reorder_15());
        run.run_until(200 * MS);
        assert_eq!(run.s.tp.ca_state, CaState::Recovery, "{detection:?}");
        // At 200 ms: 11..15 acked (cwnd 20 -> 25 in slow start), then three
        // SACKs: cwnd 25 at the start of recovery.
        let prior = run.s.tp.prior_cwnd;
        assert_eq!((prior, run.s.tp.snd_ssthresh), (25, 12), "{detection:?}");
        // The original arrives at 155 + 50 = 205 ms: recovery goes on (no
        // timestamps, no proof); the retransmission reaches the receiver at
        // 250 ms as a duplicate, its D-SACK arrives at 300 ms: all (one)
        // retransmissions were spurious, the reduction is undone.
        run.run_until(300 * MS - 1);
        assert!(
            run.s.tp.snd_cwnd < prior,
            "{detection:?}: reduced before the D-SACK"
        );
        assert_eq!(run.s.counters.undos, 0);
        run.run_until(300 * MS);
        assert_eq!(run.s.counters.undos, 1, "{detection:?}");
        assert!(
            run.s.tp.snd_cwnd >= prior,
            "{detection:?}: cwnd {} restored to at least {prior}",
            run.s.tp.snd_cwnd
        );
        assert_eq!(
            run.s.tp.snd_ssthresh, TCP_INFINITE_SSTHRESH,
            "{detection:?}: ssthresh restored"
        );
        assert_eq!(run.sends(15), vec![100 * MS, 200 * MS]);
    }
}

#[test]
fn without_undo_the_spurious_reduction_stays() {
    let cfg = FlowConfig {
        timestamps: false,
        undo: false,
        ..linux()
    };
    let mut run = ScriptedPath::new(cfg, reorder_15());
    run.run_until(300 * MS);
    assert_eq!(run.s.counters.undos, 0);
    assert_eq!(run.s.tp.snd_ssthresh, 12);
}

#[test]
fn with_timestamps_the_partial_ack_undoes_at_once_and_reordering_is_learned() {
    let mut run = ScriptedPath::new(linux(), reorder_15());
    run.run_until(205 * MS);
    // The ACK of the original (cum 30, partial: high_seq is above) echoes its
    // TSval, 100 ms, older than the retransmission at 200 ms (Eifel): the hole
    // was filled by the original. Undone, and 15 was displaced by the 15
    // segments SACKed above it (16..29 and fack 30): reordering = 15.
    assert_eq!(run.s.counters.undos, 1);
    assert_eq!(run.s.reordering(), 15);
    assert!(matches!(
        run.s.tp.ca_state,
        CaState::Open | CaState::Disorder
    ));
    assert_eq!(run.s.tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
}

#[test]
fn after_reordering_is_seen_rack_waits_a_quarter_rtt_before_declaring_loss() {
    // 15 and later 300 arrive 5 ms late. The first costs a spurious
    // retransmission (undone); then reo_wnd = min_RTT/4 = 25 ms > 5 ms.
    let path: Script = Box::new(|seq, n, t| {
        Some(
            t + OWD
                + if n == 0 && (seq == 15 || seq == 300) {
                    5 * MS
                } else {
                    0
                },
        )
    });
    let mut run = ScriptedPath::new(linux(), path);
    run.run_until(1_000 * MS);
    assert!(run.s.snd_nxt() > 400, "300 was sent with data after it");
    assert_eq!(run.sends(15).len(), 2);
    assert_eq!(run.sends(300).len(), 1, "300 was not retransmitted");
    assert_eq!((run.s.counters.undos, run.s.counters.recoveries), (1, 1));
}

/// All data sent in [100, 490) ms is held until 540 ms (a delay spike), then
/// delivered in order; later data takes 50 ms.
fn spike() -> Script {
    Box::new(|_, _, t| {
        Some(if (100 * MS..490 * MS).contains(&t) {
            (t + OWD).max(540 * MS)
        } else {
            t + OWD
        })
    })
}

#[test]
fn frto_detects_a_spurious_timeout_and_undoes_it() {
    // Without timestamps, D-SACK and Eifel are blind here: only F-RTO can tell.
    let cfg = FlowConfig {
        timestamps: false,
        dsack: false,
        ..linux()
    };
    let mut run = ScriptedPath::new(cfg, spike());
    run.run_until(700 * MS);
    // The last ACK at 100 ms arms the probe for 300 ms (PTO 202 ms, RTO 200 ms
    // sooner): new data, 30, goes out; the RTO follows at 300 + 200 = 500 ms and
    // retransmits 10. At 590 ms the delayed ACKs arrive: the first (of 10, a
    // retransmitted segment) makes F-RTO send new data instead of
    // retransmitting (step 2b); the second acknowledges 11, never
    // retransmitted: the timeout was spurious (step 3b), undone.
    let c = run.s.counters;
    assert_eq!(
        (c.tlps, c.timeouts, c.undos, c.retrans),
        (1, 1, 1, 1),
        "{c:?}"
    );
    assert_eq!(run.sends(10), vec![100 * MS, 500 * MS]);
    assert_eq!(run.sends(11), vec![100 * MS], "no go-back-N");
}

#[test]
fn without_frto_a_spurious_timeout_retransmits_the_window() {
    let cfg = FlowConfig {
        timestamps: false,
        dsack: false,
        frto: false,
        ..linux()
    };
    let mut run = ScriptedPath::new(cfg, spike());
    run.run_until(700 * MS);
    let c = run.s.counters;
    assert_eq!((c.timeouts, c.undos), (1, 0), "{c:?}");
    assert!(c.retrans > 10, "go-back-N: {} retransmissions", c.retrans);
}

#[test]
fn after_reordering_is_seen_a_real_loss_waits_for_the_reordering_timer() {
    // 15 is reordered (one undone recovery: reordering seen), then 300 is lost.
    let path: Script = Box::new(|seq, n, t| match (seq, n) {
        (15, 0) => Some(t + OWD + 5 * MS),
        (300, 0) => None,
        _ => Some(t + OWD),
    });
    let mut run = ScriptedPath::new(linux(), path);
    run.run_until(1_000 * MS);
    // The spurious retransmission of 15 came back as a D-SACK at 300 ms after
    // reordering was seen (205 ms): reo_wnd grew to 2 steps of min_RTT/4, 50 ms
    // (Linux tcp_rack_update_reo_wnd). The SACKs of segments sent with or
    // after 300 arrive from 100 ms after it was sent, RACK.rtt is 100 ms: 300
    // is due 150 ms after it was sent, the timer fires 2 ms later (Linux's
    // slack) and retransmits it, however many SACKs came before.
    let sent = run.sends(300);
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[1] - sent[0], 152 * MS);
    let c = run.s.counters;
    assert_eq!(
        (c.rack_lost, c.recoveries, c.undos, c.timeouts),
        (2, 2, 1, 0),
        "{c:?}"
    );
}
