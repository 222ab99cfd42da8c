//! Topology builders (dumbbell, parking lot, general graph); their routes are
//! in `routing.rs`.

use serde::Serialize;

use crate::link::{Buffer, LinkConfig};
use crate::time::Time;

/// A unidirectional link between two nodes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkSpec {
    /// Name for reports (e.g. "bottleneck").
    pub name: String,
    /// Node it leaves.
    pub from: u32,
    /// Node it reaches.
    pub to: u32,
    /// Rate, delay, buffer, loss, jitter.
    pub cfg: LinkConfig,
    /// Record queue traces and the queuing-delay distribution.
    pub monitor: bool,
}

/// Nodes and unidirectional links.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Topology {
    /// Node names.
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<LinkSpec>,
}

impl Topology {
    /// Add a node; returns its index.
    pub fn add_node(&mut self, name: impl Into<String>) -> u32 {
        self.nodes.push(name.into());
        self.nodes.len() as u32 - 1
    }

    /// Add a link in each direction; returns their indices (a→b, b→a).
    pub fn add_duplex(
        &mut self,
        name: &str,
        a: u32,
        b: u32,
        ab: LinkConfig,
        ba: LinkConfig,
        monitor: bool,
    ) -> (u32, u32) {
        let i = self.links.len() as u32;
        self.links.push(LinkSpec {
            name: format!("{name}:fwd"),
            from: a,
            to: b,
            cfg: ab,
            monitor,
        });
        self.links.push(LinkSpec {
            name: format!("{name}:rev"),
            from: b,
            to: a,
            cfg: ba,
            monitor,
        });
        (i, i + 1)
    }
}

/// One sender/receiver pair of a dumbbell, with its own access links.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessSpec {
    /// Access-link rate, bit/s (both hosts of the pair).
    pub rate_bps: u64,
    /// One-way propagation delay of the sender's access link.
    pub delay: Time,
    /// One-way propagation delay of the receiver's access link.
    pub recv_delay: Time,
    /// Access-link queue limit.
    pub buffer: Buffer,
}

impl AccessSpec {
    /// An access pair whose sender link has `delay` and receiver link none,
    /// with a generous buffer so access links never drop.
    pub fn new(rate_bps: u64, delay: Time) -> AccessSpec {
        AccessSpec {
            rate_bps,
            delay,
            recv_delay: 0,
            buffer: Buffer::Packets(100_000),
        }
    }
}

/// A dumbbell: pairs of hosts on each side of one bottleneck (one each way).
#[derive(Clone, Debug, PartialEq)]
pub struct Dumbbell {
    /// The topology.
    pub topology: Topology,
    /// (sender node, receiver node) of each pair.
    pub pairs: Vec<(u32, u32)>,
    /// Forward (left→right) and reverse bottleneck link indices.
    pub bottleneck: (u32, u32),
}

/// Build a dumbbell: sender_i —access— L ==bottleneck== R —access— receiver_i.
/// The base RTT of pair i is 2·(access delay_i + recv_delay_i + bottleneck delay).
pub fn dumbbell(bottleneck: LinkConfig, reverse: LinkConfig, pairs: &[AccessSpec]) -> Dumbbell {
    let mut t = Topology::default();
    let left = t.add_node("L");
    let right = t.add_node("R");
    let bn = t.add_duplex("bottleneck", left, right, bottleneck, reverse, true);
    let mut ids = Vec::new();
    for (i, a) in pairs.iter().enumerate() {
        let s = t.add_node(format!("s{i}"));
        let d = t.add_node(format!("d{i}"));
        let up = LinkConfig::new(a.rate_bps, a.delay, a.buffer);
        t.add_duplex(&format!("access-s{i}"), s, left, up.clone(), up, false);
        let down = LinkConfig::new(a.rate_bps, a.recv_delay, a.buffer);
        t.add_duplex(&format!("access-d{i}"), right, d, down.clone(), down, false);
        ids.push((s, d));
    }
    Dumbbell {
        topology: t,
        pairs: ids,
        bottleneck: bn,
    }
}

