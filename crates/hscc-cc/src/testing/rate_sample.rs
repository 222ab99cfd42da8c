//! Rate-sample drivers for the algorithms that take `cong_control` (BBR,
//! BBRv3): one ACK with a delivery-rate sample of chosen values, and the
//! property run that mixes such ACKs with the harness's operations.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use super::{Harness, Op};
use crate::ops::{CongestionOps, RateSample};

/// One ACK and the rate sample `tcp_rate.c` would make for it.
#[derive(Clone, Copy, Debug)]
pub struct RateAck {
    /// Packets this ACK delivers.
    pub acked: u32,
    /// RS.delivered: packets delivered over `interval_us`.
    pub delivered: i32,
    /// RS.interval_us.
    pub interval_us: i64,
    /// RS.rtt_us (−1: no sample).
    pub rtt_us: i64,
    /// Packets this ACK marks lost.
    pub losses: u32,
    /// The sampled packet was sent after every round mark (it ends the
    /// rounds); otherwise just before them. The algorithm's driver decides
    /// what that means in P.delivered.
    pub new_round: bool,
    /// RS.is_app_limited.
    pub app_limited: bool,
    /// P.delivered, overriding `new_round`.
    pub prior: Option<u32>,
}

impl Default for RateAck {
    /// One packet ACKed, a sample of 10 packets per ms, a 10 ms RTT.
    fn default() -> Self {
        RateAck {
            acked: 1,
            delivered: 10,
            interval_us: 1000,
            rtt_us: 10_000,
            losses: 0,
            new_round: false,
            app_limited: false,
            prior: None,
        }
    }
}

impl RateAck {
    /// The default ACK with a sample of `delivered` packets over `interval_us`.
    pub fn of(delivered: i32, interval_us: i64) -> RateAck {
        RateAck {
            delivered,
            interval_us,
            ..RateAck::default()
        }
    }

    /// The sampled packet ends the rounds.
    pub fn ending_round(self) -> RateAck {
        RateAck {
            new_round: true,
            ..self
        }
    }

    /// The sample is application-limited.
    pub fn app_limited(self) -> RateAck {
        RateAck {
            app_limited: true,
            ..self
        }
    }

    /// The ACK marks `losses` packets lost.
    pub fn losing(self, losses: u32) -> RateAck {
        RateAck { losses, ..self }
    }

    /// The sampled packet was sent when `prior` packets had been delivered.
    pub fn sent_at(self, prior: u32) -> RateAck {
        RateAck {
            prior: Some(prior),
            ..self
        }
    }
}

impl<A: CongestionOps> Harness<A> {
    /// Deliver `a.acked` packets now, mark `a.losses` lost and call
    /// `cong_control` with `a`'s sample, its packet sent at P.delivered =
    /// `prior_delivered`.
    pub fn rate_ack(&mut self, a: RateAck, prior_delivered: u32) {
        let prior_in_flight = self.tp.packets_in_flight();
        let tp = &mut self.tp;
        tp.packets_out = tp.packets_out.saturating_sub(a.acked + a.losses);
        tp.delivered += a.acked;
        tp.lost += a.losses;
        tp.delivered_mstamp = tp.now_us;
        if a.rtt_us > 0 {
            if tp.srtt_us == 0 {
                tp.srtt_us = (a.rtt_us as u32) << 3;
            }
            tp.min_rtt_us = tp.min_rtt_us.min(a.rtt_us as u32);
        }
        let rs = RateSample {
            prior_delivered,
            delivered: a.delivered,
            interval_us: a.interval_us,
            rtt_us: a.rtt_us,
            losses: a.losses,
            acked_sacked: a.acked,
            prior_in_flight,
            is_app_limited: a.app_limited,
            ..RateSample::default()
        };
        assert!(self.cc.cong_control(&mut self.tp, &rs));
    }
}

