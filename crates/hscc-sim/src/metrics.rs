//! The papers' metrics computed from runs: bandwidth stolen (CTCP §IV.C,
//! TCP-FIT's BSR, eq. 22), throughput ratios between flow groups (RTT
//! fairness), the short-term Jain index (Sync-TCP §VI.B) and the
//! synchronization of delay-detected congestion signals (Sync-TCP §VI.A).

use serde::Serialize;

use crate::config::{ConfigError, SimConfig};
use crate::results::RunResult;
use crate::sim::Sim;
use crate::stats::jain_index;
use hscc_cc::CcParams;

/// The outcome of a bandwidth-stolen measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Stolen {
    /// P: aggregate goodput of the regular flows against Reno (the baseline), bit/s.
    pub p_bps: f64,
    /// Q: the same flows' aggregate goodput against the tested flows, bit/s.
    pub q_bps: f64,
    /// (P − Q)/P.
    pub stolen: f64,
    /// The baseline run (tested flows replaced by Reno).
    pub baseline: RunResult,
    /// The run as configured.
    pub test: RunResult,
}

/// Bandwidth stolen by the flows `tested` from the other flows of `cfg`:
/// run `cfg`, and its baseline with every tested flow's algorithm replaced
/// by Reno (same seed, same everything else); P and Q are the other flows'
/// aggregate goodputs in the baseline and in the test.
pub fn bandwidth_stolen(cfg: &SimConfig, tested: &[usize]) -> Result<Stolen, ConfigError> {
    for &i in tested {
        if i >= cfg.flows.len() {
            return Err(ConfigError { field: "tested".into(), value: i.to_string(), allowed: format!("flow indices below {}", cfg.flows.len()) });
        }
    }
    let mut base_cfg = cfg.clone();
    for &i in tested {
        base_cfg.flows[i].cc = CcParams::from_name("reno").expect("reno is registered");
    }
    let baseline = Sim::new(base_cfg)?.run();
    let test = Sim::new(cfg.clone())?.run();
    let others = |r: &RunResult| -> f64 { r.flows.iter().filter(|f| !tested.contains(&(f.id as usize))).map(|f| f.goodput_bps).sum() };
    let (p, q) = (others(&baseline), others(&test));
    Ok(Stolen { p_bps: p, q_bps: q, stolen: if p > 0.0 { (p - q) / p } else { 0.0 }, baseline, test })
}

/// Synchronization of delay-detected congestion signals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SignalSync {
    /// Congestion events: groups of signals no further apart than the window.
    pub events: u64,
    /// Events in which every flow active at the time signalled.
    pub seen_by_all: u64,
}

impl RunResult {
    /// Aggregate goodput of flows `a` over that of flows `b` (RTT fairness).
    pub fn throughput_ratio(&self, a: &[usize], b: &[usize]) -> f64 {
        let sum = |ids: &[usize]| ids.iter().map(|&i| self.flows[i].goodput_bps).sum::<f64>();
        sum(a) / sum(b)
    }

    /// Mean of Jain's index over consecutive windows of `window_s` seconds
    /// (a multiple of the sampling interval), over the flows active during the
    /// whole window, from `from_s` on. None without traces.
    pub fn short_term_jain(&self, window_s: f64, from_s: f64) -> Option<f64> {
        let dt = self.traces.interval_s;
        if dt <= 0.0 || self.traces.time_s.is_empty() {
            return None;
        }
        let per = ((window_s / dt).round() as usize).max(1);
        let mut indexes = Vec::new();
        let times = &self.traces.time_s;
        let first = times.iter().position(|&t| t - dt >= from_s - 1e-9)?;
        let mut k = first;
        while k + per <= times.len() {
            let (t0, t1) = (times[k] - dt, times[k + per - 1]);
            let rates: Vec<f64> = self
                .flows
                .iter()
                .zip(&self.traces.flows)
                .filter(|(f, _)| f.start_s <= t0 + 1e-9 && f.end_s >= t1 - 1e-9)
                .map(|(_, tr)| tr.throughput_bps[k..k + per].iter().sum::<f64>() / per as f64)
                .collect();
            if rates.len() >= 2 {
                indexes.push(jain_index(&rates));
            }
            k += per;
        }
        (!indexes.is_empty()).then(|| indexes.iter().sum::<f64>() / indexes.len() as f64)
    }

    /// Group the delay-detected congestion signals of flows `ids` into events
    /// (a signal within `window_s` of the previous one joins its event) and
    /// count the events in which every flow of `ids` active at the time
    /// signalled (Sync-TCP §VI.A, with window = T_wait).
    pub fn signal_synchronization(&self, ids: &[usize], window_s: f64) -> SignalSync {
        let mut all: Vec<(f64, usize)> = ids.iter().flat_map(|&i| self.flows[i].signals_s.iter().map(move |&t| (t, i))).collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut out = SignalSync { events: 0, seen_by_all: 0 };
        let mut k = 0;
        while k < all.len() {
            let t0 = all[k].0;
            let mut members = vec![all[k].1];
            let mut last = t0;
            k += 1;
            while k < all.len() && all[k].0 - last <= window_s {
                last = all[k].0;
                members.push(all[k].1);
                k += 1;
            }
            let active = ids.iter().filter(|&&i| self.flows[i].start_s <= t0 && self.flows[i].end_s >= last);
            out.events += 1;
            if active.clone().all(|i| members.contains(i)) {
                out.seen_by_all += 1;
            }
        }
        out
    }
}
