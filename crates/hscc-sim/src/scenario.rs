//! Declarative scenarios: the serde form front ends hand to the engine.
//!
//! Quantities are plain SI numbers (seconds, bit/s, bytes); unit strings such
//! as "700Mbps" are parsed by the front end. A scenario names a topology kind
//! (dumbbell, parking lot, graph), flows attached to its endpoints, and
//! buffers in packets, bytes or multiples of the bandwidth-delay product.
//! [`ScenarioSpec::build`] turns it into a [`SimConfig`], with errors that
//! name the field, the value and what is allowed.

use std::collections::{BTreeMap, HashMap};

use hscc_cc::{CcError, CcParams};
use serde::{Deserialize, Serialize};

use crate::config::{check_period, num, param_error, Buffer, ConfigError, FlowConfig, LinkChange, LinkConfig, Recovery, SimConfig, Topology};
use crate::estimate::{estimate, Estimate, Origins};
use crate::limits::{BuildLimits, MAX_FLOWS, MAX_HOPS, MAX_LINKS, MAX_NODES, MAX_PAIRS, MAX_ROUTE_LINKS};
use crate::udp::{UdpConfig, UdpPattern};
use crate::web::{SizeDist, WebConfig};
use crate::packet::DEFAULT_MSS;
use crate::time::{from_secs, Time, SEC};
use crate::topology::{dumbbell, parking_lot, AccessSpec};

/// A queue limit as written in a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum BufferSpec {
    /// Packets.
    Packets(u64),
    /// Bytes.
    Bytes(u64),
    /// Multiple of the bandwidth-delay product: link rate × the largest base RTT
    /// of the flows crossing the link, in packets of their data wire size.
    Bdp(f64),
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpecIn {
    /// Rate, bit/s.
    pub rate: f64,
    /// Propagation delay, s.
    pub delay: f64,
    /// Queue limit.
    #[serde(default = "default_buffer")]
    pub buffer: BufferSpec,
    /// Random loss probability per packet.
    #[serde(default)]
    pub loss: f64,
    /// Gaussian delay jitter, standard deviation, s.
    #[serde(default)]
    pub jitter: f64,
}

fn default_buffer() -> BufferSpec {
    BufferSpec::Bdp(1.0)
}

/// Access links of one host pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// Access-link rate, bit/s.
    pub rate: f64,
    /// One-way delay of the sender's access link, s.
    pub delay: f64,
    /// One-way delay of the receiver's access link, s.
    #[serde(default)]
    pub recv_delay: f64,
    /// Access-link queue limit.
    #[serde(default = "default_access_buffer")]
    pub buffer: BufferSpec,
}

fn default_access_buffer() -> BufferSpec {
    BufferSpec::Packets(100_000)
}

/// A link of a general graph (both directions).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    /// One end (node name).
    pub a: String,
    /// Other end (node name).
    pub b: String,
    /// Direction a → b.
    pub fwd: LinkSpecIn,
    /// Direction b → a (default: same as fwd).
    #[serde(default)]
    pub rev: Option<LinkSpecIn>,
    /// Record queue traces for both directions.
    #[serde(default)]
    pub monitor: bool,
}

/// The network. Each kind is its own struct so that an error inside it can be
/// traced to its field path (serde buffers internally tagged enums, which
/// loses the path; see [`ScenarioSpec::from_json`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TopologySpec {
    /// Host pairs on either side of one bottleneck.
    Dumbbell(DumbbellSpec),
    /// A chain of bottlenecks.
    ParkingLot(ParkingLotSpec),
    /// Any graph of named nodes.
    Graph(GraphSpec),
}

/// Host pairs on either side of one bottleneck.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DumbbellSpec {
    /// Left-to-right bottleneck.
    pub bottleneck: LinkSpecIn,
    /// Right-to-left bottleneck (default: same as `bottleneck` without its loss).
    #[serde(default)]
    pub reverse: Option<LinkSpecIn>,
    /// Host pairs.
    pub pairs: Vec<PairSpec>,
}

/// A chain of bottlenecks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLotSpec {
    /// Number of bottlenecks.
    pub hops: usize,
    /// Each bottleneck (both directions).
    pub link: LinkSpecIn,
    /// Access links of every host pair.
    pub access: PairSpec,
    /// Host pairs crossing every bottleneck.
    pub long: usize,
    /// Host pairs crossing one bottleneck, per bottleneck.
    pub cross: usize,
}

/// Any graph of named nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    /// Node names.
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<GraphLink>,
}

