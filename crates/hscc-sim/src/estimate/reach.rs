//! How far each TCP flow's traffic gets before the run ends. A flow's first
//! packet reaches a link at the flow's start plus the propagation and
//! serialization delays of the links before it (its data path, then its ACK
//! path); a link it cannot reach in time carries none of its traffic. A link
//! lets through at most (duration − arrival) × rate of the flows' first
//! windows: once the flows before it (in configuration order) fill that, a
//! flow's window waits in that link's queue (capped by its buffer) or at its
//! sender, and nothing of it goes further. Without this, a run too short for
//! every first window to cross the bottleneck would be charged for traffic on
//! every link of every flow's path.

use crate::config::SimConfig;
use crate::packet::HEADER_BYTES;
use crate::time::secs;

use super::traffic::{delay, framing, rate};

/// Per TCP flow, how many links of its paths carry its traffic in the run:
/// (data links, ACK links), each a prefix of the path.
pub(super) fn reached(cfg: &SimConfig, flow_paths: &[(Vec<u32>, Vec<u32>)]) -> Vec<(usize, usize)> {
    let t = &cfg.topology;
    let end = secs(cfg.duration);
    // Per link: first-window packets it has let through so far.
    let mut through = vec![0.0f64; t.links.len()];
    cfg.flows
        .iter()
        .zip(flow_paths)
        .map(|(fc, (data, acks))| {
            let mut at = secs(fc.start);
            for (i, &l) in data.iter().enumerate() {
                if at >= end {
                    return (i, 0);
                }
                let bits = (fc.wire_size() as f64 + framing(t, l)) * 8.0;
                if through[l as usize] >= (end - at) * rate(t, l) / bits {
                    // Its window waits in this link's queue: it loads it, nothing beyond.
                    return (i + 1, 0);
                }
                through[l as usize] += fc.init_cwnd as f64;
                at += delay(t, l) + bits / rate(t, l);
            }
            for (i, &l) in acks.iter().enumerate() {
                if at >= end {
                    return (data.len(), i);
                }
                at += delay(t, l) + (HEADER_BYTES as f64 + framing(t, l)) * 8.0 / rate(t, l);
            }
            (data.len(), acks.len())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScenarioSpec;

    #[test]
    fn a_flow_reaches_the_links_it_gets_to_in_time_and_past_links_with_room() {
        // a → b: 1.2 Gbit/s, 4 ms; b → c: 12 Mbit/s (1 ms a 1500-byte packet), 10 ms; reverse
        // links the same. Runs 20 ms. A first packet reaches b → c at 4.01 ms, when the link has
        // (20 − 4.01) ms × 1000 packets/s = 15.99 packets of room: flows 0 and 1 (10 packets
        // each) cross, flow 2 waits there. Their ACKs reach c → b at 15.01 ms and b → a at
        // 25.05 ms, after the end. Flow 3 starts at 17 ms and gets to b → c at 21.01 ms.
        let json = r#"{"duration": 0.02, "output": {"traces": []}, "topology": {"kind": "graph", "nodes": ["a", "b", "c"],
            "links": [{"a": "a", "b": "b", "fwd": {"rate": 1.2e9, "delay": 0.004}},
                      {"a": "b", "b": "c", "fwd": {"rate": 1.2e7, "delay": 0.01}}]},
            "flows": [{"src": "a", "dst": "c", "count": 3}, {"src": "a", "dst": "c", "start": 0.017}]}"#;
        let cfg = ScenarioSpec::from_json(json).unwrap().build().unwrap();
        let paths: Vec<_> = cfg
            .flows
            .iter()
            .map(|f| {
                let route = |s, d| cfg.topology.route(s, d).unwrap();
                (route(f.src, f.dst), route(f.dst, f.src))
            })
            .collect();
        assert_eq!(reached(&cfg, &paths), [(2, 1), (2, 1), (2, 0), (1, 0)]);
    }
}
