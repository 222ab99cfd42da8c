//! Scripted tests with hand-computed expectations. Two drivers: [`ack`] feeds
//! one delivery-rate sample of chosen values (as `tcp_rate.c` would make it),
//! and [`PacedPath`] runs BBR over a bottleneck of 10 packets/ms and a 10 ms
//! propagation RTT, sampling rates as `tcp_rate.c` does and pacing as Linux's
//! internal pacing, so the bandwidth is 2^24/100 = 167 772 (packets/µs << 24)
//! and one BDP is 100 packets.

use super::*;
use crate::testing::{Harness, PacedPath, RateAck as Ack, MSS};

/// 2^24/100: 10 packets per ms in BBR's unit.
const BW_10_PER_MS: u32 = 167_772;

fn bbr_with(p: BbrParams) -> Harness<Bbr> {
    Harness::new(Bbr::new(&p), 10)
}

fn bbr() -> Harness<Bbr> {
    bbr_with(BbrParams::default())
}

/// Deliver `a`, its packet sent after the round's end mark if `a.new_round`
/// and just before it otherwise.
fn ack(h: &mut Harness<Bbr>, a: Ack) {
    let mark = h.cc.next_rtt_delivered;
    let prior = if a.new_round {
        mark
    } else {
        mark.wrapping_sub(1)
    };
    h.rate_ack(a, a.prior.unwrap_or(prior));
}

/// A round of one ACK whose sample is `bw` exactly: `bw` packets over 2^24 µs.
fn round_at(h: &mut Harness<Bbr>, bw: u32) {
    h.advance_ms(10);
    ack(h, Ack::of(bw as i32, 1 << 24).ending_round());
}

/// Hand computation of Linux's pacing rate: bw · mss · gain / 256 · 990 000 / 2^24.
fn rate(bw: u64, gain: u64) -> u64 {
    (((bw * MSS as u64 * gain) >> 8) * 990_000) >> 24
}

#[test]
fn init_asks_for_pacing_at_high_gain_times_the_initial_window() {
    let h = bbr();
    assert!(h.tp.pacing_needed);
    assert_eq!(h.tp.snd_ssthresh, TCP_INFINITE_SSTHRESH);
    assert_eq!(h.cc.mode, Mode::Startup);
    // No RTT yet: 10 packets per nominal 1 ms = 10·2^24/1000 = 167 772, × 739/256.
    assert_eq!(h.tp.pacing_rate, rate(167_772, 739));
    assert_eq!(h.tp.pacing_rate, 41_381_651);
}

#[test]
fn startup_gains_are_2_over_ln2_and_drain_gain_its_inverse() {
    let mut h = bbr();
    round_at(&mut h, 1000);
    assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (739, 739));
    // 256·2885/1000 + 1 = 739 (2.887); 256·1000/2885 = 88 (0.344).
    let p = BbrParams::default();
    assert_eq!(p.high_gain, BBR_UNIT * 2885 / 1000 + 1);
    assert_eq!(p.drain_gain, BBR_UNIT * 1000 / 2885);
    // Never slower in STARTUP: the pacing rate only grows (bbr_set_pacing_rate).
    let before = h.tp.pacing_rate;
    round_at(&mut h, 10);
    assert_eq!(h.tp.pacing_rate, before.max(rate(10, 739)));
}

