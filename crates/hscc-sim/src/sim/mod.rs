//! The running simulation: links, routes, flows and the event loop. Web
//! traffic's part of the loop is in `web.rs`, routes in `routes.rs`, the
//! sampled time series in `traces.rs`.

macro_rules! wire {
    ($self:ident, $flow:expr) => {
        &mut $crate::sim::SenderWire {
            net: &mut $self.net,
            route: $self.routes.path($flow.data_route),
            gen: $flow.gen,
            host: &mut $self.host_out,
            held: &mut $flow.held,
            direct: $flow.direct,
        }
    };
}

mod routes;
mod traces;
mod web;

pub use routes::Routes;
pub use traces::{FlowTrace, LinkTrace, Traces};
pub use web::WebTransfer;

use std::collections::BinaryHeap;

use hscc_cc::Shared;

use crate::capture::{Capture, CapturePoint, Tap};
use crate::config::{ConfigError, FlowConfig, SimConfig};
use crate::event::{Event, EventQueue, Fire, Timed, Timer};
use crate::limits::MAX_UDP_IN_NETWORK;
use crate::link::{Link, Offer};
use crate::packet::{Kind, Packet};
use crate::rng::{component_rng, component_seed, Component};
use crate::tcp::receiver::RxAction;
use crate::tcp::sender::Wire;
use crate::tcp::{Receiver, Sender};
use crate::time::Time;
use crate::udp::{UdpSink, UdpSource};
use crate::web::{WebModel, WebSource};

/// Network-wide packet accounting, for conservation checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetCounters {
    /// Packets handed to the network by endpoints.
    pub injected: u64,
    /// Packets that reached their destination endpoint.
    pub delivered: u64,
    /// Packets dropped by full queues.
    pub dropped_queue: u64,
    /// Packets dropped by random loss.
    pub dropped_random: u64,
    /// Packets of a finished transfer whose slot was reused, retired at the end
    /// of a link (counted in `delivered` too).
    pub stale: u64,
}

/// Links and the event queue: what endpoints send into.
pub struct Net {
    /// Current simulated time.
    pub now: Time,
    /// Pending events.
    pub q: EventQueue,
    /// Every unidirectional link.
    pub links: Vec<Link>,
    /// Accounting.
    pub counters: NetCounters,
    /// UDP datagrams in the network (capped at [`MAX_UDP_IN_NETWORK`]).
    pub udp_in_network: u64,
    /// Packet captures, if any ([`crate::capture`]).
    pub capture: Option<Box<Capture>>,
}

impl Net {
    /// Offer `p`, reaching hop `hop` of `route` at time `at` (≥ now).
    #[inline]
    fn forward(&mut self, p: &Packet, hop: u8, route: &[u32], at: Time) {
        let id = route[hop as usize];
        let dropped = match self.links[id as usize].offer(p, hop, at, id, &mut self.q) {
            Offer::Accepted => return,
            Offer::QueueDrop => &mut self.counters.dropped_queue,
            Offer::RandomDrop => &mut self.counters.dropped_random,
        };
        *dropped += 1;
        if p.kind == Kind::Udp {
            self.udp_in_network -= 1;
        }
    }
}

impl Net {
    /// A packet lost at the far end of a link (loss point after the queue).
    #[cold]
    fn lost_on_arrival(&mut self, p: &Packet) {
        self.counters.dropped_random += 1;
        if p.kind == Kind::Udp {
            self.udp_in_network -= 1;
        }
    }
}

/// [`WebTransfer::session`] of a transfer that belongs to no session.
pub const NO_SESSION: u32 = u32::MAX;

/// One TCP flow slot: its endpoints and routes.
pub struct Flow {
    /// Sender side.
    pub sender: Sender,
    /// Receiver side.
    pub receiver: Receiver,
    /// Route id from sender to receiver.
    pub data_route: u32,
    /// Route id from receiver to sender.
    pub ack_route: u32,
    /// Slot generation: packets of an earlier occupant are ignored.
    pub gen: u32,
    /// Set for web transfers.
    pub web: Option<WebTransfer>,
    /// Times of the delay-detected congestion signals of its algorithm.
    pub signals: Vec<Time>,
    /// When the flow started (or starts): its configured start plus the drawn start-up offset.
    pub start: Time,
    /// Segments of this flow waiting at its host for their first link ([`Sim`]'s host line).
    held: u32,
    /// The first link of the data route carries nothing but this flow's data
    /// and never changes: a delayed segment can be offered to it at once with
    /// its later time, since no other packet can reach that link in between
    /// (the same result as waiting in the host line, without an event per segment).
    direct: bool,
}