/// A parking lot: routers R0 … RK joined by K bottlenecks.
#[derive(Clone, Debug, PartialEq)]
pub struct ParkingLot {
    /// The topology.
    pub topology: Topology,
    /// Hosts of the flows that cross every bottleneck: (sender at R0, receiver at RK).
    pub long: Vec<(u32, u32)>,
    /// Hosts of the flows that cross bottleneck k only: `cross[k]` lists (sender at R(k), receiver at R(k+1)).
    pub cross: Vec<Vec<(u32, u32)>>,
    /// Forward link index of each bottleneck.
    pub bottlenecks: Vec<u32>,
}

/// Build a parking lot of `hops` bottlenecks with `long` end-to-end host
/// pairs and `cross` host pairs per bottleneck, all on `access` links.
pub fn parking_lot(
    hops: usize,
    link: LinkConfig,
    access: &AccessSpec,
    long: usize,
    cross: usize,
) -> ParkingLot {
    let mut t = Topology::default();
    let routers: Vec<u32> = (0..=hops).map(|k| t.add_node(format!("R{k}"))).collect();
    let bottlenecks = (0..hops)
        .map(|k| {
            t.add_duplex(
                &format!("bottleneck{k}"),
                routers[k],
                routers[k + 1],
                link.clone(),
                link.clone(),
                true,
            )
            .0
        })
        .collect();
    let host_pair = |t: &mut Topology, name: String, a: u32, b: u32| {
        let s = t.add_node(format!("{name}s"));
        let d = t.add_node(format!("{name}d"));
        let up = LinkConfig::new(access.rate_bps, access.delay, access.buffer);
        let down = LinkConfig::new(access.rate_bps, access.recv_delay, access.buffer);
        t.add_duplex(&format!("access-{name}s"), s, a, up.clone(), up, false);
        t.add_duplex(&format!("access-{name}d"), b, d, down.clone(), down, false);
        (s, d)
    };
    let long = (0..long)
        .map(|i| host_pair(&mut t, format!("long{i}"), routers[0], routers[hops]))
        .collect();
    let cross = (0..hops)
        .map(|k| {
            (0..cross)
                .map(|i| host_pair(&mut t, format!("x{k}.{i}"), routers[k], routers[k + 1]))
                .collect()
        })
        .collect();
    ParkingLot {
        topology: t,
        long,
        cross,
        bottlenecks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn l() -> LinkConfig {
        LinkConfig::new(1_000_000, MS, Buffer::Packets(10))
    }

    #[test]
    fn dumbbell_routes_cross_the_bottleneck() {
        let d = dumbbell(
            l(),
            l(),
            &[
                AccessSpec::new(10_000_000, 5 * MS),
                AccessSpec::new(10_000_000, 20 * MS),
            ],
        );
        let (s, r) = d.pairs[1];
        let fwd = d.topology.route(s, r).unwrap();
        assert_eq!(fwd.len(), 3);
        assert_eq!(fwd[1], d.bottleneck.0);
        let back = d.topology.route(r, s).unwrap();
        assert_eq!(back[1], d.bottleneck.1);
    }

    #[test]
    fn parking_lot_long_flows_cross_every_hop() {
        let p = parking_lot(3, l(), &AccessSpec::new(10_000_000, MS), 1, 1);
        let (s, d) = p.long[0];
        let r = p.topology.route(s, d).unwrap();
        assert_eq!(r.len(), 5);
        assert_eq!(&r[1..4], &p.bottlenecks[..]);
        let (s, d) = p.cross[1][0];
        let r = p.topology.route(s, d).unwrap();
        assert_eq!(r, vec![r[0], p.bottlenecks[1], r[2]]);
    }

    #[test]
    fn unreachable_destination_is_an_error() {
        let mut t = Topology::default();
        let a = t.add_node("a");
        let b = t.add_node("b");
        let c = t.add_node("c");
        t.add_duplex("ab", a, b, l(), l(), false);
        assert_eq!(t.route(a, b).unwrap().len(), 1);
        assert!(t.route(a, c).unwrap_err().to_string().contains("reachable"));
    }
}
