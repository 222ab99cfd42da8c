//! The running simulation: links, routes, flows and the event loop.

use crate::config::{ConfigError, SimConfig};
use crate::event::{Event, EventQueue, Fire};
use crate::link::{Link, Offer};
use crate::packet::{Kind, Packet};
use crate::results::{RunResult, Traces};
use crate::rng::{component_rng, Component};
use crate::tcp::receiver::RxAction;
use crate::tcp::sender::Wire;
use crate::tcp::{Receiver, Sender};
use crate::time::Time;

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
}

/// Links, routes and the event queue: what endpoints send into.
pub struct Net {
    /// Current simulated time.
    pub now: Time,
    /// Pending events.
    pub q: EventQueue,
    /// Every unidirectional link.
    pub links: Vec<Link>,
    /// Accounting.
    pub counters: NetCounters,
}

impl Net {
    /// Offer `p` to the link at hop `hop` of `route`.
    #[inline]
    fn forward(&mut self, p: &Packet, hop: u8, route: &[u32]) {
        let id = route[hop as usize];
        match self.links[id as usize].offer(p, hop, self.now, id, &mut self.q) {
            Offer::Accepted => {}
            Offer::QueueDrop => self.counters.dropped_queue += 1,
            Offer::RandomDrop => self.counters.dropped_random += 1,
        }
    }
}

/// One flow: its endpoints and routes.
pub struct Flow {
    /// Sender side.
    pub sender: Sender,
    /// Receiver side.
    pub receiver: Receiver,
    /// Links from sender to receiver.
    pub data_route: Vec<u32>,
    /// Links from receiver to sender.
    pub ack_route: Vec<u32>,
}

/// The sender's view of the network: its data route.
struct SenderWire<'a> {
    net: &'a mut Net,
    route: &'a [u32],
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
    fn send(&mut self, p: Packet) {
        self.net.counters.injected += 1;
        self.net.forward(&p, 0, self.route);
    }
}

/// A simulation ready to run.
pub struct Sim {
    /// The configuration it was built from.
    pub cfg: SimConfig,
    /// The network.
    pub net: Net,
    /// The flows, in configuration order.
    pub flows: Vec<Flow>,
    /// Sampled traces (when `sample_interval` is set).
    pub traces: Traces,
    /// Events processed so far.
    pub events: u64,
}

