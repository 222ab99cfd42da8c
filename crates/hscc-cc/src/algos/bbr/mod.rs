//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM
//! Queue 14(5), 2016), as Linux's `net/ipv4/tcp_bbr.c`, read at commit
//! 02dc96ef6c25f990452c114c59d75c368a1f4c8f. Against Linux 6.18 (this
//! machine's kernel) only what its BTF shows was checked: the same
//! `struct bbr`, the `struct rate_sample` of the shim, and `cong_control`'s
//! `ack` and `flag` arguments (6.10 and later), which BBR does not read.
//!
//! Per ACK (`cong_control`, Linux `bbr_main`) BBR updates a model of the path
//! from the delivery-rate sample: the bottleneck bandwidth as the windowed
//! maximum of the samples over 10 packet-timed rounds, the propagation delay
//! as the minimum RTT over 10 s. It paces at `pacing_gain · bw` and caps cwnd
//! at `cwnd_gain · bw · min_rtt` plus allowances (ACK aggregation, TSO
//! quantization). The gains come from the state machine:
//!
//! - STARTUP: both gains 2/ln 2 (739/256) until the bandwidth has grown by less
//!   than 25 % for 3 rounds (`bbr_check_full_bw_reached`);
//! - DRAIN: pacing gain 256/2.885 (88/256) until what is in flight falls to
//!   one BDP (`bbr_check_drain`);
//! - PROBE_BW: pacing gain cycling through 5/4, 3/4, 1 ×6, one phase per
//!   min_rtt, starting at a random phase other than 3/4; the 5/4 phase lasts
//!   until the flight reaches 1.25 BDP or a loss, the 3/4 phase ends early once
//!   it is down to one BDP (`bbr_is_next_cycle_phase`); cwnd gain 2;
//! - PROBE_RTT: when the min-RTT estimate is 10 s old, cwnd 4 for 200 ms and
//!   one round, then back to PROBE_BW (or STARTUP if the pipe was never full).
//!
//! Besides: long-term bandwidth sampling detects a token-bucket policer (two
//! lossy intervals of consistent rate) and then paces at that rate for 48
//! rounds (`bbr_lt_bw_sampling`); packet conservation in the first round of
//! Recovery and the cwnd before it restored on exit
//! (`bbr_set_cwnd_to_recover_or_restore`).
//!
//! # Fixed point, as Linux
//! Bandwidth in packets/µs << 24 (`BW_SCALE`), gains in 1/256 (`BBR_SCALE`),
//! with Linux's products, shifts, truncations to 32 bits and bit-field widths,
//! so that `bpf/bbr.bpf.c` computes the same windows and pacing rates bit for
//! bit. Pacing rates are bytes/s (`TcpCc::pacing_rate`, Linux
//! `sk_pacing_rate`), capped by `TcpCc::max_pacing_rate`.
//!
//! # Constants and sources
//! Every constant of `tcp_bbr.c` a researcher would tune is a parameter
//! ([`BbrParams`]), with Linux's value as default; the others are fixed below.
//!
//! # What differs from Linux
//! - The random start phase of the gain cycle (Linux `get_random_u32_below(7)`)
//!   is drawn from the connection's seeded generator ([`prandom_u32`] on
//!   `TcpCc::prandom_state`), so a
//!   run is reproducible; the draw is `(r · 7) >> 32`, the reciprocal scaling
//!   Linux used before `get_random_u32_below` (which rejects the 7 of 2³² draws
//!   that bias it).
//! - PROBE_RTT marks later samples app-limited: Linux stores a delivered-count
//!   mark (`delivered + in_flight`) in `tp->app_limited`, which the rate sampler
//!   clears once it is passed; hscc's `TcpCc::app_limited` is a flag, set here,
//!   which the sender's rate sampler clears.
//! - The TSO goal uses Linux's constants for the largest burst
//!   (`GSO_LEGACY_MAX_SIZE − 1 − MAX_TCP_HEADER`, with `MAX_TCP_HEADER` = 320
//!   as on an x86-64 distribution kernel) and `sk_pacing_shift` = 10 (TCP's
//!   default); like Linux it ignores the device's `gso_max_size`.
//! - `sndbuf_expand` (3) and `min_tso_segs` are given as [`Bbr::sndbuf_expand`]
//!   and [`Bbr::min_tso_segs`]: hscc's sender has no send buffer or TSO to
//!   size, so they are not hooks.
//! - `get_info` (the `ss -i` report) has no counterpart.

