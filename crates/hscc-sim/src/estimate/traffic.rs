//! The traffic model: each source's path and packet rate. Every TCP flow gets
//! the fair share of its tightest link, after the inelastic load (UDP, web)
//! there; UDP sends at its rate up to the slowest link of its path; a web
//! source offers arrival rate × mean size. Nothing is charged here: the steps
//! that follow price what this finds.

use std::collections::HashMap;

use crate::config::{FlowConfig, LinkSpec, SimConfig};
use crate::time::{secs, Time};
use crate::topology::Topology;
use crate::udp::UdpPattern;

use super::origins::{f, Field, Origins};
use super::web::WebShape;

/// One source's traffic as the model sees it.
pub(super) struct Source {
    /// Links of its data, in path order (a TCP flow's: those it reaches in the run, `reach.rs`).
    pub data: Vec<u32>,
    /// Links of its ACKs (TCP), in path order (likewise).
    pub acks: Vec<u32>,
    /// Data packets offered, per second.
    pub pps: f64,
    /// Wire size of a data packet, bytes.
    pub size: f64,
    /// ACKs per data packet (TCP), a ratio.
    pub ack_ratio: f64,
    /// Time it sends, s.
    pub active: f64,
    /// TCP data (twice the occupancy in slow start).
    pub tcp: bool,
    /// TCP: time its data waits at the sending host (largest access delay
    /// plus host jitter) and its ACKs wait for the sender (access delay), s;
    /// an event per packet when positive, except for data offered directly
    /// to a first link it has to itself (`direct`).
    pub host: (f64, f64),
    /// Its data goes straight onto a first link it has to itself (`Flow::direct`).
    pub direct: bool,
    /// Who its events are charged to.
    pub blame: Field,
}

/// A TCP flow's place in the network.
#[derive(Clone, Copy)]
pub(super) struct Share {
    /// Its fair share of its tightest link, or its receiver window's limit, bit/s.
    pub bps: f64,
    /// Its round-trip time without queueing, s.
    pub rtt: f64,
    /// The link whose queue it fills, if a link limits it (not its window).
    pub bottleneck: Option<u32>,
}

/// What the traffic model finds.
pub(super) struct Traffic {
    /// Routes asked for, (source node, destination node) → links.
    pub routes: HashMap<(u32, u32), Vec<u32>>,
    /// Every source: UDP flows, then web pairs (responses, requests), then TCP flows.
    pub sources: Vec<Source>,
    /// Per TCP flow: its data path and its ACK path (links).
    pub flow_paths: Vec<(Vec<u32>, Vec<u32>)>,
    /// Per TCP flow: its share of the network.
    pub shares: Vec<Share>,
    /// Per link: TCP flows whose data crosses it, a count (f64 for the arithmetic).
    pub tcp_n: Vec<f64>,
    /// Per link: whether its queue fills (inelastic load above its rate, or a TCP bottleneck).
    pub saturated: Vec<bool>,
    /// Per web source: the data path of each (server, client) pair.
    pub web_paths: Vec<Vec<Vec<u32>>>,
    /// Per web source: its rate field, to which its costs are charged.
    pub web_rate: Vec<Field>,
    /// The run's duration field, to which TCP flows' events are charged.
    pub run: Field,
}

impl Traffic {
    /// The TCP flows' sources (the last of `sources`).
    pub fn flow_sources(&self) -> &[Source] {
        &self.sources[self.sources.len() - self.flow_paths.len()..]
    }
}

/// The routes the model asks for, all at once (an unroutable pair: no links).
fn routes_asked(cfg: &SimConfig) -> HashMap<(u32, u32), Vec<u32>> {
    let mut pairs: Vec<(u32, u32)> = cfg.udp.iter().map(|u| (u.src, u.dst)).collect();
    for w in &cfg.web {
        for &s in &w.servers {
            pairs.extend(w.clients.iter().flat_map(|&c| [(s, c), (c, s)]));
        }
    }
    pairs.extend(
        cfg.flows
            .iter()
            .flat_map(|f| [(f.src, f.dst), (f.dst, f.src)]),
    );
    pairs.sort_unstable();
    pairs.dedup();
    let paths = cfg.topology.routes(&pairs);
    pairs
        .into_iter()
        .zip(paths)
        .map(|(p, r)| (p, r.unwrap_or_default()))
        .collect()
}

