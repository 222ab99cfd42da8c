//! [`ScenarioSpec::build`]: a scenario as written becomes the engine's
//! [`SimConfig`], every value checked, with errors that name the field as the
//! scenario writes it, the value and what is allowed. The network is built in
//! `topology.rs`, TCP flows in `flows.rs`, UDP, VoIP, web traffic and link
//! changes in `traffic.rs`, packet captures in `capture.rs`.

mod capture;
mod flows;
mod start;
mod topology;
mod traffic;

use capture::{capture, capture_origin};
use flows::mark_cc_log;
use start::Draws;
use topology::{resolve_bdp, topology_error, LinkMeta};

use super::quantity::{Rate, Seconds};
use super::spec::*;
use crate::config::{num, ConfigError, SimConfig};
use crate::estimate::{estimate, Estimate, Origins};
use crate::limits::BuildLimits;
use crate::time::{from_secs, Time};

pub(super) fn err(
    field: impl Into<String>,
    value: impl ToString,
    allowed: impl Into<String>,
) -> ConfigError {
    ConfigError {
        field: field.into(),
        value: value.to_string(),
        allowed: allowed.into(),
    }
}

pub(super) fn seconds(field: &str, Seconds(v): Seconds) -> Result<Time, ConfigError> {
    if !(0.0..=1e7).contains(&v) {
        return Err(err(field, num(v), "a time from 0 to 10^7 seconds"));
    }
    Ok(from_secs(v))
}

pub(super) fn bits_per_second(field: &str, Rate(v): Rate) -> Result<u64, ConfigError> {
    if !(1.0..=1e13).contains(&v) {
        return Err(err(field, num(v), "a rate from 1 bit/s to 10 Tbit/s"));
    }
    Ok(v.round() as u64)
}

impl ScenarioSpec {
    /// Parse from JSON, each flow entry's `stack` profile filling the knobs it leaves out.
    pub fn from_json(text: &str) -> Result<ScenarioSpec, ConfigError> {
        let filled = super::stack::fill(text);
        let s = filled.as_deref().unwrap_or(text);
        crate::json::from_str(s).map_err(|e| {
            if e.field == "topology" || e.field.starts_with("topology.") {
                topology_error(s).unwrap_or(e)
            } else {
                e
            }
        })
    }

    /// Build the engine configuration within the default [`BuildLimits`].
    pub fn build(&self) -> Result<SimConfig, ConfigError> {
        self.build_with(&BuildLimits::default())
    }

    /// Build the engine configuration; refuse a run whose estimate passes
    /// `limits`, naming the scenario field that drives its cost.
    pub fn build_with(&self, limits: &BuildLimits) -> Result<SimConfig, ConfigError> {
        let (mut cfg, origins, draws) = self.build_unchecked()?;
        estimate(&cfg, &origins).check(limits)?;
        draws.apply(&mut cfg);
        Ok(cfg)
    }

    /// What the run would cost (only the hard caps apply), with the fields
    /// to blame named as the scenario writes them.
    pub fn estimate(&self) -> Result<Estimate, ConfigError> {
        Ok(self.build_estimated()?.1)
    }

    /// The engine configuration and its estimate, from one build.
    pub(super) fn build_estimated(&self) -> Result<(SimConfig, Estimate), ConfigError> {
        let (mut cfg, origins, draws) = self.build_unchecked()?;
        let e = estimate(&cfg, &origins);
        draws.apply(&mut cfg);
        Ok((cfg, e))
    }

