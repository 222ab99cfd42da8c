//! The per-ACK congestion-control log: every hook call of a flow's algorithm
//! with the sender state it saw and what it left, in call order (Linux's
//! `tcp_probe` tracepoint, with every hook rather than one line per ACK).
//!
//! [`LoggedCc`] is the flow's [`Cc`] with an optional [`CcLog`]: the sender
//! calls the hooks on it exactly as on the algorithm (it dereferences to the
//! [`Cc`] for everything else). Without a log a hook costs one
//! well-predicted branch (the wrappers are always inlined, so the algorithm's
//! code is inlined into the sender as before; the logging path is out of
//! line); with one, a copy of the sender view per call into a vector reserved
//! at the size the estimate predicted, growing by doubling past it.
//! Besides the hook calls, the log has a [`Hook::Sender`] row whenever the
//! sender itself changed what the algorithm owns (PRR, the end of recovery,
//! a timeout's cwnd = 1, the ssthresh a hook returned), so that the log's
//! last row always shows the window the sender uses.

use std::ops::{Deref, DerefMut};

use hscc_cc::trace::{After, Hook, HookCall};
use hscc_cc::{AckSample, CaEvent, CaState, Cc, LostSkb, RateSample, TcpCc};

/// Rows kept for one flow, in call order.
#[derive(Clone, Debug, Default)]
pub struct CcLog {
    /// The calls.
    pub calls: Vec<HookCall>,
}

impl CcLog {
    /// An empty log with room for `rows` calls.
    pub fn with_capacity(rows: usize) -> CcLog {
        CcLog {
            calls: Vec::with_capacity(rows),
        }
    }

    #[cold]
    #[inline(never)]
    fn call(&mut self, cc: &mut Cc, tp: &mut TcpCc, hook: Hook) -> u32 {
        let before = tp.clone();
        let ret = hook.invoke(cc, tp);
        self.calls.push(HookCall {
            hook,
            before,
            after: After::of(tp, ret),
        });
        ret
    }

    /// A [`Hook::Sender`] row if the sender changed what the last row left.
    #[cold]
    #[inline(never)]
    fn settle(&mut self, tp: &TcpCc, now_us: u64) {
        let now = After::of(tp, 0);
        let last = self.calls.last().map(|c| After { ret: 0, ..c.after });
        if last != Some(now) {
            let before = TcpCc {
                now_us,
                ..tp.clone()
            };
            self.calls.push(HookCall {
                hook: Hook::Sender,
                before,
                after: now,
            });
        }
    }
}

/// A flow's algorithm, and its log when the flow is traced.
#[derive(Clone, Debug)]
pub struct LoggedCc {
    cc: Cc,
    /// The log (None: not traced).
    pub log: Option<Box<CcLog>>,
}

impl Deref for LoggedCc {
    type Target = Cc;
    fn deref(&self) -> &Cc {
        &self.cc
    }
}

impl DerefMut for LoggedCc {
    fn deref_mut(&mut self) -> &mut Cc {
        &mut self.cc
    }
}

macro_rules! hook {
    ($self:ident, $tp:ident, $hook:expr, $direct:expr) => {
        match &mut $self.log {
            None => $direct,
            Some(log) => log.call(&mut $self.cc, $tp, $hook),
        }
    };
}

impl LoggedCc {
    /// `cc`, logged when `log` is given.
    pub fn new(cc: Cc, log: Option<CcLog>) -> LoggedCc {
        LoggedCc {
            cc,
            log: log.map(Box::new),
        }
    }

    /// The log so far (empty when not traced), leaving an empty one.
    pub fn take_log(&mut self) -> Vec<HookCall> {
        self.log
            .as_mut()
            .map(|l| std::mem::take(&mut l.calls))
            .unwrap_or_default()
    }

    /// After the sender handled an event at `now_us`: log the changes it made itself.
    #[inline(always)]
    pub fn settle(&mut self, tp: &TcpCc, now_us: u64) {
        if let Some(log) = &mut self.log {
            log.settle(tp, now_us);
        }
    }

