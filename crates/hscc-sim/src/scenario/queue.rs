//! A link's `queue = { kind = …, … }` as the engine's [`QueueConfig`]: the
//! kind's defaults with the fields given, each checked, and a field that
//! belongs to another kind refused by name.

use super::build::err;
use super::quantity::Seconds;
use super::spec::{QueueKindSpec, QueueSpec};
use crate::config::{num, ConfigError};
use crate::queue::{CodelParams, FqCodelParams, PieParams, QueueConfig, RedParams, StepParams};
use crate::time::{from_secs, Time};

/// Which kinds take each field.
const FIELDS: &[(&str, &[QueueKindSpec])] = {
    use QueueKindSpec::*;
    &[
        ("ecn", &[Red, Codel, FqCodel, Pie]),
        ("target", &[Codel, FqCodel, Pie]),
        ("interval", &[Codel, FqCodel]),
        ("flows", &[FqCodel]),
        ("quantum", &[FqCodel]),
        ("drop_batch", &[FqCodel]),
        ("tupdate", &[Pie]),
        ("alpha", &[Pie]),
        ("beta", &[Pie]),
        ("min_th", &[Red]),
        ("max_th", &[Red]),
        ("max_p", &[Red]),
        ("w_q", &[Red]),
        ("gentle", &[Red]),
        ("harddrop", &[Red]),
        ("mean_pktsize", &[Red]),
        ("k_packets", &[Step]),
        ("k_bytes", &[Step]),
    ]
};

fn given(q: &QueueSpec) -> [(&'static str, bool); 18] {
    [
        ("ecn", q.ecn.is_some()),
        ("target", q.target.is_some()),
        ("interval", q.interval.is_some()),
        ("flows", q.flows.is_some()),
        ("quantum", q.quantum.is_some()),
        ("drop_batch", q.drop_batch.is_some()),
        ("tupdate", q.tupdate.is_some()),
        ("alpha", q.alpha.is_some()),
        ("beta", q.beta.is_some()),
        ("min_th", q.min_th.is_some()),
        ("max_th", q.max_th.is_some()),
        ("max_p", q.max_p.is_some()),
        ("w_q", q.w_q.is_some()),
        ("gentle", q.gentle.is_some()),
        ("harddrop", q.harddrop.is_some()),
        ("mean_pktsize", q.mean_pktsize.is_some()),
        ("k_packets", q.k_packets.is_some()),
        ("k_bytes", q.k_bytes.is_some()),
    ]
}

fn kind_name(k: QueueKindSpec) -> &'static str {
    match k {
        QueueKindSpec::Droptail => "droptail",
        QueueKindSpec::Red => "red",
        QueueKindSpec::Codel => "codel",
        QueueKindSpec::FqCodel => "fq_codel",
        QueueKindSpec::Pie => "pie",
        QueueKindSpec::Step => "step",
    }
}

fn time(at: &str, name: &str, v: Option<Seconds>, default: Time) -> Result<Time, ConfigError> {
    match v {
        None => Ok(default),
        Some(Seconds(s)) if (0.0..=3600.0).contains(&s) => Ok(from_secs(s)),
        Some(Seconds(s)) => Err(err(
            format!("{at}.{name}"),
            format!("{} s", num(s)),
            "a time from 0 to one hour",
        )),
    }
}

fn small(at: &str, name: &str, v: Option<u64>, default: u32) -> Result<u32, ConfigError> {
    v.map_or(Ok(default), |n| {
        u32::try_from(n).map_err(|_| err(format!("{at}.{name}"), n, "at most 4294967295"))
    })
}

