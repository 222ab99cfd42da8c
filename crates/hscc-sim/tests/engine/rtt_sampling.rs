//! The RTT sampling rules driven by hand. ns-2.35's (`rtt_sampling =
//! "per_rtt"`, `rto_tick = 10ms`): which segment is timed, which ACK gives its
//! sample, Karn's rule at a timeout and at a fast retransmission, and the RTO
//! in ticks, each expectation computed from tcp/tcp.cc's `output`, `newack`,
//! `reset_rtx_timer`, `rtt_update` and `rtt_timeout`. Linux's (`"linux"`)
//! against hscc's default (`"ack"`): which segment's RTT the estimator and the
//! minimum RTT take, from net/ipv4/tcp_input.c's `tcp_clean_rtx_queue` and
//! `tcp_ack_update_rtt`.

use hscc_cc::CaState;
use hscc_sim::config::{FlowConfig, Recovery};
use hscc_sim::packet::Packet;
use hscc_sim::tcp::rtt::RttSampling;
use hscc_sim::testing::{ack, classic, started, Capture};
use hscc_sim::time::{MS, SEC, US};

/// ns-2's Sack1 agent as the `ns2` profile sets it: four segments at once,
/// no timestamps, one timed segment per round trip, 10-ms ticks.
fn ns2_like(sampling: RttSampling) -> FlowConfig {
    FlowConfig {
        recovery: Recovery::Sack1,
        init_cwnd: 4,
        timestamps: false,
        rtt_sampling: sampling,
        rto_tick: if sampling == RttSampling::PerRtt {
            10 * MS
        } else {
            0
        },
        ..classic().without_jitter()
    }
}

fn seqs(sent: &[Packet]) -> Vec<(u64, bool)> {
    sent.iter().map(|p| (p.seq, p.is_retrans())).collect()
}

#[test]
fn one_segment_per_round_trip_is_timed_and_its_ack_gives_the_sample_in_ticks() {
    let (mut s, mut w) = started::<Capture>(&ns2_like(RttSampling::PerRtt));
    // 0..3 leave at 0; 0 is timed.
    w.now = 105 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    // 105 ms: the clock crossed 10 ticks. First sample: t_srtt_ = 10 << 3 = 80,
    // t_rttvar_ = 10 << 1 = 20; t_rtxcur_ = ((20 << 3) + 80) >> 3 = 30 ticks.
    assert_eq!(s.rtt.srtt(), 100 * MS);
    assert_eq!(s.rtt.rto(0), 300 * MS);
    // cwnd 5: 4 and 5 leave at 105 ms, and 4 is timed.
    assert_eq!(seqs(&w.sent[4..]), vec![(4, false), (5, false)]);
    // The ACK of 1 (sent at 0, 110 ms ago) covers no timed segment: no sample.
    w.now = 110 * MS;
    s.on_ack(&ack(2, &[]), &mut w);
    assert_eq!(s.rtt.srtt(), 100 * MS);
    assert_eq!(s.rtt.rto(0), 300 * MS);
    // Nor do the ACKs of 2 and 3.
    w.now = 120 * MS;
    s.on_ack(&ack(4, &[]), &mut w);
    assert_eq!(s.rtt.srtt(), 100 * MS);
    // The ACK of 4 (sent at 105 ms, 126 ms ago): the clock crossed 23 - 10 =
    // 13 ticks (not 12: ns-2 counts the ticks, not the time). delta = 13 - 10
    // = 3, t_srtt_ = 83; |3| - (20 >> 2) = -2, t_rttvar_ = 18; t_rtxcur_ =
    // ((18 << 3) + 83) >> 3 = 227 >> 3 = 28 ticks.
    w.now = 231 * MS;
    s.on_ack(&ack(5, &[]), &mut w);
    assert_eq!(s.rtt.srtt(), 103 * MS + 750 * US);
    assert_eq!(s.rtt.rto(0), 280 * MS);
    assert_eq!(s.rtt.latest, 126 * MS);
    // The RTO restarts from this ACK.
    assert_eq!(s.rto_timer.deadline, 231 * MS + 280 * MS);
}