#[test]
fn full_bandwidth_after_three_rounds_without_25_percent_growth() {
    let mut h = bbr();
    h.tp.packets_out = 500;
    // 1000 then 2000 (≥ 1.25·1000): growth, full_bw follows.
    round_at(&mut h, 1000);
    round_at(&mut h, 2000);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_cnt), (2000, 0));
    // 2499 < 2000·320/256 = 2500: not significant; the max filter keeps 2499.
    round_at(&mut h, 2499);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_cnt), (2000, 1));
    round_at(&mut h, 2400);
    assert_eq!(h.cc.full_bw_cnt, 2);
    assert_eq!(h.cc.mode, Mode::Startup);
    round_at(&mut h, 2400);
    assert!(h.cc.full_bw_reached);
    // DRAIN, with ssthresh = inflight(max_bw, 1): at min_rtt 10 ms,
    // bdp = ⌈2499·10 000/2^24⌉ = 2. The pacing rate until this ACK was the one
    // the first RTT sample set (bbr_init_pacing_rate_from_rtt): 10 packets
    // per 10 ms, bw 10·2^24/10 000 = 16 777, × 739/256 → 4 138 115 B/s
    // (above every sample's since); TSO goal (4 138 115 >> 10)/1448 = 2; 2 + 3·2 = 8.
    assert_eq!(rate(16_777, 739), 4_138_115);
    assert_eq!(h.cc.mode, Mode::Drain);
    assert_eq!(h.tp.snd_ssthresh, 8);
    // The pipe is full: the pacing rate now follows the estimate down, × 88/256.
    assert_eq!(h.tp.pacing_rate, rate(2499, 88));
    assert_eq!((h.cc.pacing_gain, h.cc.cwnd_gain), (88, 739));
}

#[test]
fn a_round_with_25_percent_growth_restarts_the_count() {
    let mut h = bbr();
    round_at(&mut h, 1000);
    round_at(&mut h, 1100);
    round_at(&mut h, 1200);
    assert_eq!(h.cc.full_bw_cnt, 2);
    round_at(&mut h, 1250);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_cnt), (1250, 0));
    // App-limited rounds do not count.
    h.advance_ms(10);
    ack(&mut h, Ack::of(1250, 1 << 24).ending_round().app_limited());
    assert_eq!(h.cc.full_bw_cnt, 0);
}

/// STARTUP to DRAIN at BW_10_PER_MS and min_rtt 10 ms, with `inflight` packets out.
fn drain_at(inflight: u32) -> Harness<Bbr> {
    let mut h = bbr();
    h.tp.packets_out = inflight;
    for _ in 0..4 {
        round_at(&mut h, BW_10_PER_MS);
    }
    assert_eq!(h.cc.mode, Mode::Drain);
    h
}

#[test]
fn drain_ends_when_the_flight_is_down_to_one_bdp() {
    // inflight(bw, 1) = bdp 100 (⌈167 772·10 000·256/256/2^24⌉ = ⌈99.99⌉)
    // + 3·27 (TSO goal at the STARTUP rate) = 181 → even 182.
    let mut h = drain_at(300);
    assert_eq!(h.tp.snd_ssthresh, 182);
    // In DRAIN the pacing rate drops (the pipe is full): 88/256 of bw.
    assert_eq!(h.tp.pacing_rate, rate(BW_10_PER_MS as u64, 88));
    // Now the TSO goal is (4 927 720 >> 10)/1448 = 3: inflight(bw, 1) = 100 + 9 → 110.
    assert_eq!(h.cc.inflight(&h.tp, BW_10_PER_MS, BBR_UNIT), 110);
    h.tp.packets_out = 112;
    ack(&mut h, Ack::default()); // 111 in flight after it
    assert_eq!(h.cc.mode, Mode::Drain);
    h.tp.packets_out = 111;
    ack(&mut h, Ack::default()); // 110
    assert_eq!(h.cc.mode, Mode::ProbeBw);
}

