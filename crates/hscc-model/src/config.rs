//! What a run is made of: links, topology, flows, duration, seed, outputs.
//! Plain data with serde, validated by [`SimConfig::validate`] with errors
//! that name the field, the value and what is allowed.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde::Serialize;

use crate::capture::CaptureConfig;
use crate::error::check;
use crate::limits::{
    MAX_FLOWS, MAX_LINKS, MAX_NODES, MAX_ROUTE_LINKS, MAX_ROUTE_WORK, MAX_TRACE_VALUES,
    MAX_UDP_FLOWS, MAX_WEB_PAIRS,
};
use crate::link::check_whole_ticks;
use crate::routing::{one_way_out, root};
use crate::time::{secs, Time, SEC};
pub use crate::topology::Topology;
use crate::udp::{UdpConfig, UdpPattern};
use crate::web::{SizeDist, WebConfig, WebModel};

pub use crate::error::{check_period, num, param_error, ConfigError};
pub use crate::flow::{
    AckCounting, DelayDist, FlowConfig, JitterUnit, LossDetection, Recovery, ReductionFloor,
    SsthreshFrom, DEFAULT_HOST_JITTER, MAX_INIT_SSTHRESH, MAX_REORDERING, MAX_WINDOW_BYTES,
};
pub use crate::link::{Buffer, LinkConfig, LossPoint, MAX_FRAMING, MAX_TICK, MIN_TICK};
pub use crate::topology::LinkSpec;

/// Largest web response size or mean, bytes (1 TB).
const MAX_WEB_SIZE: u64 = 1_000_000_000_000;

/// A scheduled change of a link's rate or propagation delay (rerouting, Sync-TCP §V.C).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkChange {
    /// When.
    pub at: Time,
    /// Which link (index).
    pub link: u32,
    /// New rate, bit/s.
    pub rate_bps: Option<u64>,
    /// New propagation delay.
    pub delay: Option<Time>,
}

/// Everything a run needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimConfig {
    /// Nodes and links.
    pub topology: Topology,
    /// Long-lived or finite TCP flows, each with its own results.
    pub flows: Vec<FlowConfig>,
    /// UDP flows (CBR, on/off, Poisson; VoIP is a CBR pair).
    pub udp: Vec<UdpConfig>,
    /// Web-like traffic sources (short TCP transfers created as they arrive).
    pub web: Vec<WebConfig>,
    /// Scheduled link changes.
    pub changes: Vec<LinkChange>,
    /// Simulated duration.
    pub duration: Time,
    /// Run seed.
    pub seed: u64,
    /// Interval of the time series (None: no traces).
    pub sample_interval: Option<Time>,
    /// Packet captures (none by default; [`crate::capture`]).
    #[serde(skip_serializing_if = "CaptureConfig::is_empty")]
    pub capture: CaptureConfig,
}

impl Default for SimConfig {
    /// Nothing to simulate yet: fill in topology, flows and duration.
    fn default() -> Self {
        SimConfig {
            topology: Topology::default(),
            flows: Vec::new(),
            udp: Vec::new(),
            web: Vec::new(),
            changes: Vec::new(),
            duration: SEC,
            seed: 1,
            sample_interval: None,
            capture: CaptureConfig::default(),
        }
    }
}

/// Whether web sizes drawn from `d` stay within 1 byte to 1 TB on average.
fn size_ok(d: &SizeDist) -> bool {
    let mean_ok = |m: f64| (1.0..=MAX_WEB_SIZE as f64).contains(&m);
    match *d {
        SizeDist::Fixed(b) => (1..=MAX_WEB_SIZE).contains(&b),
        SizeDist::Exponential { mean } => mean_ok(mean),
        SizeDist::Pareto { shape, mean } => shape.is_finite() && shape > 1.0 && mean_ok(mean),
        SizeDist::PackmimeRequest | SizeDist::PackmimeResponse => true,
    }
}

