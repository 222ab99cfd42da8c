//! The network: links and their buffers, host pairs, the topology kinds, and
//! BDP-relative buffers resolved once every source is routed.

use std::collections::HashMap;

use super::{bits_per_second, err, seconds};
use crate::config::{num, Buffer, ConfigError, LinkConfig, LossPoint, SimConfig, Topology};
use crate::limits::{
    MAX_HOPS, MAX_LINKS, MAX_NODES, MAX_PAIRS, MAX_QUEUE_BYTES, MAX_QUEUE_PACKETS, MAX_ROUTE_LINKS,
};
use crate::scenario::endpoints::{Endpoints, NodeIndex};
use crate::scenario::quantity::{BufferSpec, Seconds, BUFFER_BOUNDS};
use crate::scenario::spec::*;
use crate::time::{Time, SEC};
use crate::topology::{dumbbell, parking_lot, AccessSpec};

impl LinkSpecIn {
    /// The engine link; BDP buffers are resolved later (placeholder 1 packet).
    fn to_config(&self, at: &str) -> Result<(LinkConfig, Option<f64>), ConfigError> {
        let rate_bps = bits_per_second(&format!("{at}.rate"), self.rate)?;
        let (buffer, bdp) = buffer(&self.buffer, &format!("{at}.buffer"))?;
        let cfg = LinkConfig {
            rate_bps,
            delay: seconds(&format!("{at}.delay"), self.delay)?,
            buffer,
            loss: self.loss.0,
            jitter: seconds(&format!("{at}.jitter"), self.jitter)?,
            loss_point: self.loss_point,
            framing: self.framing,
            jitter_reorders: self.jitter_reorders,
            tick: seconds(&format!("{at}.tick"), self.tick)?,
            queue: crate::scenario::queue::queue_config(&self.queue, at)?,
        };
        Ok((cfg, bdp))
    }
}

fn buffer(b: &BufferSpec, at: &str) -> Result<(Buffer, Option<f64>), ConfigError> {
    match *b {
        BufferSpec::Packets(n) if (1..=MAX_QUEUE_PACKETS).contains(&n) => {
            Ok((Buffer::Packets(n), None))
        }
        BufferSpec::Bytes(n) if (1..=MAX_QUEUE_BYTES).contains(&n) => Ok((Buffer::Bytes(n), None)),
        BufferSpec::Bdp(x) if x.is_finite() && x > 0.0 && x <= 1e4 => {
            Ok((Buffer::Packets(1), Some(x)))
        }
        _ => Err(err(at, buffer_text(b), BUFFER_BOUNDS)),
    }
}

