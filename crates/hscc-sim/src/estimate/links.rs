//! Links and host lines: the load offered to each link, what it carries, the
//! packet events of every hop and host wait, and the packets the links' FIFOs
//! and the hosts' lines hold at their fullest.

use crate::config::{Buffer, SimConfig};
use crate::limits::MAX_QUEUE_PACKETS;
use crate::packet::HEADER_BYTES;
use crate::time::secs;
use crate::topology::Topology;

use super::origins::Origins;
use super::sizes::{GROW, PACKET, PROPAGATING, QUEUED, QUEUE_ENTRY};
use super::traffic::{delay, framing, rate, reorders, Traffic};
use super::Tally;

/// The load on each link.
pub(super) struct Load {
    /// Per link: bits offered (framing included), bit/s.
    pub offered_bps: Vec<f64>,
    /// Per link: packets offered, per second.
    pub offered_pps: Vec<f64>,
    /// Per link: its rate, bit/s.
    rate_bps: Vec<f64>,
    /// Per link: its buffer, packets (of the mean size offered), at most [`MAX_QUEUE_PACKETS`].
    pub queue_pkts: Vec<f64>,
}

impl Load {
    /// The share of what is offered to link `l` that it carries (drops take the rest), a ratio.
    pub fn carried(&self, l: usize) -> f64 {
        if self.offered_bps[l] > 0.0 {
            (self.rate_bps[l] / self.offered_bps[l]).min(1.0)
        } else {
            1.0
        }
    }
}

/// Charge every packet event and the packets links and host lines hold; the load found.
pub(super) fn charge(cfg: &SimConfig, o: &Origins, traffic: &Traffic, tally: &mut Tally) -> Load {
    let t = &cfg.topology;
    let nl = t.links.len();
    let load = offered(t, traffic);
    let mut occupancy = vec![1.0; nl];
    for s in &traffic.sources {
        let mut hop = |l: u32, pps: f64, size: f64, burst: f64| {
            let c = &t.links[l as usize].cfg;
            // A tick-served link holds a packet up to one tick longer.
            let time = delay(t, l)
                + 3.0 * secs(c.jitter)
                + secs(c.tick)
                + (size + framing(t, l)) * 8.0 / rate(t, l);
            let carried = load.carried(l as usize);
            occupancy[l as usize] += pps * carried * time * burst;
            // Events per packet and hop: a reordering link may wake once more per packet.
            let hop_events = if reorders(&t.links[l as usize]) {
                2.0
            } else {
                1.0
            };
            pps * carried * s.active * hop_events
        };
        let mut n = 0.0;
        for &l in &s.data {
            n += hop(l, s.pps, s.size, if s.tcp { 2.0 } else { 1.0 });
        }
        for &l in &s.acks {
            n += hop(l, s.pps * s.ack_ratio, HEADER_BYTES as f64, 1.0);
        }
        // Host lines: an event per packet that waits there, and the packets they hold.
        let carried_pps = s
            .data
            .first()
            .map_or(0.0, |&l| s.pps * load.carried(l as usize));
        for (wait, pps, event) in [
            (s.host.0, carried_pps, !s.direct),
            (s.host.1, carried_pps * s.ack_ratio, true),
        ] {
            if wait > 0.0 {
                n += if event { pps * s.active } else { 0.0 };
                // One heap for all hosts: a packet and its 16-byte key.
                tally.mem.packets += (2.0 * pps * wait * (PACKET + 16.0) * GROW) as u64;
            }
        }
        tally.evs.packets += n as u64;
        tally.blame.ev(&s.blame, n);
    }
    // Initial windows land on the first link at once, after waiting together
    // at their hosts when they pass through the host line. The link holds at
    // most its buffer and what is on its wire; it drops the rest.
    let mut windows = vec![(0.0f64, 0.0f64); nl]; // per first link: (packets, room)
    let flows = cfg.flows.iter().zip(&traffic.flow_paths);
    for ((fc, (data, _)), s) in flows.zip(traffic.flow_sources()) {
        if let Some(&l) = data.first() {
            let room = load.queue_pkts[l as usize]
                + rate(t, l) * delay(t, l) / (8.0 * fc.wire_size() as f64)
                + 1.0;
            let w = &mut windows[l as usize];
            *w = (w.0 + fc.init_cwnd as f64, w.1.max(room));
        }
        if s.host.0 > 0.0 && !s.direct {
            tally.mem.packets += (fc.init_cwnd as f64 * (PACKET + 16.0) * GROW) as u64;
        }
    }
    for (held, (packets, room)) in occupancy.iter_mut().zip(windows) {
        *held += packets.min(room);
    }
    for (l, &held) in occupancy.iter().enumerate() {
        let q = if traffic.saturated[l] {
            load.queue_pkts[l]
        } else {
            0.0
        };
        // A reordering link keeps its packets in a heap with their keys, and
        // its stale wake-ups in the event queue.
        let per_packet = if reorders(&t.links[l]) {
            PROPAGATING + QUEUE_ENTRY
        } else {
            PACKET
        };
        let bytes = (held + q) * per_packet * GROW + q * QUEUED * GROW;
        tally.mem.packets += bytes as u64;
        let who = if q > held {
            &o.link_buffer[l]
        } else {
            &o.link_rate[l]
        };
        tally.blame.mem(who, bytes);
    }
    load
}

/// The load every source offers each link of its data and ACK paths.
fn offered(t: &Topology, traffic: &Traffic) -> Load {
    let nl = t.links.len();
    let mut offered_bps = vec![0.0; nl];
    let mut offered_pps = vec![0.0; nl];
    for s in &traffic.sources {
        for &l in &s.data {
            offered_pps[l as usize] += s.pps;
            offered_bps[l as usize] += s.pps * (s.size + framing(t, l)) * 8.0;
        }
        for &l in &s.acks {
            offered_pps[l as usize] += s.pps * s.ack_ratio;
            offered_bps[l as usize] +=
                s.pps * s.ack_ratio * (HEADER_BYTES as f64 + framing(t, l)) * 8.0;
        }
    }
    let queue_pkts = (0..nl)
        .map(|l| {
            let mean = if offered_pps[l] > 0.0 {
                offered_bps[l] / 8.0 / offered_pps[l]
            } else {
                1500.0
            };
            let q = match t.links[l].cfg.buffer {
                Buffer::Packets(n) => n as f64,
                Buffer::Bytes(b) => b as f64 / mean.max(1.0),
            };
            q.min(MAX_QUEUE_PACKETS as f64)
        })
        .collect();
    Load {
        rate_bps: (0..nl).map(|l| rate(t, l as u32)).collect(),
        offered_bps,
        offered_pps,
        queue_pkts,
    }
}