impl SimConfig {
    /// Check every value the engine cannot run with.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check_caps()?;
        let n = self.topology.nodes.len() as u32;
        let mut at = String::new(); // "links[i]", rewritten in place for each link
        for (i, l) in self.topology.links.iter().enumerate() {
            at.clear();
            write!(at, "links[{i}]").expect("a String takes any text");
            l.cfg.validate(&at)?;
            check(
                l.from < n && l.to < n && l.from != l.to,
                || format!("{at}.from/to"),
                format!("{}->{}", l.from, l.to),
                "two different existing nodes",
            )?;
        }
        check(
            self.duration > 0,
            || "duration".into(),
            self.duration,
            "a positive duration",
        )?;
        if let Some(dt) = self.sample_interval {
            check(
                dt > 0 && dt <= self.duration,
                || "sample_interval".into(),
                format!("{} s", secs(dt)),
                "a positive interval, at most the duration",
            )?;
        }
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            check(f.src < n, || at("src"), f.src, "an existing node")?;
            check(
                f.dst < n && f.dst != f.src,
                || at("dst"),
                f.dst,
                "an existing node other than src",
            )?;
            f.validate(&at)?;
            check_period(&at, f.start, f.stop, self.duration)?;
        }
        for (i, u) in self.udp.iter().enumerate() {
            let at = |k: &str| format!("udp[{i}].{k}");
            check(u.src < n, || at("src"), u.src, "an existing node")?;
            check(
                u.dst < n && u.dst != u.src,
                || at("dst"),
                u.dst,
                "an existing node other than src",
            )?;
            check(
                (28..=65_535).contains(&u.packet_size),
                || at("packet_size"),
                u.packet_size,
                "28 to 65535 bytes",
            )?;
            check(
                u.rate_bps() > 0,
                || at("rate"),
                u.rate_bps(),
                "a positive rate",
            )?;
            check_period(&at, u.start, u.stop, self.duration)?;
            if let UdpPattern::OnOff { on, off, .. } = u.pattern {
                check(
                    on > 0 && off > 0,
                    || at("on/off"),
                    format!("{on}/{off}"),
                    "positive on and off periods",
                )?;
            }
        }
        for (i, w) in self.web.iter().enumerate() {
            let at = |k: &str| format!("web[{i}].{k}");
            check(
                !w.servers.is_empty() && w.servers.iter().all(|&s| s < n),
                || at("servers"),
                format!("{:?}", w.servers),
                "one or more existing nodes",
            )?;
            check(
                !w.clients.is_empty() && w.clients.iter().all(|&c| c < n),
                || at("clients"),
                format!("{:?}", w.clients),
                "one or more existing nodes",
            )?;
            // A transfer from a node to itself has no route: servers and clients are apart.
            check(
                !w.clients.iter().any(|c| w.servers.contains(c)),
                || at("clients"),
                format!("{:?}", w.clients),
                "nodes that are not also servers",
            )?;
            check_period(&at, w.start, w.stop, self.duration)?;
            check(
                w.rate.is_finite() && w.rate >= 1e-6 && w.rate <= 1e7,
                || at("rate"),
                num(w.rate),
                "10^-6 to 10^7 transfers per second",
            )?;
            const SIZES: &str = "a fixed size or a mean from 1 byte to 10^12 bytes (and a Pareto shape above 1), or PackMime's";
            check(
                size_ok(&w.size),
                || at("size"),
                format!("{:?}", w.size),
                SIZES,
            )?;
            if let WebModel::Sessions(m) = &w.model {
                check(
                    size_ok(&m.request_size),
                    || at("request_size"),
                    format!("{:?}", m.request_size),
                    SIZES,
                )?;
                check(
                    (0.0..=1.0).contains(&m.persistent),
                    || at("persistent"),
                    num(m.persistent),
                    "a probability from 0 to 1 (PackMime's HTTP/1.1: 0.09)",
                )?;
            }
            w.tcp.validate(&|k: &str| format!("web[{i}].tcp.{k}"))?;
        }
        self.validate_capture()?;
        let links = self.topology.links.len() as u32;
        for (i, c) in self.changes.iter().enumerate() {
            check(
                c.link < links,
                || format!("changes[{i}].link"),
                c.link,
                "an existing link index",
            )?;
            check_period(
                &|_: &str| format!("changes[{i}].at"),
                c.at,
                None,
                self.duration,
            )?;
            if let Some(r) = c.rate_bps {
                check(
                    r > 0 && r <= 10_000_000_000_000,
                    || format!("changes[{i}].rate"),
                    r,
                    "1 bit/s to 10 Tbit/s",
                )?;
            }
            if let Some(d) = c.delay {
                check(
                    d <= 3600 * SEC,
                    || format!("changes[{i}].delay"),
                    format!("{} s", secs(d)),
                    "at most one hour",
                )?;
                let tick = self.topology.links[c.link as usize].cfg.tick;
                if tick != 0 {
                    check_whole_ticks(d, tick, &|| format!("changes[{i}].delay"))?;
                }
            }
        }
        Ok(())
    }
}