/// A TCP flow (or `count` identical ones).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Dumbbell: index of the host pair.
    #[serde(default)]
    pub pair: Option<usize>,
    /// Parking lot: index of the long (end-to-end) host pair.
    #[serde(default)]
    pub long: Option<usize>,
    /// Parking lot: [bottleneck, index] of a cross host pair.
    #[serde(default)]
    pub cross: Option<(usize, usize)>,
    /// Graph: sending node name.
    #[serde(default)]
    pub src: Option<String>,
    /// Graph: receiving node name.
    #[serde(default)]
    pub dst: Option<String>,
    /// Send from the receiving host to the sending host (reverse-direction traffic).
    #[serde(default)]
    pub reverse: bool,
    /// Congestion-control algorithm.
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Its parameters.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// Identical flows to create.
    #[serde(default = "one")]
    pub count: usize,
    /// Start, s.
    #[serde(default)]
    pub start: f64,
    /// Stop sending new data, s.
    #[serde(default)]
    pub stop: Option<f64>,
    /// Bytes to transfer (unlimited when absent).
    #[serde(default)]
    pub size: Option<u64>,
    /// Maximum segment size, bytes.
    #[serde(default = "default_mss")]
    pub mss: u32,
    /// Receiver window, bytes.
    #[serde(default)]
    pub rwnd: Option<u64>,
    /// SACK loss recovery (NewReno when false).
    #[serde(default = "yes")]
    pub sack: bool,
    /// "prr" or "classic".
    #[serde(default = "default_recovery")]
    pub recovery: String,
    /// Initial window, segments.
    #[serde(default = "default_iw")]
    pub init_cwnd: u32,
    /// Minimum RTO, s.
    #[serde(default = "default_min_rto")]
    pub min_rto: f64,
    /// Delayed ACKs.
    #[serde(default = "yes")]
    pub delayed_ack: bool,
    /// Delayed-ACK timer, s.
    #[serde(default = "default_delack")]
    pub delack_timeout: f64,
    /// Linux default pacing when the algorithm sets no rate.
    #[serde(default)]
    pub pacing: bool,
    /// TCP timestamps.
    #[serde(default = "yes")]
    pub timestamps: bool,
    /// Random processing delay per packet at the sender, uniform in [0, send_jitter] s (ns-2 `overhead_`).
    #[serde(default)]
    pub send_jitter: f64,
}

fn default_algorithm() -> String {
    "reno".into()
}
fn one() -> usize {
    1
}
fn yes() -> bool {
    true
}
fn default_mss() -> u32 {
    DEFAULT_MSS
}
fn default_recovery() -> String {
    "prr".into()
}
fn default_iw() -> u32 {
    10
}
fn default_min_rto() -> f64 {
    0.2
}
fn default_delack() -> f64 {
    0.04
}

/// A UDP flow: constant bit rate, on/off, or Poisson arrivals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// Dumbbell: host pair.
    #[serde(default)]
    pub pair: Option<usize>,
    /// Parking lot: long host pair.
    #[serde(default)]
    pub long: Option<usize>,
    /// Parking lot: [bottleneck, index] of a cross host pair.
    #[serde(default)]
    pub cross: Option<(usize, usize)>,
    /// Graph: sending node.
    #[serde(default)]
    pub src: Option<String>,
    /// Graph: receiving node.
    #[serde(default)]
    pub dst: Option<String>,
    /// "cbr", "onoff" or "poisson".
    pub pattern: String,
    /// Rate on the wire (the peak rate for on/off), bit/s.
    pub rate: f64,
    /// On period, s (on/off).
    #[serde(default)]
    pub on: Option<f64>,
    /// Off period, s (on/off).
    #[serde(default)]
    pub off: Option<f64>,
    /// Bytes on the wire per packet.
    #[serde(default = "default_udp_size")]
    pub packet_size: u32,
    /// Start, s.
    #[serde(default)]
    pub start: f64,
    /// Stop, s.
    #[serde(default)]
    pub stop: Option<f64>,
}

fn default_udp_size() -> u32 {
    1500
}

/// A two-way VoIP call: a CBR flow each way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VoipSpec {
    /// Dumbbell: host pair.
    #[serde(default)]
    pub pair: Option<usize>,
    /// Parking lot: long host pair.
    #[serde(default)]
    pub long: Option<usize>,
    /// Parking lot: [bottleneck, index] of a cross host pair.
    #[serde(default)]
    pub cross: Option<(usize, usize)>,
    /// Graph: one end.
    #[serde(default)]
    pub src: Option<String>,
    /// Graph: the other end.
    #[serde(default)]
    pub dst: Option<String>,
    /// Voice codec rate, bit/s (G.711: 64 kbit/s).
    #[serde(default = "default_voice_rate")]
    pub rate: f64,
    /// Packet interval, s.
    #[serde(default = "default_voice_interval")]
    pub interval: f64,
    /// IP + UDP + RTP header bytes per packet.
    #[serde(default = "default_voice_header")]
    pub header: u32,
    /// Start, s.
    #[serde(default)]
    pub start: f64,
    /// Stop, s.
    #[serde(default)]
    pub stop: Option<f64>,
}

fn default_voice_rate() -> f64 {
    64_000.0
}
fn default_voice_interval() -> f64 {
    0.02
}
fn default_voice_header() -> u32 {
    crate::packet::UDP_HEADER_BYTES
}

/// Web-like traffic: short TCP transfers arriving as a Poisson process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Dumbbell: host pairs whose senders serve and whose receivers fetch.
    #[serde(default)]
    pub pairs: Vec<usize>,
    /// Graph: serving nodes.
    #[serde(default)]
    pub servers: Vec<String>,
    /// Graph: fetching nodes.
    #[serde(default)]
    pub clients: Vec<String>,
    /// Transfers per second.
    pub rate: f64,
    /// Response sizes.
    #[serde(default = "default_web_size")]
    pub size: SizeDist,
    /// Algorithm of the transfers.
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Its parameters.
    #[serde(default)]
    pub params: BTreeMap<String, f64>,
    /// First arrival no earlier than this, s.
    #[serde(default)]
    pub start: f64,
    /// No arrivals from this time, s.
    #[serde(default)]
    pub stop: Option<f64>,
}

fn default_web_size() -> SizeDist {
    SizeDist::Pareto { shape: 1.2, mean: 12_000.0 }
}

