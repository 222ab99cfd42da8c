//! UDP flows, VoIP calls, web sources and scheduled link changes.

use super::flows::{algorithm, recovery_preset};
use super::start::{Draws, Start};
use super::{bits_per_second, err, seconds};
use crate::config::{check_period, num, ConfigError, FlowConfig, LinkChange, Topology};
use crate::estimate::Origins;
use crate::rng::Component;
use crate::scenario::dist::DistSpec;
use crate::scenario::endpoints::Endpoints;
use crate::scenario::quantity::{Bytes, Seconds};
use crate::scenario::spec::*;
use crate::time::Time;
use crate::udp::{UdpConfig, UdpPattern};
use crate::web::{Sessions, SizeDist, WebConfig, WebModel};

impl ScenarioSpec {
    /// Every UDP flow: the `[[udp]]` entries, then two per `[[voip]]` call; a
    /// drawn start is left at its earliest and its draw added to `draws`.
    pub(super) fn udp_flows(
        &self,
        endpoints: &Endpoints,
        duration: Time,
        o: &mut Origins,
        draws: &mut Draws,
    ) -> Result<Vec<UdpConfig>, ConfigError> {
        let mut udp = Vec::new();
        for (i, u) in self.udp.iter().enumerate() {
            let at = format!("udp[{i}]");
            let (src, dst) = endpoints.resolve(&u.place(), &at)?;
            let rate = bits_per_second(&format!("{at}.rate"), u.rate)?;
            let period = |k: &str, v: Option<Seconds>| match v {
                Some(x) if x.0 > 0.0 => seconds(&format!("{at}.{k}"), x),
                Some(x) => Err(err(
                    format!("{at}.{k}"),
                    format!("{} s", num(x.0)),
                    "a positive period",
                )),
                None => Err(err(
                    format!("{at}.{k}"),
                    "missing",
                    "the on and off periods of an onoff source, e.g. 10s",
                )),
            };
            let pattern = match u.pattern {
                UdpPatternSpec::Cbr => UdpPattern::Cbr { rate_bps: rate },
                UdpPatternSpec::Poisson => UdpPattern::Poisson { rate_bps: rate },
                UdpPatternSpec::Onoff => UdpPattern::OnOff {
                    rate_bps: rate,
                    on: period("on", u.on)?,
                    off: period("off", u.off)?,
                },
            };
            if u.pattern != UdpPatternSpec::Onoff {
                if let Some((k, v)) = [("on", u.on), ("off", u.off)]
                    .into_iter()
                    .find_map(|(k, v)| v.map(|v| (k, v)))
                {
                    return Err(err(
                        format!("{at}.{k}"),
                        format!("{} s", num(v.0)),
                        "on/off periods only with pattern = \"onoff\"",
                    ));
                }
            }
            if !(28..=65_535).contains(&u.packet_size) {
                return Err(err(
                    format!("{at}.packet_size"),
                    u.packet_size,
                    "28 to 65535 bytes",
                ));
            }
            let stop = u
                .stop
                .map(|s| seconds(&format!("{at}.stop"), s))
                .transpose()?;
            let start = Start::new(&u.start, &|k| format!("{at}.{k}"), stop, duration)?;
            if let Some(t) = start.draw(self.seed, Component::UdpStart, udp.len() as u64) {
                draws.udp.push((udp.len(), t));
            }
            udp.push(UdpConfig {
                src,
                dst,
                pattern,
                packet_size: u.packet_size,
                start: start.earliest(),
                stop,
            });
            o.udp_rate.push((format!("{at}.rate"), num(u.rate.0)));
            o.udp_group
                .push(("udp".into(), format!("{} flows", self.udp.len())));
        }
        for (i, v) in self.voip.iter().enumerate() {
            let at = format!("voip[{i}]");
            let (a, b) = endpoints.resolve(&v.place(), &at)?;
            let interval = v.interval.0;
            if !(interval > 0.0 && interval <= 1.0) {
                return Err(err(
                    format!("{at}.interval"),
                    format!("{} s", num(interval)),
                    "a packet interval above 0, at most 1 s",
                ));
            }
            let voice = bits_per_second(&format!("{at}.rate"), v.rate)?;
            // In f64: a huge rate or header must be refused, not wrap a u32.
            let size = (voice as f64 * interval / 8.0).round() + v.header as f64;
            if !(28.0..=65_535.0).contains(&size) {
                return Err(err(format!("{at}.rate"), num(v.rate.0), format!("a rate whose packets every {} s, with {} bytes of headers, fit 28 to 65535 bytes", num(interval), v.header)));
            }
            let size = size as u32;
            let wire_rate = (size as f64 * 8.0 / interval).round() as u64;
            let stop = v
                .stop
                .map(|s| seconds(&format!("{at}.stop"), s))
                .transpose()?;
            let start = Start::new(&v.start, &|k| format!("{at}.{k}"), stop, duration)?;
            // One draw per call, from the stream of its first direction: a call starts once.
            let drawn = start.draw(self.seed, Component::UdpStart, udp.len() as u64);
            for (src, dst) in [(a, b), (b, a)] {
                if let Some(t) = drawn {
                    draws.udp.push((udp.len(), t));
                }
                udp.push(UdpConfig {
                    src,
                    dst,
                    pattern: UdpPattern::Cbr {
                        rate_bps: wire_rate,
                    },
                    packet_size: size,
                    start: start.earliest(),
                    stop,
                });
                o.udp_rate
                    .push((format!("{at}.interval"), format!("{} s", num(interval))));
                o.udp_group
                    .push(("voip".into(), format!("{} calls", self.voip.len())));
            }
        }
        Ok(udp)
    }

