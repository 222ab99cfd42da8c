//! The congestion window (draft-ietf-ccwg-bbr-06 §5.6.4): BDP multiples,
//! the quantization budget, BBR.max_inflight; cwnd grown towards it, cut
//! to ProbeRTTCwnd in PROBE_RTT and bounded by the model's in-flight
//! bounds; the last known good cwnd saved and restored around loss
//! recovery and PROBE_RTT.

use super::{in_loss_recovery, Bbr3, State, BW_UNIT, INF, PERCENT};
use crate::ops::{RateSample, TcpCc};

impl Bbr3 {
    /// BDPMultiple(gain) (§5.6.4.2) at `bw`: ⌈bw · min_rtt · gain⌉, packets;
    /// C.InitialCwnd before an RTT sample.
    pub fn bdp_multiple(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == INF {
            return self.initial_cwnd;
        }
        let w = (bw as u64 * self.min_rtt_us as u64).saturating_mul(gain as u64);
        // Rounded up as Linux's bbr_bdp, so a nonzero model never asks for 0.
        w.div_ceil(BW_UNIT * PERCENT as u64).min(INF as u64 - 1) as u32
    }

    /// QuantizationBudget(inflight_cap) (§5.6.4.2).
    fn quantization_budget(&self, inflight_cap: u32, tp: &TcpCc) -> u32 {
        let mut cap = inflight_cap
            .max(self.offload_budget(tp))
            .max(self.cfg.min_pipe_cwnd);
        if self.state == State::ProbeBwUp {
            cap = cap.saturating_add(2);
        }
        cap
    }

    /// Inflight(bw, gain) (§5.6.4.2): the flight for a gain, with the budget.
    pub fn inflight(&self, tp: &TcpCc, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp_multiple(bw, gain), tp)
    }

    /// UpdateMaxInflight (§5.6.4.2).
    fn update_max_inflight(&mut self, tp: &TcpCc) {
        let cap = self
            .bdp_multiple(self.bw, self.cwnd_gain)
            .saturating_add(self.extra_acked.get());
        self.max_inflight = self.quantization_budget(cap, tp);
    }

    /// ProbeRTTCwnd (§5.6.4.5): ½ BDP, at least MinPipeCwnd.
    pub fn probe_rtt_cwnd(&self) -> u32 {
        self.bdp_multiple(self.bw, self.cfg.probe_rtt_cwnd_gain)
            .max(self.cfg.min_pipe_cwnd)
    }

    /// SaveCwnd (§5.6.4.4).
    pub(super) fn save_cwnd(&mut self, tp: &TcpCc) {
        if !in_loss_recovery(tp) && self.state != State::ProbeRtt {
            self.prior_cwnd = tp.snd_cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.snd_cwnd);
        }
    }

    /// RestoreCwnd (§5.6.4.4).
    pub(super) fn restore_cwnd(&self, tp: &mut TcpCc) {
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
    }

    /// SetCwnd (§5.6.4.6) with BoundCwndForProbeRTT and BoundCwndForModel.
    pub(super) fn set_cwnd(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        self.update_max_inflight(tp);
        let mut cwnd = tp.snd_cwnd;
        if self.full_bw_reached {
            cwnd = cwnd.saturating_add(rs.acked_sacked).min(self.max_inflight);
        } else if cwnd < self.max_inflight || tp.delivered < self.initial_cwnd {
            cwnd = cwnd.saturating_add(rs.acked_sacked);
        }
        cwnd = cwnd.max(self.cfg.min_pipe_cwnd);
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        cwnd = cwnd.min(self.cwnd_cap());
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
    }

    /// The cap of BoundCwndForModel (§5.6.4.7).
    pub fn cwnd_cap(&self) -> u32 {
        let cap = if self.state.is_probe_bw() && self.state != State::ProbeBwCruise {
            self.inflight_longterm
        } else if self.state == State::ProbeRtt || self.state == State::ProbeBwCruise {
            self.inflight_with_headroom()
        } else {
            INF
        };
        cap.min(self.inflight_shortterm).max(self.cfg.min_pipe_cwnd)
    }
}