mod lt_bw;
mod minmax;
#[cfg(test)]
mod tests;

pub use minmax::{Minmax, MinmaxSample};

use crate::ops::{
    after, before, CaEvent, CaState, CongestionOps, RateSample, TcpCc, TCP_INFINITE_SSTHRESH,
};

/// Linux `BW_SCALE`: bandwidth in packets/µs << 24.
pub const BW_SCALE: u32 = 24;
/// Linux `BW_UNIT`.
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// Linux `BBR_SCALE`: gains in 1/256.
pub const BBR_SCALE: u32 = 8;
/// Linux `BBR_UNIT`: a gain of 1.
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Linux `CYCLE_LEN`: phases of the PROBE_BW gain cycle.
pub const CYCLE_LEN: u32 = 8;
/// Linux `bbr_pacing_gain[]`: 5/4 (probe), 3/4 (drain), then six phases of 1.
pub const PACING_GAIN: [u32; CYCLE_LEN as usize] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
/// Linux `bbr_cycle_rand`: the start phase is drawn among this many.
const CYCLE_RAND: u32 = 7;
/// Linux `bbr_min_tso_rate`, bit/s: below it the TSO goal is one segment.
const MIN_TSO_RATE: u64 = 1_200_000;
/// Linux `bbr_ack_epoch_acked_reset_thresh`: a sampling epoch this long restarts.
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// Linux `TCP_INIT_CWND`.
const TCP_INIT_CWND: u32 = 10;
/// Linux `GSO_LEGACY_MAX_SIZE` (`GSO_MAX_SIZE` before 5.19).
const GSO_LEGACY_MAX_SIZE: u32 = 65_536;
/// Linux `MAX_TCP_HEADER` = L1_CACHE_ALIGN(128 + MAX_HEADER), with
/// MAX_HEADER = 128 + 48 (Hyper-V networking and IP tunnels built, as x86-64
/// distribution kernels have them) and 64-byte cache lines.
const MAX_TCP_HEADER: u32 = 320;
/// Linux `sk_pacing_shift`'s default for TCP (`tcp_init_sock`): ~1 ms of data per burst.
const SK_PACING_SHIFT: u32 = 10;
/// Linux `USEC_PER_MSEC`.
const USEC_PER_MSEC: u64 = 1000;
/// Linux `USEC_PER_SEC`.
const USEC_PER_SEC: u64 = 1_000_000;

