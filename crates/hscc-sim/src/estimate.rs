//! What a run will cost, computed from its configuration before anything big
//! is allocated: peak memory in bytes and the number of events.
//!
//! # The model
//! Traffic first. Every TCP flow gets the fair share of its tightest link,
//! min over its path of (rate − UDP and web load) / (TCP flows crossing it),
//! capped by its receiver window; that link is its bottleneck and, for a
//! loss-based sender, its queue fills. UDP sends at its rate up to the
//! slowest link of its path; a web source offers arrival rate × mean size. A
//! link carries the packets per second offered to it, at most its rate
//! (drops take the rest); TCP ACKs run back at the data rate over the
//! delayed-ACK factor.
//!
//! Memory, by structure (sizes are the real `size_of` where a type exists):
//! - **packets**: a link's FIFO never shrinks, so it costs its largest
//!   occupancy: packets per second × (delay + 3σ jitter + serialization),
//!   twice that for TCP data (slow start sends two segments per ACK), plus the
//!   whole buffer where the link is a bottleneck, plus the initial windows
//!   of the flows that start on it; 64 bytes a packet and 16 per queued one;
//! - **windows**: a sender's scoreboard holds its largest window, 16 bytes a
//!   segment: twice (path BDP + its share of the bottleneck queue), at least
//!   the initial window, at most the receiver window;
//! - **flows**, **udp**, **links**, **topology**: per-object state, the delay
//!   histograms of UDP sinks and monitored links (250 KB each), routes;
//! - **web**: transfers in progress by Little's law (arrival rate × time in
//!   the system: slow-start rounds + size / fair share); when the offered load
//!   exceeds the bottleneck the excess accumulates for the whole run; plus the
//!   response-time histograms of the size bins the distribution reaches;
//! - **traces**: samples × series, preallocated exactly;
//! - **queue**: event-queue entries (links, three timers a flow, sources);
//! - **results**: the summaries and their JSON (traces at ≈ 14 characters a value).
//! - **cc_log**: the per-ACK congestion-control log of the traced flows:
//!   [`CC_LOG_ROWS_PER_ACK`] rows per ACK (the ACKs of the flow's fair share),
//!   each a recorded call plus its table columns while the table is handed over.
//!
//! Growable buffers are counted at 1.5× their content (a `Vec` or `VecDeque`
//! doubles: on average it holds 1/ln 2 ≈ 1.44× what it needs).
//!
//! - **host lines**: a TCP flow's packets waiting at its host (host jitter,
//!   access delay): packets per second × that wait, twice for data, plus the
//!   initial windows of flows that start together (80 bytes a packet);
//!
//! Events: one per packet per hop carried, and one per packet that waits at
//! a host (host jitter, access delay) unless it is data offered at once to a
//! first link its flow has to itself; a timer event per flow per
//! minimum RTO; a pacing event per paced segment; every UDP datagram sent
//! (drops included: the source runs at its rate); web arrivals; samples.
//!
//! The estimate is checked against reality in `tests/estimate.rs`, which
//! measures peak heap use with a counting allocator.
//!
//! Each term is also charged to the scenario field that drives it, so that a
//! refusal can say what to lower (`web[0].rate`, `sample_interval`, …).

use std::collections::{BTreeMap, HashMap};
use std::mem::size_of;

use serde::Serialize;

use crate::capture::CapturePoint;
use crate::config::{Buffer, ConfigError, FlowConfig, LinkSpec, SimConfig};
use crate::limits::{
    BuildLimits, MAX_CAPTURE_BYTES, MAX_CC_LOG_BYTES, MAX_QUEUE_PACKETS, MAX_ROUTE_WORK,
    MAX_WEB_SLOTS,
};
use crate::link::Link;
use crate::packet::HEADER_BYTES;
use crate::results::{FlowResult, LinkResult};
use crate::sim::{Flow, Sim, UdpFlow};
use crate::tcp::cc_log::COLUMN_BYTES;
use crate::time::{secs, Time};
use crate::udp::{UdpConfig, UdpPattern};
use crate::web::{SizeDist, WebSource};
use hscc_cc::trace::HookCall;

/// The cost of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Peak memory, bytes.
    pub memory_bytes: u64,
    /// Events processed.
    pub events: u64,
    /// Memory by structure, bytes.
    pub memory: MemoryParts,
    /// Events by cause.
    pub events_by: EventParts,
    /// The scenario field whose terms need the most memory, and its value.
    pub memory_field: (String, String),
    /// The scenario field whose terms cause the most events, and its value.
    pub events_field: (String, String),
    /// Rows the per-ACK log of each traced flow is expected to hold (flow index, rows).
    pub cc_log_rows: Vec<(u32, u64)>,
    /// The field asking for the log, and its value.
    #[serde(skip)]
    pub cc_log_field: Field,
    /// Bytes of the packet captures' files.
    pub capture_bytes: u64,
    /// The capture field (flows or links) whose files are the larger, and its value.
    pub capture_field: (String, String),
}

/// Memory by structure, bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemoryParts {
    /// Nodes, link configurations and state, link histograms, routes.
    pub topology: u64,
    /// Packets in the links' FIFOs.
    pub packets: u64,
    /// Flow state and configuration.
    pub flows: u64,
    /// Senders' scoreboards.
    pub windows: u64,
    /// UDP flows and their sinks' histograms.
    pub udp: u64,
    /// Web transfers in progress and response-time histograms.
    pub web: u64,
    /// Sampled traces.
    pub traces: u64,
    /// The event queue.
    pub queue: u64,
    /// Run summaries and their JSON.
    pub results: u64,
    /// The per-ACK congestion-control log.
    pub cc_log: u64,
    /// Packet captures: packets seen, their files and the captured links' drop logs.
    pub captures: u64,
}

