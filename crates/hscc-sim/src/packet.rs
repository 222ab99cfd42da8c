//! Packets as they travel: small `Copy` values moved through queues and delay
//! lines, never boxed.

pub use hscc_model::packet::{DEFAULT_MSS, HEADER_BYTES, UDP_HEADER_BYTES};

use crate::time::Time;

/// Flag: the segment is a retransmission.
pub const RETRANS: u8 = 1;
/// Flag: the segment was sent while its flow was in slow start.
pub const SLOW_START: u8 = 2;
/// Flag (ACK): `sack[0]` is a D-SACK block (RFC 2883), a duplicate segment;
/// its offsets are signed (`as i32`), since it may lie below the cumulative ACK.
pub const DSACK: u8 = 0x80;
/// Flag (IP ECN field): ECN-Capable Transport, ECT(0) (RFC 3168 §5): new data
/// of a flow with ECN on; never ACKs or retransmissions (§6.1.5, Linux `tcp_ecn_send`).
pub const ECT: u8 = 4;
/// Flag (IP ECN field): Congestion Experienced, set by a queue instead of a
/// drop on an ECN-capable packet (RFC 3168 §5).
pub const CE: u8 = 8;
/// Flag (TCP header, ACKs): ECN-Echo, sent until the receiver sees CWR (RFC 3168 §6.1.3).
pub const ECE: u8 = 16;
/// Flag (TCP header, data): Congestion Window Reduced (RFC 3168 §6.1.2).
pub const CWR: u8 = 32;

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A TCP data segment, sender to receiver.
    Data,
    /// A TCP acknowledgement, receiver to sender.
    Ack,
    /// A UDP datagram.
    Udp,
}

/// A SACK block as offsets from the cumulative ACK, in segments: `[start, end)`.
pub type SackBlock = (u32, u32);

/// One packet in the network.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Time stamp of the current hop: enqueue time while queued, arrival time on a delay line.
    pub t: Time,
    /// Data: segment number. Ack: cumulative ACK (next segment expected). Udp: datagram number.
    pub seq: u64,
    /// Data: TSval (send time). Ack: TSecr (echo of a data segment's TSval). Udp: send time.
    pub ts: Time,
    /// Ack: when the receiver sent it, its TSval (Data, Udp: 0; a data segment's TSval is `ts`).
    pub ack_sent: Time,
    /// Owning flow (TCP flow slot or UDP flow index).
    pub flow: u32,
    /// Generation of the flow slot, so packets of a finished flow never reach its successor.
    pub gen: u32,
    /// Bytes on the wire.
    pub size: u32,
    /// SACK blocks, most recent first.
    pub sack: [SackBlock; 3],
    /// Number of valid SACK blocks.
    pub nsack: u8,
    /// Data or Ack.
    pub kind: Kind,
    /// Index of the current link in the route.
    pub hop: u8,
    /// [`RETRANS`], [`SLOW_START`], [`ECT`], [`CE`], [`ECE`], [`CWR`], [`DSACK`].
    pub flags: u8,
}

impl Packet {
    fn new(kind: Kind, flow: u32, seq: u64, size: u32, ts: Time, flags: u8) -> Packet {
        Packet {
            t: 0,
            seq,
            ts,
            ack_sent: 0,
            flow,
            gen: 0,
            size,
            sack: [(0, 0); 3],
            nsack: 0,
            kind,
            hop: 0,
            flags,
        }
    }

    /// A data segment.
    pub fn data(flow: u32, seq: u64, size: u32, ts: Time, flags: u8) -> Packet {
        Packet::new(Kind::Data, flow, seq, size, ts, flags)
    }

    /// An acknowledgement echoing `ts_ecr`, sent at `sent`.
    pub fn ack(flow: u32, ack: u64, size: u32, ts_ecr: Time, sent: Time) -> Packet {
        Packet {
            ack_sent: sent,
            ..Packet::new(Kind::Ack, flow, ack, size, ts_ecr, 0)
        }
    }

    /// A UDP datagram.
    pub fn udp(flow: u32, seq: u64, size: u32, sent: Time) -> Packet {
        Packet::new(Kind::Udp, flow, seq, size, sent, 0)
    }

    /// Whether this segment is a retransmission.
    pub fn is_retrans(&self) -> bool {
        self.flags & RETRANS != 0
    }
}

// The ACK's own TSval took the packet past one cache line (64 bytes); keep it
// from growing further unmeasured.
const _: () = assert!(
    core::mem::size_of::<Packet>() <= 72,
    "a packet fits 72 bytes"
);
