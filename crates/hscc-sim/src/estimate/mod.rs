//! What a run will cost, computed from its configuration before anything big
//! is allocated: peak memory in bytes and the number of events.
//!
//! # The model
//! Traffic first (`traffic.rs`). Every TCP flow gets the fair share of its
//! tightest link, min over its path of (rate − UDP and web load) / (TCP flows
//! crossing it), capped by its receiver window; that link is its bottleneck
//! and, for a loss-based sender, its queue fills. UDP sends at its rate up to
//! the slowest link of its path; a web source offers arrival rate × mean size.
//! A link carries the packets per second offered to it, at most its rate
//! (drops take the rest); TCP ACKs run back at the data rate over the
//! delayed-ACK factor. A TCP flow loads only the links its traffic reaches
//! before the run ends (`reach.rs`): those its first packet can get to in
//! time, and none beyond a link that the flows before it fill with their
//! first windows for the rest of the run.
//!
//! Memory, by structure (sizes are the real `size_of` where a type exists):
//! - **packets** (`links.rs`): a link's FIFO never shrinks, so it costs its
//!   largest occupancy: packets per second × (delay + 3σ jitter +
//!   serialization), twice that for TCP data (slow start sends two segments
//!   per ACK), plus the whole buffer where the link is a bottleneck, plus the
//!   initial windows of the flows that start on it (at most its buffer and
//!   what is on its wire: it drops the rest); 64 bytes a packet and 16 per
//!   queued one;
//! - **host lines** (also `links.rs`): a TCP flow's packets waiting at its host
//!   (host jitter, access delay): packets per second × that wait, twice for
//!   data, plus the initial windows of flows that start together (80 bytes a
//!   packet);
//! - **windows** (`flows.rs`): a sender's scoreboard holds its largest window,
//!   16 bytes a segment: twice (path BDP + its share of the bottleneck queue),
//!   at least the initial window, at most the receiver window;
//! - **flows**, **udp**, **links**, **topology** (`flows.rs`, `udp.rs`,
//!   `topology.rs`): per-object state, the delay histograms of UDP sinks and
//!   monitored links (250 KB each), routes;
//! - **web** (`web.rs`): transfers in progress by Little's law (arrival rate ×
//!   time in the system: slow-start rounds + size / fair share); when the
//!   offered load exceeds the bottleneck the excess accumulates for the whole
//!   run; plus the response-time histograms of the size bins the distribution
//!   reaches;
//! - **traces** (`outputs.rs`): samples × series, preallocated exactly, and
//!   their values in the files (≈ 14 bytes a value, charged to **files**);
//! - **summaries** (`flows.rs`, `topology.rs`): each flow's and link's results;
//! - **files** (`files.rs`): the run directory's files as they are written
//!   and read back: summary.json's rows of the flows and of the links that carry
//!   traffic (5.1 and 5.4 times their text: columns and text while written,
//!   Python's bytes and decoded text, the objects it reads back) and the links
//!   table's row of every link;
//! - **scenario** (`files.rs`): the scenario's links and `[[flows]]` entries
//!   (manifest.json's copy, their Python form, about 7 times their text) with
//!   the resolved configuration of every link and flow that Python holds
//!   besides the simulation's;
//! - **queue** (`outputs.rs`): event-queue entries (links, three timers a flow,
//!   sources);
//! - **cc_log** (`flows.rs`): the per-ACK congestion-control log of the traced
//!   flows: [`CC_LOG_ROWS_PER_ACK`] rows per ACK (the ACKs of the flow's fair
//!   share), each a recorded call plus its table columns while the table is
//!   handed over;
//! - **captures** (`captures.rs`): a copy of each captured packet while
//!   running, then its file, and the captured links' drop logs.
//!
//! Growable buffers are counted at 1.5× their content (a `Vec` or `VecDeque`
//! doubles: on average it holds 1/ln 2 ≈ 1.44× what it needs).
//!
//! The network (topology, packets, flows, windows, UDP, web, the event queue) is freed
//! when the run ends, before the files are made, and the Python extension hands that
//! memory back to the system then: the peak is the scenario and what the run ends
//! with (traces, per-ACK logs, captures, summaries), plus the larger of the network
//! and the files (docs/performance.md sets it against the whole process's peak).
//!
//! Events: one per packet per hop carried (a folded hop's too, which the run
//! does not spend: an upper bound, `link/fold.rs`), and one per packet that waits at
//! a host (host jitter, access delay) unless it is data offered at once to a
//! first link its flow has to itself; a timer event per flow per
//! minimum RTO; a pacing event per paced segment; every UDP datagram sent
//! (drops included: the source runs at its rate); web arrivals; samples.
//!
//! The estimate is checked against reality in `tests/engine/estimate.rs`, which
//! measures peak heap use with a counting allocator.
//!
//! Each term is also charged to the scenario field that drives it
//! (`origins.rs`), so that a refusal (`limits.rs`) can say what to lower
//! (`web[0].rate`, `sample_interval`, …).
//!
//! The steps run in a fixed order: a field's charges are summed in floating
//! point, so the order is part of the result.

mod captures;
mod files;
mod flows;
mod limits;
mod links;
mod origins;
mod outputs;
mod reach;
mod sizes;
mod topology;
mod traffic;
mod udp;
mod web;

use serde::Serialize;

use crate::config::{ConfigError, SimConfig};
use crate::limits::{BuildLimits, MAX_ROUTE_WORK};
use crate::sim::Sim;

