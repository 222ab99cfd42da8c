//! A scenario resolved once: the step between the scenario format and the
//! engine. Everything a run needs to know before it starts — the normalized
//! scenario it records, the engine configuration, every source's label and the
//! estimate — comes from one build and one estimate, here.

use std::sync::atomic::{AtomicU64, Ordering};

use super::names::Labels;
use super::spec::ScenarioSpec;
use super::stack::{stack_uses, StackUse};
use crate::config::{ConfigError, SimConfig};
use crate::estimate::Estimate;
use crate::limits::BuildLimits;
use crate::Sim;

/// Scenario builds and estimates made by this process: `(builds, estimates)`.
/// A run must cost one of each (tests read the counts).
pub fn work_counts() -> (u64, u64) {
    (
        BUILDS.load(Ordering::Relaxed),
        ESTIMATES.load(Ordering::Relaxed),
    )
}

static BUILDS: AtomicU64 = AtomicU64::new(0);
static ESTIMATES: AtomicU64 = AtomicU64::new(0);

/// Count a scenario build (see [`work_counts`]).
pub(super) fn count_build() {
    BUILDS.fetch_add(1, Ordering::Relaxed);
}

/// Count an estimate (see [`work_counts`]).
pub(crate) fn count_estimate() {
    ESTIMATES.fetch_add(1, Ordering::Relaxed);
}

/// A checked scenario with what the engine derived from it.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The scenario as checked; its normalized form is written on demand
    /// ([`Resolved::normalized`]): a check of 10^5 flows does not need it.
    spec: ScenarioSpec,
    /// The engine configuration, validated.
    pub config: SimConfig,
    /// Every source's label.
    pub labels: Labels,
    /// What the run costs, with the fields to blame named as the scenario writes them.
    pub estimate: Estimate,
    /// What each flow entry's `stack` profile set, and what the scenario set otherwise.
    pub stacks: Vec<StackUse>,
}

impl ScenarioSpec {
    /// Check the scenario in full and derive what a run needs, with only the
    /// hard caps applied (see [`Resolved::check`] for a run's limits).
    pub fn resolve(self) -> Result<Resolved, ConfigError> {
        let (config, estimate) = self.build_estimated()?; // validated by the build
        Ok(Resolved {
            config,
            labels: self.labels(),
            estimate,
            stacks: stack_uses(&self),
            spec: self,
        })
    }
}

impl Resolved {
    /// The scenario with every default filled in (see [`ScenarioSpec::normalized`]), JSON.
    pub fn normalized(&self) -> String {
        self.spec.normalized()
    }

    /// The scenario as checked.
    pub fn spec(&self) -> &ScenarioSpec {
        &self.spec
    }

    /// The run's name, if the scenario gives one.
    pub fn name(&self) -> Option<&str> {
        self.spec.name.as_deref()
    }

    /// Refuse a run whose estimate passes `limits`, naming the field that drives its cost.
    pub fn check(&self, limits: &BuildLimits) -> Result<(), ConfigError> {
        self.estimate.check(limits)
    }

    /// The simulation of this scenario, within `limits`.
    pub fn simulation(&self, limits: &BuildLimits) -> Result<Sim, ConfigError> {
        self.check(limits)?;
        Sim::assemble(self.config.clone(), &self.estimate.cc_log_rows)
    }
}