/// Events by cause.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EventParts {
    /// Packets crossing links (one event per packet per hop).
    pub packets: u64,
    /// Retransmission, delayed-ACK and pacing timers.
    pub timers: u64,
    /// UDP datagrams sent.
    pub udp: u64,
    /// Web arrivals.
    pub web: u64,
    /// Trace samples and scheduled changes.
    pub samples: u64,
}

/// A field and its value as the scenario wrote them.
pub(crate) type Field = (String, String);

/// Which scenario field each part of a configuration comes from. A
/// [`SimConfig`] names its own fields; [`crate::ScenarioSpec::build`] names
/// the scenario's (`flows[2].count` for every flow that entry expands to).
#[derive(Clone, Debug, Default)]
pub(crate) struct Origins {
    /// Per flow: the field counting flows like it, and its initial window.
    pub flow_count: Vec<Field>,
    pub flow_init_cwnd: Vec<Field>,
    /// Per UDP flow: the field setting its packet rate, and the list it belongs to.
    pub udp_rate: Vec<Field>,
    pub udp_group: Vec<Field>,
    /// Per link: its buffer and its rate.
    pub link_buffer: Vec<Field>,
    pub link_rate: Vec<Field>,
    /// The field sizing the topology.
    pub topology: Field,
    /// The field asking for the per-ACK log.
    pub cc_log: Field,
    /// The fields choosing captured flows and links.
    pub capture: CaptureOrigin,
}

/// The fields choosing captured flows and links, and their values.
#[derive(Clone, Debug, Default)]
pub(crate) struct CaptureOrigin {
    pub flows: Field,
    pub links: Field,
}

fn f(field: impl Into<String>, value: impl ToString) -> Field {
    (field.into(), value.to_string())
}

fn buffer_text(b: &Buffer) -> String {
    match b {
        Buffer::Packets(n) => format!("{n} packets"),
        Buffer::Bytes(n) => format!("{n} bytes"),
    }
}

impl Origins {
    /// A configuration's own field names.
    pub(crate) fn of(cfg: &SimConfig) -> Origins {
        let n = cfg.flows.len();
        Origins {
            flow_count: vec![f("flows", format!("{n} flows")); n],
            flow_init_cwnd: cfg
                .flows
                .iter()
                .enumerate()
                .map(|(i, fc)| f(format!("flows[{i}].init_cwnd"), fc.init_cwnd))
                .collect(),
            udp_rate: cfg
                .udp
                .iter()
                .enumerate()
                .map(|(i, u)| f(format!("udp[{i}].rate"), u.rate_bps()))
                .collect(),
            udp_group: vec![f("udp", format!("{} flows", cfg.udp.len())); cfg.udp.len()],
            link_buffer: cfg
                .topology
                .links
                .iter()
                .enumerate()
                .map(|(i, l)| f(format!("links[{i}].buffer"), buffer_text(&l.cfg.buffer)))
                .collect(),
            link_rate: cfg
                .topology
                .links
                .iter()
                .enumerate()
                .map(|(i, l)| f(format!("links[{i}].rate"), l.cfg.rate_bps))
                .collect(),
            topology: f(
                "topology",
                format!(
                    "{} nodes, {} links",
                    cfg.topology.nodes.len(),
                    cfg.topology.links.len()
                ),
            ),
            cc_log: f(
                "flows[].cc_log",
                format!("{} flows", cfg.flows.iter().filter(|fc| fc.cc_log).count()),
            ),
            capture: CaptureOrigin {
                flows: f(
                    "capture.files",
                    format!("{} files", cfg.capture.files.len()),
                ),
                links: f(
                    "capture.files",
                    format!("{} files", cfg.capture.files.len()),
                ),
            },
        }
    }
}

/// Rows of the per-ACK log per ACK: in_ack_event, pkts_acked, cong_control,
/// cong_avoid, and the sender's own changes and state changes around losses
/// (measured: 3.7–3.8 with losses every few seconds, `tests/cc_log.rs`).
pub const CC_LOG_ROWS_PER_ACK: f64 = 5.0;
/// Rows of the per-ACK log besides the ACKs' (init, start, timeouts).
const CC_LOG_BASE_ROWS: f64 = 64.0;

/// Growable buffers hold about 1.5× their content.
const GROW: f64 = 1.5;
/// Bytes of a packet in a link FIFO, and of a queued packet's start-time entry.
const PACKET: f64 = size_of::<crate::packet::Packet>() as f64;
const QUEUED: f64 = 16.0;
/// Bytes of a scoreboard entry (send time and flags).
const SEGMENT: f64 = 16.0;
/// Bytes of a packet in a reordering link's heap (its key and the packet).
const PROPAGATING: f64 = 80.0;
/// Bytes of a session in progress and of its pending step.
const SESSION: f64 = 96.0;
/// A delay histogram, 1 ns to 1000 s at 3 significant digits: 31 × 1024 u64 counts.
const DELAY_HISTOGRAM: f64 = 31.0 * 1024.0 * 8.0;
/// A web response-time histogram, 1 ns to 10^4 s: 35 × 1024 u64 counts.
const WEB_HISTOGRAM: f64 = 35.0 * 1024.0 * 8.0;
/// An event-queue entry.
const QUEUE_ENTRY: f64 = 32.0;
/// JSON characters per trace value, and per flow and link summary.
const JSON_PER_VALUE: f64 = 14.0;
const JSON_PER_FLOW: f64 = 700.0;
const JSON_PER_LINK: f64 = 600.0;
/// JSON characters of a drop-log row.
const JSON_PER_DROP: f64 = 200.0;
/// Allocations every run makes whatever its size (names, small vectors).
const BASE: f64 = 64.0 * 1024.0;

