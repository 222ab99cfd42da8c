//! Sync-TCP's unit tests: each rule of the paper on a scripted flow.

use super::increase::alpha_q10;
use super::*;
use crate::ops::TCP_INFINITE_SSTHRESH;
use crate::testing::{run_until, Harness};
use SyncState::*;

/// A flow in `state` at t = 10 s, in congestion avoidance, with cwnd,
/// srtt and brtt (µs) given, brtt_epoch = ∞ and a sample due now.
fn flow(
    p: &SyncParams,
    state: SyncState,
    cwnd: u32,
    srtt_us: u32,
    brtt_us: u32,
) -> Harness<SyncTcp> {
    let mut h = Harness::<SyncTcp>::with_params(p, cwnd);
    h.tp.snd_ssthresh = 2;
    h.advance_ms(10_000);
    let now = h.tp.now_us;
    h.cc.state = state;
    h.cc.since_us = now;
    h.cc.srtt_q8 = (srtt_us as u64) << 8;
    h.cc.brtt_us = brtt_us;
    h.cc.next_inc_us = now + 100_000;
    h.cc.next_sample_us = now;
    h
}

fn dflt(state: SyncState, cwnd: u32, srtt_us: u32, brtt_us: u32) -> Harness<SyncTcp> {
    flow(&SyncParams::default(), state, cwnd, srtt_us, brtt_us)
}

/// After `dt_ms`, one segment is sent and ACKed with RTT `rtt_us`.
fn ack_after(h: &mut Harness<SyncTcp>, dt_ms: u64, rtt_us: u32) {
    h.advance_ms(dt_ms);
    h.set_rtt_us(rtt_us);
    h.send(1);
    h.ack_each(1, 1);
}

#[test]
fn srtt_follows_eq_4_with_one_sample_per_t_sample() {
    let mut h = Harness::<SyncTcp>::with_params(&SyncParams::default(), 10);
    ack_after(&mut h, 0, 100_000); // first sample: srtt = 100 ms
    ack_after(&mut h, 5, 200_000); // 5 ms later: not sampled
    assert_eq!(h.cc.srtt_q8, 100_000 << 8);
    ack_after(&mut h, 5, 200_000); // 0.9·100 + 0.1·200 = 110
    assert_eq!(h.cc.srtt_q8, 110_000 << 8);
    ack_after(&mut h, 10, 50_000); // 0.9·110 + 0.1·50 = 104
    assert_eq!(
        (h.cc.srtt_q8, h.cc.brtt_us, h.cc.brtt_epoch_us),
        (104_000 << 8, 50_000, 50_000)
    );
}

#[test]
fn alpha_of_eq_6_by_hand() {
    // (1 + t + t⁴/32) at t = 0, 1, 2, 4 s: 1, 2.03125, 3.5, 13 (Q10 exact).
    assert_eq!(alpha_q10(0, 0, 12_000), 1024);
    assert_eq!(alpha_q10(1_000_000, 0, 12_000), 2080);
    assert_eq!(alpha_q10(2_000_000, 0, 12_000), 3584);
    assert_eq!(alpha_q10(4_000_000, 0, 12_000), 13_312);
    // qd = 6 ms halves it: 6.5.
    assert_eq!(alpha_q10(4_000_000, 6_000, 12_000), 6656);
    // qd = 9 ms: 2.03125·0.25 = 0.51 → at least 1; qd ≥ Th_qd: 1.
    assert_eq!(alpha_q10(1_000_000, 9_000, 12_000), 1024);
    assert_eq!(alpha_q10(4_000_000, 20_000, 12_000), 1024);
    // The t⁴ term overtakes t beyond t = 32^(1/3) = 3.17 s: 10 s → 1 + 10 + 312.5.
    assert_eq!(alpha_q10(10_000_000, 0, 12_000), 323 * 1024 + 512);
}

