//! Scripted tests with hand-computed expectations. [`ack`] feeds one
//! delivery-rate sample of chosen values; most tests run at 10 packets/ms
//! (2^24/100 = 167 772 in packets/µs << 24) and a 10-ms min RTT, so one BDP
//! is ⌈167 772 · 10 000 / 2^24⌉ = 100 packets. [`PacedPath`] runs BBRv3 over
//! that bottleneck with rate samples made as `tcp_rate.c` makes them.

use super::*;
use crate::testing::{Harness, PacedPath, Policer, RateAck as Ack, MSS};

/// 10 packets per ms in packets/µs << 24.
const BW_10_PER_MS: u32 = 167_772;

fn bbr3() -> Harness<Bbr3> {
    Harness::new(Bbr3::new(&Bbr3Params::default()), 10)
}

/// Deliver `a`, its packet sent after every round mark if `a.new_round` and
/// just before the earliest otherwise (unless `a.prior` says when).
fn ack(h: &mut Harness<Bbr3>, a: Ack) {
    let c = &h.cc;
    let earliest_mark = c
        .next_round_delivered
        .min(c.loss_round_delivered)
        .min(c.lost_mark_next);
    let prior = if a.new_round {
        h.tp.delivered
    } else {
        earliest_mark.wrapping_sub(1)
    };
    h.rate_ack(a, a.prior.unwrap_or(prior));
}

/// A round of 10 ms ending with one ACK whose sample is `delivered` packets
/// over 10 ms (100 packets: 10 per ms).
fn round_of(h: &mut Harness<Bbr3>, delivered: i32) {
    h.advance_ms(10);
    ack(h, Ack::of(delivered, 10_000).ending_round());
}

/// The pacing rate of `bw` at a gain in percent, with the 1 % margin, bytes/s:
/// bw · MSS · gain / 100 · 990 000 / 2^24.
fn rate(bw: u64, gain: u64) -> u64 {
    ((bw * MSS as u64 * gain / 100) * 990_000) >> 24
}

/// A flow at 10 packets/ms that has filled the pipe and cruises: four
/// rounds at that rate (one baseline, three without growth) with nothing in
/// flight take it through DRAIN and DOWN into CRUISE on the fourth ACK.
fn cruising() -> Harness<Bbr3> {
    let h = after_rounds(0, 4);
    assert_eq!(h.cc.state, State::ProbeBwCruise);
    h
}

/// A fresh flow with `packets_out` in flight after `rounds` rounds at 10 packets/ms.
fn after_rounds(packets_out: u32, rounds: usize) -> Harness<Bbr3> {
    let mut h = bbr3();
    h.tp.packets_out = packets_out;
    for _ in 0..rounds {
        round_of(&mut h, 100);
    }
    h
}

#[test]
fn init_paces_at_the_startup_gain_times_the_initial_window_per_ms() {
    let h = bbr3();
    assert!(h.tp.pacing_needed);
    assert_eq!(h.cc.state, State::Startup);
    assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (277, 200));
    // 10 packets per nominal 1 ms: 10 · 2^24 / 1000 = 167 772; · 1448 · 2.77
    // = 672 926 781 (packets/µs << 24 · bytes); · 10^6 >> 24 = 40 109 561 B/s.
    assert_eq!(h.tp.pacing_rate, 40_109_561);
    assert_eq!(
        (h.cc.inflight_longterm, h.cc.bw_shortterm, h.cc.min_rtt_us),
        (INF, INF, INF)
    );
    // C.InitialCwnd is the sender's: 4 packets per ms is 67 108, and
    // 67 108 · 1448 · 2.77 · 10^6 >> 24 = 16 043 633 B/s. Before an RTT
    // sample the BDP is that window too.
    let h = Harness::new(Bbr3::new(&Bbr3Params::default()), 4);
    assert_eq!(h.cc.initial_cwnd, 4);
    assert_eq!(h.tp.pacing_rate, 16_043_633);
    assert_eq!(h.cc.bdp_multiple(BW_10_PER_MS, 100), 4);
}

#[test]
fn startup_never_slows_down_and_ends_after_three_rounds_without_25_percent_growth() {
    let mut h = bbr3();
    h.tp.packets_out = 500;
    // 50 then 100 packets per 10 ms: growth (100 ≥ 1.25 · 50), full_bw follows.
    round_of(&mut h, 50);
    round_of(&mut h, 100);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_count), (BW_10_PER_MS, 0));
    // Before the pipe is full the rate only grows: 2.77 · 10/ms with the
    // margin (39 707 465 B/s) stays below the initial 40 109 561.
    assert_eq!(h.tp.pacing_rate, 40_109_561);
    assert!(rate(BW_10_PER_MS as u64, 277) < 40_109_561);
    // 124 packets: 124 · 2^24 / 10^4 = 208 037 < 1.25 · 167 772 = 209 715.
    round_of(&mut h, 124);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_count), (BW_10_PER_MS, 1));
    round_of(&mut h, 100);
    assert_eq!(h.cc.state, State::Startup);
    round_of(&mut h, 100);
    assert!(h.cc.full_bw_now && h.cc.full_bw_reached);
    // DRAIN at 0.5; the max filter kept the 124-packet sample (208 037).
    assert_eq!(h.cc.state, State::Drain);
    assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (50, 200));
    assert_eq!(h.cc.bw, 208_037);
    assert_eq!(h.tp.pacing_rate, rate(208_037, 50));
    assert_eq!(h.cc.drain_start_round, 5);
    // ssthresh shows STARTUP is over (as Linux's v3): one BDP at max_bw,
    // ⌈208 037 · 10 000 / 2^24⌉ = 124, above the offload budget (83).
    assert_eq!(h.tp.snd_ssthresh, 124);
}