/// The traffic of `cfg`: sources, paths, fair shares and bottlenecks.
pub(super) fn model(cfg: &SimConfig, o: &Origins) -> Traffic {
    let t = &cfg.topology;
    let nl = t.links.len();
    let run = f("duration", format!("{} s", secs(cfg.duration)));
    let web_rate: Vec<Field> = cfg
        .web
        .iter()
        .enumerate()
        .map(|(i, w)| f(format!("web[{i}].rate"), crate::config::num(w.rate)))
        .collect();
    let routes = routes_asked(cfg);
    let route = |s: u32, d: u32| -> Vec<u32> { routes[&(s, d)].clone() };
    let path_min_rate = |p: &[u32]| p.iter().map(|&l| rate(t, l)).fold(f64::INFINITY, f64::min);

    // Inelastic load (UDP, web) and TCP flow counts per link.
    let mut fixed_bps = vec![0.0; nl];
    let mut tcp_n = vec![0.0f64; nl];
    let mut sources: Vec<Source> = Vec::new();
    for (i, u) in cfg.udp.iter().enumerate() {
        let data = route(u.src, u.dst);
        let bps = (u.rate_bps() as f64).min(path_min_rate(&data));
        let on_share = udp_on_share(&u.pattern);
        for &l in &data {
            fixed_bps[l as usize] += bps * on_share;
        }
        let active = active_s(u.start, u.stop, cfg.duration) * on_share;
        let size = u.packet_size as f64;
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
                        blame: web_rate[i].clone(),
                    });
                }
            }
        }
        web_paths.push(paths);
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
        saturated[l] = fixed_bps[l] >= rate(t, l as u32);
    }
    let mut shares = Vec::with_capacity(cfg.flows.len());
    for (fc, (data, acks)) in cfg.flows.iter().zip(&flow_paths) {
        let share = fair_share(t, fc, data, acks, &fixed_bps, &tcp_n);
        if let Some(b) = share.bottleneck {
            saturated[b as usize] = true;
        }
        shares.push(share);
    }
    let users = single_users(cfg, &sources, &flow_paths);
    let reached = super::reach::reached(cfg, &flow_paths);
    for (k, (fc, (data, acks))) in cfg.flows.iter().zip(&flow_paths).enumerate() {
        let wire = fc.wire_size() as f64;
        let active = active_s(fc.start, fc.stop, cfg.duration);
        let direct = data.first().is_some_and(|&l| users[l as usize] == 1);
        let (n_data, n_acks) = reached[k];
        sources.push(Source {
            data: data[..n_data].to_vec(),
            acks: acks[..n_acks].to_vec(),
            pps: shares[k].bps / (8.0 * wire),
            size: wire,
            ack_ratio: ack_ratio(fc),
            active,
            tcp: true,
            host: host_delays(fc),
            direct,
            blame: run.clone(),
        });
    }
    Traffic {
        routes,
        sources,
        flow_paths,
        shares,
        tcp_n,
        saturated,
        web_paths,
        web_rate,
        run,
    }
}

/// A TCP flow's fair share of its tightest link (what UDP and web leave,
/// split among the TCP flows crossing it), capped by its receiver window.
fn fair_share(
    t: &Topology,
    fc: &FlowConfig,
    data: &[u32],
    acks: &[u32],
    fixed_bps: &[f64],
    tcp_n: &[f64],
) -> Share {
    let access = 2.0 * secs(fc.access_delay.mean());
    let rtt: f64 = (data.iter().chain(acks).map(|&l| delay(t, l)).sum::<f64>() + access).max(1e-6);
    let (mut share, mut bottleneck) = (f64::INFINITY, None);
    for &l in data {
        let free = (rate(t, l) - fixed_bps[l as usize]).max(0.01 * rate(t, l));
        let s = free / tcp_n[l as usize].max(1.0);
        if s < share {
            (share, bottleneck) = (s, Some(l));
        }
    }
    if !share.is_finite() {
        share = 0.0;
    }
    let limit = fc.window_bytes() as f64 * 8.0 / rtt;
    if limit < share {
        (share, bottleneck) = (limit, None);
    }
    Share {
        bps: share,
        rtt,
        bottleneck,
    }
}

/// Per link, how many packet streams use it, as `Sim` counts them to find
/// links used by one flow's data alone (a web pair and a change count twice).
fn single_users(
    cfg: &SimConfig,
    sources: &[Source],
    flow_paths: &[(Vec<u32>, Vec<u32>)],
) -> Vec<u32> {
    let mut users = vec![0u32; cfg.topology.links.len()];
    for s in sources {
        for &l in s.data.iter().chain(&s.acks) {
            users[l as usize] += if s.tcp { 2 } else { 1 };
        }
    }
    for (data, acks) in flow_paths {
        for &l in data.iter().chain(acks) {
            users[l as usize] += 1;
        }
    }
    for c in &cfg.changes {
        users[c.link as usize] += 2;
    }
    users
}

/// The share of time an on-off UDP source is on (1 for the others), a ratio.
pub(super) fn udp_on_share(p: &UdpPattern) -> f64 {
    match p {
        UdpPattern::OnOff { on, off, .. } => *on as f64 / (*on as f64 + *off as f64),
        _ => 1.0,
    }
}

/// A link's rate, bit/s.
pub(super) fn rate(t: &Topology, l: u32) -> f64 {
    t.links[l as usize].cfg.rate_bps as f64
}

/// Link framing, added to every packet on the wire, bytes.
pub(super) fn framing(t: &Topology, l: u32) -> f64 {
    t.links[l as usize].cfg.framing as f64
}

/// A link's propagation delay, s.
pub(super) fn delay(t: &Topology, l: u32) -> f64 {
    secs(t.links[l as usize].cfg.delay)
}

/// Whether a link's jitter may reorder its packets (then they live in a heap).
pub(super) fn reorders(l: &LinkSpec) -> bool {
    l.cfg.jitter_reorders && l.cfg.jitter > 0
}

/// Host-line delays of a TCP flow: (data, ACKs), s.
fn host_delays(fc: &FlowConfig) -> (f64, f64) {
    let access = secs(fc.access_delay.max());
    (access + secs(fc.host_jitter), access)
}

/// Time a source is active within the run, s.
pub(super) fn active_s(start: Time, stop: Option<Time>, duration: Time) -> f64 {
    secs(stop.unwrap_or(duration).min(duration).saturating_sub(start))
}

/// ACKs per data segment, a ratio.
pub(super) fn ack_ratio(fc: &FlowConfig) -> f64 {
    if fc.delayed_ack {
        1.0 / fc.delack_segments as f64
    } else {
        1.0
    }
}