#[test]
fn legacy_switches_to_sync_at_th_t2s_in_congestion_avoidance() {
    // srtt 100 ms: 17·1448/0.1 = 246 160 B/s < 250 000 (2 Mbit/s) ≤ 18·1448/0.1.
    let mut h = dflt(Legacy, 17, 100_000, 100_000);
    ack_after(&mut h, 10, 100_000);
    assert_eq!((h.cc.state, h.tp.pacing_rate), (Legacy, 0));
    let mut h = dflt(Legacy, 18, 100_000, 100_000);
    ack_after(&mut h, 10, 100_000);
    assert_eq!(
        (h.cc.state, h.tp.snd_ssthresh, h.tp.pacing_rate),
        (Probing, 18, 260_640)
    );
    assert_eq!(h.cc.next_inc_us, h.tp.now_us + 100_000);
    // Not from slow start, and not while the queue exceeds Th_qd (20 > 12 ms).
    let mut h = dflt(Legacy, 100, 100_000, 100_000);
    h.tp.snd_ssthresh = u32::MAX / 2;
    ack_after(&mut h, 10, 100_000);
    assert_eq!(h.cc.state, Legacy);
    let mut h = dflt(Legacy, 100, 100_000, 80_000);
    ack_after(&mut h, 10, 100_000);
    assert_eq!(h.cc.state, Legacy);
}

/// Reading A alone (s2t_share = 0, no window): the old single-sample test.
fn absolute_only() -> SyncParams {
    SyncParams {
        s2t_share: 0.0,
        s2t_window_ms: 0.0,
        ..Default::default()
    }
}

