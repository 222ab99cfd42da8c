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
//! [`super::sender`]. Linux's receiver-side events `CA_EVENT_ECN_IS_CE` and
//! `CA_EVENT_ECN_NO_CE` go only to algorithms flagged `TCP_CONG_NEEDS_ECN`
//! (DCTCP); none of hscc's has that flag, so they are never raised.

use crate::packet::{Packet, CE, CWR, ECE, ECT};

/// The sender's ECN state (Linux `ecn_flags`: `TCP_ECN_OK`, `TCP_ECN_QUEUE_CWR`).
#[derive(Clone, Copy, Debug, Default)]
pub struct EcnSender {
    /// ECN is on for the connection.
    pub on: bool,
    /// CWR is due on the next new data segment.
    queue_cwr: bool,
}

impl EcnSender {
    /// The state of a connection with ECN `on` or off.
    pub fn new(on: bool) -> Self {
        EcnSender {
            on,
            queue_cwr: false,
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
        if !self.on || retransmission {
            return 0;
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

    /// A data segment arrived; `new_data`: it was not a duplicate (Linux checks
    /// CE only on data it queues). Returns whether it must be ACKed at once.
    #[inline]
    pub fn on_segment(&mut self, p: &Packet, new_data: bool) -> bool {
        if !self.on {
            return false;
        }
        self.ce_received += (p.flags & CE != 0) as u64;
        let mut now = false;
        if p.flags & CWR != 0 {
            self.demand_cwr = false;
            now = true;
        }
        if new_data {
            if p.flags & CE != 0 {
                if !self.demand_cwr {
                    self.quick = 2;
                    self.demand_cwr = true;
                }
                self.seen = true;
            } else if p.flags & ECT != 0 {
                self.seen = true;
            } else if self.seen {
                self.quick = 2;
            }
        }
        now || self.quick > 0
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
        assert!(!r.on_segment(&seg(ECT), true));
        assert_eq!(r.ack_flags(), 0);
        // CE: ECE on every ACK until CWR; the next two ACKs are immediate.
        assert!(r.on_segment(&seg(ECT | CE), true));
        assert_eq!(r.ack_flags(), ECE);
        assert!(r.on_segment(&seg(ECT), true));
        assert_eq!(r.ack_flags(), ECE);
        assert!(!r.on_segment(&seg(ECT), true), "two quick ACKs only");
        assert_eq!(r.ack_flags(), ECE);
        // CWR ends the echo and is ACKed at once.
        assert!(r.on_segment(&seg(ECT | CWR), true));
        assert_eq!(r.ack_flags(), 0);
        // A Not-ECT segment after ECT was seen: likely a retransmission, quick ACKs.
        assert!(r.on_segment(&seg(0), true));
        let mut off = EcnReceiver::new(false);
        assert!(!off.on_segment(&seg(ECT | CE), true));
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
        let mut ack = Packet::ack(0, 1, 52, 0);
        ack.flags = ECE;
        assert!(s.echo(&ack));
        let mut off = EcnSender::new(false);
        off.queue_cwr();
        assert_eq!(off.data_flags(false), 0);
        assert!(!off.echo(&ack));
    }
}
