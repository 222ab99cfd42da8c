//! The running simulation: [`Sim`], which holds the network, the flow slots and
//! the host lines, and the loop that takes its events in time order.

macro_rules! wire {
    ($self:ident, $flow:expr) => {
        &mut $crate::sim::SenderWire {
            net: &mut $self.net,
            route: $self.routes.path($flow.data_route),
            gen: $flow.gen,
            host: if $flow.lazy_line == $crate::sim::lazy::NO_LINE {
                &mut $self.host_out
            } else {
                &mut $self.lazy_lines[$flow.lazy_line as usize]
            },
            held: &mut $flow.held,
            direct: $flow.direct,
            lazy_line: $flow.lazy_line,
        }
    };
}

mod assemble;
mod conservation;
mod events;
mod flow;
mod fold;
mod host;
mod lazy;
mod net;
mod routes;
mod traces;
mod web;
mod wire;

pub use flow::{Flow, UdpFlow, NO_SESSION};
pub use host::HostLine;
pub use net::{Net, NetCounters};
pub use routes::Routes;
pub use traces::{FlowTrace, LinkTrace, Traces};
pub use web::WebTransfer;

use flow::seeded_sender;
use host::HELD;
use wire::SenderWire;

use hscc_cc::Shared;

use crate::config::SimConfig;
use crate::time::Time;
use crate::web::WebSource;

/// A simulation ready to run.
pub struct Sim {
    /// The configuration it was built from.
    pub cfg: SimConfig,
    /// The network.
    pub net: Net,
    /// TCP flow slots: the configured flows first (index = configuration
    /// order), then web transfers, whose slots are reused.
    pub flows: Vec<Flow>,
    /// UDP flows, in configuration order.
    pub udp: Vec<UdpFlow>,
    /// Web sources, in configuration order.
    pub web: Vec<WebSource>,
    routes: Routes,
    free: Vec<u32>,
    /// Sampled traces (when `sample_interval` is set).
    pub traces: Traces,
    /// Events processed so far.
    pub events: u64,
    /// Segments waiting at their hosts for their first links (host jitter, access delay).
    pub host_out: HostLine,
    /// ACKs waiting for their senders (access delay).
    pub host_in: HostLine,
    /// Segments waiting at their hosts for a first link several flows share
    /// and nothing else uses, one line per such link (`sim/lazy.rs`).
    lazy_lines: Vec<HostLine>,
    /// The link of each lazy line.
    lazy_links: Vec<u32>,
    /// What the algorithms of all flows share (TCP-FIT's α, the programs registered).
    shared: Shared,
    until: Time,
    /// Some flow runs a program loaded at run time, whose hooks can fail.
    runs_programs: bool,
    /// The first failure of a program's hook: the run stops there.
    program_fault: Option<String>,
}

/// How often a run with programs looks for a failed hook, in events.
const PROGRAM_CHECK_EVENTS: u64 = 4096;

impl Sim {
    /// Process every event up to and including time `t` (at most the duration):
    /// a run covers [0, duration], both ends included.
    pub fn run_until(&mut self, t: Time) {
        let t = t.min(self.cfg.duration);
        self.until = t;
        while let Some(next) = self.net.q.peek_time() {
            if next > t {
                break;
            }
            let (now, ev) = self.net.q.pop().expect("peeked");
            self.net.now = now;
            self.events += 1;
            self.dispatch(ev);
            if self.runs_programs
                && self.events.is_multiple_of(PROGRAM_CHECK_EVENTS)
                && self.check_programs()
            {
                self.take_all_held(self.net.now);
                self.net.credit_folds(self.net.now.saturating_add(1));
                return;
            }
        }
        self.net.now = t;
        // Every event at `t` has run.
        self.take_all_held(t);
        self.net.credit_folds(t.saturating_add(1));
        if self.runs_programs {
            self.check_programs();
        }
    }

    /// The first failure of a program's hook, once the run has seen one (it
    /// then stops: `run_until` returns without going further).
    pub fn program_fault(&self) -> Option<&str> {
        self.program_fault.as_deref()
    }

    /// Look for a failed hook; stop the run at the first.
    fn check_programs(&mut self) -> bool {
        if self.program_fault.is_none() {
            self.program_fault = self.flows.iter().find_map(|f| f.sender.cc.fault());
        }
        if self.program_fault.is_some() {
            self.until = self.net.now;
        }
        self.program_fault.is_some()
    }

    /// The links of route `id` (see [`Flow::data_route`]).
    pub fn path(&self, id: u32) -> &[u32] {
        self.routes.path(id)
    }

    /// Packets currently inside the network (queued or propagating).
    pub fn in_network(&self) -> u64 {
        self.net.links.iter().map(|l| l.in_flight() as u64).sum()
    }
}
