//! What a run produces: per-flow and per-link summaries and sampled traces,
//! serialisable for the Python side.

use serde::Serialize;

use crate::capture::Captures;
use crate::config::Buffer;
use crate::packet::Kind;
use crate::sim::Sim;
pub use crate::sim::{FlowTrace, LinkTrace, Traces};
use crate::stats::{jain_index, FlowCounters, LinkCounters};
use crate::tcp::FlowCcLog;
use crate::time::{secs, Time, SEC};
use crate::udp::UdpResult;
use crate::web::WebResult;

/// Summary of one flow.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Flow index.
    pub id: u32,
    /// Congestion-control algorithm.
    pub algorithm: String,
    /// Sending node name.
    pub src: String,
    /// Receiving node name.
    pub dst: String,
    /// Round-trip propagation and serialization delay of the path (framing
    /// included; a tick-served link counted as continuous), s.
    pub base_rtt_s: f64,
    /// Start time (the configured start plus the drawn start-up offset), s.
    pub start_s: f64,
    /// End of the active period: when the last byte was acknowledged, else the end of the run, s.
    pub end_s: f64,
    /// Payload bits delivered in order per second of the active period.
    pub goodput_bps: f64,
    /// When the last byte was acknowledged (finite transfer, or stopped flow drained), s.
    pub completion_s: Option<f64>,
    /// Congestion window at the end, segments.
    pub final_cwnd: u32,
    /// Smoothed RTT at the end, s.
    pub srtt_s: f64,
    /// Smallest RTT sample, s.
    pub min_rtt_s: f64,
    /// Counters.
    pub counters: FlowCounters,
    /// Times of the delay-detected congestion signals of its algorithm, s.
    pub signals_s: Vec<f64>,
}

/// Summary of one unidirectional link.
#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    /// Link index.
    pub id: u32,
    /// Link name.
    pub name: String,
    /// From node name.
    pub from: String,
    /// To node name.
    pub to: String,
    /// Rate, bit/s.
    pub rate_bps: u64,
    /// Fraction of the run spent transmitting: bytes that reached the far end
    /// (lost there too, with the loss point after the queue), with the link's
    /// framing, × 8 over rate × run length.
    pub utilization: f64,
    /// Counters.
    pub counters: LinkCounters,
    /// Whether queuing delays were recorded.
    pub monitored: bool,
    /// Mean queuing delay, s (monitored links).
    pub mean_qdelay_s: f64,
    /// 99th-percentile queuing delay, s (monitored links).
    pub p99_qdelay_s: f64,
    /// Largest queuing delay, s (monitored links).
    pub max_qdelay_s: f64,
    /// Time-averaged backlog in packets (Little's law: Σ queuing delay / run time,
    /// with the waits of packets a queue discipline dropped from the queue; monitored links).
    pub mean_queue_pkts: f64,
    /// Time-averaged backlog in bytes (frames: packets plus the link's framing).
    pub mean_queue_bytes: f64,
    /// Mean backlog over the buffer size (packets or bytes, as the limit is set).
    pub normalized_occupancy: f64,
}

/// Everything a run produced.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    /// Simulated duration, s.
    pub duration_s: f64,
    /// Run seed.
    pub seed: u64,
    /// Events processed.
    pub events: u64,
    /// Per flow.
    pub flows: Vec<FlowResult>,
    /// Per link.
    pub links: Vec<LinkResult>,
    /// UDP flows.
    pub udp: Vec<UdpResult>,
    /// Web sources.
    pub web: Vec<WebResult>,
    /// Jain's index of the flows' goodputs; `None` without flows or traffic
    /// ([`crate::stats::jain_index`]).
    pub jain_index: Option<f64>,
    /// Sampled traces (empty without a sampling interval).
    pub traces: Traces,
    /// The per-ACK congestion-control logs of the traced flows (not in the
    /// JSON: [`crate::tcp::cc_log::columns`] makes them a table).
    #[serde(skip)]
    pub cc_log: Vec<FlowCcLog>,
    /// Packet captures and the captured links' drop logs (empty without `capture`).
    pub captures: Captures,
}

