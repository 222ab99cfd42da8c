//! UDP traffic: constant bit rate, on/off (CTCP Table 1: 10 s on, 10 s off)
//! and Poisson packet arrivals (TCP-Africa's 3 % background); a sink that
//! measures what VoIP users feel: one-way delay, jitter and loss.

use rand_distr::{Distribution, Exp};
use serde::Serialize;

use crate::packet::Packet;
use crate::rng::Rng;
use crate::stats::DelayHistogram;
use crate::time::{secs, Time, SEC};
pub use hscc_model::udp::{UdpConfig, UdpPattern};

/// Sender side: decides when the next datagram leaves.
#[derive(Clone, Debug)]
pub struct UdpSource {
    cfg: UdpConfig,
    rng: Rng,
    /// Datagrams sent.
    pub sent: u64,
    remainder: u64,
}

impl UdpSource {
    /// A source for `cfg` with its own random stream.
    pub fn new(cfg: UdpConfig, rng: Rng) -> UdpSource {
        UdpSource {
            cfg,
            rng,
            sent: 0,
            remainder: 0,
        }
    }

    /// The configuration.
    pub fn cfg(&self) -> &UdpConfig {
        &self.cfg
    }

    /// The datagram to send now, counting it.
    pub fn packet(&mut self, id: u32, now: Time) -> Packet {
        self.sent += 1;
        Packet::udp(id, self.sent - 1, self.cfg.packet_size, now)
    }

    /// Time of the first datagram.
    pub fn first(&self) -> Option<Time> {
        self.admit(self.cfg.start)
    }

    /// Time of the datagram after one sent at `now`.
    pub fn next_after(&mut self, now: Time) -> Option<Time> {
        let bits_ps = self.cfg.packet_size as u64 * 8 * SEC;
        let rate = self.cfg.rate_bps();
        let gap = match self.cfg.pattern {
            UdpPattern::Poisson { .. } => {
                let mean = bits_ps as f64 / rate as f64;
                Exp::new(1.0 / mean)
                    .expect("positive rate")
                    .sample(&mut self.rng)
                    .round() as Time
            }
            _ => {
                // Exact spacing: carry the remainder as the links do.
                let total = bits_ps + self.remainder;
                self.remainder = total % rate;
                total / rate
            }
        };
        // Saturating: a huge gap (a tiny Poisson rate) means "never", not an overflow.
        self.admit(now.saturating_add(gap.max(1)))
    }

    /// Move `t` out of an off period and refuse times at or after the stop.
    fn admit(&self, t: Time) -> Option<Time> {
        let t = match self.cfg.pattern {
            UdpPattern::OnOff { on, off, .. } => {
                let cycle = on.saturating_add(off);
                let into = (t - self.cfg.start) % cycle;
                if into >= on {
                    t.saturating_add(cycle - into)
                } else {
                    t
                }
            }
            _ => t,
        };
        match self.cfg.stop {
            Some(stop) if t >= stop => None,
            _ => Some(t),
        }
    }
}

/// Receiver side.
#[derive(Clone, Debug, Default)]
pub struct UdpSink {
    /// Datagrams received.
    pub received: u64,
    /// Bytes received.
    pub bytes: u64,
    delays: DelayHistogram,
    /// RFC 3550 §6.4.1 interarrival jitter estimate, ps.
    jitter: f64,
    last_transit: Option<Time>,
    /// Datagrams that arrived after one sent later (RFC 4737 §3's reordered
    /// packets: a sequence number below the highest seen).
    pub reordered: u64,
    highest: Option<u64>,
}

impl UdpSink {
    /// A datagram sent at `p.ts` arrived at `now`.
    pub fn on_packet(&mut self, p: &Packet, now: Time) {
        self.received += 1;
        self.bytes += p.size as u64;
        let transit = now - p.ts;
        self.delays.record(transit);
        if let Some(last) = self.last_transit {
            let d = transit.abs_diff(last) as f64;
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.last_transit = Some(transit);
        match self.highest {
            Some(h) if p.seq < h => self.reordered += 1,
            _ => self.highest = Some(p.seq),
        }
    }
}

/// Summary of one UDP flow.
#[derive(Clone, Debug, Serialize)]
pub struct UdpResult {
    /// Flow index among the UDP flows.
    pub id: u32,
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams received.
    pub received: u64,
    /// Datagrams lost (sent, not received, not still in the network).
    pub lost: u64,
    /// lost / (received + lost).
    pub loss_rate: f64,
    /// Received bits per second over [start, end of run or stop].
    pub throughput_bps: f64,
    /// Mean one-way delay, s.
    pub mean_delay_s: f64,
    /// 99th-percentile one-way delay, s.
    pub p99_delay_s: f64,
    /// Largest one-way delay, s.
    pub max_delay_s: f64,
    /// RFC 3550 interarrival jitter at the end of the run, s.
    pub jitter_s: f64,
    /// Datagrams that arrived after one sent later (RFC 4737 reordered packets).
    pub reordered: u64,
}

impl UdpResult {
    /// Summarise a source/sink pair; `in_network` datagrams are still travelling at `now`.
    pub fn new(id: u32, src: &UdpSource, sink: &UdpSink, in_network: u64, now: Time) -> UdpResult {
        let lost = src.sent.saturating_sub(sink.received + in_network);
        let end = src.cfg.stop.unwrap_or(now).min(now);
        let active = secs(end.saturating_sub(src.cfg.start));
        UdpResult {
            id,
            sent: src.sent,
            received: sink.received,
            lost,
            loss_rate: if sink.received + lost > 0 {
                lost as f64 / (sink.received + lost) as f64
            } else {
                0.0
            },
            throughput_bps: if active > 0.0 {
                sink.bytes as f64 * 8.0 / active
            } else {
                0.0
            },
            mean_delay_s: sink.delays.mean_s(),
            p99_delay_s: sink.delays.quantile_s(0.99),
            max_delay_s: sink.delays.max_s(),
            jitter_s: sink.jitter / SEC as f64,
            reordered: sink.reordered,
        }
    }
}
