//! Start times as a scenario writes them: a time, or a distribution drawn once
//! per flow from the run's seed. Each draw comes from a stream of its own
//! (`Component::Start`, `Component::UdpStart`), so a fixed start draws nothing
//! and a scenario with fixed starts runs exactly as before starts could be drawn.

use rand::Rng as _;

use super::{err, seconds};
use crate::config::{check_period, ConfigError, SimConfig};
use crate::rng::{component_rng, Component};
use crate::scenario::dist::DistSpec;
use crate::scenario::quantity::Seconds;
use crate::time::{secs, Time};

/// A checked start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Start {
    /// Always this time.
    Fixed(Time),
    /// Uniform on [min, max], picoseconds.
    Uniform { min: Time, max: Time },
    /// Exponential with this mean, cut off below `end` (the stop, or the run's
    /// end): a start past either would be refused, and redrawing would depend
    /// on how often it happens.
    Exponential { mean: Time, end: Time },
}

const ALLOWED: &str =
    "a time, or { dist = \"uniform\", min, max } or { dist = \"exponential\", mean }";

impl Start {
    /// `dist` checked as the start of the entry whose fields `at` names, with
    /// its stop and the run's duration: every start it can draw comes before both.
    pub(super) fn new(
        dist: &DistSpec<Seconds>,
        at: &dyn Fn(&str) -> String,
        stop: Option<Time>,
        duration: Time,
    ) -> Result<Start, ConfigError> {
        let start = match *dist {
            DistSpec::Fixed(t) => Start::Fixed(seconds(&at("start"), t)?),
            DistSpec::Uniform { min, max } => {
                let (min, max) = (
                    seconds(&at("start.min"), min)?,
                    seconds(&at("start.max"), max)?,
                );
                if min > max {
                    return Err(err(
                        at("start"),
                        format!("uniform on [{} s, {} s]", secs(min), secs(max)),
                        "min <= max",
                    ));
                }
                Start::Uniform { min, max }
            }
            DistSpec::Exponential { mean } => {
                let mean = seconds(&at("start.mean"), mean)?;
                if mean == 0 {
                    return Err(err(
                        at("start.mean"),
                        "0 s",
                        "a positive mean (a start at 0 is start = \"0s\")",
                    ));
                }
                let end = stop.unwrap_or(duration).min(duration);
                Start::Exponential { mean, end }
            }
            DistSpec::Pareto { .. } => return Err(err(at("start.dist"), "\"pareto\"", ALLOWED)),
            DistSpec::Packmime => return Err(err(at("start.dist"), "\"packmime\"", ALLOWED)),
        };
        // The latest start the distribution can give must still leave the flow time to run.
        let (latest, field) = match start {
            Start::Fixed(t) => return check_period(at, t, stop, duration).map(|()| start),
            Start::Uniform { max, .. } => (max, "start.max"),
            // Cut off before the stop and the end: every draw is in time.
            Start::Exponential { .. } => (0, "start"),
        };
        check_period(&|_: &str| at(field), latest, None, duration)?;
        match stop {
            Some(stop) if stop <= latest => Err(err(
                at("stop"),
                format!("{} s", secs(stop)),
                format!(
                    "after the latest start ({} = {} s)",
                    at(field),
                    secs(latest)
                ),
            )),
            _ => Ok(start),
        }
    }

    /// The earliest start: what the engine configuration holds until the
    /// draws are put in, and so what the estimate charges. It gives the
    /// longest active time, so the estimate bounds the run's cost for every
    /// seed, and a sweep that checks a point with one seed has checked all
    /// its replicates.
    pub(super) fn earliest(&self) -> Time {
        match *self {
            Start::Fixed(t) => t,
            Start::Uniform { min, .. } => min,
            Start::Exponential { .. } => 0,
        }
    }

    /// The start drawn for one flow, from the stream `(kind, id)` of `seed`;
    /// None for a fixed start, which draws nothing.
    pub(super) fn draw(&self, seed: u64, kind: Component, id: u64) -> Option<Time> {
        if let Start::Fixed(_) = self {
            return None;
        }
        let mut rng = component_rng(seed, kind, id);
        Some(match *self {
            Start::Fixed(t) => t,
            Start::Uniform { min, max } => {
                let u: u64 = rng.random();
                // Multiply-shift onto [0, max − min] (spans are below 2^64 ps).
                min + ((u as u128 * ((max - min) as u128 + 1)) >> 64) as u64
            }
            Start::Exponential { mean, end } => {
                // The inverse of the CDF of the exponential conditioned on x < end.
                let (mean, end_f) = (mean as f64, end as f64);
                let below_end = -(-end_f / mean).exp_m1();
                let u: f64 = rng.random();
                let x = -mean * (-u * below_end).ln_1p();
                (x as Time).min(end - 1)
            }
        })
    }
}

