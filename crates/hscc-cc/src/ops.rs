//! The congestion-control interface: [`CongestionOps`], modeled on the Linux
//! kernel's `struct tcp_congestion_ops` (include/net/tcp.h), and the sender
//! view [`TcpCc`] it works on.
//!
//! # Call order (the contract every sender of hscc keeps)
//!
//! This is the order of Linux's `tcp_ack()` (net/ipv4/tcp_input.c, v6.x).
//! For every incoming ACK:
//!
//! 1. `in_ack_event(flags)` — after `snd_una` has advanced (`tcp_in_ack_event`).
//! 2. The RTT estimator is updated (`srtt_us`, `min_rtt_us`), then
//!    `pkts_acked(sample)` — always called, with `sample.pkts_acked` the
//!    number of segments newly acknowledged cumulatively (may be 0),
//!    `sample.rtt_us` the RTT sample of this ACK or `-1` when it has none
//!    and `sample.in_flight` Linux's bytes delivered since the newest
//!    delivered segment was sent (see [`AckSample::in_flight`]; 0 unless the
//!    algorithm declares [`CongestionOps::NEEDS_DELIVERY_STAMPS`])
//!    (`tcp_clean_rtx_queue`).
//! 3. Loss detection and the recovery state machine (`tcp_fastretrans_alert`):
//!    - entering fast recovery: `prior_cwnd ← cwnd`, then
//!      `snd_ssthresh ← ssthresh()`, then `set_state(Recovery)`
//!      (`tcp_enter_recovery`, `tcp_init_cwnd_reduction`);
//!    - leaving recovery: `snd_cwnd ← snd_ssthresh`,
//!      `cwnd_event(CompleteCwr)`, then `set_state(Open)` (`tcp_end_cwnd_reduction`);
//!    - a detected spurious reduction: `snd_cwnd ← undo_cwnd()` (`tcp_undo_cwnd_reduction`).
//! 4. Window growth (`tcp_cong_control`): `cong_control(rs)` is called on
//!    every ACK in every state with the ACK's delivery-rate sample
//!    (`tcp_rate_gen`). If it returns `true`, the algorithm owns cwnd and
//!    pacing: the sender makes no reduction of its own (no PRR, and no
//!    `cwnd ← ssthresh` nor `cwnd_event(CompleteCwr)` when a reduction ends,
//!    as `tcp_end_cwnd_reduction`) and applies no default pacing rate.
//!    Otherwise, while in CWR/Recovery the sender reduces cwnd (PRR or
//!    classic), and else `cong_avoid(ack, acked)` is called with `acked` =
//!    segments newly acknowledged or SACKed by this ACK. Algorithms check
//!    [`TcpCc::is_cwnd_limited`] themselves, as Linux's do.
//!
//! Outside ACK processing:
//! - `init()` once, when the connection starts.
//! - Retransmission timeout (`tcp_enter_loss`): unless already in Loss,
//!   `prior_cwnd ← cwnd`, `snd_ssthresh ← ssthresh()`, `cwnd_event(Loss)`;
//!   then `snd_cwnd ← packets_in_flight + 1` (= 1) and `set_state(Loss)`, at
//!   every timeout, in Loss already or not (`tcp_set_ca_state` unguarded).
//! - An algorithm's `cong_avoid` that sets [`TcpCc::enter_cwr`] (Linux's
//!   `tcp_enter_cwr`, which CDG calls there): when the hook returns the sender
//!   clears it and, from Open or Disorder, reduces as for an ECN echo
//!   (`prior_cwnd ← cwnd`, `snd_ssthresh ← ssthresh()`, `set_state(Cwr)`);
//!   in any state the reduction in progress can no longer be undone.
//! - First transmission after the connection went idle: `cwnd_event(TxStart)`.
//! - ECN echo (an ACK with ECE; `in_ack_event` gets [`CA_ACK_ECE`]) in Open or
//!   Disorder (`tcp_enter_cwr`): `prior_cwnd ← cwnd`, `snd_ssthresh ←
//!   ssthresh()`, `set_state(Cwr)`; the window is then reduced as in recovery,
//!   and leaving CWR sets `snd_cwnd ← snd_ssthresh` and calls
//!   `cwnd_event(CompleteCwr)`.
//!
//! Whenever the sender marks a segment lost (step 3 of an ACK, a RACK
//! reordering timer, a retransmission timeout),
//! `skb_marked_lost(skb)` is called for it, `tp.lost` already counting it, for
//! algorithms that take rate samples.
//!
//! `set_state(new)` is called *before* `ca_state` changes, as in
//! `tcp_set_ca_state`, so `tp.ca_state` still holds the old state.