#[test]
fn probe_bw_starts_at_a_random_phase_other_than_the_drain_phase() {
    let mut seen = [0u32; CYCLE_LEN as usize];
    for seed in 0..200u64 {
        let mut h = drain_at(300);
        h.tp.prandom_state = seed;
        h.tp.packets_out = 0;
        ack(&mut h, Ack::default());
        assert_eq!(h.cc.mode, Mode::ProbeBw);
        seen[h.cc.cycle_idx as usize] += 1;
        // The phase is the draw's: 7 − ⌊r·7/2^32⌋, then advanced once.
        let r = ((prandom_u32(&mut TcpCc {
            prandom_state: seed,
            ..TcpCc::new(MSS, 10)
        }) as u64
            * 7)
            >> 32) as u32;
        assert_eq!(h.cc.cycle_idx, (7 - r + 1) & 7);
    }
    // Every phase but 1 (the 3/4 phase) starts a cycle.
    assert_eq!(seen[1], 0, "{seen:?}");
    assert!(
        seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 0),
        "{seen:?}"
    );
}

/// PROBE_BW in phase `idx`, with `inflight` out and the phase just begun.
fn probe_bw_in_phase(idx: u32, inflight: u32) -> Harness<Bbr> {
    let mut h = drain_at(300);
    h.tp.packets_out = 0;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.mode, Mode::ProbeBw);
    h.cc.cycle_idx = idx;
    h.cc.cycle_mstamp = h.tp.delivered_mstamp;
    h.cc.update_gains();
    h.tp.packets_out = inflight;
    h
}

#[test]
fn the_gain_cycle_advances_each_min_rtt() {
    let mut h = probe_bw_in_phase(2, 100);
    for want in [3, 4, 5, 6, 7, 0] {
        // One min_rtt (10 ms) is not yet "more than min_rtt".
        h.advance_ms(10);
        h.tp.packets_out += 1;
        ack(&mut h, Ack::default());
        assert_eq!(h.cc.cycle_idx, (want + 7) & 7);
        h.advance_us(1);
        h.tp.packets_out += 1;
        ack(&mut h, Ack::default());
        assert_eq!(h.cc.cycle_idx, want);
        assert_eq!(h.cc.pacing_gain, PACING_GAIN[want as usize]);
    }
    assert_eq!(h.cc.pacing_gain, 320);
}

#[test]
fn the_probing_phase_lasts_until_the_flight_reaches_5_4_bdp_or_a_loss() {
    // Phase 0 (5/4): at pacing 1.0·bw (the rate changes only after this
    // ACK's test), TSO goal 9: inflight(bw, 5/4) = ⌈124.99⌉ + 3·9 = 152, even,
    // +2 in the probing phase = 154; the EDT skb adds the goal (9) to the flight.
    let mut h = probe_bw_in_phase(0, 100);
    h.tp.pacing_rate = rate(BW_10_PER_MS as u64, 256);
    assert_eq!(h.cc.inflight(&h.tp, BW_10_PER_MS, 320), 154);
    h.advance_ms(20);
    h.tp.packets_out = 140; // 140 in flight before the ACK + 9 < 154
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.cycle_idx, 0, "beyond min_rtt but below 5/4 BDP");
    h.tp.packets_out = 146; // 146 + 9 ≥ 154
    h.tp.pacing_rate = rate(BW_10_PER_MS as u64, 256);
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.cycle_idx, 1);
    // A loss ends it too.
    let mut h = probe_bw_in_phase(0, 50);
    h.advance_ms(20);
    ack(&mut h, Ack::default().losing(1));
    assert_eq!(h.cc.cycle_idx, 1);
}

#[test]
fn the_drain_phase_ends_early_at_one_bdp() {
    // Phase 1 (3/4): inflight(bw, 1) at its TSO goal.
    let mut h = probe_bw_in_phase(1, 200);
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.cycle_idx, 1);
    // At 3/4 of bw: TSO goal (10 751 389 >> 10)/1448 = 7, inflight(bw, 1) = 100 + 21 → 122.
    let target = h.cc.inflight(&h.tp, BW_10_PER_MS, BBR_UNIT);
    assert_eq!(
        (h.tp.pacing_rate, target),
        (rate(BW_10_PER_MS as u64, 192), 122)
    );
    // The test is on the flight before the ACK (rs.prior_in_flight).
    h.tp.packets_out = target + 1;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.cycle_idx, 1);
    h.tp.packets_out = target;
    ack(&mut h, Ack::default());
    assert_eq!(
        h.cc.cycle_idx, 2,
        "inflight {target} ends the phase before min_rtt"
    );
}

