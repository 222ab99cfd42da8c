//! Which scenario field drives each cost: the names a refusal gives, and the
//! tally of memory and events per field.

use std::collections::BTreeMap;

use crate::config::{Buffer, SimConfig};

/// A field and its value as the scenario wrote them.
pub(crate) type Field = (String, String);

/// Which scenario field each part of a configuration comes from. A
/// [`SimConfig`] names its own fields; [`crate::ScenarioSpec::build`] names
/// the scenario's (`flows[2].count` for every flow that entry expands to).
#[derive(Clone, Debug, Default)]
pub(crate) struct Origins {
    /// Per flow: the field counting flows like it (one field per `[[flows]]`
    /// entry, its flows one after another).
    pub flow_count: Vec<Field>,
    /// Per flow: the field setting its initial window.
    pub flow_init_cwnd: Vec<Field>,
    /// Per UDP flow: the field setting its packet rate.
    pub udp_rate: Vec<Field>,
    /// Per UDP flow: the list it belongs to.
    pub udp_group: Vec<Field>,
    /// Per link: the field setting its buffer.
    pub link_buffer: Vec<Field>,
    /// Per link: the field setting its rate.
    pub link_rate: Vec<Field>,
    /// The field sizing the topology.
    pub topology: Field,
    /// The field asking for the per-ACK log.
    pub cc_log: Field,
    /// The fields choosing captured flows and links.
    pub capture: CaptureOrigin,
}

/// The fields choosing captured flows and links, and their values.
#[derive(Clone, Debug, Default)]
pub(crate) struct CaptureOrigin {
    /// The field choosing captured flows.
    pub flows: Field,
    /// The field choosing captured links.
    pub links: Field,
}

/// A field named with its value.
pub(super) fn f(field: impl Into<String>, value: impl ToString) -> Field {
    (field.into(), value.to_string())
}

fn buffer_text(b: &Buffer) -> String {
    match b {
        Buffer::Packets(n) => format!("{n} packets"),
        Buffer::Bytes(n) => format!("{n} bytes"),
    }
}

impl Origins {
    /// A configuration's own field names.
    pub(crate) fn of(cfg: &SimConfig) -> Origins {
        let n = cfg.flows.len();
        Origins {
            flow_count: vec![f("flows", format!("{n} flows")); n],
            flow_init_cwnd: cfg
                .flows
                .iter()
                .enumerate()
                .map(|(i, fc)| f(format!("flows[{i}].init_cwnd"), fc.init_cwnd))
                .collect(),
            udp_rate: cfg
                .udp
                .iter()
                .enumerate()
                .map(|(i, u)| f(format!("udp[{i}].rate"), u.rate_bps()))
                .collect(),
            udp_group: vec![f("udp", format!("{} flows", cfg.udp.len())); cfg.udp.len()],
            link_buffer: cfg
                .topology
                .links
                .iter()
                .enumerate()
                .map(|(i, l)| f(format!("links[{i}].buffer"), buffer_text(&l.cfg.buffer)))
                .collect(),
            link_rate: cfg
                .topology
                .links
                .iter()
                .enumerate()
                .map(|(i, l)| f(format!("links[{i}].rate"), l.cfg.rate_bps))
                .collect(),
            topology: f(
                "topology",
                format!(
                    "{} nodes, {} links",
                    cfg.topology.nodes.len(),
                    cfg.topology.links.len()
                ),
            ),
            cc_log: f(
                "flows[].cc_log",
                format!("{} flows", cfg.flows.iter().filter(|fc| fc.cc_log).count()),
            ),
            capture: CaptureOrigin {
                flows: f(
                    "capture.files",
                    format!("{} files", cfg.capture.files.len()),
                ),
                links: f(
                    "capture.files",
                    format!("{} files", cfg.capture.files.len()),
                ),
            },
        }
    }
}

/// Memory and events charged to fields; a `BTreeMap` keeps the report deterministic.
#[derive(Default)]
pub(super) struct Blame {
    /// Bytes per field.
    pub memory: BTreeMap<Field, f64>,
    /// Events per field, a count.
    pub events: BTreeMap<Field, f64>,
}

impl Blame {
    /// Charge `bytes` of memory to `who`.
    pub fn mem(&mut self, who: &Field, bytes: f64) {
        *self.memory.entry(who.clone()).or_default() += bytes;
    }
    /// Charge `n` events to `who`.
    pub fn ev(&mut self, who: &Field, n: f64) {
        *self.events.entry(who.clone()).or_default() += n;
    }
    /// The field charged the most.
    pub fn top(m: &BTreeMap<Field, f64>) -> Field {
        m.iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, _)| k.clone())
            .unwrap_or_default()
    }
}
