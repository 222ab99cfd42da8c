//! Algorithms hscc does not build in: a user's program, loaded when a run
//! starts (crates/hscc-program builds and loads `.bpf.c` files).
//!
//! An [`ExternalProgram`] is the loaded code and its parameters' names;
//! [`ExternalProgram::register`] makes one registration with a set of
//! parameter values, as `hscc kernel load` registers a struct_ops map once
//! with its globals set; each connection of a run then gets its own
//! [`ExternalOps`] from it. The registry dispatches to them through
//! [`Cc::External`](crate::Cc::External).

use core::fmt;
use std::sync::{Arc, Mutex};

use crate::ops::{AckSample, CaEvent, CaState, LostSkb, RateSample, TcpCc};

/// One parameter of a program: a global the program reads, set before the
/// registration's first connection, or an attribute of a Python algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalParam {
    /// The global's name in the program.
    pub name: String,
    /// Its size in bytes (1, 2, 4 or 8), or 0 for a real number (Python).
    pub size: u8,
    /// The value the program gives it.
    pub default: f64,
}

impl ExternalParam {
    /// The values the global can hold: a two's-complement or an unsigned
    /// integer of its size (any finite number for size 0).
    pub fn range(&self) -> (f64, f64) {
        match self.size {
            0 => (f64::MIN, f64::MAX),
            8.. => (i64::MIN as f64, i64::MAX as f64),
            size => {
                let bits = 8 * u32::from(size);
                (-((1i64 << (bits - 1)) as f64), ((1i64 << bits) - 1) as f64)
            }
        }
    }
}

/// A loaded program.
pub trait ExternalProgram: Send + Sync + fmt::Debug {
    /// The name flows running it are labelled with.
    fn name(&self) -> &'static str;
    /// Where it came from, for messages and for telling two programs apart.
    fn origin(&self) -> &str;
    /// Its parameters, by name.
    fn params(&self) -> &[ExternalParam];
    /// Whether it defines `cong_control` (and so takes every ACK).
    fn has_cong_control(&self) -> bool;
    /// Its `.flags` (see [`CongestionOps::FLAGS`](crate::CongestionOps::FLAGS)).
    fn flags(&self) -> u32 {
        0
    }
    /// One registration with these parameter values (by name; the others at
    /// their defaults).
    fn register(&self, values: &[(String, f64)]) -> Result<Arc<dyn ExternalRegistration>, String>;
}

/// One registration of a program: its globals set, shared by the connections
/// that run it.
pub trait ExternalRegistration: Send + Sync + fmt::Debug {
    /// A new connection's congestion state.
    fn connect(self: Arc<Self>) -> Box<dyn ExternalOps>;
}