#[test]
fn the_bandwidth_filter_forgets_a_sample_after_10_rounds() {
    let mut h = bbr();
    round_at(&mut h, 5000); // round 1
    let mut rounds = 1;
    while h.cc.max_bw() == 5000 {
        round_at(&mut h, 1000);
        rounds += 1;
        assert!(rounds < 20);
    }
    // Held through round 11 (10 rounds later), gone at round 12.
    assert_eq!(rounds, 12);
    assert_eq!(h.cc.rtt_cnt, 12);
    assert_eq!(h.cc.max_bw(), 1000);
}

#[test]
fn probe_rtt_after_10_s_without_a_new_minimum_for_200_ms_and_a_round() {
    let mut h = probe_bw_in_phase(2, 100);
    let start = h.cc.min_rtt_stamp;
    // Larger RTTs for 10 s: the minimum (10 ms) is kept, then expires.
    for _ in 0..100 {
        h.advance_ms(100);
        ack(
            &mut h,
            Ack {
                rtt_us: 12_000,
                ..Ack::default()
            },
        );
    }
    assert_eq!(h.tp.jiffies32() - start, 10_000);
    assert_eq!(h.cc.mode, Mode::ProbeBw, "10 s is not yet after the window");
    h.advance_ms(1);
    let cwnd = h.tp.snd_cwnd;
    h.tp.packets_out = 50;
    ack(
        &mut h,
        Ack {
            rtt_us: 12_000,
            ..Ack::default()
        },
    );
    assert_eq!(h.cc.mode, Mode::ProbeRtt);
    // The sample of the expired window's ACK became the new minimum.
    assert_eq!(h.cc.min_rtt_us, 12_000);
    assert_eq!(h.tp.snd_cwnd, 4);
    assert!(h.tp.app_limited);
    assert_eq!(h.cc.prior_cwnd, cwnd);
    assert_eq!(h.cc.probe_rtt_done_stamp, 0, "the flight is not yet at 4");
    // The flight falls to 4: 200 ms and a round from now.
    h.tp.packets_out = 5;
    h.advance_ms(5);
    ack(&mut h, Ack::default());
    let t0 = h.tp.jiffies32();
    assert_eq!(h.cc.probe_rtt_done_stamp, t0 + 200);
    // A round ends, but 200 ms have not passed.
    h.advance_ms(100);
    h.tp.packets_out = 4;
    ack(&mut h, Ack::default().ending_round());
    assert!(h.cc.probe_rtt_round_done);
    assert_eq!(h.cc.mode, Mode::ProbeRtt);
    h.advance_ms(100);
    h.tp.packets_out = 4;
    ack(&mut h, Ack::default());
    assert_eq!(h.cc.mode, Mode::ProbeRtt, "200 ms is not after the stamp");
    h.advance_ms(1);
    h.tp.packets_out = 4;
    ack(&mut h, Ack::default());
    // Back to PROBE_BW (the pipe was full), cwnd restored to the saved one,
    // then this ACK's +1 towards the target (bbr_set_cwnd).
    assert_eq!(h.cc.mode, Mode::ProbeBw);
    assert!(h.cc.inflight(&h.tp, BW_10_PER_MS, h.cc.cwnd_gain) > cwnd);
    assert_eq!(h.tp.snd_cwnd, cwnd + 1);
    assert_eq!(h.cc.min_rtt_stamp, t0 + 201);
}