impl SimConfig {
    /// The hard caps of [`crate::limits`] on everything sized by the input.
    pub fn check_caps(&self) -> Result<(), ConfigError> {
        let t = &self.topology;
        let count = |what: &str, n: usize, max: usize| {
            check(
                n <= max,
                || what.into(),
                format!("{n} {what}"),
                &format!("at most {max} {what}"),
            )
        };
        count("nodes", t.nodes.len(), MAX_NODES)?;
        count("links", t.links.len(), MAX_LINKS)?;
        count("flows", self.flows.len(), MAX_FLOWS)?;
        count("udp", self.udp.len(), MAX_UDP_FLOWS)?;
        for (i, w) in self.web.iter().enumerate() {
            let pairs = w.servers.len().saturating_mul(w.clients.len());
            check(
                pairs <= MAX_WEB_PAIRS,
                || format!("web[{i}].clients"),
                format!("{pairs} server-client pairs"),
                &format!("at most {MAX_WEB_PAIRS} server-client pairs"),
            )?;
        }
        let work = route_work(self);
        check(work <= MAX_ROUTE_WORK, || "topology".into(), format!("{} nodes and {} links", t.nodes.len(), t.links.len()), &format!("routing the traffic takes {work} steps, above {MAX_ROUTE_WORK}: fewer nodes that send (a host on one link counts as the node it reaches) or a smaller topology"))?;
        if let Some(dt) = self.sample_interval.filter(|&dt| dt > 0) {
            let samples = self.duration / dt;
            check(
                samples <= 10_000_000,
                || "sample_interval".into(),
                format!("{} s", secs(dt)),
                &format!(
                    "at most 10 million samples per run (duration / {} s = {samples})",
                    secs(dt)
                ),
            )?;
            let series = 1
                + 3 * self.flows.len() as u64
                + 6 * t.links.iter().filter(|l| l.monitor).count() as u64;
            let values = samples.saturating_mul(series);
            check(values <= MAX_TRACE_VALUES, || "sample_interval".into(), format!("{} s", secs(dt)), &format!("at most {MAX_TRACE_VALUES} trace values per run ({samples} samples × {series} series)"))?;
        }
        Ok(())
    }
}

impl SimConfig {
    /// Captures name existing flows and links, each once, with a usable snap length.
    fn validate_capture(&self) -> Result<(), ConfigError> {
        use crate::capture::{CapturePoint, MAX_SNAPLEN, MIN_SNAPLEN};
        let c = &self.capture;
        if c.is_empty() {
            return Ok(());
        }
        let allowed = format!("{MIN_SNAPLEN} to {MAX_SNAPLEN} bytes (IPv4 and the longest TCP header, up to the largest IPv4 packet)");
        check(
            (MIN_SNAPLEN..=MAX_SNAPLEN).contains(&c.snaplen),
            || "capture.snaplen".into(),
            c.snaplen,
            &allowed,
        )?;
        let (mut points, mut names) = (
            std::collections::HashSet::new(),
            std::collections::HashSet::new(),
        );
        for (i, f) in c.files.iter().enumerate() {
            let at = || format!("capture.files[{i}]");
            let ok = match f.at {
                CapturePoint::Flow(k) => (k as usize) < self.flows.len(),
                CapturePoint::Link(l) => (l as usize) < self.topology.links.len(),
            };
            check(ok, at, format!("{:?}", f.at), "an existing flow or link")?;
            check(
                points.insert(f.at),
                at,
                format!("{:?}", f.at),
                "each flow or link captured once",
            )?;
            check(
                is_file_name(&f.file) && names.insert(&f.file),
                at,
                &f.file,
                "a file name of its own",
            )?;
        }
        Ok(())
    }
}

/// Whether `v` can name a run directory as it is: one path component.
pub fn is_file_name(v: &str) -> bool {
    (1..=100).contains(&v.chars().count())
        && !v.starts_with('.')
        && !v.chars().any(|c| c == '/' || c == '\\' || c.is_control())
}

/// Distinct (src, dst) routes a configuration needs, both directions.
pub fn route_pairs(cfg: &SimConfig) -> HashSet<(u32, u32)> {
    let mut pairs = HashSet::new();
    for (s, d) in cfg
        .flows
        .iter()
        .map(|f| (f.src, f.dst))
        .chain(cfg.udp.iter().map(|u| (u.src, u.dst)))
    {
        pairs.insert((s, d));
        pairs.insert((d, s));
    }
    for w in &cfg.web {
        for &s in &w.servers {
            for &c in &w.clients {
                pairs.insert((s, c));
                pairs.insert((c, s));
            }
        }
    }
    pairs
}

/// Steps to route them all: a breadth-first tree (nodes + links) per distinct
/// root of a source (see [`crate::routing`]), then a walk of at most
/// [`MAX_ROUTE_LINKS`] links per route.
pub fn route_work(cfg: &SimConfig) -> u64 {
    let t = &cfg.topology;
    let pairs = route_pairs(cfg);
    let one_way = one_way_out(t);
    let roots: HashSet<u32> = pairs.iter().map(|&(s, _)| root(&one_way, s).0).collect();
    let per_tree = (t.nodes.len() + t.links.len()) as u64;
    (roots.len() as u64)
        .saturating_mul(per_tree)
        .saturating_add((pairs.len() as u64).saturating_mul(MAX_ROUTE_LINKS as u64))
}