/// Memory and events charged to fields; a `BTreeMap` keeps the report deterministic.
#[derive(Default)]
struct Blame {
    memory: BTreeMap<Field, f64>,
    events: BTreeMap<Field, f64>,
}

impl Blame {
    fn mem(&mut self, who: &Field, bytes: f64) {
        *self.memory.entry(who.clone()).or_default() += bytes;
    }
    fn ev(&mut self, who: &Field, n: f64) {
        *self.events.entry(who.clone()).or_default() += n;
    }
    fn top(m: &BTreeMap<Field, f64>) -> Field {
        m.iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, _)| k.clone())
            .unwrap_or_default()
    }
}

/// The cost of a configuration: `cfg.estimate()` with this trait in scope
/// (it is in the prelude). The configuration is plain data of `hscc-model`;
/// what it costs to run is the engine's knowledge, so it lives here.
pub trait Estimated {
    /// What this run will cost (see the module documentation).
    fn estimate(&self) -> Estimate;
}

impl Estimated for SimConfig {
    fn estimate(&self) -> Estimate {
        estimate(self, &Origins::of(self))
    }
}

impl Estimate {
    /// Refuse a run above `limits`, naming the field that drives the cost.
    pub fn check(&self, limits: &BuildLimits) -> Result<(), ConfigError> {
        let refuse = |(field, value): &Field, needs: String| ConfigError {
            field: field.clone(),
            value: value.clone(),
            allowed: needs,
        };
        if self.memory.cc_log > MAX_CC_LOG_BYTES {
            let rows: u64 = self.cc_log_rows.iter().map(|r| r.1).sum();
            let needs = format!(
                "the per-ACK log would hold about {:.1e} rows, {}, above the limit of {}; log fewer flows or a shorter run",
                rows as f64,
                bytes(self.memory.cc_log),
                bytes(MAX_CC_LOG_BYTES)
            );
            return Err(refuse(&self.cc_log_field, needs));
        }
        if self.capture_bytes > MAX_CAPTURE_BYTES {
            let needs = format!("the packet captures would take about {}, above the limit of {}; capture fewer flows or links, a shorter run or a smaller snaplen", bytes(self.capture_bytes), bytes(MAX_CAPTURE_BYTES));
            return Err(refuse(&self.capture_field, needs));
        }
        if self.memory_bytes > limits.max_memory_bytes {
            let needs = format!(
                "this run needs about {} of memory, above the limit of {}; lower it or raise --max-memory",
                bytes(self.memory_bytes),
                bytes(limits.max_memory_bytes)
            );
            return Err(refuse(&self.memory_field, needs));
        }
        if self.events > limits.max_events {
            let needs = format!("this run needs about {:.1e} events, above the limit of {:.1e}; lower it or raise --max-events", self.events as f64, limits.max_events as f64);
            return Err(refuse(&self.events_field, needs));
        }
        Ok(())
    }
}

/// 3.7 GB, 512 MB, 64 kB.
fn bytes(b: u64) -> String {
    let b = b as f64;
    match b {
        _ if b >= 1e9 => format!("{:.1} GB", b / 1e9),
        _ if b >= 1e6 => format!("{:.0} MB", b / 1e6),
        _ => format!("{:.0} kB", b / 1e3),
    }
}

/// One source's traffic as the model sees it.
struct Source {
    /// Links of its data, and of its ACKs (TCP).
    data: Vec<u32>,
    acks: Vec<u32>,
    /// Data packets per second offered, and their wire size.
    pps: f64,
    size: f64,
    /// ACKs per data packet (TCP).
    ack_ratio: f64,
    /// Seconds it sends.
    active: f64,
    /// TCP data (twice the occupancy in slow start).
    tcp: bool,
    /// TCP: seconds its data waits at the sending host (largest access delay
    /// plus host jitter) and its ACKs wait for the sender (access delay); an
    /// event per packet when positive, except for data offered directly to a
    /// first link it has to itself (`Flow::direct`).
    host: (f64, f64),
    direct: bool,
    /// Who its events are charged to.
    blame: Field,
}

/// Host-line delays of a TCP flow: (data, ACKs), s.
fn host_delays(fc: &FlowConfig) -> (f64, f64) {
    let access = secs(fc.access_delay.max());
    (access + secs(fc.host_jitter), access)
}