use core::fmt::Debug;

use crate::params::Params;

/// Linux's `TCP_INFINITE_SSTHRESH`: the initial slow-start threshold.
pub const TCP_INFINITE_SSTHRESH: u32 = 0x7fff_ffff;
/// Default kernel tick rate for [`TcpCc::jiffies32`] (Linux `CONFIG_HZ=1000`).
pub const HZ: u32 = 1000;
/// Linux `TCP_TS_HZ`: ticks per second of the TCP timestamp clock.
pub const TCP_TS_HZ: u32 = 1000;

/// `in_ack_event` flag: ACK processed on the slow path (carried SACK blocks or did not advance).
pub const CA_ACK_SLOWPATH: u32 = 1 << 0;
/// `in_ack_event` flag: the ACK updated the peer's receive window.
pub const CA_ACK_WIN_UPDATE: u32 = 1 << 1;
/// `in_ack_event` flag: ECN echo.
pub const CA_ACK_ECE: u32 = 1 << 2;

/// Algorithm flag (Linux `TCP_CONG_NEEDS_ECN`, include/net/tcp.h): the
/// connection negotiates ECN whatever the stack's setting, sends ECT on every
/// data segment (retransmissions too), and the receiving side raises
/// [`CaEvent::EcnIsCe`] / [`CaEvent::EcnNoCe`] to the algorithm.
pub const TCP_CONG_NEEDS_ECN: u32 = 0x2;

/// Linux `enum tcp_ca_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum CaState {
    /// Normal state, no dubious events.
    #[default]
    Open = 0,
    /// Duplicate ACKs or SACKs seen, not yet a loss.
    Disorder = 1,
    /// Window reduced for a reason other than loss (ECN, local congestion).
    Cwr = 2,
    /// Fast retransmit / fast recovery.
    Recovery = 3,
    /// Retransmission timeout recovery.
    Loss = 4,
}

/// Linux `enum tcp_ca_event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaEvent {
    /// First transmission when no packets were in flight.
    TxStart,
    /// Congestion window restart after idle.
    CwndRestart,
    /// End of a congestion window reduction (recovery or CWR finished).
    CompleteCwr,
    /// Retransmission timeout.
    Loss,
    /// ECN, receiving side: an ECT packet arrived without CE (Linux
    /// `CA_EVENT_ECN_NO_CE`, raised only for algorithms flagged `TCP_CONG_NEEDS_ECN`).
    EcnNoCe,
    /// ECN, receiving side: a CE-marked packet arrived (Linux `CA_EVENT_ECN_IS_CE`, likewise).
    EcnIsCe,
}

/// Linux `struct ack_sample`, given to `pkts_acked`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AckSample {
    /// Segments newly acknowledged cumulatively by this ACK.
    pub pkts_acked: u32,
    /// RTT sample of this ACK in µs, or `-1` when it gives none.
    pub rtt_us: i32,
    /// Linux's `in_flight`, which is not what its name says: bytes delivered
    /// since the newest segment this ACK delivers was sent,
    /// `mss_cache · (delivered − prior_delivered)` (u32, wrapping) with
    /// `prior_delivered` that segment's `delivered` stamp
    /// (`tcp_rate_skb_delivered`), 0 when the ACK delivers none
    /// (`tcp_clean_rtx_queue`). The stamps cost the sender work on every
    /// segment, so it keeps them only for an algorithm that declares
    /// [`CongestionOps::NEEDS_DELIVERY_STAMPS`] (or takes rate samples);
    /// for any other, this is 0.
    pub in_flight: u32,
}