/// A scheduled change of one link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangeSpec {
    /// When, s.
    pub at: f64,
    /// Link name, e.g. "bottleneck:fwd".
    pub link: String,
    /// New rate, bit/s.
    #[serde(default)]
    pub rate: Option<f64>,
    /// New propagation delay, s.
    #[serde(default)]
    pub delay: Option<f64>,
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Simulated duration, s.
    pub duration: f64,
    /// Run seed.
    #[serde(default = "one_u64")]
    pub seed: u64,
    /// Trace sampling interval, s (no traces when absent).
    #[serde(default)]
    pub sample_interval: Option<f64>,
    /// The network.
    pub topology: TopologySpec,
    /// The TCP flows.
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// UDP flows.
    #[serde(default)]
    pub udp: Vec<UdpSpec>,
    /// VoIP calls.
    #[serde(default)]
    pub voip: Vec<VoipSpec>,
    /// Web-like traffic.
    #[serde(default)]
    pub web: Vec<WebSpec>,
    /// Scheduled link changes.
    #[serde(default)]
    pub changes: Vec<ChangeSpec>,
}

fn one_u64() -> u64 {
    1
}

fn err(field: impl Into<String>, value: impl ToString, allowed: impl Into<String>) -> ConfigError {
    ConfigError { field: field.into(), value: value.to_string(), allowed: allowed.into() }
}

fn seconds(field: &str, v: f64) -> Result<Time, ConfigError> {
    if !(v.is_finite() && v >= 0.0 && v <= 1e7) {
        return Err(err(field, num(v), "a time from 0 to 10^7 seconds"));
    }
    Ok(from_secs(v))
}

impl LinkSpecIn {
    /// The engine link; BDP buffers are resolved later (placeholder 1 packet).
    fn to_config(&self, at: &str) -> Result<(LinkConfig, Option<f64>), ConfigError> {
        if !(self.rate.is_finite() && self.rate >= 1.0 && self.rate <= 1e13) {
            return Err(err(format!("{at}.rate"), num(self.rate), "a rate from 1 bit/s to 10 Tbit/s"));
        }
        let (buffer, bdp) = buffer(&self.buffer, &format!("{at}.buffer"))?;
        if !(0.0..=1.0).contains(&self.loss) {
            return Err(err(format!("{at}.loss"), self.loss, "a probability from 0 to 1"));
        }
        let cfg = LinkConfig {
            rate_bps: self.rate.round() as u64,
            delay: seconds(&format!("{at}.delay"), self.delay)?,
            buffer,
            loss: self.loss,
            jitter: seconds(&format!("{at}.jitter"), self.jitter)?,
        };
        Ok((cfg, bdp))
    }
}

fn buffer(b: &BufferSpec, at: &str) -> Result<(Buffer, Option<f64>), ConfigError> {
    match *b {
        BufferSpec::Packets(n) if n >= 1 => Ok((Buffer::Packets(n), None)),
        BufferSpec::Bytes(n) if n >= 1 => Ok((Buffer::Bytes(n), None)),
        BufferSpec::Bdp(x) if x.is_finite() && x > 0.0 && x <= 1e4 => Ok((Buffer::Packets(1), Some(x))),
        _ => Err(err(at, format!("{b:?}"), "at least 1 packet or byte, or a BDP multiple above 0")),
    }
}

impl ScenarioSpec {
    /// Parse from JSON.
    pub fn from_json(s: &str) -> Result<ScenarioSpec, ConfigError> {
        crate::json::from_str(s).map_err(|e| if e.field == "topology" { topology_error(s).unwrap_or(e) } else { e })
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
        let (cfg, origins) = self.build_unchecked()?;
        Ok(estimate(&cfg, &origins))
    }

