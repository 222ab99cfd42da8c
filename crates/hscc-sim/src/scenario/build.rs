//! [`ScenarioSpec::build`]: a scenario as written becomes the engine's
//! [`SimConfig`], every value checked, with errors that name the field as the
//! scenario writes it, the value and what is allowed.

use std::collections::{BTreeMap, HashMap};

use hscc_cc::{CcError, CcParams, ParamError};

use super::dist::DistSpec;
use super::endpoints::{Endpoints, NodeIndex};
use super::quantity::{BufferSpec, Bytes, ParamValue, Rate, Seconds, BUFFER_BOUNDS};
use super::spec::*;
use crate::capture::{CaptureConfig, CaptureFile, CapturePoint, MAX_SNAPLEN, MIN_SNAPLEN};
use crate::config::{
    check_period, num, param_error, Buffer, ConfigError, DelayDist, FlowConfig, LinkChange,
    LinkConfig, LossDetection, LossPoint, SimConfig, Topology, MAX_REORDERING,
};
use crate::estimate::{estimate, Estimate, Origins};
use crate::limits::{
    BuildLimits, MAX_FLOWS, MAX_HOPS, MAX_LINKS, MAX_NODES, MAX_PAIRS, MAX_QUEUE_BYTES,
    MAX_QUEUE_PACKETS, MAX_ROUTE_LINKS,
};
use crate::time::{from_secs, Time, SEC};
use crate::topology::{dumbbell, parking_lot, AccessSpec};
use crate::udp::{UdpConfig, UdpPattern};
use crate::web::{Sessions, SizeDist, WebConfig, WebModel};
use hscc_model::flow::{MSS_ALLOWED, MSS_RANGE};