    /// See [`hscc_cc::CongestionOps::init`].
    #[inline(always)]
    pub fn init(&mut self, tp: &mut TcpCc) {
        hook!(self, tp, Hook::Init, {
            self.cc.init(tp);
            0
        });
    }
    /// See [`hscc_cc::CongestionOps::ssthresh`].
    #[inline(always)]
    pub fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        hook!(self, tp, Hook::Ssthresh, self.cc.ssthresh(tp))
    }
    /// See [`hscc_cc::CongestionOps::cong_avoid`].
    #[inline(always)]
    pub fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32) {
        hook!(self, tp, Hook::CongAvoid { ack, acked }, {
            self.cc.cong_avoid(tp, ack, acked);
            0
        });
    }
    /// See [`hscc_cc::CongestionOps::set_state`].
    #[inline(always)]
    pub fn set_state(&mut self, tp: &mut TcpCc, s: CaState) {
        hook!(self, tp, Hook::SetState(s), {
            self.cc.set_state(tp, s);
            0
        });
    }
    /// See [`hscc_cc::CongestionOps::cwnd_event`].
    #[inline(always)]
    pub fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        hook!(self, tp, Hook::CwndEvent(ev), {
            self.cc.cwnd_event(tp, ev);
            0
        });
    }
    /// See [`hscc_cc::CongestionOps::in_ack_event`].
    #[inline(always)]
    pub fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32) {
        hook!(self, tp, Hook::InAckEvent(flags), {
            self.cc.in_ack_event(tp, flags);
            0
        });
    }
    /// See [`hscc_cc::CongestionOps::pkts_acked`].
    #[inline(always)]
    pub fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample) {
        hook!(self, tp, Hook::PktsAcked(*s), {
            self.cc.pkts_acked(tp, s);
            0
        });
    }
    /// See [`hscc_cc::CongestionOps::undo_cwnd`].
    #[inline(always)]
    pub fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        hook!(self, tp, Hook::UndoCwnd, self.cc.undo_cwnd(tp))
    }
    /// See [`hscc_cc::CongestionOps::cong_control`].
    #[inline(always)]
    pub fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        hook!(
            self,
            tp,
            Hook::CongControl(*rs),
            self.cc.cong_control(tp, rs) as u32
        ) != 0
    }
    /// See [`hscc_cc::CongestionOps::skb_marked_lost`].
    #[inline(always)]
    pub fn skb_marked_lost(&mut self, tp: &mut TcpCc, skb: &LostSkb) {
        hook!(self, tp, Hook::SkbMarkedLost(*skb), {
            self.cc.skb_marked_lost(tp, skb);
            0
        });
    }
}

/// The log of one traced flow, as a run returns it.
#[derive(Clone, Debug, Default)]
pub struct FlowCcLog {
    /// Engine index of the flow.
    pub flow: u32,
    /// Its calls, in order.
    pub calls: Vec<HookCall>,
}

/// One column of the log as a table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Unsigned bytes (codes, flags as 0/1).
    U8(Vec<u8>),
    /// Unsigned 32-bit values.
    U32(Vec<u32>),
    /// Unsigned 64-bit values.
    U64(Vec<u64>),
    /// Signed 64-bit values.
    I64(Vec<i64>),
}

impl Column {
    /// numpy's name of the element type ("u1", "u4", "u8", "i8"), little-endian.
    pub fn dtype(&self) -> &'static str {
        match self {
            Column::U8(_) => "<u1",
            Column::U32(_) => "<u4",
            Column::U64(_) => "<u8",
            Column::I64(_) => "<i8",
        }
    }

    /// The values as little-endian bytes.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Column::U8(v) => v.clone(),
            Column::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Column::U64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Column::I64(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    /// Bytes per value.
    pub fn width(&self) -> usize {
        match self {
            Column::U8(_) => 1,
            Column::U32(_) => 4,
            Column::U64(_) | Column::I64(_) => 8,
        }
    }
}

/// Bytes per row of [`columns`] (checked by a test): what the table costs
/// on top of the rows while it is handed over.
pub const COLUMN_BYTES: usize = 171;