    fn build_unchecked(&self) -> Result<(SimConfig, Origins), ConfigError> {
        let duration = seconds("duration", self.duration)?;
        if duration == 0 {
            return Err(err("duration", self.duration, "a positive duration"));
        }
        let sample_interval = match self.sample_interval {
            Some(v) if v > 0.0 => Some(seconds("sample_interval", v)?),
            Some(v) => return Err(err("sample_interval", num(v), "a positive interval")),
            None => None,
        };
        let mut meta: Vec<LinkMeta> = Vec::new();
        let (topology, endpoints) = self.topology(&mut meta)?;
        let mut o = Origins {
            link_buffer: meta.iter().map(|m| (format!("{}.buffer", m.at), m.buffer.clone())).collect(),
            link_rate: meta.iter().map(|m| (format!("{}.rate", m.at), m.rate.clone())).collect(),
            topology: match &self.topology {
                TopologySpec::Dumbbell(d) => ("topology.pairs".into(), format!("{} pairs", d.pairs.len())),
                TopologySpec::ParkingLot(p) => ("topology.cross".into(), p.cross.to_string()),
                TopologySpec::Graph(g) => ("topology.nodes".into(), format!("{} nodes", g.nodes.len())),
            },
            ..Origins::default()
        };
        let total: usize = self.flows.iter().map(|f| f.count).fold(0, usize::saturating_add);
        if let Some((i, _)) = self.flows.iter().enumerate().max_by_key(|(_, f)| f.count).filter(|_| total > MAX_FLOWS) {
            return Err(err(format!("flows[{i}].count"), self.flows[i].count, format!("at most {MAX_FLOWS} flows in all (the scenario asks for {total})")));
        }
        let mut flows = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            let (mut src, mut dst) = endpoints.resolve(&f.place(), &format!("flows[{i}]"))?;
            if f.reverse {
                (src, dst) = (dst, src);
            }
            let cc = algorithm(&f.algorithm, &f.params, &format!("flows[{i}]"))?;
            let recovery = match f.recovery.as_str() {
                "prr" => Recovery::Prr,
                "classic" => Recovery::Classic,
                other => return Err(err(at("recovery"), other, "\"prr\" or \"classic\"")),
            };
            if f.count == 0 || f.count > 100_000 {
                return Err(err(at("count"), f.count, "1 to 100000 flows"));
            }
            let mut c = FlowConfig::bulk(src, dst, cc);
            c.start = seconds(&at("start"), f.start)?;
            c.stop = f.stop.map(|s| seconds(&at("stop"), s)).transpose()?;
            c.size = f.size;
            c.mss = f.mss;
            c.rwnd = f.rwnd;
            c.sack = f.sack;
            c.recovery = recovery;
            c.init_cwnd = f.init_cwnd;
            c.min_rto = seconds(&at("min_rto"), f.min_rto)?;
            c.initial_rto = c.initial_rto.max(c.min_rto);
            c.delayed_ack = f.delayed_ack;
            c.delack_timeout = seconds(&at("delack_timeout"), f.delack_timeout)?;
            c.pacing = f.pacing;
            c.timestamps = f.timestamps;
            c.send_jitter = seconds(&at("send_jitter"), f.send_jitter)?;
            c.validate(&at)?;
            check_period(&at, c.start, c.stop, duration)?;
            for _ in 0..f.count {
                o.flow_count.push((at("count"), f.count.to_string()));
                o.flow_init_cwnd.push((at("init_cwnd"), f.init_cwnd.to_string()));
                flows.push(c.clone());
            }
        }
        let mut udp = Vec::new();
        for (i, u) in self.udp.iter().enumerate() {
            let at = format!("udp[{i}]");
            let (src, dst) = endpoints.resolve(&u.place(), &at)?;
            let rate = bits_per_second(&format!("{at}.rate"), u.rate)?;
            let pattern = match u.pattern.as_str() {
                "cbr" => UdpPattern::Cbr { rate_bps: rate },
                "poisson" => UdpPattern::Poisson { rate_bps: rate },
                "onoff" => {
                    let period = |k: &str, v: Option<f64>| match v {
                        Some(x) if x > 0.0 => seconds(&format!("{at}.{k}"), x),
                        other => Err(err(format!("{at}.{k}"), format!("{other:?}"), "a positive period for an on/off source")),
                    };
                    UdpPattern::OnOff { rate_bps: rate, on: period("on", u.on)?, off: period("off", u.off)? }
                }
                other => return Err(err(format!("{at}.pattern"), other, "\"cbr\", \"onoff\" or \"poisson\"")),
            };
            if !(28..=65_535).contains(&u.packet_size) {
                return Err(err(format!("{at}.packet_size"), u.packet_size, "28 to 65535 bytes"));
            }
            let start = seconds(&format!("{at}.start"), u.start)?;
            let stop = u.stop.map(|s| seconds(&format!("{at}.stop"), s)).transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            udp.push(UdpConfig { src, dst, pattern, packet_size: u.packet_size, start, stop });
            o.udp_rate.push((format!("{at}.rate"), num(u.rate)));
            o.udp_group.push(("udp".into(), format!("{} flows", self.udp.len())));
        }
        for (i, v) in self.voip.iter().enumerate() {
            let at = format!("voip[{i}]");
            let (a, b) = endpoints.resolve(&v.place(), &at)?;
            if !(v.interval > 0.0 && v.interval <= 1.0) {
                return Err(err(format!("{at}.interval"), v.interval, "a packet interval from 0 to 1 s"));
            }
            let voice = bits_per_second(&format!("{at}.rate"), v.rate)?;
            // In f64: a huge rate or header must be refused, not wrap a u32.
            let size = (voice as f64 * v.interval / 8.0).round() + v.header as f64;
            if !(28.0..=65_535.0).contains(&size) {
                return Err(err(format!("{at}.rate"), v.rate, format!("a rate whose packets every {} s, with {} bytes of headers, fit 28 to 65535 bytes", v.interval, v.header)));
            }
            let size = size as u32;
            let wire_rate = (size as f64 * 8.0 / v.interval).round() as u64;
            let start = seconds(&format!("{at}.start"), v.start)?;
            let stop = v.stop.map(|s| seconds(&format!("{at}.stop"), s)).transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            for (src, dst) in [(a, b), (b, a)] {
                udp.push(UdpConfig { src, dst, pattern: UdpPattern::Cbr { rate_bps: wire_rate }, packet_size: size, start, stop });
                o.udp_rate.push((format!("{at}.interval"), format!("{} s", num(v.interval))));
                o.udp_group.push(("voip".into(), format!("{} calls", self.voip.len())));
            }
        }
        let mut web = Vec::new();
        for (i, w) in self.web.iter().enumerate() {
            let at = format!("web[{i}]");
            let (servers, clients) = endpoints.hosts(w, &at)?;
            let cc = algorithm(&w.algorithm, &w.params, &at)?;
            let size = w.size.clone();
            let start = seconds(&format!("{at}.start"), w.start)?;
            let stop = w.stop.map(|s| seconds(&format!("{at}.stop"), s)).transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            web.push(WebConfig { servers, clients, rate: w.rate, size, tcp: FlowConfig::bulk(0, 0, cc), start, stop });
        }
        let mut changes = Vec::new();
        for (i, c) in self.changes.iter().enumerate() {
            let at = format!("changes[{i}]");
            let Some(link) = topology.links.iter().position(|l| l.name == c.link) else {
                let names: Vec<&str> = topology.links.iter().map(|l| l.name.as_str()).take(12).collect();
                return Err(err(format!("{at}.link"), &c.link, format!("a link name such as {}", names.join(", "))));
            };
            let rate_bps = c.rate.map(|r| bits_per_second(&format!("{at}.rate"), r)).transpose()?;
            let delay = c.delay.map(|d| seconds(&format!("{at}.delay"), d)).transpose()?;
            if rate_bps.is_none() && delay.is_none() {
                return Err(err(at, "no rate and no delay", "a new rate, a new delay, or both"));
            }
            let when = seconds(&format!("{at}.at"), c.at)?;
            check_period(&|_: &str| format!("{at}.at"), when, None, duration)?;
            changes.push(LinkChange { at: when, link: link as u32, rate_bps, delay });
        }
        let mut cfg = SimConfig { topology, flows, udp, web, changes, duration, seed: self.seed, sample_interval };
        // Caps first: resolving BDP buffers routes every source.
        cfg.check_caps()?;
        let bdp: Vec<Option<f64>> = meta.iter().map(|m| m.bdp).collect();
        resolve_bdp(&mut cfg, &bdp)?;
        cfg.validate()?;
        Ok((cfg, o))
    }

    /// The network, its endpoints, and per link: where it comes from and its BDP multiple, if any.
    fn topology(&self, meta: &mut Vec<LinkMeta>) -> Result<(Topology, Endpoints), ConfigError> {
        match &self.topology {
            TopologySpec::Dumbbell(DumbbellSpec { bottleneck, reverse, pairs }) => {
                if pairs.len() > MAX_PAIRS {
                    return Err(err("topology.pairs", format!("{} pairs", pairs.len()), format!("at most {MAX_PAIRS} host pairs")));
                }
                let (fwd, fb) = bottleneck.to_config("topology.bottleneck")?;
                let (rev, rb) = match reverse {
                    Some(r) => r.to_config("topology.reverse")?,
                    None => (LinkConfig { loss: 0.0, ..fwd.clone() }, fb),
                };
                let access = pairs
                    .iter()
                    .enumerate()
                    .map(|(i, p)| pair(p, &format!("topology.pairs[{i}]")))
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
                    meta.extend(std::iter::repeat_n(LinkMeta::of_pair(p, &format!("topology.pairs[{i}]")), 4));
                }
                Ok((db.topology, Endpoints::Pairs(db.pairs)))
            }
            TopologySpec::ParkingLot(ParkingLotSpec { hops, link, access, long, cross }) => {
                if *hops == 0 || *hops > MAX_HOPS {
                    return Err(err("topology.hops", hops, format!("1 to {MAX_HOPS} bottlenecks (a route crosses at most {MAX_ROUTE_LINKS} links)")));
                }
                let host_pairs = hops.checked_mul(*cross).and_then(|x| x.checked_add(*long));
                if host_pairs.is_none_or(|n| n > MAX_PAIRS) {
                    let (field, value) = if long > cross { ("topology.long", long) } else { ("topology.cross", cross) };
                    return Err(err(field, value, format!("at most {MAX_PAIRS} host pairs in all (long + hops × cross)")));
                }
                let (l, lb) = link.to_config("topology.link")?;
                let a = pair(access, "topology.access")?;
                let p = parking_lot(*hops, l, &a, *long, *cross);
                // Links are added as: every bottleneck (fwd, rev), then access links.
                meta.extend(std::iter::repeat_n(LinkMeta::of(link, "topology.link", lb), 2 * hops));
                meta.resize(p.topology.links.len(), LinkMeta::of_pair(access, "topology.access"));
                Ok((p.topology, Endpoints::Lot { long: p.long, cross: p.cross }))
            }
            TopologySpec::Graph(GraphSpec { nodes, links }) => {
                let mut t = Topology::default();
                if nodes.len() > MAX_NODES || links.len() > MAX_LINKS / 2 {
                    let (field, n, max) = if nodes.len() > MAX_NODES { ("topology.nodes", nodes.len(), MAX_NODES) } else { ("topology.links", links.len(), MAX_LINKS / 2) };
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
                    let (a, b) = (index.find(&l.a, &format!("{at}.a"))?, index.find(&l.b, &format!("{at}.b"))?);
                    if a == b {
                        return Err(err(format!("{at}.b"), &l.b, "a node other than a (a link joins two nodes)"));
                    }
                    let name = format!("{}-{}", l.a, l.b);
                    let earlier = pairs_seen.insert((a.min(b), a.max(b)), i).or(names_seen.insert(name.clone(), i));
                    if let Some(j) = earlier {
                        return Err(err(at, &name, format!("one link per pair of nodes, with a name of its own (topology.links[{j}] is {}-{})", links[j].a, links[j].b)));
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

/// The error inside the topology, with its path: read it again as the struct its kind names.
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
    Some(ConfigError { field: format!("topology.{}", inner.field), ..inner })
}

/// The algorithm `name` with `params` set, each in range and every pair in order.
fn algorithm(name: &str, params: &BTreeMap<String, f64>, at: &str) -> Result<CcParams, ConfigError> {
    let mut cc = CcParams::from_name(name).map_err(|e| err(format!("{at}.algorithm"), name, cc_allowed(&e)))?;
    for (k, v) in params {
        cc.set(k, *v).map_err(|e| err(format!("{at}.params.{k}"), v, cc_allowed(&e)))?;
    }
    cc.check().map_err(|e| param_error(&|k: &str| format!("{at}.params.{k}"), &e))?;
    Ok(cc)
}

fn cc_allowed(e: &CcError) -> String {
    match e {
        CcError::UnknownAlgorithm { known, .. } => format!("one of: {}", known.join(", ")),
        CcError::Param { error, .. } => error.to_string(),
    }
}

fn pair(p: &PairSpec, at: &str) -> Result<AccessSpec, ConfigError> {
    if matches!(p.buffer, BufferSpec::Bdp(_)) {
        return Err(err(format!("{at}.buffer"), format!("{:?}", p.buffer), "packets or bytes for access links"));
    }
    let (link, _) = LinkSpecIn { rate: p.rate, delay: p.delay, buffer: p.buffer, loss: 0.0, jitter: 0.0 }.to_config(at)?;
    Ok(AccessSpec { rate_bps: link.rate_bps, delay: link.delay, recv_delay: seconds(&format!("{at}.recv_delay"), p.recv_delay)?, buffer: link.buffer })
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
        LinkMeta { at: at.into(), buffer: buffer_text(&l.buffer), rate: num(l.rate), bdp }
    }
    fn of_pair(p: &PairSpec, at: &str) -> LinkMeta {
        LinkMeta { at: at.into(), buffer: buffer_text(&p.buffer), rate: num(p.rate), bdp: None }
    }
}

fn buffer_text(b: &BufferSpec) -> String {
    match b {
        BufferSpec::Packets(n) => format!("{n} packets"),
        BufferSpec::Bytes(n) => format!("{n} bytes"),
        BufferSpec::Bdp(x) => format!("{x} bdp"),
    }
}

/// Where a flow's endpoints are, in the topology's own terms.
struct Place<'a> {
    pair: Option<usize>,
    long: Option<usize>,
    cross: Option<(usize, usize)>,
    src: &'a Option<String>,
    dst: &'a Option<String>,
}

macro_rules! place {
    ($t:ty) => {
        impl $t {
            fn place(&self) -> Place<'_> {
                Place { pair: self.pair, long: self.long, cross: self.cross, src: &self.src, dst: &self.dst }
            }
        }
    };
}
place!(FlowSpec);
place!(UdpSpec);
place!(VoipSpec);