pub use flows::CC_LOG_ROWS_PER_ACK;
pub(crate) use origins::{CaptureOrigin, Origins};

use origins::{Blame, Field};
use sizes::BASE;

/// The cost of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Peak memory, bytes.
    pub memory_bytes: u64,
    /// Events processed, a count.
    pub events: u64,
    /// Memory by structure, bytes.
    pub memory: MemoryParts,
    /// Events by cause, counts.
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
    /// Size of the packet captures' files, bytes.
    pub capture_bytes: u64,
    /// The capture field (flows or links) whose files are the larger, and its value.
    pub capture_field: (String, String),
}

/// Memory by structure, bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MemoryParts {
    /// Nodes, link configurations and state, link histograms, routes, bytes.
    pub topology: u64,
    /// Packets in the links' FIFOs and the hosts' lines, bytes.
    pub packets: u64,
    /// Flow state and configuration, bytes.
    pub flows: u64,
    /// Senders' scoreboards, bytes.
    pub windows: u64,
    /// UDP flows and their sinks' histograms, bytes.
    pub udp: u64,
    /// Web transfers in progress and response-time histograms, bytes.
    pub web: u64,
    /// Sampled traces, bytes.
    pub traces: u64,
    /// The event queue, bytes.
    pub queue: u64,
    /// The flows' and links' summaries the run ends with, bytes.
    pub summaries: u64,
    /// The run directory's files while written and read back, bytes.
    pub files: u64,
    /// The scenario as Python holds it besides the engine, bytes.
    pub scenario: u64,
    /// The per-ACK congestion-control log, bytes.
    pub cc_log: u64,
    /// Packet captures: packets seen, their files and the captured links' drop logs, bytes.
    pub captures: u64,
}

/// Events by cause, counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EventParts {
    /// Packets crossing links (one event per packet per hop) and waiting at hosts.
    pub packets: u64,
    /// Retransmission, delayed-ACK and pacing timers.
    pub timers: u64,
    /// UDP datagrams sent.
    pub udp: u64,
    /// Web arrivals and session steps.
    pub web: u64,
    /// Trace samples and scheduled changes.
    pub samples: u64,
}

/// What every step adds to: memory and events by structure and by field.
#[derive(Default)]
struct Tally {
    /// Memory by structure, bytes.
    mem: MemoryParts,
    /// Events by cause, counts.
    evs: EventParts,
    /// The same memory and events, charged to the fields that drive them.
    blame: Blame,
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

/// The estimate of `cfg`, each term charged to the field `o` names for it.
pub(crate) fn estimate(cfg: &SimConfig, o: &Origins) -> Estimate {
    crate::scenario::count_estimate();
    if crate::config::route_work(cfg) > MAX_ROUTE_WORK {
        // Validation refuses it; the model does not route what it cannot afford.
        return unroutable(o);
    }
    let mut tally = Tally::default();
    let traffic = traffic::model(cfg, o);
    udp::charge(cfg, o, &mut tally);
    web::charge_arrivals(cfg, &traffic, &mut tally);
    let load = links::charge(cfg, o, &traffic, &mut tally);
    let cc_log_rows = flows::charge(cfg, o, &traffic, &load, &mut tally);
    let transfers = web::charge_transfers(cfg, &traffic, &mut tally);
    let monitored = topology::charge(cfg, o, &traffic.routes, &mut tally);
    outputs::charge_traces(cfg, monitored, &mut tally);
    files::charge(cfg, o, &load, &mut tally);
    outputs::charge_event_queue(cfg, o, transfers, &mut tally);
    let captured = captures::charge(cfg, o, &traffic, &load, &mut tally);
    total(tally, cc_log_rows, o, captured)
}

/// A configuration too large to route: every cost at its maximum, charged to the topology.
fn unroutable(o: &Origins) -> Estimate {
    Estimate {
        memory_bytes: u64::MAX,
        events: u64::MAX,
        memory: MemoryParts::default(),
        events_by: EventParts::default(),
        memory_field: o.topology.clone(),
        events_field: o.topology.clone(),
        cc_log_rows: Vec::new(),
        cc_log_field: o.cc_log.clone(),
        capture_bytes: 0,
        capture_field: Field::default(),
    }
}

/// The peak: the scenario and what the run ends with (traces, logs, captures,
/// summaries), plus the larger of the network while it runs and the files written after
/// it; and the fields that drive the most memory and the most events.
fn total(
    tally: Tally,
    cc_log_rows: Vec<(u32, u64)>,
    o: &Origins,
    captured: captures::Captured,
) -> Estimate {
    let m = &tally.mem;
    let sum = |parts: &[u64]| parts.iter().fold(0u64, |a, &b| a.saturating_add(b));
    let network = sum(&[
        m.topology, m.packets, m.flows, m.windows, m.udp, m.web, m.queue,
    ]);
    let kept = sum(&[m.scenario, m.traces, m.cc_log, m.captures, m.summaries]);
    let memory_bytes = sum(&[BASE as u64, kept, network.max(m.files)]);
    let e = &tally.evs;
    let events = sum(&[e.packets, e.timers, e.udp, e.web, e.samples]);
    Estimate {
        memory_bytes,
        events,
        memory_field: Blame::top(&tally.blame.memory),
        events_field: Blame::top(&tally.blame.events),
        memory: tally.mem,
        events_by: tally.evs,
        cc_log_rows,
        cc_log_field: o.cc_log.clone(),
        capture_bytes: captured.bytes,
        capture_field: captured.field,
    }
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
