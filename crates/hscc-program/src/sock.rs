//! The `#[repr(C)]` mirror of the shim's kernel types
//! (bpf/shim/include/vmlinux.h): the socket a program's hooks see, the rate
//! and ACK samples, `struct tcp_congestion_ops`, and the copy of the
//! sender's view ([`TcpCc`]) into the socket before a hook and of what the
//! kernel lets a program write back after it.

use core::ffi::{c_char, c_int};

use hscc_cc::{AckSample, LostSkb, RateSample, TcpCc};

/// Linux `struct sock`: the two fields a program may write and the pacing ceiling.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Sock {
    pub sk_pacing_rate: u64,
    pub sk_pacing_status: u32,
    pub sk_max_pacing_rate: u64,
}

/// Linux `icsk_ack`: the receiving end's delayed-ACK state (`ICSK_ACK_*`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IcskAck {
    pub pending: u8,
}

/// Linux `struct minmax_sample`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MinmaxSample {
    pub t: u32,
    pub v: u32,
}

/// The shim's `struct tcp_sock` (and the `struct inet_connection_sock` and
/// `struct sock` at its start): the fields TcpCc mirrors, Linux's names. The
/// private area comes last, so that the socket can end where its memory does
/// ([`crate::guard`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CTcpSock {
    pub icsk_inet: Sock,
    pub icsk_ca_state: u8,
    pub icsk_ack: IcskAck,
    /// C's tcp_sock fields are a struct inside inet_connection_sock: they
    /// start 8-aligned.
    pub tcp_align: [u64; 0],
    pub snd_cwnd: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd_cnt: u32,
    pub snd_cwnd_clamp: u32,
    pub prior_cwnd: u32,
    pub mss_cache: u32,
    pub srtt_us: u32,
    pub rtt_min: [MinmaxSample; 3],
    pub snd_una: u32,
    pub snd_nxt: u32,
    pub lsndtime: u32,
    pub packets_out: u32,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    pub delivered: u32,
    pub lost: u32,
    pub delivered_ce: u32,
    pub max_packets_out: u32,
    pub is_cwnd_limited: u8,
    pub app_limited: u32,
    pub tcp_mstamp: u64,
    pub delivered_mstamp: u64,
    pub tcp_wstamp_ns: u64,
    pub tcp_clock_cache: u64,
    /// The sender receives no data: 0.
    pub rcv_nxt: u32,
    /// `TCP_ECN_OK` when the connection uses ECN.
    pub ecn_flags: u8,
    pub rx_opt: TcpOptionsReceived,
    /// Not Linux's: `TcpCc::enter_cwr`, set by the shim's `tcp_enter_cwr`.
    pub hscc_enter_cwr: u8,
    /// Linux ICSK_CA_PRIV_SIZE = 13 u64: the program's per-connection state.
    pub icsk_ca_priv: [u64; 13],
}

/// Linux `struct tcp_options_received`: the last ACK's timestamps, ms.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpOptionsReceived {
    pub rcv_tsval: u32,
    pub rcv_tsecr: u32,
}

/// Linux `struct rate_sample` (6.18's layout; `long` is i64).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CRateSample {
    pub prior_mstamp: u64,
    pub prior_delivered: u32,
    pub prior_delivered_ce: u32,
    pub delivered: i32,
    pub delivered_ce: i32,
    pub interval_us: i64,
    pub snd_interval_us: u32,
    pub rcv_interval_us: u32,
    pub rtt_us: i64,
    pub losses: i32,
    pub acked_sacked: u32,
    pub prior_in_flight: u32,
    pub last_end_seq: u32,
    pub is_app_limited: bool,
    pub is_retrans: bool,
    pub is_ack_delayed: bool,
    /// Google's BBRv3 kernel's two fields (the shim's vmlinux.h).
    pub tx_in_flight: u32,
    pub lost: i32,
}

impl CRateSample {
    /// hscc's sample as Linux's: the fields hscc does not model
    /// (`*_ce`, `last_end_seq`) are 0; `losses` is Linux's `int`.
    pub fn of(rs: &RateSample) -> CRateSample {
        CRateSample {
            prior_mstamp: rs.prior_mstamp,
            prior_delivered: rs.prior_delivered,
            prior_delivered_ce: 0,
            delivered: rs.delivered,
            delivered_ce: 0,
            interval_us: rs.interval_us,
            snd_interval_us: rs.snd_interval_us,
            rcv_interval_us: rs.rcv_interval_us,
            rtt_us: rs.rtt_us,
            losses: rs.losses as i32,
            acked_sacked: rs.acked_sacked,
            prior_in_flight: rs.prior_in_flight,
            last_end_seq: 0,
            is_app_limited: rs.is_app_limited,
            is_retrans: rs.is_retrans,
            is_ack_delayed: rs.is_ack_delayed,
            tx_in_flight: rs.tx_in_flight,
            lost: rs.lost as i32,
        }
    }
}

