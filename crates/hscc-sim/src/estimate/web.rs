//! Web sources: their arrivals and session steps (events), and the transfers
//! in progress by Little's law (arrival rate × time in the system: slow-start
//! rounds + size / fair share); when the offered load exceeds the bottleneck
//! the excess accumulates for the whole run. Plus the response-time
//! histograms of the size bins the distribution reaches.

use std::mem::size_of;

use crate::config::SimConfig;
use crate::limits::MAX_WEB_SLOTS;
use crate::sim::Flow;
use crate::time::secs;
use crate::web::{SizeDist, WebConfig, WebSource};

use super::sizes::{GROW, SEGMENT, SESSION, WEB_HISTOGRAM};
use super::traffic::{active_s, delay, rate, Traffic};
use super::Tally;

/// Charge each web source's arrivals and session steps.
pub(super) fn charge_arrivals(cfg: &SimConfig, traffic: &Traffic, tally: &mut Tally) {
    for (i, w) in cfg.web.iter().enumerate() {
        let active = active_s(w.start, w.stop, cfg.duration);
        let shape = WebShape::of(w);
        // Arrivals and, for sessions, a step per request and per response.
        let arrivals = w.rate * active * shape.events_per_arrival;
        tally.evs.web += (2.0 * arrivals) as u64;
        tally.blame.ev(&traffic.web_rate[i], 2.0 * arrivals);
    }
}

/// Charge each web source's transfers and sessions in progress and its
/// histograms; the transfers in progress of all sources, a count.
pub(super) fn charge_transfers(cfg: &SimConfig, traffic: &Traffic, tally: &mut Tally) -> f64 {
    let t = &cfg.topology;
    let mut slots_total = 0.0;
    for (i, w) in cfg.web.iter().enumerate() {
        let who = &traffic.web_rate[i];
        let active = active_s(w.start, w.stop, cfg.duration);
        let mean = w.size.mean();
        let mss = w.tcp.mss as f64;
        let paths = &traffic.web_paths[i];
        let (mut rtt, mut capacity) = (0.0, f64::INFINITY);
        for p in paths {
            rtt += (2.0 * p.iter().map(|&l| delay(t, l)).sum::<f64>()
                + 2.0 * secs(w.tcp.access_delay.mean()))
                / paths.len() as f64;
            for &l in p {
                capacity = capacity.min(rate(t, l) / (traffic.tcp_n[l as usize] + 1.0));
            }
        }
        let shape = WebShape::of(w);
        let rounds = 2.0 + (1.0 + mean / (w.tcp.init_cwnd as f64 * mss)).log2();
        // Sessions: a request (about one round) and the server delay before each response.
        let sojourn = rtt * rounds + mean * 8.0 / capacity.max(1.0) + shape.per_object_extra_s(rtt);
        let objects = w.rate * shape.objects;
        let arrivals = objects * active;
        let served = capacity / (8.0 * mean);
        let backlog = (objects - served).max(0.0) * active;
        // Persistent sessions also hold their connection pair while they think.
        let held = 2.0 * w.rate * shape.connection_think_s;
        let slots = (objects * sojourn + backlog + held)
            .min(arrivals + held)
            .min(MAX_WEB_SLOTS as f64)
            .max(1.0);
        slots_total += slots;
        let window = (mean / mss).clamp(w.tcp.init_cwnd as f64, 1e6);
        let bins = size_bins(&w.size, arrivals);
        // Sessions waiting between objects (Little's law over their think times).
        let sessions = (w.rate * shape.session_s)
            .min(w.rate * active)
            .min(MAX_WEB_SLOTS as f64);
        let bytes = slots * (size_of::<Flow>() as f64 + window * SEGMENT * GROW) * GROW
            + bins * WEB_HISTOGRAM
            + size_of::<WebSource>() as f64
            + sessions * SESSION * GROW
            + if shape.request_bytes > 0.0 {
                WEB_HISTOGRAM
            } else {
                0.0
            };
        tally.mem.web += bytes as u64;
        tally.blame.mem(who, bytes);
    }
    slots_total
}

/// What one arrival of a web source brings, on average.
pub(super) struct WebShape {
    /// Objects (responses) per arrival, a count.
    pub objects: f64,
    /// Response bytes per arrival.
    pub response_bytes: f64,
    /// Request bytes per arrival.
    pub request_bytes: f64,
    /// Web-source events per arrival (arrival, request and response steps), a count.
    pub events_per_arrival: f64,
    /// Mean server delay (sessions), s.
    pub server_delay_s: f64,
    /// Mean session duration spent in think times, s.
    pub session_s: f64,
    /// Of which with a persistent connection open (between its objects), s.
    pub connection_think_s: f64,
}

