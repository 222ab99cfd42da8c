//! Shortest paths for many node pairs at once, in time linear in the
//! topology per tree rather than per pair.
//!
//! A breadth-first tree from a node holds its route to every node, so pairs
//! with one source share one tree. A node whose links all reach the same
//! other node (a host on its access link) takes that link, then the route of
//! the node it reaches: that node's tree is its own but for the host, which
//! leads nowhere else. A dumbbell or parking lot needs one tree per router.
//!
//! The routes are those of a breadth-first search from each source that
//! scans a node's links in link order: fewest hops, ties to the lower link.

use crate::error::ConfigError;
use crate::limits::MAX_ROUTE_LINKS;
use crate::topology::Topology;

/// A node's links when all of them reach one other node: the first link and that node.
pub fn one_way_out(t: &Topology) -> Vec<Option<(u32, u32)>> {
    let n = t.nodes.len();
    // Unseen, one way (link, node), or more than one.
    let mut out: Vec<Option<Option<(u32, u32)>>> = vec![None; n];
    for (i, l) in t.links.iter().enumerate() {
        // The caps (`route_work`) come before the links are checked: skip missing nodes.
        let Some(o) = out.get_mut(l.from as usize) else {
            continue;
        };
        *o = match *o {
            None if l.to != l.from => Some(Some((i as u32, l.to))),
            Some(Some((first, to))) if to == l.to => Some(Some((first, to))),
            _ => Some(None),
        };
    }
    out.into_iter().map(Option::flatten).collect()
}

/// The node whose tree holds the routes from `src`, and the link there if it is not `src`.
pub fn root(one_way: &[Option<(u32, u32)>], src: u32) -> (u32, Option<u32>) {
    match one_way.get(src as usize).copied().flatten() {
        Some((link, to)) => (to, Some(link)),
        None => (src, None),
    }
}

impl Topology {
    /// Shortest path by hop count from `src` to `dst` as link indices; ties go
    /// to the lower link index, so routes are deterministic.
    pub fn route(&self, src: u32, dst: u32) -> Result<Vec<u32>, ConfigError> {
        self.routes(&[(src, dst)]).pop().expect("one pair")
    }

    /// The route of each pair, in order, sharing the work between pairs (see the module).
    pub fn routes(&self, pairs: &[(u32, u32)]) -> Vec<Result<Vec<u32>, ConfigError>> {
        Router::new(self).routes(pairs)
    }
}

/// A topology's links by the node they leave, ready to route.
struct Router<'a> {
    t: &'a Topology,
    /// `out[first[u]..first[u + 1]]`: the links leaving node u, in link order.
    first: Vec<usize>,
    out: Vec<u32>,
    one_way: Vec<Option<(u32, u32)>>,
}

/// A breadth-first tree: each reached node's link from its parent and its depth in links.
struct Tree {
    root: u32,
    via: Vec<Option<u32>>,
    depth: Vec<u32>,
    frontier: Vec<u32>,
}