#[test]
fn long_term_sampling_detects_a_policer_and_paces_at_its_rate() {
    let mut h = probe_bw_in_phase(2, 100);
    // A loss starts sampling.
    ack(&mut h, Ack::default().losing(1));
    assert!(h.cc.lt_is_sampling);
    // Two intervals of 4 rounds, 10 ms each, 100 delivered and 30 lost per
    // round: lost/delivered = 120/400 ≥ 50/256, rate 400·2^24/40 000 µs = 167 772.
    let round = |h: &mut Harness<Bbr>| {
        h.advance_ms(10);
        ack(
            h,
            Ack {
                acked: 100,
                losses: 30,
                new_round: true,
                ..Ack::default()
            },
        );
    };
    for _ in 0..4 {
        round(&mut h);
    }
    assert_eq!((h.cc.lt_bw, h.cc.lt_use_bw), (BW_10_PER_MS, false));
    for _ in 0..4 {
        round(&mut h);
    }
    // Consistent (difference 0): policed, paced at the average without gain cycling.
    assert!(h.cc.lt_use_bw);
    assert_eq!(h.cc.lt_bw, BW_10_PER_MS);
    assert_eq!(h.cc.bw(), BW_10_PER_MS);
    assert_eq!(h.cc.pacing_gain, BBR_UNIT);
    // 48 rounds later BBR stops using it and restarts gain cycling.
    for i in 1..=48 {
        h.advance_ms(10);
        ack(&mut h, Ack::default().ending_round());
        assert_eq!(h.cc.lt_use_bw, i < 48, "round {i}");
    }
    assert_eq!(h.cc.lt_bw, 0);
}

#[test]
fn long_term_sampling_ignores_light_loss_and_app_limited_intervals() {
    let mut h = probe_bw_in_phase(2, 100);
    ack(&mut h, Ack::default().losing(1));
    // 4 rounds of 100 delivered, 10 lost: 40·256 < 50·400, not lossy enough.
    for _ in 0..4 {
        h.advance_ms(10);
        ack(
            &mut h,
            Ack {
                acked: 100,
                losses: 10,
                new_round: true,
                ..Ack::default()
            },
        );
    }
    assert_eq!(h.cc.lt_bw, 0);
    assert!(h.cc.lt_is_sampling);
    ack(&mut h, Ack::default().app_limited());
    assert!(!h.cc.lt_is_sampling);
}

#[test]
fn recovery_conserves_packets_then_restores_the_prior_cwnd() {
    let mut h = probe_bw_in_phase(2, 150);
    h.tp.snd_cwnd = 200;
    // Entering Recovery: ssthresh() saves cwnd and returns ssthresh unchanged.
    h.tp.prior_cwnd = h.tp.snd_cwnd;
    let ssthresh = h.tp.snd_ssthresh;
    assert_eq!(h.cc.ssthresh(&mut h.tp), ssthresh);
    assert_eq!(h.cc.prior_cwnd, 200);
    h.cc.set_state(&mut h.tp, CaState::Recovery);
    h.tp.ca_state = CaState::Recovery;
    // First ACK in Recovery: cwnd = in flight + acked = (150 − 2 − 1) + 2.
    ack(
        &mut h,
        Ack {
            acked: 2,
            losses: 1,
            ..Ack::default()
        },
    );
    assert!(h.cc.packet_conservation);
    assert_eq!(h.tp.snd_cwnd, 149);
    // Conservation: cwnd − losses, at least in flight + acked (146 + 1).
    ack(
        &mut h,
        Ack {
            acked: 1,
            losses: 2,
            ..Ack::default()
        },
    );
    assert_eq!(h.tp.snd_cwnd, 147);
    // A new round ends conservation: slow start (+acked) towards the target.
    ack(
        &mut h,
        Ack {
            acked: 3,
            new_round: true,
            ..Ack::default()
        },
    );
    assert!(!h.cc.packet_conservation);
    assert_eq!(h.tp.snd_cwnd, 150);
    // Leaving Recovery restores 200, capped by the target: bdp(bw, 2) = 200,
    // TSO goal 9 at pacing 1.0 → 227 → even 228.
    h.cc.set_state(&mut h.tp, CaState::Open);
    h.tp.ca_state = CaState::Open;
    ack(&mut h, Ack::default());
    assert_eq!(h.tp.snd_cwnd, 201);
    assert!(!h.cc.packet_conservation);
}