    /// Every `[[web]]` source.
    pub(super) fn web_sources(
        &self,
        endpoints: &Endpoints,
        duration: Time,
    ) -> Result<Vec<WebConfig>, ConfigError> {
        let mut web = Vec::new();
        for (i, w) in self.web.iter().enumerate() {
            let at = format!("web[{i}]");
            let (servers, clients) = endpoints.hosts(w, &at)?;
            let cc = algorithm(&w.algorithm, &w.params, &at)?;
            let sessions = w.model == WebModelSpec::Sessions;
            let default_size = if sessions {
                DistSpec::Packmime
            } else {
                DistSpec::Pareto {
                    mean: Bytes(12_000),
                    shape: 1.2,
                }
            };
            let size = size_dist(
                &w.size.unwrap_or(default_size),
                SizeDist::PackmimeResponse,
                &format!("{at}.size"),
            )?;
            let model = if sessions {
                let request_size = size_dist(
                    &w.request_size.unwrap_or(DistSpec::Packmime),
                    SizeDist::PackmimeRequest,
                    &format!("{at}.request_size"),
                )?;
                WebModel::Sessions(Sessions {
                    request_size,
                    persistent: w.persistent.0,
                    server_delay: w.server_delay,
                })
            } else {
                for (field, given) in [
                    ("request_size", w.request_size.is_some()),
                    ("persistent", w.persistent.0 != 0.0),
                    ("server_delay", !w.server_delay),
                ] {
                    if given {
                        return Err(err(
                            format!("{at}.{field}"),
                            "given",
                            "only with model = \"sessions\"",
                        ));
                    }
                }
                WebModel::Transfers
            };
            let start = seconds(&format!("{at}.start"), w.start)?;
            let stop = w
                .stop
                .map(|s| seconds(&format!("{at}.stop"), s))
                .transpose()?;
            check_period(&|k: &str| format!("{at}.{k}"), start, stop, duration)?;
            let tcp = recovery_preset(FlowConfig::bulk(0, 0, cc), w.loss_detection);
            web.push(WebConfig {
                servers,
                clients,
                rate: w.rate,
                size,
                tcp,
                start,
                stop,
                model,
            });
        }
        Ok(web)
    }

    /// The scheduled `[[changes]]`, each naming a link of `topology`.
    pub(super) fn link_changes(
        &self,
        topology: &Topology,
        duration: Time,
    ) -> Result<Vec<LinkChange>, ConfigError> {
        let mut changes = Vec::new();
        for (i, c) in self.changes.iter().enumerate() {
            let at = format!("changes[{i}]");
            let Some(link) = topology.links.iter().position(|l| l.name == c.link) else {
                let names: Vec<&str> = topology
                    .links
                    .iter()
                    .map(|l| l.name.as_str())
                    .take(12)
                    .collect();
                return Err(err(
                    format!("{at}.link"),
                    format!("{:?}", c.link),
                    format!("a link name such as {}", names.join(", ")),
                ));
            };
            let rate_bps = c
                .rate
                .map(|r| bits_per_second(&format!("{at}.rate"), r))
                .transpose()?;
            let delay = c
                .delay
                .map(|d| seconds(&format!("{at}.delay"), d))
                .transpose()?;
            if rate_bps.is_none() && delay.is_none() {
                return Err(err(
                    format!("{at}.rate"),
                    "missing",
                    "a new rate, a new delay, or both",
                ));
            }
            let when = seconds(&format!("{at}.at"), c.at)?;
            check_period(&|_: &str| format!("{at}.at"), when, None, duration)?;
            changes.push(LinkChange {
                at: when,
                link: link as u32,
                rate_bps,
                delay,
            });
        }
        Ok(changes)
    }
}

/// Web sizes as the engine draws them; `packmime` is PackMime's own distribution of this quantity.
fn size_dist(d: &DistSpec<Bytes>, packmime: SizeDist, at: &str) -> Result<SizeDist, ConfigError> {
    Ok(match *d {
        DistSpec::Fixed(Bytes(n)) => SizeDist::Fixed(n),
        DistSpec::Exponential { mean } => SizeDist::Exponential {
            mean: mean.0 as f64,
        },
        DistSpec::Pareto { mean, shape } => SizeDist::Pareto {
            shape,
            mean: mean.0 as f64,
        },
        DistSpec::Packmime => packmime,
        DistSpec::Uniform { .. } => {
            return Err(err(
                format!("{at}.dist"),
                "\"uniform\"",
                "\"fixed\", \"exponential\", \"pareto\" or \"packmime\" for web sizes",
            ))
        }
    })
}