#[test]
fn every_ack_gives_a_sample_by_default() {
    let (mut s, mut w) = started::<Capture>(&ns2_like(RttSampling::Ack));
    w.now = 105 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    // RFC 6298 in exact time: SRTT 105, RTTVAR 52.5, RTO 105 + 210 = 315 ms.
    assert_eq!(s.rtt.rto(0), 315 * MS);
    w.now = 110 * MS;
    s.on_ack(&ack(2, &[]), &mut w);
    // The ACK of 1 samples 110 ms: SRTT = (7·105 + 110)/8 = 105.625 ms.
    assert_eq!(s.rtt.srtt(), 105 * MS + 625 * US);
}

#[test]
fn a_timeout_stops_the_timing_and_the_backoff_lasts_until_a_new_segment_is_sampled() {
    let (mut s, mut w) = started::<Capture>(&ns2_like(RttSampling::PerRtt));
    // Every ACK of 0..3 is lost; the RTO (1 s) retransmits 0 and stops timing 0.
    w.sent.clear();
    w.now = SEC;
    s.on_rto(&mut w);
    assert_eq!(seqs(&w.sent), vec![(0, true)]);
    assert_eq!(s.rto_timer.deadline, 3 * SEC);
    // The ACK of the retransmission covers 0, which is no longer timed: no
    // sample, and the backoff stays (ns-2 ends it only with a sample): the RTO
    // restarts at 1 s × 2 from now. Retransmissions are never timed.
    w.sent.clear();
    w.now = SEC + 100 * MS;
    s.on_ack(&ack(1, &[]), &mut w);
    assert_eq!(s.rtt.srtt(), 0);
    assert_eq!(seqs(&w.sent), vec![(1, true), (2, true)]);
    assert_eq!(s.rto_timer.deadline, w.now + 2 * SEC);
    // cwnd 3 after the ACK of 1 and 2: 3 is retransmitted, then 4 and 5 are
    // new, and 4 is timed.
    w.sent.clear();
    w.now = SEC + 200 * MS;
    s.on_ack(&ack(3, &[]), &mut w);
    assert_eq!(seqs(&w.sent), vec![(3, true), (4, false), (5, false)]);
    assert_eq!(s.rtt.srtt(), 0);
    // 4's ACK: 1.32 s - 1.2 s = 12 ticks; t_srtt_ = 96, t_rttvar_ = 24,
    // t_rtxcur_ = (192 + 96) >> 3 = 36 ticks; the backoff ends.
    w.now = SEC + 300 * MS;
    s.on_ack(&ack(4, &[]), &mut w);
    assert_eq!(s.rtt.srtt(), 0);
    w.now = SEC + 320 * MS;
    s.on_ack(&ack(5, &[]), &mut w);
    assert_eq!(s.rtt.srtt(), 120 * MS);
    assert_eq!(s.rtt.rto(0), 360 * MS);
    assert_eq!(s.rto_timer.deadline, w.now + 360 * MS);
}

#[test]
fn a_fast_retransmission_stops_the_timing() {
    // 0 is lost: three duplicate ACKs SACKing 1..3 and the first new segments.
    for (sampling, srtt) in [(RttSampling::PerRtt, 0), (RttSampling::Ack, 100 * MS)] {
        let (mut s, mut w) = started::<Capture>(&ns2_like(sampling));
        w.now = 100 * MS;
        for top in 2..=4 {
            s.on_ack(&ack(0, &[(1, top)]), &mut w);
        }
        assert_eq!(s.tp.ca_state, CaState::Recovery);
        // By default the SACK of 1 gave a 100-ms sample; ns-2 times only 0,
        // whose timing the fast retransmission stopped.
        assert_eq!(s.rtt.srtt(), srtt, "{sampling:?}");
        // The retransmission's ACK covers 0 without a sample.
        w.now = 200 * MS;
        s.on_ack(&ack(4, &[]), &mut w);
        if sampling == RttSampling::PerRtt {
            assert_eq!(s.rtt.srtt(), 0);
            assert_eq!(s.rtt.rto(0), SEC);
        }
    }
}