#[test]
fn a_sample_of_exactly_125_percent_is_growth() {
    let mut h = after_rounds(500, 1);
    // 125 packets in 10 ms: 125 · 2^24 / 10^4 = 209 715 = ⌊1.25 · 167 772⌋, growth.
    round_of(&mut h, 125);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_count), (209_715, 0));
}

#[test]
fn drain_ends_at_one_bdp_in_flight_or_after_three_rounds() {
    let mut h = after_rounds(1000, 4);
    assert_eq!(h.cc.state, State::Drain);
    // One BDP is 100 packets; the offload budget (3 quanta of 1 ms at
    // 40 109 561 B/s: 3 · 40 109 / 1448 = 83) is below it.
    assert_eq!(h.cc.inflight(&h.tp, BW_10_PER_MS, 100), 100);
    h.tp.packets_out = 102;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.state, State::Drain);
    ack(&mut h, Ack::default()); // 100 in flight
    assert_eq!(
        h.cc.state,
        State::ProbeBwCruise,
        "DOWN, then CRUISE at once"
    );

    // Whatever the flight, DRAIN ends when round_count > drain_start_round + 3.
    let mut h = after_rounds(1000, 4);
    let start = h.cc.drain_start_round;
    for _ in 0..3 {
        round_of(&mut h, 100);
        assert_eq!(h.cc.state, State::Drain);
    }
    round_of(&mut h, 100);
    assert_eq!(h.cc.round_count, start + 4);
    assert_eq!(h.cc.state, State::ProbeBwDown);
    assert_eq!(h.cc.pacing_gain, 90);
    assert_eq!(h.tp.pacing_rate, rate(BW_10_PER_MS as u64, 90));
    assert_eq!(h.tp.pacing_rate, 12_901_667);
}

#[test]
fn down_cruises_once_the_flight_fits_the_headroom_and_the_bdp() {
    let mut h = cruising();
    h.tp.snd_cwnd = 200;
    h.cc.inflight_longterm = 100;
    h.cc.start_probe_bw_down(&mut h.tp);
    // Headroom: 100 − max(1, 15 % of 100) = 85.
    assert_eq!(h.cc.inflight_with_headroom(), 85);
    h.tp.packets_out = 87;
    ack(&mut h, Ack::default()); // 86 in flight
    assert_eq!(h.cc.state, State::ProbeBwDown);
    ack(&mut h, Ack::default()); // 85
    assert_eq!(h.cc.state, State::ProbeBwCruise);
    assert_eq!(h.cc.pacing_gain, 100);
    // CRUISE caps cwnd at the headroom (BoundCwndForModel).
    assert_eq!(h.tp.snd_cwnd, 85);
}

#[test]
fn cruise_refills_after_the_reno_coexistence_rounds_then_probes_up_for_a_round() {
    let mut h = cruising();
    h.tp.snd_cwnd = 200;
    // TargetInflight = min(BDP 100, cwnd 200) = 100, capped at 63 rounds,
    // less the 0 or 1 round PickProbeWait counted already.
    let first = h.cc.rounds_since_probe_up;
    assert!(first <= 1);
    for _ in first..62 {
        round_of(&mut h, 100);
        assert_eq!(h.cc.state, State::ProbeBwCruise);
    }
    round_of(&mut h, 100);
    assert_eq!(h.cc.state, State::ProbeBwRefill);
    assert_eq!((h.cc.bw_shortterm, h.cc.inflight_shortterm), (INF, INF));
    assert_eq!(h.cc.ack_phase, AckPhase::Refilling);
    // One round of REFILL, then UP at 1.25 with cwnd gain 2.25.
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.state, State::ProbeBwRefill);
    let cwnd = h.tp.snd_cwnd;
    round_of(&mut h, 100);
    assert_eq!(h.cc.state, State::ProbeBwUp);
    assert!(h.cc.is_bw_probe_sample);
    assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (125, 225));
    assert_eq!(h.tp.pacing_rate, 17_918_982);
    assert_eq!(h.cc.full_bw, BW_10_PER_MS);
    // The first slope: cwnd / 2^0 packets ACKed per packet of inflight_longterm.
    assert_eq!(h.cc.bw_probe_up_rounds, 1);
    assert_eq!(h.cc.probe_up_acked_per_inc, cwnd);
    // UP ends when the rate stops growing for 3 rounds (full_bw_now).
    for _ in 0..2 {
        round_of(&mut h, 100);
        assert_eq!(h.cc.state, State::ProbeBwUp);
    }
    round_of(&mut h, 100);
    assert_eq!(h.cc.state, State::ProbeBwDown);
    assert!(!h.cc.prev_probe_too_high);
    assert_eq!(h.cc.ack_phase, AckPhase::ProbeStopping);
}

#[test]
fn cruise_refills_after_the_wall_clock_wait_of_two_to_three_seconds() {
    let mut h = cruising();
    let wait = h.cc.bw_probe_wait_us;
    assert!((2_000_000..3_000_000).contains(&wait), "{wait}");
    // ACKs that start no round, so only the clock can end CRUISE.
    let stamp = h.cc.cycle_stamp;
    h.tp.now_us = stamp + wait;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.state, State::ProbeBwCruise);
    h.tp.now_us += 1;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.state, State::ProbeBwRefill);
}

