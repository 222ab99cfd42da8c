//! Declarative scenarios: the format of scenario files, the one source of
//! truth for every field (see [`spec`]), and its translation into the
//! engine's [`crate::SimConfig`] (see [`ScenarioSpec::build`]).
//!
//! Quantities take units ("700Mbps", "100ms", "64KB", "0.5bdp"; [`quantity`]).
//! A scenario names a topology kind (dumbbell, parking lot, graph), traffic
//! attached to its endpoints, and buffers in packets, bytes or multiples of the
//! bandwidth-delay product. Every error names the field as the file writes it,
//! the value and what is allowed.

mod build;
pub mod dist;
mod endpoints;
mod names;
pub mod quantity;
mod queue;
mod resolve;
pub mod spec;
pub mod stack;

pub use dist::DistSpec;
pub use names::{is_file_name, safe_file_name, Labels};
pub use quantity::BufferSpec;
pub(crate) use resolve::count_estimate;
pub use resolve::{work_counts, Resolved};
pub use spec::*;
pub use stack::{profiles_json, stack_uses, Setting, Stack, StackUse};

impl ScenarioSpec {
    /// The scenario with every default filled in and every quantity in SI
    /// numbers, as JSON: what a run records, and reads back to the same scenario.
    /// Algorithm names are the canonical ones ("Compound" → "ctcp").
    pub fn normalized(&self) -> String {
        let canonical = |name: &mut String| {
            if let Ok(cc) = hscc_cc::CcParams::from_name(name) {
                *name = cc.name().to_string();
            }
        };
        let mut s = self.clone();
        s.flows.iter_mut().for_each(|f| canonical(&mut f.algorithm));
        s.web.iter_mut().for_each(|w| canonical(&mut w.algorithm));
        serde_json::to_string(&s).expect("a scenario always serializes")
    }
}

/// Read one value of the scenario format from JSON (e.g. a quantity), with
/// the error in the scenario's terms.
pub fn from_value_json<T: serde::de::DeserializeOwned>(
    json: &str,
) -> Result<T, crate::ConfigError> {
    crate::json::from_str(json)
}

/// The JSON Schema of scenario files, with every field's doc text: the source
/// of the field reference (docs/scenario.md, `hscc fields`).
pub fn schema() -> String {
    let schema = schemars::schema_for!(ScenarioSpec);
    serde_json::to_string_pretty(&schema).expect("a schema always serializes")
}