impl Flow {
    fn new(
        sender: Sender,
        receiver: Receiver,
        data_route: u32,
        ack_route: u32,
        gen: u32,
        start: Time,
    ) -> Flow {
        Flow {
            sender,
            receiver,
            data_route,
            ack_route,
            gen,
            web: None,
            signals: Vec::new(),
            start,
            held: 0,
            direct: false,
        }
    }
}

/// `Packet::hop` of an ACK that has waited its access delay at the host.
const HELD: u8 = u8::MAX;

/// A packet held at a host until its time.
type Held = Timed<Packet>;

/// Packets held at their hosts (host jitter, access delay) for every flow at
/// once, earliest first and in the order held among equal times: a flow's
/// packets, held with non-decreasing times, keep their order. One heap, so
/// memory follows the packets held, not the number of flows; one timer event
/// for its earliest packet.
#[derive(Debug, Default)]
pub struct HostLine {
    heap: BinaryHeap<Held>,
    seq: u64,
    timer: Timer,
}

impl HostLine {
    /// Hold `p` until `at`; `ev` is this line's event.
    fn push(&mut self, at: Time, p: Packet, q: &mut EventQueue, ev: Event) {
        self.heap.push(Held::new(at, self.seq, p));
        self.seq += 1;
        if at < self.timer.deadline {
            self.timer.arm(at, q, ev);
        }
    }

    /// The earliest packet if it is due by `now`.
    fn pop_due(&mut self, now: Time) -> Option<Packet> {
        if self.heap.peek().is_some_and(|h| h.time() <= now) {
            return self.heap.pop().map(|h| h.item);
        }
        None
    }

    /// When the earliest packet is due.
    fn next(&self) -> Option<Time> {
        self.heap.peek().map(Held::time)
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// One UDP flow.
pub struct UdpFlow {
    /// Sending side.
    pub source: UdpSource,
    /// Receiving side.
    pub sink: UdpSink,
    /// Route id.
    pub route: u32,
}

/// The sender's view of the network: its data route, through its host line.
struct SenderWire<'a> {
    net: &'a mut Net,
    route: &'a [u32],
    gen: u32,
    host: &'a mut HostLine,
    held: &'a mut u32,
    direct: bool,
}

impl Wire for SenderWire<'_> {
    #[inline]
    fn now(&self) -> Time {
        self.net.now
    }
    #[inline]
    fn queue(&mut self) -> &mut EventQueue {
        &mut self.net.q
    }
    #[inline]
    fn send(&mut self, mut p: Packet, at: Time) {
        p.gen = self.gen;
        if let Some(c) = &mut self.net.capture {
            c.sent(&p, at);
        }
        if (at == self.net.now || self.direct) && *self.held == 0 {
            self.net.counters.injected += 1;
            self.net.forward(&p, 0, self.route, at);
            return;
        }
        // Later: the packet waits at the host and reaches the first link at
        // `at` through an event, so that packets of other flows offered to the
        // same link in the meantime go first (offering it now with a future
        // time would fix its place in the queue too early).
        *self.held += 1;
        self.host.push(at, p, &mut self.net.q, Event::HostOut);
    }
    #[inline]
    fn ack_taken(&mut self, p: &Packet) {
        if let Some(c) = &mut self.net.capture {
            c.acked(p, self.net.now);
        }
    }
}

/// The sender of flow slot `slot` with configuration `cfg`, its draws made from
/// the run's `seed` for `id` (a configured flow's index or a web transfer's
/// number): its own stream, the algorithm's generator and the receiver's
/// timestamp offset, each apart so that none moves another; attached to the
/// run's `shared` state.
fn seeded_sender(slot: u32, cfg: &FlowConfig, seed: u64, id: u64, shared: &Shared) -> Sender {
    let rng = component_rng(seed, Component::Sender, id);
    let mut sender = Sender::new_in(slot, cfg, rng, shared);
    sender.tp.prandom_state = component_seed(seed, Component::Algorithm, id);
    if cfg.random_ts_offset {
        sender.ts_offset = component_seed(seed, Component::Timestamps, id) as u32;
    }
    sender.cc.attach(shared);
    sender
}