#[test]
fn the_max_bw_filter_advances_one_round_after_down_starts() {
    let mut h = cruising();
    // cruising(): the DOWN-entry ACK was a round start, so cycle 1 began there.
    assert_eq!(h.cc.max_bw.cycle_count, 1);
    assert_eq!(h.cc.max_bw.get(), BW_10_PER_MS);
    h.cc.start_probe_bw_down(&mut h.tp);
    h.tp.packets_out = 500; // stay in DOWN
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.max_bw.cycle_count, 1);
    // 50 packets per 10 ms: a lower sample, in cycle 2.
    round_of(&mut h, 50);
    assert_eq!(h.cc.max_bw.cycle_count, 2);
    assert_eq!(h.cc.ack_phase, AckPhase::Init);
    assert_eq!(h.cc.max_bw.get(), BW_10_PER_MS, "cycle 1 holds 10/ms still");
    h.cc.start_probe_bw_down(&mut h.tp);
    round_of(&mut h, 50);
    // Cycle 3: cycles 2 (5/ms) and 3 remain.
    assert_eq!(h.cc.max_bw.cycle_count, 3);
    assert_eq!(h.cc.max_bw.get(), BW_10_PER_MS / 2);
    assert_eq!(h.cc.bw, BW_10_PER_MS / 2);
}

/// In UP with the probe's samples arriving, 100 BDP, marks of C.lost
/// (delivered 1000: lost 10; delivered 1100: lost 20), 1200 delivered, 20 lost.
fn probing_up() -> Harness<Bbr3> {
    let mut h = cruising();
    h.tp.snd_cwnd = 120;
    h.cc.start_probe_bw_refill(&h.tp);
    round_of(&mut h, 100);
    assert_eq!(h.cc.state, State::ProbeBwUp);
    h.tp.delivered = 1200;
    h.tp.lost = 20;
    h.cc.lost_seen = 20;
    h.tp.packets_out = 150;
    h.cc.next_round_delivered = 1200;
    h.cc.loss_round_delivered = 1200;
    h.cc.lost_marks = [(1000, 10), (1100, 20)];
    h.cc.lost_mark_next = 1100;
    h
}

#[test]
fn the_estimate_of_rs_lost_interpolates_c_lost_between_round_marks() {
    let mut h = probing_up();
    // P sent at delivered 1050, halfway between the marks: P.lost = 10 +
    // (20 − 10) · 50/100 = 15. With 2 lost by this ACK C.lost = 22: RS.lost = 7.
    // RS.delivered 151 → tx_in_flight = 151 + 7 = 158.
    h.tp.lost = 22;
    let rs = RateSample {
        prior_delivered: 1050,
        delivered: 151,
        ..RateSample::default()
    };
    assert_eq!(h.cc.estimate_tx_in_flight_and_lost(&h.tp, &rs), (158, 7));
    // Before the older mark: P.lost = 10; at or after the newer one: 20.
    let rs = RateSample {
        prior_delivered: 990,
        ..rs
    };
    assert_eq!(h.cc.estimate_tx_in_flight_and_lost(&h.tp, &rs), (163, 12));
    // A sample sent after the newer mark ends the estimator's round: the
    // marks move on to (1100, 20) and (C.delivered, C.lost) = (1200, 22).
    let rs = RateSample {
        prior_delivered: 1100,
        ..rs
    };
    assert_eq!(h.cc.estimate_tx_in_flight_and_lost(&h.tp, &rs), (153, 2));
    assert_eq!(h.cc.lost_marks, [(1100, 20), (1200, 22)]);
    assert_eq!(h.cc.lost_mark_next, 1200);
    // No packet delivered: no sample.
    let none = RateSample {
        delivered: -1,
        ..RateSample::default()
    };
    assert_eq!(h.cc.estimate_tx_in_flight_and_lost(&h.tp, &none), (0, 0));
}

#[test]
fn a_probe_losing_over_2_percent_sets_inflight_longterm_and_goes_down() {
    let mut h = probing_up();
    let cwnd_before = h.tp.snd_cwnd;
    // 5 lost by this ACK: C.lost 25, P.lost 15 (delivered 1050), RS.lost 10;
    // RS.delivered = 1201 − 1050 = 151, tx_in_flight 161. 10 > 2 % · 161.
    ack(&mut h, Ack::of(151, 15_100).losing(5).sent_at(1050)); // 10 packets/ms
                                                               // InflightAtLoss with the 5 as one burst: inflight_prev 156, lost_prev 5,
                                                               // lost_prefix = (2 · 156 − 100 · 5) / 98 = −188/98 → −1; at loss 155.
                                                               // Beta floor: 0.7 · TargetInflight (min(BDP 100, cwnd)) = 70.
    assert_eq!(h.cc.inflight_longterm, 155);
    assert!(h.cc.prev_probe_too_high && !h.cc.is_bw_probe_sample);
    assert_eq!(h.cc.state, State::ProbeBwDown);
    assert_eq!(h.cc.undo_state, Some(State::ProbeBwUp));
    // Before the reaction the loss saved what an undo restores.
    assert_eq!(h.cc.undo_inflight_longterm, INF);
    assert_eq!(h.cc.prior_cwnd, cwnd_before);
    // DOWN caps cwnd at inflight_longterm.
    assert!(h.tp.snd_cwnd <= 155);

    // The recovery was spurious: back to the bound before it, and to REFILL.
    h.tp.snd_cwnd = 50;
    assert_eq!(h.cc.undo_cwnd(&mut h.tp), cwnd_before);
    assert_eq!(h.cc.inflight_longterm, INF);
    assert_eq!(h.cc.state, State::ProbeBwRefill);
    assert_eq!(h.cc.undo_state, None);
}