#[test]
fn an_rto_counts_as_a_round_end_with_a_loss_and_undo_resets_pipe_detection() {
    let mut h = bbr();
    round_at(&mut h, 1000);
    round_at(&mut h, 1100);
    assert_eq!(h.cc.full_bw_cnt, 1);
    h.timeout();
    assert_eq!(h.cc.prev_ca_state, CaState::Loss);
    assert_eq!(h.cc.full_bw, 0);
    assert!(
        h.cc.lt_is_sampling,
        "the RTO's loss starts long-term sampling"
    );
    let cwnd = h.tp.snd_cwnd;
    assert_eq!(h.cc.undo_cwnd(&mut h.tp), cwnd);
    assert_eq!((h.cc.full_bw, h.cc.full_bw_cnt), (0, 0));
    assert!(!h.cc.lt_is_sampling);
}

#[test]
fn ack_aggregation_adds_the_excess_acked_for_5_to_10_rounds() {
    let mut h = probe_bw_in_phase(2, 100);
    // (The excess counts up to cwnd.)
    h.tp.snd_cwnd = 300;
    // A second later at 10 packets/ms, 9 999 packets were expected
    // (167 772·10^6/2^24): an ACK of 1 starts a new epoch with 1 ACKed.
    h.advance_ms(1000);
    ack(&mut h, Ack::default());
    assert_eq!(
        (h.cc.ack_epoch_acked, h.cc.ack_epoch_mstamp),
        (1, h.tp.now_us)
    );
    // At the same instant an aggregate of 30: none expected, 31 in excess.
    ack(
        &mut h,
        Ack {
            acked: 30,
            ..Ack::default()
        },
    );
    assert_eq!(h.cc.extra_acked(), 31);
    // The allowance: min(31·256/256, bw·100 ms = 999) = 31 segments of cwnd.
    assert_eq!(h.cc.ack_aggregation_cwnd(), 31);
    let target = |h: &Harness<Bbr>| {
        let t = h.cc.bdp(BW_10_PER_MS, 512) + h.cc.ack_aggregation_cwnd();
        h.cc.quantization_budget(&h.tp, t)
    };
    // bdp(bw, 2) 200 + 31 + 3·9 (TSO goal at 1.0·bw) = 258, even.
    assert_eq!(target(&h), 258);
    // The max filter keeps it 5–10 rounds: each half holds 5 rounds.
    h.cc.extra_acked_win_rtts = 0;
    for round in 1..=10 {
        h.advance_ms(10);
        ack(&mut h, Ack::default().ending_round());
        let want = if round < 10 { 31 } else { 1 };
        assert_eq!(h.cc.extra_acked(), want, "round {round}");
    }
}

#[test]
fn an_idle_restart_paces_at_the_estimate() {
    let mut h = probe_bw_in_phase(0, 0);
    h.tp.pacing_rate = 1;
    h.tp.app_limited = true;
    h.cc.cwnd_event(&mut h.tp, CaEvent::TxStart);
    assert!(h.cc.idle_restart);
    assert_eq!(h.tp.pacing_rate, rate(BW_10_PER_MS as u64, 256));
    ack(&mut h, Ack::default());
    assert!(!h.cc.idle_restart, "new data delivered ends the restart");
}

#[test]
fn the_tso_goal_follows_the_pacing_rate() {
    let h = bbr();
    let mut tp = h.tp.clone();
    for (rate, goal) in [
        (0, 1),
        (149_999, 1),
        (150_000, 2),
        (14_335_186, 9),
        (1_000_000_000, 45), // 65 215 / 1448
    ] {
        tp.pacing_rate = rate;
        assert_eq!(h.cc.tso_segs_goal(&tp), goal, "{rate}");
    }
}