/// One connection of a program: the hooks of Linux's `tcp_congestion_ops`.
/// A hook that fails (a program's crash, a write past its memory) records the
/// failure, which [`fault`](ExternalOps::fault) reports, and leaves the
/// window as it was.
pub trait ExternalOps: Send + Sync + fmt::Debug {
    /// See [`CongestionOps::init`](crate::CongestionOps::init).
    fn init(&mut self, tp: &mut TcpCc);
    /// See [`CongestionOps::ssthresh`](crate::CongestionOps::ssthresh).
    fn ssthresh(&mut self, tp: &mut TcpCc) -> u32;
    /// See [`CongestionOps::cong_avoid`](crate::CongestionOps::cong_avoid).
    fn cong_avoid(&mut self, tp: &mut TcpCc, ack: u32, acked: u32);
    /// See [`CongestionOps::set_state`](crate::CongestionOps::set_state).
    fn set_state(&mut self, tp: &mut TcpCc, s: CaState);
    /// See [`CongestionOps::cwnd_event`](crate::CongestionOps::cwnd_event).
    fn cwnd_event(&mut self, tp: &mut TcpCc, ev: CaEvent);
    /// See [`CongestionOps::in_ack_event`](crate::CongestionOps::in_ack_event).
    fn in_ack_event(&mut self, tp: &mut TcpCc, flags: u32);
    /// See [`CongestionOps::pkts_acked`](crate::CongestionOps::pkts_acked).
    fn pkts_acked(&mut self, tp: &mut TcpCc, s: &AckSample);
    /// See [`CongestionOps::undo_cwnd`](crate::CongestionOps::undo_cwnd).
    fn undo_cwnd(&mut self, tp: &mut TcpCc) -> u32;
    /// See [`CongestionOps::cong_control`](crate::CongestionOps::cong_control).
    fn cong_control(&mut self, tp: &mut TcpCc, rs: &RateSample) -> bool;
    /// Whether the program defines `cong_control`.
    fn has_cong_control(&self) -> bool;
    /// See [`CongestionOps::skb_marked_lost`](crate::CongestionOps::skb_marked_lost).
    fn skb_marked_lost(&mut self, _tp: &mut TcpCc, _skb: &LostSkb) {}
    /// Whether the program defines `skb_marked_lost` (it then takes rate samples).
    fn has_skb_marked_lost(&self) -> bool {
        false
    }
    /// Whether the program may read `pkts_acked`'s `in_flight`
    /// ([`CongestionOps::NEEDS_DELIVERY_STAMPS`](crate::CongestionOps::NEEDS_DELIVERY_STAMPS)).
    fn needs_delivery_stamps(&self) -> bool {
        false
    }
    /// The first failure of a hook, as a message naming the program's
    /// file, line and hook where known.
    fn fault(&self) -> Option<String>;
    /// A copy of the connection's state that does not close the connection
    /// when dropped (the program's `release` runs for the original only).
    fn clone_box(&self) -> Box<dyn ExternalOps>;
}

/// A program with the parameter values a flow gives it: what
/// [`CcParams::External`](crate::CcParams::External) holds.
#[derive(Clone, Debug)]
pub struct ExternalParams {
    /// The program.
    pub program: Arc<dyn ExternalProgram>,
    /// Values set by the scenario, by name, in the order set.
    pub values: Vec<(String, f64)>,
}

impl PartialEq for ExternalParams {
    fn eq(&self, other: &Self) -> bool {
        self.program.origin() == other.program.origin() && self.values == other.values
    }
}

/// `name` kept for the life of the process, one copy per distinct name: an
/// external program's name is `&'static str` like a built-in's (labels and
/// errors hold it).
pub fn interned(name: &str) -> &'static str {
    static NAMES: std::sync::Mutex<std::collections::BTreeSet<&'static str>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(name) {
        return n;
    }
    let n: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.insert(n);
    n
}

/// Algorithms registered by name in this process (Python algorithms): a
/// scenario names them as it names a built-in one.
static NAMED: std::sync::Mutex<Vec<Arc<dyn ExternalProgram>>> = std::sync::Mutex::new(Vec::new());

/// Register `program` under its name, replacing one of the same name.
pub fn register_named(program: Arc<dyn ExternalProgram>) {
    let mut named = NAMED.lock().unwrap_or_else(|e| e.into_inner());
    named.retain(|p| p.name() != program.name());
    named.push(program);
}

/// The algorithm registered as `name`, if any.
pub fn named(name: &str) -> Option<Arc<dyn ExternalProgram>> {
    let named = NAMED.lock().unwrap_or_else(|e| e.into_inner());
    named.iter().find(|p| p.name() == name).cloned()
}