enum Endpoints {
    Pairs(Vec<(u32, u32)>),
    Lot { long: Vec<(u32, u32)>, cross: Vec<Vec<(u32, u32)>> },
    Names(NodeIndex),
}

/// Graph node names and their indices, looked up in O(1).
struct NodeIndex {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl NodeIndex {
    fn new(names: &[String]) -> Result<NodeIndex, ConfigError> {
        let mut index = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() {
                return Err(err(format!("topology.nodes[{i}]"), "\"\"", "a non-empty name"));
            }
            if index.insert(n.clone(), i as u32).is_some() {
                return Err(err(format!("topology.nodes[{i}]"), n, "a name not used by another node"));
            }
        }
        Ok(NodeIndex { names: names.to_vec(), index })
    }

    fn find(&self, name: &str, field: &str) -> Result<u32, ConfigError> {
        self.index.get(name).copied().ok_or_else(|| {
            let some: Vec<&str> = self.names.iter().map(String::as_str).take(12).collect();
            let more = if self.names.len() > some.len() { ", …" } else { "" };
            err(field, name, format!("one of the nodes: {}{more}", some.join(", ")))
        })
    }
}

impl Endpoints {
    fn resolve(&self, f: &Place, prefix: &str) -> Result<(u32, u32), ConfigError> {
        let at = |k: &str| format!("{prefix}.{k}");
        match self {
            Endpoints::Pairs(p) => {
                let k = f.pair.ok_or_else(|| err(at("pair"), "missing", format!("a host pair index from 0 to {}", p.len() - 1)))?;
                p.get(k).copied().ok_or_else(|| err(at("pair"), k, format!("a host pair index from 0 to {}", p.len() - 1)))
            }
            Endpoints::Lot { long, cross } => match (f.long, f.cross) {
                (Some(k), None) => long.get(k).copied().ok_or_else(|| err(at("long"), k, format!("an index below {}", long.len()))),
                (None, Some((h, k))) => cross
                    .get(h)
                    .and_then(|c| c.get(k))
                    .copied()
                    .ok_or_else(|| err(at("cross"), format!("[{h}, {k}]"), format!("[bottleneck < {}, index < {}]", cross.len(), cross.first().map_or(0, |c| c.len())))),
                _ => Err(err(at("long/cross"), "missing or both", "exactly one of long = i or cross = [bottleneck, i]")),
            },
            Endpoints::Names(n) => {
                let find = |k: &str, v: &Option<String>| {
                    let name = v.as_deref().ok_or_else(|| err(at(k), "missing", "a node name"))?;
                    n.find(name, &at(k))
                };
                let (src, dst) = (find("src", &f.src)?, find("dst", &f.dst)?);
                if src == dst {
                    return Err(err(at("dst"), &n.names[dst as usize], "a node other than src"));
                }
                Ok((src, dst))
            }
        }
    }
}

