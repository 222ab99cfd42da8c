//! TCP flows: their state, their senders' scoreboards at the largest window,
//! their timers and pacing events, and the per-ACK congestion-control log of
//! the traced ones.

use std::mem::size_of;

use crate::config::{FlowConfig, SimConfig};
use crate::results::FlowResult;
use crate::sim::Flow;
use crate::tcp::cc_log::COLUMN_BYTES;
use crate::time::secs;
use hscc_cc::trace::HookCall;

use super::links::Load;
use super::origins::Origins;
use super::sizes::{GROW, SEGMENT};
use super::traffic::{ack_ratio, active_s, Traffic};
use super::Tally;

/// Rows of the per-ACK log per ACK: in_ack_event, pkts_acked, cong_control,
/// cong_avoid, and the sender's own changes and state changes around losses
/// (measured: 3.7–3.8 with losses every few seconds, `tests/cc_log.rs`).
pub const CC_LOG_ROWS_PER_ACK: f64 = 5.0;
/// Rows of the per-ACK log besides the ACKs' (init, start, timeouts), a count.
const CC_LOG_BASE_ROWS: f64 = 64.0;

/// Charge every TCP flow's state, scoreboard, timers and per-ACK log; the
/// rows each traced flow's log is expected to hold, (flow index, rows).
pub(super) fn charge(
    cfg: &SimConfig,
    o: &Origins,
    traffic: &Traffic,
    load: &Load,
    tally: &mut Tally,
) -> Vec<(u32, u64)> {
    let mut cc_log_rows = Vec::new();
    let per_flow = (size_of::<Flow>() + size_of::<FlowConfig>()) as f64 + 64.0;
    let summary = size_of::<FlowResult>() as f64;
    for (k, fc) in cfg.flows.iter().enumerate() {
        let share = traffic.shares[k];
        let wire = fc.wire_size() as f64;
        // The scoreboard at the largest window: twice (path BDP + its share of the bottleneck queue).
        let queue_share = share.bottleneck.map_or(0.0, |b| {
            load.queue_pkts[b as usize] / traffic.tcp_n[b as usize].max(1.0)
        });
        let mut w = 2.0 * (share.bps * share.rtt / (8.0 * wire) + queue_share);
        let by_iw = fc.init_cwnd as f64 >= w;
        w = w.max(fc.init_cwnd as f64);
        w = w.min((fc.window_bytes() / fc.mss as u64).max(1) as f64);
        let sb = w * SEGMENT * GROW;
        tally.mem.windows += sb as u64;
        tally.mem.flows += per_flow as u64;
        tally.mem.summaries += summary as u64;
        let who = match share.bottleneck {
            _ if by_iw => &o.flow_init_cwnd[k],
            Some(b) => &o.link_buffer[b as usize],
            None => &o.flow_count[k],
        };
        tally.blame.mem(who, sb);
        tally.blame.mem(&o.flow_count[k], per_flow + summary);
        // RTO timer entries, about one per minimum RTO; a pacing event per segment.
        let active = active_s(fc.start, fc.stop, cfg.duration);
        let mut timers = active / secs(fc.min_rto).max(1e-3);
        if fc.pacing || fc.cc.name() == "sync" {
            timers += share.bps / (8.0 * wire) * active;
        }
        tally.evs.timers += timers as u64;
        tally.blame.ev(&traffic.run, timers);
        if fc.cc_log {
            let rows = share.bps / (8.0 * wire) * active * ack_ratio(fc) * CC_LOG_ROWS_PER_ACK
                + CC_LOG_BASE_ROWS;
            let bytes = rows * (size_of::<HookCall>() + COLUMN_BYTES) as f64;
            tally.mem.cc_log = tally.mem.cc_log.saturating_add(bytes as u64);
            tally.blame.mem(&o.cc_log, bytes);
            cc_log_rows.push((k as u32, rows as u64));
        }
    }
    cc_log_rows
}
