//! One direction of a link as configured: rate, delay, buffer, random loss,
//! jitter, framing, service tick and queue discipline, with their ranges.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{check, ConfigError};
use crate::limits::MAX_QUEUE_PACKETS;
use crate::queue::QueueConfig;
use crate::time::{secs, Time, SEC, US};

/// A DropTail queue limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    /// At most this many packets waiting.
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Where a link's random loss acts (docs/links-and-web.md §1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossPoint {
    /// Drawn when a packet is offered, before the queue: a lost packet takes
    /// no queue space and no transmission time (Dummynet's `plr`, ns-2's
    /// `ErrorModel` in front of a link's queue).
    #[default]
    BeforeQueue,
    /// Drawn when a packet reaches the far end, after the queue: a lost packet
    /// has waited in the queue and used the link's transmission time (ns-3's
    /// `PointToPointNetDevice` receive error model).
    AfterQueue,
}

/// Largest link-layer framing overhead, bytes.
pub const MAX_FRAMING: u32 = 65_535;

/// Shortest and longest service tick of a link (Dummynet's 1/HZ), ps.
pub const MIN_TICK: Time = US;

/// Longest service tick, ps.
pub const MAX_TICK: Time = SEC;

/// One direction of a link.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkConfig {
    /// Rate, bit/s.
    pub rate_bps: u64,
    /// Propagation delay, ps.
    pub delay: Time,
    /// Queue limit.
    pub buffer: Buffer,
    /// Bernoulli loss probability per packet, in [0, 1].
    pub loss: f64,
    /// Standard deviation of Gaussian delay jitter, ps (packet order is kept
    /// unless `jitter_reorders`).
    pub jitter: Time,
    /// Where random loss acts: before the queue (default) or at the far end.
    pub loss_point: LossPoint,
    /// Link-layer bytes added to every packet for serialization and byte
    /// buffers (PPP 2, Ethernet 38 with preamble and gap); 0 by default.
    pub framing: u32,
    /// Draw each packet's propagation delay independently (delay + N(0, jitter²),
    /// truncated at 0), so packets may overtake each other; off by default.
    pub jitter_reorders: bool,
    /// Serve the queue in clock ticks of this length, as Dummynet does at
    /// HZ = 1/tick; 0 (default) serves it continuously.
    pub tick: Time,
    /// Queue discipline: DropTail (default) or an AQM ([`QueueConfig`]); the
    /// buffer is its hard limit. An AQM link cannot be tick-served or reorder.
    pub queue: QueueConfig,
}

impl LinkConfig {
    /// A lossless, jitter-free link.
    pub fn new(rate_bps: u64, delay: Time, buffer: Buffer) -> LinkConfig {
        LinkConfig {
            rate_bps,
            delay,
            buffer,
            loss: 0.0,
            jitter: 0,
            loss_point: LossPoint::BeforeQueue,
            framing: 0,
            jitter_reorders: false,
            tick: 0,
            queue: QueueConfig::DropTail,
        }
    }

    /// The same link with random loss `p`.
    pub fn with_loss(mut self, p: f64) -> LinkConfig {
        self.loss = p;
        self
    }

    /// The same link with queue discipline `q`.
    pub fn with_queue(mut self, q: QueueConfig) -> LinkConfig {
        self.queue = q;
        self
    }
}

/// A tick-served link counts its delay in whole ticks, as Dummynet does
/// (`p->delay = delay_ms * hz / 1000`): refuse a delay it would truncate.
pub(crate) fn check_whole_ticks(
    delay: Time,
    tick: Time,
    field: &dyn Fn() -> String,
) -> Result<(), ConfigError> {
    let allowed = format!("a whole number of ticks ({} s each): a tick-served link counts its delay in ticks, as Dummynet does", secs(tick));
    check(
        delay.is_multiple_of(tick),
        field,
        format!("{} s", secs(delay)),
        &allowed,
    )
}

impl LinkConfig {
    /// Check rate, loss and buffer; `at` names the link in errors. A topology of 10^5
    /// hosts has 4·10^5 links: nothing is formatted for a value that passes.
    pub fn validate(&self, at: &str) -> Result<(), ConfigError> {
        check(
            self.rate_bps > 0 && self.rate_bps <= 10_000_000_000_000,
            || format!("{at}.rate"),
            self.rate_bps,
            "1 bit/s to 10 Tbit/s",
        )?;
        check(
            (0.0..=1.0).contains(&self.loss),
            || format!("{at}.loss"),
            self.loss,
            "a probability from 0 to 1",
        )?;
        check(
            self.delay <= 3600 * SEC,
            || format!("{at}.delay"),
            format_args!("{} s", secs(self.delay)),
            "at most one hour",
        )?;
        check(
            self.jitter <= 3600 * SEC,
            || format!("{at}.jitter"),
            format_args!("{} s", secs(self.jitter)),
            "at most one hour",
        )?;
        check(
            self.framing <= MAX_FRAMING,
            || format!("{at}.framing"),
            format_args!("{} bytes", self.framing),
            "0 to 65535 bytes",
        )?;
        if self.tick != 0 {
            check(
                (MIN_TICK..=MAX_TICK).contains(&self.tick),
                || format!("{at}.tick"),
                format!("{} s", secs(self.tick)),
                "0 (continuous) or 1 us to 1 s",
            )?;
            check_whole_ticks(self.delay, self.tick, &|| format!("{at}.delay"))?;
        }
        match self.buffer {
            Buffer::Packets(n) => check(
                (1..=MAX_QUEUE_PACKETS).contains(&n),
                || format!("{at}.buffer"),
                format_args!("{n} packets"),
                "1 to 10^8 packets",
            )?,
            Buffer::Bytes(n) => check(
                n >= 1,
                || format!("{at}.buffer"),
                format_args!("{n} bytes"),
                "at least 1 byte",
            )?,
        }
        if self.queue.is_aqm() {
            let aqm = "0 with a queue discipline other than droptail (an AQM decides at dequeue; a tick-served or reordering link fixes departures at enqueue)";
            check(
                self.tick == 0,
                || format!("{at}.tick"),
                format!("{} s", secs(self.tick)),
                aqm,
            )?;
            check(
                !self.jitter_reorders,
                || format!("{at}.jitter_reorders"),
                "true",
                &aqm.replace("0 with", "false with"),
            )?;
        }
        // Only a queue discipline has parameters to check (and a name to format).
        if self.queue.is_aqm() {
            self.queue.validate(&format!("{at}.queue"))?;
        }
        Ok(())
    }
}
