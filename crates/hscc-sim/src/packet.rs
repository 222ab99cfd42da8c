//! Packets as they travel: small `Copy` values moved through queues and delay
//! lines, never boxed.

use crate::time::Time;

/// Bytes of TCP/IP header with timestamps on the wire (IPv4 20 + TCP 20 + TS option 12).
pub const HEADER_BYTES: u32 = 52;
/// Default maximum segment size (payload bytes): 1500-byte packets on the wire.
pub const DEFAULT_MSS: u32 = 1448;

/// Data segment or acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A data segment, sender to receiver.
    Data,
    /// An acknowledgement, receiver to sender.
    Ack,
}

/// A SACK block as offsets from the cumulative ACK, in segments: `[start, end)`.
pub type SackBlock = (u32, u32);

/// One packet in the network.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Time stamp of the current hop: enqueue time while queued, arrival time on a delay line.
    pub t: Time,
    /// Data: segment number. Ack: cumulative ACK (next segment expected).
    pub seq: u64,
    /// Data: TSval (send time). Ack: TSecr (echo of a data segment's TSval).
    pub ts: Time,
    /// Owning flow.
    pub flow: u32,
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
    /// The segment is a retransmission.
    pub retrans: bool,
}

impl Packet {
    /// A data segment.
    pub fn data(flow: u32, seq: u64, size: u32, ts: Time, retrans: bool) -> Packet {
        Packet { t: 0, seq, ts, flow, size, sack: [(0, 0); 3], nsack: 0, kind: Kind::Data, hop: 0, retrans }
    }

    /// An acknowledgement.
    pub fn ack(flow: u32, ack: u64, size: u32, ts_ecr: Time) -> Packet {
        Packet { t: 0, seq: ack, ts: ts_ecr, flow, size, sack: [(0, 0); 3], nsack: 0, kind: Kind::Ack, hop: 0, retrans: false }
    }
}
