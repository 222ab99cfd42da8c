//! The running simulation: links, routes, flows and the event loop.

use std::collections::{BinaryHeap, HashMap};

use hscc_cc::Shared;
use serde::Serialize;

use crate::capture::{Capture, CapturePoint, Tap};
use crate::config::{ConfigError, FlowConfig, SimConfig, Topology};
use crate::event::{Event, EventQueue, Fire, Timed, Timer};
use crate::limits::{MAX_UDP_IN_NETWORK, MAX_WEB_SLOTS};
use crate::link::{Link, Offer};
use crate::packet::{Kind, Packet};
use crate::rng::{component_rng, Component};
use crate::tcp::receiver::RxAction;
use crate::tcp::sender::Wire;
use crate::tcp::{Receiver, Sender};
use crate::time::{secs, Time};
use crate::udp::{UdpSink, UdpSource};
use crate::web::{AfterResponse, Connection, Due, Object, Step, WebModel, WebSource};

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

/// Shortest paths between node pairs, computed once per pair.
#[derive(Debug, Default)]
pub struct Routes {
    paths: Vec<Vec<u32>>,
    index: HashMap<(u32, u32), u32>,
}

impl Routes {
    /// Route id from `src` to `dst`.
    pub fn get(&mut self, t: &Topology, src: u32, dst: u32) -> Result<u32, ConfigError> {
        if let Some(&id) = self.index.get(&(src, dst)) {
            return Ok(id);
        }
        let path = t.route(src, dst)?;
        self.paths.push(path);
        let id = self.paths.len() as u32 - 1;
        self.index.insert((src, dst), id);
        Ok(id)
    }

    /// The links of route `id`.
    #[inline]
    pub fn path(&self, id: u32) -> &[u32] {
        &self.paths[id as usize]
    }
}

/// A web transfer occupying a flow slot.
#[derive(Clone, Copy, Debug)]
pub struct WebTransfer {
    /// Index of its web source.
    pub source: u32,
    /// Bytes (a response, or a session's request).
    pub size: u64,
    /// Delivered once the receiver has this many segments in order (a
    /// persistent connection's later objects follow the earlier ones).
    pub end: u64,
    /// Arrival time (session model: when the object's request was sent).
    pub start: Time,
    /// Its session ([`NO_SESSION`] in the transfer model).
    pub session: u32,
    /// Whether it carries a request (client to server) rather than a response.
    pub request: bool,
    /// Whether the client has received every byte (response time recorded).
    pub received: bool,
    /// Whether the slot has been released for reuse.
    pub freed: bool,
    /// A persistent session's connection: the slot stays when its sender is
    /// done, until the session ends.
    pub keep: bool,
}

