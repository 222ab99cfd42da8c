//! What a run may cost: limits on the estimate (`hscc_sim::Estimate`)
//! that a caller chooses, and hard caps on every structure sized from user
//! input, which hold even if the estimate is wrong.
//!
//! The caps are far above any scenario of the papers hscc reproduces (the
//! largest: 1024 flows, 60 s, traces every 10 ms) and low enough that no
//! single structure can take more than a few GB.

/// Limits a run must fit in, checked against the estimate before anything
/// big is allocated (`hscc_sim::ScenarioSpec::build_with`, `hscc_sim::Sim::with_limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildLimits {
    /// Peak memory, bytes. A safe fraction of the machine's RAM is the front
    /// end's call; the default, 8 GiB, fits a developer's machine.
    pub max_memory_bytes: u64,
    /// Events (one per packet per hop, plus timers, sources and samples).
    /// The default, 10^11, is a few hours of running: the engine processes
    /// 4.6–13 million events per second on one core (docs/performance.md),
    /// so 10^11 events take 2 hours at the fastest and 6 hours with many flows;
    /// a run meant to be longer says so with a higher limit.
    pub max_events: u64,
}

impl Default for BuildLimits {
    fn default() -> Self {
        BuildLimits {
            max_memory_bytes: 8 << 30,
            max_events: 100_000_000_000,
        }
    }
}

impl BuildLimits {
    /// No limit but the hard caps (to compute an estimate of anything).
    pub fn unlimited() -> Self {
        BuildLimits {
            max_memory_bytes: u64::MAX,
            max_events: u64::MAX,
        }
    }
}

/// TCP flows (configured; web transfers have their own cap): about 1.2 KB each.
pub const MAX_FLOWS: usize = 1_000_000;
/// UDP flows (a VoIP call is two): each sink keeps a 250 KB delay histogram.
pub const MAX_UDP_FLOWS: usize = 100_000;
/// Host pairs of a dumbbell or parking lot (two nodes and four links each).
pub const MAX_PAIRS: usize = 100_000;
/// Nodes of any topology.
pub const MAX_NODES: usize = 250_000;
/// Unidirectional links of any topology.
pub const MAX_LINKS: usize = 500_000;
/// Links on one route: a packet's hop index is a `u8`.
pub const MAX_ROUTE_LINKS: usize = 256;
/// Bottlenecks of a parking lot: its long route is the access link, every hop, the access link.
pub const MAX_HOPS: usize = MAX_ROUTE_LINKS - 2;
/// Server × client pairs of one web source (each needs a route both ways).
pub const MAX_WEB_PAIRS: usize = 100_000;
/// Routing work: a breadth-first tree (nodes + links steps) per distinct root of a source, plus [`MAX_ROUTE_LINKS`] steps per route (`config::route_work`).
pub const MAX_ROUTE_WORK: u64 = 2_000_000_000;
/// Packets one queue may hold (also for byte limits): 6.4 GB of packets.
pub const MAX_QUEUE_PACKETS: u64 = 100_000_000;
/// Largest queue limit in bytes (1 TB).
pub const MAX_QUEUE_BYTES: u64 = 1_000_000_000_000;
/// Web transfers in progress at once, all sources together; later arrivals
/// are refused (counted in `WebResult::refused`), as a server whose
/// connection backlog is full refuses them.
pub const MAX_WEB_SLOTS: usize = 1_000_000;
/// UDP datagrams in the network at once, all flows together; a source whose
/// datagram would pass it loses it at the host (a full socket buffer), so it
/// counts as lost.
pub const MAX_UDP_IN_NETWORK: u64 = 20_000_000;
/// Trace values (samples × series) of one run: 4 GB as f64.
pub const MAX_TRACE_VALUES: u64 = 500_000_000;
/// The per-ACK congestion-control log of one run, estimated bytes (about
/// 5 million ACKs; `hscc-sim::estimate`'s model).
pub const MAX_CC_LOG_BYTES: u64 = 4_000_000_000;
/// Bytes of all packet captures of one run together (`[output] pcap`): past
/// it, packets are no longer captured (counted as missed); the estimate refuses
/// a run expected to pass it.
pub const MAX_CAPTURE_BYTES: u64 = 4_000_000_000;