    /// The configuration with every drawn start at its earliest, for the
    /// estimate (see `Start::earliest`), and the draws to put in after it.
    fn build_unchecked(&self) -> Result<(SimConfig, Origins, Draws), ConfigError> {
        super::resolve::count_build();
        self.check_names()?;
        let duration = seconds("duration", self.duration)?;
        if duration == 0 {
            return Err(err("duration", num(self.duration.0), "a positive duration"));
        }
        let sample_interval = match self.output.sample_interval {
            _ if self.output.traces.is_empty() => None,
            v if v.0 > 0.0 => Some(seconds("output.sample_interval", v)?),
            v => {
                return Err(err(
                    "output.sample_interval",
                    num(v.0),
                    "a positive interval",
                ))
            }
        };
        let mut meta: Vec<LinkMeta> = Vec::new();
        let (topology, endpoints) = self.topology(&mut meta)?;
        let mut o = Origins {
            link_buffer: meta
                .iter()
                .map(|m| (format!("{}.buffer", m.at), m.buffer.clone()))
                .collect(),
            link_rate: meta
                .iter()
                .map(|m| (format!("{}.rate", m.at), m.rate.clone()))
                .collect(),
            topology: match &self.topology {
                TopologySpec::Dumbbell(d) => {
                    ("topology.pairs".into(), format!("{} pairs", d.pairs.len()))
                }
                TopologySpec::ParkingLot(p) => ("topology.cross".into(), p.cross.to_string()),
                TopologySpec::Graph(g) => {
                    ("topology.nodes".into(), format!("{} nodes", g.nodes.len()))
                }
            },
            ..Origins::default()
        };
        let mut draws = Draws::default();
        let mut flows = self.tcp_flows(&endpoints, duration, &mut o, &mut draws)?;
        let labels = self.flow_labels();
        if let Some(log) = &self.output.cc_log {
            mark_cc_log(log, &labels, &mut flows)?;
            o.cc_log = (
                "output.cc_log.flows".into(),
                format!("{} flows", flows.iter().filter(|f| f.cc_log).count()),
            );
        }
        let udp = self.udp_flows(&endpoints, duration, &mut o, &mut draws)?;
        let web = self.web_sources(&endpoints, duration)?;
        let changes = self.link_changes(&topology, duration)?;
        if self.flows.is_empty()
            && self.udp.is_empty()
            && self.voip.is_empty()
            && self.web.is_empty()
        {
            return Err(err(
                "flows",
                "[]",
                "at least one [[flows]], [[udp]], [[voip]] or [[web]] entry",
            ));
        }
        let capture = self
            .output
            .pcap
            .as_ref()
            .map(|p| capture(p, &labels, &topology))
            .transpose()?
            .unwrap_or_default();
        if !capture.is_empty() {
            o.capture = capture_origin(self.output.pcap.as_ref().expect("given"));
        }
        let mut cfg = SimConfig {
            topology,
            flows,
            udp,
            web,
            changes,
            duration,
            seed: self.seed,
            sample_interval,
            capture,
        };
        // Caps first: resolving BDP buffers routes every source.
        // The engine names its own field; the scenario writes it under [output].
        let output = |e: ConfigError| {
            if e.field == "sample_interval" {
                ConfigError {
                    field: "output.sample_interval".into(),
                    ..e
                }
            } else {
                e
            }
        };
        cfg.check_caps().map_err(output)?;
        let bdp: Vec<Option<f64>> = meta.iter().map(|m| m.bdp).collect();
        resolve_bdp(&mut cfg, &bdp)?;
        cfg.validate().map_err(output)?;
        Ok((cfg, o, draws))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{AckCounting, Buffer, DelayDist, FlowConfig, SsthreshFrom};
    use crate::time::SEC;
    use crate::udp::UdpPattern;

    /// The error of a scenario refused when read or when built.
    fn refused(json: &str) -> String {
        match ScenarioSpec::from_json(json) {
            Err(e) => e.to_string(),
            Ok(s) => s.build().unwrap_err().to_string(),
        }
    }

    fn spec(extra_flow: &str, buffer: &str) -> String {
        format!(
            r#"{{"duration": 10, "seed": 3,
               "topology": {{"kind": "dumbbell",
                  "bottleneck": {{"rate": 700e6, "delay": 0.001, "buffer": {buffer}}},
                  "pairs": [{{"rate": 1e10, "delay": 0.049}}, {{"rate": 1e10, "delay": 0.019}}]}},
               "flows": [{{"pair": 0, "algorithm": "reno", "count": 2}}{extra_flow}]}}"#
        )
    }

    #[test]
    fn loss_detection_names_a_preset_the_other_knobs_override() {
        let flows = r#", {"pair": 1, "loss_detection": "dupack"}, {"pair": 1, "loss_detection": "dupack", "undo": true, "max_reordering": 100}, {"pair": 1, "frto": false, "reordering": 5}"#;
        let c = ScenarioSpec::from_json(&spec(flows, r#"{"packets": 10}"#))
            .unwrap()
            .build()
            .unwrap();
        let knobs = |f: &FlowConfig| {
            (
                f.loss_detection,
                f.dsack,
                f.undo,
                f.frto,
                f.reordering,
                f.max_reordering,
            )
        };
        use crate::config::LossDetection::{DupAck, Rack};
        assert_eq!(
            knobs(&c.flows[0]),
            (Rack, true, true, true, 3, 300),
            "Linux's by default"
        );
        assert_eq!(knobs(&c.flows[2]), (DupAck, false, false, false, 3, 3));
        assert_eq!(knobs(&c.flows[3]), (DupAck, false, true, false, 3, 100));
        assert_eq!(knobs(&c.flows[4]), (Rack, true, true, false, 5, 300));
        let e = refused(&spec(
            r#", {"pair": 1, "reordering": 0}"#,
            r#"{"packets": 10}"#,
        ));
        assert!(
            e.starts_with("flows[1].reordering: 0") && e.contains("1 to 1000000"),
            "{e}"
        );
        let e = refused(&spec(
            r#", {"pair": 1, "reordering": 10, "max_reordering": 5}"#,
            r#"{"packets": 10}"#,
        ));
        assert!(
            e.starts_with("flows[1].max_reordering: 5") && e.contains("`reordering` (10)"),
            "{e}"
        );
    }

    #[test]
    fn a_dumbbell_scenario_builds() {
        let s = ScenarioSpec::from_json(&spec(
            r#", {"pair": 1, "start": 1.5, "sack": false}, {"pair": 1, "reverse": true}"#,
            r#"{"packets": 1500}"#,
        ))
        .unwrap();
        let c = s.build().unwrap();
        assert_eq!(c.flows.len(), 4);
        assert_eq!(
            (c.flows[3].src, c.flows[3].dst),
            (c.flows[2].dst, c.flows[2].src)
        );
        assert_eq!(c.flows[2].start, 1_500_000_000_000);
        assert!(!c.flows[2].sack);
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(1500));
        assert_eq!(c.seed, 3);
    }

    #[test]
    fn bdp_buffers_use_the_longest_rtt_crossing_the_link() {
        // 700 Mbit/s × 100 ms / 1500 B = 5833.3 packets; half of that: 2917.
        let c = ScenarioSpec::from_json(&spec("", r#"{"bdp": 0.5}"#))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(2917));
        // With Ethernet framing (38 bytes) a packet takes 1538 bytes of the link: 5689.2 → half: 2845.
        let framed = spec("", r#"{"bdp": 0.5}, "framing": 38"#);
        let c = ScenarioSpec::from_json(&framed).unwrap().build().unwrap();
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(2845));
    }

    #[test]
    fn errors_name_the_field_value_and_what_is_allowed() {
        let bad_algo = spec(
            r#", {"pair": 1, "algorithm": "nope"}"#,
            r#"{"packets": 10}"#,
        );
        let e = refused(&bad_algo);
        assert!(
            e.starts_with(r#"flows[1].algorithm: "nope""#) && e.contains("reno"),
            "{e}"
        );
        let bad_param = spec(r#", {"pair": 1, "params": {"x": 1}}"#, r#"{"packets": 10}"#);
        let e = refused(&bad_param);
        assert!(e.contains("flows[1].params.x"), "{e}");
        let bad_pair = spec(r#", {"pair": 7}"#, r#"{"packets": 10}"#);
        let e = refused(&bad_pair);
        assert!(
            e.contains("flows[1].pair: 7") && e.contains("0 to 1"),
            "{e}"
        );
        let neg_rate = spec("", r#"{"packets": 10}"#).replace("700e6", "-5");
        let e = refused(&neg_rate);
        assert!(e.contains("topology.bottleneck.rate: -5"), "{e}");
        // The file's own entry index (flows[0] has count = 2), not the expanded one.
        let zero_mss = spec(r#", {"pair": 1, "mss": 0}"#, r#"{"packets": 10}"#);
        let e = refused(&zero_mss);
        assert!(e.contains("flows[1].mss: 0"), "{e}");
        let stop = spec(
            r#", {"pair": 1, "start": 2, "stop": 1}"#,
            r#"{"packets": 10}"#,
        );
        let e = refused(&stop);
        assert!(
            e.starts_with("flows[1].stop: 1 s is not allowed (after start)"),
            "{e}"
        );
        let e = ScenarioSpec::from_json(r#"{"duration": 1}"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("topology: missing"), "{e}");
        let huge_iw = spec(
            r#", {"pair": 1, "init_cwnd": 4000000000}"#,
            r#"{"packets": 10}"#,
        );
        let e = refused(&huge_iw);
        assert!(e.starts_with("flows[1].init_cwnd: 4000000000"), "{e}");
        let tiny = spec("", r#"{"packets": 10}"#).replace(
            r#""duration": 10,"#,
            r#""duration": 10, "output": {"sample_interval": 1e-9},"#,
        );
        let e = refused(&tiny);
        assert!(
            e.starts_with("output.sample_interval: 0.000000001 s")
                && e.contains("10 million samples"),
            "{e}"
        );
    }

    #[test]
    fn udp_voip_web_and_changes_build() {
        let s = r#"{"duration": 30, "topology": {"kind": "dumbbell",
              "bottleneck": {"rate": 1e8, "delay": 0.01, "buffer": {"bdp": 0.5}},
              "pairs": [{"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.005}, {"rate": 1e9, "delay": 0.015}]},
            "flows": [{"pair": 0, "rwnd": 65536, "host_jitter": "20us", "access_delay": {"dist": "uniform", "min": "5ms", "max": "25ms"}, "ack_counting": "acks", "ssthresh_from": "pipe", "delack_segments": 3, "init_ssthresh": 100}],
            "udp": [{"pair": 1, "pattern": "onoff", "rate": 5e7, "on": 10, "off": 10},
                    {"pair": 1, "pattern": "poisson", "rate": 3e6, "packet_size": 500}],
            "voip": [{"pair": 2}],
            "web": [{"pairs": [1, 2], "rate": 100, "size": {"dist": "pareto", "shape": 1.2, "mean": "12KB"}}],
            "changes": [{"at": 15, "link": "bottleneck:fwd", "rate": 5e7}]}"#;
        let c = ScenarioSpec::from_json(s).unwrap().build().unwrap();
        assert_eq!(c.udp.len(), 4);
        // G.711 in 20 ms packets: 160 bytes + 40 of headers every 20 ms = 80 kbit/s each way.
        assert_eq!(c.udp[2].packet_size, 200);
        assert_eq!(c.udp[2].pattern, UdpPattern::Cbr { rate_bps: 80_000 });
        assert_eq!((c.udp[2].src, c.udp[2].dst), (c.udp[3].dst, c.udp[3].src));
        assert_eq!(c.web[0].servers.len(), 2);
        assert_eq!(c.changes[0].at, 15 * SEC);
        let f = &c.flows[0];
        assert_eq!(f.host_jitter, 20_000_000);
        assert_eq!(
            f.access_delay,
            DelayDist::Uniform {
                min: 5_000_000_000,
                max: 25_000_000_000
            }
        );
        assert_eq!(
            (f.ack_counting, f.delack_segments, f.init_ssthresh),
            (AckCounting::Acks, 3, Some(100))
        );
        assert_eq!(f.ssthresh_from, SsthreshFrom::Pipe);
        // BDP: 100 Mbit/s × the largest RTT crossing (pair 2: 2·(15 + 10) = 50 ms) / 1500 B = 417; half: 208.
        assert_eq!(c.topology.links[0].cfg.buffer, Buffer::Packets(208));
    }

    #[test]
    fn traffic_errors_name_the_field() {
        let base = |extra: &str| {
            format!(
                r#"{{"duration": 1, "topology": {{"kind": "dumbbell",
              "bottleneck": {{"rate": 1e8, "delay": 0.01, "buffer": {{"packets": 10}}}},
              "pairs": [{{"rate": 1e9, "delay": 0.005}}]}}, {extra}}}"#
            )
        };
        let e = |extra: &str| refused(&base(extra));
        assert!(
            e(r#""udp": [{"pair": 0, "pattern": "burst", "rate": 1e6}]"#)
                .starts_with(r#"udp[0].pattern: "burst""#)
        );
        assert!(
            e(r#""udp": [{"pair": 0, "pattern": "onoff", "rate": 1e6}]"#).starts_with("udp[0].on")
        );
        assert!(e(
            r#""flows": [{"pair": 0}], "changes": [{"at": 1, "link": "nope", "rate": 1e6}]"#
        )
        .contains("bottleneck:fwd"));
        assert!(e(r#""web": [{"pairs": [3], "rate": 5}]"#).starts_with("web[0].pairs: 3"));
        assert!(e(r#""web": [{"pairs": [0], "rate": 5, "algorithm": "x"}]"#)
            .starts_with(r#"web[0].algorithm: "x""#));
    }

    #[test]
    fn parking_lot_and_graph_scenarios_build() {
        let lot = r#"{"duration": 1, "topology": {"kind": "parking_lot", "hops": 3,
            "link": {"rate": 1e8, "delay": 0.005, "buffer": {"bdp": 1}},
            "access": {"rate": 1e9, "delay": 0.001}, "long": 1, "cross": 2},
            "flows": [{"long": 0}, {"cross": [2, 1]}]}"#;
        let c = ScenarioSpec::from_json(lot).unwrap().build().unwrap();
        assert_eq!(c.flows.len(), 2);
        assert!(matches!(c.topology.links[0].cfg.buffer, Buffer::Packets(n) if n > 1));
        let graph = r#"{"duration": 1, "topology": {"kind": "graph", "nodes": ["a", "b", "c"],
            "links": [{"a": "a", "b": "b", "fwd": {"rate": 1e8, "delay": 0.01, "buffer": {"packets": 50}}},
                      {"a": "b", "b": "c", "fwd": {"rate": 1e7, "delay": 0.01, "buffer": {"packets": 50}}, "monitor": true}]},
            "flows": [{"src": "a", "dst": "c"}]}"#;
        let c = ScenarioSpec::from_json(graph).unwrap().build().unwrap();
        assert_eq!(
            c.topology
                .route(c.flows[0].src, c.flows[0].dst)
                .unwrap()
                .len(),
            2
        );
        let e = ScenarioSpec::from_json(&graph.replace(r#""dst": "c""#, r#""dst": "z""#))
            .unwrap()
            .build()
            .unwrap_err();
        assert!(e.to_string().contains(r#"flows[0].dst: "z""#), "{e}");
    }
}