/// The drawn starts of a build, by engine index, put into the configuration
/// after the estimate has charged the earliest ones.
#[derive(Debug, Default)]
pub(super) struct Draws {
    pub(super) tcp: Vec<(usize, Time)>,
    pub(super) udp: Vec<(usize, Time)>,
}

impl Draws {
    /// Put the drawn starts into `cfg`.
    pub(super) fn apply(self, cfg: &mut SimConfig) {
        for (i, t) in self.tcp {
            cfg.flows[i].start = t;
        }
        for (i, t) in self.udp {
            cfg.udp[i].start = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::limits::BuildLimits;
    use crate::scenario::ScenarioSpec;
    use crate::time::SEC;

    /// A dumbbell scenario with `flows` and `udp` entries, seeded with `seed`.
    fn scenario(seed: u64, flows: &str, udp: &str) -> String {
        format!(
            r#"{{"duration": 10, "seed": {seed},
               "topology": {{"kind": "dumbbell",
                  "bottleneck": {{"rate": 1e7, "delay": 0.005, "buffer": {{"packets": 100}}}},
                  "pairs": [{{"rate": 1e9, "delay": 0.01}}]}},
               "flows": [{flows}], "udp": [{udp}]}}"#
        )
    }

    fn built(json: &str) -> crate::config::SimConfig {
        ScenarioSpec::from_json(json).unwrap().build().unwrap()
    }

    fn starts(json: &str) -> Vec<u64> {
        built(json).flows.iter().map(|f| f.start).collect()
    }

    fn refused(json: &str) -> String {
        match ScenarioSpec::from_json(json) {
            Err(e) => e.to_string(),
            Ok(s) => s.build().unwrap_err().to_string(),
        }
    }

    const UNIFORM: &str =
        r#"{"pair": 0, "count": 5, "start": {"dist": "uniform", "min": "1s", "max": "2s"}}"#;