#[test]
fn losses_a_timer_marked_count_at_the_next_ack() {
    let mut h = probing_up();
    // RACK's reordering timer marks 5 lost between ACKs: C.lost 20 → 25.
    h.tp.lost += 5;
    // The next ACK marks none itself; its sample is the one of the test
    // above (RS.lost 10, tx_in_flight 161): the probe went too high.
    ack(&mut h, Ack::of(151, 15_100).sent_at(1050)); // 10 packets/ms
    assert_eq!(h.cc.undo_state, Some(State::ProbeBwUp));
    assert_eq!(h.cc.inflight_longterm, 155);
    assert_eq!(h.cc.state, State::ProbeBwDown);
    assert_eq!(h.cc.lost_seen, 25);
    // Seen once: the following ACK finds no new loss.
    let events = h.cc.loss_events_in_round;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.loss_events_in_round, events);
}

/// The stack marks one packet lost (C.lost counting it) and reports it with
/// its stamp: `tx_in_flight` at its send, C.lost then `tx_lost`.
fn mark_lost(h: &mut Harness<Bbr3>, tx_in_flight: u32, tx_lost: u32, is_app_limited: bool) {
    h.tp.lost += 1;
    let skb = LostSkb {
        tx_in_flight,
        tx_lost,
        tx_delivered: 1100,
        is_app_limited,
    };
    h.cc.skb_marked_lost(&mut h.tp, &skb);
}

#[test]
fn a_packet_marked_lost_is_judged_by_its_own_stamp() {
    let mut h = probing_up();
    // P left 150 in flight when C.lost was 17; marked now, C.lost 21:
    // RS.lost = 4 > 2 % · 150 = 3. InflightAtLoss for P alone: inflight_prev
    // 149, lost_prev 3, lost_prefix = (2 · 149 − 100 · 3) / 98 = −2/98 → 0:
    // 149, above the β floor 0.7 · min(BDP 100, cwnd 120) = 70.
    mark_lost(&mut h, 150, 17, false);
    assert_eq!(h.cc.inflight_longterm, 149);
    assert!(h.cc.prev_probe_too_high && !h.cc.is_bw_probe_sample);
    assert_eq!(h.cc.state, State::ProbeBwDown);
    assert_eq!(h.cc.undo_state, Some(State::ProbeBwUp));
    // The ACK that follows (the stack's samples carry RS.tx_in_flight) does
    // not take the reported packet again as a burst; it is one loss event.
    let events = h.cc.loss_events_in_round;
    let rs = RateSample {
        prior_delivered: 1150,
        delivered: 51,
        interval_us: 5_100,
        losses: 1,
        acked_sacked: 1,
        tx_in_flight: 160,
        lost: 1,
        ..RateSample::default()
    };
    h.tp.delivered += 1;
    assert!(h.cc.cong_control(&mut h.tp, &rs));
    assert_eq!(h.cc.loss_events_in_round, events + 1);
    assert_eq!((h.cc.lost_seen, h.cc.lost_reported), (21, 0));
    // Its sample is safe (1 of 160): the bound rises to that flight (§5.3.3.9).
    assert_eq!(h.cc.inflight_longterm, 160);
}

#[test]
fn a_packet_marked_lost_within_2_percent_or_app_limited_leaves_the_bound() {
    // RS.lost = 21 − 18 = 3, not above 2 % · 150 = 3: the probe goes on.
    let mut h = probing_up();
    mark_lost(&mut h, 150, 18, false);
    assert_eq!(
        (h.cc.state, h.cc.inflight_longterm),
        (State::ProbeBwUp, INF)
    );
    assert!(h.cc.is_bw_probe_sample && h.cc.is_loss_in_round);
    // Too high, but sent app-limited: no bound from it; UP still ends.
    let mut h = probing_up();
    mark_lost(&mut h, 150, 17, true);
    assert_eq!(
        (h.cc.state, h.cc.inflight_longterm),
        (State::ProbeBwDown, INF)
    );
    // In CRUISE, not probing, a loss is only noted.
    let mut h = cruising();
    h.tp.lost = 20;
    h.cc.lost_seen = 20;
    assert!(!h.cc.is_bw_probe_sample);
    mark_lost(&mut h, 150, 0, false);
    assert_eq!(
        (h.cc.state, h.cc.inflight_longterm),
        (State::ProbeBwCruise, INF)
    );
    assert!(h.cc.is_loss_in_round);
}

#[test]
fn a_sample_with_the_flight_at_its_send_is_taken_as_is() {
    let mut h = probing_up();
    h.cc.inflight_longterm = 90;
    // The same ACK as the test below, but the stack says P left 130 in
    // flight and none was lost since: RS.tx_in_flight 130, not the estimate 102.
    let rs = RateSample {
        prior_delivered: 1100,
        delivered: 101,
        interval_us: 10_100,
        acked_sacked: 1,
        tx_in_flight: 130,
        lost: 0,
        ..RateSample::default()
    };
    h.tp.delivered += 1;
    assert!(h.cc.cong_control(&mut h.tp, &rs));
    assert_eq!(h.cc.inflight_longterm, 130);
    // The estimator's marks did not move: it was not asked.
    assert_eq!(h.cc.lost_marks, [(1000, 10), (1100, 20)]);
}