impl WebTransfer {
    /// Transfer of `size` bytes for web source `source`, its object started at `start`.
    fn new(source: u32, size: u64, start: Time, session: u32, request: bool) -> WebTransfer {
        WebTransfer {
            source,
            size,
            end: 0,
            start,
            session,
            request,
            received: false,
            freed: false,
            keep: false,
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

macro_rules! wire {
    ($self:ident, $flow:expr) => {
        &mut SenderWire {
            net: &mut $self.net,
            route: $self.routes.path($flow.data_route),
            gen: $flow.gen,
            host: &mut $self.host_out,
            held: &mut $flow.held,
            direct: $flow.direct,
        }
    };
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
    /// What the algorithms of all flows share (TCP-FIT's α).
    shared: Shared,
    until: Time,
}

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
        let mut routes = Routes::default();
        let mut q = EventQueue::default();
        let route = |routes: &mut Routes, src, dst, field: String| {
            routes
                .get(t, src, dst)
                .map_err(|e| ConfigError { field, ..e })
        };
        let mut flows = Vec::with_capacity(cfg.flows.len());
        let shared = Shared::default();
        for (i, f) in cfg.flows.iter().enumerate() {
            let data_route = route(&mut routes, f.src, f.dst, format!("flows[{i}].dst"))?;
            let ack_route = route(&mut routes, f.dst, f.src, format!("flows[{i}].src"))?;
            let rng = component_rng(cfg.seed, Component::Sender, i as u64);
            let mut sender = Sender::new(i as u32, f, rng);
            sender.cc.attach(&shared);
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
            let r = route(&mut routes, u.src, u.dst, format!("udp[{i}].dst"))?;
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
            for &s in &w.servers {
                for &c in &w.clients {
                    route(&mut routes, s, c, format!("web[{i}].clients"))?;
                    route(&mut routes, c, s, format!("web[{i}].servers"))?;
                }
            }
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
                        let id = routes.get(t, a, b).expect("routed above");
                        count(routes.path(id), 2);
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
        }
        self.net.now = t;
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
            }
        }
    }

    fn web_arrival(&mut self, w: u32) {
        let now = self.net.now;
        let source = &mut self.web[w as usize];
        let tr = source.transfer();
        if let Some(t) = source.next_arrival(now) {
            self.net.q.push(t, Event::WebArrival(w));
        }
        let free = self.web_slot_free();
        let stats = &mut self.web[w as usize].stats;
        if !free {
            // Every slot busy: the server refuses the connection (counted), so
            // memory stays bounded whatever the arrival rate.
            stats.refused += 1;
            return;
        }
        stats.started += 1;
        let started = stats.started;
        let transfer = WebTransfer::new(w, tr.size, now, NO_SESSION, false);
        self.open_web_flow(tr.src, tr.dst, started, transfer);
    }

    /// Whether a web transfer can have a flow slot ([`MAX_WEB_SLOTS`]).
    fn web_slot_free(&self) -> bool {
        !self.free.is_empty() || self.flows.len() - self.cfg.flows.len() < MAX_WEB_SLOTS
    }

    /// Start web transfer `t` from `src` to `dst` now, in a free slot (the
    /// caller checked [`Sim::web_slot_free`]); `number` numbers its random
    /// stream. Returns the slot.
    fn open_web_flow(&mut self, src: u32, dst: u32, number: u64, mut t: WebTransfer) -> u32 {
        let now = self.net.now;
        let w = t.source;
        let mut cfg: FlowConfig = self.web[w as usize].cfg.tcp.clone();
        (cfg.src, cfg.dst, cfg.size, cfg.start, cfg.stop) = (src, dst, Some(t.size), now, None);
        let topo = &self.cfg.topology;
        let data_route = self.routes.get(topo, src, dst).expect("checked when built");
        let ack_route = self.routes.get(topo, dst, src).expect("checked when built");
        let rng = component_rng(
            self.cfg.seed,
            Component::Sender,
            (1u64 << 40) + ((w as u64) << 32) + number,
        );
        let slot = self.free.pop().unwrap_or(self.flows.len() as u32);
        let gen = self
            .flows
            .get(slot as usize)
            .map_or(0, |f| f.gen.wrapping_add(1));
        // A web transfer starts when it arrives (its arrivals are already random):
        // no start-up offset. Its access delay is drawn from its own stream.
        let mut sender = Sender::new(slot, &cfg, rng);
        sender.cc.attach(&self.shared);
        t.end = sender.total_segs();
        let mut flow = Flow::new(sender, Receiver::new(&cfg), data_route, ack_route, gen, now);
        flow.web = Some(t);
        if slot as usize == self.flows.len() {
            self.flows.push(flow);
        } else {
            // What the host lines still hold for the finished transfer carries
            // the old generation and is dropped when due (it never entered the
            // network, or has already left it).
            self.flows[slot as usize] = flow;
        }
        if let Some(c) = self.net.capture.as_mut().filter(|c| c.links()) {
            // Noted only if it crosses a captured link: one entry per transfer a capture sees.
            let links = &self.net.links;
            if self
                .routes
                .path(data_route)
                .iter()
                .chain(self.routes.path(ack_route))
                .any(|&l| links[l as usize].captured())
            {
                if t.keep {
                    // A persistent connection's writes each start a segment:
                    // byte offsets at whole segments (docs/links-and-web.md §5).
                    cfg.size = None;
                }
                c.web_opened(self.cfg.seed, slot, gen, &cfg);
            }
        }
        let flow = &mut self.flows[slot as usize];
        flow.sender.start(wire!(self, flow));
        slot
    }

    /// A web source's event in the session model: a session arrives, or one
    /// of its steps (next request, response after the server delay) is due.
    fn web_session_event(&mut self, w: u32) {
        let now = self.net.now;
        let source = &mut self.web[w as usize];
        match source.due(now) {
            Due::Arrival => {
                let next = source.next_arrival(now);
                if let Some(t) = next {
                    self.net.q.push(t, Event::WebArrival(w));
                }
                source.set_next_session(next);
                if let Some((id, object)) = source.open_session(now) {
                    self.start_object(w, id, object, true);
                }
            }
            Due::Step(id, Step::Request) => {
                let object = source.next_request(id, now);
                self.start_object(w, id, object, true);
            }
            Due::Step(id, Step::Response) => {
                let object = source.response_of(id);
                self.start_object(w, id, object, false);
            }
            Due::Nothing => {}
        }
    }

    /// Start a request (or response) of session `id` of web source `w`: on
    /// its persistent connection, once open, an application write; else a
    /// transfer in a new slot. A refused transfer (every slot busy) ends its session.
    fn start_object(&mut self, w: u32, id: u32, o: Object, request: bool) {
        let source = &mut self.web[w as usize];
        let open = source.connection(id).map(|c| *c.slot(request));
        if let Some(Some(slot)) = open {
            source.stats.started += u64::from(request);
            let flow = &mut self.flows[slot as usize];
            let end = flow.sender.append(o.size, wire!(self, flow));
            let t = flow.web.as_mut().expect("a web slot");
            (t.size, t.start, t.end, t.received) = (o.size, o.start, end, false);
            return;
        }
        let free = self.web_slot_free();
        let source = &mut self.web[w as usize];
        if !free {
            source.stats.refused += 1;
            let connection = source.abort_session(id);
            self.close(connection);
            return;
        }
        source.stats.started += u64::from(request);
        let number = source.next_flow_number();
        let mut t = WebTransfer::new(w, o.size, o.start, id, request);
        t.keep = open.is_some();
        let slot = self.open_web_flow(o.src, o.dst, number, t);
        if let Some(c) = self.web[w as usize].connection(id) {
            *c.slot(request) = Some(slot);
        }
    }

    /// A persistent session has ended: its connection's slots are freed as
    /// an HTTP/1.0 transfer's, once their senders have everything acknowledged.
    fn close(&mut self, connection: Option<Connection>) {
        for slot in connection
            .into_iter()
            .flat_map(|c| [c.requests, c.responses])
            .flatten()
        {
            let flow = &mut self.flows[slot as usize];
            flow.web.as_mut().expect("a web slot").keep = false;
            self.release_if_done(slot);
        }
    }

    /// Web transfer in slot `f` has delivered its last byte.
    fn web_received(&mut self, f: u32) {
        let now = self.net.now;
        let Some(t) = &mut self.flows[f as usize].web else {
            return;
        };
        t.received = true;
        let t = *t;
        let source = &mut self.web[t.source as usize];
        if t.request {
            // The server has the request: it responds after its delay.
            match source.server_delay() {
                0 => {
                    let object = source.response_of(t.session);
                    self.start_object(t.source, t.session, object, false);
                }
                d => {
                    source.schedule(now.saturating_add(d), t.session, Step::Response);
                    self.net
                        .q
                        .push(now.saturating_add(d), Event::WebArrival(t.source));
                }
            }
            return;
        }
        source.stats.record(t.size, now - t.start);
        if t.session != NO_SESSION {
            match source.response_done(t.session, now) {
                AfterResponse::Think(gap) => {
                    source.schedule(now.saturating_add(gap), t.session, Step::Request);
                    self.net
                        .q
                        .push(now.saturating_add(gap), Event::WebArrival(t.source));
                }
                AfterResponse::Ended(connection) => self.close(connection),
            }
        }
    }

    fn send_ack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let mut ack = flow.receiver.make_ack(f);
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

