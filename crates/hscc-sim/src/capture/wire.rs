//! The engine's packets as bytes on the wire: IPv4 with TCP or UDP headers,
//! sequence numbers in bytes, options as Linux sends them (docs/traces.md).
//!
//! The engine counts TCP data in segments; here segment `k` of a flow with
//! MSS `m` starts at byte `ISN + 1 + k·m` (the SYN takes one sequence number),
//! and a cumulative ACK or SACK edge at segment `k` is byte
//! `ISN + 1 + min(k·m, size)` (the last segment of a sized flow is short).

use crate::packet::{Kind, Packet, CE, CWR, DSACK, ECE, ECT, HEADER_BYTES, UDP_HEADER_BYTES};
use crate::time::{Time, US};

pub use hscc_model::capture::MAX_HEADER;
/// Bytes before the TCP header.
const IP: usize = 20;

/// What the bytes of one connection's packets depend on, fixed when it opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conn {
    /// IPv4 addresses of the sender and the receiver of the data.
    pub src: u32,
    pub dst: u32,
    /// Their ports.
    pub sport: u16,
    pub dport: u16,
    /// Initial sequence numbers of the sender and the receiver.
    pub isn: u32,
    pub isn_rx: u32,
    /// TCP: payload bytes per segment and the flow's size (u64::MAX: unlimited).
    pub mss: u32,
    pub size: u64,
    /// Receive window the receiver advertises, already scaled, and its shift.
    pub window: u16,
    pub wscale: u8,
    /// Options negotiated in the handshake.
    pub sack: bool,
    pub timestamps: bool,
    pub ecn: bool,
    /// UDP rather than TCP.
    pub udp: bool,
}

/// The IPv4 address of engine node `n`: 10.0.0.0/8, node 0 is 10.0.0.1.
pub fn node_address(n: u32) -> u32 {
    0x0A00_0000 | ((n + 1) & 0x00FF_FFFF)
}

/// A receive window of `w` bytes as (window field, shift):
/// the smallest shift that fits it in 16 bits, at most 14 (RFC 7323 §2.3).
pub fn scaled_window(w: u64) -> (u16, u8) {
    let shift = (0..14u8).find(|&s| w >> s <= 0xFFFF).unwrap_or(14);
    ((w >> shift).min(0xFFFF) as u16, shift)
}

/// A TCP timestamp clock value: microseconds, wrapping as a 32-bit clock does.
fn ts_clock(t: Time) -> u32 {
    (t / US) as u32
}

/// Packet bytes being built.
struct Frame {
    buf: [u8; MAX_HEADER],
    len: usize,
}

impl Frame {
    fn new() -> Frame {
        Frame {
            buf: [0; MAX_HEADER],
            len: 0,
        }
    }
    fn u8(&mut self, v: u8) {
        self.buf[self.len] = v;
        self.len += 1;
    }
    fn u16(&mut self, v: u16) {
        self.buf[self.len..self.len + 2].copy_from_slice(&v.to_be_bytes());
        self.len += 2;
    }
    fn u32(&mut self, v: u32) {
        self.buf[self.len..self.len + 4].copy_from_slice(&v.to_be_bytes());
        self.len += 4;
    }
    fn set_u16(&mut self, at: usize, v: u16) {
        self.buf[at..at + 2].copy_from_slice(&v.to_be_bytes());
    }
}