impl ScenarioSpec {
    /// The network, its endpoints, and per link: where it comes from and its BDP multiple, if any.
    pub(super) fn topology(
        &self,
        meta: &mut Vec<LinkMeta>,
    ) -> Result<(Topology, Endpoints), ConfigError> {
        match &self.topology {
            TopologySpec::Dumbbell(DumbbellSpec {
                bottleneck,
                reverse,
                pairs,
            }) => {
                if pairs.len() > MAX_PAIRS {
                    return Err(err(
                        "topology.pairs",
                        format!("{} pairs", pairs.len()),
                        format!("at most {MAX_PAIRS} host pairs"),
                    ));
                }
                let (fwd, fb) = bottleneck.to_config("topology.bottleneck")?;
                let (rev, rb) = match reverse {
                    Some(r) => r.to_config("topology.reverse")?,
                    None => (
                        LinkConfig {
                            loss: 0.0,
                            ..fwd.clone()
                        },
                        fb,
                    ),
                };
                let access = pairs
                    .iter()
                    .enumerate()
                    .map(|(i, p)| pair(p, &format!("topology.pairs[{i}]"), Some(bottleneck.delay)))
                    .collect::<Result<Vec<_>, _>>()?;
                if access.is_empty() {
                    return Err(err("topology.pairs", "[]", "at least one host pair"));
                }
                let db = dumbbell(fwd, rev, &access);
                // Links: the bottleneck (fwd, rev), then four access links per pair.
                meta.push(LinkMeta::of(bottleneck, "topology.bottleneck", fb));
                meta.push(match reverse {
                    Some(r) => LinkMeta::of(r, "topology.reverse", rb),
                    None => LinkMeta::of(bottleneck, "topology.bottleneck", rb),
                });
                for (i, p) in pairs.iter().enumerate() {
                    meta.extend(std::iter::repeat_n(
                        LinkMeta::of_pair(p, &format!("topology.pairs[{i}]")),
                        4,
                    ));
                }
                Ok((db.topology, Endpoints::Pairs(db.pairs)))
            }
            TopologySpec::ParkingLot(ParkingLotSpec {
                hops,
                link,
                access,
                long,
                cross,
            }) => {
                if *hops == 0 || *hops > MAX_HOPS {
                    return Err(err("topology.hops", hops, format!("1 to {MAX_HOPS} bottlenecks (a route crosses at most {MAX_ROUTE_LINKS} links)")));
                }
                let host_pairs = hops.checked_mul(*cross).and_then(|x| x.checked_add(*long));
                if host_pairs.is_none_or(|n| n > MAX_PAIRS) {
                    let (field, value) = if long > cross {
                        ("topology.long", long)
                    } else {
                        ("topology.cross", cross)
                    };
                    return Err(err(
                        field,
                        value,
                        format!("at most {MAX_PAIRS} host pairs in all (long + hops × cross)"),
                    ));
                }
                let (l, lb) = link.to_config("topology.link")?;
                let a = pair(access, "topology.access", None)?;
                let p = parking_lot(*hops, l, &a, *long, *cross);
                // Links are added as: every bottleneck (fwd, rev), then access links.
                meta.extend(std::iter::repeat_n(
                    LinkMeta::of(link, "topology.link", lb),
                    2 * hops,
                ));
                meta.resize(
                    p.topology.links.len(),
                    LinkMeta::of_pair(access, "topology.access"),
                );
                Ok((
                    p.topology,
                    Endpoints::Lot {
                        long: p.long,
                        cross: p.cross,
                    },
                ))
            }
            TopologySpec::Graph(GraphSpec { nodes, links }) => {
                let mut t = Topology::default();
                if nodes.len() > MAX_NODES || links.len() > MAX_LINKS / 2 {
                    let (field, n, max) = if nodes.len() > MAX_NODES {
                        ("topology.nodes", nodes.len(), MAX_NODES)
                    } else {
                        ("topology.links", links.len(), MAX_LINKS / 2)
                    };
                    return Err(err(field, format!("{n} entries"), format!("at most {max}")));
                }
                let index = NodeIndex::new(nodes)?;
                for n in nodes {
                    t.add_node(n.clone());
                }
                // Routes take the lower-indexed of parallel links, so a second
                // link between the same nodes would carry nothing; and link
                // names ("a-b:fwd") must be unique for changes to find them.
                let mut pairs_seen: HashMap<(u32, u32), usize> = HashMap::new();
                let mut names_seen: HashMap<String, usize> = HashMap::new();
                for (i, l) in links.iter().enumerate() {
                    let at = format!("topology.links[{i}]");
                    let (a, b) = (
                        index.find(&l.a, &format!("{at}.a"))?,
                        index.find(&l.b, &format!("{at}.b"))?,
                    );
                    if a == b {
                        return Err(err(
                            format!("{at}.b"),
                            format!("{:?}", l.b),
                            "a node other than a (a link joins two nodes)",
                        ));
                    }
                    let name = format!("{}-{}", l.a, l.b);
                    let earlier = pairs_seen
                        .insert((a.min(b), a.max(b)), i)
                        .or(names_seen.insert(name.clone(), i));
                    if let Some(j) = earlier {
                        return Err(err(at, format!("{name:?}"), format!("one link per pair of nodes, with a name of its own (topology.links[{j}] is {}-{})", links[j].a, links[j].b)));
                    }
                    let (fwd, fb) = l.fwd.to_config(&format!("{at}.fwd"))?;
                    let (rev, rb) = match &l.rev {
                        Some(r) => r.to_config(&format!("{at}.rev"))?,
                        None => (fwd.clone(), fb),
                    };
                    t.add_duplex(&name, a, b, fwd, rev, l.monitor);
                    meta.push(LinkMeta::of(&l.fwd, &format!("{at}.fwd"), fb));
                    meta.push(match &l.rev {
                        Some(r) => LinkMeta::of(r, &format!("{at}.rev"), rb),
                        None => LinkMeta::of(&l.fwd, &format!("{at}.fwd"), rb),
                    });
                }
                Ok((t, Endpoints::Names(index)))
            }
        }
    }
}