/// Linux `struct rate_sample` (`include/net/tcp.h`), given to `cong_control`:
/// one delivery-rate sample per ACK, as `net/ipv4/tcp_rate.c` makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RateSample {
    /// Start of the sampling interval: the delivered time of the newest packet
    /// this ACK delivered, µs on the [`TcpCc::now_us`] clock.
    pub prior_mstamp: u64,
    /// `TcpCc::delivered` at `prior_mstamp`.
    pub prior_delivered: u32,
    /// Segments delivered (acked or SACKed) over the sampling interval.
    pub delivered: i32,
    /// Length of the sampling interval, µs (`-1` if this ACK gives no sample).
    pub interval_us: i64,
    /// Send side of the interval: first to last transmission of the sample, µs.
    pub snd_interval_us: u32,
    /// Receive side of the interval: previous to this delivery, µs.
    pub rcv_interval_us: u32,
    /// RTT of the last (S)ACKed packet, µs (`-1` if none).
    pub rtt_us: i64,
    /// Segments newly marked lost by this ACK.
    pub losses: u32,
    /// Segments newly acknowledged or SACKed by this ACK.
    pub acked_sacked: u32,
    /// Segments in flight before this ACK.
    pub prior_in_flight: u32,
    /// Whether the sample was taken while the application limited the sender.
    pub is_app_limited: bool,
    /// Whether the sample's packet was a retransmission.
    pub is_retrans: bool,
    /// Whether this is (likely) a delayed ACK.
    pub is_ack_delayed: bool,
    /// Segments in flight just after the sample's segment was (re)sent, itself
    /// included (draft-ietf-ccwg-bbr RS.tx_in_flight; Google's BBRv3 kernel
    /// `rate_sample.tx_in_flight`, not in mainline Linux); 0 with no sample.
    pub tx_in_flight: u32,
    /// Segments marked lost since the sample's segment was (re)sent:
    /// `TcpCc::lost` now less at that send (RS.lost; BBRv3's `rate_sample.lost`).
    pub lost: u32,
}

/// A segment the sender just marked lost, as Google's BBRv3 kernel hands it to
/// `skb_marked_lost`: the stamp of its last (re)transmission
/// (`TCP_SKB_CB(skb)->tx`, draft-ietf-ccwg-bbr's P.tx_in_flight, P.lost,
/// P.is_app_limited). hscc sends one segment per packet (`tcp_skb_pcount` 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LostSkb {
    /// Segments in flight just after it was sent, itself included.
    pub tx_in_flight: u32,
    /// [`TcpCc::lost`] when it was sent.
    pub tx_lost: u32,
    /// [`TcpCc::delivered`] when it was sent.
    pub tx_delivered: u32,
    /// Whether the application limited the sender when it was sent.
    pub is_app_limited: bool,
}

