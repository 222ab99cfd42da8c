//! Packet captures as configured: where (flows, links), the file names and
//! the snap length. The captures themselves are `hscc_sim::capture`.

use serde::Serialize;

/// Where a capture is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum CapturePoint {
    /// At the sending host of configured flow `i` (its index in `SimConfig::flows`).
    Flow(u32),
    /// At the input of link `i`.
    Link(u32),
}

/// One capture file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaptureFile {
    /// Where it is taken.
    pub at: CapturePoint,
    /// File name in the run directory.
    pub file: String,
}

/// Packet captures to take (none by default).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CaptureConfig {
    /// The files.
    pub files: Vec<CaptureFile>,
    /// Bytes kept of each packet (headers first; the payload is zeros).
    pub snaplen: u32,
}

/// Smallest snap length: IPv4 plus the longest TCP header, so headers are never cut.
pub const MIN_SNAPLEN: u32 = MAX_HEADER as u32;

/// Longest header written: IPv4 (20) + TCP with the longest options here (60).
pub const MAX_HEADER: usize = 80;

/// Largest snap length: the largest IPv4 packet.
pub const MAX_SNAPLEN: u32 = 65_535;

/// Bytes of a pcap record header.
pub const RECORD_HEADER: u64 = 16;

impl CaptureConfig {
    /// Whether anything is captured.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Bytes one captured packet of `size` bytes on the wire takes in a file.
    pub fn record_bytes(&self, size: u64) -> u64 {
        RECORD_HEADER + size.min(self.snaplen as u64)
    }
}
