//! DCTCP (Alizadeh et al., "Data Center TCP (DCTCP)", ACM SIGCOMM 2010;
//! RFC 8257), as Linux 6.12's `net/ipv4/tcp_dctcp.c` does it.
//!
//! - α, the fraction of segments delivered with a CE echo, is an EWMA
//!   updated once per window of data (paper §3.1, RFC 8257 §3.3):
//!   α ← (1 − g)·α + g·F with g = 2^−`dctcp_shift_g`, 1/16 by default.
//!   Linux keeps α in 1/1024 units (`DCTCP_MAX_ALPHA` = 1024) and takes F
//!   from the counters `delivered` and `delivered_ce` the stack keeps
//!   (`dctcp_update_alpha`, the `in_ack_event` hook), the window ending when
//!   `snd_una` reaches the `snd_nxt` of its start.
//! - A CE echo (the sender's `tcp_enter_cwr`) cuts once per window to
//!   ssthresh = cwnd − cwnd·α/2 (paper §3.1; `dctcp_ssthresh`: `>> 11U` is
//!   ×α/1024/2), at least 2.
//! - A loss halves as Reno: entering Recovery (`dctcp_state`) or a timeout
//!   (`cwnd_event(Loss)`) sets ssthresh = max(cwnd/2, 2) (`dctcp_react_to_loss`),
//!   over what `ssthresh()` returned just before; undo restores at most the
//!   cwnd before the last reduction (`dctcp_cwnd_undo`).
//! - Growth is Reno's (`.cong_avoid = tcp_reno_cong_avoid`).
//! - The flag `TCP_CONG_NEEDS_ECN` (`.flags`): the engine turns ECN on for the
//!   flow and its receiver echoes CE per segment (`dctcp_ece_ack_update`,
//!   tcp_dctcp.h; hscc-sim's `tcp/ecn.rs` runs it for the receiving end,
//!   which in a data centre runs DCTCP too).
//!
//! # Deviations from Linux
//! - No PLB (`tcp_plb_*`): off by default in Linux (`sysctl_tcp_plb_enabled
//!   = 0`, tcp_ipv4.c), so its hooks in `TX_START`, `Loss` and the α update
//!   do nothing there either.
//! - No fallback to `dctcp-reno` (`dctcp_init` without `TCP_ECN_OK`): the
//!   engine always negotiates ECN for a flow that needs it.
//! - The receiver's half of `dctcp_ece_ack_update` (the ACKs it sends) is
//!   the engine's; here `cwnd_event(EcnIsCe / EcnNoCe)` keeps `ce_state` only.
//! - Linux 6.12 has no `dctcp_clamp_alpha_on_loss` (older kernels had it).

use crate::helpers::tcp_reno_cong_avoid;
use crate::ops::{before, CaEvent, CaState, CongestionOps, TcpCc, TCP_CONG_NEEDS_ECN};

crate::params! {
    /// DCTCP parameters (Linux module parameters, same names).
    pub struct DctcpParams {
        /// g = 1/2^dctcp_shift_g, the gain of the α EWMA.
        dctcp_shift_g: u32 = 4, [0, 10], "Linux tcp_dctcp.c dctcp_shift_g = 4 (g = 1/16, SIGCOMM 2010 §4; RFC 8257 §3.3), param_set_uint_minmax(0, 10)";
        /// α at connection start, 1/1024 units (Linux takes min(value, 1024)).
        dctcp_alpha_on_init: u32 = 1024, [0, u32::MAX], "Linux tcp_dctcp.c dctcp_alpha_on_init = DCTCP_MAX_ALPHA";
    }
}

/// α's unit and ceiling: 1024 = every segment marked (Linux `DCTCP_MAX_ALPHA`).
pub const DCTCP_MAX_ALPHA: u32 = 1024;