/// The sender state an algorithm sees: a subset of Linux `struct tcp_sock`,
/// in Linux's units. The sender owns it; algorithms write `snd_cwnd`,
/// `snd_cwnd_cnt`, `snd_ssthresh` (through the return value of `ssthresh`) and
/// `pacing_rate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpCc {
    /// Congestion window, segments.
    pub snd_cwnd: u32,
    /// Slow-start threshold, segments ([`TCP_INFINITE_SSTHRESH`] at start).
    pub snd_ssthresh: u32,
    /// Linear-increase accumulator (`tcp_cong_avoid_ai`), segments acked.
    pub snd_cwnd_cnt: u32,
    /// Upper bound on `snd_cwnd`, segments.
    pub snd_cwnd_clamp: u32,
    /// cwnd before the last reduction, segments (for undo).
    pub prior_cwnd: u32,
    /// Maximum segment size (payload bytes).
    pub mss_cache: u32,
    /// Smoothed RTT in µs **shifted left by 3** (`srtt_us >> 3` is µs), as in Linux; 0 before the first sample.
    pub srtt_us: u32,
    /// Smallest RTT sample seen on the connection, µs (`u32::MAX` before the first sample).
    pub min_rtt_us: u32,
    /// Oldest unacknowledged sequence number (bytes, wrapping).
    pub snd_una: u32,
    /// Next sequence number to send (bytes, wrapping).
    pub snd_nxt: u32,
    /// Segments sent and not yet cumulatively acknowledged.
    pub packets_out: u32,
    /// Segments SACKed (or, without SACK, duplicate ACKs counted as in Linux's Reno emulation).
    pub sacked_out: u32,
    /// Segments marked lost and not yet retransmitted or acknowledged.
    pub lost_out: u32,
    /// Retransmitted segments still outstanding.
    pub retrans_out: u32,
    /// Total segments delivered (acked or SACKed) over the connection.
    pub delivered: u32,
    /// Total segments marked lost over the connection.
    pub lost: u32,
    /// Of `delivered`, the segments an ACK with ECE delivered (Linux
    /// `delivered_ce`, `tcp_count_delivered`).
    pub delivered_ce: u32,
    /// When `delivered` last grew, µs on the [`TcpCc::now_us`] clock (Linux `delivered_mstamp`).
    pub delivered_mstamp: u64,
    /// Largest `packets_out` seen in the last window (Linux `max_packets_out`).
    pub max_packets_out: u32,
    /// Whether the last transmission round was limited by cwnd (Linux `is_cwnd_limited`).
    pub is_cwnd_limited: bool,
    /// Whether the application limits the sender (nothing more to send).
    pub app_limited: bool,
    /// Current congestion-avoidance state.
    pub ca_state: CaState,
    /// Pacing rate requested by the algorithm, bytes per second; 0 = the algorithm does not pace.
    pub pacing_rate: u64,
    /// Ceiling on `pacing_rate`, bytes per second (Linux `sk_max_pacing_rate`, unlimited by default).
    pub max_pacing_rate: u64,
    /// Whether the algorithm asked for the stack's internal pacing, as Linux's
    /// `sk_pacing_status = SK_PACING_NEEDED` (BBR sets it in `init`): the
    /// sender then gives each segment an earliest departure time, its payload
    /// at `pacing_rate` (capped at `max_pacing_rate`) after the one before,
    /// as `tcp_update_skb_after_send` does.
    pub pacing_needed: bool,
    /// Largest TSO/GSO burst the device takes, bytes (Linux `sk_gso_max_size`).
    pub gso_max_size: u32,
    /// Earliest departure time of the next packet under pacing, ns on the
    /// [`TcpCc::now_us`] clock (×1000) (Linux `tcp_wstamp_ns`); at most now when
    /// nothing waits for its departure time.
    pub tcp_wstamp_ns: u64,
    /// State of the connection's pseudo-random generator, for what Linux draws
    /// at random (BBR's gain-cycle phase): the sender seeds it from the run's
    /// seed and the flow, so a run is reproducible.
    pub prandom_state: u64,
    /// The clock: microseconds since the start of the run (Linux `tcp_mstamp`).
    pub now_us: u64,
    /// When the last data segment was sent, in jiffies (Linux `lsndtime`).
    pub lsndtime: u32,
    /// Kernel tick rate for [`TcpCc::jiffies32`].
    pub hz: u32,
    /// Set by an algorithm's `cong_avoid` to enter CWR as Linux's
    /// `tcp_enter_cwr` (CDG's backoff); the sender acts on it and clears it
    /// when the hook returns (module documentation). Always false between hooks.
    pub enter_cwr: bool,
    /// Whether the connection uses ECN (Linux `ecn_flags & TCP_ECN_OK`): set
    /// by the sender before `init`, fixed for the connection.
    pub ecn_ok: bool,
    /// TSval of the last ACK (Linux `rx_opt.rcv_tsval`): the receiver's
    /// timestamp clock when it sent the ACK, ms ([`TCP_TS_HZ`]); 0 on a
    /// connection without timestamps.
    pub rcv_tsval: u32,
    /// TSecr of the last ACK (Linux `rx_opt.rcv_tsecr`, less the connection's
    /// `tsoffset`): this sender's [`TcpCc::tcp_time_stamp_ms`] when it sent the
    /// segment echoed; 0 on a connection without timestamps.
    pub rcv_tsecr: u32,
}

