//! The papers' metrics computed from runs: bandwidth stolen (CTCP §IV.C,
//! TCP-FIT's BSR, eq. 22), throughput ratios between flow groups (RTT
//! fairness), the short-term Jain index (Sync-TCP §VI.B) and the
//! synchronization of delay-detected congestion signals (Sync-TCP §VI.A).

use serde::Serialize;

use crate::config::{ConfigError, SimConfig};
use crate::results::RunResult;
use crate::sim::Sim;
pub use crate::stats::jain_index;
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
            return Err(ConfigError {
                field: "tested".into(),
                value: i.to_string(),
                allowed: format!("flow indices below {}", cfg.flows.len()),
            });
        }
    }
    let mut base_cfg = cfg.clone();
    for &i in tested {
        base_cfg.flows[i].cc = CcParams::from_name("reno").expect("reno is registered");
    }
    let baseline = Sim::new(base_cfg)?.run();
    let test = Sim::new(cfg.clone())?.run();
    let others = |r: &RunResult| -> f64 {
        r.flows
            .iter()
            .filter(|f| !tested.contains(&(f.id as usize)))
            .map(|f| f.goodput_bps)
            .sum()
    };
    let (p, q) = (others(&baseline), others(&test));
    Ok(Stolen {
        p_bps: p,
        q_bps: q,
        stolen: stolen_share(p, q),
        baseline,
        test,
    })
}

/// Bandwidth stolen (CTCP §IV.C; TCP-FIT's BSR): (P − Q)/P, P and Q the
/// other flows' aggregate goodput in the baseline and in the test; 0 when P
/// is 0 (nothing to steal). Python's `hscc.bandwidth_stolen` calls this.
pub fn stolen_share(p: f64, q: f64) -> f64 {
    if p > 0.0 {
        (p - q) / p
    } else {
        0.0
    }
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
    /// from `from_s` on (see [`short_term_jain`]). None without traces.
    pub fn short_term_jain(&self, window_s: f64, from_s: f64) -> Option<f64> {
        let series: Vec<FlowSeries> = self
            .flows
            .iter()
            .zip(&self.traces.flows)
            .map(|(f, tr)| FlowSeries {
                throughput: &tr.throughput_bps,
                start: f.start_s,
                end: f.end_s,
            })
            .collect();
        short_term_jain(
            &self.traces.time_s,
            self.traces.interval_s,
            &series,
            window_s,
            from_s,
        )
    }

    /// The flows whose delay signals count by default (see [`signalling_flows`]).
    pub fn signalling_flows(&self) -> Vec<usize> {
        signalling_flows(
            self.flows
                .iter()
                .map(|f| (f.algorithm.as_str(), !f.signals_s.is_empty())),
        )
    }

    /// Synchronization of the delay-detected congestion signals of flows
    /// `ids` (see [`synchronization`]), with `window_s` = T_wait.
    pub fn signal_synchronization(&self, ids: &[usize], window_s: f64) -> SignalSync {
        let tracks: Vec<SignalTrack> = ids
            .iter()
            .map(|&i| SignalTrack {
                times: &self.flows[i].signals_s,
                start: self.flows[i].start_s,
                end: self.flows[i].end_s,
            })
            .collect();
        synchronization(&tracks, window_s)
    }
}

/// One flow's throughput samples (one per sampling interval) and active period, s.
#[derive(Clone, Copy, Debug)]
pub struct FlowSeries<'a> {
    /// Throughput over the interval ending at each sample time, bit/s.
    pub throughput: &'a [f64],
    /// Start of the active period.
    pub start: f64,
    /// End of the active period.
    pub end: f64,
}

/// Sync-TCP §VI.B's short-term fairness: the mean of Jain's index over
/// consecutive windows of `window` seconds (a whole number of sampling
/// intervals `dt`), from `from` on, over the flows active for the whole
/// window (windows with fewer than two such flows are skipped).
pub fn short_term_jain(
    times: &[f64],
    dt: f64,
    flows: &[FlowSeries],
    window: f64,
    from: f64,
) -> Option<f64> {
    if dt <= 0.0 || times.is_empty() {
        return None;
    }
    let per = ((window / dt).round() as usize).max(1);
    let mut k = times.iter().position(|&t| t - dt >= from - 1e-9)?;
    let mut indexes = Vec::new();
    while k + per <= times.len() {
        let (t0, t1) = (times[k] - dt, times[k + per - 1]);
        let rates: Vec<f64> = flows
            .iter()
            .filter(|f| f.start <= t0 + 1e-9 && f.end >= t1 - 1e-9)
            .map(|f| f.throughput[k..k + per].iter().sum::<f64>() / per as f64)
            .collect();
        if rates.len() >= 2 {
            indexes.extend(jain_index(&rates));
        }
        k += per;
    }
    (!indexes.is_empty()).then(|| indexes.iter().sum::<f64>() / indexes.len() as f64)
}