    #[test]
    fn each_copy_draws_its_own_start_within_the_range() {
        let s = starts(&scenario(1, UNIFORM, ""));
        assert_eq!(s.len(), 5);
        assert!(s.iter().all(|t| (SEC..=2 * SEC).contains(t)), "{s:?}");
        let mut distinct = s.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 5, "{s:?}");
    }

    #[test]
    fn the_seed_decides_the_draws() {
        assert_eq!(
            starts(&scenario(1, UNIFORM, "")),
            starts(&scenario(1, UNIFORM, ""))
        );
        assert_ne!(
            starts(&scenario(1, UNIFORM, "")),
            starts(&scenario(2, UNIFORM, ""))
        );
    }

    #[test]
    fn a_fixed_start_draws_nothing_and_keeps_its_time() {
        let fixed = built(&scenario(
            1,
            r#"{"pair": 0, "count": 2, "start": "1.5s"}"#,
            "",
        ));
        assert!(fixed.flows.iter().all(|f| f.start == 3 * SEC / 2));
        let table = built(&scenario(
            1,
            r#"{"pair": 0, "count": 2, "start": {"dist": "fixed", "value": "1.5s"}}"#,
            "",
        ));
        assert_eq!(format!("{fixed:?}"), format!("{table:?}"));
        let start = super::Start::Fixed(SEC);
        assert_eq!(start.draw(1, crate::rng::Component::Start, 0), None);
        // Written back as the number it was, so a fixed scenario records what it always did.
        let s = ScenarioSpec::from_json(&scenario(1, r#"{"pair": 0, "start": 2}"#, "")).unwrap();
        assert!(
            s.normalized().contains(r#""start":2.0"#),
            "{}",
            s.normalized()
        );
    }

    #[test]
    fn a_drawn_start_leaves_the_other_flows_as_they_were() {
        let alone = built(&scenario(1, r#"{"pair": 0, "start": "1s"}"#, ""));
        let with = built(&scenario(
            1,
            &format!(r#"{{"pair": 0, "start": "1s"}}, {UNIFORM}"#),
            "",
        ));
        assert_eq!(
            format!("{:?}", alone.flows[0]),
            format!("{:?}", with.flows[0])
        );
    }

    #[test]
    fn an_exponential_start_comes_before_the_stop() {
        let flows = r#"{"pair": 0, "count": 50, "stop": "3s", "start": {"dist": "exponential", "mean": "100s"}}"#;
        let s = starts(&scenario(4, flows, ""));
        assert!(s.iter().all(|&t| t < 3 * SEC), "{s:?}");
        let flows =
            r#"{"pair": 0, "count": 400, "start": {"dist": "exponential", "mean": "0.5s"}}"#;
        let s = starts(&scenario(4, flows, ""));
        let mean = s.iter().sum::<u64>() as f64 / s.len() as f64 / SEC as f64;
        assert!((0.4..0.6).contains(&mean), "mean {mean}");
    }

    #[test]
    fn a_voip_call_starts_once_and_udp_flows_draw_their_own() {
        let udp = r#"{"pair": 0, "pattern": "cbr", "rate": "1Mbps", "start": {"dist": "uniform", "min": 0, "max": 5}},
                     {"pair": 0, "pattern": "cbr", "rate": "1Mbps", "start": {"dist": "uniform", "min": 0, "max": 5}}"#;
        let json = scenario(1, r#"{"pair": 0}"#, udp).replace(
            r#""udp": ["#,
            r#""voip": [{"pair": 0, "start": {"dist": "exponential", "mean": "1s"}}], "udp": ["#,
        );
        let c = built(&json);
        let s: Vec<u64> = c.udp.iter().map(|u| u.start).collect();
        assert_eq!(s.len(), 4);
        assert_ne!(s[0], s[1]);
        assert_eq!(s[2], s[3], "both directions of a call");
        assert_eq!(c.flows[0].start, 0);
    }

    #[test]
    fn the_estimate_charges_the_earliest_start_whatever_the_seed() {
        let flows = |start: &str| format!(r#"{{"pair": 0, "count": 3, "start": {start}}}"#);
        let drawn = flows(r#"{"dist": "uniform", "min": "1s", "max": "9s"}"#);
        let estimate = |json: &str| {
            let e = ScenarioSpec::from_json(json).unwrap().estimate().unwrap();
            (e.events, e.memory_bytes)
        };
        let earliest = estimate(&scenario(1, &flows("1"), ""));
        assert_eq!(estimate(&scenario(1, &drawn, "")), earliest);
        assert_eq!(estimate(&scenario(2, &drawn, "")), earliest);
    }

    #[test]
    fn bad_starts_name_the_field_the_value_and_what_is_allowed() {
        let flow = |start: &str| scenario(1, &format!(r#"{{"pair": 0, {start}}}"#), "");
        let cases = [
            (
                flow(r#""start": {"dist": "uniform", "min": "3s", "max": "2s"}"#),
                "flows[0].start: uniform on [3 s, 2 s] is not allowed (min <= max)",
            ),
            (
                flow(r#""start": {"dist": "uniform", "min": -1, "max": "2s"}"#),
                "flows[0].start.min: -1 is not allowed",
            ),
            (
                flow(r#""start": {"dist": "uniform", "min": 0, "max": "10s"}"#),
                "flows[0].start.max: 10 s is not allowed (a time before the end of the run (duration = 10 s))",
            ),
            (
                flow(r#""stop": "2s", "start": {"dist": "uniform", "min": 0, "max": "2s"}"#),
                "flows[0].stop: 2 s is not allowed (after the latest start (flows[0].start.max = 2 s))",
            ),
            (
                flow(r#""start": {"dist": "exponential", "mean": 0}"#),
                "flows[0].start.mean: 0 s is not allowed (a positive mean",
            ),
            (
                flow(r#""start": {"dist": "pareto", "mean": 1, "shape": 1.5}"#),
                "flows[0].start.dist: \"pareto\" is not allowed (a time, or { dist = \"uniform\", min, max } or { dist = \"exponential\", mean })",
            ),
            (
                flow(r#""start": "12s""#),
                "flows[0].start: 12 s is not allowed (a time before the end of the run",
            ),
            (
                scenario(1, "", r#"{"pair": 0, "pattern": "cbr", "rate": "1Mbps", "start": {"dist": "uniform", "min": 0, "max": 11}}"#),
                "udp[0].start.max: 11 s is not allowed",
            ),
        ];
        for (json, want) in cases {
            let e = refused(&json);
            assert!(e.starts_with(want), "{e}\nwanted: {want}");
        }
    }

    #[test]
    fn runs_differ_by_seed_and_repeat_with_it() {
        let flows =
            r#"{"pair": 0, "count": 2, "start": {"dist": "uniform", "min": 0, "max": "1s"}}"#;
        let run = |seed: u64| {
            let json = scenario(seed, flows, "").replace(r#""duration": 10"#, r#""duration": 2"#);
            let sim = ScenarioSpec::from_json(&json)
                .unwrap()
                .resolve()
                .unwrap()
                .simulation(&BuildLimits::default())
                .unwrap();
            let r = sim.run();
            r.flows
                .iter()
                .map(|f| (f.start_s, f.goodput_bps))
                .collect::<Vec<_>>()
        };
        let one = run(1);
        assert_eq!(one, run(1));
        assert_ne!(one, run(2));
        // The results report the drawn start.
        let c = built(&scenario(1, flows, ""));
        assert!((one[0].0 - crate::time::secs(c.flows[0].start)).abs() < 1e-5);
    }
}