/// Linux's default `gso_max_size` (`GSO_LEGACY_MAX_SIZE`, 64 KiB), as a veth device has it.
pub const GSO_MAX_SIZE: u32 = 65_536;

impl TcpCc {
    /// A fresh connection: initial window `init_cwnd`, infinite ssthresh.
    pub fn new(mss: u32, init_cwnd: u32) -> Self {
        TcpCc {
            snd_cwnd: init_cwnd,
            snd_ssthresh: TCP_INFINITE_SSTHRESH,
            snd_cwnd_cnt: 0,
            snd_cwnd_clamp: u32::MAX / 2,
            prior_cwnd: 0,
            mss_cache: mss,
            srtt_us: 0,
            min_rtt_us: u32::MAX,
            snd_una: 0,
            snd_nxt: 0,
            packets_out: 0,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            delivered: 0,
            lost: 0,
            delivered_ce: 0,
            delivered_mstamp: 0,
            max_packets_out: 0,
            is_cwnd_limited: false,
            app_limited: false,
            ca_state: CaState::Open,
            pacing_rate: 0,
            max_pacing_rate: u64::MAX,
            pacing_needed: false,
            gso_max_size: GSO_MAX_SIZE,
            tcp_wstamp_ns: 0,
            prandom_state: 0,
            now_us: 0,
            lsndtime: 0,
            hz: HZ,
            enter_cwr: false,
            ecn_ok: false,
            rcv_tsval: 0,
            rcv_tsecr: 0,
        }
    }

    /// Linux `tcp_packets_in_flight`: packets_out − (sacked_out + lost_out) + retrans_out.
    #[inline]
    pub fn packets_in_flight(&self) -> u32 {
        (self.packets_out + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    /// Linux `tcp_in_slow_start`.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.snd_cwnd < self.snd_ssthresh
    }

    /// Linux `tcp_is_cwnd_limited`: cwnd-limited, or in slow start with cwnd < 2·max_packets_out.
    #[inline]
    pub fn is_cwnd_limited(&self) -> bool {
        if self.is_cwnd_limited {
            return true;
        }
        if self.in_slow_start() {
            return self.snd_cwnd < 2 * self.max_packets_out;
        }
        false
    }

    /// Linux `tcp_jiffies32`: the clock in kernel ticks at `hz`, wrapping.
    #[inline]
    pub fn jiffies32(&self) -> u32 {
        (self.now_us / (1_000_000 / self.hz as u64)) as u32
    }

    /// Linux `tcp_time_stamp_ms` (`tcp_time_stamp_ts` without microsecond
    /// timestamps): the timestamp clock, ms, wrapping.
    #[inline]
    pub fn tcp_time_stamp_ms(&self) -> u32 {
        (self.now_us / 1000) as u32
    }

    /// Smoothed RTT in µs (unshifted); 0 before the first sample.
    #[inline]
    pub fn srtt(&self) -> u32 {
        self.srtt_us >> 3
    }
}

/// Linux `before(seq1, seq2)` on wrapping 32-bit sequence numbers.
#[inline]
pub fn before(seq1: u32, seq2: u32) -> bool {
    (seq1.wrapping_sub(seq2) as i32) < 0
}

/// Linux `after(seq2, seq1)`.
#[inline]
pub fn after(seq2: u32, seq1: u32) -> bool {
    before(seq1, seq2)
}

/// A congestion-control algorithm, hook for hook Linux's `tcp_congestion_ops`.
/// See the module documentation for the order in which the sender calls the hooks.
pub trait CongestionOps: Clone + Debug {
    /// Name, equal to Linux's `.name` where the kernel has the algorithm.
    const NAME: &'static str;
    /// Tunable parameters with documented defaults and ranges.
    type Params: Params;
    /// Linux's `.flags` (only [`TCP_CONG_NEEDS_ECN`] changes what the engine does).
    const FLAGS: u32 = 0;
    /// Whether `pkts_acked` reads [`AckSample::in_flight`] (hscc extension,
    /// not a Linux field): the sender then stamps every segment with its
    /// delivered count at the send, as Linux always does
    /// (`tcp_rate_skb_sent`), to compute it. TCP-NV is Linux's only reader.
    const NEEDS_DELIVERY_STAMPS: bool = false;

