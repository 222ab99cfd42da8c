//! The TCP model: a sender with slow start, congestion avoidance delegated to
//! an [`hscc_cc::Cc`], SACK (RFC 6675) or NewReno (RFC 6582) loss recovery,
//! PRR (RFC 6937) or classic window reduction, RFC 6298 retransmission timer,
//! pacing; and a receiver with cumulative ACKs, SACK blocks and delayed ACKs.
//!
//! Sequence numbers inside the simulator count segments (`u64`); the
//! algorithm sees Linux-style wrapping byte sequence numbers in [`hscc_cc::TcpCc`].

pub mod cc_log;
pub mod ecn;
mod intervals;
pub mod receiver;
pub mod rtt;
pub mod sender;
mod work;

pub use cc_log::{CcLog, FlowCcLog, LoggedCc};
pub use receiver::Receiver;
pub use sender::Sender;