pub(super) fn topology_error(s: &str) -> Option<ConfigError> {
    let v: serde_json::Value = serde_json::from_str(s).ok()?;
    let mut t = v.get("topology")?.as_object()?.clone();
    let kind = t.remove("kind")?;
    let body = serde_json::Value::Object(t).to_string();
    let inner = match kind.as_str()? {
        "dumbbell" => crate::json::from_str::<DumbbellSpec>(&body).err(),
        "parking_lot" => crate::json::from_str::<ParkingLotSpec>(&body).err(),
        "graph" => crate::json::from_str::<GraphSpec>(&body).err(),
        _ => None,
    }?;
    Some(ConfigError {
        field: format!("topology.{}", inner.field),
        ..inner
    })
}

/// The access links of a host pair. On a dumbbell (`bottleneck_delay` given)
/// the sender's delay may come from the pair's base RTT instead.
fn pair(
    p: &PairSpec,
    at: &str,
    bottleneck_delay: Option<Seconds>,
) -> Result<AccessSpec, ConfigError> {
    if matches!(p.buffer, BufferSpec::Bdp(_)) {
        return Err(err(
            format!("{at}.buffer"),
            buffer_text(&p.buffer),
            "packets or bytes for access links, e.g. 1000pkts",
        ));
    }
    let recv_delay = seconds(&format!("{at}.recv_delay"), p.recv_delay)?;
    let delay = match (p.delay, p.rtt, bottleneck_delay) {
        (Some(_), Some(rtt), _) => return Err(err(format!("{at}.rtt"), format!("{} s", num(rtt.0)), "either delay or rtt, not both")),
        (Some(d), None, _) => d,
        (None, Some(rtt), Some(b)) => {
            let d = rtt.0 / 2.0 - b.0 - p.recv_delay.0;
            if d < 0.0 {
                return Err(err(format!("{at}.rtt"), format!("{} s", num(rtt.0)), format!("at least 2 × (bottleneck delay + recv_delay) = {} s", num(2.0 * (b.0 + p.recv_delay.0)))));
            }
            Seconds(d)
        }
        (None, Some(rtt), None) => return Err(err(format!("{at}.rtt"), format!("{} s", num(rtt.0)), "rtt is for dumbbell pairs; give delay here")),
        (None, None, _) => return Err(err(format!("{at}.delay"), "missing", "the sender's one-way access delay, e.g. 10ms (or rtt = the pair's base RTT on a dumbbell)")),
    };
    let (link, _) = LinkSpecIn {
        rate: p.rate,
        delay,
        buffer: p.buffer,
        loss: Default::default(),
        jitter: Seconds(0.0),
        jitter_reorders: false,
        loss_point: LossPoint::BeforeQueue,
        framing: 0,
        tick: Seconds(0.0),
        queue: QueueSpec::default(),
    }
    .to_config(at)?;
    Ok(AccessSpec {
        rate_bps: link.rate_bps,
        delay: link.delay,
        recv_delay,
        buffer: link.buffer,
    })
}

/// Where a link comes from in the scenario, and its BDP multiple if its buffer is one.
#[derive(Clone)]
pub(super) struct LinkMeta {
    pub(super) at: String,
    pub(super) buffer: String,
    pub(super) rate: String,
    pub(super) bdp: Option<f64>,
}

