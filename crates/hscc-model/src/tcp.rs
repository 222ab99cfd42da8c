//! TCP settings that are configuration, not state: the RTO estimator, which
//! segments it samples, which ACKs restart it, and its cap.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::time::{Time, SEC};

/// Which estimator computes the RTO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RtoEstimator {
    /// RFC 6298 (ns-2, ns-3).
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator`.
    Linux,
}

/// Which ACKs give the RTO estimator an RTT sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSampling {
    /// Every ACK that acknowledges or SACKs data never retransmitted gives the
    /// newest such segment's RTT, to the estimator and the algorithm alike;
    /// else an ACK that acknowledges anything gives its echoed timestamp's.
    #[default]
    Ack,
    /// Linux 6.x (net/ipv4/tcp_input.c `tcp_clean_rtx_queue`,
    /// `tcp_ack_update_rtt`): the estimator takes the RTT of the *oldest*
    /// segment the ACK newly acknowledges cumulatively (`seq_rtt_us`), none if a
    /// retransmitted one is among them (Karn, `FLAG_RETRANS_DATA_ACKED`); else
    /// of the lowest newly SACKed one never retransmitted (`sack_rtt_us`); else,
    /// for an ACK that advances the cumulative ACK, its echoed timestamp's, in
    /// whole milliseconds. The minimum RTT and the algorithm take the newest
    /// (`ca_rtt_us`).
    Linux,
    /// ns-2.35's Agent/TCP (tcp/tcp.cc): one segment timed per round trip,
    /// the first new one sent while none is timed; the cumulative ACK that
    /// covers it gives the sample and ends the backoff; a timeout or a fast
    /// retransmission stops the timing (Karn). With timestamps, each ACK that
    /// advances the cumulative ACK gives one from its echo instead.
    PerRtt,
}

/// Which ACKs restart the retransmission timer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RtoRestart {
    /// An ACK that acknowledges new data (RFC 6298 §5.3; Linux, ns-3, ns-2's
    /// Agent/TCP).
    #[default]
    NewData,
    /// Every ACK not below the cumulative ACK, duplicates included (ns-2.35's
    /// Agent/TCP/Linux, tcp/tcp-linux.cc `time_processing`: `renew_timer`).
    EveryAck,
}

/// Linux `TCP_RTO_MAX`.
pub const MAX_RTO: Time = 120 * SEC;
