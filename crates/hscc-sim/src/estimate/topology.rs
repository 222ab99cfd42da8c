//! The network itself: nodes, links with their configuration and state, the delay
//! histograms of monitored links, and the routes; and the links' summaries the run
//! ends with (their files are `files.rs`).

use std::collections::HashMap;
use std::mem::size_of;

use crate::config::{LinkSpec, SimConfig};
use crate::link::Link;
use crate::results::LinkResult;

use super::origins::Origins;
use super::sizes::{DELAY_HISTOGRAM, GROW};
use super::Tally;

/// Charge the topology and the `routes` the traffic asked for; the monitored links, a count.
pub(super) fn charge(
    cfg: &SimConfig,
    o: &Origins,
    routes: &HashMap<(u32, u32), Vec<u32>>,
    tally: &mut Tally,
) -> f64 {
    let t = &cfg.topology;
    let monitored = t.links.iter().filter(|l| l.monitor).count() as f64;
    let route_bytes: f64 = routes.values().map(|r| 72.0 + 4.0 * r.len() as f64).sum();
    let topo = t.nodes.iter().map(|n| 24.0 + n.len() as f64).sum::<f64>()
        + t.links
            .iter()
            .map(|l| (size_of::<LinkSpec>() + size_of::<Link>()) as f64 + 2.0 * l.name.len() as f64)
            .sum::<f64>()
        + monitored * DELAY_HISTOGRAM
        + route_bytes * GROW;
    let summaries = t.links.len() as f64 * size_of::<LinkResult>() as f64;
    tally.mem.topology = topo as u64;
    tally.mem.summaries += summaries as u64;
    tally.blame.mem(&o.topology, topo + summaries);
    monitored
}
