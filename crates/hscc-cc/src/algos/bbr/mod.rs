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
//! ([`BbrParams`]), with Linux's value as default; the others are fixed, next
//! to the code that uses them.
//!
//! # Where each part lives
//! This file holds the state ([`Bbr`]), the parameters and the hooks; per
//! ACK, `update_model` runs the model's steps in Linux's order. The steps:
//! - `bandwidth.rs`: packet-timed rounds and the max-bandwidth filter;
//! - `lt_bw.rs`: long-term sampling, the policer detector;
//! - `ack_aggregation.rs`: the extra-ACKed estimate and its cwnd allowance;
//! - `state.rs`: STARTUP, DRAIN, PROBE_BW's gain cycle, the gains per mode;
//! - `probe_rtt.rs`: the min-RTT filter and PROBE_RTT;
//! - `pacing.rs`: the pacing rate and the TSO burst goal;
//! - `cwnd.rs`: BDP, in-flight targets and the cwnd;
//! - `minmax.rs`: Linux's windowed min/max filter.
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

mod ack_aggregation;
mod bandwidth;
mod cwnd;
mod lt_bw;
mod minmax;
mod pacing;
mod probe_rtt;
mod state;
#[cfg(test)]
mod tests;

pub use minmax::{Minmax, MinmaxSample};

use crate::ops::{CaEvent, CaState, CongestionOps, RateSample, TcpCc, TCP_INFINITE_SSTHRESH};

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
/// Linux `USEC_PER_MSEC`.
const USEC_PER_MSEC: u64 = 1000;

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

impl Bbr {
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