/// Time series of one flow, one value per sampling interval.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowTrace {
    /// Goodput over the interval ending at the sample, bit/s.
    pub throughput_bps: Vec<f64>,
    /// Congestion window at the sample, segments.
    pub cwnd: Vec<u32>,
    /// Smoothed RTT at the sample, s.
    pub srtt_s: Vec<f64>,
}

/// Time series of one monitored link.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkTrace {
    /// Link index.
    pub link: u32,
    /// Link name.
    pub name: String,
    /// Packets waiting at the sample.
    pub queue_pkts: Vec<u64>,
    /// Bytes waiting at the sample (frames: packets plus the link's framing).
    pub queue_bytes: Vec<u64>,
    /// Mean queuing delay of packets that left the queue during the interval, s.
    pub qdelay_s: Vec<f64>,
    /// Packets dropped (queue full, queue discipline or random) during the interval.
    pub drops: Vec<u64>,
    /// Packets CE-marked by the queue discipline during the interval.
    pub marks: Vec<u64>,
    /// Fraction of the interval the link spent transmitting (bytes that reached
    /// the far end, with the link's framing, over rate × interval).
    pub utilization: Vec<f64>,
}

/// Every trace of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Traces {
    /// Sampling interval, s.
    pub interval_s: f64,
    /// Sample times, s.
    pub time_s: Vec<f64>,
    /// One per flow.
    pub flows: Vec<FlowTrace>,
    /// One per monitored link.
    pub links: Vec<LinkTrace>,
    #[serde(skip)]
    last_flow_bytes: Vec<u64>,
    #[serde(skip)]
    last_link: Vec<(u64, u64, u64, f64, u64)>,
}