pub(crate) fn estimate(cfg: &SimConfig, o: &Origins) -> Estimate {
    crate::scenario::count_estimate();
    let t = &cfg.topology;
    let dur = secs(cfg.duration);
    let nl = t.links.len();
    let mut blame = Blame::default();
    let mut mem = MemoryParts::default();
    let mut evs = EventParts::default();
    let run = f("duration", format!("{dur} s"));
    let web_rate: Vec<Field> = cfg
        .web
        .iter()
        .enumerate()
        .map(|(i, w)| f(format!("web[{i}].rate"), crate::config::num(w.rate)))
        .collect();

    if crate::config::route_work(cfg) > MAX_ROUTE_WORK {
        // Validation refuses it; the model does not route what it cannot afford.
        return Estimate {
            memory_bytes: u64::MAX,
            events: u64::MAX,
            memory: mem,
            events_by: evs,
            memory_field: o.topology.clone(),
            events_field: o.topology.clone(),
            cc_log_rows: Vec::new(),
            cc_log_field: o.cc_log.clone(),
            capture_bytes: 0,
            capture_field: Field::default(),
        };
    }
    let mut routes: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
    let mut route = |s: u32, d: u32| -> Vec<u32> {
        routes
            .entry((s, d))
            .or_insert_with(|| t.route(s, d).unwrap_or_default())
            .clone()
    };
    let link = |l: u32| -> &LinkSpec { &t.links[l as usize] };
    let rate = |l: u32| link(l).cfg.rate_bps as f64;
    let delay = |l: u32| secs(link(l).cfg.delay);
    let path_min_rate = |p: &[u32]| p.iter().map(|&l| rate(l)).fold(f64::INFINITY, f64::min);

    // Inelastic load (UDP, web) and TCP flow counts per link.
    let mut fixed_bps = vec![0.0; nl];
    let mut tcp_n = vec![0.0f64; nl];
    let mut sources: Vec<Source> = Vec::new();
    for (i, u) in cfg.udp.iter().enumerate() {
        let data = route(u.src, u.dst);
        let bps = (u.rate_bps() as f64).min(path_min_rate(&data));
        let on_share = match u.pattern {
            UdpPattern::OnOff { on, off, .. } => on as f64 / (on as f64 + off as f64),
            _ => 1.0,
        };
        for &l in &data {
            fixed_bps[l as usize] += bps * on_share;
        }
        let active = active_s(u.start, u.stop, cfg.duration) * on_share;
        let size = u.packet_size as f64;
        // The source sends at its full rate whatever the links take.
        let sent = u.rate_bps() as f64 / (8.0 * size) * active;
        evs.udp += sent as u64;
        blame.ev(&o.udp_rate[i], sent);
        blame.mem(
            &o.udp_group[i],
            (size_of::<UdpFlow>() + size_of::<UdpConfig>()) as f64 + DELAY_HISTOGRAM + 300.0,
        );
        mem.udp +=
            (size_of::<UdpFlow>() + size_of::<UdpConfig>()) as u64 + DELAY_HISTOGRAM as u64 + 300;
        sources.push(Source {
            data,
            acks: Vec::new(),
            pps: bps / (8.0 * size),
            size,
            ack_ratio: 0.0,
            active,
            tcp: false,
            host: (0.0, 0.0),
            direct: false,
            blame: o.udp_rate[i].clone(),
        });
    }
    let mut web_paths = Vec::new();
    for (i, w) in cfg.web.iter().enumerate() {
        let who = &web_rate[i];
        let active = active_s(w.start, w.stop, cfg.duration);
        let pairs = (w.servers.len() * w.clients.len()) as f64;
        let wire = w.tcp.wire_size() as f64;
        let shape = WebShape::of(w);
        let mut paths = Vec::new();
        for &s in &w.servers {
            for &c in &w.clients {
                let (data, acks) = (route(s, c), route(c, s));
                // Responses server → client; requests (sessions) client → server.
                paths.push(data.clone());
                for (data, acks, bytes) in [
                    (data.clone(), acks.clone(), shape.response_bytes),
                    (acks, data, shape.request_bytes),
                ] {
                    if bytes == 0.0 {
                        continue;
                    }
                    let bps = (w.rate * bytes * 8.0 / pairs).min(path_min_rate(&data));
                    for &l in &data {
                        fixed_bps[l as usize] += bps;
                    }
                    sources.push(Source {
                        data,
                        acks,
                        pps: bps / (8.0 * wire),
                        size: wire,
                        ack_ratio: ack_ratio(&w.tcp),
                        active,
                        tcp: true,
                        host: host_delays(&w.tcp),
                        direct: false,
                        blame: who.clone(),
                    });
                }
            }
        }
        web_paths.push(paths);
        // Arrivals and, for sessions, a step per request and per response.
        let arrivals = w.rate * active * shape.events_per_arrival;
        evs.web += (2.0 * arrivals) as u64;
        blame.ev(who, 2.0 * arrivals);
    }
    let mut flow_paths = Vec::with_capacity(cfg.flows.len());
    for fc in &cfg.flows {
        let (data, acks) = (route(fc.src, fc.dst), route(fc.dst, fc.src));
        for &l in &data {
            tcp_n[l as usize] += 1.0;
        }
        flow_paths.push((data, acks));
    }

    // Fair shares, bottlenecks and what each TCP flow sends.
    let mut saturated = vec![false; nl];
    for l in 0..nl {
        saturated[l] = fixed_bps[l] >= rate(l as u32);
    }
    let mut shares = Vec::with_capacity(cfg.flows.len());
    for (fc, (data, acks)) in cfg.flows.iter().zip(&flow_paths) {
        let access = 2.0 * secs(fc.access_delay.mean());
        let rtt: f64 = (data.iter().chain(acks).map(|&l| delay(l)).sum::<f64>() + access).max(1e-6);
        let (mut share, mut bottleneck) = (f64::INFINITY, None);
        for &l in data {
            let free = (rate(l) - fixed_bps[l as usize]).max(0.01 * rate(l));
            let s = free / tcp_n[l as usize].max(1.0);
            if s < share {
                (share, bottleneck) = (s, Some(l));
            }
        }
        if !share.is_finite() {
            share = 0.0;
        }
        if let Some(w) = fc.rwnd {
            let limit = w as f64 * 8.0 / rtt;
            if limit < share {
                (share, bottleneck) = (limit, None);
            }
        }
        if let Some(b) = bottleneck {
            saturated[b as usize] = true;
        }
        shares.push((share, rtt, bottleneck));
    }
    // Links used by one flow's data alone, as `Sim` finds them (web counts twice).
    let mut users = vec![0u32; nl];
    for s in &sources {
        for &l in s.data.iter().chain(&s.acks) {
            users[l as usize] += if s.tcp { 2 } else { 1 };
        }
    }
    for (data, acks) in &flow_paths {
        for &l in data.iter().chain(acks) {
            users[l as usize] += 1;
        }
    }
    for c in &cfg.changes {
        users[c.link as usize] += 2;
    }
    for (k, (fc, (data, acks))) in cfg.flows.iter().zip(&flow_paths).enumerate() {
        let wire = fc.wire_size() as f64;
        let active = active_s(fc.start, fc.stop, cfg.duration);
        let direct = data.first().is_some_and(|&l| users[l as usize] == 1);
        sources.push(Source {
            data: data.clone(),
            acks: acks.clone(),
            pps: shares[k].0 / (8.0 * wire),
            size: wire,
            ack_ratio: ack_ratio(fc),
            active,
            tcp: true,
            host: host_delays(fc),
            direct,
            blame: run.clone(),
        });
    }

    // Links: offered load, what they carry, how many packets they hold.
    let mut offered_bps = vec![0.0; nl];
    let mut offered_pps = vec![0.0; nl];
    // Link framing adds to every packet on the wire.
    let framing = |l: u32| link(l).cfg.framing as f64;
    for s in &sources {
        for &l in &s.data {
            offered_pps[l as usize] += s.pps;
            offered_bps[l as usize] += s.pps * (s.size + framing(l)) * 8.0;
        }
        for &l in &s.acks {
            offered_pps[l as usize] += s.pps * s.ack_ratio;
            offered_bps[l as usize] +=
                s.pps * s.ack_ratio * (HEADER_BYTES as f64 + framing(l)) * 8.0;
        }
    }
    let carried = |l: usize| {
        if offered_bps[l] > 0.0 {
            (rate(l as u32) / offered_bps[l]).min(1.0)
        } else {
            1.0
        }
    };
    let mut occupancy = vec![1.0; nl];
    // Events per packet and hop: a reordering link may wake once more per packet.
    let hop_events = |l: u32| if reorders(link(l)) { 2.0 } else { 1.0 };
    for s in &sources {
        let mut hop = |l: u32, pps: f64, size: f64, burst: f64| {
            let c = &t.links[l as usize].cfg;
            // A tick-served link holds a packet up to one tick longer.
            let time = delay(l)
                + 3.0 * secs(c.jitter)
                + secs(c.tick)
                + (size + framing(l)) * 8.0 / rate(l);
            let l = l as usize;
            occupancy[l] += pps * carried(l) * time * burst;
            pps * carried(l) * s.active * hop_events(l as u32)
        };
        let mut n = 0.0;
        for &l in &s.data {
            n += hop(l, s.pps, s.size, if s.tcp { 2.0 } else { 1.0 });
        }
        for &l in &s.acks {
            n += hop(l, s.pps * s.ack_ratio, HEADER_BYTES as f64, 1.0);
        }
        // Host lines: an event per packet that waits there, and the packets they hold.
        let carried_pps = s.data.first().map_or(0.0, |&l| s.pps * carried(l as usize));
        for (wait, pps, event) in [
            (s.host.0, carried_pps, !s.direct),
            (s.host.1, carried_pps * s.ack_ratio, true),
        ] {
            if wait > 0.0 {
                n += if event { pps * s.active } else { 0.0 };
                // One heap for all hosts: a packet and its 16-byte key.
                mem.packets += (2.0 * pps * wait * (PACKET + 16.0) * GROW) as u64;
            }
        }
        evs.packets += n as u64;
        blame.ev(&s.blame, n);
    }
    let queue_pkts = |l: usize| -> f64 {
        let mean = if offered_pps[l] > 0.0 {
            offered_bps[l] / 8.0 / offered_pps[l]
        } else {
            1500.0
        };
        let q = match t.links[l].cfg.buffer {
            Buffer::Packets(n) => n as f64,
            Buffer::Bytes(b) => b as f64 / mean.max(1.0),
        };
        q.min(MAX_QUEUE_PACKETS as f64)
    };
    // Initial windows land on the first link at once, after waiting together
    // at their hosts when they pass through the host line.
    let flow_sources = &sources[sources.len() - cfg.flows.len()..];
    for ((fc, (data, _)), s) in cfg.flows.iter().zip(&flow_paths).zip(flow_sources) {
        if let Some(&l) = data.first() {
            let l = l as usize;
            let room = queue_pkts(l)
                + rate(l as u32) * delay(l as u32) / (8.0 * fc.wire_size() as f64)
                + 1.0;
            occupancy[l] += (fc.init_cwnd as f64).min(room);
        }
        if s.host.0 > 0.0 && !s.direct {
            mem.packets += (fc.init_cwnd as f64 * (PACKET + 16.0) * GROW) as u64;
        }
    }
    for l in 0..nl {
        let q = if saturated[l] { queue_pkts(l) } else { 0.0 };
        // A reordering link keeps its packets in a heap with their keys, and
        // its stale wake-ups in the event queue.
        let per_packet = if reorders(&t.links[l]) {
            PROPAGATING + QUEUE_ENTRY
        } else {
            PACKET
        };
        let bytes = (occupancy[l] + q) * per_packet * GROW + q * QUEUED * GROW;
        mem.packets += bytes as u64;
        let who = if q > occupancy[l] {
            &o.link_buffer[l]
        } else {
            &o.link_rate[l]
        };
        blame.mem(who, bytes);
    }

    // Per-flow state and scoreboards, and the per-ACK logs.
    let mut cc_log_rows = Vec::new();
    let per_flow =
        (size_of::<Flow>() + size_of::<FlowConfig>() + size_of::<FlowResult>()) as f64 + 64.0;
    for (k, fc) in cfg.flows.iter().enumerate() {
        let (share, rtt, bottleneck) = shares[k];
        let wire = fc.wire_size() as f64;
        let queue_share =
            bottleneck.map_or(0.0, |b| queue_pkts(b as usize) / tcp_n[b as usize].max(1.0));
        let mut w = 2.0 * (share * rtt / (8.0 * wire) + queue_share);
        let by_iw = fc.init_cwnd as f64 >= w;
        w = w.max(fc.init_cwnd as f64);
        if let Some(r) = fc.rwnd {
            w = w.min((r / fc.mss as u64).max(1) as f64);
        }
        let sb = w * SEGMENT * GROW;
        mem.windows += sb as u64;
        mem.flows += per_flow as u64;
        let who = match bottleneck {
            _ if by_iw => &o.flow_init_cwnd[k],
            Some(b) => &o.link_buffer[b as usize],
            None => &o.flow_count[k],
        };
        blame.mem(who, sb);
        blame.mem(&o.flow_count[k], per_flow);
        // RTO timer entries, about one per minimum RTO; a pacing event per segment.
        let active = active_s(fc.start, fc.stop, cfg.duration);
        let mut timers = active / secs(fc.min_rto).max(1e-3);
        if fc.pacing || fc.cc.name() == "sync" {
            timers += share / (8.0 * wire) * active;
        }
        evs.timers += timers as u64;
        blame.ev(&run, timers);
        if fc.cc_log {
            let rows = share / (8.0 * wire) * active * ack_ratio(fc) * CC_LOG_ROWS_PER_ACK
                + CC_LOG_BASE_ROWS;
            let bytes = rows * (size_of::<HookCall>() + COLUMN_BYTES) as f64;
            mem.cc_log = mem.cc_log.saturating_add(bytes as u64);
            blame.mem(&o.cc_log, bytes);
            cc_log_rows.push((k as u32, rows as u64));
        }
    }

    // Web transfers in progress (Little's law) and their histograms.
    let mut slots_total = 0.0;
    for (i, w) in cfg.web.iter().enumerate() {
        let who = &web_rate[i];
        let active = active_s(w.start, w.stop, cfg.duration);
        let mean = w.size.mean();
        let mss = w.tcp.mss as f64;
        let paths = &web_paths[i];
        let (mut rtt, mut capacity) = (0.0, f64::INFINITY);
        for p in paths {
            rtt += (2.0 * p.iter().map(|&l| delay(l)).sum::<f64>()
                + 2.0 * secs(w.tcp.access_delay.mean()))
                / paths.len() as f64;
            for &l in p {
                capacity = capacity.min(rate(l) / (tcp_n[l as usize] + 1.0));
            }
        }
        let shape = WebShape::of(w);
        let rounds = 2.0 + (1.0 + mean / (w.tcp.init_cwnd as f64 * mss)).log2();
        // Sessions: a request (about one round) and the server delay before each response.
        let sojourn = rtt * rounds + mean * 8.0 / capacity.max(1.0) + shape.per_object_extra_s(rtt);
        let objects = w.rate * shape.objects;
        let arrivals = objects * active;
        let served = capacity / (8.0 * mean);
        let backlog = (objects - served).max(0.0) * active;
        // Persistent sessions also hold their connection pair while they think.
        let held = 2.0 * w.rate * shape.connection_think_s;
        let slots = (objects * sojourn + backlog + held)
            .min(arrivals + held)
            .min(MAX_WEB_SLOTS as f64)
            .max(1.0);
        slots_total += slots;
        let window = (mean / mss).clamp(w.tcp.init_cwnd as f64, 1e6);
        let bins = size_bins(&w.size, arrivals);
        // Sessions waiting between objects (Little's law over their think times).
        let sessions = (w.rate * shape.session_s)
            .min(w.rate * active)
            .min(MAX_WEB_SLOTS as f64);
        let bytes = slots * (size_of::<Flow>() as f64 + window * SEGMENT * GROW) * GROW
            + bins * WEB_HISTOGRAM
            + size_of::<WebSource>() as f64
            + sessions * SESSION * GROW
            + if shape.request_bytes > 0.0 {
                WEB_HISTOGRAM
            } else {
                0.0
            };
        mem.web += bytes as u64;
        blame.mem(who, bytes);
    }

    // Topology, routes, monitored links.
    let monitored = t.links.iter().filter(|l| l.monitor).count() as f64;
    let route_bytes: f64 = routes.values().map(|r| 72.0 + 4.0 * r.len() as f64).sum();
    let topo = t.nodes.iter().map(|n| 24.0 + n.len() as f64).sum::<f64>()
        + t.links
            .iter()
            .map(|l| {
                (size_of::<LinkSpec>() + size_of::<Link>() + size_of::<LinkResult>()) as f64
                    + 2.0 * l.name.len() as f64
                    + JSON_PER_LINK
            })
            .sum::<f64>()
        + monitored * DELAY_HISTOGRAM
        + route_bytes * GROW;
    mem.topology = topo as u64;
    blame.mem(&o.topology, topo);

    // Traces (preallocated), samples, changes.
    if let Some(dt) = cfg.sample_interval {
        let samples = (cfg.duration / dt + 1) as f64;
        let series = 1.0 + 3.0 * cfg.flows.len() as f64 + 6.0 * monitored;
        let bytes = samples * (8.0 + 20.0 * cfg.flows.len() as f64 + 48.0 * monitored);
        let json = samples * series * JSON_PER_VALUE;
        mem.traces = bytes as u64;
        mem.results += json as u64;
        evs.samples += samples as u64;
        let who = f(
            "sample_interval",
            format!("{} s", crate::config::num(secs(dt))),
        );
        blame.mem(&who, bytes + json);
        blame.ev(&who, samples);
    }
    evs.samples += cfg.changes.len() as u64;
    mem.results += (cfg.flows.len() as f64 * JSON_PER_FLOW) as u64;
    if let Some(who) = o.flow_count.first() {
        blame.mem(who, cfg.flows.len() as f64 * JSON_PER_FLOW);
    }

    // The event queue: links, three timers a flow or transfer, sources.
    let entries = nl as f64
        + 3.0 * (cfg.flows.len() as f64 + slots_total)
        + (cfg.udp.len() + cfg.web.len() + cfg.changes.len() + 2) as f64;
    mem.queue = (entries * QUEUE_ENTRY * GROW) as u64;
    blame.mem(&o.topology, entries * QUEUE_ENTRY * GROW);

    // Packet captures: each captured flow's data and ACKs, every packet offered
    // to each captured link. While running, a 72-byte copy of each packet
    // (in growing vectors); at the end its file, built in memory and handed on
    // (a copy), and the drop log's rows.
    let mut capture_bytes = (0.0, 0.0);
    for c in &cfg.capture.files {
        let (pkts, size, drops, who, part) = match c.at {
            CapturePoint::Flow(k) => {
                let s = &flow_sources[k as usize];
                let sent = s.pps * s.data.first().map_or(1.0, |&l| carried(l as usize)) * s.active;
                let size = (sent * s.size + sent * s.ack_ratio * HEADER_BYTES as f64)
                    / (sent * (1.0 + s.ack_ratio)).max(1e-9);
                (
                    sent * (1.0 + s.ack_ratio),
                    size,
                    0.0,
                    &o.capture.flows,
                    &mut capture_bytes.0,
                )
            }
            CapturePoint::Link(l) => {
                let l = l as usize;
                let pkts = offered_pps[l] * dur;
                let size = if offered_pps[l] > 0.0 {
                    offered_bps[l] / 8.0 / offered_pps[l]
                } else {
                    0.0
                };
                (
                    pkts,
                    size,
                    pkts * (1.0 - carried(l)),
                    &o.capture.links,
                    &mut capture_bytes.1,
                )
            }
        };
        let file = pkts * cfg.capture.record_bytes(size as u64 + 28) as f64;
        *part += file;
        let bytes = pkts * 72.0 * GROW + 2.0 * file * GROW + drops * (JSON_PER_DROP + 88.0 * GROW);
        mem.captures += bytes as u64;
        blame.mem(who, bytes);
    }
    let capture_field = if capture_bytes.0 >= capture_bytes.1 {
        o.capture.flows.clone()
    } else {
        o.capture.links.clone()
    };

    let m = &mem;
    let memory_bytes = [
        m.topology, m.packets, m.flows, m.windows, m.udp, m.web, m.traces, m.queue, m.results,
        m.cc_log, m.captures,
    ]
    .iter()
    .fold(BASE as u64, |a, &b| a.saturating_add(b));
    let e = &evs;
    let events = [e.packets, e.timers, e.udp, e.web, e.samples]
        .iter()
        .fold(0u64, |a, &b| a.saturating_add(b));
    let capture_bytes = (capture_bytes.0 + capture_bytes.1) as u64;
    let cc_log_field = o.cc_log.clone();
    Estimate {
        memory_bytes,
        events,
        memory_field: Blame::top(&blame.memory),
        events_field: Blame::top(&blame.events),
        memory: mem,
        events_by: evs,
        cc_log_rows,
        cc_log_field,
        capture_bytes,
        capture_field,
    }
}

