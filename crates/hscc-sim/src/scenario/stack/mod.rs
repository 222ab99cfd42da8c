//! Reference-stack profiles: `stack = "linux"`, `"linux2.6"`, `"ns2"`, `"ns2-linux"`, `"ns3"` or
//! `"windows2008"`, at the top of a
//! scenario (every flow's) or in a `[[flows]]` entry (its own). A profile is
//! one table — knob, value, the source line of the reference stack that fixes
//! it — and fills, when a scenario is read, each knob a flow entry leaves out:
//! any knob the scenario sets wins. The field reference (docs/scenario.md,
//! `hscc fields`) prints these tables ([`profiles_json`]); `hscc check` prints
//! what a profile set ([`stack_uses`]).
//!
//! Without `stack`, a flow keeps hscc's own defaults (each field's default),
//! so that every existing scenario gives the results it gave.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::spec::{FlowSpec, ScenarioSpec};

mod linux;
mod linux26;
mod ns2;
mod ns2_linux;
mod ns3;
mod windows2008;

/// A reference TCP stack whose behaviour a flow takes: the knobs of its
/// profile that the scenario leaves out (see "Reference stacks" below).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// Linux 6.x with its default sysctls.
    Linux,
    /// Linux 2.6.31 (2009) with its default sysctls.
    #[serde(rename = "linux2.6")]
    Linux26,
    /// ns-2.35's Sack1 agent and TCPSink with their defaults.
    Ns2,
    /// ns-2.35's TCP-Linux agent with the Sack1 sink.
    #[serde(rename = "ns2-linux")]
    Ns2Linux,
    /// ns-3 (3.44) as validation/ns3 runs it.
    Ns3,
    /// Windows Server 2008 and Vista's TCP/IP stack with its defaults.
    Windows2008,
}

/// One row of a profile: a flow knob, its value and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Setting {
    /// The flow field (`min_rto`), or an algorithm parameter (`params.hystart`).
    pub knob: &'static str,
    /// The value as a scenario writes it, JSON (`"200ms"`, `10`, `true`).
    pub value: &'static str,
    /// Only flows of this algorithm (its canonical name); every flow when absent.
    pub algorithm: Option<&'static str>,
    /// The line of the reference stack's source (or the harness) that fixes the value.
    pub source: &'static str,
}

const fn all(knob: &'static str, value: &'static str, source: &'static str) -> Setting {
    Setting {
        knob,
        value,
        algorithm: None,
        source,
    }
}

const fn only(
    algorithm: &'static str,
    knob: &'static str,
    value: &'static str,
    source: &'static str,
) -> Setting {
    Setting {
        knob,
        value,
        algorithm: Some(algorithm),
        source,
    }
}

impl Stack {
    /// Every profile, in the order the reference lists them.
    pub const ALL: [Stack; 6] = [
        Stack::Linux,
        Stack::Linux26,
        Stack::Ns2,
        Stack::Ns2Linux,
        Stack::Ns3,
        Stack::Windows2008,
    ];

    /// The name a scenario writes.
    pub fn name(self) -> &'static str {
        match self {
            Stack::Linux => "linux",
            Stack::Linux26 => "linux2.6",
            Stack::Ns2 => "ns2",
            Stack::Ns2Linux => "ns2-linux",
            Stack::Ns3 => "ns3",
            Stack::Windows2008 => "windows2008",
        }
    }

    /// The profile named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Stack> {
        Stack::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The profile's table.
    pub fn settings(self) -> &'static [Setting] {
        match self {
            Stack::Linux => linux::LINUX,
            Stack::Linux26 => linux26::LINUX_2_6,
            Stack::Ns2 => ns2::NS2,
            Stack::Ns2Linux => ns2_linux::settings(),
            Stack::Ns3 => ns3::NS3,
            Stack::Windows2008 => windows2008::WINDOWS_2008,
        }
    }

    /// What the profile is, and what it leaves to the scenario.
    pub fn about(self) -> &'static str {
        match self {
            Stack::Linux => linux::ABOUT,
            Stack::Linux26 => linux26::ABOUT,
            Stack::Ns2 => ns2::ABOUT,
            Stack::Ns2Linux => ns2_linux::ABOUT,
            Stack::Ns3 => ns3::ABOUT,
            Stack::Windows2008 => windows2008::ABOUT,
        }
    }
}