impl LinkMeta {
    pub(super) fn of(l: &LinkSpecIn, at: &str, bdp: Option<f64>) -> LinkMeta {
        LinkMeta {
            at: at.into(),
            buffer: buffer_text(&l.buffer),
            rate: num(l.rate.0),
            bdp,
        }
    }
    pub(super) fn of_pair(p: &PairSpec, at: &str) -> LinkMeta {
        LinkMeta {
            at: at.into(),
            buffer: buffer_text(&p.buffer),
            rate: num(p.rate.0),
            bdp: None,
        }
    }
}

pub(super) fn buffer_text(b: &BufferSpec) -> String {
    match b {
        BufferSpec::Packets(n) => format!("{n} packets"),
        BufferSpec::Bytes(n) => format!("{n} bytes"),
        BufferSpec::Bdp(x) => format!("{x} bdp"),
    }
}

/// Turn BDP-relative buffers into packets: rate × the largest base RTT of the
/// traffic crossing the link (TCP data or ACKs, UDP, web transfers), in
/// packets of the largest full packet size among it.
/// Every source is routed here, BDP buffers or not, so that an unreachable
/// destination is refused by the build, not later by `Sim::new`.
pub(super) fn resolve_bdp(cfg: &mut SimConfig, bdp: &[Option<f64>]) -> Result<(), ConfigError> {
    let t = &cfg.topology;
    let mut rtt_max: Vec<Time> = vec![0; t.links.len()];
    let mut wire: Vec<u32> = vec![0; t.links.len()];
    // Every traffic source's (src, dst, bytes per full packet).
    let mut ends: Vec<(u32, u32, u32, String)> = cfg
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| (f.src, f.dst, f.wire_size(), format!("flows[{i}]")))
        .collect();
    ends.extend(
        cfg.udp
            .iter()
            .enumerate()
            .map(|(i, u)| (u.src, u.dst, u.packet_size, format!("udp[{i}]"))),
    );
    for (i, w) in cfg.web.iter().enumerate() {
        for &s in &w.servers {
            for &c in &w.clients {
                ends.push((s, c, w.tcp.wire_size(), format!("web[{i}]")));
            }
        }
    }
    // Identical flows (a `count`) share a route: route each (src, dst, size) once.
    let mut seen = std::collections::HashSet::new();
    ends.retain(|e| seen.insert((e.0, e.1, e.2)));
    let pairs: Vec<(u32, u32)> = ends.iter().flat_map(|e| [(e.0, e.1), (e.1, e.0)]).collect();
    let mut routes = t.routes(&pairs).into_iter();
    for (_, _, size, at) in ends {
        // A missing route names the end it could not reach.
        let mut next_route = |end: &str| {
            routes
                .next()
                .expect("a route each way")
                .map_err(|e| ConfigError {
                    field: format!("{at}.{end}"),
                    ..e
                })
        };
        let fwd = next_route("dst")?;
        let rev = next_route("src")?;
        let rtt: Time = fwd
            .iter()
            .chain(&rev)
            .map(|&l| t.links[l as usize].cfg.delay)
            .sum();
        for &l in fwd.iter().chain(&rev) {
            rtt_max[l as usize] = rtt_max[l as usize].max(rtt);
            wire[l as usize] = wire[l as usize].max(size);
        }
    }
    for (l, x) in bdp.iter().enumerate() {
        let Some(x) = x else { continue };
        let spec = &cfg.topology.links[l];
        if wire[l] == 0 {
            return Err(err(
                format!("links[{}] ({}).buffer", l, spec.name),
                format!("{x} bdp"),
                "packets or bytes: no flow crosses this link to define its BDP",
            ));
        }
        let bytes = spec.cfg.rate_bps as f64 * (rtt_max[l] as f64 / SEC as f64) / 8.0;
        // In packets as this link carries them: with its framing bytes.
        let pkts = (x * bytes / (wire[l] + spec.cfg.framing) as f64)
            .round()
            .max(1.0) as u64;
        cfg.topology.links[l].cfg.buffer = Buffer::Packets(pkts);
    }
    Ok(())
}