#[test]
fn sync_switches_back_to_legacy_below_th_s2t() {
    // 8·1448/0.1 = 115 840 < 125 000 (1 Mbit/s) ≤ 9·1448/0.1 = 130 320.
    let mut h = flow(&absolute_only(), Probing, 8, 100_000, 100_000);
    ack_after(&mut h, 100, 100_000);
    assert_eq!(
        (h.cc.state, h.cc.brtt_us, h.tp.pacing_rate),
        (Legacy, u32::MAX, 0)
    );
    // Restarted in slow start, as a new legacy flow (§V).
    assert_eq!(h.tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
    let mut h = flow(&absolute_only(), Probing, 9, 100_000, 100_000);
    ack_after(&mut h, 100, 100_000);
    assert_eq!((h.cc.state, h.cwnd()), (Probing, 10));
}

#[test]
fn a_starved_flow_is_checked_in_waiting_and_emptying_too() {
    // A starved flow cycles Waiting ↔ Emptying and never reaches a Probing
    // tick; the test runs once per T_win in every Sync-TCP state.
    for state in [Waiting, Emptying] {
        let mut h = flow(&absolute_only(), state, 8, 100_000, 100_000);
        ack_after(&mut h, 100, 100_000);
        assert_eq!((h.cc.state, h.cc.brtt_us), (Legacy, u32::MAX), "{state:?}");
    }
}

/// Default parameters but T_wait = 60 s, so that Waiting lasts.
fn long_wait() -> SyncParams {
    SyncParams {
        t_wait_ms: 60_000.0,
        ..Default::default()
    }
}

#[test]
fn starvation_is_below_half_the_reference_for_s2t_window() {
    // Reference 1 000 000 B/s, s2t_share 0.5: threshold 500 000 B/s
    // (above Th_s2t = 125 000). cwnd 30 at srtt 100 ms: 434 400 B/s.
    let mut h = flow(&long_wait(), Waiting, 30, 100_000, 100_000);
    h.cc.ref_bytes_s = 1_000_000;
    ack_after(&mut h, 0, 100_000);
    let t0 = h.tp.now_us;
    assert_eq!(h.cc.low_since_us, Some(t0));
    // Checks every T_win; still Sync-TCP at 9.9 s.
    for _ in 0..99 {
        ack_after(&mut h, 100, 100_000);
    }
    assert_eq!(h.cc.state, Waiting);
    // cwnd 35: 506 800 B/s ≥ 500 000 resets the count.
    h.tp.snd_cwnd = 35;
    ack_after(&mut h, 100, 100_000);
    assert_eq!((h.cc.state, h.cc.low_since_us), (Waiting, None));
    h.tp.snd_cwnd = 30;
    ack_after(&mut h, 100, 100_000);
    let t1 = h.tp.now_us;
    for _ in 0..99 {
        ack_after(&mut h, 100, 100_000);
    }
    assert_eq!((h.cc.state, h.cc.low_since_us), (Waiting, Some(t1)));
    // 10 s below the threshold: legacy, floor 2·reference for 60 s.
    ack_after(&mut h, 100, 100_000);
    let now = h.tp.now_us;
    assert_eq!(now - t1, 10_000_000);
    assert_eq!(h.cc.state, Legacy);
    assert_eq!(
        (h.cc.floor_bytes_s, h.cc.floor_until_us, h.cc.starved_runs),
        (2_000_000, now + 60_000_000, 1)
    );
}

#[test]
fn slow_start_after_a_timeout_does_not_count_as_starvation() {
    let mut h = flow(&long_wait(), Emptying, 30, 100_000, 100_000);
    h.cc.ref_bytes_s = 1_000_000;
    ack_after(&mut h, 0, 100_000);
    assert!(h.cc.low_since_us.is_some());
    h.tp.snd_ssthresh = 1000;
    ack_after(&mut h, 100, 100_000);
    assert_eq!(h.cc.low_since_us, None);
}

#[test]
fn legacy_returns_to_sync_above_the_floor_or_after_the_hold() {
    // Floor 2 000 000 B/s for 60 s: cwnd 138 at 100 ms is 1 998 240,
    // 139 is 2 012 720 (both ≥ Th_t2s = 250 000, qd = 0).
    let mut h = dflt(Legacy, 138, 100_000, 100_000);
    let now = h.tp.now_us;
    (h.cc.floor_bytes_s, h.cc.floor_until_us, h.cc.starved_runs) = (2_000_000, now + 60_000_000, 2);
    ack_after(&mut h, 10, 100_000);
    assert_eq!(h.cc.state, Legacy);
    h.tp.snd_cwnd = 139;
    ack_after(&mut h, 10, 100_000);
    // Above the floor: the legacy traffic has gone, the series ends.
    assert_eq!((h.cc.state, h.cc.starved_runs), (Probing, 0));
    // Below the floor, but the hold has expired.
    let mut h = dflt(Legacy, 138, 100_000, 100_000);
    let now = h.tp.now_us;
    (h.cc.floor_bytes_s, h.cc.floor_until_us, h.cc.starved_runs) = (2_000_000, now + 1_000, 2);
    ack_after(&mut h, 10, 100_000);
    assert_eq!((h.cc.state, h.cc.starved_runs), (Probing, 2));
}

#[test]
fn the_hold_doubles_for_starved_episodes_in_a_row() {
    let p = SyncParams {
        s2t_window_ms: 0.0,
        ..long_wait()
    };
    // Second starvation 5 s into a Sync-TCP episode: 2 runs, 120 s.
    let mut h = flow(&p, Waiting, 30, 100_000, 100_000);
    (h.cc.ref_bytes_s, h.cc.starved_runs, h.cc.sync_since_us) =
        (1_000_000, 1, h.tp.now_us - 5_000_000);
    ack_after(&mut h, 0, 100_000);
    let now = h.tp.now_us;
    assert_eq!(
        (h.cc.state, h.cc.starved_runs, h.cc.floor_until_us),
        (Legacy, 2, now + 120_000_000)
    );
    // An episode at least as long as the hold (10 s ≥ 5 s here) ends the
    // series: 1 run, 5 s.
    let p = SyncParams {
        t2s_hold_ms: 5_000.0,
        ..p
    };
    let mut h = flow(&p, Waiting, 30, 100_000, 100_000);
    (h.cc.ref_bytes_s, h.cc.starved_runs, h.cc.sync_since_us) = (1_000_000, 3, 0);
    ack_after(&mut h, 0, 100_000);
    let now = h.tp.now_us;
    assert_eq!(
        (h.cc.state, h.cc.starved_runs, h.cc.floor_until_us),
        (Legacy, 1, now + 5_000_000)
    );
}

#[test]
fn the_reference_follows_reductions_after_two_emptied_epochs() {
    // As waiting_freezes_cwnd_then_reduces_by_eq_5: cwnd 1000 → 583 at
    // srtt 150 ms; 583·1448/0.15 = 5 627 893 B/s.
    let mut h = dflt(Waiting, 1000, 150_000, 100_000);
    h.cc.ref_bytes_s = 9_999;
    h.cc.brtt_epoch_us = 101_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!((h.cwnd(), h.cc.ref_bytes_s), (583, 5_627_893));
    // The epoch before was not emptied (λ = 2.25): reference kept.
    let mut h = dflt(Waiting, 1000, 150_000, 100_000);
    h.cc.ref_bytes_s = 9_999;
    h.cc.lambda_q8 = 576;
    h.cc.brtt_epoch_us = 101_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!((h.cwnd(), h.cc.ref_bytes_s), (583, 9_999));
    // Entering Sync-TCP sets it to the rate then: 18·1448/0.1 = 260 640.
    let mut h = dflt(Legacy, 18, 100_000, 100_000);
    ack_after(&mut h, 10, 100_000);
    assert_eq!((h.cc.state, h.cc.ref_bytes_s), (Probing, 260_640));
}

#[test]
fn without_switching_sync_stays_on_after_slow_start() {
    let p = SyncParams {
        switching: false,
        ..Default::default()
    };
    let mut h = flow(&p, Legacy, 5, 100_000, 100_000);
    ack_after(&mut h, 10, 100_000);
    assert_eq!(h.cc.state, Probing);
    ack_after(&mut h, 100, 100_000);
    assert_eq!((h.cc.state, h.cwnd()), (Probing, 6));
}

#[test]
fn probing_adds_alpha_every_t_win() {
    // t = 0.1 s: α = 1 + 0.1 + … = 1126/1024 → +1, 102 left;
    // t = 0.2 s: 1228/1024 → 102 + 1228 = 1330 → +1, 306 left.
    let mut h = dflt(Probing, 100, 100_000, 100_000);
    ack_after(&mut h, 99, 100_000);
    assert_eq!(h.cwnd(), 100);
    ack_after(&mut h, 1, 100_000);
    assert_eq!((h.cwnd(), h.cc.cwnd_frac_q10), (101, 102));
    assert_eq!(h.tp.pacing_rate, 101 * 1448 * 10);
    ack_after(&mut h, 100, 100_000);
    assert_eq!((h.cwnd(), h.cc.cwnd_frac_q10), (102, 306));
    // An application-limited sender keeps its window.
    h.tp.app_limited = true;
    ack_after(&mut h, 100, 100_000);
    assert_eq!(h.cwnd(), 102);
}

#[test]
fn probing_to_waiting_when_qd_exceeds_th_qd() {
    // qd = 112 − 100 = 12 ms, not above Th_qd.
    let mut h = dflt(Probing, 1000, 112_000, 100_000);
    ack_after(&mut h, 10, 112_000);
    assert_eq!(
        (h.cc.state, h.cc.congestion_signals()),
        (Probing, (0, None))
    );
    // srtt = 0.9·112 + 0.1·113 = 112.1: qd 12.1 ms > 12 ms.
    ack_after(&mut h, 10, 113_000);
    let now = h.tp.now_us;
    assert_eq!((h.cc.state, h.cc.since_us, h.cwnd()), (Waiting, now, 1000));
    assert_eq!(h.cc.congestion_signals(), (1, Some(now)));
}

#[test]
fn waiting_freezes_cwnd_then_reduces_by_eq_5() {
    // srtt 150, brtt 100, brtt_epoch 101: 1 ms ≤ Th_emptied → λ = 1.25;
    // β = 1 − 1.25·50/150 = 0.5833 → 1000·β = 583.
    let mut h = dflt(Waiting, 1000, 150_000, 100_000);
    h.cc.brtt_epoch_us = 101_000;
    ack_after(&mut h, 499, 150_000);
    assert_eq!((h.cc.state, h.cwnd()), (Waiting, 1000));
    ack_after(&mut h, 1, 150_000);
    assert_eq!((h.cc.state, h.cc.since_us), (Emptying, h.tp.now_us));
    assert_eq!(
        (h.cwnd(), h.tp.snd_ssthresh, h.cc.lambda_q8),
        (583, 583, 320)
    );
    assert_eq!(h.cc.brtt_epoch_us, u32::MAX);
}

#[test]
fn lambda_grows_while_the_queue_is_not_emptied() {
    // brtt_epoch 105: 5 ms > 2 ms → λ = 2.25, β = 1 − 2.25/3 = 0.25.
    let mut h = dflt(Waiting, 1000, 150_000, 100_000);
    h.cc.brtt_epoch_us = 105_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!((h.cwnd(), h.cc.lambda_q8), (250, 576));
    // Again not emptied: λ = 3.25, β = 1 − 3.25/3 < 0 → lower bound 0.125.
    h.cc.state = Waiting;
    h.cc.brtt_epoch_us = 104_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!((h.cwnd(), h.cc.lambda_q8), (31, 832));
    // Emptied (epoch = brtt): back to 1.25.
    h.cc.state = Waiting;
    h.cc.brtt_epoch_us = 100_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!(h.cc.lambda_q8, 320);
}

#[test]
fn delay_beta_is_at_most_0_95() {
    // srtt 100.5, brtt 100: β = 1 − 1.25·0.5/100.5 = 0.994 → 0.95.
    let mut h = dflt(Waiting, 1000, 100_500, 100_000);
    ack_after(&mut h, 500, 100_500);
    assert_eq!(h.cwnd(), 950);
}

#[test]
fn emptying_lasts_t_wait_then_probing_restarts_t() {
    let mut h = dflt(Emptying, 1000, 100_000, 100_000);
    ack_after(&mut h, 499, 100_000);
    assert_eq!(h.cc.state, Emptying);
    ack_after(&mut h, 1, 100_000);
    let now = h.tp.now_us;
    assert_eq!(
        (h.cc.state, h.cc.since_us, h.cc.next_inc_us, h.cwnd()),
        (Probing, now, now + 100_000, 1000)
    );
}

#[test]
fn loss_reduces_at_once_by_at_most_0_875_in_every_state() {
    for state in [Probing, Waiting, Emptying] {
        // β = 0.994 → 0.875 after a loss.
        let mut h = dflt(state, 1000, 100_500, 100_000);
        h.fast_retransmit();
        assert_eq!(
            (h.ssthresh(), h.cc.state, h.cc.since_us),
            (875, Emptying, h.tp.now_us)
        );
    }
    // λ: 4.25 → 5.25 (epoch 110), β = 1 − 5.25/3 < 0 → 0.125.
    let mut h = dflt(Probing, 1000, 150_000, 100_000);
    h.cc.lambda_q8 = 1088;
    h.cc.brtt_epoch_us = 110_000;
    h.loss();
    assert_eq!(
        (h.cwnd(), h.cc.lambda_q8, h.cc.brtt_epoch_us),
        (125, 1344, u32::MAX)
    );
    // Legacy mode halves.
    let mut h = dflt(Legacy, 1000, 150_000, 100_000);
    h.loss();
    assert_eq!(h.cwnd(), 500);
}

#[test]
fn rerouting_adopts_brtt_epoch_when_lambda_exceeds_20() {
    // λ 20.25 → 21.25 > 20 and brtt_epoch 130 > brtt 100: brtt = 130,
    // λ = 1.25, β = 1 − 1.25·20/150 = 0.8333 → 833.
    let mut h = dflt(Waiting, 1000, 150_000, 100_000);
    h.cc.lambda_q8 = 5184;
    h.cc.brtt_epoch_us = 130_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!(
        (h.cc.brtt_us, h.cc.lambda_q8, h.cwnd()),
        (130_000, 320, 833)
    );
    // λ 18.25 → 19.25: no rerouting, β bounded to 0.125.
    let mut h = dflt(Waiting, 1000, 150_000, 100_000);
    h.cc.lambda_q8 = 4672;
    h.cc.brtt_epoch_us = 130_000;
    ack_after(&mut h, 500, 150_000);
    assert_eq!(
        (h.cc.brtt_us, h.cc.lambda_q8, h.cwnd()),
        (100_000, 4928, 125)
    );
}

#[test]
fn timeout_in_sync_mode_slow_starts_to_beta_cwnd() {
    let mut h = dflt(Probing, 1000, 100_500, 100_000);
    h.timeout();
    assert_eq!((h.cwnd(), h.ssthresh(), h.cc.state), (1, 875, Emptying));
    h.set_rtt_us(100_500);
    h.round();
    assert_eq!(h.cwnd(), 2);
}

#[test]
fn selectable_by_name_with_params() {
    let p = crate::CcParams::with("sync-tcp", &[("th_qd_ms", 8.0), ("switching", 0.0)]).unwrap();
    assert_eq!(p.name(), "sync");
}

#[test]
fn a_full_cycle_from_probing_back_to_probing() {
    // Queue builds: samples of 130 ms against brtt 100; srtt after n
    // samples is 130 − 30·0.9ⁿ: 110.3 ms at n = 4, 112.3 ms > 112 at n = 5
    // → Waiting; 500 ms later a reduction, 500 ms of Emptying, Probing.
    let mut h = dflt(Probing, 1000, 100_000, 100_000);
    h.cc.next_inc_us = u64::MAX; // no increase in this test
    let leave = |h: &Harness<SyncTcp>| h.cc.state != Probing;
    let n = run_until(&mut h, 50, "leaving Probing", leave, |h| {
        ack_after(h, 10, 130_000)
    });
    assert_eq!((n, h.cc.state), (5, Waiting));
    ack_after(&mut h, 500, 100_000);
    assert_eq!(h.cc.state, Emptying);
    assert!(h.cwnd() < 1000);
    ack_after(&mut h, 500, 100_000);
    assert_eq!(h.cc.state, Probing);
    assert_eq!(h.cc.congestion_signals().0, 1);
}
