//! Packet captures: each captured flow's data and ACKs, every packet offered
//! to each captured link. While running, a 72-byte copy of each packet (in
//! growing vectors); at the end its file, built in memory and handed on (a
//! copy), and the drop log's rows.

use crate::capture::CapturePoint;
use crate::config::SimConfig;
use crate::packet::HEADER_BYTES;
use crate::time::secs;

use super::links::Load;
use super::origins::{Field, Origins};
use super::sizes::{GROW, JSON_PER_DROP};
use super::traffic::Traffic;
use super::Tally;

/// The captures' files.
pub(super) struct Captured {
    /// Size of all the files, bytes.
    pub bytes: u64,
    /// The capture field (flows or links) whose files are the larger.
    pub field: Field,
}

/// Charge the captures' memory; their files.
pub(super) fn charge(
    cfg: &SimConfig,
    o: &Origins,
    traffic: &Traffic,
    load: &Load,
    tally: &mut Tally,
) -> Captured {
    let dur = secs(cfg.duration);
    let flow_sources = traffic.flow_sources();
    // File bytes of captured flows, and of captured links.
    let mut capture_bytes = (0.0, 0.0);
    for c in &cfg.capture.files {
        let (pkts, size, drops, who, part) = match c.at {
            CapturePoint::Flow(k) => {
                let s = &flow_sources[k as usize];
                let sent =
                    s.pps * s.data.first().map_or(1.0, |&l| load.carried(l as usize)) * s.active;
                let size = (sent * s.size + sent * s.ack_ratio * HEADER_BYTES as f64)
                    / (sent * (1.0 + s.ack_ratio)).max(1e-9);
                (
                    sent * (1.0 + s.ack_ratio),
                    size,
                    0.0,
                    &o.capture.flows,
                    &mut capture_bytes.0,
                )
            }
            CapturePoint::Link(l) => {
                let l = l as usize;
                let pkts = load.offered_pps[l] * dur;
                let size = if load.offered_pps[l] > 0.0 {
                    load.offered_bps[l] / 8.0 / load.offered_pps[l]
                } else {
                    0.0
                };
                (
                    pkts,
                    size,
                    pkts * (1.0 - load.carried(l)),
                    &o.capture.links,
                    &mut capture_bytes.1,
                )
            }
        };
        let file = pkts * cfg.capture.record_bytes(size as u64 + 28) as f64;
        *part += file;
        let bytes = pkts * 72.0 * GROW + 2.0 * file * GROW + drops * (JSON_PER_DROP + 88.0 * GROW);
        tally.mem.captures += bytes as u64;
        tally.blame.mem(who, bytes);
    }
    let field = if capture_bytes.0 >= capture_bytes.1 {
        o.capture.flows.clone()
    } else {
        o.capture.links.clone()
    };
    Captured {
        bytes: (capture_bytes.0 + capture_bytes.1) as u64,
        field,
    }
}