impl Endpoints {
    /// Servers and clients of a web source.
    fn hosts(&self, w: &WebSpec, at: &str) -> Result<(Vec<u32>, Vec<u32>), ConfigError> {
        match self {
            Endpoints::Pairs(p) => {
                if w.pairs.is_empty() {
                    return Err(err(format!("{at}.pairs"), "[]", "the host pairs that carry web traffic"));
                }
                let mut servers = Vec::new();
                let mut clients = Vec::new();
                for &k in &w.pairs {
                    let &(s, d) = p.get(k).ok_or_else(|| err(format!("{at}.pairs"), k, format!("host pair indices from 0 to {}", p.len() - 1)))?;
                    servers.push(s);
                    clients.push(d);
                }
                Ok((servers, clients))
            }
            Endpoints::Names(n) => {
                let find = |k: &str, names: &[String]| -> Result<Vec<u32>, ConfigError> {
                    if names.is_empty() {
                        return Err(err(format!("{at}.{k}"), "[]", "one or more node names"));
                    }
                    names.iter().map(|name| n.find(name, &format!("{at}.{k}"))).collect()
                };
                let (servers, clients) = (find("servers", &w.servers)?, find("clients", &w.clients)?);
                // A transfer goes from a server to a different client: a node in both lists has no route to itself.
                if let Some(c) = w.clients.iter().find(|c| w.servers.contains(c)) {
                    return Err(err(format!("{at}.clients"), c, "nodes that are not also servers"));
                }
                Ok((servers, clients))
            }
            Endpoints::Lot { .. } => Err(err(at, "web traffic", "web traffic on a dumbbell or a graph (parking lots have no spare hosts)")),
        }
    }
}

