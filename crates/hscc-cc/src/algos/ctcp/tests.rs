//! Compound TCP's unit tests: eq. 5's three lines, the sampling and the
//! variants on a scripted flow; their set-up helpers serve `la`'s tests too.

use super::pow::pow_q8;
use super::*;
use crate::testing::Harness;

/// Congestion avoidance with the given split and baseRTT = 100 ms.
pub(super) fn ca(p: &CtcpParams, cwnd: u32, dwnd: u32) -> Harness<Ctcp> {
    let mut h = Harness::<Ctcp>::with_params(p, cwnd + dwnd);
    h.tp.snd_ssthresh = 2;
    (h.cc.cwnd, h.cc.dwnd) = (cwnd, dwnd);
    h.cc.beg_cwnd = cwnd;
    h.cc.base_rtt_us = 100_000;
    h
}

/// Send a window, start a round at it, and ACK it segment by segment 1 ms
/// apart (so each ACK is sampled, δ = 1 ms), the i-th with RTT `rtt_ms(i)`.
pub(super) fn measure(h: &mut Harness<Ctcp>, rtt_ms: impl Fn(u32) -> u32) {
    h.send_all();
    h.cc.beg_snd_nxt = h.tp.snd_nxt;
    for i in 0..h.tp.packets_out {
        h.set_rtt_ms(rtt_ms(i));
        h.advance_ms(1);
        h.ack_each(1, 1);
    }
}

/// Send the next window and deliver its first ACK, which ends the round.
pub(super) fn close_round(h: &mut Harness<Ctcp>, rtt_ms: u32) {
    h.send_all();
    h.set_rtt_ms(rtt_ms);
    h.advance_ms(1);
    h.ack_each(1, 1);
}

pub(super) fn split(h: &Harness<Ctcp>) -> (u32, u32, u32) {
    (h.cc.cwnd, h.cc.dwnd, h.cwnd())
}

#[test]
fn pow_matches_float_and_is_exact_on_powers() {
    for k in [0.5, 0.75, 0.8, 1.0] {
        for w in [
            1u32,
            2,
            3,
            16,
            40,
            41,
            100,
            1_000,
            10_000,
            65_536,
            1_000_000,
            1_000_000_000,
        ] {
            let exact = (w as f64).powf(k) * 256.0;
            let got = pow_q8(w, fixed(k, 24)) as f64;
            // Within 1/256 segment or 1e-6 relative.
            assert!(
                (got - exact).abs() <= 1.0f64.max(exact * 1e-6),
                "{w}^{k}: {got} vs {exact}"
            );
        }
    }
    assert_eq!(pow_q8(16, fixed(0.75, 24)), 8 * 256);
    assert_eq!(pow_q8(10_000, fixed(0.75, 24)), 1000 * 256);
}

#[test]
fn lowwnd_41_is_the_first_window_with_a_whole_segment_of_increase() {
    // α·w^0.75 − 1: 40 → 15.905/8 − 1 = 0.988; 41 → 16.203/8 − 1 = 1.025 (§V).
    let c = Ctcp::new(&CtcpParams::default());
    assert_eq!(c.dwnd_increase(40), 0);
    assert_eq!(c.dwnd_increase(41), 1);
    // 10000^0.75/8 − 1 = 124 exactly; 100^0.75/8 − 1 = 2.95.
    assert_eq!(c.dwnd_increase(10_000), 124);
    assert_eq!(c.dwnd_increase(100), 2);
}

#[test]
fn no_backlog_grows_dwnd_binomially() {
    // eq. 5 line 1. The measured round (100 ACKs at win 100) gives the Reno
    // part +1 → 101; at the round end diff = 0 < 30 and
    // dwnd += ⌊101^0.75/8 − 1⌋ = ⌊31.86/8 − 1⌋ = ⌊2.98⌋ = 2.
    let mut h = ca(&CtcpParams::default(), 100, 0);
    measure(&mut h, |_| 100);
    assert_eq!(split(&h), (101, 0, 101));
    close_round(&mut h, 100);
    assert_eq!(split(&h), (101, 2, 103));
}

