//! Queue disciplines as configured: DropTail or an AQM (RED, CoDel,
//! FQ-CoDel, PIE, step marking) with its parameters, their defaults and their ranges. The
//! disciplines themselves are `hscc_sim::queue`.

use serde::Serialize;

use crate::error::ConfigError;
use crate::time::{secs, Time, MS, SEC, US};

/// A link's queue discipline and its parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum QueueConfig {
    /// First in, first out; the arriving packet is dropped when the buffer is full.
    #[default]
    DropTail,
    /// Random Early Detection (Floyd & Jacobson 1993), gentle by default.
    Red(RedParams),
    /// Controlled Delay (RFC 8289).
    Codel(CodelParams),
    /// Flow-queue CoDel (RFC 8290).
    FqCodel(FqCodelParams),
    /// Proportional Integral controller Enhanced (RFC 8033).
    Pie(PieParams),
    /// Step marking at an instantaneous threshold K (DCTCP, SIGCOMM 2010 §3.1; RFC 8257 §3.1).
    Step(StepParams),
}

impl QueueConfig {
    /// Whether the link needs the dequeue-time path (anything but DropTail).
    pub fn is_aqm(&self) -> bool {
        !matches!(self, QueueConfig::DropTail)
    }

    /// Check the parameters; `at` names the link's queue in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        match self {
            QueueConfig::DropTail => Ok(()),
            QueueConfig::Red(p) => p.validate(at),
            QueueConfig::Codel(p) => p.validate(at),
            QueueConfig::FqCodel(p) => p.validate(at),
            QueueConfig::Pie(p) => p.validate(at),
            QueueConfig::Step(p) => p.validate(at),
        }
    }
}

/// `value` checked against `ok`, as a [`ConfigError`] on the field `at.name`.
pub fn check(
    ok: bool,
    at: &str,
    name: &str,
    value: impl std::fmt::Display,
    allowed: &str,
) -> Result<(), ConfigError> {
    if ok {
        return Ok(());
    }
    Err(ConfigError {
        field: format!("{at}.{name}"),
        value: value.to_string(),
        allowed: allowed.into(),
    })
}

// ---- red
/// RED's parameters. Linux's `tc red` has no defaults (every value is
/// required); these are Floyd's recommendations, which are ns-2's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RedParams {
    /// Lower threshold of the average queue, packets. Default 5 (Floyd, "RED:
    /// Discussions of Setting Parameters", 1997: min_th = 5 packets; ns-2 `thresh_`).
    pub min_th: f64,
    /// Upper threshold, packets. Default 15: three times min_th (Floyd 1997:
    /// "max_th … at least twice min_th", 3× as the rule of thumb; ns-2 `maxthresh_`).
    pub max_th: f64,
    /// Drop probability at max_th. Default 0.1 (Floyd 1997; ns-2 `linterm_` = 10 = 1/max_p).
    pub max_p: f64,
    /// Weight of the average. Default 0.002 (Floyd 1997: "w_q = 0.002"; ns-2 `q_weight_`).
    pub w_q: f64,
    /// Gentle mode: p_b rises from max_p to 1 between max_th and 2·max_th
    /// instead of jumping to 1. Default on (Floyd 2000; ns-2 `gentle_` true).
    pub gentle: bool,
    /// CE-mark ECN-capable packets instead of dropping them in the random
    /// region. Default off (ns-2 `setbit_` false; Linux needs the `ecn` flag).
    pub ecn: bool,
    /// Above the random region, drop even ECN-capable packets. Default on:
    /// ns-2 drops there (`DTYPE_FORCED`), as RFC 3168 §7 expects of a queue
    /// past its thresholds; Linux marks there unless its `harddrop` flag is set.
    pub harddrop: bool,
    /// Typical packet size for the idle-time decay, bytes. Default 500
    /// (ns-2 `mean_pktsize_`).
    pub mean_pktsize: u32,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            ecn: false,
            harddrop: true,
            mean_pktsize: 500,
        }
    }
}

