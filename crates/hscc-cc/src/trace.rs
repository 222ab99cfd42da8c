//! Hook calls as data: what a sender asked of its algorithm, so that a run can
//! be logged call by call and the log replayed on another implementation of
//! the same algorithm (the eBPF programs' conformance tests replay simulator
//! runs this way).
//!
//! A [`HookCall`] is one call of a [`CongestionOps`] hook with its inputs
//! ([`Hook`]), the sender state the algorithm saw (`before`, the whole
//! [`TcpCc`]), and what the call left ([`After`]). [`Hook::invoke`] makes the
//! call on anything with the hooks ([`Hooks`]: every `CongestionOps`, and
//! [`Cc`]); [`replay`] makes a whole log's calls again and checks each result.

use crate::ops::{AckSample, CaEvent, CaState, CongestionOps, LostSkb, RateSample, TcpCc};
use crate::registry::Cc;

/// One hook of `tcp_congestion_ops` with its inputs, or [`Hook::Sender`]: the
/// sender's own change of the window outside any hook (PRR or the classic
/// reduction in recovery, cwnd = ssthresh when recovery ends, cwnd = 1 at a
/// timeout, the restart after idle, the ssthresh a hook returned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hook {
    /// `init`.
    Init,
    /// `ssthresh`; returns the new slow-start threshold.
    Ssthresh,
    /// `cong_avoid(ack, acked)`.
    CongAvoid { ack: u32, acked: u32 },
    /// `set_state(new_state)`.
    SetState(CaState),
    /// `cwnd_event(event)`.
    CwndEvent(CaEvent),
    /// `in_ack_event(flags)`.
    InAckEvent(u32),
    /// `pkts_acked(sample)`.
    PktsAcked(AckSample),
    /// `undo_cwnd`; returns the window to restore.
    UndoCwnd,
    /// `cong_control(rate_sample)`; returns 1 when the algorithm handled the ACK.
    CongControl(RateSample),
    /// Not a hook: the sender changed the window or threshold itself.
    Sender,
    /// `skb_marked_lost(skb)`.
    SkbMarkedLost(LostSkb),
}

impl Hook {
    /// Every kind, in code order ([`Hook::code`]).
    pub const NAMES: [&'static str; 11] = [
        "init",
        "ssthresh",
        "cong_avoid",
        "set_state",
        "cwnd_event",
        "in_ack_event",
        "pkts_acked",
        "undo_cwnd",
        "cong_control",
        "sender",
        "skb_marked_lost",
    ];

    /// Index of the kind in [`Hook::NAMES`].
    pub fn code(&self) -> u8 {
        match self {
            Hook::Init => 0,
            Hook::Ssthresh => 1,
            Hook::CongAvoid { .. } => 2,
            Hook::SetState(_) => 3,
            Hook::CwndEvent(_) => 4,
            Hook::InAckEvent(_) => 5,
            Hook::PktsAcked(_) => 6,
            Hook::UndoCwnd => 7,
            Hook::CongControl(_) => 8,
            Hook::Sender => 9,
            Hook::SkbMarkedLost(_) => 10,
        }
    }

    /// The hook's name, as in Linux's `tcp_congestion_ops` ("sender" for [`Hook::Sender`]).
    pub fn name(&self) -> &'static str {
        Hook::NAMES[self.code() as usize]
    }

    /// Call the hook on `a` with sender state `tp`, as a sender does; the
    /// return value of `ssthresh` and `undo_cwnd`, 1 if `cong_control`
    /// handled the ACK, else 0. [`Hook::Sender`] calls nothing.
    #[inline]
    pub fn invoke(&self, a: &mut impl Hooks, tp: &mut TcpCc) -> u32 {
        match *self {
            Hook::Init => a.init(tp),
            Hook::Ssthresh => return a.ssthresh(tp),
            Hook::CongAvoid { ack, acked } => a.cong_avoid(tp, ack, acked),
            Hook::SetState(s) => a.set_state(tp, s),
            Hook::CwndEvent(ev) => a.cwnd_event(tp, ev),
            Hook::InAckEvent(flags) => a.in_ack_event(tp, flags),
            Hook::PktsAcked(ref s) => a.pkts_acked(tp, s),
            Hook::UndoCwnd => return a.undo_cwnd(tp),
            Hook::CongControl(ref rs) => return a.cong_control(tp, rs) as u32,
            Hook::SkbMarkedLost(ref skb) => a.skb_marked_lost(tp, skb),
            Hook::Sender => {}
        }
        0
    }
}