#[test]
fn backlog_above_gamma_shrinks_dwnd_by_zeta_diff() {
    // eq. 5 line 2. win 200 → Reno +1 → 201; RTT 125 ms, baseRTT 100 ms:
    // diff = 201·25/125 = 40.2 ≥ 30, dwnd = 100 − ⌊40.2⌋ = 60.
    let mut h = ca(&CtcpParams::default(), 100, 100);
    measure(&mut h, |_| 125);
    close_round(&mut h, 125);
    assert_eq!(split(&h), (101, 60, 161));
}

#[test]
fn dwnd_reduction_stops_at_zero() {
    // diff = 111·100/200 = 55.5 > dwnd = 10: (10 − 55.5)⁺ = 0.
    let mut h = ca(&CtcpParams::default(), 100, 10);
    measure(&mut h, |_| 200);
    close_round(&mut h, 200);
    assert_eq!(split(&h), (101, 0, 101));
}

#[test]
fn zeta_scales_the_reduction() {
    // ζ = 0.5: dwnd = 100 − ⌊0.5·40.2⌋ = 80.
    let p = CtcpParams {
        zeta: 0.5,
        ..Default::default()
    };
    let mut h = ca(&p, 100, 100);
    measure(&mut h, |_| 125);
    close_round(&mut h, 125);
    assert_eq!(split(&h), (101, 80, 181));
}

#[test]
fn nwr_holds_dwnd_under_backlog() {
    // CTCP-NWR (§VI.B.6): same round as above, dwnd stays 100.
    let p = CtcpParams {
        nwr: true,
        ..Default::default()
    };
    let mut h = ca(&p, 100, 100);
    measure(&mut h, |_| 125);
    close_round(&mut h, 125);
    assert_eq!(split(&h), (101, 100, 201));
    // Without backlog NWR still grows: diff 0, +⌊202^0.75/8 − 1⌋ = 5.
    measure(&mut h, |_| 100);
    close_round(&mut h, 100);
    assert_eq!(h.cc.dwnd, 105);
}

#[test]
fn loss_halves_cwnd_and_refills_dwnd_to_win_times_one_minus_beta() {
    // eq. 5 line 3: win 160 = 100 + 60 → cwnd 50, dwnd (80 − 50)⁺ = 30.
    let mut h = ca(&CtcpParams::default(), 100, 60);
    h.fast_retransmit();
    assert_eq!(h.ssthresh(), 80);
    h.end_recovery();
    assert_eq!(split(&h), (50, 30, 80));
    // β = 0.3: win·0.7 = 112 → dwnd 62.
    let mut h = ca(
        &CtcpParams {
            beta: 0.3,
            ..Default::default()
        },
        100,
        60,
    );
    h.loss();
    assert_eq!(split(&h), (50, 62, 112));
    // dwnd = 0: (50 − 50)⁺ = 0, plain Reno halving.
    let mut h = ca(&CtcpParams::default(), 101, 0);
    h.loss();
    assert_eq!(split(&h), (50, 0, 50));
}

#[test]
fn undo_restores_both_components() {
    let mut h = ca(&CtcpParams::default(), 100, 60);
    h.fast_retransmit();
    h.undo();
    assert_eq!(split(&h), (100, 60, 160));
}