impl Sim {
    /// Build a simulation; rejects invalid configurations.
    pub fn new(cfg: SimConfig) -> Result<Sim, ConfigError> {
        cfg.validate()?;
        let links = cfg
            .topology
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| Link::new(&l.cfg, l.to, component_rng(cfg.seed, Component::Link, i as u64), l.monitor))
            .collect();
        let mut flows = Vec::with_capacity(cfg.flows.len());
        let mut q = EventQueue::default();
        for (i, f) in cfg.flows.iter().enumerate() {
            let data_route = cfg.topology.route(f.src, f.dst).map_err(|e| ConfigError { field: format!("flows[{i}].dst"), ..e })?;
            let ack_route = cfg.topology.route(f.dst, f.src).map_err(|e| ConfigError { field: format!("flows[{i}].src"), ..e })?;
            flows.push(Flow { sender: Sender::new(i as u32, f), receiver: Receiver::new(f), data_route, ack_route });
            q.push(f.start, Event::FlowStart(i as u32));
            if let Some(stop) = f.stop {
                q.push(stop, Event::FlowStop(i as u32));
            }
        }
        let traces = Traces::new(&cfg);
        if let Some(dt) = cfg.sample_interval {
            q.push(dt, Event::Sample);
        }
        Ok(Sim { net: Net { now: 0, q, links, counters: NetCounters::default() }, flows, traces, cfg, events: 0 })
    }

    /// Run to the configured duration and summarise.
    pub fn run(mut self) -> RunResult {
        let end = self.cfg.duration;
        self.run_until(end);
        self.finish()
    }

    /// Process every event up to and including time `t` (at most the duration).
    pub fn run_until(&mut self, t: Time) {
        let t = t.min(self.cfg.duration);
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

    /// Run on to `t`, then summarise.
    pub fn finish_after(mut self, t: Time) -> RunResult {
        self.run_until(t);
        self.finish()
    }

    /// Summarise the run so far.
    pub fn finish(mut self) -> RunResult {
        let now = self.net.now;
        for f in &mut self.flows {
            f.sender.account_slow_start(now);
        }
        RunResult::build(&self)
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        match ev {
            Event::LinkArrive(l) => {
                let p = self.net.links[l as usize].on_arrive(self.net.now, l, &mut self.net.q);
                let flow = &mut self.flows[p.flow as usize];
                let route = if p.kind == Kind::Data { &flow.data_route } else { &flow.ack_route };
                let next = p.hop + 1;
                if (next as usize) < route.len() {
                    self.net.forward(&p, next, route);
                } else {
                    self.net.counters.delivered += 1;
                    self.deliver(p);
                }
            }
            Event::Rto(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.sender.rto_timer.fire(self.net.now, &mut self.net.q, ev) == Fire::Expired {
                    flow.sender.on_rto(&mut SenderWire { net: &mut self.net, route: &flow.data_route });
                }
            }
            Event::Pace(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.sender.pace_timer.fire(self.net.now, &mut self.net.q, ev) == Fire::Expired {
                    flow.sender.on_pace(&mut SenderWire { net: &mut self.net, route: &flow.data_route });
                }
            }
            Event::DelAck(f) => {
                let flow = &mut self.flows[f as usize];
                if flow.receiver.delack.fire(self.net.now, &mut self.net.q, ev) == Fire::Expired {
                    self.send_ack(f);
                }
            }
            Event::FlowStart(f) => {
                let flow = &mut self.flows[f as usize];
                flow.sender.start(&mut SenderWire { net: &mut self.net, route: &flow.data_route });
            }
            Event::FlowStop(f) => {
                let flow = &mut self.flows[f as usize];
                flow.sender.stop(&mut SenderWire { net: &mut self.net, route: &flow.data_route });
            }
            Event::Sample => {
                for l in &mut self.net.links {
                    l.drain(self.net.now);
                }
                self.traces.sample(self.net.now, &self.flows, &self.net.links);
                if let Some(dt) = self.cfg.sample_interval {
                    self.net.q.push(self.net.now + dt, Event::Sample);
                }
            }
        }
    }

    #[inline]
    fn deliver(&mut self, p: Packet) {
        let f = p.flow;
        let flow = &mut self.flows[f as usize];
        match p.kind {
            Kind::Ack => flow.sender.on_ack(&p, &mut SenderWire { net: &mut self.net, route: &flow.data_route }),
            Kind::Data => {
                let before = flow.receiver.rcv_nxt;
                let action = flow.receiver.on_data(&p, self.net.now);
                let c = &mut flow.sender.counters;
                c.delivered_segs += flow.receiver.rcv_nxt - before;
                c.delivered_bytes = flow.receiver.delivered_bytes;
                match action {
                    RxAction::AckNow => self.send_ack(f),
                    RxAction::Delay(t) => {
                        if !flow.receiver.delack.armed() {
                            flow.receiver.delack.arm(t, &mut self.net.q, Event::DelAck(f));
                        }
                    }
                }
            }
        }
    }

    fn send_ack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let ack = flow.receiver.make_ack(f);
        flow.sender.counters.acks_sent += 1;
        self.net.counters.injected += 1;
        self.net.forward(&ack, 0, &flow.ack_route);
    }

    /// Packets currently inside the network (queued or propagating).
    pub fn in_network(&self) -> u64 {
        self.net.links.iter().map(|l| l.in_flight() as u64).sum()
    }

    /// Check packet conservation: injected = delivered + dropped + in the network.
    pub fn check_conservation(&self) -> Result<(), String> {
        let c = self.net.counters;
        let rhs = c.delivered + c.dropped_queue + c.dropped_random + self.in_network();
        if c.injected != rhs {
            return Err(format!("injected {} != delivered {} + dropped {}+{} + in network {}", c.injected, c.delivered, c.dropped_queue, c.dropped_random, self.in_network()));
        }
        for (i, f) in self.flows.iter().enumerate() {
            f.sender.check_scoreboard().map_err(|e| format!("flow {i}: {e}"))?;
        }
        Ok(())
    }
}
