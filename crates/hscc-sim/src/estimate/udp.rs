//! UDP flows: their state and their sinks' delay histograms, and every
//! datagram sent (drops included: the source runs at its rate).

use std::mem::size_of;

use crate::config::SimConfig;
use crate::sim::UdpFlow;
use crate::udp::UdpConfig;

use super::origins::Origins;
use super::sizes::DELAY_HISTOGRAM;
use super::traffic::{active_s, udp_on_share};
use super::Tally;

/// Charge each UDP flow's state and the datagrams it sends.
pub(super) fn charge(cfg: &SimConfig, o: &Origins, tally: &mut Tally) {
    for (i, u) in cfg.udp.iter().enumerate() {
        let active = active_s(u.start, u.stop, cfg.duration) * udp_on_share(&u.pattern);
        let size = u.packet_size as f64;
        // The source sends at its full rate whatever the links take.
        let sent = u.rate_bps() as f64 / (8.0 * size) * active;
        tally.evs.udp += sent as u64;
        tally.blame.ev(&o.udp_rate[i], sent);
        tally.blame.mem(
            &o.udp_group[i],
            (size_of::<UdpFlow>() + size_of::<UdpConfig>()) as f64 + DELAY_HISTOGRAM + 300.0,
        );
        tally.mem.udp +=
            (size_of::<UdpFlow>() + size_of::<UdpConfig>()) as u64 + DELAY_HISTOGRAM as u64 + 300;
    }
}
