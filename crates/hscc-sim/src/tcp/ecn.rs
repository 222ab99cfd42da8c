//! ECN at the TCP endpoints (RFC 3168 §6.1), as Linux does it
//! (net/ipv4/tcp_input.c, tcp_output.c; `tcp_ecn = 1` on both ends, so the
//! handshake's negotiation succeeds and is not modeled).
//!
//! - Sender: new data goes out ECT(0); ACKs and retransmissions do not
//!   (RFC 3168 §6.1.5; Linux `tcp_ecn_send`). After every window reduction
//!   (`tcp_init_cwnd_reduction`, `tcp_enter_loss`: `tcp_ecn_queue_cwr`) the
//!   next new data segment carries CWR (§6.1.2).
//! - Receiver: a CE mark sets "demand CWR", and every ACK carries ECE until a
//!   segment with CWR arrives (§6.1.3; Linux `__tcp_ecn_check_ce`,
//!   `tcp_ecn_accept_cwr`). The first CE of an episode makes the next two ACKs
//!   immediate (`tcp_enter_quickack_mode(sk, 2)`: "sender can have a very low
//!   cwnd"), as does a Not-ECT segment once ECT was seen (probably a
//!   retransmission); a segment with CWR is ACKed at once.
//!
//! The sender's reaction to ECE (the CWR state, `tcp_enter_cwr`) lives in
//! [`super::sender`].
//!
//! An algorithm flagged `TCP_CONG_NEEDS_ECN` (DCTCP) turns ECN on for its
//! flow whatever the scenario says (Linux `tcp_ecn_send_syn`: `use_ecn`), and
//! its sender keeps ECT on retransmissions (`tcp_ecn_send`: only others clear
//! it). Its receiver raises `CA_EVENT_ECN_IS_CE` / `CA_EVENT_ECN_NO_CE` for
//! each new data segment (`__tcp_ecn_check_ce`) to its own algorithm; hscc
//! takes the receiving end to run the flow's algorithm (both ends of a data
//! centre connection run DCTCP) and does what DCTCP does with them
//! (`dctcp_ece_ack_update`, net/ipv4/tcp_dctcp.h): ECE on an ACK says
//! whether the last segment was CE (set and cleared per segment, not held
//! until CWR), a change of that state is ACKed at once, and a delayed ACK
//! pending at the change goes first, covering the segments before it with the
//! old state. The event sets `TCP_ECN_DEMAND_CWR` before Linux checks it, so
//! a CE mark makes no quick ACKs there.

use crate::packet::{Packet, CE, CWR, ECE, ECT};

/// The sender's ECN state (Linux `ecn_flags`: `TCP_ECN_OK`, `TCP_ECN_QUEUE_CWR`).
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnSender {
    /// ECN is on for the connection.
    pub on: bool,
    /// The algorithm needs ECN: retransmissions are ECT too.
    needs_ecn: bool,
    /// CWR is due on the next new data segment.
    queue_cwr: bool,
}

impl EcnSender {
    /// The state of a connection with ECN `on` or off.
    pub fn new(on: bool) -> Self {
        EcnSender {
            on,
            needs_ecn: false,
            queue_cwr: false,
        }
    }

    /// The state of a connection whose algorithm is flagged `TCP_CONG_NEEDS_ECN`.
    pub fn needs_ecn() -> Self {
        EcnSender {
            needs_ecn: true,
            ..EcnSender::new(true)
        }
    }

    /// Whether `ack` echoes congestion (Linux `tcp_ecn_rcv_ecn_echo`).
    #[inline]
    pub fn echo(&self, ack: &Packet) -> bool {
        self.on && ack.flags & ECE != 0
    }

    /// The window was reduced: CWR goes on the next new data (`tcp_ecn_queue_cwr`).
    #[inline]
    pub fn queue_cwr(&mut self) {
        self.queue_cwr = self.on;
    }

    /// ECN flags of a data segment: ECT(0) on new data, with CWR once after a reduction.
    #[inline]
    pub fn data_flags(&mut self, retransmission: bool) -> u8 {
        if !self.on {
            return 0;
        }
        if retransmission {
            return if self.needs_ecn { ECT } else { 0 };
        }
        if std::mem::take(&mut self.queue_cwr) {
            return ECT | CWR;
        }
        ECT
    }
}

/// The receiver's ECN state (Linux `TCP_ECN_DEMAND_CWR`, `TCP_ECN_SEEN`, quick ACKs).
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnReceiver {
    on: bool,
    demand_cwr: bool,
    seen: bool,
    /// Immediate ACKs still due (Linux `icsk_ack.quick`).
    quick: u8,
    /// The receiving end runs DCTCP's CE echo (`TCP_CONG_NEEDS_ECN`).
    dctcp: bool,
    /// DCTCP: whether the last new data segment was CE (`ca->ce_state`).
    ce_state: bool,
    /// DCTCP: the ECE of the ACK to send before this segment's, when one was delayed.
    pub prior_ece: Option<bool>,
    /// Data segments that arrived CE-marked.
    pub ce_received: u64,
}

