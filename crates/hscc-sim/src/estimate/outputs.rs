//! What the run keeps besides the network's state: the sampled traces and
//! their samples, and the event queue (the summaries' files are `files.rs`).

use crate::config::SimConfig;
use crate::time::secs;

use super::origins::{f, Origins};
use super::sizes::{GROW, JSON_PER_VALUE, QUEUE_ENTRY};
use super::Tally;

/// Charge the traces (preallocated: samples × series) with their JSON, the
/// sampling events and the scheduled changes; `monitored` links, a count.
pub(super) fn charge_traces(cfg: &SimConfig, monitored: f64, tally: &mut Tally) {
    if let Some(dt) = cfg.sample_interval {
        let samples = (cfg.duration / dt + 1) as f64;
        let series = 1.0 + 4.0 * cfg.flows.len() as f64 + 6.0 * monitored;
        let bytes = samples * (8.0 + 28.0 * cfg.flows.len() as f64 + 48.0 * monitored);
        let json = samples * series * JSON_PER_VALUE;
        tally.mem.traces = bytes as u64;
        tally.mem.files += json as u64;
        tally.evs.samples += samples as u64;
        let who = f(
            "sample_interval",
            format!("{} s", crate::config::num(secs(dt))),
        );
        tally.blame.mem(&who, bytes + json);
        tally.blame.ev(&who, samples);
    }
    tally.evs.samples += cfg.changes.len() as u64;
}

/// Charge the event queue: links, three timers a flow or web transfer in
/// progress (`transfers`, a count), sources.
pub(super) fn charge_event_queue(cfg: &SimConfig, o: &Origins, transfers: f64, tally: &mut Tally) {
    let entries = cfg.topology.links.len() as f64
        + 3.0 * (cfg.flows.len() as f64 + transfers)
        + (cfg.udp.len() + cfg.web.len() + cfg.changes.len() + 2) as f64;
    tally.mem.queue = (entries * QUEUE_ENTRY * GROW) as u64;
    tally.blame.mem(&o.topology, entries * QUEUE_ENTRY * GROW);
}