crate::params! {
    /// BBR parameters: Linux's constants of `tcp_bbr.c`. Gains are in 1/256 (`BBR_UNIT`).
    pub struct BbrParams {
        /// STARTUP's pacing and cwnd gain, 1/256: 2/ln 2, the smallest that doubles the rate per round.
        high_gain: u32 = 739, [256, 1023], "Linux tcp_bbr.c bbr_high_gain = BBR_UNIT * 2885 / 1000 + 1";
        /// DRAIN's pacing gain, 1/256: 1/high_gain, to drain STARTUP's queue in a round.
        drain_gain: u32 = 88, [1, 256], "Linux tcp_bbr.c bbr_drain_gain = BBR_UNIT * 1000 / 2885";
        /// PROBE_BW's cwnd gain, 1/256: 2, tolerating delayed and stretched ACKs.
        cwnd_gain: u32 = 512, [256, 1023], "Linux tcp_bbr.c bbr_cwnd_gain = BBR_UNIT * 2";
        /// Window of the max-bandwidth filter, packet-timed rounds.
        bw_rtts: u32 = 10, [2, 1000], "Linux tcp_bbr.c bbr_bw_rtts = CYCLE_LEN + 2";
        /// Window of the min-RTT filter, s: PROBE_RTT when the minimum is older.
        min_rtt_win_sec: u32 = 10, [1, 3600], "Linux tcp_bbr.c bbr_min_rtt_win_sec";
        /// Least time in PROBE_RTT at the minimum cwnd, ms (0: no PROBE_RTT).
        probe_rtt_mode_ms: u32 = 200, [0, 10000], "Linux tcp_bbr.c bbr_probe_rtt_mode_ms";
        /// Pacing margin, %: pace this much below the estimated bandwidth.
        pacing_margin_percent: u32 = 1, [0, 99], "Linux tcp_bbr.c bbr_pacing_margin_percent";
        /// Smallest cwnd BBR aims at, and PROBE_RTT's cwnd, segments.
        cwnd_min_target: u32 = 4, [1, 1000], "Linux tcp_bbr.c bbr_cwnd_min_target";
        /// Bandwidth growth that means more may be available, 1/256 (5/4).
        full_bw_thresh: u32 = 320, [257, 1023], "Linux tcp_bbr.c bbr_full_bw_thresh = BBR_UNIT * 5 / 4";
        /// Rounds without that growth after which STARTUP estimates the pipe full.
        full_bw_cnt: u32 = 3, [1, 3], "Linux tcp_bbr.c bbr_full_bw_cnt (a 2-bit field)";
        /// Least rounds in a long-term sampling interval.
        lt_intvl_min_rtts: u32 = 4, [1, 31], "Linux tcp_bbr.c bbr_lt_intvl_min_rtts";
        /// Loss rate that makes an interval lossy, 1/256 (50/256 ≈ 20 %).
        lt_loss_thresh: u32 = 50, [1, 256], "Linux tcp_bbr.c bbr_lt_loss_thresh";
        /// Relative difference under which two intervals' rates are consistent, 1/256 (1/8).
        lt_bw_ratio: u32 = 32, [0, 256], "Linux tcp_bbr.c bbr_lt_bw_ratio = BBR_UNIT / 8";
        /// Absolute difference under which two intervals' rates are consistent, bytes/s (4 kbit/s).
        lt_bw_diff: u32 = 500, [0, 1000000], "Linux tcp_bbr.c bbr_lt_bw_diff = 4000 / 8";
        /// Rounds to pace at the policed rate once detected.
        lt_bw_max_rtts: u32 = 48, [1, 127], "Linux tcp_bbr.c bbr_lt_bw_max_rtts (a 7-bit count)";
        /// Gain on the ACK-aggregation estimate added to cwnd, 1/256 (0: none).
        extra_acked_gain: u32 = 256, [0, 1023], "Linux tcp_bbr.c bbr_extra_acked_gain = BBR_UNIT";
        /// Rounds per half of the ACK-aggregation max filter.
        extra_acked_win_rtts: u32 = 5, [1, 31], "Linux tcp_bbr.c bbr_extra_acked_win_rtts (a 5-bit count)";
        /// Cap on the aggregation allowance: the data of this long at the estimated rate, µs.
        extra_acked_max_us: u32 = 100000, [0, 10000000], "Linux tcp_bbr.c bbr_extra_acked_max_us";
    }
}

/// Linux `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mode {
    /// Ramp up the sending rate rapidly to fill the pipe.
    #[default]
    Startup = 0,
    /// Drain the queue STARTUP built.
    Drain = 1,
    /// Discover and share bandwidth: pace around the estimate.
    ProbeBw = 2,
    /// Cut the flight to the minimum to probe the min RTT.
    ProbeRtt = 3,
}

