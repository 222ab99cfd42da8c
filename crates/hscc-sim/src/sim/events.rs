//! The event loop's handlers: each event, a packet's arrival at the far end
//! of a link, its delivery, and the ACKs a receiver sends.

use super::lazy::NO_LINE;
use super::{Sim, HELD};
use crate::event::{Event, Fire};
use crate::limits::MAX_UDP_IN_NETWORK;
use crate::packet::{Kind, Packet};
use crate::tcp::receiver::RxAction;
use crate::time::Time;
use crate::web::WebModel;

impl Sim {
    #[inline]
    pub(super) fn dispatch(&mut self, ev: Event) {
        let now = self.net.now;
        match ev {
            Event::LinkArrive(l) => {
                // One call site of `arrive`, so that it stays inlined here.
                let link = &self.net.links[l as usize];
                let (special, lazy) = (link.special_arrivals(), link.lazy_line);
                let mut now = now;
                loop {
                    let (p, next) = if special {
                        match self.special_arrival(l, now) {
                            Some(p) => (p, None),
                            None => break,
                        }
                    } else {
                        if lazy != NO_LINE {
                            self.take_held(lazy, now);
                        }
                        self.net.links[l as usize].pop_arrival(now)
                    };
                    self.arrive(p);
                    if special {
                        continue;
                    }
                    let Some(t) = next else {
                        if lazy != NO_LINE {
                            self.arm_lazy(lazy, l);
                        }
                        break;
                    };
                    // The link's next packet arrives strictly before every other
                    // event: handle it now rather than through the queue (the
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
            Event::LazyLine(i) => self.lazy_line_due(i),
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
                // What was due strictly before `now`: the sample runs first at its time.
                if let Some(before) = now.checked_sub(1) {
                    self.take_all_held(before);
                }
                for (i, l) in self.net.links.iter_mut().enumerate() {
                    l.settle(now, i as u32, &mut self.net.q);
                }
                // What crossed strictly before `now`: the sample runs first at its time.
                self.net.credit_folds(now);
                let n = self.cfg.flows.len();
                self.traces.sample(now, &self.flows[..n], &self.net.links);
                if let Some(dt) = self.cfg.sample_interval {
                    self.net.q.push_first(now.saturating_add(dt), Event::Sample);
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
    pub(super) fn special_arrival(&mut self, l: u32, now: Time) -> Option<Packet> {
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
    pub(super) fn arrive(&mut self, p: Packet) {
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
    pub(super) fn deliver(&mut self, p: Packet) {
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
    /// through the event queue (the order of execution is the same either way).
    #[inline]
    pub(super) fn next_inline(&mut self, t: Time) -> bool {
        if t <= self.until && self.net.q.peek_time().is_none_or(|e| t < e) {
            self.net.now = t;
            self.events += 1;
            return true;
        }
        false
    }

    /// After an ACK or a timeout: log the sender's own changes; record
    /// congestion signals; free finished web slots.
    #[inline]
    pub(super) fn after_sender_event(&mut self, f: u32) {
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
    pub(super) fn release_if_done(&mut self, f: u32) {
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

    pub(super) fn send_ack(&mut self, f: u32) {
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
}