/// Four segments at once, exact time (RFC 6298's gains, no ticks), timestamps on.
fn exact(sampling: RttSampling) -> FlowConfig {
    FlowConfig {
        init_cwnd: 4,
        timestamps: true,
        rtt_sampling: sampling,
        ..classic().without_jitter()
    }
}

#[test]
fn linux_times_the_oldest_newly_acknowledged_segment_and_its_minimum_the_newest() {
    for (sampling, srtt) in [
        (RttSampling::Linux, 106 * MS + 250 * US),
        (RttSampling::Ack, 93 * MS + 750 * US),
    ] {
        let (mut s, mut w) = started::<Capture>(&exact(sampling));
        // 0..3 leave at 0; the ACK of 0 at 100 ms: SRTT 100 ms; cwnd 5, so 4
        // and 5 leave at 100 ms.
        w.now = 100 * MS;
        s.on_ack(&ack(1, &[]), &mut w);
        assert_eq!(s.rtt.srtt(), 100 * MS);
        assert_eq!(
            seqs(&w.sent),
            (0..6).map(|q| (q, false)).collect::<Vec<_>>()
        );
        // At 150 ms one ACK covers 1..3 (150 ms old) and 4, 5 (50 ms old).
        // Linux: SRTT = (7·100 + 150)/8 = 106.25 ms; the default takes the
        // newest: (7·100 + 50)/8 = 93.75 ms. Both see the 50-ms minimum.
        w.now = 150 * MS;
        s.on_ack(&ack(6, &[]), &mut w);
        assert_eq!(s.rtt.srtt(), srtt, "{sampling:?}");
        assert_eq!(s.tp.min_rtt_us, 50_000, "{sampling:?}");
    }
}

#[test]
fn linux_without_a_cumulative_sample_times_the_lowest_newly_sacked_segment() {
    for (sampling, srtt) in [
        (RttSampling::Linux, 107 * MS + 500 * US),
        (RttSampling::Ack, 95 * MS),
    ] {
        let (mut s, mut w) = started::<Capture>(&exact(sampling));
        w.now = 100 * MS;
        s.on_ack(&ack(1, &[]), &mut w);
        // At 160 ms an ACK SACKs 3 (sent at 0) and 4, 5 (sent at 100 ms).
        // Linux: SRTT = (7·100 + 160)/8 = 107.5 ms, minimum 60 ms; the
        // default: (7·100 + 60)/8 = 95 ms.
        w.now = 160 * MS;
        s.on_ack(&ack(1, &[(3, 6)]), &mut w);
        assert_eq!(s.rtt.srtt(), srtt, "{sampling:?}");
        assert_eq!(s.tp.min_rtt_us, 60_000, "{sampling:?}");
    }
}

#[test]
fn linux_takes_no_cumulative_sample_past_a_retransmission_but_the_echo_in_milliseconds() {
    for (sampling, srtt) in [
        (RttSampling::Linux, 100 * MS),
        (RttSampling::Ack, 1100 * MS + 700 * US),
    ] {
        let (mut s, mut w) = started::<Capture>(&exact(sampling));
        // Every ACK of 0..3 is lost; the RTO (1 s) retransmits 0.
        w.now = SEC;
        s.on_rto(&mut w);
        // 100.7 ms later one ACK covers the retransmission and the originals
        // 1..3, echoing the retransmission's timestamp. Linux: Karn forbids the
        // cumulative sample, the echo gives 1100 - 1000 ms = 100 ms (the
        // timestamp clock counts milliseconds); the default times 3's original.
        w.now = SEC + 100 * MS + 700 * US;
        let mut a = ack(4, &[]);
        a.ts = SEC;
        s.on_ack(&a, &mut w);
        assert_eq!(s.rtt.srtt(), srtt, "{sampling:?}");
        // A sample ends the backoff: the timer restarts at the RTO unbacked.
        assert_eq!(s.rto_timer.deadline, w.now + s.rtt.rto(0), "{sampling:?}");
    }
}