/// The stack a flow entry takes: its own, or the scenario's.
fn effective(s: &ScenarioSpec, f: &FlowSpec) -> Option<Stack> {
    f.stack.or(s.stack)
}

/// The canonical name of the algorithm `name` (itself when unknown: the build names the error).
fn canonical(name: &str) -> String {
    hscc_cc::CcParams::from_name(name).map_or_else(|_| name.to_string(), |c| c.name().to_string())
}

/// The scenario text with every flow entry's profile knobs filled in where the
/// entry leaves them out; `None` when no entry takes a profile (or the text is
/// not a JSON table: the reader names the error).
pub(super) fn fill(text: &str) -> Option<String> {
    let mut scenario: Value = serde_json::from_str(text).ok()?;
    let top = scenario.get("stack").map(named);
    let flows = scenario.get_mut("flows")?.as_array_mut()?;
    let mut changed = false;
    for flow in flows.iter_mut().filter_map(Value::as_object_mut) {
        let stack = match flow.get("stack") {
            Some(own) => named(own),
            None => top.flatten(),
        };
        // An unknown name stays for the reader to refuse, naming the field.
        let Some(stack) = stack else { continue };
        let algorithm = canonical(
            flow.get("algorithm")
                .and_then(Value::as_str)
                .unwrap_or("reno"),
        );
        for s in stack.settings() {
            if s.algorithm.is_some_and(|a| a != algorithm) {
                continue;
            }
            changed |= fill_knob(flow, s);
        }
    }
    changed.then(|| scenario.to_string())
}

fn named(v: &Value) -> Option<Stack> {
    v.as_str().and_then(Stack::from_name)
}

/// Set the knob of `s` in `flow` unless the flow sets it; whether it did.
fn fill_knob(flow: &mut Map<String, Value>, s: &Setting) -> bool {
    let value: Value = serde_json::from_str(s.value).expect("a profile's values are JSON");
    let (table, key) = match s.knob.split_once('.') {
        Some((outer, key)) => {
            let Some(table) = flow
                .entry(outer)
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
            else {
                return false; // not a table: the reader names the error
            };
            (table, key)
        }
        None => (flow, s.knob),
    };
    if table.contains_key(key) {
        return false;
    }
    table.insert(key.to_string(), value);
    true
}

/// What a profile set in one flow entry (see [`stack_uses`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StackUse {
    /// The entry's index in `flows`.
    pub flow: usize,
    /// The profile.
    pub stack: Stack,
    /// The profile's knobs for this entry's algorithm, as the profile writes them.
    pub settings: Vec<Setting>,
    /// The knobs the scenario sets to another value: (knob, its value, normalized JSON).
    pub overridden: Vec<(&'static str, Value)>,
}

/// For each flow entry that takes a profile: the profile's knobs, and those
/// the scenario sets otherwise.
pub fn stack_uses(s: &ScenarioSpec) -> Vec<StackUse> {
    s.flows
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            let stack = effective(s, f)?;
            let algorithm = canonical(&f.algorithm);
            let flow = serde_json::to_value(f).expect("a flow always serializes");
            let settings: Vec<Setting> = stack
                .settings()
                .iter()
                .filter(|s| s.algorithm.is_none_or(|a| a == algorithm))
                .copied()
                .collect();
            let overridden = settings
                .iter()
                .filter_map(|s| {
                    let ours = knob(&flow, s.knob)?;
                    (Some(ours) != normalized(s).as_ref()).then(|| (s.knob, ours.clone()))
                })
                .collect();
            Some(StackUse {
                flow: i,
                stack,
                settings,
                overridden,
            })
        })
        .collect()
}

/// The knob's value in a serialized flow.
fn knob<'a>(flow: &'a Value, knob: &str) -> Option<&'a Value> {
    knob.split('.').try_fold(flow, |v, k| v.get(k))
}

/// The setting's value as a normalized flow holds it (SI numbers).
fn normalized(s: &Setting) -> Option<Value> {
    let mut flow = Map::new();
    fill_knob(&mut flow, s);
    let spec: FlowSpec = serde_json::from_value(Value::Object(flow)).ok()?;
    knob(&serde_json::to_value(spec).ok()?, s.knob).cloned()
}