impl serde::Serialize for ExternalParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.values.len() + 1))?;
        m.serialize_entry("program", self.program.origin())?;
        for (k, v) in &self.values {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl ExternalParams {
    /// Set `param` to `value`: a parameter of the program, an integer in its range.
    pub fn set(&mut self, param: &str, value: f64) -> Result<(), crate::ParamError> {
        let Some(p) = self.program.params().iter().find(|p| p.name == param) else {
            return Err(crate::ParamError::Unknown {
                name: param.to_string(),
                known: self
                    .program
                    .params()
                    .iter()
                    .map(|p| p.name.clone())
                    .collect(),
            });
        };
        let (lo, hi) = p.range();
        let whole = p.size == 0 || value.fract() == 0.0;
        if !value.is_finite() || !whole || value < lo || value > hi {
            return Err(crate::ParamError::Invalid {
                name: param.to_string(),
                value,
                allowed: match p.size {
                    0 => "a finite number".to_string(),
                    size => format!("an integer in [{lo}, {hi}] (a {size}-byte global)"),
                },
            });
        }
        let v = value;
        match self.values.iter_mut().find(|(k, _)| k == param) {
            Some(slot) => slot.1 = v,
            None => self.values.push((param.to_string(), v)),
        }
        Ok(())
    }

    /// Every parameter's value: the ones set, else the program's defaults.
    pub fn all_values(&self) -> Vec<(String, f64)> {
        self.program
            .params()
            .iter()
            .map(|p| {
                let v = self
                    .values
                    .iter()
                    .find(|(k, _)| *k == p.name)
                    .map_or(p.default, |(_, v)| *v);
                (p.name.clone(), v)
            })
            .collect()
    }
}

/// The registrations of one run: one per program and set of values, shared
/// by the run's connections, as one kernel has one registration per loaded
/// program. A failure to register is kept and reported by every connection.
#[derive(Clone, Debug, Default)]
pub struct ExternalRegistrations {
    made: Arc<Mutex<Vec<Registered>>>,
}

type Registered = (
    String,
    Vec<(String, f64)>,
    Result<Arc<dyn ExternalRegistration>, String>,
);

impl ExternalRegistrations {
    /// A new connection of `params`' program, registering it first if this
    /// run has not.
    pub fn connect(&self, params: &ExternalParams) -> Result<Box<dyn ExternalOps>, String> {
        let values = params.all_values();
        let origin = params.program.origin();
        let mut made = self.made.lock().unwrap_or_else(|e| e.into_inner());
        let i = match made
            .iter()
            .position(|(o, v, _)| o == origin && *v == values)
        {
            Some(i) => i,
            None => {
                let r = params.program.register(&values);
                made.push((origin.to_string(), values, r));
                made.len() - 1
            }
        };
        match &made[i].2 {
            Ok(r) => Ok(Arc::clone(r).connect()),
            Err(e) => Err(e.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Fake(Vec<ExternalParam>);

    impl ExternalProgram for Fake {
        fn name(&self) -> &'static str {
            "fake"
        }
        fn origin(&self) -> &str {
            "/fake.bpf.c"
        }
        fn params(&self) -> &[ExternalParam] {
            &self.0
        }
        fn has_cong_control(&self) -> bool {
            false
        }
        fn register(&self, _: &[(String, f64)]) -> Result<Arc<dyn ExternalRegistration>, String> {
            Err("not loadable".into())
        }
    }

    fn params() -> ExternalParams {
        let p = |name: &str, size, default| ExternalParam {
            name: name.into(),
            size,
            default,
        };
        ExternalParams {
            program: Arc::new(Fake(vec![p("beta", 4, 512.0), p("flag", 1, 1.0)])),
            values: Vec::new(),
        }
    }

    #[test]
    fn a_parameter_is_a_whole_number_that_fits_its_global() {
        let mut p = params();
        p.set("beta", 717.0).unwrap();
        p.set("flag", -128.0).unwrap();
        assert_eq!(
            p.all_values(),
            [("beta".to_string(), 717.0), ("flag".to_string(), -128.0)]
        );
        let e = p.set("flag", 256.0).unwrap_err().to_string();
        assert!(
            e.contains("an integer in [-128, 255] (a 1-byte global)"),
            "{e}"
        );
        assert!(p.set("beta", 0.5).is_err() && p.set("beta", f64::NAN).is_err());
        let e = p.set("gamma", 1.0).unwrap_err().to_string();
        assert!(
            e.contains("gamma") && e.contains("beta") && e.contains("flag"),
            "{e}"
        );
    }

    #[test]
    fn a_registration_that_fails_is_every_connections_fault() {
        let regs = ExternalRegistrations::default();
        let e = regs.connect(&params()).unwrap_err();
        assert_eq!(e, "not loadable");
    }
}
