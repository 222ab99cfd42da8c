//! UDP sources as configured: constant bit rate, on/off and Poisson. The
//! sources and sinks are `hscc_sim::udp`.

use serde::Serialize;

use crate::time::Time;

/// When a UDP source sends.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UdpPattern {
    /// Evenly spaced packets at this rate (bit/s on the wire).
    Cbr {
        /// Rate, bit/s.
        rate_bps: u64,
    },
    /// CBR at `rate_bps` during `on`, silent during `off`, repeating from the start time.
    OnOff {
        /// Peak rate, bit/s.
        rate_bps: u64,
        /// On period.
        on: Time,
        /// Off period.
        off: Time,
    },
    /// Exponential inter-departure times with this mean rate (bit/s).
    Poisson {
        /// Mean rate, bit/s.
        rate_bps: u64,
    },
}

/// A UDP flow.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UdpConfig {
    /// Sending node.
    pub src: u32,
    /// Receiving node.
    pub dst: u32,
    /// Sending pattern.
    pub pattern: UdpPattern,
    /// Bytes on the wire per packet.
    pub packet_size: u32,
    /// First packet.
    pub start: Time,
    /// No packets at or after this time.
    pub stop: Option<Time>,
}

impl UdpConfig {
    /// The on-the-wire rate of the pattern, bit/s.
    pub fn rate_bps(&self) -> u64 {
        match self.pattern {
            UdpPattern::Cbr { rate_bps }
            | UdpPattern::OnOff { rate_bps, .. }
            | UdpPattern::Poisson { rate_bps } => rate_bps,
        }
    }
}
