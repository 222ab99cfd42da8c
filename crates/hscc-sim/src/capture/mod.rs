//! Packet captures (pcap) of chosen flows and links, and the drop logs of the
//! captured links: what a transport engineer opens in Wireshark (docs/traces.md).
//!
//! - A **flow capture** is taken at the sender's host: its data segments as
//!   they leave the host (after host jitter, before any access delay) and its
//!   ACKs as the sender processes them — what tcpdump on the sender would see.
//! - A **link capture** is taken at the link's input: every packet offered to
//!   it, dropped or not, at the moment it is offered. A drop shows there and
//!   never further on; the link's drop log says which packets, when and why.
//!
//! While the run goes, a capture keeps the packets it saw (a 72-byte copy
//! each with its time, no other work) in a [`Tap`]; the files are written at
//! the end, sorted by time, with IPv4/TCP headers built by [`wire`]. Off (the
//! default) the engine only tests `Net::capture` for `None` where a sender
//! sends or takes an ACK; a captured link takes the out-of-line path of links
//! with options (`Link::offer_with_options`), so the others pay nothing.

pub mod wire;

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use rand::Rng as _;
use serde::Serialize;

use crate::config::{FlowConfig, SimConfig};
use crate::limits::MAX_CAPTURE_BYTES;
use crate::packet::{Kind, Packet};
use crate::rng::{component_rng, Component};
use crate::time::{secs, Time};
pub use hscc_model::capture::{
    CaptureConfig, CaptureFile, CapturePoint, MAX_SNAPLEN, MIN_SNAPLEN, RECORD_HEADER,
};
use wire::{node_address, scaled_window, Conn, MAX_HEADER};

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCause {
    /// The buffer was full (or FQ-CoDel's fattest flow paid for an arrival).
    Queue,
    /// The queue discipline's congestion signal (RED, CoDel, PIE).
    Aqm,
    /// Random loss before the queue.
    Random,
    /// Random loss at the far end, after the queue and the transmitter.
    RandomAfterQueue,
}

/// A packet dropped by a captured link, at `t`.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    pub t: Time,
    pub p: Packet,
    pub cause: DropCause,
}

/// A link's drop log: kept only for captured links.
pub type DropLog = Vec<Dropped>;

/// Record to log `p`, dropped at `t` for `cause`, if the link keeps a log.
#[inline]
pub fn log_drop(log: &mut Option<Box<DropLog>>, t: Time, p: &Packet, cause: DropCause) {
    if let Some(l) = log {
        l.push(Dropped { t, p: *p, cause });
    }
}

/// A packet seen by a capture, and when.
#[derive(Clone, Copy, Debug)]
struct Seen {
    t: Time,
    p: Packet,
}

/// The packets one capture has seen, up to its share of [`MAX_CAPTURE_BYTES`].
#[derive(Debug, Default)]
pub struct Tap {
    seen: Vec<Seen>,
    /// Packets it may still keep.
    room: u64,
    /// Packets seen but not kept: the capture reached its size cap.
    pub missed: u64,
}

impl Tap {
    /// A tap for one of `files` captures with snap length `snaplen`.
    pub fn new(files: usize, snaplen: u32) -> Tap {
        Tap {
            seen: Vec::new(),
            room: MAX_CAPTURE_BYTES / files.max(1) as u64 / (RECORD_HEADER + snaplen as u64),
            missed: 0,
        }
    }

    /// Keep `p`, seen at `t`.
    #[inline]
    pub fn keep(&mut self, t: Time, p: &Packet) {
        if self.room == 0 {
            self.missed += 1;
            return;
        }
        self.room -= 1;
        self.seen.push(Seen { t, p: *p });
    }
}

const NONE: u32 = u32::MAX;

/// The captures of a running simulation.
#[derive(Debug)]
pub struct Capture {
    /// Tap of each configured flow ([`NONE`]: not captured); links have their own.
    by_flow: Vec<u32>,
    flows: Vec<Tap>,
    /// Whether any link is captured.
    links: bool,
    /// Connections of web transfers by (slot, generation), noted when they open
    /// (their slots are reused): only with link captures.
    web: HashMap<(u32, u32), Conn>,
    snaplen: u32,
}

impl Capture {
    /// The captures `cfg` asks for, or None.
    pub fn new(cfg: &SimConfig) -> Option<Box<Capture>> {
        let c = &cfg.capture;
        if c.is_empty() {
            return None;
        }
        let mut by_flow = vec![NONE; cfg.flows.len()];
        let mut flows = Vec::new();
        for f in &c.files {
            if let CapturePoint::Flow(k) = f.at {
                by_flow[k as usize] = flows.len() as u32;
                flows.push(Tap::new(c.files.len(), c.snaplen));
            }
        }
        let links = c
            .files
            .iter()
            .any(|f| matches!(f.at, CapturePoint::Link(_)));
        Some(Box::new(Capture {
            by_flow,
            flows,
            links,
            web: HashMap::new(),
            snaplen: c.snaplen,
        }))
    }

