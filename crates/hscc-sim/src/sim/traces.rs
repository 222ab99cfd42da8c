//! Time series sampled at the output interval: per flow and per monitored link.

use serde::Serialize;

use super::Flow;
use crate::config::SimConfig;
use crate::link::Link;
use crate::time::{secs, Time};

/// Time series of one flow, one value per sampling interval.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowTrace {
    /// Goodput over the interval ending at the sample, bit/s.
    pub throughput_bps: Vec<f64>,
    /// Congestion window at the sample, segments.
    pub cwnd: Vec<u32>,
    /// Smoothed RTT at the sample, s.
    pub srtt_s: Vec<f64>,
    /// Pacing rate at the sample, as Linux's socket would hold it
    /// ([`crate::tcp::Sender::sk_pacing_rate`]), bit/s.
    pub pacing_rate_bps: Vec<f64>,
}

/// Time series of one monitored link.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkTrace {
    /// Link index.
    pub link: u32,
    /// Link name.
    pub name: String,
    /// Packets waiting at the sample.
    pub queue_pkts: Vec<u64>,
    /// Bytes waiting at the sample (frames: packets plus the link's framing).
    pub queue_bytes: Vec<u64>,
    /// Mean queuing delay of packets that left the queue during the interval, s.
    pub qdelay_s: Vec<f64>,
    /// Packets dropped (queue full, queue discipline or random) during the interval.
    pub drops: Vec<u64>,
    /// Packets CE-marked by the queue discipline during the interval.
    pub marks: Vec<u64>,
    /// Fraction of the interval the link spent transmitting (bytes that reached
    /// the far end, with the link's framing, over rate × interval).
    pub utilization: Vec<f64>,
}

/// Every trace of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Traces {
    /// Sampling interval, s.
    pub interval_s: f64,
    /// Sample times, s.
    pub time_s: Vec<f64>,
    /// One per flow.
    pub flows: Vec<FlowTrace>,
    /// One per monitored link.
    pub links: Vec<LinkTrace>,
    #[serde(skip)]
    last_flow_bytes: Vec<u64>,
    #[serde(skip)]
    last_link: Vec<(u64, u64, u64, f64, u64)>,
}

impl Traces {
    /// Empty traces shaped for `cfg`.
    pub fn new(cfg: &SimConfig) -> Traces {
        let Some(dt) = cfg.sample_interval else {
            return Traces::default();
        };
        // The number of samples is known: reserve it exactly (growth would waste up to half).
        let n = (cfg.duration / dt + 1) as usize;
        let links: Vec<LinkTrace> = cfg
            .topology
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| l.monitor)
            .map(|(i, l)| LinkTrace {
                link: i as u32,
                name: l.name.clone(),
                queue_pkts: Vec::with_capacity(n),
                queue_bytes: Vec::with_capacity(n),
                qdelay_s: Vec::with_capacity(n),
                drops: Vec::with_capacity(n),
                marks: Vec::with_capacity(n),
                utilization: Vec::with_capacity(n),
            })
            .collect();
        let flow = || FlowTrace {
            throughput_bps: Vec::with_capacity(n),
            cwnd: Vec::with_capacity(n),
            srtt_s: Vec::with_capacity(n),
            pacing_rate_bps: Vec::with_capacity(n),
        };
        Traces {
            interval_s: secs(dt),
            time_s: Vec::with_capacity(n),
            flows: (0..cfg.flows.len()).map(|_| flow()).collect(),
            last_flow_bytes: vec![0; cfg.flows.len()],
            last_link: vec![(0, 0, 0, 0.0, 0); links.len()],
            links,
        }
    }

    /// Record one sample at `now`.
    pub fn sample(&mut self, now: Time, flows: &[Flow], links: &[Link]) {
        self.time_s.push(secs(now));
        let dt = self.interval_s;
        for (i, f) in flows.iter().enumerate() {
            let t = &mut self.flows[i];
            let bytes = f.receiver.delivered_bytes;
            t.throughput_bps
                .push((bytes - self.last_flow_bytes[i]) as f64 * 8.0 / dt);
            self.last_flow_bytes[i] = bytes;
            t.cwnd.push(f.sender.tp.snd_cwnd);
            t.srtt_s.push(secs(f.sender.rtt.srtt()));
            t.pacing_rate_bps
                .push(f.sender.sk_pacing_rate() as f64 * 8.0);
        }
        for (k, t) in self.links.iter_mut().enumerate() {
            let l = &links[t.link as usize];
            let (tx0, drops0, n0, sum0, marks0) = self.last_link[k];
            let (n, sum) = l
                .qdelay
                .as_ref()
                .map_or((0, 0.0), |h| (h.count(), h.mean_s() * h.count() as f64));
            let drops = l.counters.drops_queue + l.counters.drops_aqm + l.counters.drops_random;
            t.queue_pkts.push(l.queue_len() as u64);
            t.queue_bytes.push(l.queue_bytes());
            t.qdelay_s.push(if n > n0 {
                (sum - sum0) / (n - n0) as f64
            } else {
                0.0
            });
            t.drops.push(drops - drops0);
            t.marks.push(l.counters.marks - marks0);
            t.utilization
                .push(((l.wire_bytes() - tx0) as f64 * 8.0 / (l.rate_bps as f64 * dt)).min(1.0));
            self.last_link[k] = (l.wire_bytes(), drops, n, sum, l.counters.marks);
        }
    }
}