fn bits_per_second(field: &str, v: f64) -> Result<u64, ConfigError> {
    if !(v.is_finite() && v >= 1.0 && v <= 1e13) {
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
    let mut ends: Vec<(u32, u32, u32, String)> = cfg.flows.iter().enumerate().map(|(i, f)| (f.src, f.dst, f.wire_size(), format!("flows[{i}]"))).collect();
    ends.extend(cfg.udp.iter().enumerate().map(|(i, u)| (u.src, u.dst, u.packet_size, format!("udp[{i}]"))));
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
        let fwd = t.route(src, dst).map_err(|e| ConfigError { field: format!("{at}.dst"), ..e })?;
        let rev = t.route(dst, src).map_err(|e| ConfigError { field: format!("{at}.src"), ..e })?;
        let rtt: Time = fwd.iter().chain(&rev).map(|&l| t.links[l as usize].cfg.delay).sum();
        for &l in fwd.iter().chain(&rev) {
            rtt_max[l as usize] = rtt_max[l as usize].max(rtt);
            wire[l as usize] = wire[l as usize].max(size);
        }
    }
    for (l, x) in bdp.iter().enumerate() {
        let Some(x) = x else { continue };
        let spec = &cfg.topology.links[l];
        if wire[l] == 0 {
            return Err(err(format!("links[{}] ({}).buffer", l, spec.name), format!("{x} bdp"), "packets or bytes: no flow crosses this link to define its BDP"));
        }
        let bytes = spec.cfg.rate_bps as f64 * (rtt_max[l] as f64 / SEC as f64) / 8.0;
        let pkts = (x * bytes / wire[l] as f64).round().max(1.0) as u64;
        cfg.topology.links[l].cfg.buffer = Buffer::Packets(pkts);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SEC;

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
    fn a_dumbbell_scenario_builds() {
        let s = ScenarioSpec::from_json(&spec(r#", {"pair": 1, "start": 1.5, "sack": false}, {"pair": 1, "reverse": true}"#, r#"{"packets": 1500}"#)).unwrap();
        let c = s.build().unwrap();
        assert_eq!(c.flows.len(), 4);
        assert_eq!((c.flows[3].src, c.flows[3].dst), (c.flows[2].dst, c.flows[2].src));
        assert_eq!(c.flows[2].start, 1_500_000_000_000);
        assert!(!c.flows[2].sack);
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(1500));
        assert_eq!(c.seed, 3);
    }

    #[test]
    fn bdp_buffers_use_the_longest_rtt_crossing_the_link() {
        // 700 Mbit/s × 100 ms / 1500 B = 5833.3 packets; half of that: 2917.
        let c = ScenarioSpec::from_json(&spec("", r#"{"bdp": 0.5}"#)).unwrap().build().unwrap();
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(2917));
    }

    #[test]
    fn errors_name_the_field_value_and_what_is_allowed() {
        let bad_algo = spec(r#", {"pair": 1, "algorithm": "nope"}"#, r#"{"packets": 10}"#);
        let e = ScenarioSpec::from_json(&bad_algo).unwrap().build().unwrap_err().to_string();
        assert!(e.starts_with("flows[1].algorithm: nope") && e.contains("reno"), "{e}");
        let bad_param = spec(r#", {"pair": 1, "params": {"x": 1}}"#, r#"{"packets": 10}"#);
        let e = ScenarioSpec::from_json(&bad_param).unwrap().build().unwrap_err().to_string();
        assert!(e.contains("flows[1].params.x"), "{e}");
        let bad_pair = spec(r#", {"pair": 7}"#, r#"{"packets": 10}"#);
        let e = ScenarioSpec::from_json(&bad_pair).unwrap().build().unwrap_err().to_string();
        assert!(e.contains("flows[1].pair: 7") && e.contains("0 to 1"), "{e}");
        let neg_rate = spec("", r#"{"packets": 10}"#).replace("700e6", "-5");
        let e = ScenarioSpec::from_json(&neg_rate).unwrap().build().unwrap_err().to_string();
        assert!(e.contains("topology.bottleneck.rate: -5"), "{e}");
        // The file's own entry index (flows[0] has count = 2), not the expanded one.
        let zero_mss = spec(r#", {"pair": 1, "mss": 0}"#, r#"{"packets": 10}"#);
        let e = ScenarioSpec::from_json(&zero_mss).unwrap().build().unwrap_err().to_string();
        assert!(e.contains("flows[1].mss: 0"), "{e}");
        let stop = spec(r#", {"pair": 1, "start": 2, "stop": 1}"#, r#"{"packets": 10}"#);
        let e = ScenarioSpec::from_json(&stop).unwrap().build().unwrap_err().to_string();
        assert!(e.starts_with("flows[1].stop: 1 s is not allowed (after start)"), "{e}");
        let e = ScenarioSpec::from_json(r#"{"duration": 1}"#).unwrap_err().to_string();
        assert!(e.starts_with("topology: missing"), "{e}");
        let huge_iw = spec(r#", {"pair": 1, "init_cwnd": 4000000000}"#, r#"{"packets": 10}"#);
        let e = ScenarioSpec::from_json(&huge_iw).unwrap().build().unwrap_err().to_string();
        assert!(e.starts_with("flows[1].init_cwnd: 4000000000"), "{e}");
        let tiny = spec("", r#"{"packets": 10}"#).replace(r#""duration": 10,"#, r#""duration": 10, "sample_interval": 1e-9,"#);
        let e = ScenarioSpec::from_json(&tiny).unwrap().build().unwrap_err().to_string();
        assert!(e.starts_with("sample_interval: 0.000000001 s") && e.contains("10 million samples"), "{e}");
    }

    #[test]
    fn udp_voip_web_and_changes_build() {
        let s = r#"{"duration": 30, "topology": {"kind": "dumbbell",
              "bottleneck": {"rate": 1e8, "delay": 0.01, "buffer": {"bdp": 0.5}},
              "pairs": [{"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.015}]},
            "flows": [{"pair": 0, "rwnd": 65536, "send_jitter": 8e-6}],
            "udp": [{"pair": 1, "pattern": "onoff", "rate": 5e7, "on": 10, "off": 10},
                    {"pair": 1, "pattern": "poisson", "rate": 3e6, "packet_size": 500}],
            "voip": [{"pair": 2}],
            "web": [{"pairs": [1, 2], "rate": 100, "size": {"pareto": {"shape": 1.2, "mean": 12000}}}],
            "changes": [{"at": 15, "link": "bottleneck:fwd", "rate": 5e7}]}"#;
        let c = ScenarioSpec::from_json(s).unwrap().build().unwrap();
        assert_eq!(c.udp.len(), 4);
        // G.711 in 20 ms packets: 160 bytes + 40 of headers every 20 ms = 80 kbit/s each way.
        assert_eq!(c.udp[2].packet_size, 200);
        assert_eq!(c.udp[2].pattern, UdpPattern::Cbr { rate_bps: 80_000 });
        assert_eq!((c.udp[2].src, c.udp[2].dst), (c.udp[3].dst, c.udp[3].src));
        assert_eq!(c.web[0].servers.len(), 2);
        assert_eq!(c.changes[0].at, 15 * SEC);
        assert_eq!(c.flows[0].send_jitter, 8_000_000);
        // BDP: 100 Mbit/s × the largest RTT crossing (pair 2: 2·(15 + 10) = 50 ms) / 1500 B = 417; half: 208.
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(208));
    }

    #[test]
    fn traffic_errors_name_the_field() {
        let base = |extra: &str| format!(r#"{{"duration": 1, "topology": {{"kind": "dumbbell",
              "bottleneck": {{"rate": 1e8, "delay": 0.01, "buffer": {{"packets": 10}}}},
              "pairs": [{{"rate": 1e9, "delay": 0.005}}]}}, {extra}}}"#);
        let e = |extra: &str| ScenarioSpec::from_json(&base(extra)).unwrap().build().unwrap_err().to_string();
        assert!(e(r#""udp": [{"pair": 0, "pattern": "burst", "rate": 1e6}]"#).starts_with("udp[0].pattern: burst"));
        assert!(e(r#""udp": [{"pair": 0, "pattern": "onoff", "rate": 1e6}]"#).starts_with("udp[0].on"));
        assert!(e(r#""changes": [{"at": 1, "link": "nope", "rate": 1e6}]"#).contains("bottleneck:fwd"));
        assert!(e(r#""web": [{"pairs": [3], "rate": 5}]"#).starts_with("web[0].pairs: 3"));
        assert!(e(r#""web": [{"pairs": [0], "rate": 5, "algorithm": "x"}]"#).starts_with("web[0].algorithm: x"));
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
        assert_eq!(c.topology.route(c.flows[0].src, c.flows[0].dst).unwrap().len(), 2);
        let e = ScenarioSpec::from_json(&graph.replace(r#""dst": "c""#, r#""dst": "z""#)).unwrap().build().unwrap_err();
        assert!(e.to_string().contains("flows[0].dst: z"), "{e}");
    }
}
