//! Typed, validated algorithm parameters.
//!
//! Each algorithm declares its tunables with [`params!`](crate::params!): a
//! plain struct with a documented default, a valid range and the source of the
//! default. Front ends address them as `name.field` (e.g. `ctcp.gamma`) and set
//! them by name through [`Params::set`], which rejects unknown names, values out
//! of range and non-integers for integer parameters with a message that says
//! what is allowed.

use core::fmt;

/// The kind of value a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// A real number.
    Real,
    /// A whole number.
    Integer,
    /// 0 (false) or 1 (true).
    Bool,
}

/// Description of one parameter, for validation and for `hscc algorithms`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ParamSpec {
    /// Field name (`gamma` in `ctcp.gamma`).
    pub name: &'static str,
    /// What it does.
    pub doc: &'static str,
    /// Default value.
    pub default: f64,
    /// Smallest allowed value.
    pub min: f64,
    /// Largest allowed value.
    pub max: f64,
    /// Real, integer or boolean.
    pub kind: ParamKind,
    /// Where the default comes from (paper section, RFC section, Linux source).
    pub source: &'static str,
}

/// A cross-field constraint: parameter `low` must not exceed parameter `high`
/// (e.g. `beta_min <= beta_max`), declared in an `order { .. }` block of
/// [`params!`](crate::params!). Per-field ranges cannot express it, and a
/// reversed pair is accepted field by field yet makes the algorithm's bounds
/// meaningless.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ParamOrder {
    /// The parameter that must be the smaller (or equal).
    pub low: &'static str,
    /// The parameter that must be the larger (or equal).
    pub high: &'static str,
}

/// A rejected parameter setting.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamError {
    /// No parameter of that name.
    Unknown { name: String, known: Vec<String> },
    /// Value outside the allowed range or of the wrong kind.
    Invalid {
        name: String,
        value: f64,
        allowed: String,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown { name, known } if known.is_empty() => {
                write!(
                    f,
                    "unknown parameter '{name}': this algorithm has no parameters"
                )
            }
            ParamError::Unknown { name, known } => {
                write!(
                    f,
                    "unknown parameter '{name}'; known parameters: {}",
                    known.join(", ")
                )
            }
            ParamError::Invalid {
                name,
                value,
                allowed,
            } => {
                write!(f, "parameter '{name}' = {value} is not allowed: {allowed}")
            }
        }
    }
}

impl std::error::Error for ParamError {}

impl ParamSpec {
    /// Check `value` against this spec.
    pub fn validate(&self, value: f64) -> Result<(), ParamError> {
        let ok_kind = match self.kind {
            ParamKind::Real => value.is_finite(),
            ParamKind::Integer => value.is_finite() && value.fract() == 0.0,
            ParamKind::Bool => value == 0.0 || value == 1.0,
        };
        if ok_kind && value >= self.min && value <= self.max {
            return Ok(());
        }
        let allowed = match self.kind {
            ParamKind::Bool => "0/false or 1/true".to_string(),
            ParamKind::Integer => format!("a whole number from {} to {}", self.min, self.max),
            ParamKind::Real => format!("a number from {} to {}", self.min, self.max),
        };
        Err(ParamError::Invalid {
            name: self.name.to_string(),
            value,
            allowed,
        })
    }
}

/// A value type usable as a parameter field.
pub trait ParamValue: Copy {
    /// Its kind.
    const KIND: ParamKind;
    /// As a number.
    fn to_f64(self) -> f64;
    /// From a validated number.
    fn from_f64(v: f64) -> Self;
}

impl ParamValue for f64 {
    const KIND: ParamKind = ParamKind::Real;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

impl ParamValue for u32 {
    const KIND: ParamKind = ParamKind::Integer;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as u32
    }
}

impl ParamValue for bool {
    const KIND: ParamKind = ParamKind::Bool;
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
}

/// Parameters of one algorithm.
pub trait Params: Clone + fmt::Debug + Default + PartialEq {
    /// Every parameter with its default, range and source.
    fn specs() -> Vec<ParamSpec>;
    /// Current value of a parameter, as a number.
    fn get(&self, name: &str) -> Option<f64>;
    /// Set a parameter by name after validating it.
    fn set(&mut self, name: &str, value: f64) -> Result<(), ParamError>;
    /// Cross-field constraints (`low <= high` pairs).
    fn orders() -> Vec<ParamOrder> {
        Vec::new()
    }
    /// Cross-field checks: every declared order holds. Per-field ranges are
    /// already enforced by `set`.
    fn check(&self) -> Result<(), ParamError> {
        for o in Self::orders() {
            let (low, high) = (
                self.get(o.low).unwrap_or(f64::NAN),
                self.get(o.high).unwrap_or(f64::NAN),
            );
            if low.partial_cmp(&high).is_none_or(|o| o.is_gt()) {
                // NaN (a value that is not set) compares as out of order too.
                return Err(ParamError::Invalid {
                    name: o.low.to_string(),
                    value: low,
                    allowed: format!("at most {} = {high}", o.high),
                });
            }
        }
        Ok(())
    }
}

