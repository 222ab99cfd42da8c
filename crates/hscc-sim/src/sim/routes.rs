//! Routes between node pairs, all computed when the simulation is built.

use std::collections::hash_map::{Entry, HashMap};

use crate::config::{ConfigError, SimConfig, Topology};

/// Shortest paths between node pairs, each computed once.
#[derive(Debug, Default)]
pub struct Routes {
    paths: Vec<Vec<u32>>,
    index: HashMap<(u32, u32), u32>,
}

impl Routes {
    /// The routes of `pairs`, numbered in order of first appearance; else
    /// the first pair without one, by its index in `pairs`, and why.
    pub fn new(t: &Topology, pairs: &[(u32, u32)]) -> Result<Routes, (usize, ConfigError)> {
        let mut index = HashMap::with_capacity(pairs.len());
        let (mut distinct, mut at) = (Vec::new(), Vec::new());
        for (k, &p) in pairs.iter().enumerate() {
            if let Entry::Vacant(e) = index.entry(p) {
                e.insert(distinct.len() as u32);
                distinct.push(p);
                at.push(k);
            }
        }
        let paths = t
            .routes(&distinct)
            .into_iter()
            .zip(at)
            .map(|(r, k)| r.map_err(|e| (k, e)))
            .collect::<Result<_, _>>()?;
        Ok(Routes { paths, index })
    }

    /// The routes a configuration's traffic takes: each TCP flow's data and
    /// ACKs, each UDP flow's data, each web pair's both ways, in that order.
    pub fn of(cfg: &SimConfig) -> Result<Routes, ConfigError> {
        let mut pairs = Vec::new();
        for f in &cfg.flows {
            pairs.extend([(f.src, f.dst), (f.dst, f.src)]);
        }
        pairs.extend(cfg.udp.iter().map(|u| (u.src, u.dst)));
        for w in &cfg.web {
            for &s in &w.servers {
                for &c in &w.clients {
                    pairs.extend([(s, c), (c, s)]);
                }
            }
        }
        Routes::new(&cfg.topology, &pairs).map_err(|(k, e)| ConfigError {
            field: field(cfg, k),
            ..e
        })
    }

    /// Route id from `src` to `dst`, one of the pairs routed when built.
    #[inline]
    pub fn id(&self, src: u32, dst: u32) -> u32 {
        self.index[&(src, dst)]
    }

    /// The links of route `id`.
    #[inline]
    pub fn path(&self, id: u32) -> &[u32] {
        &self.paths[id as usize]
    }

    /// Every route's links.
    pub fn all(&self) -> impl Iterator<Item = &[u32]> {
        self.paths.iter().map(Vec::as_slice)
    }
}

/// The field that asks for the `k`th route of [`Routes::of`].
fn field(cfg: &SimConfig, k: usize) -> String {
    if k < 2 * cfg.flows.len() {
        return format!("flows[{}].{}", k / 2, ["dst", "src"][k % 2]);
    }
    let mut k = k - 2 * cfg.flows.len();
    if k < cfg.udp.len() {
        return format!("udp[{k}].dst");
    }
    k -= cfg.udp.len();
    for (i, w) in cfg.web.iter().enumerate() {
        let n = 2 * w.servers.len() * w.clients.len();
        if k < n {
            return format!("web[{i}].{}", ["clients", "servers"][k % 2]);
        }
        k -= n;
    }
    unreachable!("a route of the configuration")
}

#[cfg(test)]
mod tests {
    use hscc_cc::CcParams;
    use hscc_model::web::{SizeDist, WebConfig, WebModel};

    use super::*;
    use crate::config::{Buffer, FlowConfig, LinkConfig};
    use crate::time::MS;
    use crate::udp::{UdpConfig, UdpPattern};

    /// Nodes a, b, c: a and b joined both ways, c on a link from a only (c reaches nothing).
    fn config() -> SimConfig {
        let mut t = Topology::default();
        let [a, b, c] = ["a", "b", "c"].map(|n| t.add_node(n));
        let l = LinkConfig::new(1_000_000, MS, Buffer::Packets(10));
        t.add_duplex("ab", a, b, l.clone(), l.clone(), false);
        t.links.push(crate::config::LinkSpec {
            name: "ac".into(),
            from: a,
            to: c,
            cfg: l,
            monitor: false,
        });
        let reno = || CcParams::from_name("reno").unwrap();
        SimConfig {
            topology: t,
            flows: vec![FlowConfig::bulk(a, b, reno())],
            ..SimConfig::default()
        }
    }

    /// The field `Routes::of` names for `cfg`'s first pair without a route.
    fn refused(cfg: &SimConfig) -> String {
        Routes::of(cfg).unwrap_err().field
    }

    #[test]
    fn the_first_pair_without_a_route_names_its_field() {
        let mut cfg = config();
        let routes = Routes::of(&cfg).unwrap();
        assert_eq!(routes.path(routes.id(0, 1)), [0]);
        assert_eq!(routes.path(routes.id(1, 0)), [1]);
        let reno = cfg.flows[0].cc.clone();
        cfg.flows.push(FlowConfig::bulk(0, 2, reno.clone()));
        assert_eq!(refused(&cfg), "flows[1].src");
        cfg.flows.push(FlowConfig::bulk(2, 0, reno));
        assert_eq!(refused(&cfg), "flows[1].src");
        cfg.flows.truncate(1);
        cfg.udp.push(UdpConfig {
            src: 2,
            dst: 0,
            pattern: UdpPattern::Cbr { rate_bps: 1000 },
            packet_size: 100,
            start: 0,
            stop: None,
        });
        assert_eq!(refused(&cfg), "udp[0].dst");
        cfg.udp.clear();
        let web = |servers, clients| WebConfig {
            servers,
            clients,
            rate: 1.0,
            size: SizeDist::Fixed(1000),
            tcp: cfg.flows[0].clone(),
            start: 0,
            stop: None,
            model: WebModel::Transfers,
        };
        cfg.web = vec![web(vec![0], vec![1]), web(vec![2], vec![0])];
        assert_eq!(refused(&cfg), "web[1].clients");
        cfg.web[1] = web(vec![0], vec![1, 2]);
        assert_eq!(refused(&cfg), "web[1].servers");
    }
}