/// The stamp `TCP_SKB_CB(skb)->tx` of the shim's `struct tcp_skb_cb`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CSkbTx {
    /// Bit 0: `is_app_limited`.
    pub flags: u32,
    pub delivered: u32,
    pub in_flight: u32,
    pub lost: u32,
}

/// The shim's `struct tcp_skb_cb`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CTcpSkbCb {
    pub seq: u32,
    pub end_seq: u32,
    pub tx: CSkbTx,
}

/// The shim's `struct sk_buff`: its 48-byte control block holds a [`CTcpSkbCb`].
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug, Default)]
pub struct CSkBuff {
    pub cb: CTcpSkbCb,
    pub cb_rest: [u32; 6],
}

const _: () = assert!(core::mem::size_of::<CSkBuff>() == 48);

impl CSkBuff {
    /// The segment `skb_marked_lost` is given, with its stamp.
    pub fn of(skb: &LostSkb) -> CSkBuff {
        CSkBuff {
            cb: CTcpSkbCb {
                tx: CSkbTx {
                    flags: skb.is_app_limited as u32,
                    delivered: skb.tx_delivered,
                    in_flight: skb.tx_in_flight,
                    lost: skb.tx_lost,
                },
                ..CTcpSkbCb::default()
            },
            ..CSkBuff::default()
        }
    }
}

/// Linux `struct ack_sample`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CAckSample {
    pub pkts_acked: u32,
    pub rtt_us: i32,
    pub in_flight: u32,
}

impl CAckSample {
    /// hscc's sample as Linux's.
    pub fn of(s: &AckSample) -> CAckSample {
        CAckSample {
            pkts_acked: s.pkts_acked,
            rtt_us: s.rtt_us,
            in_flight: s.in_flight,
        }
    }
}

/// A program's socket argument.
pub type Sk = *mut CTcpSock;

/// The shim's `struct tcp_congestion_ops`.
#[repr(C)]
#[derive(Debug)]
pub struct Ops {
    pub ssthresh: Option<unsafe extern "C" fn(Sk) -> u32>,
    pub cong_avoid: Option<unsafe extern "C" fn(Sk, u32, u32)>,
    pub set_state: Option<unsafe extern "C" fn(Sk, u8)>,
    pub cwnd_event: Option<unsafe extern "C" fn(Sk, c_int)>,
    pub in_ack_event: Option<unsafe extern "C" fn(Sk, u32)>,
    pub pkts_acked: Option<unsafe extern "C" fn(Sk, *const CAckSample)>,
    pub undo_cwnd: Option<unsafe extern "C" fn(Sk) -> u32>,
    pub init: Option<unsafe extern "C" fn(Sk)>,
    pub release: Option<unsafe extern "C" fn(Sk)>,
    pub cong_control: Option<unsafe extern "C" fn(Sk, u32, c_int, *const CRateSample)>,
    pub min_tso_segs: Option<unsafe extern "C" fn(Sk) -> u32>,
    pub sndbuf_expand: Option<unsafe extern "C" fn(Sk) -> u32>,
    pub skb_marked_lost: Option<unsafe extern "C" fn(Sk, *const CSkBuff)>,
    pub flags: u32,
    pub name: [c_char; 16],
}

impl CTcpSock {
    /// Copy the sender's view in before a hook.
    pub fn load(&mut self, tp: &TcpCc) {
        let sk = self;
        sk.icsk_inet.sk_pacing_rate = tp.pacing_rate;
        sk.icsk_inet.sk_pacing_status = tp.pacing_needed as u32;
        sk.icsk_inet.sk_max_pacing_rate = tp.max_pacing_rate;
        sk.icsk_ca_state = tp.ca_state as u8;
        sk.snd_cwnd = tp.snd_cwnd;
        sk.snd_ssthresh = tp.snd_ssthresh;
        sk.snd_cwnd_cnt = tp.snd_cwnd_cnt;
        sk.snd_cwnd_clamp = tp.snd_cwnd_clamp;
        sk.prior_cwnd = tp.prior_cwnd;
        sk.mss_cache = tp.mss_cache;
        sk.srtt_us = tp.srtt_us;
        sk.rtt_min[0].v = tp.min_rtt_us;
        sk.snd_una = tp.snd_una;
        sk.snd_nxt = tp.snd_nxt;
        sk.lsndtime = tp.lsndtime;
        sk.packets_out = tp.packets_out;
        sk.sacked_out = tp.sacked_out;
        sk.lost_out = tp.lost_out;
        sk.retrans_out = tp.retrans_out;
        sk.delivered = tp.delivered;
        sk.lost = tp.lost;
        sk.delivered_ce = tp.delivered_ce;
        sk.max_packets_out = tp.max_packets_out;
        sk.is_cwnd_limited = tp.is_cwnd_limited as u8;
        sk.app_limited = tp.app_limited as u32;
        sk.tcp_mstamp = tp.now_us;
        sk.delivered_mstamp = tp.delivered_mstamp;
        sk.tcp_wstamp_ns = tp.tcp_wstamp_ns;
        // Linux's tcp_clock_cache: the ns clock tcp_mstamp was taken from.
        sk.tcp_clock_cache = tp.now_us.wrapping_mul(1000);
        sk.hscc_enter_cwr = tp.enter_cwr as u8;
        // The sender's view of the receiving end's fields: no data received,
        // no ACK pending (the engine's receiver keeps its own; docs/programs.md).
        sk.rcv_nxt = 0;
        sk.icsk_ack.pending = 0;
        sk.ecn_flags = if tp.ecn_ok { TCP_ECN_OK } else { 0 };
        sk.rx_opt.rcv_tsval = tp.rcv_tsval;
        sk.rx_opt.rcv_tsecr = tp.rcv_tsecr;
    }