/// One step of a property run: an operation of the harness, or a rate-sample ACK.
#[derive(Clone, Copy, Debug)]
pub enum RateStep {
    /// The harness's own operation.
    Op(Op),
    /// Advance the clock by the µs given, then the ACK.
    Sample(u64, RateAck),
}

/// Steps of a property run: operations, and twice as often ACKs of random
/// samples (up to `max_losses − 1` losses, app-limited or not, ending rounds
/// or not, no RTT or interval at all).
pub fn rate_steps(max_losses: u32) -> impl Strategy<Value = RateStep> {
    let op = prop_oneof![
        (1u32..200).prop_map(Op::Send),
        (1u32..50, 1u32..4).prop_map(|(n, k)| Op::Ack(n, k)),
        Just(Op::DupAck),
        Just(Op::Loss),
        Just(Op::EnterRecovery),
        Just(Op::EndRecovery),
        Just(Op::Timeout),
        (0u64..2_000_000).prop_map(Op::Advance),
        (1u32..2_000_000).prop_map(Op::SetRtt),
        Just(Op::Round),
        Just(Op::Undo),
    ];
    let sample = (
        (0u32..20, 0u32..max_losses, -1i32..400),
        (
            prop_oneof![Just(-1i64), Just(0i64), 1i64..400_000],
            prop_oneof![Just(-1i64), 1_000i64..300_000],
        ),
        (any::<bool>(), any::<bool>(), 0u64..200_000),
    )
        .prop_map(
            |((acked, losses, delivered), (interval_us, rtt_us), (new_round, app, dt))| {
                RateStep::Sample(
                    dt,
                    RateAck {
                        acked,
                        delivered,
                        interval_us,
                        rtt_us,
                        losses,
                        new_round,
                        app_limited: app,
                        prior: None,
                    },
                )
            },
        );
    prop_oneof![1 => op.prop_map(RateStep::Op), 2 => sample]
}

impl<A: CongestionOps + Clone + PartialEq> Harness<A> {
    /// With the algorithm's random state `seed` and the pacing rate capped at
    /// `max_pacing_rate` (bytes/s), initialize it and run `steps` (a sample's
    /// ACK through `ack`, the algorithm's driver), checking the harness's
    /// invariants, the cap and `check` after each; a clone made before step
    /// `split` must end equal to the original.
    pub fn run_rate_steps(
        &mut self,
        seed: u64,
        max_pacing_rate: u64,
        steps: &[RateStep],
        split: usize,
        ack: fn(&mut Harness<A>, RateAck),
        mut check: impl FnMut(&Harness<A>, &RateStep) -> Result<(), TestCaseError>,
    ) -> Result<(), TestCaseError> {
        self.tp.prandom_state = seed;
        self.tp.max_pacing_rate = max_pacing_rate;
        self.cc.init(&mut self.tp);
        let mut twin = None;
        for (i, s) in steps.iter().enumerate() {
            if i == split {
                twin = Some(self.clone());
            }
            self.rate_step(*s, ack);
            if let Err(e) = self.check_invariants() {
                return Err(TestCaseError::fail(format!("after step {i} {s:?}: {e}")));
            }
            prop_assert!(
                self.tp.pacing_rate <= max_pacing_rate,
                "after step {i} {s:?}"
            );
            check(self, s)?;
        }
        if let Some(mut t) = twin {
            for s in &steps[split..] {
                t.rate_step(*s, ack);
            }
            prop_assert_eq!(&t.tp, &self.tp, "a clone diverged from its original");
            prop_assert_eq!(&t.cc, &self.cc);
        }
        Ok(())
    }

    fn rate_step(&mut self, s: RateStep, ack: fn(&mut Harness<A>, RateAck)) {
        match s {
            RateStep::Op(o) => self.apply(o),
            RateStep::Sample(dt, a) => {
                self.advance_us(dt);
                // Send what cwnd allows first, so that ACKs find data out.
                self.send_all();
                ack(self, a);
                self.tp.snd_cwnd = self.tp.snd_cwnd.max(1);
            }
        }
    }
}