/// One's-complement sum of 16-bit words (RFC 1071), not yet inverted.
fn sum16(bytes: &[u8], mut acc: u32) -> u32 {
    let words = bytes.chunks_exact(2);
    if let [last] = words.remainder() {
        acc += u32::from(*last) << 8;
    }
    for w in words {
        acc += u32::from(u16::from_be_bytes([w[0], w[1]]));
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc > 0xFFFF {
        acc = (acc & 0xFFFF) + (acc >> 16);
    }
    !(acc as u16)
}

/// The TCP header fields of one segment.
pub struct Segment {
    pub seq: u32,
    pub ack: u32,
    /// TCP flags byte (FIN 1, SYN 2, RST 4, PSH 8, ACK 16, URG 32, ECE 64, CWR 128).
    pub flags: u8,
    pub window: u16,
    /// IPv4 ECN field (0: not ECN-capable, 2: ECT(0), 3: CE).
    pub ecn: u8,
    /// (TSval, TSecr), when timestamps are on.
    pub ts: Option<(u32, u32)>,
    /// SACK blocks as byte edges.
    pub sack: [(u32, u32); 3],
    pub nsack: usize,
    /// SYN options: (MSS, SACK permitted, window shift).
    pub syn: Option<(u16, bool, u8)>,
    /// Payload bytes (written as zeros).
    pub payload: u32,
}

const SYN: u8 = 0x02;
const ACK: u8 = 0x10;
const TCP_ECE: u8 = 0x40;
const TCP_CWR: u8 = 0x80;

/// IPv4 + TCP header of `s` from `src`:`sport` to `dst`:`dport`; returns the
/// header bytes and the packet's total length.
pub fn tcp(
    src: u32,
    dst: u32,
    sport: u16,
    dport: u16,
    s: &Segment,
) -> ([u8; MAX_HEADER], usize, u32) {
    let mut f = Frame::new();
    ip_header(&mut f, src, dst, s.ecn, 6);
    f.u16(sport);
    f.u16(dport);
    f.u32(s.seq);
    f.u32(s.ack);
    f.u16(0); // data offset and flags, set below
    f.u16(s.window);
    f.u16(0); // checksum
    f.u16(0); // urgent pointer
              // Options in Linux's order and padding (tcp_options_write).
    let sack_ok = s.syn.is_some_and(|o| o.1);
    if let Some((mss, _, _)) = s.syn {
        f.u8(2);
        f.u8(4);
        f.u16(mss);
    }
    if let Some((val, ecr)) = s.ts {
        // SACK-permitted takes the place of the two NOPs before a timestamp.
        let lead = if sack_ok { [4, 2] } else { [1, 1] };
        f.u8(lead[0]);
        f.u8(lead[1]);
        f.u8(8);
        f.u8(10);
        f.u32(val);
        f.u32(ecr);
    } else if sack_ok {
        f.u8(1);
        f.u8(1);
        f.u8(4);
        f.u8(2);
    }
    if let Some((_, _, shift)) = s.syn {
        f.u8(1);
        f.u8(3);
        f.u8(3);
        f.u8(shift);
    }
    if s.nsack > 0 {
        f.u8(1);
        f.u8(1);
        f.u8(5);
        f.u8(2 + 8 * s.nsack as u8);
        for &(l, r) in &s.sack[..s.nsack] {
            f.u32(l);
            f.u32(r);
        }
    }
    let tcp_len = f.len - IP;
    debug_assert!(tcp_len.is_multiple_of(4) && tcp_len <= 60);
    f.buf[IP + 12] = ((tcp_len / 4) as u8) << 4;
    f.buf[IP + 13] = s.flags;
    let total = (f.len as u32 + s.payload).min(0xFFFF);
    finish_ip(&mut f, total);
    // Checksum over the pseudo-header and the segment; the payload is zeros.
    let mut acc = sum16(&f.buf[12..20], 6 + (total - IP as u32));
    acc = sum16(&f.buf[IP..f.len], acc);
    let c = fold(acc);
    f.set_u16(IP + 16, c);
    (f.buf, f.len, total)
}

/// IPv4 + UDP header of a datagram of `size` bytes on the wire (IPv4, UDP and
/// RTP headers included, as the engine counts them).
pub fn udp(c: &Conn, size: u32) -> ([u8; MAX_HEADER], usize, u32) {
    let mut f = Frame::new();
    ip_header(&mut f, c.src, c.dst, 0, 17);
    let total = size.clamp(28, 0xFFFF);
    f.u16(c.sport);
    f.u16(c.dport);
    f.u16((total - IP as u32) as u16);
    f.u16(0); // checksum
    finish_ip(&mut f, total);
    let acc = sum16(&f.buf[12..20], 17 + (total - IP as u32));
    let c = match fold(sum16(&f.buf[IP..f.len], acc)) {
        0 => 0xFFFF, // RFC 768: a computed 0 is sent as all ones
        c => c,
    };
    f.set_u16(IP + 6, c);
    (f.buf, f.len, total)
}

fn ip_header(f: &mut Frame, src: u32, dst: u32, ecn: u8, proto: u8) {
    f.u8(0x45);
    f.u8(ecn);
    f.u16(0); // total length, set by finish_ip
    f.u16(0); // identification (0 with DF: RFC 6864 atomic datagrams)
    f.u16(0x4000); // DF
    f.u8(64);
    f.u8(proto);
    f.u16(0); // header checksum
    f.u32(src);
    f.u32(dst);
}

fn finish_ip(f: &mut Frame, total: u32) {
    f.set_u16(2, total as u16);
    let c = fold(sum16(&f.buf[..IP], 0));
    f.set_u16(10, c);
}

impl Conn {
    /// A UDP flow between two addresses and ports.
    pub fn udp(src: u32, dst: u32, sport: u16, dport: u16) -> Conn {
        Conn {
            src,
            dst,
            sport,
            dport,
            isn: 0,
            isn_rx: 0,
            mss: 0,
            size: 0,
            window: 0,
            wscale: 0,
            sack: false,
            timestamps: false,
            ecn: false,
            udp: true,
        }
    }

    /// Byte sequence number of segment edge `k` (data sender's space).
    fn byte(&self, k: i64) -> u32 {
        let k = k.max(0) as u64;
        let b = k.saturating_mul(self.mss as u64).min(self.size);
        self.isn.wrapping_add(1).wrapping_add(b as u32)
    }

    /// The SYN (`reply` false) or SYN-ACK of the handshake, sent at `t`.
    pub fn handshake(&self, reply: bool, t: Time) -> Segment {
        let ecn_flags = match (self.ecn, reply) {
            (false, _) => 0,
            (true, false) => TCP_ECE | TCP_CWR, // RFC 3168 §6.1.1: ECN-setup SYN
            (true, true) => TCP_ECE,
        };
        let (seq, ack, flags) = if reply {
            (self.isn_rx, self.isn.wrapping_add(1), SYN | ACK)
        } else {
            (self.isn, 0, SYN)
        };
        let window = if reply { self.window } else { 0xFFFF };
        let ts = self
            .timestamps
            .then(|| (ts_clock(t), if reply { ts_clock(t) } else { 0 }));
        let shift = if reply { self.wscale } else { 14 };
        Segment {
            seq,
            ack,
            flags: flags | ecn_flags,
            window,
            ecn: 0,
            ts,
            sack: [(0, 0); 3],
            nsack: 0,
            syn: Some((self.mss.min(0xFFFF) as u16, self.sack, shift)),
            payload: 0,
        }
    }

    /// The segment a TCP packet of this connection is; `echo` is the data
    /// sender's TSecr (the last TSval it saw from the receiver).
    pub fn segment(&self, p: &Packet, echo: u32) -> Segment {
        let ecn = match p.flags & (ECT | CE) {
            0 => 0,
            f if f & CE != 0 => 3,
            _ => 2,
        };
        let mut s = Segment {
            seq: 0,
            ack: 0,
            flags: ACK,
            window: self.window,
            ecn,
            ts: None,
            sack: [(0, 0); 3],
            nsack: 0,
            syn: None,
            payload: 0,
        };
        if p.kind == Kind::Data {
            s.seq = self.byte(p.seq as i64);
            s.ack = self.isn_rx.wrapping_add(1);
            s.window = 0xFFFF;
            s.payload = p.size.saturating_sub(HEADER_BYTES);
            if p.flags & CWR != 0 {
                s.flags |= TCP_CWR;
            }
            s.ts = self.timestamps.then(|| (ts_clock(p.ts), echo));
        } else {
            s.seq = self.isn_rx.wrapping_add(1);
            s.ack = self.byte(p.seq as i64);
            if p.flags & ECE != 0 {
                s.flags |= TCP_ECE;
            }
            s.ts = self
                .timestamps
                .then(|| (ts_clock(p.ack_sent), ts_clock(p.ts)));
            s.nsack = p.nsack as usize;
            for (k, &(a, b)) in p.sack[..s.nsack].iter().enumerate() {
                // A D-SACK block's offsets are signed: it may lie below the ACK.
                let (a, b) = if k == 0 && p.flags & DSACK != 0 {
                    (a as i32 as i64, b as i32 as i64)
                } else {
                    (a as i64, b as i64)
                };
                let base = p.seq as i64;
                s.sack[k] = (self.byte(base + a), self.byte(base + b));
            }
        }
        s
    }

    /// Header bytes and total length of `p` (see [`Conn::segment`]).
    pub fn frame(&self, p: &Packet, echo: u32) -> ([u8; MAX_HEADER], usize, u32) {
        if self.udp {
            return udp(self, p.size.max(UDP_HEADER_BYTES));
        }
        let s = self.segment(p, echo);
        let (src, dst, sport, dport) = if p.kind == Kind::Data {
            (self.src, self.dst, self.sport, self.dport)
        } else {
            (self.dst, self.src, self.dport, self.sport)
        };
        tcp(src, dst, sport, dport, &s)
    }

    /// Header bytes of the SYN or SYN-ACK at `t`.
    pub fn handshake_frame(&self, reply: bool, t: Time) -> ([u8; MAX_HEADER], usize, u32) {
        let s = self.handshake(reply, t);
        if reply {
            tcp(self.dst, self.src, self.dport, self.sport, &s)
        } else {
            tcp(self.src, self.dst, self.sport, self.dport, &s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::MAX_WINDOW_BYTES;
    use crate::packet::Packet;

    fn conn() -> Conn {
        let (window, wscale) = scaled_window(1 << 20);
        Conn {
            src: node_address(0),
            dst: node_address(1),
            sport: 32768,
            dport: 5001,
            isn: 1000,
            isn_rx: 5000,
            mss: 1448,
            size: 10_000,
            window,
            wscale,
            sack: true,
            timestamps: true,
            ecn: true,
            udp: false,
        }
    }

    /// Whether the one's-complement sum over `bytes` (plus `acc`) checks out.
    fn checks(bytes: &[u8], acc: u32) -> bool {
        fold(sum16(bytes, acc)) == 0
    }

    #[test]
    fn window_scale_is_the_smallest_that_fits() {
        assert_eq!(scaled_window(65_535), (65_535, 0));
        assert_eq!(scaled_window(65_536), (32_768, 1));
        assert_eq!(
            scaled_window(1 << 20),
            (32_768, 5),
            "2^20 >> 4 is one too many"
        );
        assert_eq!(scaled_window(MAX_WINDOW_BYTES), (65_535, 14));
    }

    #[test]
    fn data_segment_bytes_by_hand() {
        let c = conn();
        let p = Packet::data(0, 2, 1448 + HEADER_BYTES, 3 * US, ECT | CWR);
        let (b, n, total) = c.frame(&p, 77);
        assert_eq!((n, total), (52, 1500));
        assert_eq!(&b[..2], &[0x45, 2]); // ECT(0)
        assert_eq!(u16::from_be_bytes([b[2], b[3]]), 1500);
        assert!(checks(&b[..20], 0), "IPv4 header checksum");
        assert_eq!(&b[12..20], &[10, 0, 0, 1, 10, 0, 0, 2]);
        assert_eq!(
            u32::from_be_bytes(b[24..28].try_into().unwrap()),
            1000 + 1 + 2 * 1448
        );
        assert_eq!(u32::from_be_bytes(b[28..32].try_into().unwrap()), 5001);
        assert_eq!(b[32] >> 4, 8, "32-byte TCP header");
        assert_eq!(b[33], 0x10 | 0x80, "ACK | CWR");
        assert_eq!(&b[40..44], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes(b[44..48].try_into().unwrap()), 3);
        assert_eq!(u32::from_be_bytes(b[48..52].try_into().unwrap()), 77);
        assert!(
            checks(&b[20..52], sum16(&b[12..20], 6 + 1480)),
            "TCP checksum with a zero payload"
        );
    }

    #[test]
    fn ack_with_sack_and_dsack_blocks() {
        let c = conn();
        let mut p = Packet::ack(0, 3, HEADER_BYTES, 9 * US, 10 * US);
        p.sack = [((-2i32) as u32, (-1i32) as u32), (2, 4), (0, 0)];
        p.nsack = 2;
        p.flags = DSACK | ECE;
        let s = c.segment(&p, 0);
        assert_eq!(s.ack, 1001 + 3 * 1448);
        assert_eq!(
            s.sack[0],
            (1001 + 1448, 1001 + 2 * 1448),
            "a D-SACK below the ACK"
        );
        // Segment 6 ends past the 10 000-byte flow: the edge is its last byte.
        assert_eq!(s.sack[1], (1001 + 5 * 1448, 1001 + 10_000));
        assert_eq!(s.flags, 0x10 | 0x40);
        let (b, n, total) = c.frame(&p, 0);
        assert_eq!((n, total), (20 + 20 + 12 + 4 + 16, 72));
        assert_eq!(
            (b[12], b[13], b[14], b[15]),
            (10, 0, 0, 2),
            "from the receiver"
        );
        assert_eq!(&b[52..56], &[1, 1, 5, 18]);
        assert!(checks(&b[20..n], sum16(&b[12..20], 6 + (n as u32 - 20))));
    }

    #[test]
    fn handshake_negotiates_options() {
        let c = conn();
        let (b, n, _) = c.handshake_frame(false, 0);
        assert_eq!(n, 20 + 20 + 20);
        assert_eq!(b[33], 0x02 | 0x40 | 0x80, "ECN-setup SYN");
        assert_eq!(
            &b[40..46],
            &[2, 4, 0x05, 0xA8, 4, 2],
            "MSS 1448, SACK permitted"
        );
        assert_eq!(&b[56..60], &[1, 3, 3, 14]);
        let (b, _, _) = c.handshake_frame(true, 0);
        assert_eq!(b[33], 0x12 | 0x40);
        assert_eq!(u32::from_be_bytes(b[28..32].try_into().unwrap()), 1001);
        assert_eq!(&b[56..60], &[1, 3, 3, 5], "the receiver's shift");
    }

    #[test]
    fn udp_datagram() {
        let c = Conn {
            udp: true,
            sport: 20000,
            dport: 5004,
            ..conn()
        };
        let (b, n, total) = c.frame(&Packet::udp(0, 0, 200, 0), 0);
        assert_eq!((n, total), (28, 200));
        assert_eq!(b[9], 17);
        assert_eq!(u16::from_be_bytes([b[24], b[25]]), 180);
        assert!(checks(&b[20..28], sum16(&b[12..20], 17 + 180)));
    }
}
