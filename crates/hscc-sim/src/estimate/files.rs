//! The run directory's files while they are written, and the scenario Python holds
//! besides the engine. summary.json has a row per flow and per link that carries
//! traffic, the Parquet tables a row per link whatever it carries. summary.json's rows
//! are held several times over once the run has ended (as columns and text while the
//! engine writes them, Python's bytes and the text decoded from them, the objects
//! Python reads back). The scenario stays for the whole run: in Python's form, as
//! manifest.json's text, and as the resolved configuration the simulation was built
//! from (a second copy of every link's and flow's configuration).

use std::mem::size_of;

use crate::config::{FlowConfig, LinkSpec, SimConfig};

use super::links::Load;
use super::origins::Origins;
use super::sizes::{
    FLOW_CONFIG_HEAP, FLOW_ROW_OBJECTS, LINK_ROW_OBJECTS, ROWS_AS_WRITTEN, SCENARIO_IN_MEMORY,
    SCENARIO_PER_FLOW_ENTRY, SCENARIO_PER_LINK, SUMMARY_PER_FLOW, SUMMARY_PER_LINK, TABLE_PER_LINK,
    TEXT_IN_PYTHON,
};
use super::Tally;

/// Charge the files (summary.json's rows of the flows and of the links `load` carries
/// traffic on, the links table's rows) and the scenario (its links and flow entries, with
/// their resolved configuration) to the flow count and the topology.
pub(super) fn charge(cfg: &SimConfig, o: &Origins, load: &Load, tally: &mut Tally) {
    let flows = cfg.flows.len() as f64;
    let links = cfg.topology.links.len() as f64;
    // An entry's flows are named by the same field, one after another.
    let entries = o.flow_count.chunk_by(|a, b| a == b).count() as f64;
    let carrying = load.offered_pps.iter().filter(|&&pps| pps > 0.0).count() as f64;
    let in_memory = |objects: f64| ROWS_AS_WRITTEN + TEXT_IN_PYTHON + objects;
    let flow_rows = flows * SUMMARY_PER_FLOW * in_memory(FLOW_ROW_OBJECTS);
    let flow_entries = flows * (size_of::<FlowConfig>() as f64 + FLOW_CONFIG_HEAP)
        + entries * SCENARIO_PER_FLOW_ENTRY * SCENARIO_IN_MEMORY;
    let link_rows =
        carrying * SUMMARY_PER_LINK * in_memory(LINK_ROW_OBJECTS) + links * TABLE_PER_LINK;
    let link_entries =
        links * (SCENARIO_PER_LINK * SCENARIO_IN_MEMORY + size_of::<LinkSpec>() as f64);
    tally.mem.files += (flow_rows + link_rows) as u64;
    tally.mem.scenario += (flow_entries + link_entries) as u64;
    if let Some(who) = o.flow_count.first() {
        tally.blame.mem(who, flow_rows + flow_entries);
    }
    tally.blame.mem(&o.topology, link_rows + link_entries);
}