/// Declare an algorithm's parameter struct.
///
/// ```
/// hscc_cc::params! {
///     /// Example parameters.
///     pub struct ExampleParams {
///         /// Multiplicative decrease factor.
///         beta: f64 = 0.5, [0.0, 1.0], "RFC 5681 §3.1";
///         /// Low window, segments.
///         low_window: u32 = 38, [1, 1000000], "RFC 3649 §5";
///     }
/// }
/// use hscc_cc::Params;
/// let mut p = ExampleParams::default();
/// p.set("beta", 0.7).unwrap();
/// assert!(p.set("beta", 2.0).is_err());
/// assert!(p.set("low_window", 1.5).is_err());
/// ```
///
/// Cross-field constraints follow the struct as `order { low <= high; }`:
///
/// ```
/// hscc_cc::params! {
///     /// Bounds of a factor.
///     pub struct BoundsParams {
///         /// Lower bound.
///         beta_min: f64 = 0.5, [0.0, 1.0], "test";
///         /// Upper bound.
///         beta_max: f64 = 0.8, [0.0, 1.0], "test";
///     }
///     order { beta_min <= beta_max; }
/// }
/// use hscc_cc::Params;
/// let mut p = BoundsParams::default();
/// p.set("beta_min", 0.9).unwrap(); // each field is in range...
/// let e = p.check().unwrap_err().to_string(); // ...but not the pair
/// assert!(e.contains("'beta_min' = 0.9") && e.contains("at most beta_max = 0.8"), "{e}");
/// ```
#[macro_export]
macro_rules! params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                #[doc = $doc:literal]
                $field:ident : $ty:ty = $default:expr, [$min:expr, $max:expr], $source:literal;
            )*
        }
        $( order { $( $low:ident <= $high:ident; )* } )?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize)]
        $vis struct $name {
            $( #[doc = $doc] pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        impl $crate::params::Params for $name {
            fn specs() -> Vec<$crate::params::ParamSpec> {
                vec![$(
                    $crate::params::ParamSpec {
                        name: stringify!($field),
                        doc: $doc.trim(),
                        default: $crate::params::ParamValue::to_f64($default as $ty),
                        min: $min as f64,
                        max: $max as f64,
                        kind: <$ty as $crate::params::ParamValue>::KIND,
                        source: $source,
                    },
                )*]
            }

            fn orders() -> Vec<$crate::params::ParamOrder> {
                // Names are checked at compile time: each must be a field.
                $( $( let _ = |p: &Self| { let _ = (&p.$low, &p.$high); }; )* )?
                vec![$( $( $crate::params::ParamOrder { low: stringify!($low), high: stringify!($high) }, )* )?]
            }

            fn get(&self, name: &str) -> Option<f64> {
                match name {
                    $( stringify!($field) => Some($crate::params::ParamValue::to_f64(self.$field)), )*
                    _ => None,
                }
            }

            fn set(&mut self, name: &str, value: f64) -> Result<(), $crate::params::ParamError> {
                let specs = <Self as $crate::params::Params>::specs();
                let Some(spec) = specs.iter().find(|s| s.name == name) else {
                    return Err($crate::params::ParamError::Unknown {
                        name: name.to_string(),
                        known: specs.iter().map(|s| s.name.to_string()).collect(),
                    });
                };
                spec.validate(value)?;
                match name {
                    $( stringify!($field) => self.$field = <$ty as $crate::params::ParamValue>::from_f64(value), )*
                    _ => unreachable!(),
                }
                Ok(())
            }
        }
    };
}

/// Parameters for an algorithm that has none.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct NoParams {}

impl Params for NoParams {
    fn specs() -> Vec<ParamSpec> {
        Vec::new()
    }
    fn get(&self, _name: &str) -> Option<f64> {
        None
    }
    fn set(&mut self, name: &str, _value: f64) -> Result<(), ParamError> {
        Err(ParamError::Unknown {
            name: name.to_string(),
            known: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::params! {
        /// Test parameters.
        pub struct P {
            /// A real.
            beta: f64 = 0.7, [0.0, 1.0], "test";
            /// An integer.
            low: u32 = 38, [1, 100], "test";
            /// A flag.
            fast: bool = true, [0, 1], "test";
        }
    }

    #[test]
    fn defaults_and_specs_agree() {
        let p = P::default();
        for s in P::specs() {
            assert_eq!(p.get(s.name), Some(s.default), "{}", s.name);
        }
        assert_eq!(P::specs()[1].kind, ParamKind::Integer);
    }

    #[test]
    fn set_validates_range_kind_and_name() {
        let mut p = P::default();
        p.set("beta", 0.5).unwrap();
        assert_eq!(p.beta, 0.5);
        p.set("fast", 0.0).unwrap();
        assert!(!p.fast);
        let e = p.set("beta", 1.5).unwrap_err().to_string();
        assert!(
            e.contains("'beta' = 1.5") && e.contains("from 0 to 1"),
            "{e}"
        );
        assert!(p
            .set("low", 2.5)
            .unwrap_err()
            .to_string()
            .contains("whole number"));
        assert!(p.set("fast", 2.0).is_err());
        assert!(p.set("beta", f64::NAN).is_err());
        let e = p.set("gamma", 1.0).unwrap_err().to_string();
        assert!(e.contains("beta, low, fast"), "{e}");
    }
}
