//! TCP flows: endpoints, algorithm and parameters, TCP options, the per-ACK log.

use std::collections::BTreeMap;

use hscc_cc::{CcError, CcParams, ParamError};

use super::start::{Draws, Start};
use super::{err, seconds};
use crate::config::{
    param_error, ConfigError, DelayDist, FlowConfig, LossDetection, MAX_REORDERING,
};
use crate::estimate::Origins;
use crate::limits::MAX_FLOWS;
use crate::rng::Component;
use crate::scenario::dist::DistSpec;
use crate::scenario::endpoints::Endpoints;
use crate::scenario::quantity::ParamValue;
use crate::scenario::spec::*;
use crate::time::Time;
use hscc_model::flow::{MSS_ALLOWED, MSS_RANGE};

impl ScenarioSpec {
    /// Every TCP flow, `count` expanded, with the fields their cost is charged
    /// to; a drawn start is left at its earliest and its draw added to `draws`.
    pub(super) fn tcp_flows(
        &self,
        endpoints: &Endpoints,
        duration: Time,
        o: &mut Origins,
        draws: &mut Draws,
    ) -> Result<Vec<FlowConfig>, ConfigError> {
        let total: usize = self
            .flows
            .iter()
            .map(|f| f.count)
            .fold(0, usize::saturating_add);
        if let Some((i, _)) = self
            .flows
            .iter()
            .enumerate()
            .max_by_key(|(_, f)| f.count)
            .filter(|_| total > MAX_FLOWS)
        {
            return Err(err(
                format!("flows[{i}].count"),
                self.flows[i].count,
                format!("at most {MAX_FLOWS} flows in all (the scenario asks for {total})"),
            ));
        }
        let mut flows = Vec::new();
        for (i, f) in self.flows.iter().enumerate() {
            let at = |k: &str| format!("flows[{i}].{k}");
            let (mut src, mut dst) = endpoints.resolve(&f.place(), &format!("flows[{i}]"))?;
            if f.reverse {
                (src, dst) = (dst, src);
            }
            if f.count == 0 || f.count > MAX_FLOWS {
                return Err(err(at("count"), f.count, format!("1 to {MAX_FLOWS} flows")));
            }
            let mut c = FlowConfig::bulk(
                src,
                dst,
                algorithm(&f.algorithm, &f.params, &format!("flows[{i}]"))?,
            );
            Self::tcp_options(f, &mut c, &at)?;
            c.stop = f.stop.map(|s| seconds(&at("stop"), s)).transpose()?;
            c.size = f.size.map(|b| b.0);
            let start = Start::new(&f.start, &at, c.stop, duration)?;
            c.start = start.earliest();
            c.validate(&at)?;
            for _ in 0..f.count {
                // Each copy its own draw, from the stream of its engine index.
                if let Some(t) = start.draw(self.seed, Component::Start, flows.len() as u64) {
                    draws.tcp.push((flows.len(), t));
                }
                o.flow_count.push((at("count"), f.count.to_string()));
                o.flow_init_cwnd
                    .push((at("init_cwnd"), f.init_cwnd.to_string()));
                flows.push(c.clone());
            }
        }
        Ok(flows)
    }

    /// The TCP options of a flow entry.
    fn tcp_options(
        f: &FlowSpec,
        c: &mut FlowConfig,
        at: &dyn Fn(&str) -> String,
    ) -> Result<(), ConfigError> {
        c.mss = u32::try_from(f.mss.0)
            .ok()
            .filter(|m| MSS_RANGE.contains(m))
            .ok_or_else(|| err(at("mss"), f.mss.0, MSS_ALLOWED))?;
        c.rwnd = f.rwnd.map(|b| b.0);
        c.sack = f.sack;
        c.recovery = f.recovery;
        c.reduction_floor = f.reduction_floor;
        *c = recovery_preset(c.clone(), f.loss_detection);
        (c.dsack, c.undo, c.frto) = (
            f.dsack.unwrap_or(c.dsack),
            f.undo.unwrap_or(c.undo),
            f.frto.unwrap_or(c.frto),
        );
        c.tlp = match (f.tlp, f.loss_detection) {
            (Some(true), LossDetection::DupAck) => {
                return Err(err(
                    at("tlp"),
                    "true with loss_detection = \"dupack\"",
                    "false, or loss_detection = \"rack\" (a probe's SACK needs RACK to mark the tail lost)",
                ))
            }
            (t, _) => t.unwrap_or(c.tlp),
        };
        c.reordering = Some(f.reordering)
            .filter(|r| (1..=MAX_REORDERING).contains(r))
            .ok_or_else(|| {
                err(
                    at("reordering"),
                    f.reordering,
                    format!("1 to {MAX_REORDERING} segments"),
                )
            })?;
        let max = match (f.max_reordering, f.loss_detection) {
            (Some(m), _) => m,
            (None, LossDetection::Rack) => c.max_reordering.max(c.reordering),
            (None, LossDetection::DupAck) => c.reordering,
        };
        c.max_reordering = Some(max)
            .filter(|r| (c.reordering..=MAX_REORDERING).contains(r))
            .ok_or_else(|| {
                err(
                    at("max_reordering"),
                    max,
                    format!(
                        "`reordering` ({}) to {MAX_REORDERING} segments",
                        c.reordering
                    ),
                )
            })?;
        c.init_cwnd = f.init_cwnd;
        c.min_rto = seconds(&at("min_rto"), f.min_rto)?;
        c.rto_estimator = f.rto_estimator;
        c.rtt_sampling = f.rtt_sampling;
        c.rto_tick = seconds(&at("rto_tick"), f.rto_tick)?;
        c.rto_restart = f.rto_restart;
        c.initial_rto = c.initial_rto.max(c.min_rto);
        c.init_ssthresh = f.init_ssthresh;
        c.ack_counting = f.ack_counting;
        c.ssthresh_from = f.ssthresh_from;
        c.delayed_ack = f.delayed_ack;
        c.delack_segments = f.delack_segments;
        c.delack_timeout = seconds(&at("delack_timeout"), f.delack_timeout)?;
        c.quick_acks = f.quick_acks;
        c.pacing = f.pacing;
        c.timestamps = f.timestamps;
        c.random_ts_offset = f.random_ts_offset;
        c.host_jitter = seconds(&at("host_jitter"), f.host_jitter)?;
        c.jitter_unit = f.jitter_unit;
        c.start_jitter = seconds(&at("start_jitter"), f.start_jitter)?;
        c.ecn = f.ecn;
        c.access_delay = match f.access_delay {
            DistSpec::Fixed(d) => DelayDist::Fixed(seconds(&at("access_delay"), d)?),
            DistSpec::Uniform { min, max } => DelayDist::Uniform {
                min: seconds(&at("access_delay.min"), min)?,
                max: seconds(&at("access_delay.max"), max)?,
            },
            _ => {
                return Err(err(
                    at("access_delay.dist"),
                    "given",
                    "a time, or { dist = \"uniform\", min, max }",
                ))
            }
        };
        Ok(())
    }
}

