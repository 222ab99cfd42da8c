//! TCP settings that are configuration, not state: the RTO estimator and its cap.

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

/// Linux `TCP_RTO_MAX`.
pub const MAX_RTO: Time = 120 * SEC;