impl RedParams {
    /// Check thresholds, probability and weight; `at` names the queue in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check(
            self.min_th.is_finite() && self.min_th >= 0.0,
            at,
            "min_th",
            self.min_th,
            "0 packets or more",
        )?;
        check(
            self.max_th.is_finite() && self.max_th > self.min_th && self.max_th <= 1e8,
            at,
            "max_th",
            self.max_th,
            "above min_th, at most 10^8 packets",
        )?;
        check(
            self.max_p > 0.0 && self.max_p <= 1.0,
            at,
            "max_p",
            self.max_p,
            "a probability above 0, at most 1",
        )?;
        check(
            self.w_q > 0.0 && self.w_q <= 1.0,
            at,
            "w_q",
            self.w_q,
            "a weight above 0, at most 1",
        )?;
        check(
            (1..=65_535).contains(&self.mean_pktsize),
            at,
            "mean_pktsize",
            self.mean_pktsize,
            "1 to 65535 bytes",
        )
    }
}

// ---- codel
/// CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodelParams {
    /// Acceptable standing queue delay, ps. Default 5 ms (RFC 8289 §4.4;
    /// Linux `codel_params_init`: `MS2TIME(5)`).
    pub target: Time,
    /// Time the sojourn must stay above `target` before dropping, and the
    /// base of the control law, ps. Default 100 ms (RFC 8289 §4.3; Linux
    /// `codel_params_init`: `MS2TIME(100)`).
    pub interval: Time,
    /// CE-mark ECN-capable packets instead of dropping them. Default off
    /// (Linux `codel_params_init`: `ecn = false`).
    pub ecn: bool,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            target: 5 * MS,
            interval: 100 * MS,
            ecn: false,
        }
    }
}

impl CodelParams {
    /// Check the times; `at` names the queue in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check_times(self.target, self.interval, at)
    }
}

/// Target and interval of CoDel (and FQ-CoDel): 1 µs to 1 hour, target below interval.
pub fn check_times(target: Time, interval: Time, at: &str) -> Result<(), ConfigError> {
    check(
        (US..=3600 * SEC).contains(&interval),
        at,
        "interval",
        format!("{} s", secs(interval)),
        "1 us to one hour",
    )?;
    check(
        target >= US && target < interval,
        at,
        "target",
        format!("{} s", secs(target)),
        "at least 1 us and below interval",
    )
}

// ---- fq_codel
/// FQ-CoDel's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FqCodelParams {
    /// CoDel's target per flow, ps. Default 5 ms (RFC 8290 §5.2.3; Linux `fq_codel_init`).
    pub target: Time,
    /// CoDel's interval per flow, ps. Default 100 ms (RFC 8290 §5.2.3; Linux).
    pub interval: Time,
    /// Number of flow queues. Default 1024 (RFC 8290 §5.2.2; Linux `flows_cnt`).
    pub flows: u32,
    /// Bytes a flow may send per round, ps. Default 1514: one Ethernet frame
    /// (RFC 8290 §5.2.1 "the MTU"; Linux `psched_mtu(qdisc_dev(sch))`).
    pub quantum: u32,
    /// CE-mark ECN-capable packets instead of dropping them. Default on
    /// (RFC 8290 §5.2.7; Linux `fq_codel_init`: `cparams.ecn = true`).
    pub ecn: bool,
    /// Most packets dropped from the fattest flow per overflow. Default 64
    /// (Linux `drop_batch_size`).
    pub drop_batch: u32,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            target: 5 * MS,
            interval: 100 * MS,
            flows: 1024,
            quantum: 1514,
            ecn: true,
            drop_batch: 64,
        }
    }
}

