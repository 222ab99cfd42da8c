//! TCP settings that are configuration, not state: the RTO estimator, which
//! segments it samples, and its cap.

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
    /// Every ACK that acknowledges or SACKs data never retransmitted, else
    /// its echoed timestamp (Linux `tcp_ack_update_rtt`, ns-3).
    #[default]
    Ack,
    /// ns-2.35's Agent/TCP (tcp/tcp.cc): one segment timed per round trip,
    /// the first new one sent while none is timed; the cumulative ACK that
    /// covers it gives the sample and ends the backoff; a timeout or a fast
    /// retransmission stops the timing (Karn). With timestamps, each ACK that
    /// advances the cumulative ACK gives one from its echo instead.
    PerRtt,
}

/// Linux `TCP_RTO_MAX`.
pub const MAX_RTO: Time = 120 * SEC;