/// BBR state (Linux `struct bbr`; its bit fields as whole fields, masked
/// where Linux's width could truncate) and parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Bbr {
    /// Min RTT in the min_rtt_win_sec window, µs.
    pub min_rtt_us: u32,
    /// When min_rtt_us was taken, jiffies.
    pub min_rtt_stamp: u32,
    /// End of PROBE_RTT, jiffies (0: not yet set).
    pub probe_rtt_done_stamp: u32,
    /// Max recent delivery rate, packets/µs << 24.
    pub bw: Minmax,
    /// Packet-timed rounds so far.
    pub rtt_cnt: u32,
    /// `delivered` at the end of the current round.
    pub next_rtt_delivered: u32,
    /// Start of the current gain-cycle phase, µs.
    pub cycle_mstamp: u64,
    /// Current mode.
    pub mode: Mode,
    /// CA state at the previous ACK.
    pub prev_ca_state: CaState,
    /// Packet conservation (first round of Recovery).
    pub packet_conservation: bool,
    /// This ACK starts a packet-timed round.
    pub round_start: bool,
    /// Restarting after idle.
    pub idle_restart: bool,
    /// A PROBE_RTT round at the minimum cwnd is done.
    pub probe_rtt_round_done: bool,
    /// Taking long-term samples now.
    pub lt_is_sampling: bool,
    /// Rounds in the long-term interval (7 bits in Linux).
    pub lt_rtt_cnt: u32,
    /// Pace at lt_bw (a policer is estimated).
    pub lt_use_bw: bool,
    /// Long-term delivery rate, packets/µs << 24.
    pub lt_bw: u32,
    /// `delivered` at the start of the long-term interval.
    pub lt_last_delivered: u32,
    /// `delivered_mstamp` at its start, ms (truncated to 32 bits).
    pub lt_last_stamp: u32,
    /// `lost` at its start.
    pub lt_last_lost: u32,
    /// Current pacing gain, 1/256 (10 bits).
    pub pacing_gain: u32,
    /// Current cwnd gain, 1/256 (10 bits).
    pub cwnd_gain: u32,
    /// STARTUP has filled the pipe.
    pub full_bw_reached: bool,
    /// Rounds without large bandwidth growth (2 bits).
    pub full_bw_cnt: u32,
    /// Current index in the gain cycle (3 bits).
    pub cycle_idx: u32,
    /// An RTT sample has been seen.
    pub has_seen_rtt: bool,
    /// cwnd before Recovery or PROBE_RTT, segments.
    pub prior_cwnd: u32,
    /// Recent bandwidth, to tell whether the pipe is full.
    pub full_bw: u32,
    /// Start of the ACK-aggregation sampling epoch, µs.
    pub ack_epoch_mstamp: u64,
    /// Max excess data ACKed per half window (16 bits each, as Linux).
    pub extra_acked: [u16; 2],
    /// Packets (S)ACKed in the sampling epoch (20 bits).
    pub ack_epoch_acked: u32,
    /// Age of the current extra_acked half, rounds (5 bits).
    pub extra_acked_win_rtts: u32,
    /// Current half of extra_acked (1 bit).
    pub extra_acked_win_idx: usize,
    cfg: BbrParams,
}

/// Linux `tcp_stamp_us_delta`: t1 − t0 in µs, 0 if negative.
#[inline]
fn stamp_us_delta(t1: u64, t0: u64) -> u64 {
    (t1.wrapping_sub(t0) as i64).max(0) as u64
}