impl FqCodelParams {
    /// Check the values; `at` names the queue in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check_times(self.target, self.interval, at)?;
        check(
            (1..=65_536).contains(&self.flows),
            at,
            "flows",
            self.flows,
            "1 to 65536 flow queues (Linux's limit)",
        )?;
        check(
            (64..=1_048_576).contains(&self.quantum),
            at,
            "quantum",
            self.quantum,
            "64 bytes to 1 MiB",
        )?;
        check(
            (1..=65_536).contains(&self.drop_batch),
            at,
            "drop_batch",
            self.drop_batch,
            "1 to 65536 packets",
        )
    }
}

// ---- pie
/// PIE's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PieParams {
    /// Target queue delay, ps. Default 15 ms (RFC 8033 §4.2 QDELAY_REF; Linux `pie_params_init`).
    pub target: Time,
    /// Interval of the probability updates, ps. Default 15 ms (RFC 8033 §4.2 T_UPDATE; Linux).
    pub tupdate: Time,
    /// Gain on the delay's distance from target, 1/s, a multiple of 1/16 from
    /// 0 to 2. Default 0.125 (RFC 8033 §4.2; Linux `alpha = 2` sixteenths).
    pub alpha: f64,
    /// Gain on the delay's change, 1/s, a multiple of 1/16 from 0 to 2.
    /// Default 1.25 (RFC 8033 §4.2; Linux `beta = 20` sixteenths).
    pub beta: f64,
    /// CE-mark ECN-capable packets while the probability is at most 10 %.
    /// Default off (Linux `pie_params_init`: `ecn = false`).
    pub ecn: bool,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target: 15 * MS,
            tupdate: 15 * MS,
            alpha: 0.125,
            beta: 1.25,
            ecn: false,
        }
    }
}

impl PieParams {
    /// Check times and gains; `at` names the queue in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check(
            (US..=SEC).contains(&self.target),
            at,
            "target",
            format!("{} s", secs(self.target)),
            "1 us to 1 s",
        )?;
        check(
            (MS..=SEC).contains(&self.tupdate),
            at,
            "tupdate",
            format!("{} s", secs(self.tupdate)),
            "1 ms to 1 s",
        )?;
        const GAIN: &str = "a multiple of 1/16 from 0 to 2 (Linux keeps the gains in sixteenths)";
        check(
            sixteenths(self.alpha).is_some(),
            at,
            "alpha",
            self.alpha,
            GAIN,
        )?;
        check(sixteenths(self.beta).is_some(), at, "beta", self.beta, GAIN)
    }
}

/// A gain in Linux's sixteenths, if it is a multiple of 1/16 in [0, 2].
pub fn sixteenths(g: f64) -> Option<u64> {
    let x = g * 16.0;
    (x.is_finite() && (0.0..=32.0).contains(&x) && x.fract() == 0.0).then_some(x as u64)
}

// ---- step
/// The step-marking queue's threshold: exactly one of the two is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StepParams {
    /// Mark an arriving ECN-capable packet when at least this many packets wait ahead of it.
    pub k_packets: Option<u64>,
    /// Mark an arriving ECN-capable packet when at least this many bytes (frames) wait ahead of it.
    pub k_bytes: Option<u64>,
}

impl StepParams {
    /// Check that exactly one threshold is set, in range; `at` names the queue in errors.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        match (self.k_packets, self.k_bytes) {
            (Some(k), None) => check(
                (1..=100_000_000).contains(&k),
                at,
                "k_packets",
                k,
                "1 to 10^8 packets",
            ),
            (None, Some(k)) => check(
                (1..=1_000_000_000_000).contains(&k),
                at,
                "k_bytes",
                format!("{k}B"),
                "1 byte to 1 TB",
            ),
            (Some(k), Some(_)) => check(
                false,
                at,
                "k_packets",
                k,
                "either k_packets or k_bytes, not both",
            ),
            (None, None) => check(
                false,
                at,
                "k_packets",
                "missing",
                "a threshold: k_packets (packets) or k_bytes (bytes)",
            ),
        }
    }
}
