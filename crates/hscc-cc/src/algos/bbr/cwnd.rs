//! The congestion window (Linux `bbr_set_cwnd` and its helpers): the
//! target of `cwnd_gain` BDPs plus the ACK-aggregation allowance and the
//! TSO quantization budget, slow-started towards before the pipe is full
//! and a cap after; packet conservation in Recovery's first round and the
//! saved cwnd restored after Recovery or PROBE_RTT.

use super::{Bbr, Mode, BBR_SCALE, BBR_UNIT, BW_SCALE, BW_UNIT};
use crate::ops::{CaState, RateSample, TcpCc};

/// Linux `TCP_INIT_CWND`.
const TCP_INIT_CWND: u32 = 10;

impl Bbr {
    /// Linux `bbr_save_cwnd`: the last known good cwnd, to restore after
    /// Recovery or PROBE_RTT.
    pub(super) fn save_cwnd(&mut self, tp: &TcpCc) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tp.snd_cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.snd_cwnd);
        }
    }

    /// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉, segments.
    pub fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            // No RTT sample yet: be safe at the initial window.
            return TCP_INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        // Apply the gain, remove the BW_SCALE shift, round up (Linux's
        // `+ BW_UNIT − 1` cannot wrap: the shifted product is below 2^56).
        (w.wrapping_mul(gain as u64) >> BBR_SCALE).div_ceil(BW_UNIT) as u32
    }

    /// Linux `bbr_quantization_budget`: room for TSO bursts at both ends,
    /// rounded up to even, +2 in PROBE_BW's probing phase.
    pub(super) fn quantization_budget(&self, tp: &TcpCc, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.wrapping_add(3 * self.tso_segs_goal(tp));
        cwnd = cwnd.wrapping_add(1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd = cwnd.wrapping_add(2);
        }
        cwnd
    }

    /// Linux `bbr_inflight`: the flight for a gain, segments.
    pub fn inflight(&self, tp: &TcpCc, bw: u32, gain: u32) -> u32 {
        let bdp = self.bdp(bw, gain);
        self.quantization_budget(tp, bdp)
    }

    /// Linux `bbr_packets_in_net_at_edt`: the flight expected in the network
    /// when the next packet leaves at its earliest departure time.
    pub(super) fn packets_in_net_at_edt(&self, tp: &TcpCc, inflight_now: u32) -> u32 {
        let now_ns = tp.now_us.wrapping_mul(1000);
        let edt_ns = tp.tcp_wstamp_ns.max(now_ns);
        let interval_us = (edt_ns - now_ns) / 1000;
        let interval_delivered = ((self.bw() as u64).wrapping_mul(interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            // Increasing the flight: count the packet departing at the EDT.
            inflight_at_edt = inflight_at_edt.wrapping_add(self.tso_segs_goal(tp));
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: packet conservation in
    /// Recovery's first round, the saved cwnd on leaving it. Returns the new
    /// cwnd and whether packet conservation decides it.
    fn set_cwnd_to_recover_or_restore(
        &mut self,
        tp: &TcpCc,
        rs: &RateSample,
        acked: u32,
    ) -> (u32, bool) {
        let prev_state = self.prev_ca_state;
        let state = tp.ca_state;
        let mut cwnd = tp.snd_cwnd;
        // Deduct the lost packets; bbr_set_cwnd then slow-starts back up.
        if rs.losses > 0 {
            cwnd = (cwnd.wrapping_sub(rs.losses) as i32).max(1) as u32;
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // First round of Recovery: packet conservation, the round starts now.
            self.packet_conservation = true;
            self.next_rtt_delivered = tp.delivered;
            // Cut cwnd unused by the application, TSQ or TSO deferral.
            cwnd = tp.packets_in_flight().wrapping_add(acked);
        } else if prev_state >= CaState::Recovery && state < CaState::Recovery {
            // Leaving loss recovery: restore the cwnd saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(tp.packets_in_flight().wrapping_add(acked)), true);
        }
        (cwnd, false)
    }

    /// Linux `bbr_set_cwnd`: slow-start towards the target cwnd, or snap down
    /// to it once the pipe is full.
    pub(super) fn set_cwnd(
        &mut self,
        tp: &mut TcpCc,
        rs: &RateSample,
        acked: u32,
        bw: u32,
        gain: u32,
    ) {
        let mut cwnd = tp.snd_cwnd;
        if acked != 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(tp, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                // Room for data ACKed in aggregates beyond the expected rate.
                target = target.wrapping_add(self.ack_aggregation_cwnd());
                target = self.quantization_budget(tp, target);
                if self.full_bw_reached {
                    cwnd = cwnd.wrapping_add(acked).min(target);
                } else if cwnd < target || tp.delivered < TCP_INIT_CWND {
                    cwnd = cwnd.wrapping_add(acked);
                }
                cwnd = cwnd.max(self.cfg.cwnd_min_target);
            }
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.snd_cwnd = tp.snd_cwnd.min(self.cfg.cwnd_min_target);
        }
    }
}