impl<'a> Router<'a> {
    /// Index the links of `t`, whose links join existing nodes.
    fn new(t: &'a Topology) -> Router<'a> {
        let n = t.nodes.len();
        let mut first = vec![0usize; n + 1];
        for l in &t.links {
            first[l.from as usize + 1] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut out = vec![0u32; t.links.len()];
        let mut fill = first.clone();
        for (i, l) in t.links.iter().enumerate() {
            out[fill[l.from as usize]] = i as u32;
            fill[l.from as usize] += 1;
        }
        Router {
            t,
            first,
            out,
            one_way: one_way_out(t),
        }
    }

    /// The route of each pair, in order, as [`Topology::route`] gives it.
    fn routes(&self, pairs: &[(u32, u32)]) -> Vec<Result<Vec<u32>, ConfigError>> {
        let roots: Vec<(u32, Option<u32>)> =
            pairs.iter().map(|&(s, _)| root(&self.one_way, s)).collect();
        // Pairs by root, so each tree is grown once.
        let mut order: Vec<u32> = (0..pairs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| roots[i as usize].0);
        let n = self.t.nodes.len();
        let mut tree = Tree {
            root: u32::MAX,
            via: vec![None; n],
            depth: vec![0; n],
            frontier: Vec::new(),
        };
        let mut routes: Vec<Option<Result<Vec<u32>, ConfigError>>> = vec![None; pairs.len()];
        for i in order {
            let (r, head) = roots[i as usize];
            if tree.root != r {
                self.grow(&mut tree, r);
            }
            routes[i as usize] = Some(self.path(&tree, pairs[i as usize], head));
        }
        routes.into_iter().map(|r| r.expect("every pair")).collect()
    }

    /// The breadth-first tree from `root`, in `tree`'s storage.
    fn grow(&self, tree: &mut Tree, root: u32) {
        tree.root = root;
        tree.via.fill(None);
        tree.frontier.clear();
        tree.frontier.push(root);
        tree.depth[root as usize] = 0;
        let mut next = 0;
        while let Some(&u) = tree.frontier.get(next) {
            next += 1;
            let links = &self.out[self.first[u as usize]..self.first[u as usize + 1]];
            crate::work::step(1 + links.len() as u64);
            for &i in links {
                let to = self.t.links[i as usize].to;
                if to != root && tree.via[to as usize].is_none() {
                    tree.via[to as usize] = Some(i);
                    tree.depth[to as usize] = tree.depth[u as usize] + 1;
                    tree.frontier.push(to);
                }
            }
        }
    }

    /// The route of `(src, dst)` from the tree of `src`'s root, after `head`, the link there.
    fn path(
        &self,
        tree: &Tree,
        (src, dst): (u32, u32),
        head: Option<u32>,
    ) -> Result<Vec<u32>, ConfigError> {
        if src == dst {
            return Ok(Vec::new());
        }
        let name = |u: u32| &self.t.nodes[u as usize];
        if dst != tree.root && tree.via[dst as usize].is_none() {
            return Err(ConfigError {
                field: "flows.dst".into(),
                value: format!("{} -> {}", name(src), name(dst)),
                allowed: "a node reachable from src".into(),
            });
        }
        let skip = usize::from(head.is_some());
        let len = skip + tree.depth[dst as usize] as usize;
        if len > MAX_ROUTE_LINKS {
            return Err(ConfigError {
                field: "flows.dst".into(),
                value: format!("{} -> {} ({len} links)", name(src), name(dst)),
                allowed: format!(
                    "a route of at most {MAX_ROUTE_LINKS} links (a packet counts its hops in a byte)"
                ),
            });
        }
        let mut path = vec![0u32; len];
        crate::work::step(len as u64);
        let mut at = dst;
        for slot in path[skip..].iter_mut().rev() {
            let l = tree.via[at as usize].expect("on the tree");
            *slot = l;
            at = self.t.links[l as usize].from;
        }
        if let Some(h) = head {
            path[0] = h;
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use proptest::prelude::*;

    use super::*;
    use crate::config::{route_work, FlowConfig, SimConfig};
    use crate::link::{Buffer, LinkConfig};
    use crate::time::MS;
    use crate::topology::{dumbbell, parking_lot, AccessSpec, LinkSpec};

    /// One breadth-first search per pair, stopping at `dst`: the definition.
    fn reference(t: &Topology, src: u32, dst: u32) -> Result<Vec<u32>, ConfigError> {
        let n = t.nodes.len();
        let mut via: Vec<Option<u32>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut frontier = VecDeque::from([src]);
        seen[src as usize] = true;
        while let Some(u) = frontier.pop_front() {
            if u == dst {
                break;
            }
            for (i, l) in t.links.iter().enumerate().filter(|(_, l)| l.from == u) {
                if !seen[l.to as usize] {
                    seen[l.to as usize] = true;
                    via[l.to as usize] = Some(i as u32);
                    frontier.push_back(l.to);
                }
            }
        }
        let names = format!("{} -> {}", t.nodes[src as usize], t.nodes[dst as usize]);
        if !seen[dst as usize] {
            return Err(ConfigError {
                field: "flows.dst".into(),
                value: names,
                allowed: "a node reachable from src".into(),
            });
        }
        let mut path = Vec::new();
        let mut at = dst;
        while at != src {
            let l = via[at as usize].expect("reached");
            path.push(l);
            at = t.links[l as usize].from;
        }
        path.reverse();
        if path.len() > MAX_ROUTE_LINKS {
            return Err(ConfigError {
                field: "flows.dst".into(),
                value: format!("{names} ({} links)", path.len()),
                allowed: format!(
                    "a route of at most {MAX_ROUTE_LINKS} links (a packet counts its hops in a byte)"
                ),
            });
        }
        Ok(path)
    }

    /// Every ordered pair of nodes routed at once matches the reference.
    fn assert_all_pairs(t: &Topology) {
        let n = t.nodes.len() as u32;
        let pairs: Vec<(u32, u32)> = (0..n).flat_map(|s| (0..n).map(move |d| (s, d))).collect();
        for (&(s, d), r) in pairs.iter().zip(t.routes(&pairs)) {
            assert_eq!(r, reference(t, s, d), "{s} -> {d}");
        }
    }

    fn l() -> LinkConfig {
        LinkConfig::new(1_000_000, MS, Buffer::Packets(10))
    }

    fn graph(n: usize, links: &[(usize, usize)]) -> Topology {
        let mut t = Topology::default();
        (0..n).for_each(|i| _ = t.add_node(format!("n{i}")));
        for (k, &(a, b)) in links.iter().enumerate() {
            let (a, b) = (a % n, b % n);
            if a != b {
                t.links.push(LinkSpec {
                    name: format!("l{k}"),
                    from: a as u32,
                    to: b as u32,
                    cfg: l(),
                    monitor: false,
                });
            }
        }
        t
    }

    proptest! {
        #[test]
        fn routes_match_the_reference(
            n in 1usize..10,
            links in prop::collection::vec((0usize..10, 0usize..10), 0..30),
        ) {
            assert_all_pairs(&graph(n, &links));
        }
    }

    #[test]
    fn dumbbell_and_parking_lot_routes_match_the_reference() {
        let access = AccessSpec::new(10_000_000, MS);
        assert_all_pairs(&dumbbell(l(), l(), &vec![access.clone(); 5]).topology);
        assert_all_pairs(&parking_lot(3, l(), &access, 2, 2).topology);
    }

    #[test]
    fn a_route_too_long_is_refused_with_its_length() {
        // A chain of routers with a host at each end: the host's route starts on its link.
        let chain: Vec<(usize, usize)> = (0..300).flat_map(|i| [(i, i + 1), (i + 1, i)]).collect();
        let t = graph(301, &chain);
        for (s, d) in [(0, 300), (0, 256), (0, 257), (1, 258), (1, 257), (300, 0)] {
            let r = t.route(s, d);
            assert_eq!(r, reference(&t, s, d), "{s} -> {d}");
        }
        assert!(t.route(0, 257).unwrap_err().value.contains("(257 links)"));
    }

    /// A dumbbell of `n` pairs, one flow on each.
    fn flows_on_dumbbell(n: usize) -> SimConfig {
        let d = dumbbell(l(), l(), &vec![AccessSpec::new(10_000_000, MS); n]);
        let cc = hscc_cc::CcParams::from_name("reno").unwrap();
        SimConfig {
            topology: d.topology,
            flows: d
                .pairs
                .iter()
                .map(|&(s, r)| FlowConfig::bulk(s, r, cc.clone()))
                .collect(),
            ..SimConfig::default()
        }
    }

    #[test]
    fn routing_work_grows_linearly_with_the_pairs() {
        let steps = |n: usize| {
            let cfg = flows_on_dumbbell(n);
            let pairs: Vec<(u32, u32)> = cfg
                .flows
                .iter()
                .flat_map(|f| [(f.src, f.dst), (f.dst, f.src)])
                .collect();
            crate::work::take();
            assert!(cfg.topology.routes(&pairs).iter().all(Result::is_ok));
            (crate::work::take(), route_work(&cfg))
        };
        let (small, big) = (steps(1000), steps(2000));
        // Two trees (one per router) over a topology twice as large, and twice the walks.
        assert!(big.0 <= 2 * small.0 + 100, "{small:?} -> {big:?}");
        assert!(big.1 <= 2 * small.1, "{small:?} -> {big:?}");
    }

    #[test]
    fn too_much_routing_is_refused_naming_the_topology() {
        // A ring where many nodes send: one tree per sender and per receiver.
        let n = 100_000;
        let ring: Vec<(usize, usize)> = (0..n)
            .flat_map(|i| [(i, (i + 1) % n), ((i + 1) % n, i)])
            .collect();
        let cc = hscc_cc::CcParams::from_name("reno").unwrap();
        let cfg = SimConfig {
            topology: graph(n, &ring),
            flows: (0..n as u32 / 10)
                .map(|i| FlowConfig::bulk(10 * i, 10 * i + 5, cc.clone()))
                .collect(),
            ..SimConfig::default()
        };
        let e = cfg.check_caps().unwrap_err();
        assert_eq!(e.field, "topology");
        assert!(e.allowed.contains("routing the traffic takes"), "{e}");
    }
}