/// Whether a link's jitter may reorder its packets (then they live in a heap).
fn reorders(l: &LinkSpec) -> bool {
    l.cfg.jitter_reorders && l.cfg.jitter > 0
}

/// What one arrival of a web source brings, on average.
struct WebShape {
    /// Objects (responses) per arrival.
    objects: f64,
    /// Response and request bytes per arrival.
    response_bytes: f64,
    request_bytes: f64,
    /// Web-source events per arrival (arrival, request and response steps).
    events_per_arrival: f64,
    /// Mean server delay, s (sessions).
    server_delay_s: f64,
    /// Mean session duration spent in think times, s.
    session_s: f64,
    /// Of which with a persistent connection open (between its objects), s.
    connection_think_s: f64,
}

impl WebShape {
    fn of(w: &crate::web::WebConfig) -> WebShape {
        use crate::web::{packmime, WebModel};
        match &w.model {
            WebModel::Transfers => WebShape {
                objects: 1.0,
                response_bytes: w.size.mean(),
                request_bytes: 0.0,
                events_per_arrival: 1.0,
                server_delay_s: 0.0,
                session_s: 0.0,
                connection_think_s: 0.0,
            },
            WebModel::Sessions(m) => {
                let (objects_persistent, pages) = packmime::mean_objects_pages();
                let objects = 1.0 - m.persistent + m.persistent * objects_persistent;
                // Think times of a persistent session: between its pages, and between the objects of a page.
                let think = m.persistent
                    * ((pages - 1.0) * packmime::mean_gap(packmime::BETWEEN_PAGES)
                        + (objects_persistent - pages) * packmime::mean_gap(packmime::WITHIN_PAGE));
                let server_delay_s = if m.server_delay {
                    SERVER_DELAY_MEAN_S
                } else {
                    0.0
                };
                WebShape {
                    objects,
                    response_bytes: objects * w.size.mean(),
                    request_bytes: objects * m.request_size.mean(),
                    events_per_arrival: 1.0 + 2.0 * objects,
                    server_delay_s,
                    session_s: think + objects * server_delay_s,
                    connection_think_s: think + m.persistent * objects_persistent * server_delay_s,
                }
            }
        }
    }