/// A draw from the connection's generator (`TcpCc::prandom_state`), for
/// what Linux draws with `get_random_u32`: splitmix64, high half. The
/// conformance shim's `bpf_get_prandom_u32` is the same function of the same state.
pub fn prandom_u32(tp: &mut TcpCc) -> u32 {
    tp.prandom_state = tp.prandom_state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = tp.prandom_state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

/// Linux `msecs_to_jiffies` at `hz`.
#[inline]
fn msecs_to_jiffies(ms: u32, hz: u32) -> u32 {
    ((ms as u64 * hz as u64).div_ceil(1000)) as u32
}

impl Bbr {
    /// Linux `bbr_max_bw`: the windowed max recent bandwidth.
    #[inline]
    pub fn max_bw(&self) -> u32 {
        self.bw.get()
    }

    /// Linux `bbr_bw`: the estimated bandwidth (long-term when policed).
    #[inline]
    pub fn bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// Linux `bbr_extra_acked`: the max extra ACKed in the last 5–10 rounds.
    #[inline]
    fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1]) as u32
    }

    /// Linux `bbr_rate_bytes_per_sec`: bytes/s, with a gain and the pacing
    /// margin; the order of the products keeps u64 from overflowing below 2.9 Tbit/s.
    fn rate_bytes_per_sec(&self, tp: &TcpCc, rate: u64, gain: u32) -> u64 {
        let mut rate = rate.wrapping_mul(tp.mss_cache as u64);
        rate = rate.wrapping_mul(gain as u64);
        rate >>= BBR_SCALE;
        rate =
            rate.wrapping_mul(USEC_PER_SEC / 100 * (100 - self.cfg.pacing_margin_percent as u64));
        rate >> BW_SCALE
    }

    /// Linux `bbr_bw_to_pacing_rate`.
    fn bw_to_pacing_rate(&self, tp: &TcpCc, bw: u32, gain: u32) -> u64 {
        self.rate_bytes_per_sec(tp, bw as u64, gain)
            .min(tp.max_pacing_rate)
    }

    /// Linux `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / RTT (1 ms before a sample).
    fn init_pacing_rate_from_rtt(&mut self, tp: &mut TcpCc) {
        let rtt_us = if tp.srtt_us != 0 {
            self.has_seen_rtt = true;
            (tp.srtt_us >> 3).max(1)
        } else {
            USEC_PER_MSEC as u32
        };
        let bw = (tp.snd_cwnd as u64 * BW_UNIT) / rtt_us as u64;
        // bbr_bw_to_pacing_rate takes a u32.
        tp.pacing_rate = self.bw_to_pacing_rate(tp, bw as u32, self.cfg.high_gain);
    }

    /// Linux `bbr_set_pacing_rate`: never slow down before the pipe is full.
    fn set_pacing_rate(&mut self, tp: &mut TcpCc, bw: u32, gain: u32) {
        let rate = self.bw_to_pacing_rate(tp, bw, gain);
        if !self.has_seen_rtt && tp.srtt_us != 0 {
            self.init_pacing_rate_from_rtt(tp);
        }
        if self.full_bw_reached || rate > tp.pacing_rate {
            tp.pacing_rate = rate;
        }
    }

    /// Linux `bbr_min_tso_segs`: 1 below 1.2 Mbit/s, else 2.
    pub fn min_tso_segs(&self, tp: &TcpCc) -> u32 {
        if tp.pacing_rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }

    /// Linux `bbr_sndbuf_expand`: 3 cwnds of send buffer, since BBR may
    /// slow-start even during recovery.
    pub fn sndbuf_expand(&self) -> u32 {
        3
    }

    /// Linux `bbr_tso_segs_goal`: segments per burst at the pacing rate, ≤ 127.
    pub fn tso_segs_goal(&self, tp: &TcpCc) -> u32 {
        let bytes = (tp.pacing_rate >> SK_PACING_SHIFT)
            .min((GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER) as u64) as u32;
        // A zero MSS divides to 0, as BPF's division does.
        let segs = bytes
            .checked_div(tp.mss_cache)
            .unwrap_or(0)
            .max(self.min_tso_segs(tp));
        segs.min(0x7f)
    }

    /// Linux `bbr_save_cwnd`: the last known good cwnd, to restore after
    /// Recovery or PROBE_RTT.
    fn save_cwnd(&mut self, tp: &TcpCc) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tp.snd_cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tp.snd_cwnd);
        }
    }

    /// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉, segments.
    pub fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            // No RTT sample yet: be safe at the initial window.
            return TCP_INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        // Apply the gain, remove the BW_SCALE shift, round up (Linux's
        // `+ BW_UNIT − 1` cannot wrap: the shifted product is below 2^56).
        (w.wrapping_mul(gain as u64) >> BBR_SCALE).div_ceil(BW_UNIT) as u32
    }

    /// Linux `bbr_quantization_budget`: room for TSO bursts at both ends,
    /// rounded up to even, +2 in PROBE_BW's probing phase.
    fn quantization_budget(&self, tp: &TcpCc, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.wrapping_add(3 * self.tso_segs_goal(tp));
        cwnd = cwnd.wrapping_add(1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd = cwnd.wrapping_add(2);
        }
        cwnd
    }

    /// Linux `bbr_inflight`: the flight for a gain, segments.
    pub fn inflight(&self, tp: &TcpCc, bw: u32, gain: u32) -> u32 {
        let bdp = self.bdp(bw, gain);
        self.quantization_budget(tp, bdp)
    }

    /// Linux `bbr_packets_in_net_at_edt`: the flight expected in the network
    /// when the next packet leaves at its earliest departure time.
    fn packets_in_net_at_edt(&self, tp: &TcpCc, inflight_now: u32) -> u32 {
        let now_ns = tp.now_us.wrapping_mul(1000);
        let edt_ns = tp.tcp_wstamp_ns.max(now_ns);
        let interval_us = (edt_ns - now_ns) / 1000;
        let interval_delivered = ((self.bw() as u64).wrapping_mul(interval_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            // Increasing the flight: count the packet departing at the EDT.
            inflight_at_edt = inflight_at_edt.wrapping_add(self.tso_segs_goal(tp));
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// Linux `bbr_ack_aggregation_cwnd`: the cwnd allowance for ACK aggregation.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if self.cfg.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd =
            ((self.bw() as u64 * self.cfg.extra_acked_max_us as u64) / BW_UNIT) as u32;
        let aggr_cwnd = (self.cfg.extra_acked_gain * self.extra_acked()) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd)
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: packet conservation in
    /// Recovery's first round, the saved cwnd on leaving it. Returns the new
    /// cwnd and whether packet conservation decides it.
    fn set_cwnd_to_recover_or_restore(
        &mut self,
        tp: &TcpCc,
        rs: &RateSample,
        acked: u32,
    ) -> (u32, bool) {
        let prev_state = self.prev_ca_state;
        let state = tp.ca_state;
        let mut cwnd = tp.snd_cwnd;
        // Deduct the lost packets; bbr_set_cwnd then slow-starts back up.
        if rs.losses > 0 {
            cwnd = (cwnd.wrapping_sub(rs.losses) as i32).max(1) as u32;
        }
        if state == CaState::Recovery && prev_state != CaState::Recovery {
            // First round of Recovery: packet conservation, the round starts now.
            self.packet_conservation = true;
            self.next_rtt_delivered = tp.delivered;
            // Cut cwnd unused by the application, TSQ or TSO deferral.
            cwnd = tp.packets_in_flight().wrapping_add(acked);
        } else if prev_state >= CaState::Recovery && state < CaState::Recovery {
            // Leaving loss recovery: restore the cwnd saved before it.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(tp.packets_in_flight().wrapping_add(acked)), true);
        }
        (cwnd, false)
    }

    /// Linux `bbr_set_cwnd`: slow-start towards the target cwnd, or snap down
    /// to it once the pipe is full.
    fn set_cwnd(&mut self, tp: &mut TcpCc, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = tp.snd_cwnd;
        if acked != 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(tp, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                // Room for data ACKed in aggregates beyond the expected rate.
                target = target.wrapping_add(self.ack_aggregation_cwnd());
                target = self.quantization_budget(tp, target);
                if self.full_bw_reached {
                    cwnd = cwnd.wrapping_add(acked).min(target);
                } else if cwnd < target || tp.delivered < TCP_INIT_CWND {
                    cwnd = cwnd.wrapping_add(acked);
                }
                cwnd = cwnd.max(self.cfg.cwnd_min_target);
            }
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.snd_cwnd = tp.snd_cwnd.min(self.cfg.cwnd_min_target);
        }
    }

    /// Linux `bbr_is_next_cycle_phase`: the phase has lasted min_rtt and/or
    /// reached its in-flight target.
    fn is_next_cycle_phase(&self, tp: &TcpCc, rs: &RateSample) -> bool {
        let is_full_length =
            stamp_us_delta(tp.delivered_mstamp, self.cycle_mstamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probing: until the flight reaches gain · BDP, unless packets are lost.
            return is_full_length
                && (rs.losses != 0 || inflight >= self.inflight(tp, bw, self.pacing_gain));
        }
        // Draining: until the flight is down to one BDP.
        is_full_length || inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    /// Linux `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, tp: &TcpCc) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = tp.delivered_mstamp;
    }

    /// Linux `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, tp: &TcpCc, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tp, rs) {
            self.advance_cycle_phase(tp);
        }
    }

    /// Linux `bbr_reset_startup_mode`.
    fn reset_startup_mode(&mut self) {
        self.mode = Mode::Startup;
    }

    /// Linux `bbr_reset_probe_bw_mode`: PROBE_BW at a random phase other than 3/4.
    fn reset_probe_bw_mode(&mut self, tp: &mut TcpCc) {
        self.mode = Mode::ProbeBw;
        let r = ((prandom_u32(tp) as u64 * CYCLE_RAND as u64) >> 32) as u32;
        self.cycle_idx = (CYCLE_LEN - 1 - r) & (CYCLE_LEN - 1);
        self.advance_cycle_phase(tp);
    }

    /// Linux `bbr_reset_mode`.
    fn reset_mode(&mut self, tp: &mut TcpCc) {
        if !self.full_bw_reached {
            self.reset_startup_mode();
        } else {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// Linux `bbr_update_bw`: rounds, long-term sampling, and the max filter.
    fn update_bw(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return; // not a valid sample
        }
        if !before(rs.prior_delivered, self.next_rtt_delivered) {
            self.next_rtt_delivered = tp.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(tp, rs);
        let bw = (rs.delivered as u64 * BW_UNIT) / rs.interval_us as u64;
        // App-limited samples only count when they are no lower than the model.
        if !rs.is_app_limited || bw >= self.max_bw() as u64 {
            self.bw
                .running_max(self.cfg.bw_rtts, self.rtt_cnt, bw as u32);
        }
    }

    /// Linux `bbr_update_ack_aggregation`: the windowed max of data ACKed
    /// beyond what the estimated rate explains.
    fn update_ack_aggregation(&mut self, tp: &TcpCc, rs: &RateSample) {
        if self.cfg.extra_acked_gain == 0
            || rs.acked_sacked == 0
            || rs.delivered < 0
            || rs.interval_us <= 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= self.cfg.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        // Packets the estimated rate delivers over the epoch.
        let epoch_us = stamp_us_delta(tp.delivered_mstamp, self.ack_epoch_mstamp) as u32;
        let mut expected_acked = ((self.bw() as u64 * epoch_us as u64) / BW_UNIT) as u32;
        // A new epoch when ACKs come slower than expected, or the epoch is very old.
        if self.ack_epoch_acked <= expected_acked
            || self.ack_epoch_acked.wrapping_add(rs.acked_sacked) >= ACK_EPOCH_ACKED_RESET_THRESH
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = tp.delivered_mstamp;
            expected_acked = 0;
        }
        self.ack_epoch_acked = self
            .ack_epoch_acked
            .wrapping_add(rs.acked_sacked)
            .min(0xfffff);
        let extra_acked = self
            .ack_epoch_acked
            .wrapping_sub(expected_acked)
            .min(tp.snd_cwnd);
        if extra_acked > self.extra_acked[self.extra_acked_win_idx] as u32 {
            // Linux stores it in a u16.
            self.extra_acked[self.extra_acked_win_idx] = extra_acked as u16;
        }
    }

    /// Linux `bbr_check_full_bw_reached`: 3 rounds without 25 % growth fill the pipe.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh =
            ((self.full_bw as u64 * self.cfg.full_bw_thresh as u64) >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt = (self.full_bw_cnt + 1) & 3;
        self.full_bw_reached = self.full_bw_cnt >= self.cfg.full_bw_cnt;
    }

    /// Linux `bbr_check_drain`: DRAIN once the pipe is full, PROBE_BW once
    /// the flight is down to one BDP.
    fn check_drain(&mut self, tp: &mut TcpCc) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tp, tp.packets_in_flight())
                <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, tp: &mut TcpCc) {
        if !(self.probe_rtt_done_stamp != 0 && after(tp.jiffies32(), self.probe_rtt_done_stamp)) {
            return;
        }
        // Wait a while until the next PROBE_RTT.
        self.min_rtt_stamp = tp.jiffies32();
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.reset_mode(tp);
    }

    /// Linux `bbr_update_min_rtt`: the 10-s min-RTT filter and PROBE_RTT.
    fn update_min_rtt(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        let now = tp.jiffies32();
        let win = self.cfg.min_rtt_win_sec.wrapping_mul(tp.hz);
        let filter_expired = after(now, self.min_rtt_stamp.wrapping_add(win));
        if rs.rtt_us >= 0
            && (rs.rtt_us <= self.min_rtt_us as i64 || (filter_expired && !rs.is_ack_delayed))
        {
            self.min_rtt_us = rs.rtt_us as u32;
            self.min_rtt_stamp = now;
        }
        if self.cfg.probe_rtt_mode_ms > 0
            && filter_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tp);
            self.probe_rtt_done_stamp = 0;
        }
        if self.mode == Mode::ProbeRtt {
            // Low-rate samples of this mode do not count against the model.
            tp.app_limited = true;
            // At the minimum flight for max(probe_rtt_mode_ms, one round).
            if self.probe_rtt_done_stamp == 0 && tp.packets_in_flight() <= self.cfg.cwnd_min_target
            {
                self.probe_rtt_done_stamp = tp
                    .jiffies32()
                    .wrapping_add(msecs_to_jiffies(self.cfg.probe_rtt_mode_ms, tp.hz));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = tp.delivered;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tp);
                }
            }
        }
        // The idle restart ends with the first ACK of new data.
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (self.cfg.high_gain, self.cfg.high_gain),
            Mode::Drain => (self.cfg.drain_gain, self.cfg.high_gain),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    PACING_GAIN[self.cycle_idx as usize]
                },
                self.cfg.cwnd_gain,
            ),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing & 0x3ff;
        self.cwnd_gain = cwnd & 0x3ff;
    }

    /// Linux `bbr_update_model`.
    fn update_model(&mut self, tp: &mut TcpCc, rs: &RateSample) {
        self.update_bw(tp, rs);
        self.update_ack_aggregation(tp, rs);
        self.update_cycle_phase(tp, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(tp);
        self.update_min_rtt(tp, rs);
        self.update_gains();
    }
}