    /// Copy back what the kernel lets a program write (snd_cwnd,
    /// snd_cwnd_cnt, snd_ssthresh, sk_pacing_rate, sk_pacing_status,
    /// app_limited; bpf_tcp_ca_btf_struct_access) after a hook. The kernel
    /// also lets it write `ecn_flags` and `icsk_ack.pending`, the receiving
    /// end's (DCTCP's CE echo): the simulator's sender has no use for them
    /// and drops them.
    pub fn store(&self, tp: &mut TcpCc) {
        tp.snd_cwnd = self.snd_cwnd;
        tp.snd_cwnd_cnt = self.snd_cwnd_cnt;
        tp.snd_ssthresh = self.snd_ssthresh;
        tp.pacing_rate = self.icsk_inet.sk_pacing_rate;
        tp.pacing_needed = self.icsk_inet.sk_pacing_status != 0;
        // Linux's app_limited is a delivered-count mark; TcpCc's a flag.
        tp.app_limited = self.app_limited != 0;
        // The shim's tcp_enter_cwr (user space only: the kernel has no such call).
        tp.enter_cwr = self.hscc_enter_cwr != 0;
    }
}

/// Linux `TCP_ECN_OK` (include/net/tcp.h): ECN was negotiated.
pub const TCP_ECN_OK: u8 = 1;

/// Offsets and sizes in the order of bpf/shim/include/hscc_layout.h.
pub const LAYOUT_LEN: usize = 29;

/// The layout as this mirror has it, to compare with C's.
pub fn rust_layout() -> [usize; LAYOUT_LEN] {
    use core::mem::offset_of;
    [
        core::mem::size_of::<CTcpSock>(),
        offset_of!(CTcpSock, icsk_inet) + offset_of!(Sock, sk_pacing_rate),
        offset_of!(CTcpSock, icsk_ca_state),
        offset_of!(CTcpSock, icsk_ca_priv),
        offset_of!(CTcpSock, snd_cwnd),
        offset_of!(CTcpSock, rtt_min),
        offset_of!(CTcpSock, snd_una),
        offset_of!(CTcpSock, is_cwnd_limited),
        offset_of!(CTcpSock, app_limited),
        offset_of!(CTcpSock, tcp_mstamp),
        offset_of!(CTcpSock, icsk_inet) + offset_of!(Sock, sk_max_pacing_rate),
        offset_of!(CTcpSock, delivered_mstamp),
        offset_of!(CTcpSock, tcp_clock_cache),
        core::mem::size_of::<CRateSample>(),
        offset_of!(CRateSample, interval_us),
        offset_of!(CRateSample, losses),
        offset_of!(CRateSample, is_ack_delayed),
        offset_of!(CTcpSock, lsndtime),
        offset_of!(CTcpSock, delivered_ce),
        offset_of!(CTcpSock, hscc_enter_cwr),
        offset_of!(CTcpSock, icsk_ack) + offset_of!(IcskAck, pending),
        offset_of!(CTcpSock, rcv_nxt),
        offset_of!(CTcpSock, ecn_flags),
        offset_of!(CTcpSock, rx_opt) + offset_of!(TcpOptionsReceived, rcv_tsval),
        offset_of!(CTcpSock, rx_opt) + offset_of!(TcpOptionsReceived, rcv_tsecr),
        offset_of!(CRateSample, tx_in_flight),
        offset_of!(CRateSample, lost),
        offset_of!(CTcpSkbCb, tx) + offset_of!(CSkbTx, in_flight),
        core::mem::size_of::<Ops>(),
    ]
}