    /// Whether any link is captured (web transfers must then be noted).
    pub fn links(&self) -> bool {
        self.links
    }

    /// A data segment of flow slot `p.flow` leaves its sender for the network at `at`.
    #[inline(never)]
    pub fn sent(&mut self, p: &Packet, at: Time) {
        if let Some(&f) = self.by_flow.get(p.flow as usize) {
            if f != NONE {
                self.flows[f as usize].keep(at, p);
            }
        }
    }

    /// The sender of flow slot `p.flow` processes ACK `p` at `now`.
    #[inline(never)]
    pub fn acked(&mut self, p: &Packet, now: Time) {
        self.sent(p, now);
    }

    /// Web transfer (`slot`, `gen`) opens with configuration `fc` (addresses from its hosts).
    pub fn web_opened(&mut self, seed: u64, slot: u32, gen: u32, fc: &FlowConfig) {
        let conn = tcp_conn(
            seed,
            fc,
            (1u64 << 40) | (slot as u64) << 8 | (gen as u64 & 0xFF),
            (1024 + slot % 31_744) as u16,
            80,
        );
        self.web.insert((slot, gen), conn);
    }

    /// The connection `p` belongs to (None: a web transfer not noted).
    fn conn(&self, cfg: &SimConfig, p: &Packet) -> Option<Conn> {
        match p.kind {
            Kind::Udp => {
                let u = &cfg.udp[p.flow as usize];
                Some(Conn::udp(
                    node_address(u.src),
                    node_address(u.dst),
                    (20_000 + p.flow % 10_000) as u16,
                    5004,
                ))
            }
            _ if (p.flow as usize) < cfg.flows.len() => Some(flow_conn(cfg, p.flow)),
            _ => self.web.get(&(p.flow, p.gen)).copied(),
        }
    }

    /// The capture files (name, bytes) and the drop rows of the captured links,
    /// given the links' taps and drop logs. `access` is each configured flow's
    /// access delay (a flow capture shows data leaving the host, before it).
    pub fn finish(
        mut self,
        cfg: &SimConfig,
        access: &[Time],
        mut links: HashMap<u32, (Tap, DropLog)>,
    ) -> Captures {
        let mut files = Vec::with_capacity(cfg.capture.files.len());
        let mut missed = 0;
        let mut logs = Vec::new();
        for spec in &cfg.capture.files {
            let mut seen = match spec.at {
                CapturePoint::Flow(k) => {
                    let tap = std::mem::take(&mut self.flows[self.by_flow[k as usize] as usize]);
                    let mut seen = tap.seen;
                    for s in seen.iter_mut().filter(|s| s.p.kind == Kind::Data) {
                        s.t = s.t.saturating_sub(access[k as usize]);
                    }
                    missed += tap.missed;
                    seen
                }
                CapturePoint::Link(l) => {
                    let (tap, log) = links.remove(&l).unwrap_or_default();
                    logs.push((l, log));
                    missed += tap.missed;
                    tap.seen
                }
            };
            seen.sort_by_key(|s| s.t); // stable: equal times keep the order seen
            files.push((spec.file.clone(), self.write(cfg, &seen)));
            drop(seen); // before the next file is written: peak memory is one file's packets
        }
        let mut drops = Vec::new();
        for (link, log) in logs {
            let name = &cfg.topology.links[link as usize].name;
            for d in log {
                let conn = self.conn(cfg, &d.p);
                let tcp_seq = conn.filter(|c| !c.udp).map(|c| {
                    let s = c.segment(&d.p, 0);
                    if d.p.kind == Kind::Data {
                        s.seq
                    } else {
                        s.ack
                    }
                });
                let flow = (d.p.kind != Kind::Udp && (d.p.flow as usize) < cfg.flows.len())
                    .then_some(d.p.flow);
                drops.push(DropRow {
                    link: name.clone(),
                    time_s: secs(d.t),
                    cause: d.cause,
                    kind: match d.p.kind {
                        Kind::Data => "data",
                        Kind::Ack => "ack",
                        Kind::Udp => "udp",
                    },
                    flow,
                    udp: (d.p.kind == Kind::Udp).then_some(d.p.flow),
                    seq: d.p.seq,
                    tcp_seq,
                    retrans: d.p.is_retrans(),
                    size: d.p.size,
                });
            }
        }
        Captures {
            files,
            drops,
            missed,
        }
    }