pub(super) fn err(
    field: impl Into<String>,
    value: impl ToString,
    allowed: impl Into<String>,
) -> ConfigError {
    ConfigError {
        field: field.into(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

fn seconds(field: &str, Seconds(v): Seconds) -> Result<Time, ConfigError> {
    if !(0.0..=1e7).contains(&v) {
        return Err(err(field, num(v), "a time from 0 to 10^7 seconds"));
    }
    Ok(from_secs(v))
}

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
            queue: super::queue::queue_config(&self.queue, at)?,
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
    /// Parse from JSON.
    pub fn from_json(s: &str) -> Result<ScenarioSpec, ConfigError> {
        crate::json::from_str(s).map_err(|e| {
            if e.field == "topology" || e.field.starts_with("topology.") {
                topology_error(s).unwrap_or(e)
            } else {
                e
            }
        })
    }

    /// Build the engine configuration within the default [`BuildLimits`].
    pub fn build(&self) -> Result<SimConfig, ConfigError> {
        self.build_with(&BuildLimits::default())
    }

    /// Build the engine configuration; refuse a run whose estimate passes
    /// `limits`, naming the scenario field that drives its cost.
    pub fn build_with(&self, limits: &BuildLimits) -> Result<SimConfig, ConfigError> {
        let (cfg, origins) = self.build_unchecked()?;
        estimate(&cfg, &origins).check(limits)?;
        Ok(cfg)
    }

    /// What the run would cost (only the hard caps apply), with the fields
    /// to blame named as the scenario writes them.
    pub fn estimate(&self) -> Result<Estimate, ConfigError> {
        Ok(self.build_estimated()?.1)
    }

    /// The engine configuration and its estimate, from one build.
    pub(super) fn build_estimated(&self) -> Result<(SimConfig, Estimate), ConfigError> {
        let (cfg, origins) = self.build_unchecked()?;
        let e = estimate(&cfg, &origins);
        Ok((cfg, e))
    }

    fn build_unchecked(&self) -> Result<(SimConfig, Origins), ConfigError> {
        super::resolve::count_build();
        self.check_names()?;
        let duration = seconds("duration", self.duration)?;
        if duration == 0 {
            return Err(err("duration", num(self.duration.0), "a positive duration"));
        }
        let sample_interval = match self.output.sample_interval {
            _ if self.output.traces.is_empty() => None,
            v if v.0 > 0.0 => Some(seconds("output.sample_interval", v)?),
            v => {
                return Err(err(
                    "output.sample_interval",
                    num(v.0),
                    "a positive interval",
                ))
            }
        };
        let mut meta: Vec<LinkMeta> = Vec::new();
        let (topology, endpoints) = self.topology(&mut meta)?;
        let mut o = Origins {
            link_buffer: meta
                .iter()
                .map(|m| (format!("{}.buffer", m.at), m.buffer.clone()))
                .collect(),
            link_rate: meta
                .iter()
                .map(|m| (format!("{}.rate", m.at), m.rate.clone()))
                .collect(),
            topology: match &self.topology {
                TopologySpec::Dumbbell(d) => {
                    ("topology.pairs".into(), format!("{} pairs", d.pairs.len()))
                }
                TopologySpec::ParkingLot(p) => ("topology.cross".into(), p.cross.to_string()),
                TopologySpec::Graph(g) => {
                    ("topology.nodes".into(), format!("{} nodes", g.nodes.len()))
                }
            },
            ..Origins::default()
        };
        let total: usize = self
            .flows
            .iter()
            .map(|f| f.count)
            .fold(0, usize::saturating_add);
        if let Some((i, _)) = self
            .flows
            .iter()
            .enumerate()
            .max_by_key(|(_, f)| f.count)
            .filter(|_| total > MAX_FLOWS)
        {
            return Err(err(
                format!("flows[{i}].count"),
                self.flows[i].count,
                format!("at most {MAX_FLOWS} flows in all (the scenario asks for {total})"),
            ));
        }
        let mut flows = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            let (mut src, mut dst) = endpoints.resolve(&f.place(), &format!("flows[{i}]"))?;
            if f.reverse {
                (src, dst) = (dst, src);
            }
            if f.count == 0 || f.count > MAX_FLOWS {
                return Err(err(at("count"), f.count, format!("1 to {MAX_FLOWS} flows")));
            }
            let mut c = FlowConfig::bulk(
                src,
                dst,
                algorithm(&f.algorithm, &f.params, &format!("flows[{i}]"))?,
            );
            Self::tcp_options(f, &mut c, &at)?;
            c.start = seconds(&at("start"), f.start)?;
            c.stop = f.stop.map(|s| seconds(&at("stop"), s)).transpose()?;
            c.size = f.size.map(|b| b.0);
            c.validate(&at)?;
            check_period(&at, c.start, c.stop, duration)?;
            for _ in 0..f.count {
                o.flow_count.push((at("count"), f.count.to_string()));
                o.flow_init_cwnd
                    .push((at("init_cwnd"), f.init_cwnd.to_string()));
                flows.push(c.clone());
            }
        }
        let labels = self.flow_labels();
        if let Some(log) = &self.output.cc_log {
            mark_cc_log(log, &labels, &mut flows)?;
            o.cc_log = (
                "output.cc_log.flows".into(),
                format!("{} flows", flows.iter().filter(|f| f.cc_log).count()),
            );
        }
        let mut udp = Vec::new();
        for (i, u) in self.udp.iter().enumerate() {
            let at = format!("udp[{i}]");
            let (src, dst) = endpoints.resolve(&u.place(), &at)?;
            let rate = bits_per_second(&format!("{at}.rate"), u.rate)?;
            let period = |k: &str, v: Option<Seconds>| match v {
                Some(x) if x.0 > 0.0 => seconds(&format!("{at}.{k}"), x),
                Some(x) => Err(err(
                    format!("{at}.{k}"),
                    format!("{} s", num(x.0)),
                    "a positive period",
                )),
                None => Err(err(
                    format!("{at}.{k}"),
                    "missing",
                    "the on and off periods of an onoff source, e.g. 10s",
                )),
            };
            let pattern = match u.pattern {
                UdpPatternSpec::Cbr => UdpPattern::Cbr { rate_bps: rate },
                UdpPatternSpec::Poisson => UdpPattern::Poisson { rate_bps: rate },
                UdpPatternSpec::Onoff => UdpPattern::OnOff {
                    rate_bps: rate,
                    on: period("on", u.on)?,
                    off: period("off", u.off)?,
                },
            };
            if u.pattern != UdpPatternSpec::Onoff {
                if let Some((k, v)) = [("on", u.on), ("off", u.off)]
                    .into_iter()
                    .find_map(|(k, v)| v.map(|v| (k, v)))
                {
                    return Err(err(
                        format!("{at}.{k}"),
                        format!("{} s", num(v.0)),
                        "on/off periods only with pattern = \"onoff\"",
                    ));
                }
            }
            if !(28..=65_535).contains(&u.packet_size) {
                return Err(err(
                    format!("{at}.packet_size"),
                    u.packet_size,
                    "28 to 65535 bytes",
                ));
            }
            let start = seconds(&format!("{at}.start"), u.start)?;
            let stop = u
                .stop
                .map(|s| seconds(&format!("{at}.stop"), s))
                .transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            udp.push(UdpConfig {
                src,
                dst,
                pattern,
                packet_size: u.packet_size,
                start,
                stop,
            });
            o.udp_rate.push((format!("{at}.rate"), num(u.rate.0)));
            o.udp_group
                .push(("udp".into(), format!("{} flows", self.udp.len())));
        }
        for (i, v) in self.voip.iter().enumerate() {
            let at = format!("voip[{i}]");
            let (a, b) = endpoints.resolve(&v.place(), &at)?;
            let interval = v.interval.0;
            if !(interval > 0.0 && interval <= 1.0) {
                return Err(err(
                    format!("{at}.interval"),
                    format!("{} s", num(interval)),
                    "a packet interval above 0, at most 1 s",
                ));
            }
            let voice = bits_per_second(&format!("{at}.rate"), v.rate)?;
            // In f64: a huge rate or header must be refused, not wrap a u32.
            let size = (voice as f64 * interval / 8.0).round() + v.header as f64;
            if !(28.0..=65_535.0).contains(&size) {
                return Err(err(format!("{at}.rate"), num(v.rate.0), format!("a rate whose packets every {} s, with {} bytes of headers, fit 28 to 65535 bytes", num(interval), v.header)));
            }
            let size = size as u32;
            let wire_rate = (size as f64 * 8.0 / interval).round() as u64;
            let start = seconds(&format!("{at}.start"), v.start)?;
            let stop = v
                .stop
                .map(|s| seconds(&format!("{at}.stop"), s))
                .transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            for (src, dst) in [(a, b), (b, a)] {
                udp.push(UdpConfig {
                    src,
                    dst,
                    pattern: UdpPattern::Cbr {
                        rate_bps: wire_rate,
                    },
                    packet_size: size,
                    start,
                    stop,
                });
                o.udp_rate
                    .push((format!("{at}.interval"), format!("{} s", num(interval))));
                o.udp_group
                    .push(("voip".into(), format!("{} calls", self.voip.len())));
            }
        }
        let mut web = Vec::new();
        for (i, w) in self.web.iter().enumerate() {
            let at = format!("web[{i}]");
            let (servers, clients) = endpoints.hosts(w, &at)?;
            let cc = algorithm(&w.algorithm, &w.params, &at)?;
            let sessions = w.model == WebModelSpec::Sessions;
            let default_size = if sessions {
                DistSpec::Packmime
            } else {
                DistSpec::Pareto {
                    mean: Bytes(12_000),
                    shape: 1.2,
                }
            };
            let size = size_dist(
                &w.size.unwrap_or(default_size),
                SizeDist::PackmimeResponse,
                &format!("{at}.size"),
            )?;
            let model = if sessions {
                let request_size = size_dist(
                    &w.request_size.unwrap_or(DistSpec::Packmime),
                    SizeDist::PackmimeRequest,
                    &format!("{at}.request_size"),
                )?;
                WebModel::Sessions(Sessions {
                    request_size,
                    persistent: w.persistent.0,
                    server_delay: w.server_delay,
                })
            } else {
                for (field, given) in [
                    ("request_size", w.request_size.is_some()),
                    ("persistent", w.persistent.0 != 0.0),
                    ("server_delay", !w.server_delay),
                ] {
                    if given {
                        return Err(err(
                            format!("{at}.{field}"),
                            "given",
                            "only with model = \"sessions\"",
                        ));
                    }
                }
                WebModel::Transfers
            };
            let start = seconds(&format!("{at}.start"), w.start)?;
            let stop = w
                .stop
                .map(|s| seconds(&format!("{at}.stop"), s))
                .transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            let tcp = recovery_preset(FlowConfig::bulk(0, 0, cc), w.loss_detection);
            web.push(WebConfig {
                servers,
                clients,
                rate: w.rate,
                size,
                tcp,
                start,
                stop,
                model,
            });
        }
        let mut changes = Vec::new();
        for (i, c) in self.changes.iter().enumerate() {
            let at = format!("changes[{i}]");
            let Some(link) = topology.links.iter().position(|l| l.name == c.link) else {
                let names: Vec<&str> = topology
                    .links
                    .iter()
                    .map(|l| l.name.as_str())
                    .take(12)
                    .collect();
                return Err(err(
                    format!("{at}.link"),
                    format!("{:?}", c.link),
                    format!("a link name such as {}", names.join(", ")),
                ));
            };
            let rate_bps = c
                .rate
                .map(|r| bits_per_second(&format!("{at}.rate"), r))
                .transpose()?;
            let delay = c
                .delay
                .map(|d| seconds(&format!("{at}.delay"), d))
                .transpose()?;
            if rate_bps.is_none() && delay.is_none() {
                return Err(err(
                    format!("{at}.rate"),
                    "missing",
                    "a new rate, a new delay, or both",
                ));
            }
            let when = seconds(&format!("{at}.at"), c.at)?;
            check_period(&|_: &str| format!("{at}.at"), when, None, duration)?;
            changes.push(LinkChange {
                at: when,
                link: link as u32,
                rate_bps,
                delay,
            });
        }
        if self.flows.is_empty()
            && self.udp.is_empty()
            && self.voip.is_empty()
            && self.web.is_empty()
        {
            return Err(err(
                "flows",
                "[]",
                "at least one [[flows]], [[udp]], [[voip]] or [[web]] entry",
            ));
        }
        let capture = self
            .output
            .pcap
            .as_ref()
            .map(|p| capture(p, &labels, &topology))
            .transpose()?
            .unwrap_or_default();
        if !capture.is_empty() {
            o.capture = capture_origin(self.output.pcap.as_ref().expect("given"));
        }
        let mut cfg = SimConfig {
            topology,
            flows,
            udp,
            web,
            changes,
            duration,
            seed: self.seed,
            sample_interval,
            capture,
        };
        // Caps first: resolving BDP buffers routes every source.
        // The engine names its own field; the scenario writes it under [output].
        let output = |e: ConfigError| {
            if e.field == "sample_interval" {
                ConfigError {
                    field: "output.sample_interval".into(),
                    ..e
                }
            } else {
                e
            }
        };
        cfg.check_caps().map_err(output)?;
        let bdp: Vec<Option<f64>> = meta.iter().map(|m| m.bdp).collect();
        resolve_bdp(&mut cfg, &bdp)?;
        cfg.validate().map_err(output)?;
        Ok((cfg, o))
    }

    /// The network, its endpoints, and per link: where it comes from and its BDP multiple, if any.
    fn topology(&self, meta: &mut Vec<LinkMeta>) -> Result<(Topology, Endpoints), ConfigError> {
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

impl ScenarioSpec {
    /// The TCP options of a flow entry.
    fn tcp_options(
        f: &FlowSpec,
        c: &mut FlowConfig,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ConfigError> {
        c.mss = u32::try_from(f.mss.0)
            .ok()
            .filter(|m| MSS_RANGE.contains(m))
            .ok_or_else(|| err(at("mss"), f.mss.0, MSS_ALLOWED))?;
        c.rwnd = f.rwnd.map(|b| b.0);
        c.sack = f.sack;
        c.recovery = f.recovery;
        *c = recovery_preset(c.clone(), f.loss_detection);
        (c.dsack, c.undo, c.frto) = (
            f.dsack.unwrap_or(c.dsack),
            f.undo.unwrap_or(c.undo),
            f.frto.unwrap_or(c.frto),
        );
        c.reordering = Some(f.reordering)
            .filter(|r| (1..=MAX_REORDERING).contains(r))
            .ok_or_else(|| {
                err(
                    at("reordering"),
                    f.reordering,
                    format!("1 to {MAX_REORDERING} segments"),
                )
            })?;
        let max = match (f.max_reordering, f.loss_detection) {
            (Some(m), _) => m,
            (None, LossDetection::Rack) => c.max_reordering.max(c.reordering),
            (None, LossDetection::DupAck) => c.reordering,
        };
        c.max_reordering = Some(max)
            .filter(|r| (c.reordering..=MAX_REORDERING).contains(r))
            .ok_or_else(|| {
                err(
                    at("max_reordering"),
                    max,
                    format!(
                        "`reordering` ({}) to {MAX_REORDERING} segments",
                        c.reordering
                    ),
                )
            })?;
        c.init_cwnd = f.init_cwnd;
        c.min_rto = seconds(&at("min_rto"), f.min_rto)?;
        c.rto_estimator = f.rto_estimator;
        c.initial_rto = c.initial_rto.max(c.min_rto);
        c.init_ssthresh = f.init_ssthresh;
        c.ack_counting = f.ack_counting;
        c.ssthresh_from = f.ssthresh_from;
        c.delayed_ack = f.delayed_ack;
        c.delack_segments = f.delack_segments;
        c.delack_timeout = seconds(&at("delack_timeout"), f.delack_timeout)?;
        c.quick_acks = f.quick_acks;
        c.pacing = f.pacing;
        c.timestamps = f.timestamps;
        c.host_jitter = seconds(&at("host_jitter"), f.host_jitter)?;
        c.start_jitter = seconds(&at("start_jitter"), f.start_jitter)?;
        c.ecn = f.ecn;
        c.access_delay = match f.access_delay {
            DistSpec::Fixed(d) => DelayDist::Fixed(seconds(&at("access_delay"), d)?),
            DistSpec::Uniform { min, max } => DelayDist::Uniform {
                min: seconds(&at("access_delay.min"), min)?,
                max: seconds(&at("access_delay.max"), max)?,
            },
            _ => {
                return Err(err(
                    at("access_delay.dist"),
                    "given",
                    "a time, or { dist = \"uniform\", min, max }",
                ))
            }
        };
        Ok(())
    }
}

/// The loss-recovery preset `loss_detection` names (see the field).
fn recovery_preset(c: FlowConfig, d: LossDetection) -> FlowConfig {
    match d {
        LossDetection::Rack => c.with_linux_recovery(),
        LossDetection::DupAck => c.with_classic_recovery(),
    }
}

/// The engine index of the TCP flow `label` names (`flow_labels`), or the
/// error for `field` that lists the labels there are.
fn flow_by_label(labels: &[String], label: &str, field: String) -> Result<usize, ConfigError> {
    labels.iter().position(|l| l == label).ok_or_else(|| {
        let allowed = if labels.is_empty() {
            "the label of a TCP flow, but the scenario has no [[flows]]".to_string()
        } else {
            let some: Vec<String> = labels.iter().take(8).map(|l| format!("{l:?}")).collect();
            let more = if labels.len() > 8 { ", …" } else { "" };
            format!(
                "the label of a TCP flow as in the results: {}{more}",
                some.join(", ")
            )
        };
        err(field, format!("{label:?}"), allowed)
    })
}

/// Turn on the per-ACK log of the flows `log` names.
fn mark_cc_log(
    log: &CcLogSpec,
    labels: &[String],
    flows: &mut [FlowConfig],
) -> Result<(), ConfigError> {
    if log.flows.is_empty() {
        return Err(err(
            "output.cc_log.flows",
            "[]",
            "at least one flow label; leave cc_log out to log nothing",
        ));
    }
    for (j, name) in log.flows.iter().enumerate() {
        flows[flow_by_label(labels, name, format!("output.cc_log.flows[{j}]"))?].cc_log = true;
    }
    Ok(())
}

/// `[output] pcap` as the engine's captures: flows by label, links by name.
fn capture(
    p: &PcapSpec,
    labels: &[String],
    topology: &Topology,
) -> Result<CaptureConfig, ConfigError> {
    let mut files = Vec::new();
    // A file name of its own: the index, and the name in safe characters, cut short.
    let file = |kind: &str, i: usize, name: &str| {
        format!(
            "{kind}-{i}-{}.pcap",
            name.chars()
                .take(64)
                .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                })
                .collect::<String>()
        )
    };
    let one_of = |names: &mut dyn Iterator<Item = &str>| {
        names
            .take(8)
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (k, label) in p.flows.iter().enumerate() {
        let i = flow_by_label(labels, label, format!("output.pcap.flows[{k}]"))?;
        if files
            .iter()
            .any(|f: &CaptureFile| f.at == CapturePoint::Flow(i as u32))
        {
            return Err(err(
                format!("output.pcap.flows[{k}]"),
                format!("{label:?}"),
                "each flow once",
            ));
        }
        files.push(CaptureFile {
            at: CapturePoint::Flow(i as u32),
            file: file("flow", i, label),
        });
    }
    for (k, name) in p.links.iter().enumerate() {
        let Some(i) = topology.links.iter().position(|l| &l.name == name) else {
            return Err(err(
                format!("output.pcap.links[{k}]"),
                format!("{name:?}"),
                format!(
                    "a link name such as {}",
                    one_of(&mut topology.links.iter().map(|l| l.name.as_str()))
                ),
            ));
        };
        if files
            .iter()
            .any(|f: &CaptureFile| f.at == CapturePoint::Link(i as u32))
        {
            return Err(err(
                format!("output.pcap.links[{k}]"),
                format!("{name:?}"),
                "each link once",
            ));
        }
        files.push(CaptureFile {
            at: CapturePoint::Link(i as u32),
            file: file("link", i, name),
        });
    }
    if !(MIN_SNAPLEN..=MAX_SNAPLEN).contains(&p.snaplen) {
        return Err(err("output.pcap.snaplen", p.snaplen, format!("{MIN_SNAPLEN} to {MAX_SNAPLEN} bytes (IPv4 and the longest TCP header, up to the largest IPv4 packet)")));
    }
    Ok(CaptureConfig {
        files,
        snaplen: p.snaplen,
    })
}

/// The scenario fields the captures' cost is charged to.
fn capture_origin(p: &PcapSpec) -> crate::estimate::CaptureOrigin {
    let list = |v: &[String]| {
        format!(
            "[{}]",
            v.iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    crate::estimate::CaptureOrigin {
        flows: ("output.pcap.flows".into(), list(&p.flows)),
        links: ("output.pcap.links".into(), list(&p.links)),
    }
}

/// Web sizes as the engine draws them; `packmime` is PackMime's own distribution of this quantity.
fn size_dist(d: &DistSpec<Bytes>, packmime: SizeDist, at: &str) -> Result<SizeDist, ConfigError> {
    Ok(match *d {
        DistSpec::Fixed(Bytes(n)) => SizeDist::Fixed(n),
        DistSpec::Exponential { mean } => SizeDist::Exponential {
            mean: mean.0 as f64,
        },
        DistSpec::Pareto { mean, shape } => SizeDist::Pareto {
            shape,
            mean: mean.0 as f64,
        },
        DistSpec::Packmime => packmime,
        DistSpec::Uniform { .. } => {
            return Err(err(
                format!("{at}.dist"),
                "\"uniform\"",
                "\"fixed\", \"exponential\", \"pareto\" or \"packmime\" for web sizes",
            ))
        }
    })
}

fn topology_error(s: &str) -> Option<ConfigError> {
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

/// The algorithm `name` with `params` set, each in range and every pair in order.
fn algorithm(
    name: &str,
    params: &BTreeMap<String, ParamValue>,
    at: &str,
) -> Result<CcParams, ConfigError> {
    let mut cc = CcParams::from_name(name).map_err(|e| {
        err(
            format!("{at}.algorithm"),
            format!("{name:?}"),
            cc_allowed(&e),
        )
    })?;
    for (k, ParamValue(v)) in params {
        cc.set(k, *v)
            .map_err(|e| err(format!("{at}.params.{k}"), v, cc_allowed(&e)))?;
    }
    cc.check()
        .map_err(|e| param_error(&|k: &str| format!("{at}.params.{k}"), &e))?;
    Ok(cc)
}

fn cc_allowed(e: &CcError) -> String {
    match e {
        CcError::UnknownAlgorithm { known, .. } => format!("one of: {}", known.join(", ")),
        CcError::Param {
            algorithm,
            error: ParamError::Unknown { known, .. },
        } if known.is_empty() => format!("no parameters: {algorithm} has none"),
        CcError::Param {
            algorithm,
            error: ParamError::Unknown { known, .. },
        } => format!("a parameter of {algorithm}: {}", known.join(", ")),
        CcError::Param {
            error: ParamError::Invalid { allowed, .. },
            ..
        } => allowed.clone(),
    }
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
struct LinkMeta {
    at: String,
    buffer: String,
    rate: String,
    bdp: Option<f64>,
}

impl LinkMeta {
    fn of(l: &LinkSpecIn, at: &str, bdp: Option<f64>) -> LinkMeta {
        LinkMeta {
            at: at.into(),
            buffer: buffer_text(&l.buffer),
            rate: num(l.rate.0),
            bdp,
        }
    }
    fn of_pair(p: &PairSpec, at: &str) -> LinkMeta {
        LinkMeta {
            at: at.into(),
            buffer: buffer_text(&p.buffer),
            rate: num(p.rate.0),
            bdp: None,
        }
    }
}

fn buffer_text(b: &BufferSpec) -> String {
    match b {
        BufferSpec::Packets(n) => format!("{n} packets"),
        BufferSpec::Bytes(n) => format!("{n} bytes"),
        BufferSpec::Bdp(x) => format!("{x} bdp"),
    }
}

fn bits_per_second(field: &str, Rate(v): Rate) -> Result<u64, ConfigError> {
    if !(1.0..=1e13).contains(&v) {
        return Err(err(field, num(v), "a rate from 1 bit/s to 10 Tbit/s"));
    }
    Ok(v.round() as u64)
}

/// Turn BDP-relative buffers into packets: rate × the largest base RTT of the
/// traffic crossing the link (TCP data or ACKs, UDP, web transfers), in
/// packets of the largest full packet size among it.
/// Every source is routed here, BDP buffers or not, so that an unreachable
/// destination is refused by the build, not later by `Sim::new`.
fn resolve_bdp(cfg: &mut SimConfig, bdp: &[Option<f64>]) -> Result<(), ConfigError> {
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
    for (src, dst, size, at) in ends {
        let fwd = t.route(src, dst).map_err(|e| ConfigError {
            field: format!("{at}.dst"),
            ..e
        })?;
        let rev = t.route(dst, src).map_err(|e| ConfigError {
            field: format!("{at}.src"),
            ..e
        })?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{AckCounting, SsthreshFrom};
    use crate::time::SEC;

    /// The error of a scenario refused when read or when built.
    fn refused(json: &str) -> String {
        match ScenarioSpec::from_json(json) {
            Err(e) => e.to_string(),
            Ok(s) => s.build().unwrap_err().to_string(),
        }
    }

    fn spec(extra_flow: &str, buffer: &str) -> String {
        format!(
            r#"{{"duration": 10, "seed": 3,
               "topology": {{"kind": "dumbbell",
                  "bottleneck": {{"rate": 700e6, "delay": 0.001, "buffer": {buffer}}},
                  "pairs": [{{"rate": 1e10, "delay": 0.049}}, {{"rate": 1e10, "delay": 0.019}}]}},
               "flows": [{{"pair": 0, "algorithm": "reno", "count": 2}}{extra_flow}]}}"#
        )
    }

    #[test]
    fn loss_detection_names_a_preset_the_other_knobs_override() {
        let flows = r#", {"pair": 1, "loss_detection": "dupack"}, {"pair": 1, "loss_detection": "dupack", "undo": true, "max_reordering": 100}, {"pair": 1, "frto": false, "reordering": 5}"#;
        let c = ScenarioSpec::from_json(&spec(flows, r#"{"packets": 10}"#))
            .unwrap()
            .build()
            .unwrap();
        let knobs = |f: &FlowConfig| {
            (
                f.loss_detection,
                f.dsack,
                f.undo,
                f.frto,
                f.reordering,
                f.max_reordering,
            )
        };
        use crate::config::LossDetection::{DupAck, Rack};
        assert_eq!(
            knobs(&c.flows[0]),
            (Rack, true, true, true, 3, 300),
            "Linux's by default"
        );
        assert_eq!(knobs(&c.flows[2]), (DupAck, false, false, false, 3, 3));
        assert_eq!(knobs(&c.flows[3]), (DupAck, false, true, false, 3, 100));
        assert_eq!(knobs(&c.flows[4]), (Rack, true, true, false, 5, 300));
        let e = refused(&spec(
            r#", {"pair": 1, "reordering": 0}"#,
            r#"{"packets": 10}"#,
        ));
        assert!(
            e.starts_with("flows[1].reordering: 0") && e.contains("1 to 1000000"),
            "{e}"
        );
        let e = refused(&spec(
            r#", {"pair": 1, "reordering": 10, "max_reordering": 5}"#,
            r#"{"packets": 10}"#,
        ));
        assert!(
            e.starts_with("flows[1].max_reordering: 5") && e.contains("`reordering` (10)"),
            "{e}"
        );
    }

    #[test]
    fn a_dumbbell_scenario_builds() {
        let s = ScenarioSpec::from_json(&spec(
            r#", {"pair": 1, "start": 1.5, "sack": false}, {"pair": 1, "reverse": true}"#,
            r#"{"packets": 1500}"#,
        ))
        .unwrap();
        let c = s.build().unwrap();
        assert_eq!(c.flows.len(), 4);
        assert_eq!(
            (c.flows[3].src, c.flows[3].dst),
            (c.flows[2].dst, c.flows[2].src)
        );
        assert_eq!(c.flows[2].start, 1_500_000_000_000);
        assert!(!c.flows[2].sack);
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(1500));
        assert_eq!(c.seed, 3);
    }

    #[test]
    fn bdp_buffers_use_the_longest_rtt_crossing_the_link() {
        // 700 Mbit/s × 100 ms / 1500 B = 5833.3 packets; half of that: 2917.
        let c = ScenarioSpec::from_json(&spec("", r#"{"bdp": 0.5}"#))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(2917));
        // With Ethernet framing (38 bytes) a packet takes 1538 bytes of the link: 5689.2 → half: 2845.
        let framed = spec("", r#"{"bdp": 0.5}, "framing": 38"#);
        let c = ScenarioSpec::from_json(&framed).unwrap().build().unwrap();
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(2845));
    }

    #[test]
    fn errors_name_the_field_value_and_what_is_allowed() {
        let bad_algo = spec(
            r#", {"pair": 1, "algorithm": "nope"}"#,
            r#"{"packets": 10}"#,
        );
        let e = refused(&bad_algo);
        assert!(
            e.starts_with(r#"flows[1].algorithm: "nope""#) && e.contains("reno"),
            "{e}"
        );
        let bad_param = spec(r#", {"pair": 1, "params": {"x": 1}}"#, r#"{"packets": 10}"#);
        let e = refused(&bad_param);
        assert!(e.contains("flows[1].params.x"), "{e}");
        let bad_pair = spec(r#", {"pair": 7}"#, r#"{"packets": 10}"#);
        let e = refused(&bad_pair);
        assert!(
            e.contains("flows[1].pair: 7") && e.contains("0 to 1"),
            "{e}"
        );
        let neg_rate = spec("", r#"{"packets": 10}"#).replace("700e6", "-5");
        let e = refused(&neg_rate);
        assert!(e.contains("topology.bottleneck.rate: -5"), "{e}");
        // The file's own entry index (flows[0] has count = 2), not the expanded one.
        let zero_mss = spec(r#", {"pair": 1, "mss": 0}"#, r#"{"packets": 10}"#);
        let e = refused(&zero_mss);
        assert!(e.contains("flows[1].mss: 0"), "{e}");
        let stop = spec(
            r#", {"pair": 1, "start": 2, "stop": 1}"#,
            r#"{"packets": 10}"#,
        );
        let e = refused(&stop);
        assert!(
            e.starts_with("flows[1].stop: 1 s is not allowed (after start)"),
            "{e}"
        );
        let e = ScenarioSpec::from_json(r#"{"duration": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("topology: missing"), "{e}");
        let huge_iw = spec(
            r#", {"pair": 1, "init_cwnd": 4000000000}"#,
            r#"{"packets": 10}"#,
        );
        let e = refused(&huge_iw);
        assert!(e.starts_with("flows[1].init_cwnd: 4000000000"), "{e}");
        let tiny = spec("", r#"{"packets": 10}"#).replace(
            r#""duration": 10,"#,
            r#""duration": 10, "output": {"sample_interval": 1e-9},"#,
        );
        let e = refused(&tiny);
        assert!(
            e.starts_with("output.sample_interval: 0.000000001 s")
                && e.contains("10 million samples"),
            "{e}"
        );
    }

    #[test]
    fn udp_voip_web_and_changes_build() {
        let s = r#"{"duration": 30, "topology": {"kind": "dumbbell",
              "bottleneck": {"rate": 1e8, "delay": 0.01, "buffer": {"bdp": 0.5}},
              "pairs": [{"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.015}]},
            "flows": [{"pair": 0, "rwnd": 65536, "host_jitter": "20us", "access_delay": {"dist": "uniform", "min": "5ms", "max": "25ms"}, "ack_counting": "acks", "ssthresh_from": "pipe", "delack_segments": 3, "init_ssthresh": 100}],
            "udp": [{"pair": 1, "pattern": "onoff", "rate": 5e7, "on": 10, "off": 10},
                    {"pair": 1, "pattern": "poisson", "rate": 3e6, "packet_size": 500}],
            "voip": [{"pair": 2}],
            "web": [{"pairs": [1, 2], "rate": 100, "size": {"dist": "pareto", "shape": 1.2, "mean": "12KB"}}],
            "changes": [{"at": 15, "link": "bottleneck:fwd", "rate": 5e7}]}"#;
        let c = ScenarioSpec::from_json(s).unwrap().build().unwrap();
        assert_eq!(c.udp.len(), 4);
        // G.711 in 20 ms packets: 160 bytes + 40 of headers every 20 ms = 80 kbit/s each way.
        assert_eq!(c.udp[2].packet_size, 200);
        assert_eq!(c.udp[2].pattern, UdpPattern::Cbr { rate_bps: 80_000 });
        assert_eq!((c.udp[2].src, c.udp[2].dst), (c.udp[3].dst, c.udp[3].src));
        assert_eq!(c.web[0].servers.len(), 2);
        assert_eq!(c.changes[0].at, 15 * SEC);
        let f = &c.flows[0];
        assert_eq!(f.host_jitter, 20_000_000);
        assert_eq!(
            f.access_delay,
            DelayDist::Uniform {
                min: 5_000_000_000,
                max: 25_000_000_000
            }
        );
        assert_eq!(
            (f.ack_counting, f.delack_segments, f.init_ssthresh),
            (AckCounting::Acks, 3, Some(100))
        );
        assert_eq!(f.ssthresh_from, SsthreshFrom::Pipe);
        // BDP: 100 Mbit/s × the largest RTT crossing (pair 2: 2·(15 + 10) = 50 ms) / 1500 B = 417; half: 208.
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(208));
    }

    #[test]
    fn traffic_errors_name_the_field() {
        let base = |extra: &str| {
            format!(
                r#"{{"duration": 1, "topology": {{"kind": "dumbbell",
              "bottleneck": {{"rate": 1e8, "delay": 0.01, "buffer": {{"packets": 10}}}},
              "pairs": [{{"rate": 1e9, "delay": 0.005}}]}}, {extra}}}"#
            )
        };
        let e = |extra: &str| refused(&base(extra));
        assert!(
            e(r#""udp": [{"pair": 0, "pattern": "burst", "rate": 1e6}]"#)
                .starts_with(r#"udp[0].pattern: "burst""#)
        );
        assert!(
            e(r#""udp": [{"pair": 0, "pattern": "onoff", "rate": 1e6}]"#).starts_with("udp[0].on")
        );
        assert!(e(
            r#""flows": [{"pair": 0}], "changes": [{"at": 1, "link": "nope", "rate": 1e6}]"#
        )
        .contains("bottleneck:fwd"));
        assert!(e(r#""web": [{"pairs": [3], "rate": 5}]"#).starts_with("web[0].pairs: 3"));
        assert!(e(r#""web": [{"pairs": [0], "rate": 5, "algorithm": "x"}]"#)
            .starts_with(r#"web[0].algorithm: "x""#));
    }

    #[test]
    fn parking_lot_and_graph_scenarios_build() {
        let lot = r#"{"duration": 1, "topology": {"kind": "parking_lot", "hops": 3,
            "link": {"rate": 1e8, "delay": 0.005, "buffer": {"bdp": 1}},
            "access": {"rate": 1e9, "delay": 0.001}, "long": 1, "cross": 2},
            "flows": [{"long": 0}, {"cross": [2, 1]}]}"#;
        let c = ScenarioSpec::from_json(lot).unwrap().build().unwrap();
        assert_eq!(c.flows.len(), 2);
        assert!(matches!(c.topology.links[0].cfg.buffer, Buffer::Packets(n) if n > 1));
        let graph = r#"{"duration": 1, "topology": {"kind": "graph", "nodes": ["a", "b", "c"],
            "links": [{"a": "a", "b": "b", "fwd": {"rate": 1e8, "delay": 0.01, "buffer": {"packets": 50}}},
                      {"a": "b", "b": "c", "fwd": {"rate": 1e7, "delay": 0.01, "buffer": {"packets": 50}}, "monitor": true}]},
            "flows": [{"src": "a", "dst": "c"}]}"#;
        let c = ScenarioSpec::from_json(graph).unwrap().build().unwrap();
        assert_eq!(
            c.topology
                .route(c.flows[0].src, c.flows[0].dst)
                .unwrap()
                .len(),
            2
        );
        let e = ScenarioSpec::from_json(&graph.replace(r#""dst": "c""#, r#""dst": "z""#))
            .unwrap()
            .build()
            .unwrap_err();
        assert!(e.to_string().contains(r#"flows[0].dst: "z""#), "{e}");
    }
}