#[test]
fn delay_component_needs_win_of_lowwnd() {
    // 39 → Reno +1 → win 40 < 41: dwnd stays 0.
    let mut h = ca(&CtcpParams::default(), 39, 0);
    measure(&mut h, |_| 100);
    close_round(&mut h, 100);
    assert_eq!(split(&h), (40, 0, 40));
    // 40 → 41 ≥ 41: +⌊41^0.75/8 − 1⌋ = 1.
    let mut h = ca(&CtcpParams::default(), 40, 0);
    measure(&mut h, |_| 100);
    close_round(&mut h, 100);
    assert_eq!(split(&h), (41, 1, 42));
    // Falling below lowwnd clears dwnd: 30 + 9 → Reno +1 → win 40.
    let mut h = ca(&CtcpParams::default(), 30, 9);
    measure(&mut h, |_| 100);
    close_round(&mut h, 100);
    assert_eq!(split(&h), (31, 0, 31));
}

#[test]
fn more_than_n_samples_are_needed() {
    // 60 segments in 4 stretch ACKs + the closing ACK = 5 samples: not > 5.
    for (acks, per_ack, dwnd) in [(4, 15, 0), (5, 12, 1)] {
        let mut h = ca(&CtcpParams::default(), 60, 0);
        h.send_all();
        h.cc.beg_snd_nxt = h.tp.snd_nxt;
        for _ in 0..acks {
            h.advance_ms(1);
            h.ack_each(1, per_ack);
        }
        close_round(&mut h, 100);
        // 6 samples: +⌊61^0.75/8 − 1⌋ = ⌊1.72⌋ = 1.
        assert_eq!(split(&h), (61, dwnd, 61 + dwnd), "{acks} ACKs");
    }
}

#[test]
fn samples_are_spread_over_the_window_not_over_time() {
    // §V: up to M ≈ RTT/δ samples per window, uniformly among its packets.
    // All 100 ACKs of a round at one instant (an unpaced window with no
    // queue): M = 100 ms / 1 ms = 100, so every ACK is sampled and the
    // round updates dwnd by ⌊100^0.75/8 − 1⌋ = ⌊2.95⌋ = 2. (Spacing
    // samples 1 ms apart in time took 2 and never updated dwnd.)
    for interval in [1000, 0] {
        let p = CtcpParams {
            sample_interval_us: interval,
            ..Default::default()
        };
        let mut h = ca(&p, 100, 0);
        h.send_all();
        h.cc.beg_snd_nxt = h.tp.snd_nxt;
        h.advance_ms(100);
        h.ack_all();
        close_round(&mut h, 100);
        assert_eq!(h.cc.dwnd, 2, "interval {interval}");
    }
    // win 1000, srtt 100 ms: one sample per 1000·δ/100 ms segments —
    // δ = 1 ms: every 10th → 100; δ = 10 ms: every 100th → 10; δ = 0: all.
    for (interval, samples) in [(1000, 100), (10_000, 10), (0, 1000)] {
        let p = CtcpParams {
            sample_interval_us: interval,
            ..Default::default()
        };
        let mut h = ca(&p, 1000, 0);
        h.send_all();
        h.cc.beg_snd_nxt = h.tp.snd_nxt;
        h.advance_ms(100);
        h.ack_all();
        assert_eq!(h.cc.cnt_rtt, samples, "interval {interval}");
    }
}

#[test]
fn round_rtt_is_the_average_or_optionally_the_minimum() {
    // Samples alternate 100/140 ms: 100 of each (the closing one is 100).
    // Average 120: diff = 201·20/120 = 33.5 ≥ 30 → dwnd 100 − 33 = 67.
    // Minimum 100: diff 0 → dwnd 100 + ⌊201^0.75/8 − 1⌋ = 105.
    for (min_filter, dwnd) in [(false, 67), (true, 105)] {
        let p = CtcpParams {
            rtt_min_filter: min_filter,
            ..Default::default()
        };
        let mut h = ca(&p, 100, 100);
        measure(&mut h, |i| if i % 2 == 0 { 140 } else { 100 });
        close_round(&mut h, 100);
        assert_eq!(h.cc.dwnd, dwnd, "min filter {min_filter}");
    }
}