impl RunResult {
    pub(crate) fn build(sim: &Sim, traces: Traces, cc_log: Vec<FlowCcLog>) -> RunResult {
        let cfg = &sim.cfg;
        let now = sim.net.now;
        let topo = &cfg.topology;
        let flows: Vec<FlowResult> = sim
            .flows
            .iter()
            .zip(&cfg.flows)
            .enumerate()
            .map(|(i, (f, fc))| {
                let s = &f.sender;
                // The actual start: the configured one plus the drawn start-up offset.
                let end = s.done_at.unwrap_or(now).min(now).max(f.start);
                let active = secs(end - f.start);
                let bytes = f.receiver.delivered_bytes;
                // In-order delivery is the receiver's state; the counters report it.
                let counters = FlowCounters {
                    delivered_segs: f.receiver.rcv_nxt,
                    delivered_bytes: bytes,
                    ce_received: f.receiver.ce_received(),
                    ..s.counters
                };
                let path = |route: u32, size: u32| -> Time {
                    sim.path(route)
                        .iter()
                        .map(|&l| {
                            let c = &topo.links[l as usize].cfg;
                            c.delay + (size + c.framing) as u64 * 8 * SEC / c.rate_bps
                        })
                        .sum()
                };
                // Plus the connection's access delay, in both directions.
                let base = path(f.data_route, fc.wire_size())
                    + path(f.ack_route, crate::packet::HEADER_BYTES)
                    + 2 * s.access_delay;
                FlowResult {
                    id: i as u32,
                    algorithm: fc.cc.name().to_string(),
                    src: topo.nodes[fc.src as usize].clone(),
                    dst: topo.nodes[fc.dst as usize].clone(),
                    base_rtt_s: secs(base),
                    start_s: secs(f.start),
                    end_s: secs(end),
                    goodput_bps: if active > 0.0 {
                        bytes as f64 * 8.0 / active
                    } else {
                        0.0
                    },
                    completion_s: s.done_at.map(secs),
                    final_cwnd: s.tp.snd_cwnd,
                    srtt_s: secs(s.rtt.srtt()),
                    min_rtt_s: if s.rtt.min_rtt == Time::MAX {
                        0.0
                    } else {
                        secs(s.rtt.min_rtt)
                    },
                    counters,
                    signals_s: f.signals.iter().map(|&t| secs(t)).collect(),
                }
            })
            .collect();
        let run = secs(now);
        let links = sim
            .net
            .links
            .iter()
            .zip(&topo.links)
            .enumerate()
            .map(|(i, (l, spec))| {
                let h = l.qdelay.as_ref();
                // Packets dropped from a discipline's queue waited too (0 under DropTail).
                let gone = l.queued_drops();
                let mean_queue_pkts = h.map_or(0.0, |h| {
                    if run > 0.0 {
                        (h.sum_s() + gone.wait as f64 / SEC as f64) / run
                    } else {
                        0.0
                    }
                });
                let mean_queue_bytes = if run > 0.0 {
                    (l.queue_byte_time + gone.byte_wait) as f64 / SEC as f64 / run
                } else {
                    0.0
                };
                let normalized_occupancy = match spec.cfg.buffer {
                    Buffer::Packets(n) => mean_queue_pkts / n as f64,
                    Buffer::Bytes(b) => mean_queue_bytes / b as f64,
                };
                LinkResult {
                    id: i as u32,
                    name: spec.name.clone(),
                    from: topo.nodes[spec.from as usize].clone(),
                    to: topo.nodes[spec.to as usize].clone(),
                    rate_bps: spec.cfg.rate_bps,
                    utilization: if now > 0 {
                        (l.wire_bytes() as f64 * 8.0 / (l.rate_bps as f64 * secs(now))).min(1.0)
                    } else {
                        0.0
                    },
                    counters: l.counters,
                    monitored: h.is_some(),
                    mean_qdelay_s: h.map_or(0.0, |h| h.mean_s()),
                    p99_qdelay_s: h.map_or(0.0, |h| h.quantile_s(0.99)),
                    max_qdelay_s: h.map_or(0.0, |h| h.max_s()),
                    mean_queue_pkts,
                    mean_queue_bytes,
                    normalized_occupancy,
                }
            })
            .collect();
        let mut udp_in_network = vec![0u64; sim.udp.len()];
        for p in sim
            .net
            .links
            .iter()
            .flat_map(|l| l.packets())
            .filter(|p| p.kind == Kind::Udp)
        {
            udp_in_network[p.flow as usize] += 1;
        }
        let udp = sim
            .udp
            .iter()
            .enumerate()
            .map(|(i, u)| UdpResult::new(i as u32, &u.source, &u.sink, udp_in_network[i], now))
            .collect();
        let web = sim
            .web
            .iter()
            .enumerate()
            .map(|(i, w)| WebResult {
                id: i as u32,
                started: w.stats.started,
                completed: w.stats.completed,
                refused: w.stats.refused,
                bins: w.stats.summary(),
                sessions: matches!(w.cfg.model, crate::web::WebModel::Sessions(_))
                    .then(|| w.stats.sessions()),
            })
            .collect();
        let goodputs: Vec<f64> = flows.iter().map(|f| f.goodput_bps).collect();
        RunResult {
            duration_s: secs(now),
            seed: cfg.seed,
            events: sim.events,
            jain_index: jain_index(&goodputs),
            flows,
            links,
            udp,
            web,
            traces,
            cc_log,
            captures: Captures::default(),
        }
    }