#[test]
fn a_probe_losing_at_most_2_percent_raises_inflight_longterm_to_the_flight_sampled() {
    let mut h = probing_up();
    h.cc.inflight_longterm = 90;
    // P sent at delivered 1100 (P.lost 20); 1 lost now: RS.lost 1,
    // RS.delivered 101, tx_in_flight 102; 1 ≤ 2 % · 102 = 2.04.
    ack(
        &mut h,
        Ack {
            delivered: 101,
            losses: 1,
            prior: Some(1100),
            ..Ack::default()
        },
    );
    assert_eq!(h.cc.state, State::ProbeBwUp);
    assert!(h.cc.is_bw_probe_sample && !h.cc.prev_probe_too_high);
    assert_eq!(h.cc.inflight_longterm, 102);
    // 2 lost of 102 + 1 = 103 is still within 2 % (2 · 100 ≤ 103 · 2 = 206);
    // 3 of 104 is not.
    let s = Sample {
        tx_in_flight: 103,
        lost: 2,
        ..Sample::default()
    };
    assert!(!h.cc.is_inflight_too_high(&s));
    let s = Sample {
        tx_in_flight: 104,
        lost: 3,
        ..Sample::default()
    };
    assert!(h.cc.is_inflight_too_high(&s));
}

#[test]
fn up_grows_inflight_longterm_by_1_2_4_packets_per_round_while_limited_by_it() {
    let mut h = probing_up();
    h.cc.inflight_longterm = 120;
    h.tp.snd_cwnd = 120;
    h.tp.is_cwnd_limited = true;
    // No losses since the marks: every sample is under 2 %.
    h.cc.lost_marks = [(1100, 20), (1200, 20)];
    // The slope was set at UP's start: 120 / 2^0 = 120 ACKed per packet.
    assert_eq!(h.cc.probe_up_acked_per_inc, 120);
    h.cc.bw_probe_up_acked = 0;
    // 119 ACKed: not yet; the 120th adds one packet.
    for _ in 0..119 {
        ack(&mut h, Ack::default());
    }
    assert_eq!(h.cc.inflight_longterm, 120);
    ack(&mut h, Ack::default());
    assert_eq!((h.cc.inflight_longterm, h.cc.bw_probe_up_acked), (121, 0));
    // A round start doubles the growth: cwnd / 2^1 per packet.
    let cwnd = h.tp.snd_cwnd;
    assert_eq!(cwnd, 121);
    round_of(&mut h, 100);
    assert_eq!(h.cc.bw_probe_up_rounds, 2);
    assert_eq!(h.cc.probe_up_acked_per_inc, 60);
}

#[test]
fn a_lossy_round_outside_probing_cuts_the_short_term_bounds_by_beta() {
    let mut h = cruising();
    h.tp.snd_cwnd = 100;
    h.tp.packets_out = 100;
    // A round at 6 packets/ms (100 663): the ACK ending a loss round starts
    // the next one's bw_latest and inflight_latest (60).
    round_of(&mut h, 60);
    assert_eq!((h.cc.bw_latest, h.cc.inflight_latest), (100_663, 60));
    // A loss starts the loss round; ACKs of 60 packets per 10 ms follow.
    let lossy = Ack::of(60, 10_000).losing(1);
    ack(&mut h, lossy);
    assert!(h.cc.is_loss_in_round);
    assert_eq!(h.cc.bw_shortterm, INF);
    round_of(&mut h, 60);
    // bw_shortterm = max(bw_latest 100 663, 0.7 · max_bw 167 772 = 117 440);
    // inflight_shortterm = max(inflight_latest 60, 0.7 · cwnd 102 = 71) (the
    // two ACKs since cwnd was 100 added one packet each).
    assert_eq!(h.cc.bw_shortterm, 117_440);
    assert_eq!(h.cc.inflight_shortterm, 71);
    assert_eq!(h.cc.bw, 117_440);
    assert_eq!(h.tp.pacing_rate, rate(117_440, 100));
    assert_eq!(h.tp.snd_cwnd, 71);
    // A second lossy round at 4/ms: the latest (100 663 and 60, from the
    // ACK that ended the first) are above 0.7 · the bounds (82 208 and 49).
    ack(
        &mut h,
        Ack {
            delivered: 40,
            ..lossy
        },
    );
    round_of(&mut h, 40);
    assert_eq!((h.cc.bw_shortterm, h.cc.inflight_shortterm), (100_663, 60));
    // A third: latest 67 108 and 40, under 0.7 · (100 663, 60) = (70 464, 42).
    ack(
        &mut h,
        Ack {
            delivered: 40,
            ..lossy
        },
    );
    round_of(&mut h, 40);
    assert_eq!((h.cc.bw_shortterm, h.cc.inflight_shortterm), (70_464, 42));
    // A round without loss leaves them.
    round_of(&mut h, 40);
    assert_eq!((h.cc.bw_shortterm, h.cc.inflight_shortterm), (70_464, 42));
}

