//! A rejected configuration value, and the checks every part of the model
//! shares to say which field, which value and what is allowed.

use core::fmt;

use hscc_cc::{CcError, ParamError};

use crate::time::{secs, Time};

/// A rejected configuration value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Which field (e.g. `flows[2].mss`).
    pub field: String,
    /// The value given.
    pub value: String,
    /// What is allowed.
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is not allowed ({})",
            self.field, self.value, self.allowed
        )
    }
}

impl std::error::Error for ConfigError {}

/// `value` checked against `ok`, as a [`ConfigError`] on the field `field()`.
pub(crate) fn check(
    ok: bool,
    field: impl FnOnce() -> String,
    value: impl fmt::Display,
    allowed: &str,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            field: field(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        })
    }
}

/// A number as a person writes it: 0.25, 3e-300, 1e+30 (never 300 zeros).
pub fn num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e15).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// An algorithm's rejected parameter as an error on the field `at(name)`.
pub fn param_error(at: &dyn Fn(&str) -> String, e: &CcError) -> ConfigError {
    match e {
        CcError::Param {
            error:
                ParamError::Invalid {
                    name,
                    value,
                    allowed,
                },
            ..
        } => ConfigError {
            field: at(name),
            value: value.to_string(),
            allowed: allowed.clone(),
        },
        other => ConfigError {
            field: at("algorithm"),
            value: String::new(),
            allowed: other.to_string(),
        },
    }
}

/// A source (flow, UDP, web) or a change active from `start` (to `stop`):
/// it must begin before the run ends, or it would silently do nothing.
pub fn check_period(
    at: &dyn Fn(&str) -> String,
    start: Time,
    stop: Option<Time>,
    duration: Time,
) -> Result<(), ConfigError> {
    let end = format!(
        "a time before the end of the run (duration = {} s)",
        secs(duration)
    );
    check(
        start < duration,
        || at("start"),
        format!("{} s", secs(start)),
        &end,
    )?;
    if let Some(stop) = stop {
        check(
            stop > start,
            || at("stop"),
            format!("{} s", secs(stop)),
            "after start",
        )?;
    }
    Ok(())
}
