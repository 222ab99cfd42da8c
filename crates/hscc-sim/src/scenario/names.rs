//! What a scenario's traffic is called: the run's name as a file name, and the
//! label of every source as the tables, the per-ACK log and the plots show it.
//! The one owner of these rules; Python asks for them through `resolve`.

use std::collections::HashMap;

use hscc_cc::CcParams;

use super::build::err;
use super::spec::ScenarioSpec;
use crate::config::ConfigError;
pub use hscc_model::config::is_file_name;

/// Longest run name, characters (see [`is_file_name`]).
const MAX_NAME_CHARS: usize = 100;

/// `v` made a run name: characters a file name cannot have (`/`, `\`, control
/// characters) become `_`, leading dots go, at most 100 characters are kept;
/// "scenario" if nothing is left. The result always passes [`is_file_name`].
pub fn safe_file_name(v: &str) -> String {
    let name: String = v
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .skip_while(|&c| c == '.')
        .take(MAX_NAME_CHARS)
        .collect();
    if name.is_empty() {
        "scenario".into()
    } else {
        name
    }
}

/// Every source's label, in engine order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels {
    /// (index in `flows`, label) of every TCP flow, counts expanded.
    pub tcp: Vec<(u32, String)>,
    /// (source, label) of every UDP flow: `udp[i]` entries, then two per `voip[i]` call.
    pub udp: Vec<(String, String)>,
    /// The label of every `web` source.
    pub web: Vec<String>,
}

impl ScenarioSpec {
    /// The name is one file-name component; labels are unique across all traffic.
    pub(super) fn check_names(&self) -> Result<(), ConfigError> {
        if let Some(name) = &self.name {
            if !is_file_name(name) {
                return Err(err("name", format!("{name:?}"), "1 to 100 characters, usable as a file name: no /, \\, control characters or leading dot"));
            }
        }
        let labels = self
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| (format!("flows[{i}]"), &f.label))
            .chain(
                self.udp
                    .iter()
                    .enumerate()
                    .map(|(i, u)| (format!("udp[{i}]"), &u.label)),
            )
            .chain(
                self.voip
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (format!("voip[{i}]"), &v.label)),
            )
            .chain(
                self.web
                    .iter()
                    .enumerate()
                    .map(|(i, w)| (format!("web[{i}]"), &w.label)),
            );
        let mut seen: HashMap<&str, String> = HashMap::new();
        for (at, label) in labels {
            let Some(label) = label else { continue };
            if let Some(first) = seen.get(label.as_str()) {
                return Err(err(
                    format!("{at}.label"),
                    format!("{label:?}"),
                    format!("a label not used by another entry ({first} has it)"),
                ));
            }
            seen.insert(label, at);
        }
        Ok(())
    }

    /// The label of every TCP flow the engine runs, in engine order, as the
    /// tables show it: the entry's `label` ("LABEL #k" with a `count`), else
    /// "ALGORITHM INDEX" (the algorithm's canonical name).
    pub fn flow_labels(&self) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.flows {
            let algorithm = if hscc_program::is_program(&f.algorithm) {
                hscc_program::program_name(&f.algorithm)
            } else {
                CcParams::from_name(&f.algorithm).map_or(f.algorithm.as_str(), |c| c.name())
            };
            for k in 0..f.count {
                out.push(match &f.label {
                    None => format!("{algorithm} {}", out.len()),
                    Some(l) if f.count == 1 => l.clone(),
                    Some(l) => format!("{l} #{k}"),
                });
            }
        }
        out
    }

    /// Every source's label: TCP as [`ScenarioSpec::flow_labels`]; a UDP flow its
    /// label or "PATTERN INDEX"; a VoIP call two flows, "LABEL →" and "LABEL ←"
    /// ("voip INDEX" without a label); a web source its label or "web INDEX".
    pub fn labels(&self) -> Labels {
        let entries = self
            .flows
            .iter()
            .enumerate()
            .flat_map(|(i, f)| std::iter::repeat_n(i as u32, f.count));
        let mut udp: Vec<(String, String)> = self
            .udp
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let pattern = serde_json::to_value(u.pattern).expect("plain data");
                let pattern = pattern.as_str().unwrap_or("udp").to_string();
                (
                    format!("udp[{i}]"),
                    u.label.clone().unwrap_or(format!("{pattern} {i}")),
                )
            })
            .collect();
        for (i, v) in self.voip.iter().enumerate() {
            let name = v.label.clone().unwrap_or(format!("voip {i}"));
            udp.push((format!("voip[{i}]"), format!("{name} →")));
            udp.push((format!("voip[{i}]"), format!("{name} ←")));
        }
        Labels {
            tcp: entries.zip(self.flow_labels()).collect(),
            udp,
            web: self
                .web
                .iter()
                .enumerate()
                .map(|(i, w)| w.label.clone().unwrap_or(format!("web {i}")))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_safe_name_is_a_file_name() {
        for (raw, want) in [
            ("two-reno", "two-reno"),
            ("a/b\\c", "a_b_c"),
            ("..hidden", "hidden"),
            ("...", "scenario"),
            ("", "scenario"),
            ("tab\there\u{85}", "tab_here_"),
        ] {
            let got = safe_file_name(raw);
            assert_eq!(got, want, "{raw:?}");
            assert!(is_file_name(&got), "{got:?}");
        }
        let long = "é".repeat(150);
        assert_eq!(safe_file_name(&long).chars().count(), 100);
    }
}