impl CongestionOps for Bbr {
    const NAME: &'static str = "bbr";
    type Params = BbrParams;

    fn new(p: &BbrParams) -> Self {
        Bbr {
            min_rtt_us: u32::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: 0,
            bw: Minmax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: Mode::Startup,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            cfg: p.clone(),
        }
    }

    /// Linux `bbr_init`.
    fn init(&mut self, tp: &mut TcpCc) {
        let cfg = self.cfg.clone();
        *self = Bbr::new(&cfg);
        tp.snd_ssthresh = TCP_INFINITE_SSTHRESH;
        self.min_rtt_us = tp.min_rtt_us;
        self.min_rtt_stamp = tp.jiffies32();
        self.bw.reset(self.rtt_cnt, 0);
        self.init_pacing_rate_from_rtt(tp);
        self.reset_lt_bw_sampling(tp);
        self.reset_startup_mode();
        self.ack_epoch_mstamp = tp.now_us;
        // Linux: cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED).
        tp.pacing_needed = true;
    }

    /// Linux `bbr_ssthresh`: entering loss recovery, save cwnd for its end or an undo.
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32 {
        self.save_cwnd(tp);
        tp.snd_ssthresh
    }

    /// BBR has no `cong_avoid`: `cong_control` owns cwnd (Linux never calls it).
    fn cong_avoid(&mut self, _tp: &mut TcpCc, _ack: u32, _acked: u32) {}