impl WebShape {
    /// The shape of `w`'s arrivals.
    pub fn of(w: &WebConfig) -> WebShape {
        use crate::web::{packmime, WebModel};
        match &w.model {
            WebModel::Transfers => WebShape {
                objects: 1.0,
                response_bytes: w.size.mean(),
                request_bytes: 0.0,
                events_per_arrival: 1.0,
                server_delay_s: 0.0,
                session_s: 0.0,
                connection_think_s: 0.0,
            },
            WebModel::Sessions(m) => {
                let (objects_persistent, pages) = packmime::mean_objects_pages();
                let objects = 1.0 - m.persistent + m.persistent * objects_persistent;
                // Think times of a persistent session: between its pages, and between the objects of a page.
                let think = m.persistent
                    * ((pages - 1.0) * packmime::mean_gap(packmime::BETWEEN_PAGES)
                        + (objects_persistent - pages) * packmime::mean_gap(packmime::WITHIN_PAGE));
                let server_delay_s = if m.server_delay {
                    SERVER_DELAY_MEAN_S
                } else {
                    0.0
                };
                WebShape {
                    objects,
                    response_bytes: objects * w.size.mean(),
                    request_bytes: objects * m.request_size.mean(),
                    events_per_arrival: 1.0 + 2.0 * objects,
                    server_delay_s,
                    session_s: think + objects * server_delay_s,
                    connection_think_s: think + m.persistent * objects_persistent * server_delay_s,
                }
            }
        }
    }

    /// Time an object spends beyond its response's transfer: its request
    /// (about one round trip) and the server delay, s.
    fn per_object_extra_s(&self, rtt: f64) -> f64 {
        if self.request_bytes > 0.0 {
            rtt + self.server_delay_s
        } else {
            0.0
        }
    }
}

/// Mean of PackMime's server delay, E[1/max(W, 10)] with W ~ Weibull(0.63, 305),
/// s (numerical integration, checked in the tests).
const SERVER_DELAY_MEAN_S: f64 = 0.02195;

/// Size bins (powers of two) that `n` draws of `d` are expected to reach, a count.
fn size_bins(d: &SizeDist, n: f64) -> f64 {
    let n = n.max(1.0);
    let (lo, hi) = match *d {
        SizeDist::Fixed(b) => (b as f64, b as f64),
        // Cache validations of 5 bytes up to the download tail (α ≈ 1.23 from 2^15.6 at p = 1 − 2^−5.5).
        SizeDist::PackmimeResponse => (4.0, 50_000.0 * n.powf(1.0 / 1.23)),
        SizeDist::PackmimeRequest => (50.0, 1_000.0 * n.powf(1.0 / 1.5)),
        SizeDist::Exponential { mean } => ((mean / n).max(1.0), mean * n.ln().max(1.0)),
        SizeDist::Pareto { shape, mean } => {
            let scale = mean * (shape - 1.0) / shape;
            (scale.max(1.0), scale * n.powf(1.0 / shape))
        }
    };
    (hi.max(1.0).log2().floor() - lo.max(1.0).log2().floor() + 1.0).clamp(1.0, 40.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_delay_mean_is_that_of_packmimes_weibull() {
        // E[1/max(W, 10)] = ∫ min(1/w, 1/10) f(w) dw for W ~ Weibull(shape 0.63, scale 305).
        let (k, lambda) = (0.63f64, 305.0f64);
        let pdf = |w: f64| k / lambda * (w / lambda).powf(k - 1.0) * (-(w / lambda).powf(k)).exp();
        let below = 1.0 - (-(10.0 / lambda).powf(k)).exp();
        let (n, top) = (2_000_000, 100_000.0);
        let above: f64 = (0..n)
            .map(|i| 10.0 + (i as f64 + 0.5) * (top - 10.0) / n as f64)
            .map(|w| pdf(w) / w * (top - 10.0) / n as f64)
            .sum();
        let mean = below / 10.0 + above;
        assert!((mean - SERVER_DELAY_MEAN_S).abs() < 2e-4, "{mean}");
    }

    #[test]
    fn pareto_sizes_reach_more_bins_with_more_draws() {
        let d = SizeDist::Pareto {
            shape: 1.2,
            mean: 12_000.0,
        };
        assert!(size_bins(&d, 10.0) < size_bins(&d, 1e6));
        assert_eq!(size_bins(&SizeDist::Fixed(1000), 1e9), 1.0);
    }
}
