//! Where traffic enters and leaves the network: a scenario names hosts in its
//! topology's own terms (a dumbbell pair, a parking lot's long or cross pair,
//! graph node names); these resolve them to node indices.

use std::collections::HashMap;

use super::build::err;
use super::spec::{FlowSpec, UdpSpec, VoipSpec, WebSpec};
use crate::config::ConfigError;

pub(super) struct Place<'a> {
    pair: Option<usize>,
    long: Option<usize>,
    cross: Option<(usize, usize)>,
    src: &'a Option<String>,
    dst: &'a Option<String>,
}

macro_rules! place {
    ($t:ty) => {
        impl $t {
            pub(super) fn place(&self) -> Place<'_> {
                Place {
                    pair: self.pair,
                    long: self.long,
                    cross: self.cross,
                    src: &self.src,
                    dst: &self.dst,
                }
            }
        }
    };
}
place!(FlowSpec);
place!(UdpSpec);
place!(VoipSpec);

pub(super) enum Endpoints {
    Pairs(Vec<(u32, u32)>),
    Lot {
        long: Vec<(u32, u32)>,
        cross: Vec<Vec<(u32, u32)>>,
    },
    Names(NodeIndex),
}

/// Graph node names and their indices, looked up in O(1).
pub(super) struct NodeIndex {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl NodeIndex {
    pub(super) fn new(names: &[String]) -> Result<NodeIndex, ConfigError> {
        let mut index = HashMap::with_capacity(names.len());
        for (i, n) in names.iter().enumerate() {
            if n.trim().is_empty() || n.chars().any(char::is_control) {
                return Err(err(
                    format!("topology.nodes[{i}]"),
                    format!("{n:?}"),
                    "a name that is not empty and has no control characters",
                ));
            }
            if index.insert(n.clone(), i as u32).is_some() {
                return Err(err(
                    format!("topology.nodes[{i}]"),
                    n,
                    "a name not used by another node",
                ));
            }
        }
        Ok(NodeIndex {
            names: names.to_vec(),
            index,
        })
    }

    pub(super) fn find(&self, name: &str, field: &str) -> Result<u32, ConfigError> {
        self.index.get(name).copied().ok_or_else(|| {
            let some: Vec<&str> = self.names.iter().map(String::as_str).take(12).collect();
            let more = if self.names.len() > some.len() {
                ", …"
            } else {
                ""
            };
            err(
                field,
                format!("{name:?}"),
                format!("one of the nodes: {}{more}", some.join(", ")),
            )
        })
    }
}

impl Endpoints {
    pub(super) fn resolve(&self, f: &Place, prefix: &str) -> Result<(u32, u32), ConfigError> {
        let at = |k: &str| format!("{prefix}.{k}");
        let (kind, wanted): (&str, &[&str]) = match self {
            Endpoints::Pairs(_) => ("dumbbell", &["pair"]),
            Endpoints::Lot { .. } => ("parking_lot", &["long", "cross"]),
            Endpoints::Names(_) => ("graph", &["src", "dst"]),
        };
        let given = [
            ("pair", f.pair.map(|p| p.to_string())),
            ("long", f.long.map(|l| l.to_string())),
            ("cross", f.cross.map(|(h, k)| format!("[{h}, {k}]"))),
            ("src", f.src.as_ref().map(|s| format!("{s:?}"))),
            ("dst", f.dst.as_ref().map(|s| format!("{s:?}"))),
        ];
        if let Some((k, Some(v))) = given
            .into_iter()
            .find(|(k, v)| v.is_some() && !wanted.contains(k))
        {
            return Err(err(
                at(k),
                v,
                format!("{} for a {kind} topology", wanted.join(" / ")),
            ));
        }
        match self {
            Endpoints::Pairs(p) => {
                let k = f.pair.ok_or_else(|| {
                    err(
                        at("pair"),
                        "missing",
                        format!("a host pair index from 0 to {}", p.len() - 1),
                    )
                })?;
                p.get(k).copied().ok_or_else(|| {
                    err(
                        at("pair"),
                        k,
                        format!("a host pair index from 0 to {}", p.len() - 1),
                    )
                })
            }
            Endpoints::Lot { long, cross } => match (f.long, f.cross) {
                (Some(k), None) => long
                    .get(k)
                    .copied()
                    .ok_or_else(|| err(at("long"), k, format!("an index below {}", long.len()))),
                (None, Some((h, k))) => {
                    cross.get(h).and_then(|c| c.get(k)).copied().ok_or_else(|| {
                        err(
                            at("cross"),
                            format!("[{h}, {k}]"),
                            format!(
                                "[bottleneck < {}, index < {}]",
                                cross.len(),
                                cross.first().map_or(0, |c| c.len())
                            ),
                        )
                    })
                }
                _ => Err(err(
                    at("long/cross"),
                    "missing or both",
                    "exactly one of long = i or cross = [bottleneck, i]",
                )),
            },
            Endpoints::Names(n) => {
                let find = |k: &str, v: &Option<String>| {
                    let name = v
                        .as_deref()
                        .ok_or_else(|| err(at(k), "missing", "a node name"))?;
                    n.find(name, &at(k))
                };
                let (src, dst) = (find("src", f.src)?, find("dst", f.dst)?);
                if src == dst {
                    return Err(err(
                        at("dst"),
                        format!("{:?}", n.names[dst as usize]),
                        "a node other than src",
                    ));
                }
                Ok((src, dst))
            }
        }
    }
}

impl Endpoints {
    /// Servers and clients of a web source.
    pub(super) fn hosts(&self, w: &WebSpec, at: &str) -> Result<(Vec<u32>, Vec<u32>), ConfigError> {
        match self {
            Endpoints::Pairs(p) => {
                if w.pairs.is_empty() {
                    return Err(err(
                        format!("{at}.pairs"),
                        "[]",
                        "the host pairs that carry web traffic",
                    ));
                }
                let mut servers = Vec::new();
                let mut clients = Vec::new();
                for &k in &w.pairs {
                    let &(s, d) = p.get(k).ok_or_else(|| {
                        err(
                            format!("{at}.pairs"),
                            k,
                            format!("host pair indices from 0 to {}", p.len() - 1),
                        )
                    })?;
                    let (s, d) = if w.reverse { (d, s) } else { (s, d) };
                    servers.push(s);
                    clients.push(d);
                }
                Ok((servers, clients))
            }
            Endpoints::Names(_) if w.reverse => Err(err(
                format!("{at}.reverse"),
                "true",
                "reverse only on a dumbbell (on a graph, swap servers and clients)",
            )),
            Endpoints::Names(n) => {
                let find = |k: &str, names: &[String]| -> Result<Vec<u32>, ConfigError> {
                    if names.is_empty() {
                        return Err(err(format!("{at}.{k}"), "[]", "one or more node names"));
                    }
                    names
                        .iter()
                        .map(|name| n.find(name, &format!("{at}.{k}")))
                        .collect()
                };
                let (servers, clients) =
                    (find("servers", &w.servers)?, find("clients", &w.clients)?);
                // A transfer goes from a server to a different client: a node in both lists has no route to itself.
                if let Some(c) = w.clients.iter().find(|c| w.servers.contains(c)) {
                    return Err(err(
                        format!("{at}.clients"),
                        format!("{c:?}"),
                        "nodes that are not also servers",
                    ));
                }
                Ok((servers, clients))
            }
            Endpoints::Lot { .. } => Err(err(
                at,
                "web traffic",
                "web traffic on a dumbbell or a graph (parking lots have no spare hosts)",
            )),
        }
    }
}