#[test]
fn startup_ends_on_six_loss_events_in_a_recovery_round_above_2_percent() {
    for (events, exits) in [(5, false), (6, true)] {
        let mut h = after_rounds(1000, 1);
        h.tp.ca_state = CaState::Recovery;
        for _ in 0..events {
            ack(&mut h, Ack::default().losing(1));
        }
        assert_eq!(h.cc.loss_events_in_round, events);
        // The loss round ends: RS.lost = all `events` (C.lost at the last
        // mark was 0), tx_in_flight = 120 + events; above 2 %.
        ack(&mut h, Ack::of(120, 12_000).ending_round());
        assert_eq!(h.cc.loss_events_in_round, 0);
        assert_eq!(h.cc.full_bw_reached, exits, "{events} events");
        if exits {
            assert_eq!(h.cc.state, State::Drain);
            assert_eq!(h.cc.undo_state, Some(State::Startup));
            // max(BDP 100, inflight_latest 120).
            assert_eq!(h.cc.inflight_longterm, 120);
            // Spurious: back to STARTUP.
            h.cc.undo_cwnd(&mut h.tp);
            assert_eq!(h.cc.state, State::Startup);
            assert!(!h.cc.full_bw_reached);
        } else {
            assert_eq!(h.cc.state, State::Startup);
            assert_eq!(h.cc.inflight_longterm, INF);
        }
    }
}

#[test]
fn leaving_recovery_restores_the_cwnd_saved_on_entering_it() {
    let mut h = cruising();
    h.tp.snd_cwnd = 150;
    h.tp.packets_out = 150;
    // ssthresh is left as STARTUP's end set it (one BDP, 100): BBR does not use it.
    assert_eq!(h.cc.ssthresh(&mut h.tp), 100);
    assert_eq!(h.cc.prior_cwnd, 150);
    h.tp.ca_state = CaState::Recovery;
    ack(&mut h, Ack::default());
    h.tp.snd_cwnd = 60;
    h.tp.ca_state = CaState::Open;
    ack(&mut h, Ack::default());
    // Restored to 150, then + 1 ACKed, under max_inflight (2 BDP + extra_acked).
    assert_eq!(h.tp.snd_cwnd, 151);
}

#[test]
fn probe_rtt_after_5_s_without_a_lower_rtt_holds_half_a_bdp_for_200_ms_and_a_round() {
    let mut h = cruising();
    h.tp.snd_cwnd = 200;
    let stamp = h.cc.probe_rtt_min_stamp;
    // RTTs of 12 ms keep probe_rtt_min_delay at 10 ms until 5 s have passed.
    let slow = Ack {
        rtt_us: 12_000,
        ..Ack::default()
    };
    h.tp.now_us = stamp + 5_000_000;
    ack(&mut h, slow);
    assert!(h.cc.state.is_probe_bw());
    h.tp.now_us += 1;
    h.tp.packets_out = 200;
    // cwnd 200 + 1 from the ACK before: 201 saved.
    assert_eq!(h.tp.snd_cwnd, 201);
    ack(&mut h, slow);
    assert_eq!(h.cc.state, State::ProbeRtt);
    assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (100, 50));
    assert_eq!(h.cc.prior_cwnd, 201);
    // min_rtt keeps 10 ms (its window is 10 s); the 5-s filter took 12 ms.
    assert_eq!(
        (h.cc.min_rtt_us, h.cc.probe_rtt_min_delay),
        (10_000, 12_000)
    );
    // cwnd = max(0.5 · BDP, 4) = 50, and the samples are app-limited.
    assert_eq!(h.cc.probe_rtt_cwnd(), 50);
    assert_eq!(h.tp.snd_cwnd, 50);
    assert!(h.tp.app_limited);
    assert_eq!(h.cc.probe_rtt_done_stamp, 0);
    // The flight down to 50 starts the 200 ms.
    h.tp.packets_out = 51;
    ack(&mut h, slow);
    let done = h.cc.probe_rtt_done_stamp;
    assert_eq!(done, h.tp.now_us + 200_000);
    // A round passes, but not 200 ms.
    h.tp.now_us += 100_000;
    ack(
        &mut h,
        Ack {
            new_round: true,
            ..slow
        },
    );
    assert!(h.cc.probe_rtt_round_done);
    assert_eq!(h.cc.state, State::ProbeRtt);
    h.tp.now_us = done + 1;
    ack(&mut h, slow);
    // Back to PROBE_BW through DOWN into CRUISE, the cwnd restored (201)
    // and grown by the packet this ACK delivered.
    assert_eq!(h.cc.state, State::ProbeBwCruise);
    assert_eq!(h.tp.snd_cwnd, 202);
    assert_eq!(h.cc.probe_rtt_min_stamp, done + 1);
}

#[test]
fn a_restart_from_idle_in_probe_bw_paces_at_the_estimate() {
    let mut h = cruising();
    h.cc.start_probe_bw_down(&mut h.tp);
    h.tp.packets_out = 500; // stays in DOWN
    ack(&mut h, Ack::default());
    assert_eq!(h.tp.pacing_rate, 12_901_667);
    h.tp.packets_out = 0;
    h.tp.app_limited = true;
    h.cc.cwnd_event(&mut h.tp, CaEvent::TxStart);
    assert!(h.cc.idle_restart);
    assert_eq!(h.tp.pacing_rate, 14_335_186);
}