    /// Time an object spends beyond its response's transfer: its request
    /// (about one round trip) and the server delay.
    fn per_object_extra_s(&self, rtt: f64) -> f64 {
        if self.request_bytes > 0.0 {
            rtt + self.server_delay_s
        } else {
            0.0
        }
    }
}

/// Mean of PackMime's server delay, E[1/max(W, 10)] with W ~ Weibull(0.63, 305),
/// s (numerical integration, checked in the tests).
const SERVER_DELAY_MEAN_S: f64 = 0.02195;

/// Seconds a source is active within the run.
fn active_s(start: Time, stop: Option<Time>, duration: Time) -> f64 {
    secs(stop.unwrap_or(duration).min(duration).saturating_sub(start))
}

/// ACKs per data segment.
fn ack_ratio(fc: &FlowConfig) -> f64 {
    if fc.delayed_ack {
        1.0 / fc.delack_segments as f64
    } else {
        1.0
    }
}

/// Size bins (powers of two) that `n` draws of `d` are expected to reach.
fn size_bins(d: &SizeDist, n: f64) -> f64 {
    let n = n.max(1.0);
    let (lo, hi) = match *d {
        SizeDist::Fixed(b) => (b as f64, b as f64),
        // Cache validations of 5 bytes up to the download tail (α ≈ 1.23 from 2^15.6 at p = 1 − 2^−5.5).
        SizeDist::PackmimeResponse => (4.0, 50_000.0 * n.powf(1.0 / 1.23)),
        SizeDist::PackmimeRequest => (50.0, 1_000.0 * n.powf(1.0 / 1.5)),
        SizeDist::Exponential { mean } => ((mean / n).max(1.0), mean * n.ln().max(1.0)),
        SizeDist::Pareto { shape, mean } => {
            let scale = mean * (shape - 1.0) / shape;
            (scale.max(1.0), scale * n.powf(1.0 / shape))
        }
    };
    (hi.max(1.0).log2().floor() - lo.max(1.0).log2().floor() + 1.0).clamp(1.0, 40.0)
}