/// The queue discipline `q` of the link at `at` (e.g. "topology.bottleneck"); errors name `at.queue.FIELD`.
pub(super) fn queue_config(q: &QueueSpec, at: &str) -> Result<QueueConfig, ConfigError> {
    let at = format!("{at}.queue");
    if let Some((name, _)) = given(q).into_iter().find(|&(name, set)| {
        set && !FIELDS
            .iter()
            .any(|(f, kinds)| *f == name && kinds.contains(&q.kind))
    }) {
        let kinds: Vec<&str> = FIELDS
            .iter()
            .find(|(f, _)| *f == name)
            .map(|(_, k)| k.iter().map(|&k| kind_name(k)).collect())
            .unwrap_or_default();
        return Err(err(
            format!("{at}.{name}"),
            format!("given for kind = {:?}", kind_name(q.kind)),
            format!("only with kind = {}", kinds.join(" or ")),
        ));
    }
    let cfg = match q.kind {
        QueueKindSpec::Droptail => QueueConfig::DropTail,
        QueueKindSpec::Red => {
            let d = RedParams::default();
            QueueConfig::Red(RedParams {
                min_th: q.min_th.unwrap_or(d.min_th),
                max_th: q.max_th.unwrap_or(d.max_th),
                max_p: q.max_p.map_or(d.max_p, |p| p.0),
                w_q: q.w_q.unwrap_or(d.w_q),
                gentle: q.gentle.unwrap_or(d.gentle),
                ecn: q.ecn.unwrap_or(d.ecn),
                harddrop: q.harddrop.unwrap_or(d.harddrop),
                mean_pktsize: small(
                    &at,
                    "mean_pktsize",
                    q.mean_pktsize.map(|b| b.0),
                    d.mean_pktsize,
                )?,
            })
        }
        QueueKindSpec::Codel => {
            let d = CodelParams::default();
            QueueConfig::Codel(CodelParams {
                target: time(&at, "target", q.target, d.target)?,
                interval: time(&at, "interval", q.interval, d.interval)?,
                ecn: q.ecn.unwrap_or(d.ecn),
            })
        }
        QueueKindSpec::FqCodel => {
            let d = FqCodelParams::default();
            QueueConfig::FqCodel(FqCodelParams {
                target: time(&at, "target", q.target, d.target)?,
                interval: time(&at, "interval", q.interval, d.interval)?,
                flows: q.flows.unwrap_or(d.flows),
                quantum: small(&at, "quantum", q.quantum.map(|b| b.0), d.quantum)?,
                ecn: q.ecn.unwrap_or(d.ecn),
                drop_batch: q.drop_batch.unwrap_or(d.drop_batch),
            })
        }
        QueueKindSpec::Pie => {
            let d = PieParams::default();
            QueueConfig::Pie(PieParams {
                target: time(&at, "target", q.target, d.target)?,
                tupdate: time(&at, "tupdate", q.tupdate, d.tupdate)?,
                alpha: q.alpha.unwrap_or(d.alpha),
                beta: q.beta.unwrap_or(d.beta),
                ecn: q.ecn.unwrap_or(d.ecn),
            })
        }
        QueueKindSpec::Step => QueueConfig::Step(StepParams {
            k_packets: q.k_packets,
            k_bytes: q.k_bytes.map(|b| b.0),
        }),
    };
    cfg.validate(&at)?;
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::MS;

    fn parse(json: &str) -> QueueSpec {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn defaults_come_from_the_kind_and_given_fields_override_them() {
        assert_eq!(
            queue_config(&parse("{}"), "l").unwrap(),
            QueueConfig::DropTail
        );
        let c = queue_config(&parse(r#"{"kind": "codel", "target": "2ms"}"#), "l").unwrap();
        assert_eq!(
            c,
            QueueConfig::Codel(CodelParams {
                target: 2 * MS,
                interval: 100 * MS,
                ecn: false
            })
        );
        let QueueConfig::FqCodel(f) = queue_config(&parse(r#"{"kind": "fq_codel"}"#), "l").unwrap()
        else {
            panic!()
        };
        assert!(f.ecn && f.flows == 1024 && f.quantum == 1514);
        let QueueConfig::Red(r) = queue_config(
            &parse(r#"{"kind": "red", "max_p": "2%", "ecn": true}"#),
            "l",
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(
            (r.max_p, r.ecn, r.min_th, r.gentle),
            (0.02, true, 5.0, true)
        );
    }

    #[test]
    fn errors_name_the_field_and_what_is_allowed() {
        let e = queue_config(
            &parse(r#"{"kind": "codel", "min_th": 3}"#),
            "topology.bottleneck",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            r#"topology.bottleneck.queue.min_th: given for kind = "codel" is not allowed (only with kind = red)"#
        );
        let e = queue_config(&parse(r#"{"kind": "codel", "target": "200ms"}"#), "l")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("l.queue.target: 0.2 s") && e.contains("below interval"),
            "{e}"
        );
        let e = queue_config(&parse(r#"{"kind": "pie", "alpha": 0.1}"#), "l")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("l.queue.alpha: 0.1") && e.contains("1/16"),
            "{e}"
        );
        let e = queue_config(&parse(r#"{"kind": "red", "min_th": 20}"#), "l")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("l.queue.max_th: 15") && e.contains("above min_th"),
            "{e}"
        );
        let e = queue_config(&parse(r#"{"kind": "fq_codel", "flows": 0}"#), "l")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("l.queue.flows: 0"), "{e}");
        assert!(serde_json::from_str::<QueueSpec>(r#"{"kind": "sfq"}"#).is_err());
    }

    #[test]
    fn step_takes_one_threshold_in_range() {
        let c = queue_config(&parse(r#"{"kind": "step", "k_packets": 20}"#), "l").unwrap();
        let want = StepParams {
            k_packets: Some(20),
            k_bytes: None,
        };
        assert_eq!(c, QueueConfig::Step(want));
        let c = queue_config(&parse(r#"{"kind": "step", "k_bytes": "30kB"}"#), "l").unwrap();
        assert!(matches!(
            c,
            QueueConfig::Step(StepParams {
                k_bytes: Some(30_000),
                ..
            })
        ));
        let e = |json: &str| queue_config(&parse(json), "l").unwrap_err().to_string();
        assert_eq!(
            e(r#"{"kind": "step", "k_packets": 0}"#),
            "l.queue.k_packets: 0 is not allowed (1 to 10^8 packets)"
        );
        assert!(e(r#"{"kind": "step"}"#).starts_with("l.queue.k_packets: missing"));
        assert!(e(r#"{"kind": "step", "k_packets": 5, "k_bytes": 9000}"#).contains("not both"));
        assert!(e(r#"{"kind": "red", "k_packets": 5}"#).contains("only with kind = step"));
        assert!(e(r#"{"kind": "step", "ecn": true}"#).contains("l.queue.ecn"));
    }
}