#[test]
fn on_a_path_startup_finds_the_bandwidth_drains_and_cycles() {
    let p = BbrParams {
        extra_acked_gain: 0,
        ..BbrParams::default()
    };
    let mut path = PacedPath::new(bbr_with(p));
    path.run_until("DRAIN", |p| p.h.cc.mode == Mode::Drain);
    // Samples never exceed the bottleneck: 2^24/100.
    assert_eq!(path.h.cc.max_bw(), BW_10_PER_MS);
    // ssthresh = inflight(bw, 1) at the STARTUP rate: 100 + 3·27 → 182.
    assert_eq!(path.h.tp.snd_ssthresh, 182);
    let full_at = path.h.cc.rtt_cnt;
    path.run_until("PROBE_BW", |p| p.h.cc.mode == Mode::ProbeBw);
    // DRAIN drains STARTUP's queue in about one round.
    assert!(
        path.h.cc.rtt_cnt - full_at <= 2,
        "{} rounds",
        path.h.cc.rtt_cnt - full_at
    );
    // Gain cycling: each phase lasts more than min_rtt; phases follow 0..7 in order.
    let mut phases = vec![(path.h.cc.cycle_idx, path.h.cc.cycle_mstamp)];
    path.run_until("two cycles", |p| {
        p.h.cc.cycle_mstamp != 0 && p.h.tp.now_us > phases[0].1 + 200_000
    });
    while phases.len() < 17 {
        let idx = path.h.cc.cycle_idx;
        path.run_until("next phase", |p| p.h.cc.cycle_idx != idx);
        phases.push((path.h.cc.cycle_idx, path.h.cc.cycle_mstamp));
    }
    let min_rtt = path.h.cc.min_rtt_us as u64;
    assert_eq!(min_rtt, 10_100);
    for w in phases[1..].windows(2) {
        assert_eq!(w[1].0, (w[0].0 + 1) & 7);
        if w[0].0 != 1 {
            // Only the 3/4 phase may end early (at one BDP).
            assert!(w[1].1 - w[0].1 > min_rtt, "{w:?}");
        }
    }
    // In a phase of gain 1, cwnd settles at bdp(bw, 2) + 3·TSO goal:
    // 200 (⌈167 772·10 100·2/2^24⌉ = ⌈201.99⌉ = 202) + 3·9 = 229 → even 230.
    path.run_until("phase 4", |p| p.h.cc.cycle_idx == 4);
    let idx = 4;
    path.run_until("end of phase 4", |p| p.h.cc.cycle_idx != idx);
    assert_eq!(path.h.tp.pacing_rate, rate(BW_10_PER_MS as u64, 256));
    assert_eq!(path.h.cc.bdp(BW_10_PER_MS, 512), 202);
    assert_eq!(path.h.tp.snd_cwnd, 230);
}

mod properties {
    //! The property suite's invariants with `cong_control` in the mix: the
    //! generic suite (`cc_property_suite!`) drives the hooks through
    //! `Harness`, which never calls it.
    use proptest::prelude::*;

    use super::*;
    use crate::testing::{proptest_cases, rate_steps};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(proptest_cases(256)))]
        #[test]
        fn invariants_hold_with_rate_samples(
            steps in proptest::collection::vec(rate_steps(4), 1..300),
            split in 0usize..300,
            seed in any::<u64>(),
            max_pacing_rate in prop_oneof![Just(u64::MAX), 1u64..100_000_000],
        ) {
            let mut h = bbr();
            h.run_rate_steps(seed, max_pacing_rate, &steps, split, ack, |h, _| {
                prop_assert!(h.cc.cycle_idx < CYCLE_LEN && h.cc.lt_rtt_cnt < 128);
                Ok(())
            })?;
        }
    }
}