/// Every profile as JSON, for the field reference: `[{"name", "about",
/// "settings": [{"knob", "value", "algorithm", "source"}]}]`.
pub fn profiles_json() -> String {
    let profiles: Vec<Value> = Stack::ALL
        .iter()
        .map(|s| {
            serde_json::json!({
                "name": s.name(),
                "about": s.about(),
                "settings": s.settings(),
            })
        })
        .collect();
    serde_json::to_string(&profiles).expect("plain data")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dumbbell scenario with `top` among its top-level fields and these flow entries.
    fn scenario(top: &str, flows: &[&str]) -> String {
        format!(
            r#"{{"duration": 10, {top}
               "topology": {{"kind": "dumbbell",
                  "bottleneck": {{"rate": 100e6, "delay": 0.001}},
                  "pairs": [{{"rate": 1e10, "delay": 0.019}}]}},
               "flows": [{}]}}"#,
            flows.join(", ")
        )
    }

    fn read(json: &str) -> ScenarioSpec {
        ScenarioSpec::from_json(json).unwrap()
    }

    const ALGORITHMS: [&str; 6] = ["reno", "cubic", "highspeed", "scalable", "vegas", "ctcp"];

    /// The table's knobs for `algorithm`, written out as flow fields.
    fn explicit(stack: Stack, algorithm: &str) -> String {
        let mut flow = Map::new();
        for s in stack.settings() {
            if s.algorithm.is_none_or(|a| a == algorithm) {
                fill_knob(&mut flow, s);
            }
        }
        flow.insert("pair".into(), 0.into());
        flow.insert("algorithm".into(), algorithm.into());
        Value::Object(flow).to_string()
    }

    #[test]
    fn a_profile_sets_exactly_the_knobs_of_its_table() {
        for stack in Stack::ALL {
            for algorithm in ALGORITHMS {
                let by_profile = read(&scenario(
                    &format!(r#""stack": "{}","#, stack.name()),
                    &[&format!(r#"{{"pair": 0, "algorithm": "{algorithm}"}}"#)],
                ));
                let by_hand = read(&scenario("", &[&explicit(stack, algorithm)]));
                let mut flow = by_profile.flows[0].clone();
                assert_eq!(by_profile.stack, Some(stack));
                flow.stack = None;
                assert_eq!(flow, by_hand.flows[0], "{stack:?}, {algorithm}");
                // Every value is one the engine takes.
                by_profile.build().unwrap();
            }
        }
    }

    #[test]
    fn every_knob_of_a_table_is_a_flow_field_with_a_valid_value() {
        for stack in Stack::ALL {
            for s in stack.settings() {
                assert!(
                    normalized(s).is_some(),
                    "{stack:?}: {} = {}",
                    s.knob,
                    s.value
                );
                assert!(!s.source.is_empty());
            }
            let knobs: Vec<_> = stack
                .settings()
                .iter()
                .map(|s| (s.knob, s.algorithm))
                .collect();
            let mut unique = knobs.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(knobs.len(), unique.len(), "{stack:?} sets a knob twice");
        }
    }

    #[test]
    fn each_profile_differs_from_the_defaults_where_its_table_says() {
        let s = read(&scenario(
            r#""stack": "linux","#,
            &[r#"{"pair": 0, "algorithm": "cubic"}"#],
        ));
        let plain = read(&scenario("", &[r#"{"pair": 0, "algorithm": "cubic"}"#]));
        let (f, d) = (&s.flows[0], &plain.flows[0]);
        assert_eq!(f.rto_estimator, crate::tcp::rtt::RtoEstimator::Linux);
        assert_eq!(d.rto_estimator, crate::tcp::rtt::RtoEstimator::Rfc6298);
        assert_eq!(f.params["hystart"].0, 1.0);
        assert!(!d.params.contains_key("hystart"));
        assert_eq!(f.min_rto, d.min_rto);
        let ns3 = read(&scenario(r#""stack": "ns3","#, &[r#"{"pair": 0}"#]));
        let f = &ns3.flows[0];
        assert_eq!(
            (f.min_rto.0, f.delack_timeout.0, f.host_jitter.0),
            (1.0, 0.2, 0.0)
        );
        assert_eq!(f.loss_detection, crate::config::LossDetection::DupAck);
        assert_eq!(f.ack_counting, crate::config::AckCounting::Acks);
        let ns2 = read(&scenario(
            r#""stack": "ns2","#,
            &[r#"{"pair": 0, "algorithm": "hstcp"}"#],
        ));
        let f = &ns2.flows[0];
        assert_eq!(
            (f.init_cwnd, f.mss.0, f.timestamps, f.delayed_ack),
            (2, 1000, false, false)
        );
        assert_eq!(f.recovery, crate::config::Recovery::Sack1);
        assert_eq!(
            (f.rtt_sampling, f.rto_tick.0),
            (crate::tcp::rtt::RttSampling::PerRtt, 0.01)
        );
        // An alias names the algorithm of a profile's row.
        assert_eq!(f.params["response"].0, 1.0);
        let ns2 = read(&scenario(
            r#""stack": "ns2","#,
            &[r#"{"pair": 0, "algorithm": "cubic"}"#],
        ));
        let f = &ns2.flows[0];
        assert_eq!(f.params["version_2_1"].0, 1.0);
        assert_eq!((f.params["beta"].0 * 1024.0, f.rto_tick.0), (819.0, 0.001));
        let tcp_linux = read(&scenario(
            r#""stack": "ns2-linux","#,
            &[
                r#"{"pair": 0, "algorithm": "cubic"}"#,
                r#"{"pair": 0, "algorithm": "highspeed"}"#,
            ],
        ));
        let (cubic, hs) = (&tcp_linux.flows[0], &tcp_linux.flows[1]);
        // The Sack1 profile's sink, segments and initial window; the agent's own rules.
        assert_eq!(
            (cubic.init_cwnd, cubic.mss.0, cubic.delayed_ack),
            (2, 1000, false)
        );
        assert_eq!(
            (cubic.loss_detection, cubic.reordering, cubic.recovery),
            (
                crate::config::LossDetection::Rack,
                4,
                crate::config::Recovery::Prr
            )
        );
        assert_eq!(
            (cubic.timestamps, cubic.rto_tick.0, cubic.tlp, cubic.undo),
            (true, 0.001, Some(false), Some(false))
        );
        assert_eq!(cubic.rto_restart, crate::tcp::rtt::RtoRestart::EveryAck);
        assert_eq!(cubic.params["version_2_1"].0, 1.0);
        assert_eq!(hs.rto_tick.0, 0.001);
        // Linux's tcp_highspeed.c: the table, hscc's default.
        assert!(!hs.params.contains_key("response"));
        let old = read(&scenario(
            r#""stack": "linux2.6","#,
            &[r#"{"pair": 0}"#, r#"{"pair": 0, "algorithm": "cubic"}"#],
        ));
        let (reno, cubic) = (&old.flows[0], &old.flows[1]);
        assert_eq!(reno.recovery, crate::config::Recovery::RateHalving);
        assert_eq!(
            (reno.init_cwnd, reno.undo, reno.frto, reno.random_ts_offset),
            (3, Some(true), Some(true), false)
        );
        assert_eq!(reno.ack_counting, crate::config::AckCounting::Acks);
        // tcp_reno_min_cwnd for Reno; CUBIC 2.3 names no min_cwnd, so ssthresh.
        use crate::config::ReductionFloor;
        assert_eq!(reno.reduction_floor, ReductionFloor::HalfSsthresh);
        assert_eq!(cubic.reduction_floor, ReductionFloor::Ssthresh);
        assert_eq!(cubic.params["hystart"].0, 1.0);
        let windows = read(&scenario(
            r#""stack": "windows2008","#,
            &[r#"{"pair": 0, "algorithm": "ctcp"}"#],
        ));
        let f = &windows.flows[0];
        assert_eq!(
            (f.loss_detection, f.recovery),
            (
                crate::config::LossDetection::DupAck,
                crate::config::Recovery::Classic
            )
        );
        assert_eq!(
            (f.reordering, f.max_reordering, f.init_cwnd, f.mss.0),
            (3, Some(3), 2, 1460)
        );
        assert_eq!(
            (f.dsack, f.undo, f.frto, f.timestamps),
            (Some(true), Some(false), Some(true), false)
        );
        assert_eq!((f.min_rto.0, f.delack_timeout.0, f.ecn), (0.3, 0.2, false));
    }

    #[test]
    fn a_knob_the_scenario_sets_wins_over_the_profile() {
        let s = read(&scenario(
            r#""stack": "linux","#,
            &[
                r#"{"pair": 0, "algorithm": "cubic", "min_rto": "1s", "rto_estimator": "rfc6298", "params": {"hystart": false, "beta": 0.8}}"#,
            ],
        ));
        let f = &s.flows[0];
        assert_eq!(f.min_rto.0, 1.0);
        assert_eq!(f.rto_estimator, crate::tcp::rtt::RtoEstimator::Rfc6298);
        assert_eq!(f.params["hystart"].0, 0.0);
        assert_eq!(f.params["beta"].0, 0.8);
        // The knobs it leaves out still come from the profile.
        assert_eq!(f.delack_timeout.0, 0.04);
        let uses = stack_uses(&s);
        assert_eq!(uses.len(), 1);
        let over: Vec<_> = uses[0].overridden.iter().map(|(k, _)| *k).collect();
        assert_eq!(over, ["rto_estimator", "min_rto", "params.hystart"]);
        assert_eq!(uses[0].overridden[1].1, serde_json::json!(1.0));
    }

    #[test]
    fn a_flows_own_stack_wins_over_the_scenarios() {
        let s = read(&scenario(
            r#""stack": "linux","#,
            &[r#"{"pair": 0}"#, r#"{"pair": 0, "stack": "ns3"}"#],
        ));
        assert_eq!(s.flows[0].min_rto.0, 0.2);
        assert_eq!(s.flows[0].delack_timeout.0, 0.04);
        assert_eq!(s.flows[1].min_rto.0, 1.0);
        assert_eq!(s.flows[1].delack_timeout.0, 0.2);
        let uses = stack_uses(&s);
        assert_eq!(
            uses.iter().map(|u| (u.flow, u.stack)).collect::<Vec<_>>(),
            [(0, Stack::Linux), (1, Stack::Ns3)]
        );
        assert!(uses.iter().all(|u| u.overridden.is_empty()));
        // A flow entry may take a profile alone.
        let one = read(&scenario(
            "",
            &[r#"{"pair": 0}"#, r#"{"pair": 0, "stack": "ns3"}"#],
        ));
        assert_eq!((one.flows[0].min_rto.0, one.flows[1].min_rto.0), (0.2, 1.0));
    }

    #[test]
    fn an_unknown_stack_is_refused_naming_the_field_and_the_stacks() {
        for (top, flow, field) in [
            (r#""stack": "bsd","#, r#"{"pair": 0}"#, "stack"),
            ("", r#"{"pair": 0, "stack": "bsd"}"#, "flows[0].stack"),
            (
                r#""stack": "linux","#,
                r#"{"pair": 0, "stack": "bsd"}"#,
                "flows[0].stack",
            ),
        ] {
            let e = ScenarioSpec::from_json(&scenario(top, &[flow])).unwrap_err();
            assert_eq!(e.field, field);
            assert_eq!(e.value, "\"bsd\"");
            for name in Stack::ALL.map(Stack::name) {
                assert!(e.allowed.contains(&format!("\"{name}\"")), "{}", e.allowed);
            }
        }
        let e =
            ScenarioSpec::from_json(&scenario(r#""stack": 3,"#, &[r#"{"pair": 0}"#])).unwrap_err();
        assert_eq!(e.field, "stack");
    }

    #[test]
    fn without_stack_a_scenario_reads_as_it_always_did() {
        let text = scenario("", &[r#"{"pair": 0, "algorithm": "cubic"}"#]);
        assert_eq!(fill(&text), None);
        assert!(stack_uses(&read(&text)).is_empty());
    }

    #[test]
    fn the_normalized_scenario_reads_back_the_same() {
        let s = read(&scenario(
            r#""stack": "ns3","#,
            &[
                r#"{"pair": 0, "algorithm": "vegas", "min_rto": 0.5}"#,
                r#"{"pair": 0, "stack": "linux"}"#,
            ],
        ));
        let reread = read(&s.normalized());
        assert_eq!(reread, s);
        assert_eq!(stack_uses(&reread), stack_uses(&s));
    }

    #[test]
    fn the_reference_lists_every_profile() {
        let v: Value = serde_json::from_str(&profiles_json()).unwrap();
        let names: Vec<_> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].clone())
            .collect();
        assert_eq!(names, Stack::ALL.map(|s| Value::from(s.name())));
        assert_eq!(v[0]["settings"][0]["knob"], "loss_detection");
    }
}
