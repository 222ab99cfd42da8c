//! The flow slots: a TCP flow's endpoints and routes, a UDP flow's, and how
//! a sender is seeded.

use hscc_cc::Shared;

use super::WebTransfer;
use crate::config::FlowConfig;
use crate::rng::{component_rng, component_seed, Component};
use crate::tcp::{Receiver, Sender};
use crate::time::Time;
use crate::udp::{UdpSink, UdpSource};

/// [`WebTransfer::session`] of a transfer that belongs to no session.
pub const NO_SESSION: u32 = u32::MAX;

/// One TCP flow slot: its endpoints and routes.
pub struct Flow {
    /// Sender side.
    pub sender: Sender,
    /// Receiver side.
    pub receiver: Receiver,
    /// Route id from sender to receiver.
    pub data_route: u32,
    /// Route id from receiver to sender.
    pub ack_route: u32,
    /// Slot generation: packets of an earlier occupant are ignored.
    pub gen: u32,
    /// Set for web transfers.
    pub web: Option<WebTransfer>,
    /// Times of the delay-detected congestion signals of its algorithm.
    pub signals: Vec<Time>,
    /// When the flow started (or starts): its configured start plus the drawn start-up offset.
    pub start: Time,
    /// Segments of this flow waiting at its host for their first link, in the
    /// [`Sim`](super::Sim)'s host line or its link's lazy line (`sim/lazy.rs`).
    pub(super) held: u32,
    /// The first link of the data route carries nothing but this flow's data
    /// and never changes: a delayed segment can be offered to it at once with
    /// its later time, since no other packet can reach that link in between
    /// (the same result as waiting in the host line, without an event per segment).
    pub(super) direct: bool,
    /// The lazy host line of the first link of the data route, which several
    /// flows share and nothing else uses (`sim/lazy.rs`); `NO_LINE`: none.
    pub(super) lazy_line: u32,
}

impl Flow {
    pub(super) fn new(
        sender: Sender,
        receiver: Receiver,
        data_route: u32,
        ack_route: u32,
        gen: u32,
        start: Time,
    ) -> Flow {
        Flow {
            sender,
            receiver,
            data_route,
            ack_route,
            gen,
            web: None,
            signals: Vec::new(),
            start,
            held: 0,
            direct: false,
            lazy_line: super::lazy::NO_LINE,
        }
    }
}

/// One UDP flow.
pub struct UdpFlow {
    /// Sending side.
    pub source: UdpSource,
    /// Receiving side.
    pub sink: UdpSink,
    /// Route id.
    pub route: u32,
}

/// The sender of flow slot `slot` with configuration `cfg`, its draws made from
/// the run's `seed` for `id` (a configured flow's index or a web transfer's
/// number): its own stream, the algorithm's generator and the receiver's
/// timestamp offset, each apart so that none moves another; attached to the
/// run's `shared` state.
pub(super) fn seeded_sender(
    slot: u32,
    cfg: &FlowConfig,
    seed: u64,
    id: u64,
    shared: &Shared,
) -> Sender {
    let rng = component_rng(seed, Component::Sender, id);
    let mut sender = Sender::new_in(slot, cfg, rng, shared);
    sender.tp.prandom_state = component_seed(seed, Component::Algorithm, id);
    if cfg.random_ts_offset {
        sender.ts_offset = component_seed(seed, Component::Timestamps, id) as u32;
    }
    sender.cc.attach(shared);
    sender
}
