//! Building a simulation from its configuration: links, routes, flow slots,
//! the first events, and which first links a flow may feed directly.

use hscc_cc::Shared;

use super::lazy::NO_LINE;
use super::{fold, seeded_sender, Flow, HostLine, Net, NetCounters, Routes, Sim, Traces, UdpFlow};
use crate::capture::{Capture, CapturePoint, Tap};
use crate::config::{ConfigError, SimConfig};
use crate::event::{Event, EventQueue};
use crate::link::Link;
use crate::rng::{component_rng, Component};
use crate::tcp::Receiver;
use crate::udp::{UdpSink, UdpSource};
use crate::web::WebSource;

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
        // Of those used by more, the ones whose every user is a configured
        // flow's data starting there.
        let mut firsts = vec![0u32; t.links.len()];
        for f in &flows {
            if let Some(&l) = routes.path(f.data_route).first() {
                firsts[l as usize] += 1;
            }
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
            q.push_first(dt, Event::Sample);
        }
        // Lazy host lines (`sim/lazy.rs`), after the captures, which keep a
        // link from taking segments in lazily (a capture's records of several
        // points are kept in the order offered).
        let mut lazy_links = Vec::new();
        for f in &mut flows {
            let Some(&l) = routes.path(f.data_route).first() else {
                continue;
            };
            let link = &mut links[l as usize];
            let shared = firsts[l as usize] >= 2 && users[l as usize] == firsts[l as usize];
            if shared && !link.special_arrivals() && !link.captured() {
                if link.lazy_line == NO_LINE {
                    link.lazy_line = lazy_links.len() as u32;
                    lazy_links.push(l);
                }
                f.lazy_line = link.lazy_line;
            }
        }
        // After the captures, which keep a link from folding.
        let folds = fold::folds(&cfg, &routes, &links);
        for &(a, b) in &folds {
            links[a as usize].feed_folded();
            links[b as usize].fold_into(a);
        }
        Ok(Sim {
            net: Net {
                now: 0,
                q,
                links,
                counters: NetCounters::default(),
                udp_in_network: 0,
                capture,
                folds,
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
            lazy_lines: lazy_links.iter().map(|_| HostLine::default()).collect(),
            lazy_links,
            shared,
            until: 0,
            runs_programs,
            program_fault: None,
        })
    }
}