    /// Goodput of flow `i` between `t0` and `t1` seconds, from the traces
    /// (intervals that end inside the window count), bit/s.
    pub fn goodput_between(&self, i: usize, t0: f64, t1: f64) -> Option<f64> {
        let tr = self.traces.flows.get(i)?;
        let dt = self.traces.interval_s;
        let v: Vec<f64> = self
            .traces
            .time_s
            .iter()
            .zip(&tr.throughput_bps)
            .filter(|(t, _)| **t - dt >= t0 - 1e-12 && **t <= t1 + 1e-12)
            .map(|(_, b)| *b)
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }

    /// Goodput of every flow: total delivered payload bits over the run, per second.
    pub fn goodputs(&self) -> Vec<f64> {
        self.flows.iter().map(|f| f.goodput_bps).collect()
    }

    /// Serialize to JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("results are plain data")
    }
}

/// Summaries of a simulation: they read the loop's state, so they sit here,
/// above it.
impl Sim {
    /// Run to the configured duration and summarise.
    pub fn run(mut self) -> RunResult {
        let end = self.cfg.duration;
        self.run_until(end);
        self.finish()
    }

    /// Run on to `t`, then summarise.
    pub fn finish_after(mut self, t: Time) -> RunResult {
        self.run_until(t);
        self.finish()
    }

    /// Summarise the run so far.
    pub fn finish(mut self) -> RunResult {
        let now = self.net.now;
        for (i, l) in self
            .net
            .links
            .iter_mut()
            .enumerate()
            .filter(|(_, l)| l.has_aqm())
        {
            l.service(now, i as u32, &mut self.net.q);
        }
        for f in &mut self.flows {
            f.sender.account_slow_start(now);
        }
        // Moved, not copied: traces can be the largest part of a run.
        let traces = std::mem::take(&mut self.traces);
        let cc_log = self.flows[..self.cfg.flows.len()]
            .iter_mut()
            .enumerate()
            .filter(|(_, f)| f.sender.cc.log.is_some())
            .map(|(i, f)| FlowCcLog {
                flow: i as u32,
                calls: f.sender.cc.take_log(),
            })
            .collect();
        let mut r = RunResult::build(&self, traces, cc_log);
        if let Some(c) = self.net.capture.take() {
            let logs = self
                .net
                .links
                .iter_mut()
                .enumerate()
                .filter_map(|(i, l)| l.take_capture().map(|c| (i as u32, c)))
                .collect();
            let access: Vec<Time> = self.flows[..self.cfg.flows.len()]
                .iter()
                .map(|f| f.sender.access_delay)
                .collect();
            r.captures = c.finish(&self.cfg, &access, logs);
        }
        r
    }
}
