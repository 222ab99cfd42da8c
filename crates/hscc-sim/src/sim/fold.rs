//! Which hops fold into the one before them (`link/fold.rs`): a link `b`
//! that every route through it enters from the same link `a`, neither
//! changed during the run, `b` not crossed by web transfers, `a` delivering
//! its packets in order and `b` unable to drop one. In a dumbbell each
//! receiver's access link folds into the bottleneck, and each sender's into
//! the reverse bottleneck.

use super::Routes;
use crate::config::SimConfig;
use crate::link::Link;
use crate::packet::HEADER_BYTES;

/// Before a link on the routes: more than one link, or none (the route's start).
const MANY: u32 = u32::MAX;
/// Not on any route yet.
const NONE: u32 = u32::MAX - 1;

/// The pairs `(a, b)` of links of `cfg` where hop `b` folds into `a`, in order.
pub(super) fn folds(cfg: &SimConfig, routes: &Routes, links: &[Link]) -> Vec<(u32, u32)> {
    let n = links.len();
    let mut before = vec![NONE; n];
    for path in routes.all() {
        for (i, &l) in path.iter().enumerate() {
            let prev = i.checked_sub(1).map_or(MANY, |i| path[i]);
            let slot = &mut before[l as usize];
            *slot = if *slot == NONE || *slot == prev {
                prev
            } else {
                MANY
            };
        }
    }
    // Links changed during the run (neither end of a fold), and links web
    // transfers cross (no folded hop): a web slot's packets left over from
    // its previous transfer leave the network at the first link end they
    // reach after the slot is reused, and a feeder's end is no moment of its
    // own for the packets it passes to a folded hop. A feeder's web packets
    // go on to other links, through its own line.
    let mut fixed = vec![false; n];
    let mut web = vec![false; n];
    for c in &cfg.changes {
        fixed[c.link as usize] = true;
    }
    for w in &cfg.web {
        for (&s, &c) in w
            .servers
            .iter()
            .flat_map(|s| w.clients.iter().map(move |c| (s, c)))
        {
            for (x, y) in [(s, c), (c, s)] {
                for &l in routes.path(routes.id(x, y)) {
                    web[l as usize] = true;
                }
            }
        }
    }
    let (min_size, max_size) = packet_sizes(cfg);
    let (mut feeds, mut folded) = (vec![false; n], vec![false; n]);
    let mut out = Vec::new();
    for b in 0..n {
        let a = before[b];
        if a >= NONE || fixed[a as usize] || fixed[b] || web[b] || folded[a as usize] || feeds[b] {
            continue;
        }
        let (la, lb) = (&links[a as usize], &links[b]);
        if la.can_feed_fold() && lb.can_be_folded(la.rate_bps, min_size, max_size) {
            feeds[a as usize] = true;
            folded[b] = true;
            out.push((a, b as u32));
        }
    }
    out.sort_unstable();
    out
}

/// The smallest and largest packet `cfg`'s traffic can send, bytes on the
/// wire: an ACK or a UDP datagram; a full segment or a datagram.
fn packet_sizes(cfg: &SimConfig) -> (u32, u32) {
    let mss = cfg
        .flows
        .iter()
        .chain(cfg.web.iter().map(|w| &w.tcp))
        .map(|f| f.mss);
    let udp = cfg.udp.iter().map(|u| u.packet_size);
    let min = udp.clone().fold(HEADER_BYTES, u32::min);
    let max = mss
        .map(|m| m.saturating_add(HEADER_BYTES))
        .chain(udp)
        .fold(HEADER_BYTES, u32::max);
    (min, max)
}