impl EcnReceiver {
    /// The state of a connection with ECN `on` or off.
    pub fn new(on: bool) -> Self {
        EcnReceiver {
            on,
            ..Default::default()
        }
    }

    /// The state of a connection whose algorithm is flagged `TCP_CONG_NEEDS_ECN`.
    pub fn needs_ecn() -> Self {
        EcnReceiver {
            dctcp: true,
            ..EcnReceiver::new(true)
        }
    }

    /// A data segment arrived; `new_data`: it was not a duplicate (Linux checks
    /// CE only on data it queues); `ack_delayed`: segments before it wait for a
    /// delayed ACK. Returns whether it must be ACKed at once; for DCTCP,
    /// [`EcnReceiver::prior_ece`] then says whether an ACK for the segments
    /// before it goes first, and with which ECE.
    #[inline]
    pub fn on_segment(&mut self, p: &Packet, new_data: bool, ack_delayed: bool) -> bool {
        if !self.on {
            return false;
        }
        self.ce_received += (p.flags & CE != 0) as u64;
        let mut now = false;
        if p.flags & CWR != 0 {
            self.demand_cwr = false; // tcp_ecn_accept_cwr
            now = true;
        }
        if new_data {
            if p.flags & CE == CE {
                now |= self.dctcp_event(true, ack_delayed);
                if !self.demand_cwr {
                    self.quick = 2;
                    self.demand_cwr = true;
                }
                self.seen = true;
            } else if p.flags & ECT != 0 {
                now |= self.dctcp_event(false, ack_delayed);
                self.seen = true;
            } else if self.seen {
                self.quick = 2;
            }
        }
        now || self.quick > 0
    }

    /// DCTCP's `dctcp_ece_ack_update` for CA_EVENT_ECN_IS_CE (`ce`) or
    /// CA_EVENT_ECN_NO_CE; returns whether the segment is ACKed at once.
    #[inline]
    fn dctcp_event(&mut self, ce: bool, ack_delayed: bool) -> bool {
        if !self.dctcp {
            return false;
        }
        let changed = self.ce_state != ce;
        if changed && ack_delayed {
            self.prior_ece = Some(self.ce_state);
        }
        self.ce_state = ce;
        self.demand_cwr = ce;
        changed
    }

    /// An ACK is sent: its ECN flags (ECE while CWR is awaited).
    #[inline]
    pub fn ack_flags(&mut self) -> u8 {
        self.quick = self.quick.saturating_sub(1);
        if self.demand_cwr {
            ECE
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(flags: u8) -> Packet {
        Packet::data(0, 0, 1500, 0, flags)
    }

    #[test]
    fn the_receiver_echoes_ce_until_cwr_and_acks_quickly() {
        let mut r = EcnReceiver::new(true);
        assert!(!r.on_segment(&seg(ECT), true, false));
        assert_eq!(r.ack_flags(), 0);
        // CE: ECE on every ACK until CWR; the next two ACKs are immediate.
        assert!(r.on_segment(&seg(ECT | CE), true, false));
        assert_eq!(r.ack_flags(), ECE);
        assert!(r.on_segment(&seg(ECT), true, false));
        assert_eq!(r.ack_flags(), ECE);
        assert!(!r.on_segment(&seg(ECT), true, false), "two quick ACKs only");
        assert_eq!(r.ack_flags(), ECE);
        // CWR ends the echo and is ACKed at once.
        assert!(r.on_segment(&seg(ECT | CWR), true, false));
        assert_eq!(r.ack_flags(), 0);
        // A Not-ECT segment after ECT was seen: likely a retransmission, quick ACKs.
        assert!(r.on_segment(&seg(0), true, false));
        let mut off = EcnReceiver::new(false);
        assert!(!off.on_segment(&seg(ECT | CE), true, false));
        assert_eq!(off.ack_flags(), 0);
    }

    #[test]
    fn the_sender_marks_new_data_and_sends_cwr_once_after_a_reduction() {
        let mut s = EcnSender::new(true);
        assert_eq!(s.data_flags(false), ECT);
        assert_eq!(s.data_flags(true), 0, "retransmissions are Not-ECT");
        s.queue_cwr();
        assert_eq!(s.data_flags(true), 0, "CWR waits for new data");
        assert_eq!(s.data_flags(false), ECT | CWR);
        assert_eq!(s.data_flags(false), ECT);
        let mut ack = Packet::ack(0, 1, 52, 0, 0);
        ack.flags = ECE;
        assert!(s.echo(&ack));
        // An algorithm that needs ECN: on, and retransmissions stay ECT (without CWR).
        let mut dctcp = EcnSender::needs_ecn();
        dctcp.queue_cwr();
        assert_eq!(dctcp.data_flags(true), ECT);
        assert_eq!(dctcp.data_flags(false), ECT | CWR);
        assert!(dctcp.echo(&ack));
        let mut off = EcnSender::new(false);
        off.queue_cwr();
        assert_eq!(off.data_flags(false), 0);
        assert!(!off.echo(&ack));
    }
}
