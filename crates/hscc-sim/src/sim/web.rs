//! Web traffic in the event loop: arrivals, flow slots, sessions and their objects.

use crate::config::FlowConfig;
use crate::event::Event;
use crate::limits::MAX_WEB_SLOTS;
use crate::tcp::Receiver;
use crate::time::Time;
use crate::web::{AfterResponse, Connection, Due, Object, Step};

use super::{seeded_sender, Flow, Sim, NO_SESSION};

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
    pub(super) fn new(
        source: u32,
        size: u64,
        start: Time,
        session: u32,
        request: bool,
    ) -> WebTransfer {
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

impl Sim {
    pub(super) fn web_arrival(&mut self, w: u32) {
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
    pub(super) fn web_slot_free(&self) -> bool {
        !self.free.is_empty() || self.flows.len() - self.cfg.flows.len() < MAX_WEB_SLOTS
    }

    /// Start web transfer `t` from `src` to `dst` now, in a free slot (the
    /// caller checked [`Sim::web_slot_free`]); `number` numbers its random
    /// stream. Returns the slot.
    pub(super) fn open_web_flow(
        &mut self,
        src: u32,
        dst: u32,
        number: u64,
        mut t: WebTransfer,
    ) -> u32 {
        let now = self.net.now;
        let w = t.source;
        let mut cfg: FlowConfig = self.web[w as usize].cfg.tcp.clone();
        (cfg.src, cfg.dst, cfg.size, cfg.start, cfg.stop) = (src, dst, Some(t.size), now, None);
        let (data_route, ack_route) = (self.routes.id(src, dst), self.routes.id(dst, src));
        let id = (1u64 << 40) + ((w as u64) << 32) + number;
        let slot = self.free.pop().unwrap_or(self.flows.len() as u32);
        let gen = self
            .flows
            .get(slot as usize)
            .map_or(0, |f| f.gen.wrapping_add(1));
        // A web transfer starts when it arrives (its arrivals are already random):
        // no start-up offset. Its access delay is drawn from its own stream.
        let sender = seeded_sender(slot, &cfg, self.cfg.seed, id, &self.shared);
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
    pub(super) fn web_session_event(&mut self, w: u32) {
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
    pub(super) fn start_object(&mut self, w: u32, id: u32, o: Object, request: bool) {
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
    pub(super) fn close(&mut self, connection: Option<Connection>) {
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
    pub(super) fn web_received(&mut self, f: u32) {
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
}