/// The checked constructors: a simulation is built only once its
/// configuration is valid and its estimate fits the limits, so they sit here,
/// above the simulation loop, which knows nothing of estimates.
impl Sim {
    /// Build a simulation within the default [`BuildLimits`]; rejects invalid configurations.
    pub fn new(cfg: SimConfig) -> Result<Sim, ConfigError> {
        Sim::with_limits(cfg, &BuildLimits::default())
    }

    /// Build a simulation; rejects invalid configurations and, before
    /// allocating anything sized by the run, runs whose estimate passes `limits`.
    pub fn with_limits(cfg: SimConfig, limits: &BuildLimits) -> Result<Sim, ConfigError> {
        cfg.validate()?;
        let estimate = cfg.estimate();
        estimate.check(limits)?;
        Sim::assemble(cfg, &estimate.cc_log_rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_in_units() {
        assert_eq!(bytes(3_700_000_000), "3.7 GB");
        assert_eq!(bytes(512_000_000), "512 MB");
        assert_eq!(bytes(64_000), "64 kB");
    }

    #[test]
    fn the_server_delay_mean_is_that_of_packmimes_weibull() {
        // E[1/max(W, 10)] = ∫ min(1/w, 1/10) f(w) dw for W ~ Weibull(shape 0.63, scale 305).
        let (k, lambda) = (0.63f64, 305.0f64);
        let pdf = |w: f64| k / lambda * (w / lambda).powf(k - 1.0) * (-(w / lambda).powf(k)).exp();
        let below = 1.0 - (-(10.0 / lambda).powf(k)).exp();
        let (n, top) = (2_000_000, 100_000.0);
        let above: f64 = (0..n)
            .map(|i| 10.0 + (i as f64 + 0.5) * (top - 10.0) / n as f64)
            .map(|w| pdf(w) / w * (top - 10.0) / n as f64)
            .sum();
        let mean = below / 10.0 + above;
        assert!((mean - SERVER_DELAY_MEAN_S).abs() < 2e-4, "{mean}");
    }

    #[test]
    fn pareto_sizes_reach_more_bins_with_more_draws() {
        let d = SizeDist::Pareto {
            shape: 1.2,
            mean: 12_000.0,
        };
        assert!(size_bins(&d, 10.0) < size_bins(&d, 1e6));
        assert_eq!(size_bins(&SizeDist::Fixed(1000), 1e9), 1.0);
    }
}