#[test]
fn sampling_and_dwnd_are_frozen_in_recovery() {
    let mut h = ca(&CtcpParams::default(), 100, 60);
    h.fast_retransmit();
    // Samples during recovery (one below baseRTT) are ignored.
    h.send(20);
    h.set_rtt_ms(50);
    h.advance_ms(1);
    h.ack_each(10, 1);
    assert_eq!(
        (h.cc.base_rtt_us, h.cc.cnt_rtt, h.cc.dwnd),
        (100_000, 0, 30)
    );
    // Leaving recovery starts a fresh round at snd_nxt.
    h.end_recovery();
    assert_eq!((h.cc.beg_snd_nxt, h.cc.cnt_rtt), (h.tp.snd_nxt, 0));
}

#[test]
fn timeout_clears_dwnd_until_slow_start_ends() {
    // win 160 → ssthresh 80, dwnd 0, cwnd 1 (§III.B).
    let mut h = ca(&CtcpParams::default(), 100, 60);
    h.timeout();
    assert_eq!((h.cc.dwnd, h.ssthresh(), h.cwnd()), (0, 80, 1));
    let spaced_round = |h: &mut Harness<Ctcp>| {
        h.send_all();
        for _ in 0..h.tp.packets_out {
            h.advance_ms(1);
            h.ack_each(1, 1);
        }
    };
    // Slow start without a queue: no delay component.
    for expected in [2, 4, 8, 16, 32, 64, 80] {
        spaced_round(&mut h);
        assert_eq!((h.cwnd(), h.cc.dwnd), (expected, 0));
    }
    // The round of 64 ended slow start at ACK 16 and left 48 credits at w 80.
    // The next round's first ACK closes it in CA: +⌊80^0.75/8 − 1⌋ = 2 → 82,
    // then 34 more ACKs complete 82 credits → 83.
    spaced_round(&mut h);
    assert_eq!(split(&h), (81, 2, 83));
}

#[test]
fn gamma_auto_tunes_from_the_buffer_ratio_at_loss() {
    // RTTmax 150, RTTmin 100: γ = 41·50/150 = 13.67 (Q8: 3498).
    let p = CtcpParams {
        gamma_auto: true,
        ..Default::default()
    };
    let mut h = ca(&p, 100, 100);
    h.cc.max_round_rtt_us = 150_000;
    h.loss();
    assert_eq!(h.cc.gamma_q8, 3498);
    // Now a backlog of 151·15/115 = 19.7 packets (< 30) already shrinks dwnd.
    h.tp.snd_cwnd = 150;
    (h.cc.cwnd, h.cc.dwnd) = (100, 50);
    measure(&mut h, |_| 115);
    close_round(&mut h, 115);
    assert_eq!(h.cc.dwnd, 50 - 19);
    // γ_min: RTTmax 104 → 41·4/104 = 1.58 < 5.
    h.cc.max_round_rtt_us = 104_000;
    h.loss();
    assert_eq!(h.cc.gamma_q8, 5 * 256);
}

#[test]
fn fixed_gamma_is_not_tuned() {
    let mut h = ca(&CtcpParams::default(), 100, 100);
    h.cc.max_round_rtt_us = 150_000;
    h.loss();
    assert_eq!(h.cc.gamma_q8, 30 * 256);
}

#[test]
fn selectable_by_name_with_params() {
    let p =
        crate::CcParams::with("compound", &[("gamma", 20.0), ("nwr", 1.0), ("k", 0.8)]).unwrap();
    assert_eq!(p.name(), "ctcp");
    assert!(crate::CcParams::with("ctcp", &[("lowwnd", 1.5)]).is_err());
}

#[test]
fn round_maximum_rtt_is_tracked_for_gamma() {
    let mut h = ca(&CtcpParams::default(), 100, 0);
    measure(&mut h, |_| 130);
    close_round(&mut h, 130);
    assert_eq!(h.cc.max_round_rtt_us, 130_000);
}