/// Linux `enum tcp_ca_state` names, by value.
pub const CA_STATE_NAMES: [&str; 5] = ["open", "disorder", "cwr", "recovery", "loss"];

/// Linux `enum tcp_ca_event` names, by value ([`event_code`]).
pub const CA_EVENT_NAMES: [&str; 6] = [
    "tx_start",
    "cwnd_restart",
    "complete_cwr",
    "loss",
    "ecn_no_ce",
    "ecn_is_ce",
];

/// Linux's value of `ev` (`enum tcp_ca_event`), its index in [`CA_EVENT_NAMES`].
pub fn event_code(ev: CaEvent) -> u8 {
    match ev {
        CaEvent::TxStart => 0,
        CaEvent::CwndRestart => 1,
        CaEvent::CompleteCwr => 2,
        CaEvent::Loss => 3,
        CaEvent::EcnNoCe => 4,
        CaEvent::EcnIsCe => 5,
    }
}

/// What the algorithm may write, after a call (Linux lets a BPF program write
/// exactly these: `bpf_tcp_ca_btf_struct_access`), and the call's return value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct After {
    /// `snd_cwnd`, segments.
    pub snd_cwnd: u32,
    /// `snd_ssthresh`, segments (a hook returns the new threshold; the sender stores it after the call).
    pub snd_ssthresh: u32,
    /// `snd_cwnd_cnt`.
    pub snd_cwnd_cnt: u32,
    /// Pacing rate, bytes per second.
    pub pacing_rate: u64,
    /// Return value (see [`Hook::invoke`]).
    pub ret: u32,
}

impl After {
    /// The writable fields of `tp`, with return value `ret`.
    #[inline]
    pub fn of(tp: &TcpCc, ret: u32) -> After {
        After {
            snd_cwnd: tp.snd_cwnd,
            snd_ssthresh: tp.snd_ssthresh,
            snd_cwnd_cnt: tp.snd_cwnd_cnt,
            pacing_rate: tp.pacing_rate,
            ret,
        }
    }
}

/// One recorded call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookCall {
    /// The hook and its inputs.
    pub hook: Hook,
    /// The sender state the algorithm saw (for [`Hook::Sender`]: the state the sender left).
    pub before: TcpCc,
    /// What the call left.
    pub after: After,
}

/// The hooks of [`CongestionOps`], callable on any algorithm and on [`Cc`].
pub trait Hooks {
    /// See [`CongestionOps::init`].
    fn init(&mut self, tp: &mut TcpCc);
    /// See [`CongestionOps::ssthresh`].
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32;
    /// See [`CongestionOps::cong_avoid`].
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32);
    /// See [`CongestionOps::set_state`].
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState);
    /// See [`CongestionOps::cwnd_event`].
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent);
    /// See [`CongestionOps::in_ack_event`].
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32);
    /// See [`CongestionOps::pkts_acked`].
    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample);
    /// See [`CongestionOps::undo_cwnd`].
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32;
    /// See [`CongestionOps::cong_control`].
    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool;
    /// See [`CongestionOps::skb_marked_lost`].
    fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb);
}

macro_rules! forward_hooks {
    () => {
        #[inline]
        fn init(&mut self, tp: &mut TcpCc) {
            Self::init(self, tp)
        }
        #[inline]
        fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
            Self::ssthresh(self, tp)
        }
        #[inline]
        fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
            Self::cong_avoid(self, tp, ack, acked)
        }
        #[inline]
        fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
            Self::set_state(self, tp, s)
        }
        #[inline]
        fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
            Self::cwnd_event(self, tp, ev)
        }
        #[inline]
        fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
            Self::in_ack_event(self, tp, flags)
        }
        #[inline]
        fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
            Self::pkts_acked(self, tp, s)
        }
        #[inline]
        fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
            Self::undo_cwnd(self, tp)
        }
        #[inline]
        fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
            Self::cong_control(self, tp, rs)
        }
        #[inline]
        fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
            Self::skb_marked_lost(self, tp, skb)
        }
    };
}

impl<T: CongestionOps> Hooks for T {
    forward_hooks!();
}

impl Hooks for Cc {
    forward_hooks!();
}

/// A replayed call whose result differs from the recorded one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Index of the call in the log.
    pub index: usize,
    /// The call as recorded.
    pub call: HookCall,
    /// What the replay left.
    pub replayed: After,
}