    /// Build the algorithm from validated parameters.
    fn new(params: &Self::Params) -> Self;
    /// Connection start (Linux `init`).
    fn init(&mut self, _tp: &mut TcpCc) {}
    /// Slow-start threshold to use after a loss (required).
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32;
    /// Window growth per ACK when no `cong_control` (Linux `cong_avoid`).
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32);
    /// Called before the CA state changes to `new_state`.
    fn set_state(&mut self, _tp: &mut TcpCc, _new_state: CaState) {}
    /// Discrete events (Linux `cwnd_event`).
    fn cwnd_event(&mut self, _tp: &mut TcpCc, _ev: CaEvent) {}
    /// Per-ACK flags (Linux `in_ack_event`).
    fn in_ack_event(&mut self, _tp: &mut TcpCc, _flags: u32) {}
    /// Per-ACK sample with acked count and RTT (Linux `pkts_acked`).
    fn pkts_acked(&mut self, _tp: &mut TcpCc, _sample: &AckSample) {}
    /// cwnd to restore after a spurious reduction (Linux `undo_cwnd`).
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32 {
        // Linux `tcp_reno_undo_cwnd`, as `helpers` has it (written out here:
        // the helpers build on this module, not the other way).
        tp.snd_cwnd.max(tp.prior_cwnd)
    }
    /// The load-time globals of this algorithm's eBPF program
    /// (`bpf/NAME.bpf.c`): the fixed-point configuration [`CongestionOps::new`]
    /// derived from the parameters, by the names the program declares. The
    /// kernel loader and the conformance tests both set the program's globals
    /// from this, so the conversion from parameters exists once, here. Empty
    /// when the algorithm has no parameters.
    fn bpf_globals(&self) -> Vec<(&'static str, i64)> {
        Vec::new()
    }
    /// Number of congestion signals this algorithm has detected from delay so
    /// far (hscc extension, not a Linux hook). The simulator records the time
    /// whenever it grows, to measure how synchronized competing flows are
    /// (Sync-TCP §VI.A). Loss-based algorithms detect none.
    fn delay_signals(&self) -> u32 {
        0
    }
    /// Full control of cwnd and pacing per ACK (Linux `cong_control`); return
    /// `true` if handled, `false` to fall back to `cong_avoid` and the sender's
    /// reduction logic.
    fn cong_control(&mut self, _tp: &mut TcpCc, _rs: &RateSample) -> bool {
        false
    }
    /// A segment was just marked lost, `tp.lost` already counting it (Google's
    /// BBRv3 kernel `skb_marked_lost`, called from `tcp_sum_lost`; not in
    /// mainline Linux, so a program loaded in a mainline kernel never gets
    /// it). Called only for algorithms that take rate samples.
    fn skb_marked_lost(&mut self, _tp: &mut TcpCc, _skb: &LostSkb) {}
}