/// Linux `min_not_zero`: the smaller of two, ignoring a zero.
#[inline]
fn min_not_zero(x: u32, y: u32) -> u32 {
    match (x, y) {
        (0, y) => y,
        (x, 0) => x,
        (x, y) => x.min(y),
    }
}

/// DCTCP state (Linux `struct dctcp`, without PLB and `prior_rcv_nxt`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dctcp {
    shift_g: u32,
    alpha_on_init: u32,
    /// `tp.delivered` at the start of the observation window.
    pub old_delivered: u32,
    /// `tp.delivered_ce` at the start of the observation window.
    pub old_delivered_ce: u32,
    /// α, 1/1024 units.
    pub alpha: u32,
    /// The window ends when `snd_una` reaches this (`snd_nxt` at its start).
    pub next_seq: u32,
    /// Whether the last data segment received was CE-marked (receiving side).
    pub ce_state: u32,
    /// cwnd at the last reduction, for undo.
    pub loss_cwnd: u32,
}

impl Dctcp {
    /// Linux `dctcp_reset`: a new observation window starts now.
    fn reset(&mut self, tp: &TcpCc) {
        self.next_seq = tp.snd_nxt;
        self.old_delivered = tp.delivered;
        self.old_delivered_ce = tp.delivered_ce;
    }

    /// Linux `dctcp_react_to_loss`: Reno's halving.
    fn react_to_loss(&mut self, tp: &mut TcpCc) {
        self.loss_cwnd = tp.snd_cwnd;
        tp.snd_ssthresh = (tp.snd_cwnd >> 1).max(2);
    }
}

impl CongestionOps for Dctcp {
    const NAME: &'static str = "dctcp";
    type Params = DctcpParams;
    const FLAGS: u32 = TCP_CONG_NEEDS_ECN;

    fn new(p: &DctcpParams) -> Self {
        Dctcp {
            shift_g: p.dctcp_shift_g,
            alpha_on_init: p.dctcp_alpha_on_init,
            old_delivered: 0,
            old_delivered_ce: 0,
            alpha: 0,
            next_seq: 0,
            ce_state: 0,
            loss_cwnd: 0,
        }
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        vec![
            ("dctcp_shift_g", self.shift_g.into()),
            ("dctcp_alpha_on_init", self.alpha_on_init.into()),
        ]
    }

    /// Linux `dctcp_init`, ECN negotiated.
    fn init(&mut self, tp: &mut TcpCc) {
        self.alpha = self.alpha_on_init.min(DCTCP_MAX_ALPHA);
        self.loss_cwnd = 0;
        self.ce_state = 0;
        self.reset(tp);
    }