/// The flows, by position, whose delay-detected signals Sync-TCP's
/// synchronization counts by default: every flow of an algorithm that reports
/// such signals, i.e. of which some flow signalled; `flows` = (algorithm,
/// whether it signalled). Loss-based flows never signal, so they do not count.
pub fn signalling_flows<'a>(flows: impl Iterator<Item = (&'a str, bool)> + Clone) -> Vec<usize> {
    let signalling: std::collections::HashSet<&str> =
        flows.clone().filter(|&(_, s)| s).map(|(a, _)| a).collect();
    flows
        .enumerate()
        .filter(|(_, (a, _))| signalling.contains(a))
        .map(|(i, _)| i)
        .collect()
}

/// One flow's congestion-signal times and active period, s.
#[derive(Clone, Copy, Debug)]
pub struct SignalTrack<'a> {
    /// Signal times.
    pub times: &'a [f64],
    /// Start of the active period.
    pub start: f64,
    /// End of the active period.
    pub end: f64,
}

/// Group all signals into events — a signal within `window` of the previous
/// one joins its event — and count the events in which every flow active over
/// the event signalled (Sync-TCP §VI.A counts signals "seen by all flows within
/// T_wait").
pub fn synchronization(tracks: &[SignalTrack], window: f64) -> SignalSync {
    let mut all: Vec<(f64, usize)> = tracks
        .iter()
        .enumerate()
        .flat_map(|(k, t)| t.times.iter().map(move |&x| (x, k)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut out = SignalSync {
        events: 0,
        seen_by_all: 0,
    };
    let mut i = 0;
    while i < all.len() {
        let first = all[i].0;
        let mut last = first;
        let mut members = vec![false; tracks.len()];
        while i < all.len() && all[i].0 - last <= window {
            last = all[i].0;
            members[all[i].1] = true;
            i += 1;
        }
        out.events += 1;
        let active = |k: usize| tracks[k].start <= first && tracks[k].end >= last;
        if (0..tracks.len()).all(|k| !active(k) || members[k]) {
            out.seen_by_all += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flows_of_every_algorithm_that_signalled_count() {
        // A Sync-TCP flow signalled, so both Sync-TCP flows count (one silent); Reno and a silent CTCP do not.
        let flows = [
            ("sync", true),
            ("reno", false),
            ("sync", false),
            ("ctcp", false),
        ];
        assert_eq!(signalling_flows(flows.iter().copied()), vec![0, 2]);
        assert!(signalling_flows([("reno", false), ("cubic", false)].iter().copied()).is_empty());
    }

    #[test]
    fn short_term_jain_averages_per_window_over_active_flows() {
        // Four 0.5 s samples; windows of 1 s: [0, 1] and [1, 2].
        let times = [0.5, 1.0, 1.5, 2.0];
        let a = [10.0, 10.0, 30.0, 30.0];
        let b = [10.0, 10.0, 10.0, 10.0];
        let c = [0.0, 0.0, 20.0, 20.0]; // starts at 1 s
        let flows = [
            FlowSeries {
                throughput: &a,
                start: 0.0,
                end: 2.0,
            },
            FlowSeries {
                throughput: &b,
                start: 0.0,
                end: 2.0,
            },
            FlowSeries {
                throughput: &c,
                start: 1.0,
                end: 2.0,
            },
        ];
        // Window 1: a, b equal → 1. Window 2: 30, 10, 20 → 60²/(3·1400) = 0.857142…
        let j = short_term_jain(&times, 0.5, &flows, 1.0, 0.0).unwrap();
        assert!((j - (1.0 + 3600.0 / 4200.0) / 2.0).abs() < 1e-12, "{j}");
        assert_eq!(
            short_term_jain(&times, 0.5, &flows, 1.0, 1.0),
            Some(3600.0 / 4200.0)
        );
        assert_eq!(short_term_jain(&[], 0.5, &flows, 1.0, 0.0), None);
    }

    #[test]
    fn synchronization_groups_signals_within_the_window() {
        let a = [1.0, 5.0, 9.0];
        let b = [1.3, 9.2];
        let c = [1.1, 5.4, 30.0];
        let tracks = [
            SignalTrack {
                times: &a,
                start: 0.0,
                end: 20.0,
            },
            SignalTrack {
                times: &b,
                start: 0.0,
                end: 20.0,
            },
            SignalTrack {
                times: &c,
                start: 0.0,
                end: 40.0,
            },
        ];
        // Events (window 0.5 s): {1.0, 1.1, 1.3} all three; {5.0, 5.4} misses b;
        // {9.0, 9.2} misses c; {30.0} only c is active then: seen by all.
        let s = synchronization(&tracks, 0.5);
        assert_eq!(
            s,
            SignalSync {
                events: 4,
                seen_by_all: 2
            }
        );
        // A 0.15 s window splits every group but {1.0, 1.1}: seven events and
        // only {30.0} is seen by every active flow.
        assert_eq!(
            synchronization(&tracks, 0.15),
            SignalSync {
                events: 7,
                seen_by_all: 1
            }
        );
    }
}