    /// One pcap file of `seen` (in time order).
    fn write(&self, cfg: &SimConfig, seen: &[Seen]) -> Vec<u8> {
        let header = PcapHeader {
            snaplen: self.snaplen,
            datalink: DataLink::RAW,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        // Sized once: at most a record header and the snap length a packet (ACKs take less).
        let room = 24 + seen.len() * (RECORD_HEADER as usize + self.snaplen as usize);
        let mut w =
            PcapWriter::with_header(Vec::with_capacity(room), header).expect("writing to memory");
        let mut out = vec![0u8; self.snaplen as usize];
        let mut record = |w: &mut PcapWriter<Vec<u8>>,
                          t: Time,
                          (b, n, total): ([u8; MAX_HEADER], usize, u32)| {
            let caplen = (total as usize).min(out.len());
            out[..caplen].fill(0);
            out[..n.min(caplen)].copy_from_slice(&b[..n.min(caplen)]);
            let ts = Duration::from_nanos(t / crate::time::NS);
            w.write_packet(&PcapPacket::new(ts, total, &out[..caplen]))
                .expect("writing to memory");
        };
        // Per connection: how its packets are written, and the data sender's
        // TSecr (the last TSval it saw from the receiver).
        let mut conns: HashMap<(bool, u32, u32), (Conn, u32)> = HashMap::new();
        for s in seen {
            let (conn, echo) = match conns.entry((s.p.kind == Kind::Udp, s.p.flow, s.p.gen)) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(v) => {
                    let Some(conn) = self.conn(cfg, &s.p) else {
                        continue;
                    };
                    // The engine's connections are open from the start: a handshake
                    // is written where each first appears, for its options, its
                    // clock no later than the first segment's TSval.
                    let clock = if s.p.kind == Kind::Data {
                        s.p.ts.min(s.t)
                    } else {
                        s.t
                    };
                    if !conn.udp {
                        record(&mut w, s.t, conn.handshake_frame(false, clock));
                        record(&mut w, s.t, conn.handshake_frame(true, clock));
                    }
                    v.insert((conn, (clock / crate::time::US) as u32))
                }
            };
            record(&mut w, s.t, conn.frame(&s.p, *echo));
            if s.p.kind == Kind::Ack {
                *echo = (s.p.ack_sent / crate::time::US) as u32;
            }
        }
        w.into_writer()
    }
}

/// The connection of configured flow `i`.
pub fn flow_conn(cfg: &SimConfig, i: u32) -> Conn {
    tcp_conn(
        cfg.seed,
        &cfg.flows[i as usize],
        i as u64,
        (32_768 + i % 28_232) as u16,
        5001,
    )
}

/// A TCP connection for flow configuration `fc` with ports `sport`, `dport`;
/// its initial sequence numbers drawn from the run seed and `id`.
fn tcp_conn(seed: u64, fc: &FlowConfig, id: u64, sport: u16, dport: u16) -> Conn {
    let mut rng = component_rng(seed, Component::Capture, id);
    let (window, wscale) = scaled_window(fc.window_bytes());
    Conn {
        src: node_address(fc.src),
        dst: node_address(fc.dst),
        sport,
        dport,
        isn: rng.random(),
        isn_rx: rng.random(),
        mss: fc.mss,
        size: fc.size.unwrap_or(u64::MAX),
        window,
        wscale,
        sack: fc.sack,
        timestamps: fc.timestamps,
        ecn: fc.ecn,
        udp: false,
    }
}

/// One row of a captured link's drop log.
#[derive(Clone, Debug, Serialize)]
pub struct DropRow {
    /// Link name.
    pub link: String,
    /// When, s.
    pub time_s: f64,
    /// Why.
    pub cause: DropCause,
    /// "data", "ack" or "udp".
    pub kind: &'static str,
    /// Engine index of its TCP flow (None: UDP or a web transfer).
    pub flow: Option<u32>,
    /// Engine index of its UDP flow.
    pub udp: Option<u32>,
    /// Engine number: data segment, cumulative ACK (segments) or datagram.
    pub seq: u64,
    /// TCP sequence number (data) or acknowledgement number (ACK) as in the capture.
    pub tcp_seq: Option<u32>,
    /// A retransmitted segment.
    pub retrans: bool,
    /// Bytes on the wire.
    pub size: u32,
}

/// What captures produced: files and drop logs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Captures {
    /// (file name, pcap bytes); not in the JSON results.
    #[serde(skip)]
    pub files: Vec<(String, Vec<u8>)>,
    /// Drops at the captured links, in time order per link.
    pub drops: Vec<DropRow>,
    /// Packets not captured: the files reached the cap on their size.
    pub missed: u64,
}