/// The loss-recovery preset `loss_detection` names (see the field).
pub(super) fn recovery_preset(c: FlowConfig, d: LossDetection) -> FlowConfig {
    match d {
        LossDetection::Rack => c.with_linux_recovery(),
        LossDetection::DupAck => c.with_classic_recovery(),
    }
}

/// The engine index of the TCP flow `label` names (`flow_labels`), or the
/// error for `field` that lists the labels there are.
pub(super) fn flow_by_label(
    labels: &[String],
    label: &str,
    field: String,
) -> Result<usize, ConfigError> {
    labels.iter().position(|l| l == label).ok_or_else(|| {
        let allowed = if labels.is_empty() {
            "the label of a TCP flow, but the scenario has no [[flows]]".to_string()
        } else {
            let some: Vec<String> = labels.iter().take(8).map(|l| format!("{l:?}")).collect();
            let more = if labels.len() > 8 { ", …" } else { "" };
            format!(
                "the label of a TCP flow as in the results: {}{more}",
                some.join(", ")
            )
        };
        err(field, format!("{label:?}"), allowed)
    })
}

/// Turn on the per-ACK log of the flows `log` names.
pub(super) fn mark_cc_log(
    log: &CcLogSpec,
    labels: &[String],
    flows: &mut [FlowConfig],
) -> Result<(), ConfigError> {
    if log.flows.is_empty() {
        return Err(err(
            "output.cc_log.flows",
            "[]",
            "at least one flow label; leave cc_log out to log nothing",
        ));
    }
    for (j, name) in log.flows.iter().enumerate() {
        flows[flow_by_label(labels, name, format!("output.cc_log.flows[{j}]"))?].cc_log = true;
    }
    Ok(())
}

/// The algorithm `name` with `params` set, each in range and every pair in order.
pub(super) fn algorithm(
    name: &str,
    params: &BTreeMap<String, ParamValue>,
    at: &str,
) -> Result<CcParams, ConfigError> {
    let mut cc = if hscc_program::is_program(name) {
        program(name, at)?
    } else if let Some(program) = hscc_cc::external::named(name) {
        // A Python algorithm registered in this process.
        CcParams::External(hscc_cc::ExternalParams {
            program,
            values: Vec::new(),
        })
    } else {
        CcParams::from_name(name).map_err(|e| {
            err(
                format!("{at}.algorithm"),
                format!("{name:?}"),
                cc_allowed(&e),
            )
        })?
    };
    for (k, ParamValue(v)) in params {
        cc.set(k, *v)
            .map_err(|e| err(format!("{at}.params.{k}"), v, cc_allowed(&e)))?;
    }
    cc.check()
        .map_err(|e| param_error(&|k: &str| format!("{at}.params.{k}"), &e))?;
    Ok(cc)
}

/// The program file `path` names, built and loaded (an absolute path, or one
/// relative to the working directory: a scenario file's reader makes its
/// relative paths absolute).
fn program(path: &str, at: &str) -> Result<CcParams, ConfigError> {
    let program = hscc_program::load(std::path::Path::new(path)).map_err(|e| {
        err(
            format!("{at}.algorithm"),
            format!("{path:?}"),
            format!("a program that builds and loads: {e}"),
        )
    })?;
    Ok(CcParams::External(hscc_cc::ExternalParams {
        program,
        values: Vec::new(),
    }))
}

fn cc_allowed(e: &CcError) -> String {
    match e {
        CcError::UnknownAlgorithm { known, .. } => format!("one of: {}", known.join(", ")),
        CcError::Param {
            algorithm,
            error: ParamError::Unknown { known, .. },
        } if known.is_empty() => format!("no parameters: {algorithm} has none"),
        CcError::Param {
            algorithm,
            error: ParamError::Unknown { known, .. },
        } => format!("a parameter of {algorithm}: {}", known.join(", ")),
        CcError::Param {
            error: ParamError::Invalid { allowed, .. },
            ..
        } => allowed.clone(),
    }
}