/// A simulation ready to run.
pub struct Sim {
    /// The configuration it was built from.
    pub cfg: SimConfig,
    /// The network.
    pub net: Net,
    /// TCP flow slots: the configured flows first (index = configuration
    /// order), then web transfers, whose slots are reused.
    pub flows: Vec<Flow>,
    /// UDP flows, in configuration order.
    pub udp: Vec<UdpFlow>,
    /// Web sources, in configuration order.
    pub web: Vec<WebSource>,
    routes: Routes,
    free: Vec<u32>,
    /// Sampled traces (when `sample_interval` is set).
    pub traces: Traces,
    /// Events processed so far.
    pub events: u64,
    /// Segments waiting at their hosts for their first links (host jitter, access delay).
    pub host_out: HostLine,
    /// ACKs waiting for their senders (access delay).
    pub host_in: HostLine,
    /// What the algorithms of all flows share (TCP-FIT's α, the programs registered).
    shared: Shared,
    until: Time,
    /// Some flow runs a program loaded at run time, whose hooks can fail.
    runs_programs: bool,
    /// The first failure of a program's hook: the run stops there.
    program_fault: Option<String>,
}

/// How often a run with programs looks for a failed hook, in events.
const PROGRAM_CHECK_EVENTS: u64 = 4096;

