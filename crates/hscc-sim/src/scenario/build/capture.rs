//! `[output] pcap` as the engine's captures.

use super::err;
use super::flows::flow_by_label;
use crate::capture::{CaptureConfig, CaptureFile, CapturePoint, MAX_SNAPLEN, MIN_SNAPLEN};
use crate::config::{ConfigError, Topology};
use crate::scenario::spec::*;

/// `[output] pcap` as the engine's captures: flows by label, links by name.
pub(super) fn capture(
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
pub(super) fn capture_origin(p: &PcapSpec) -> crate::estimate::CaptureOrigin {
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