#[test]
fn the_offload_budget_is_three_quanta_of_a_ms_at_the_pacing_rate() {
    let mut h = bbr3();
    // 40 109 561 B/s: a quantum of 40 109 B, 3 of them 83 packets of 1448 B.
    assert_eq!(h.cc.send_quantum_bytes(&h.tp), 40_109);
    assert_eq!(h.cc.offload_budget(&h.tp), 83);
    // Slow: at least 2 MSS per quantum (6 packets); fast: at most 64 KB (135).
    h.tp.pacing_rate = 1000;
    assert_eq!(h.cc.offload_budget(&h.tp), 6);
    h.tp.pacing_rate = 10_000_000_000;
    assert_eq!(h.cc.offload_budget(&h.tp), 3 * 65_536 / 1448);
}

#[test]
fn on_a_path_startup_drains_and_probe_bw_cycles_through_its_four_phases() {
    let mut path = PacedPath::new(bbr3());
    path.run_until("DRAIN", |p| p.h.cc.state == State::Drain);
    // STARTUP found 10 packets/ms.
    assert_eq!(path.h.cc.max_bw.get(), BW_10_PER_MS);
    path.run_until("CRUISE", |p| p.h.cc.state == State::ProbeBwCruise);
    for phase in [
        State::ProbeBwRefill,
        State::ProbeBwUp,
        State::ProbeBwDown,
        State::ProbeBwCruise,
    ] {
        path.run_until("the next phase", |p| p.h.cc.state == phase);
    }
    // Cruising at 10/ms less the 1 % margin.
    assert_eq!(path.h.tp.pacing_rate, 14_335_186);
    // PROBE_RTT within 5 s of the last minimum, back to CRUISE after it.
    path.run_until("PROBE_RTT", |p| p.h.cc.state == State::ProbeRtt);
    assert!(path.h.tp.now_us < 5_300_000);
    path.run_until("after PROBE_RTT", |p| p.h.cc.state != State::ProbeRtt);
    assert_eq!(path.h.cc.state, State::ProbeBwCruise);
}

#[test]
fn on_a_policed_path_the_short_term_bounds_settle_at_the_policed_rate() {
    let mut path = PacedPath::new(bbr3());
    // A token bucket of 5 packets/ms (83 886 in packets/µs << 24), 50 deep.
    path.policer = Some(Policer::new(0.005, 50.0, 0));
    path.run_for(3_000_000);
    let c = &path.h.cc;
    assert!(c.full_bw_reached);
    assert_ne!(
        c.inflight_longterm, INF,
        "a probe found the flight too high"
    );
    // The rate paced in CRUISE: within 10 % of the policer's.
    path.run_until("CRUISE", |p| p.h.cc.state == State::ProbeBwCruise);
    path.run_for(100_000);
    let bw = path.h.cc.bw;
    assert!((75_497..=92_274).contains(&bw), "bw {bw}");
}

/// The generic property suite's operations mixed with ACKs of random rate
/// samples (losses, app-limited, rounds, no sample at all).
mod with_rate_samples {
    use proptest::prelude::*;

    use super::*;
    use crate::testing::{proptest_cases, rate_steps, RateStep};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]
        #[test]
        fn invariants_hold_with_rate_samples(
            steps in proptest::collection::vec(rate_steps(8), 1..300),
            split in 0usize..300,
            seed in any::<u64>(),
            max_pacing_rate in prop_oneof![Just(u64::MAX), 1u64..100_000_000],
        ) {
            let mut h = bbr3();
            h.run_rate_steps(seed, max_pacing_rate, &steps, split, ack, |h, s| {
                let c = &h.cc;
                // After an ACK, BBR.bw is the max filter bounded by the
                // short-term model (an undo changes the bound until the next).
                if matches!(s, RateStep::Sample(..)) {
                    prop_assert_eq!(c.bw, c.max_bw.get().min(c.bw_shortterm));
                }
                // The wait between probes is 2 to 3 s once drawn.
                prop_assert!(c.bw_probe_wait_us == 0 || (2_000_000..3_000_000).contains(&c.bw_probe_wait_us));
                prop_assert!(c.bw_probe_up_rounds <= 30);
                prop_assert!(c.full_bw_reached || c.state == State::Startup || c.state == State::ProbeRtt);
                Ok(())
            })?;
        }
    }
}

/// The draft's example test cases (Appendix A) not covered above.
mod draft_examples {
    use super::*;

    /// A.2: loss ends STARTUP even when the samples are application-limited.
    #[test]
    fn startup_ends_on_loss_when_application_limited() {
        let mut h = after_rounds(1000, 1);
        h.tp.ca_state = CaState::Recovery;
        let app_limited_loss = Ack::default().app_limited().losing(1);
        for _ in 0..6 {
            ack(&mut h, app_limited_loss);
        }
        ack(&mut h, Ack::of(120, 12_000).ending_round().app_limited());
        assert!(h.cc.full_bw_now && h.cc.full_bw_reached);
        assert_eq!(h.cc.state, State::Drain);
    }

    /// A.7: application-limited rounds without loss never end STARTUP or UP.
    #[test]
    fn application_limited_rounds_without_loss_never_end_startup_or_up() {
        let app_limited = |h: &mut Harness<Bbr3>| {
            h.advance_ms(10);
            ack(h, Ack::of(100, 10_000).ending_round().app_limited());
        };
        let mut h = bbr3();
        h.tp.packets_out = 1000;
        for _ in 0..20 {
            app_limited(&mut h);
        }
        assert_eq!((h.cc.state, h.cc.full_bw_count), (State::Startup, 0));

        let mut h = cruising();
        h.cc.start_probe_bw_refill(&h.tp);
        round_of(&mut h, 100);
        assert_eq!(h.cc.state, State::ProbeBwUp);
        h.tp.packets_out = 50; // within cwnd: not cwnd-limited
        for _ in 0..20 {
            app_limited(&mut h);
        }
        assert_eq!(h.cc.state, State::ProbeBwUp);
    }