impl Sim {
    /// Build a simulation from a validated configuration whose estimate has
    /// passed the limits ([`Sim::with_limits`] is the way in), with room for
    /// the congestion-control log rows the estimate expects, per flow.
    pub(crate) fn assemble(cfg: SimConfig, cc_log_rows: &[(u32, u64)]) -> Result<Sim, ConfigError> {
        let t = &cfg.topology;
        let mut links: Vec<Link> = t
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| {
                Link::new(
                    &l.cfg,
                    l.to,
                    component_rng(cfg.seed, Component::Link, i as u64),
                    l.monitor,
                )
            })
            .collect();
        let routes = Routes::of(&cfg)?;
        let mut q = EventQueue::default();
        let mut flows = Vec::with_capacity(cfg.flows.len());
        let shared = Shared::default();
        let runs_programs = cfg
            .flows
            .iter()
            .map(|f| &f.cc)
            .chain(cfg.web.iter().map(|w| &w.tcp.cc))
            .any(|c| matches!(c, hscc_cc::CcParams::External(_)));
        for (i, f) in cfg.flows.iter().enumerate() {
            let (data_route, ack_route) = (routes.id(f.src, f.dst), routes.id(f.dst, f.src));
            let sender = seeded_sender(i as u32, f, cfg.seed, i as u64, &shared);
            // The start-up offset never moves the start past the stop or the end of the run.
            let start = f
                .start
                .saturating_add(sender.start_offset)
                .min(f.stop.map_or(cfg.duration, |s| s - 1).max(f.start));
            flows.push(Flow::new(
                sender,
                Receiver::new(f),
                data_route,
                ack_route,
                0,
                start,
            ));
            q.push(start, Event::FlowStart(i as u32));
            if let Some(stop) = f.stop {
                q.push(stop, Event::FlowStop(i as u32));
            }
        }
        let mut udp = Vec::with_capacity(cfg.udp.len());
        for (i, u) in cfg.udp.iter().enumerate() {
            let r = routes.id(u.src, u.dst);
            let source = UdpSource::new(
                u.clone(),
                component_rng(cfg.seed, Component::Traffic, i as u64),
            );
            if let Some(t0) = source.first() {
                q.push(t0, Event::UdpSend(i as u32));
            }
            udp.push(UdpFlow {
                source,
                sink: UdpSink::default(),
                route: r,
            });
        }
        let mut web = Vec::with_capacity(cfg.web.len());
        for (i, w) in cfg.web.iter().enumerate() {
            let id = (1u64 << 32) + i as u64;
            let mut source =
                WebSource::new(w.clone(), component_rng(cfg.seed, Component::Traffic, id));
            let t0 = source.next_arrival(w.start);
            if let Some(t0) = t0 {
                q.push(t0, Event::WebArrival(i as u32));
            }
            source.set_next_session(t0);
            web.push(source);
        }
        for (i, c) in cfg.changes.iter().enumerate() {
            q.push(c.at, Event::LinkChange(i as u32));
        }
        // Links that carry one configured flow's data and nothing else (no
        // ACKs, UDP, web traffic or scheduled change): that flow offers its
        // delayed segments to them directly (`Flow::direct`).
        let mut users = vec![0u32; t.links.len()];
        let mut count = |path: &[u32], n: u32| path.iter().for_each(|&l| users[l as usize] += n);
        for f in &flows {
            count(routes.path(f.data_route), 1);
            count(routes.path(f.ack_route), 1);
        }
        for u in &udp {
            count(routes.path(u.route), 1);
        }
        for w in &cfg.web {
            for &s in &w.servers {
                for &c in &w.clients {
                    for (a, b) in [(s, c), (c, s)] {
                        count(routes.path(routes.id(a, b)), 2);
                    }
                }
            }
        }
        for c in &cfg.changes {
            users[c.link as usize] += 2;
        }
        for f in &mut flows {
            f.direct = routes
                .path(f.data_route)
                .first()
                .is_some_and(|&l| users[l as usize] == 1);
        }
        // Room for the rows the estimate expects (pages untouched cost nothing).
        for &(i, rows) in cc_log_rows {
            if let Some(log) = &mut flows[i as usize].sender.cc.log {
                log.calls.reserve(rows as usize);
            }
        }
        let traces = Traces::new(&cfg);
        let capture = Capture::new(&cfg);
        for f in &cfg.capture.files {
            if let CapturePoint::Link(l) = f.at {
                links[l as usize].capture(Tap::new(cfg.capture.files.len(), cfg.capture.snaplen));
            }
        }
        if let Some(dt) = cfg.sample_interval {
            q.push(dt, Event::Sample);
        }
        Ok(Sim {
            net: Net {
                now: 0,
                q,
                links,
                counters: NetCounters::default(),
                udp_in_network: 0,
                capture,
            },
            flows,
            udp,
            web,
            routes,
            free: Vec::new(),
            traces,
            cfg,
            events: 0,
            host_out: HostLine::default(),
            host_in: HostLine::default(),
            shared,
            until: 0,
            runs_programs,
            program_fault: None,
        })
    }

    /// Process every event up to and including time `t` (at most the duration):
    /// a run covers [0, duration], both ends included.
    pub fn run_until(&mut self, t: Time) {
        let t = t.min(self.cfg.duration);
        self.until = t;
        while let Some(next) = self.net.q.peek_time() {
            if next > t {
                break;
            }
            let (now, ev) = self.net.q.pop().expect("peeked");
            self.net.now = now;
            self.events += 1;
            self.dispatch(ev);
            if self.runs_programs
                && self.events.is_multiple_of(PROGRAM_CHECK_EVENTS)
                && self.check_programs()
            {
                return;
            }
        }
        self.net.now = t;
        if self.runs_programs {
            self.check_programs();
        }
    }

    /// The first failure of a program's hook, once the run has seen one (it
    /// then stops: `run_until` returns without going further).
    pub fn program_fault(&self) -> Option<&str> {
        self.program_fault.as_deref()
    }

    /// Look for a failed hook; stop the run at the first.
    fn check_programs(&mut self) -> bool {
        if self.program_fault.is_none() {
            self.program_fault = self.flows.iter().find_map(|f| f.sender.cc.fault());
        }
        if self.program_fault.is_some() {
            self.until = self.net.now;
        }
        self.program_fault.is_some()
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let now = self.net.now;
        match ev {
            Event::LinkArrive(l) => {
                // One call site of `arrive`, so that it stays inlined here.
                let special = self.net.links[l as usize].special_arrivals();
                let mut now = now;
                loop {
                    let (p, next) = if special {
                        match self.special_arrival(l, now) {
                            Some(p) => (p, None),
                            None => break,
                        }
                    } else {
                        self.net.links[l as usize].pop_arrival(now)
                    };
                    self.arrive(p);
                    if special {
                        continue;
                    }
                    let Some(t) = next else { break };
                    // The link's next packet arrives strictly before every other
                    // event: handle it now rather than through the heap (the
                    // order of execution is the same either way).
                    if self.next_inline(t) {
                        now = t;
                    } else {
                        self.net.q.push(t, Event::LinkArrive(l));
                        break;
                    }
                }
            }
            Event::Rto(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.sender.rto_timer.fire(now, &mut self.net.q, ev) == Fire::Expired {
                    flow.sender.on_timer(wire!(self, flow));
                    self.after_sender_event(f);
                }
            }
            Event::Pace(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.sender.pace_timer.fire(now, &mut self.net.q, ev) == Fire::Expired {
                    flow.sender.on_pace(wire!(self, flow));
                    flow.sender.settle_log(now);
                }
            }
            Event::DelAck(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.receiver.delack.fire(now, &mut self.net.q, ev) == Fire::Expired {
                    self.send_ack(f);
                }
            }
            Event::FlowStart(f) => {
                let flow = &mut self.flows[f as usize];
                flow.sender.start(wire!(self, flow));
                flow.sender.settle_log(now);
            }
            Event::FlowStop(f) => {
                let flow = &mut self.flows[f as usize];
                flow.sender.stop(wire!(self, flow));
                flow.sender.settle_log(now);
            }
            Event::HostOut => {
                if self.host_out.timer.fire(now, &mut self.net.q, ev) == Fire::Expired {
                    self.host_out_due();
                }
            }
            Event::HostIn => {
                if self.host_in.timer.fire(now, &mut self.net.q, ev) == Fire::Expired {
                    self.host_in_due();
                }
            }
            Event::UdpSend(u) => {
                let flow = &mut self.udp[u as usize];
                let p = flow.source.packet(u, now);
                // Past the cap the datagram is lost at the host, as with a full
                // socket buffer: it counts as sent and lost, never enters the network.
                if self.net.udp_in_network >= MAX_UDP_IN_NETWORK {
                    // Datagrams a queue discipline dropped after queuing have left the network.
                    let gone: u64 = self.net.links.iter_mut().map(|l| l.take_udp_drops()).sum();
                    self.net.udp_in_network -= gone;
                }
                if self.net.udp_in_network < MAX_UDP_IN_NETWORK {
                    self.net.udp_in_network += 1;
                    self.net.counters.injected += 1;
                    self.net.forward(&p, 0, self.routes.path(flow.route), now);
                }
                if let Some(t) = flow.source.next_after(now) {
                    self.net.q.push(t, Event::UdpSend(u));
                }
            }
            Event::WebArrival(w) => match self.web[w as usize].cfg.model {
                WebModel::Transfers => self.web_arrival(w),
                WebModel::Sessions(_) => self.web_session_event(w),
            },
            Event::LinkChange(i) => {
                let c = &self.cfg.changes[i as usize];
                let link = &mut self.net.links[c.link as usize];
                if link.has_aqm() {
                    // Packets that left the queue before the change went at the old rate.
                    link.service(now, c.link, &mut self.net.q);
                }
                if let Some(r) = c.rate_bps {
                    link.set_rate(now, r);
                }
                if let Some(d) = c.delay {
                    link.set_delay(now, d);
                }
                link.rearm(now, c.link, &mut self.net.q);
            }
            Event::Sample => {
                for (i, l) in self.net.links.iter_mut().enumerate() {
                    l.settle(now, i as u32, &mut self.net.q);
                }
                let n = self.cfg.flows.len();
                self.traces.sample(now, &self.flows[..n], &self.net.links);
                if let Some(dt) = self.cfg.sample_interval {
                    self.net.q.push(now.saturating_add(dt), Event::Sample);
                }
            }
        }
    }

    /// The next packet to deliver at `now` from a link that reorders, may
    /// lose packets at its far end (loss point after the queue) or has a
    /// queue discipline (its dequeues run at arrivals); `None` when
    /// none is left, the next wake-up scheduled. Out of line, so that the
    /// common path stays as short as it was.
    #[inline(never)]
    fn special_arrival(&mut self, l: u32, now: Time) -> Option<Packet> {
        loop {
            let link = &mut self.net.links[l as usize];
            let p = if link.reorders() {
                match link.pop_due(now) {
                    Some(p) => p,
                    None => {
                        link.rearm(now, l, &mut self.net.q);
                        return None;
                    }
                }
            } else {
                if link.head_arrival().is_none_or(|t| t > now) {
                    return None;
                }
                let (p, next) = if link.has_aqm() {
                    link.pop_arrival_aqm(now, l, &mut self.net.q)
                } else {
                    link.pop_arrival(now)
                };
                if let Some(t) = next.filter(|&t| t > now) {
                    self.net.q.push(t, Event::LinkArrive(l));
                }
                p
            };
            if self.net.links[l as usize].corrupted(&p, now) {
                self.net.lost_on_arrival(&p);
                continue;
            }
            return Some(p);
        }
    }

    /// A packet reached the far end of a link: forward it or deliver it.
    /// Always inlined into its one caller, the event loop (LLVM stopped doing
    /// it on its own once `dispatch` grew, for 1 % more instructions).
    #[inline(always)]
    fn arrive(&mut self, p: Packet) {
        let route = match p.kind {
            Kind::Udp => self.udp[p.flow as usize].route,
            _ => {
                let flow = &self.flows[p.flow as usize];
                if p.gen != flow.gen {
                    // A packet of a finished transfer whose slot was reused: its
                    // route is gone, so it leaves the network here.
                    self.net.counters.delivered += 1;
                    self.net.counters.stale += 1;
                    return;
                }
                if p.kind == Kind::Data {
                    flow.data_route
                } else {
                    flow.ack_route
                }
            }
        };
        let path = self.routes.path(route);
        let next = p.hop + 1;
        if (next as usize) < path.len() {
            self.net.forward(&p, next, path, self.net.now);
        } else {
            self.net.counters.delivered += 1;
            self.deliver(p);
        }
    }

    /// `p` reached its destination. An ACK of a flow with an access delay is
    /// held for it first and comes back here marked [`HELD`] (one call site
    /// for `Sender::on_ack`; `always`: the hot path keeps it inlined).
    #[inline(always)]
    fn deliver(&mut self, p: Packet) {
        let now = self.net.now;
        if p.kind == Kind::Udp {
            self.net.udp_in_network -= 1;
            self.udp[p.flow as usize].sink.on_packet(&p, now);
            return;
        }
        let f = p.flow;
        let flow = &mut self.flows[f as usize];
        match p.kind {
            Kind::Ack => {
                if flow.sender.access_delay > 0 && p.hop != HELD {
                    let mut p = p;
                    p.hop = HELD;
                    self.host_in.push(
                        now + flow.sender.access_delay,
                        p,
                        &mut self.net.q,
                        Event::HostIn,
                    );
                    return;
                }
                flow.sender.on_ack(&p, wire!(self, flow));
                self.after_sender_event(f);
            }
            _ => {
                let action = flow.receiver.on_data(&p, now);
                let web_done = flow
                    .web
                    .as_ref()
                    .is_some_and(|w| !w.received && flow.receiver.rcv_nxt >= w.end);
                match action {
                    RxAction::AckNow => self.send_ack(f),
                    RxAction::Delay(t) => {
                        if !flow.receiver.delack.armed() {
                            flow.receiver
                                .delack
                                .arm(t, &mut self.net.q, Event::DelAck(f));
                        }
                    }
                }
                if web_done {
                    self.web_received(f);
                }
            }
        }
    }

    /// Whether the next event of a host or link line, due at `t`, comes
    /// strictly before every queued event: then it is handled at once instead of
    /// through the heap (the order of execution is the same either way).
    #[inline]
    fn next_inline(&mut self, t: Time) -> bool {
        if t <= self.until && self.net.q.peek_time().is_none_or(|e| t < e) {
            self.net.now = t;
            self.events += 1;
            return true;
        }
        false
    }

    /// Segments held at their hosts are due: offer them to the first link of
    /// their routes, and any due by the next one while it comes first.
    #[inline(never)]
    fn host_out_due(&mut self) {
        loop {
            let now = self.net.now;
            while let Some(p) = self.host_out.pop_due(now) {
                let flow = &mut self.flows[p.flow as usize];
                if p.gen != flow.gen {
                    continue; // a finished web transfer's: its slot is reused, it never leaves
                }
                flow.held -= 1;
                self.net.counters.injected += 1;
                self.net
                    .forward(&p, 0, self.routes.path(flow.data_route), now);
            }
            let Some(t) = self.host_out.next() else {
                return;
            };
            if !self.next_inline(t) {
                self.host_out.timer.arm(t, &mut self.net.q, Event::HostOut);
                return;
            }
        }
    }

    /// ACKs held for their senders' access delay are due: the senders process them.
    #[inline(never)]
    fn host_in_due(&mut self) {
        loop {
            let now = self.net.now;
            while let Some(p) = self.host_in.pop_due(now) {
                // A finished web transfer's ACK (its slot reused) is dropped.
                if p.gen == self.flows[p.flow as usize].gen {
                    self.deliver(p);
                }
            }
            let Some(t) = self.host_in.next() else { return };
            if !self.next_inline(t) {
                self.host_in.timer.arm(t, &mut self.net.q, Event::HostIn);
                return;
            }
        }
    }

    /// After an ACK or a timeout: log the sender's own changes; record
    /// congestion signals; free finished web slots.
    #[inline]
    fn after_sender_event(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.sender.settle_log(self.net.now);
        let signals = flow.sender.cc.delay_signals();
        if signals as usize > flow.signals.len() && flow.web.is_none() {
            flow.signals.resize(signals as usize, self.net.now);
        }
        self.release_if_done(f);
    }

    /// Free web slot `f` for reuse once its sender is done (a persistent
    /// connection's only when its session has ended).
    #[inline]
    fn release_if_done(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(w) = &mut flow.web {
            if !w.freed && !w.keep && flow.sender.done_at.is_some() {
                w.freed = true;
                flow.receiver.delack.cancel();
                self.free.push(f);
                // The slot's next transfer replaces its algorithm: keep a program's failure.
                if self.runs_programs && self.program_fault.is_none() {
                    self.program_fault = flow.sender.cc.fault();
                }
            }
        }
    }

    fn send_ack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        if let Some(mut prior) = flow.receiver.take_prior_ack(f, self.net.now) {
            prior.gen = flow.gen;
            flow.sender.counters.acks_sent += 1;
            self.net.counters.injected += 1;
            self.net
                .forward(&prior, 0, self.routes.path(flow.ack_route), self.net.now);
        }
        let flow = &mut self.flows[f as usize];
        let mut ack = flow.receiver.make_ack(f, self.net.now);
        ack.gen = flow.gen;
        flow.sender.counters.acks_sent += 1;
        self.net.counters.injected += 1;
        self.net
            .forward(&ack, 0, self.routes.path(flow.ack_route), self.net.now);
    }

    /// The links of route `id` (see [`Flow::data_route`]).
    pub fn path(&self, id: u32) -> &[u32] {
        self.routes.path(id)
    }

    /// Packets currently inside the network (queued or propagating).
    pub fn in_network(&self) -> u64 {
        self.net.links.iter().map(|l| l.in_flight() as u64).sum()
    }

    /// Check packet conservation: injected = delivered + dropped + in the network.
    pub fn check_conservation(&self) -> Result<(), String> {
        let c = self.net.counters;
        // Packets a queue discipline dropped after accepting them (at dequeue, or FQ-CoDel's fat flow).
        let queued: u64 = self
            .net
            .links
            .iter()
            .map(|l| l.queued_drops().packets)
            .sum();
        let rhs = c.delivered + c.dropped_queue + queued + c.dropped_random + self.in_network();
        if c.injected != rhs {
            return Err(format!(
                "injected {} != delivered {} + dropped {}+{}+{} + in network {}",
                c.injected,
                c.delivered,
                c.dropped_queue,
                queued,
                c.dropped_random,
                self.in_network()
            ));
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.sender
                .check_scoreboard()
                .map_err(|e| format!("flow {i}: {e}"))?;
        }
        // Every segment a flow counts as held is in the host line (and the
        // others there belong to finished web transfers).
        let mut held = vec![0u32; self.flows.len()];
        for h in self
            .host_out
            .heap
            .iter()
            .filter(|h| h.item.gen == self.flows[h.item.flow as usize].gen)
        {
            held[h.item.flow as usize] += 1;
        }
        if let Some((i, f)) = self
            .flows
            .iter()
            .enumerate()
            .find(|(i, f)| f.held != held[*i])
        {
            return Err(format!(
                "flow {i}: {} segments counted as held at the host, {} there",
                f.held, held[i]
            ));
        }
        Ok(())
    }
}
