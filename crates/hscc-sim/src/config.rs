//! What a run is made of: links, topology, flows, duration, seed, outputs.
//! Plain data with serde, validated by [`SimConfig::validate`] with errors
//! that name the field, the value and what is allowed.

use core::fmt;

use hscc_cc::CcParams;
use serde::Serialize;

use crate::packet::{DEFAULT_MSS, HEADER_BYTES};
use crate::time::{Time, MS, SEC};

/// A DropTail queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    /// At most this many packets waiting.
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkConfig {
    /// Rate, bit/s.
    pub rate_bps: u64,
    /// Propagation delay, ps.
    pub delay: Time,
    /// Queue limit.
    pub buffer: Buffer,
    /// Bernoulli loss probability per packet, in [0, 1].
    pub loss: f64,
    /// Standard deviation of Gaussian delay jitter, ps (packet order is kept).
    pub jitter: Time,
}

impl LinkConfig {
    /// A lossless, jitter-free link.
    pub fn new(rate_bps: u64, delay: Time, buffer: Buffer) -> LinkConfig {
        LinkConfig { rate_bps, delay, buffer, loss: 0.0, jitter: 0 }
    }

    /// The same link with random loss `p`.
    pub fn with_loss(mut self, p: f64) -> LinkConfig {
        self.loss = p;
        self
    }
}

/// Loss recovery without SACK or with SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    /// Window during recovery: cwnd = ssthresh from the start (RFC 6675 §5 / RFC 6582).
    Classic,
    /// Proportional Rate Reduction (RFC 6937, Linux's default).
    Prr,
}

/// A TCP flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowConfig {
    /// Sending host (node index).
    pub src: u32,
    /// Receiving host (node index).
    pub dst: u32,
    /// Congestion control and its parameters.
    pub cc: CcParams,
    /// Start time.
    pub start: Time,
    /// Time to stop sending new data (None: until the end of the run).
    pub stop: Option<Time>,
    /// Bytes to transfer (None: unlimited bulk transfer).
    pub size: Option<u64>,
    /// Maximum segment size, payload bytes.
    pub mss: u32,
    /// Receiver window, bytes (None: unlimited).
    pub rwnd: Option<u64>,
    /// SACK-based loss recovery (RFC 6675); NewReno (RFC 6582) when off.
    pub sack: bool,
    /// Window reduction during recovery.
    pub recovery: Recovery,
    /// Initial congestion window, segments (RFC 6928 / Linux: 10).
    pub init_cwnd: u32,
    /// Minimum retransmission timeout (Linux: 200 ms; RFC 6298: 1 s).
    pub min_rto: Time,
    /// Initial retransmission timeout (RFC 6298 §2.1: 1 s).
    pub initial_rto: Time,
    /// TCP timestamps (RFC 7323): RTT samples from TSecr when segments were retransmitted.
    pub timestamps: bool,
    /// Delayed ACKs at the receiver.
    pub delayed_ack: bool,
    /// Segments per delayed ACK.
    pub delack_segments: u32,
    /// Delayed-ACK timer (Linux's minimum: 40 ms).
    pub delack_timeout: Time,
    /// Pace at Linux's default rate (2× cwnd/srtt in slow start, 1.2× after) when the algorithm sets no rate.
    pub pacing: bool,
}

impl FlowConfig {
    /// A bulk flow with Linux-like defaults.
    pub fn bulk(src: u32, dst: u32, cc: CcParams) -> FlowConfig {
        FlowConfig {
            src,
            dst,
            cc,
            start: 0,
            stop: None,
            size: None,
            mss: DEFAULT_MSS,
            rwnd: None,
            sack: true,
            recovery: Recovery::Prr,
            init_cwnd: 10,
            min_rto: 200 * MS,
            initial_rto: SEC,
            timestamps: true,
            delayed_ack: true,
            delack_segments: 2,
            delack_timeout: 40 * MS,
            pacing: false,
        }
    }

    /// Bytes of a full-sized segment on the wire.
    pub fn wire_size(&self) -> u32 {
        self.mss + HEADER_BYTES
    }
}

