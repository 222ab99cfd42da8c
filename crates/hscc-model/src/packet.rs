//! Sizes of packets on the wire that configurations are written in.

/// Bytes of TCP/IP header with timestamps on the wire (IPv4 20 + TCP 20 + TS option 12).
pub const HEADER_BYTES: u32 = 52;

/// Default maximum segment size (payload bytes): 1500-byte packets on the wire.
pub const DEFAULT_MSS: u32 = 1448;

/// Bytes of IPv4 + UDP + RTP headers on the wire.
pub const UDP_HEADER_BYTES: u32 = 40;