impl Traces {
    /// Empty traces shaped for `cfg`.
    pub fn new(cfg: &SimConfig) -> Traces {
        let Some(dt) = cfg.sample_interval else {
            return Traces::default();
        };
        // The number of samples is known: reserve it exactly (growth would waste up to half).
        let n = (cfg.duration / dt + 1) as usize;
        let links: Vec<LinkTrace> = cfg
            .topology
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| l.monitor)
            .map(|(i, l)| LinkTrace {
                link: i as u32,
                name: l.name.clone(),
                queue_pkts: Vec::with_capacity(n),
                queue_bytes: Vec::with_capacity(n),
                qdelay_s: Vec::with_capacity(n),
                drops: Vec::with_capacity(n),
                marks: Vec::with_capacity(n),
                utilization: Vec::with_capacity(n),
            })
            .collect();
        let flow = || FlowTrace {
            throughput_bps: Vec::with_capacity(n),
            cwnd: Vec::with_capacity(n),
            srtt_s: Vec::with_capacity(n),
        };
        Traces {
            interval_s: secs(dt),
            time_s: Vec::with_capacity(n),
            flows: (0..cfg.flows.len()).map(|_| flow()).collect(),
            last_flow_bytes: vec![0; cfg.flows.len()],
            last_link: vec![(0, 0, 0, 0.0, 0); links.len()],
            links,
        }
    }

    /// Record one sample at `now`.
    pub fn sample(&mut self, now: Time, flows: &[Flow], links: &[Link]) {
        self.time_s.push(secs(now));
        let dt = self.interval_s;
        for (i, f) in flows.iter().enumerate() {
            let t = &mut self.flows[i];
            let bytes = f.receiver.delivered_bytes;
            t.throughput_bps
                .push((bytes - self.last_flow_bytes[i]) as f64 * 8.0 / dt);
            self.last_flow_bytes[i] = bytes;
            t.cwnd.push(f.sender.tp.snd_cwnd);
            t.srtt_s.push(secs(f.sender.rtt.srtt()));
        }
        for (k, t) in self.links.iter_mut().enumerate() {
            let l = &links[t.link as usize];
            let (tx0, drops0, n0, sum0, marks0) = self.last_link[k];
            let (n, sum) = l
                .qdelay
                .as_ref()
                .map_or((0, 0.0), |h| (h.count(), h.mean_s() * h.count() as f64));
            let drops = l.counters.drops_queue + l.counters.drops_aqm + l.counters.drops_random;
            t.queue_pkts.push(l.queue_len() as u64);
            t.queue_bytes.push(l.queue_bytes());
            t.qdelay_s.push(if n > n0 {
                (sum - sum0) / (n - n0) as f64
            } else {
                0.0
            });
            t.drops.push(drops - drops0);
            t.marks.push(l.counters.marks - marks0);
            t.utilization
                .push(((l.wire_bytes() - tx0) as f64 * 8.0 / (l.rate_bps as f64 * dt)).min(1.0));
            self.last_link[k] = (l.wire_bytes(), drops, n, sum, l.counters.marks);
        }
    }
}