    /// Linux `bbr_set_state`: an RTO ends a round and starts long-term sampling.
    fn set_state(&mut self, tp: &mut TcpCc, new_state: CaState) {
        if new_state == CaState::Loss {
            let rs = RateSample {
                losses: 1,
                ..RateSample::default()
            };
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_bw_sampling(tp, &rs);
        }
    }

    /// Linux `bbr_cwnd_event`: restarting from idle while app-limited, pace at
    /// the estimated rate (or end PROBE_RTT if it is time).
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent) {
        if ev == CaEvent::TxStart && tp.app_limited {
            self.idle_restart = true;
            self.ack_epoch_mstamp = tp.now_us;
            self.ack_epoch_acked = 0;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(tp, self.bw(), BBR_UNIT);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(tp);
            }
        }
    }

    /// Linux `bbr_undo_cwnd`: a spurious slow-down; restart full-pipe detection.
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(tp);
        tp.snd_cwnd
    }

    /// Linux `bbr_main`.
    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool {
        self.update_model(tp, rs);
        let bw = self.bw();
        self.set_pacing_rate(tp, bw, self.pacing_gain);
        self.set_cwnd(tp, rs, rs.acked_sacked, bw, self.cwnd_gain);
        true
    }

    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        let c = &self.cfg;
        vec![
            ("high_gain", c.high_gain.into()),
            ("drain_gain", c.drain_gain.into()),
            ("cwnd_gain", c.cwnd_gain.into()),
            ("bw_rtts", c.bw_rtts.into()),
            ("min_rtt_win_sec", c.min_rtt_win_sec.into()),
            ("probe_rtt_mode_ms", c.probe_rtt_mode_ms.into()),
            ("pacing_margin_percent", c.pacing_margin_percent.into()),
            ("cwnd_min_target", c.cwnd_min_target.into()),
            ("full_bw_thresh", c.full_bw_thresh.into()),
            ("full_bw_cnt", c.full_bw_cnt.into()),
            ("lt_intvl_min_rtts", c.lt_intvl_min_rtts.into()),
            ("lt_loss_thresh", c.lt_loss_thresh.into()),
            ("lt_bw_ratio", c.lt_bw_ratio.into()),
            ("lt_bw_diff", c.lt_bw_diff.into()),
            ("lt_bw_max_rtts", c.lt_bw_max_rtts.into()),
            ("extra_acked_gain", c.extra_acked_gain.into()),
            ("extra_acked_win_rtts", c.extra_acked_win_rtts.into()),
            ("extra_acked_max_us", c.extra_acked_max_us.into()),
        ]
    }
}

crate::cc_property_suite!(bbr_properties, Bbr);