/// The logs as a table, one row per call: name and values of every column
/// (docs/traces.md describes them). Inputs a hook does not have are 0 here.
pub fn columns(logs: &[FlowCcLog]) -> Vec<(&'static str, Column)> {
    let calls = || {
        logs.iter()
            .flat_map(|l| l.calls.iter().map(move |c| (l.flow, c)))
    };
    let u8s = |f: &dyn Fn(&HookCall) -> u8| Column::U8(calls().map(|(_, c)| f(c)).collect());
    let u32s = |f: &dyn Fn(&HookCall) -> u32| Column::U32(calls().map(|(_, c)| f(c)).collect());
    let u64s = |f: &dyn Fn(&HookCall) -> u64| Column::U64(calls().map(|(_, c)| f(c)).collect());
    let i64s = |f: &dyn Fn(&HookCall) -> i64| Column::I64(calls().map(|(_, c)| f(c)).collect());
    let input = |c: &HookCall| match c.hook {
        Hook::CongAvoid { ack, acked } => (ack, acked, 0, 0, 0),
        Hook::PktsAcked(s) => (0, s.pkts_acked, s.rtt_us as i64, s.in_flight, 0),
        Hook::CongControl(rs) => (0, rs.acked_sacked, rs.rtt_us, rs.prior_in_flight, rs.losses),
        _ => (0, 0, 0, 0, 0),
    };
    let rate_sample = |c: &HookCall| match c.hook {
        Hook::CongControl(rs) => (rs.delivered as i64, rs.interval_us, rs.is_app_limited as u8),
        Hook::SkbMarkedLost(skb) => (0, 0, skb.is_app_limited as u8),
        _ => (0, 0, 0),
    };
    // RS.tx_in_flight and RS.lost: of the ACK's sample, or of the lost segment
    // (its flight at the send, and C.lost now less at the send).
    let flight_at_send = |c: &HookCall| match c.hook {
        Hook::CongControl(rs) => (rs.tx_in_flight, rs.lost),
        Hook::SkbMarkedLost(skb) => (skb.tx_in_flight, c.before.lost.wrapping_sub(skb.tx_lost)),
        _ => (0, 0),
    };
    vec![
        ("flow", Column::U32(calls().map(|(f, _)| f).collect())),
        ("time_us", u64s(&|c| c.before.now_us)),
        ("hook", u8s(&|c| c.hook.code())),
        // Inputs of the hook.
        ("ack", u32s(&|c| input(c).0)),
        (
            "flags",
            u32s(&|c| {
                if let Hook::InAckEvent(f) = c.hook {
                    f
                } else {
                    0
                }
            }),
        ),
        ("acked", u32s(&|c| input(c).1)),
        ("rtt_us", i64s(&|c| input(c).2)),
        ("in_flight", u32s(&|c| input(c).3)),
        ("losses", u32s(&|c| input(c).4)),
        (
            "new_state",
            u8s(&|c| {
                if let Hook::SetState(s) = c.hook {
                    s as u8
                } else {
                    0
                }
            }),
        ),
        (
            "event",
            u8s(&|c| {
                if let Hook::CwndEvent(e) = c.hook {
                    hscc_cc::trace::event_code(e)
                } else {
                    0
                }
            }),
        ),
        ("rs_delivered", i64s(&|c| rate_sample(c).0)),
        ("rs_interval_us", i64s(&|c| rate_sample(c).1)),
        ("rs_app_limited", u8s(&|c| rate_sample(c).2)),
        ("rs_tx_in_flight", u32s(&|c| flight_at_send(c).0)),
        ("rs_lost", u32s(&|c| flight_at_send(c).1)),
        // The sender state the hook saw.
        ("snd_cwnd", u32s(&|c| c.before.snd_cwnd)),
        ("snd_ssthresh", u32s(&|c| c.before.snd_ssthresh)),
        ("snd_cwnd_cnt", u32s(&|c| c.before.snd_cwnd_cnt)),
        ("snd_cwnd_clamp", u32s(&|c| c.before.snd_cwnd_clamp)),
        ("prior_cwnd", u32s(&|c| c.before.prior_cwnd)),
        ("mss_cache", u32s(&|c| c.before.mss_cache)),
        // Unshifted, as tcp_probe prints it (Linux's tp->srtt_us is 8 times this).
        ("srtt_us", u32s(&|c| c.before.srtt())),
        ("min_rtt_us", u32s(&|c| c.before.min_rtt_us)),
        ("snd_una", u32s(&|c| c.before.snd_una)),
        ("snd_nxt", u32s(&|c| c.before.snd_nxt)),
        ("packets_out", u32s(&|c| c.before.packets_out)),
        ("sacked_out", u32s(&|c| c.before.sacked_out)),
        ("lost_out", u32s(&|c| c.before.lost_out)),
        ("retrans_out", u32s(&|c| c.before.retrans_out)),
        ("delivered", u32s(&|c| c.before.delivered)),
        ("lost", u32s(&|c| c.before.lost)),
        ("max_packets_out", u32s(&|c| c.before.max_packets_out)),
        ("is_cwnd_limited", u8s(&|c| c.before.is_cwnd_limited as u8)),
        ("app_limited", u8s(&|c| c.before.app_limited as u8)),
        ("ca_state", u8s(&|c| c.before.ca_state as u8)),
        ("pacing_rate", u64s(&|c| c.before.pacing_rate)),
        // What the call left.
        ("cwnd_after", u32s(&|c| c.after.snd_cwnd)),
        ("ssthresh_after", u32s(&|c| c.after.snd_ssthresh)),
        ("cwnd_cnt_after", u32s(&|c| c.after.snd_cwnd_cnt)),
        ("pacing_rate_after", u64s(&|c| c.after.pacing_rate)),
        ("ret", u32s(&|c| c.after.ret)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use hscc_cc::CcParams;

    #[test]
    fn column_bytes_is_the_width_of_a_row() {
        let mut cc = LoggedCc::new(Cc::new(&CcParams::default()), Some(CcLog::default()));
        let mut tp = TcpCc::new(1448, 10);
        cc.init(&mut tp);
        let cols = columns(&[FlowCcLog {
            flow: 0,
            calls: cc.take_log(),
        }]);
        assert!(cols.iter().all(|(_, c)| c.to_le_bytes().len() == c.width()));
        assert_eq!(
            cols.iter().map(|(_, c)| c.width()).sum::<usize>(),
            COLUMN_BYTES
        );
        // A row while the run goes (docs/traces.md states it).
        assert_eq!(std::mem::size_of::<HookCall>(), 240);
    }

    #[test]
    fn without_a_log_nothing_is_kept_and_with_one_every_call_and_the_senders_changes() {
        let mut plain = LoggedCc::new(Cc::new(&CcParams::default()), None);
        let mut logged = LoggedCc::new(Cc::new(&CcParams::default()), Some(CcLog::default()));
        let (mut a, mut b) = (TcpCc::new(1448, 10), TcpCc::new(1448, 10));
        for (cc, tp) in [(&mut plain, &mut a), (&mut logged, &mut b)] {
            cc.init(tp);
            tp.is_cwnd_limited = true;
            cc.pkts_acked(
                tp,
                &AckSample {
                    pkts_acked: 2,
                    rtt_us: 5000,
                    in_flight: 10,
                },
            );
            cc.cong_avoid(tp, 2896, 2);
            tp.snd_ssthresh = cc.ssthresh(tp);
            cc.settle(tp, 7);
            cc.settle(tp, 8);
        }
        assert_eq!(a, b, "the log changes nothing");
        assert!(plain.take_log().is_empty());
        let log = logged.take_log();
        let kinds: Vec<&str> = log.iter().map(|c| c.hook.name()).collect();
        // Reno: cwnd 10 + 2 in slow start; ssthresh max(12/2, 2) = 6, stored by the sender.
        assert_eq!(
            kinds,
            ["init", "pkts_acked", "cong_avoid", "ssthresh", "sender"]
        );
        assert_eq!((log[2].before.snd_cwnd, log[2].after.snd_cwnd), (10, 12));
        assert_eq!(log[3].after.ret, 6);
        assert_eq!((log[4].before.now_us, log[4].after.snd_ssthresh), (7, 6));
    }
}