    /// A.6: a probe that loses over 2 % of application-limited samples ends
    /// UP; the pseudocode (§5.5.10.2) leaves inflight_longterm as it was.
    #[test]
    fn up_ends_on_loss_when_application_limited() {
        let mut h = probing_up();
        h.cc.inflight_longterm = 300;
        ack(
            &mut h,
            Ack::of(151, 15_100).app_limited().losing(5).sent_at(1050),
        ); // 10 packets/ms
        assert_eq!(h.cc.state, State::ProbeBwDown);
        assert!(h.cc.prev_probe_too_high);
        assert_eq!(h.cc.inflight_longterm, 300);
    }

    /// A.9: a flight that stays above the headroom goes from DOWN straight
    /// to REFILL once bw_probe_wait has passed.
    #[test]
    fn down_goes_to_refill_after_the_probe_wait_without_cruising() {
        let mut h = cruising();
        h.cc.start_probe_bw_down(&mut h.tp);
        h.tp.packets_out = 10_000;
        let end = h.cc.cycle_stamp + h.cc.bw_probe_wait_us;
        h.tp.now_us = end;
        ack(&mut h, Ack::default());
        assert_eq!(h.cc.state, State::ProbeBwDown);
        h.tp.now_us = end + 1;
        ack(&mut h, Ack::default());
        assert_eq!(h.cc.state, State::ProbeBwRefill);
    }

    /// A.11: a connection idle across the 5-s interval restarts without PROBE_RTT.
    #[test]
    fn an_idle_restart_skips_probe_rtt() {
        let mut h = cruising();
        h.tp.packets_out = 0;
        h.tp.app_limited = true;
        h.tp.now_us = h.cc.probe_rtt_min_stamp + 6_000_000;
        h.cc.cwnd_event(&mut h.tp, CaEvent::TxStart);
        assert!(h.cc.idle_restart);
        h.tp.packets_out = 10;
        ack(
            &mut h,
            Ack {
                rtt_us: 12_000,
                ..Ack::default()
            },
        );
        // The expired filter took this sample instead; the restart ended.
        // (6 s also passed the probe wait: REFILL.)
        assert_eq!(h.cc.state, State::ProbeBwRefill);
        assert_eq!(h.cc.probe_rtt_min_delay, 12_000);
        assert_eq!(h.cc.probe_rtt_min_stamp, h.tp.now_us);
        assert!(!h.cc.idle_restart);
        ack(&mut h, Ack::default());
        assert_eq!(h.cc.state, State::ProbeBwRefill);
    }

    /// A.19: PROBE_RTT before the pipe is full returns to STARTUP.
    #[test]
    fn probe_rtt_during_startup_returns_to_startup() {
        let mut h = after_rounds(500, 1);
        h.tp.now_us = h.cc.probe_rtt_min_stamp + 5_000_001;
        let slow = Ack {
            rtt_us: 12_000,
            ..Ack::default()
        };
        ack(&mut h, slow);
        assert_eq!(h.cc.state, State::ProbeRtt);
        h.tp.packets_out = 4; // at most ½ BDP (50): the 200 ms start
        ack(&mut h, slow);
        let done = h.cc.probe_rtt_done_stamp;
        h.tp.now_us = done + 1;
        ack(
            &mut h,
            Ack {
                new_round: true,
                ..slow
            },
        );
        assert_eq!(h.cc.state, State::Startup);
        assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (277, 200));
    }

    /// A.21: low application-limited samples in REFILL leave max_bw; UP
    /// follows after the round.
    #[test]
    fn application_limited_refill_keeps_max_bw() {
        let mut h = cruising();
        h.cc.start_probe_bw_refill(&h.tp);
        ack(&mut h, Ack::of(20, 10_000).app_limited());
        assert_eq!(h.cc.max_bw.get(), BW_10_PER_MS);
        h.advance_ms(10);
        ack(&mut h, Ack::of(20, 10_000).ending_round().app_limited());
        assert_eq!(h.cc.state, State::ProbeBwUp);
        assert_eq!(h.cc.max_bw.get(), BW_10_PER_MS);
    }

    /// A.14: below one packet of BDP, MinPipeCwnd (4) is cwnd's floor and
    /// the pacing rate follows the bandwidth.
    #[test]
    fn a_sub_packet_bdp_keeps_at_least_four_packets_of_cwnd() {
        let mut h = bbr3();
        // 1 packet per 100 ms at a 10-ms RTT: a tenth of a packet per RTT.
        let slow_round = |h: &mut Harness<Bbr3>| {
            h.advance_ms(10);
            ack(h, Ack::of(1, 100_000).ending_round());
        };
        for _ in 0..4 {
            slow_round(&mut h);
        }
        assert!(h.cc.full_bw_reached);
        // 2^24 / 10^5 = 167: ⌈167 · 10^4 / 2^24⌉ = 1 packet of BDP.
        assert_eq!(h.cc.bw, 167);
        assert_eq!(h.cc.bdp_multiple(h.cc.bw, 100), 1);
        h.tp.snd_cwnd = 1;
        slow_round(&mut h);
        assert_eq!(h.tp.snd_cwnd, 4);
        assert_eq!(h.tp.pacing_rate, rate(167, h.cc.pacing_gain as u64));
    }
}