impl core::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "call {} ({:?} at {} us): recorded {:?}, replayed {:?}; state seen {:?}",
            self.index,
            self.call.hook,
            self.call.before.now_us,
            self.call.after,
            self.replayed,
            self.call.before
        )
    }
}

/// Make every hook call of `log` again on `a`, each from the state the
/// recorded call saw, and check that it leaves what the recording says
/// (`snd_cwnd`, `snd_ssthresh`, `snd_cwnd_cnt`, pacing rate, return value).
/// `a` must start as the recorded algorithm did (same parameters, before
/// `init`). Returns the number of hook calls made.
pub fn replay<'a>(
    a: &mut impl Hooks,
    log: impl IntoIterator<Item = &'a HookCall>,
) -> Result<u64, Box<Mismatch>> {
    let mut calls = 0;
    for (index, call) in log.into_iter().enumerate() {
        if call.hook == Hook::Sender {
            continue;
        }
        let mut tp = call.before.clone();
        let ret = call.hook.invoke(a, &mut tp);
        let replayed = After::of(&tp, ret);
        if replayed != call.after {
            return Err(Box::new(Mismatch {
                index,
                call: call.clone(),
                replayed,
            }));
        }
        calls += 1;
    }
    Ok(calls)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CcParams;

    fn record(cc: &mut Cc, tp: &mut TcpCc, hook: Hook, log: &mut Vec<HookCall>) {
        let before = tp.clone();
        let ret = hook.invoke(cc, tp);
        log.push(HookCall {
            hook,
            before,
            after: After::of(tp, ret),
        });
    }

    #[test]
    fn a_recorded_reno_run_replays_and_a_changed_one_does_not() {
        // Reno by hand: init, two ACKs of 10 segments in slow start (cwnd 10 → 20 → 30),
        // then a loss: ssthresh = max(cwnd/2, 2) = 15.
        let mut cc = Cc::new(&CcParams::from_name("reno").unwrap());
        let mut tp = TcpCc::new(1448, 10);
        let mut log = Vec::new();
        record(&mut cc, &mut tp, Hook::Init, &mut log);
        for _ in 0..2 {
            tp.packets_out = tp.snd_cwnd;
            tp.is_cwnd_limited = true;
            let sample = AckSample {
                pkts_acked: 10,
                rtt_us: 10_000,
                in_flight: 0,
            };
            record(&mut cc, &mut tp, Hook::PktsAcked(sample), &mut log);
            record(
                &mut cc,
                &mut tp,
                Hook::CongAvoid { ack: 0, acked: 10 },
                &mut log,
            );
        }
        assert_eq!(tp.snd_cwnd, 30);
        record(&mut cc, &mut tp, Hook::Ssthresh, &mut log);
        assert_eq!(log.last().unwrap().after.ret, 15);
        assert_eq!(
            log.iter().map(|c| c.hook.name()).collect::<Vec<_>>(),
            [
                "init",
                "pkts_acked",
                "cong_avoid",
                "pkts_acked",
                "cong_avoid",
                "ssthresh"
            ]
        );

        let fresh = || Cc::new(&CcParams::from_name("reno").unwrap());
        assert_eq!(replay(&mut fresh(), &log), Ok(6));
        // CUBIC's β 0.7 gives ssthresh 21, not 15.
        let mut cubic = Cc::new(&CcParams::from_name("cubic").unwrap());
        let e = replay(&mut cubic, &log).unwrap_err();
        assert_eq!((e.index, e.replayed.ret), (5, 21));
        // A tampered recording is caught at the tampered call.
        log[2].after.snd_cwnd += 1;
        assert_eq!(replay(&mut fresh(), &log).unwrap_err().index, 2);
    }

    #[test]
    fn names_follow_codes() {
        for h in [Hook::Init, Hook::Ssthresh, Hook::UndoCwnd, Hook::Sender] {
            assert_eq!(Hook::NAMES[h.code() as usize], h.name());
        }
        assert_eq!(Hook::CongAvoid { ack: 1, acked: 2 }.name(), "cong_avoid");
        assert_eq!(CA_STATE_NAMES[CaState::Recovery as usize], "recovery");
        assert_eq!(
            CA_EVENT_NAMES[event_code(CaEvent::CompleteCwr) as usize],
            "complete_cwr"
        );
    }
}