/// A unidirectional link between two nodes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    /// Name for reports (e.g. "bottleneck").
    pub name: String,
    /// Node it leaves.
    pub from: u32,
    /// Node it reaches.
    pub to: u32,
    /// Rate, delay, buffer, loss, jitter.
    pub cfg: LinkConfig,
    /// Record queue traces and the queuing-delay distribution.
    pub monitor: bool,
}

/// Nodes and unidirectional links.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Topology {
    /// Node names.
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<LinkSpec>,
}

/// Everything a run needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimConfig {
    /// Nodes and links.
    pub topology: Topology,
    /// TCP flows.
    pub flows: Vec<FlowConfig>,
    /// Simulated duration.
    pub duration: Time,
    /// Run seed.
    pub seed: u64,
    /// Interval of the time series (None: no traces).
    pub sample_interval: Option<Time>,
}

/// A rejected configuration value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Which field (e.g. `flows[2].mss`).
    pub field: String,
    /// The value given.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} is not allowed ({})", self.field, self.value, self.allowed)
    }
}

impl std::error::Error for ConfigError {}

fn check(ok: bool, field: impl FnOnce() -> String, value: impl fmt::Display, allowed: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError { field: field(), value: value.to_string(), allowed: allowed.to_string() })
    }
}

impl LinkConfig {
    /// Check rate, loss and buffer; `at` names the link in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check(self.rate_bps > 0 && self.rate_bps <= 10_000_000_000_000, || format!("{at}.rate"), self.rate_bps, "1 bit/s to 10 Tbit/s")?;
        check((0.0..=1.0).contains(&self.loss), || format!("{at}.loss"), self.loss, "a probability from 0 to 1")?;
        check(self.delay <= 3600 * SEC, || format!("{at}.delay"), self.delay, "at most one hour")?;
        let b = match self.buffer {
            Buffer::Packets(n) | Buffer::Bytes(n) => n,
        };
        check(b > 0, || format!("{at}.buffer"), b, "at least 1 packet or byte")
    }
}

impl SimConfig {
    /// Check every value the engine cannot run with.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let n = self.topology.nodes.len() as u32;
        for (i, l) in self.topology.links.iter().enumerate() {
            let at = format!("links[{i}]");
            l.cfg.validate(&at)?;
            check(l.from < n && l.to < n && l.from != l.to, || format!("{at}.from/to"), format!("{}->{}", l.from, l.to), "two different existing nodes")?;
        }
        check(self.duration > 0, || "duration".into(), self.duration, "a positive duration")?;
        if let Some(dt) = self.sample_interval {
            check(dt > 0, || "sample_interval".into(), dt, "a positive interval")?;
        }
        check(self.flows.len() <= u32::MAX as usize, || "flows".into(), self.flows.len(), "fewer than 2^32 flows")?;
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            check(f.src < n, || at("src"), f.src, "an existing node")?;
            check(f.dst < n && f.dst != f.src, || at("dst"), f.dst, "an existing node other than src")?;
            check((64..=65_495).contains(&f.mss), || at("mss"), f.mss, "64 to 65495 bytes")?;
            check(f.init_cwnd >= 1, || at("init_cwnd"), f.init_cwnd, "at least 1 segment")?;
            check(f.delack_segments >= 1, || at("delack_segments"), f.delack_segments, "at least 1")?;
            check(f.min_rto > 0 && f.initial_rto >= f.min_rto, || at("min_rto"), f.min_rto, "positive and not above initial_rto")?;
            if let Some(s) = f.size {
                check(s > 0, || at("size"), s, "at least 1 byte")?;
            }
            if let Some(w) = f.rwnd {
                check(w >= f.mss as u64, || at("rwnd"), w, "at least one MSS")?;
            }
            if let Some(stop) = f.stop {
                check(stop > f.start, || at("stop"), stop, "after start")?;
            }
            f.cc.check().map_err(|e| ConfigError { field: at("cc"), value: f.cc.name().into(), allowed: e.to_string() })?;
        }
        Ok(())
    }
}