    /// Linux `dctcp_ssthresh`: cwnd·(1 − α/2), at least 2.
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        let cwnd = tp.snd_cwnd;
        self.loss_cwnd = cwnd;
        // u32 arithmetic as Linux's (wrapping).
        cwnd.wrapping_sub(cwnd.wrapping_mul(self.alpha) >> 11)
            .max(2)
    }

    /// Linux `dctcp_update_alpha`: once per window, α ← α − α·g + F·g.
    fn in_ack_event(&mut self, tp: &mut TcpCc, _flags: u32) {
        if before(tp.snd_una, self.next_seq) {
            return;
        }
        let delivered = tp.delivered.wrapping_sub(self.old_delivered);
        let mut delivered_ce = tp.delivered_ce.wrapping_sub(self.old_delivered_ce);
        let mut alpha = self.alpha;
        alpha -= min_not_zero(alpha, alpha >> self.shift_g);
        if delivered_ce != 0 {
            // F·g in 1/1024 units: delivered_ce·2^(10−g)/delivered.
            delivered_ce <<= 10 - self.shift_g;
            delivered_ce /= delivered.max(1);
            alpha = alpha.wrapping_add(delivered_ce).min(DCTCP_MAX_ALPHA);
        }
        self.alpha = alpha;
        self.reset(tp);
    }

    /// Linux `dctcp_state`: entering Recovery halves.
    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Recovery && new_state != tp.ca_state {
            self.react_to_loss(tp);
        }
    }

    /// Linux `dctcp_cwnd_event`.
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        match ev {
            CaEvent::EcnIsCe => self.ce_state = 1,
            CaEvent::EcnNoCe => self.ce_state = 0,
            CaEvent::Loss => self.react_to_loss(tp),
            _ => {}
        }
    }

    /// Linux `dctcp_cwnd_undo`.
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        tp.snd_cwnd.max(self.loss_cwnd)
    }

    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        tcp_reno_cong_avoid(tp, ack, acked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{CA_ACK_ECE, CA_ACK_SLOWPATH};
    use crate::testing::{Harness, MSS};

    /// A flow in congestion avoidance at `cwnd` with `cwnd` segments sent.
    fn flow(cwnd: u32) -> Harness<Dctcp> {
        let mut h = Harness::new(Dctcp::new(&DctcpParams::default()), cwnd);
        h.tp.snd_ssthresh = cwnd;
        h.send(cwnd);
        h
    }

    /// One ACK of one segment, with ECE or not, through the hooks as the
    /// sender calls them: counters, `in_ack_event`, then CWR on an echo in
    /// Open (`tcp_enter_cwr`), else growth.
    fn ack(h: &mut Harness<Dctcp>, ece: bool) {
        let tp = &mut h.tp;
        tp.snd_una = tp.snd_una.wrapping_add(MSS);
        tp.packets_out -= 1;
        tp.delivered += 1;
        tp.delivered_ce += ece as u32;
        let flags = if ece { CA_ACK_ECE | CA_ACK_SLOWPATH } else { 0 };
        h.cc.in_ack_event(tp, flags);
        if ece && tp.ca_state == CaState::Open {
            tp.prior_cwnd = tp.snd_cwnd;
            tp.snd_ssthresh = h.cc.ssthresh(tp);
            h.cc.set_state(tp, CaState::Cwr);
            tp.ca_state = CaState::Cwr;
        } else if tp.ca_state == CaState::Open {
            let una = tp.snd_una;
            h.cc.cong_avoid(tp, una, 1);
        }
    }

    #[test]
    fn alpha_decays_by_one_sixteenth_per_window_without_marks() {
        let mut h = flow(10);
        h.tp.snd_cwnd_clamp = 10; // a full pipe of 10: one new segment per ACK
                                  // The first ACK closes the window opened at init (snd_nxt was 0), the
                                  // next ones the windows of snd_nxt at each update: ACKs 10, 19, 28.
        let mut alphas = Vec::new();
        for _ in 0..28 {
            ack(&mut h, false);
            h.send(1);
            alphas.push(h.cc.alpha);
        }
        let at = |n: usize| alphas[n - 1];
        assert_eq!((at(1), at(9)), (960, 960));
        assert_eq!((at(10), at(18)), (960 - 60, 900));
        assert_eq!((at(19), at(27)), (900 - 56, 844));
        assert_eq!(at(28), 844 - 52);
    }

    #[test]
    fn marked_window_sets_alpha_and_the_echo_cuts_by_alpha_over_two() {
        let mut h = flow(10);
        ack(&mut h, false); // α = 960, the next window ends at segment 10
        assert_eq!(h.cc.next_seq, 10 * MSS);
        for _ in 0..4 {
            ack(&mut h, false);
        }
        // The first echo: ssthresh = 10 − (10·960 >> 11) = 10 − 4 = 6.
        ack(&mut h, true);
        assert_eq!((h.ssthresh(), h.cc.loss_cwnd), (6, 10));
        assert_eq!(h.tp.ca_state, CaState::Cwr);
        for _ in 0..4 {
            ack(&mut h, true);
        }
        // 9 delivered, 5 with ECE: α = 960 − 60 + (5 << 6)/9 = 900 + 35.
        assert_eq!(h.cc.alpha, 935);
        assert_eq!(h.cc.old_delivered, 10);
        assert_eq!(h.cc.old_delivered_ce, 5);
    }

    #[test]
    fn alpha_is_capped_and_small_alpha_drops_to_zero() {
        let mut h = flow(10);
        h.cc.alpha = 15; // 15 >> 4 = 0: min_not_zero takes all of it
        ack(&mut h, false);
        assert_eq!(h.cc.alpha, 0);
        h.tp.ca_state = CaState::Cwr; // no growth, only counting
        h.cc.alpha = 1024;
        for _ in 0..9 {
            ack(&mut h, true);
        }
        // Every segment marked: 1024 − 64 + (9 << 6)/9 = 1024, no more.
        assert_eq!(h.cc.alpha, 1024);
        // At α = 1024 the cut is a halving: 40 − (40·1024 >> 11) = 20.
        h.tp.snd_cwnd = 40;
        assert_eq!(h.cc.ssthresh(&mut h.tp), 20);
        h.tp.snd_cwnd = 3;
        assert_eq!(h.cc.ssthresh(&mut h.tp), 2, "at least 2");
    }

    #[test]
    fn a_loss_halves_whatever_alpha_and_undo_restores() {
        let mut h = flow(100);
        h.cc.alpha = 64;
        // Recovery: ssthresh() gives 100 − (6400 >> 11) = 97, set_state halves.
        h.fast_retransmit();
        assert_eq!((h.ssthresh(), h.cc.loss_cwnd), (50, 100));
        h.end_recovery();
        assert_eq!(h.cwnd(), 50);
        h.undo();
        assert_eq!(h.cwnd(), 100, "max(cwnd, loss_cwnd)");
        // A timeout: cwnd_event(Loss) halves too.
        h.tp.snd_cwnd = 30;
        h.timeout();
        assert_eq!((h.ssthresh(), h.cwnd(), h.cc.loss_cwnd), (15, 1, 30));
    }

    #[test]
    fn parameters_follow_linux() {
        let p = DctcpParams {
            dctcp_shift_g: 0,
            dctcp_alpha_on_init: 5000,
        };
        let mut h = Harness::new(Dctcp::new(&p), 10);
        assert_eq!(h.cc.alpha, 1024, "min(alpha_on_init, DCTCP_MAX_ALPHA)");
        h.tp.snd_ssthresh = 10;
        h.send(10);
        // g = 1: α = 1024 − 1024 + (1 << 10)/1 = 1024 with the one ACK marked.
        h.tp.ca_state = CaState::Cwr;
        ack(&mut h, true);
        assert_eq!(h.cc.alpha, 1024);
        for _ in 0..9 {
            ack(&mut h, false);
        }
        assert_eq!(h.cc.alpha, 0, "α − min_not_zero(α, α >> 0) = 0");
        let e = CcParams::with("dctcp", &[("dctcp_shift_g", 11.0)]).unwrap_err();
        assert!(e.to_string().contains("dctcp_shift_g"), "{e}");
    }

    #[test]
    fn ecn_events_keep_the_ce_state_and_the_flag_asks_for_ecn() {
        let mut h = flow(10);
        h.cc.cwnd_event(&mut h.tp, CaEvent::EcnIsCe);
        assert_eq!(h.cc.ce_state, 1);
        h.cc.cwnd_event(&mut h.tp, CaEvent::EcnNoCe);
        assert_eq!(h.cc.ce_state, 0);
        assert_eq!(Dctcp::FLAGS & TCP_CONG_NEEDS_ECN, TCP_CONG_NEEDS_ECN);
        assert_eq!(
            CcParams::from_name("dctcp").unwrap().flags(),
            TCP_CONG_NEEDS_ECN
        );
        assert_eq!(CcParams::default().flags(), 0);
    }

    use crate::CcParams;
}

crate::cc_property_suite!(dctcp_properties, Dctcp);
