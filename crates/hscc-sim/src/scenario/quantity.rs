//! Quantities as people write them: a plain SI number, or a number with a
//! unit — "100ms", "700Mbps", "64KB", "1500pkts", "0.5bdp", "1e-6", "0.1%".
//!
//! Prefixes are decimal (k = 10³, M = 10⁶, G = 10⁹, T = 10¹²); sizes also take
//! the binary KiB, MiB and GiB. Rates are in bits ("Mbps", "Mbit/s"); "MBps"
//! (bytes) is refused rather than guessed. Each type deserializes from a number
//! or such a string and serializes as the SI number, so a scenario read and
//! written again is in plain numbers and reads the same.

use core::fmt;
use std::borrow::Cow;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// What a time may be.
pub const TIME_ALLOWED: &str =
    "a time of 0 or more, such as 100ms, 1.5s, 250us or a number of seconds";
/// What a rate may be.
pub const RATE_ALLOWED: &str =
    "a rate from 1 bit/s to 10 Tbit/s, such as 700Mbps, 10Gbps, 1.5Mbit/s or a number of bit/s";
/// What a size may be.
pub const SIZE_ALLOWED: &str = "a size such as 64KB, 1MiB, 1448B or a whole number of bytes";
/// What a probability may be.
pub const PROBABILITY_ALLOWED: &str = "a probability from 0 to 1, such as 1e-6 or 0.1%";
/// What a buffer may be.
pub const BUFFER_ALLOWED: &str =
    "a buffer such as 1500pkts, 64KB, 0.5bdp or a whole number of packets";

/// The range of a queue limit.
pub const BUFFER_BOUNDS: &str =
    "1 to 10^8 packets, 1 byte to 10^12 bytes, or a BDP multiple above 0 (at most 10000)";

/// Longest quantity text read (a number and a unit are a few characters).
const MAX_CHARS: usize = 100;

/// The kinds of quantity, for [`parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Seconds.
    Time,
    /// Bit/s.
    Rate,
    /// Bytes (whole).
    Size,
    /// A probability in [0, 1].
    Probability,
}

impl Kind {
    /// What a value of this kind may be written as.
    pub fn allowed(self) -> &'static str {
        match self {
            Kind::Time => TIME_ALLOWED,
            Kind::Rate => RATE_ALLOWED,
            Kind::Size => SIZE_ALLOWED,
            Kind::Probability => PROBABILITY_ALLOWED,
        }
    }
}

/// (number, unit) of a quantity text, e.g. "1.5 Mbps" → (1.5, "Mbps").
fn split(text: &str) -> Option<(f64, &str)> {
    if text.len() > MAX_CHARS {
        return None;
    }
    let t = text.trim();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let int_end = digits(i);
    let mut end = int_end;
    if end < b.len() && b[end] == b'.' {
        end = digits(end + 1);
    }
    if end == i || (end == i + 1 && b[i] == b'.') || (int_end == i && end == int_end) {
        return None; // no digits
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut j = end + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let k = digits(j);
        if k > j {
            end = k;
        }
    }
    let number: f64 = t[..end].parse().ok()?;
    let unit = t[end..].trim_start();
    if !number.is_finite() || unit.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    Some((number, unit))
}

fn time_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "s" | "sec" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        "h" => 3600.0,
        _ => return None,
    })
}

fn rate_unit(unit: &str) -> Result<f64, &'static str> {
    if unit.ends_with("Bps") || unit.ends_with("B/s") || unit.ends_with("Byte/s") {
        return Err("rates are in bits: write bps, not Bps");
    }
    for suffix in ["bps", "bit/s", "b/s", ""] {
        if let Some(prefix) = unit.strip_suffix(suffix) {
            let factor = match prefix {
                "" => 1.0,
                "k" | "K" => 1e3,
                "M" | "m" => 1e6,
                "G" | "g" => 1e9,
                "T" | "t" => 1e12,
                _ => continue,
            };
            if suffix.is_empty() && !prefix.is_empty() {
                continue; // "5M" alone is not a rate
            }
            return Ok(factor);
        }
    }
    Err("")
}

fn size_unit(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "B" | "byte" | "bytes" => 1.0,
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// `x` when it is whole (within the rounding of a unit factor) and fits a u64.
fn whole(x: f64) -> Option<u64> {
    let n = x.round();
    ((0.0..1.8e19).contains(&n) && (x - n).abs() <= 1e-9 * x.abs().max(1.0)).then_some(n as u64)
}

/// A rejected quantity: what is allowed, with a reason when there is a more precise one.
fn reject(kind: Kind, why: &str) -> String {
    if why.is_empty() {
        kind.allowed().to_string()
    } else {
        format!("{}; {why}", kind.allowed())
    }
}

/// Parse a quantity text of `kind` into its SI number; the error says what is allowed.
pub fn parse(kind: Kind, text: &str) -> Result<f64, String> {
    let (number, unit) = split(text).ok_or_else(|| reject(kind, ""))?;
    number_with_unit(kind, number, unit)
}

fn number_with_unit(kind: Kind, number: f64, unit: &str) -> Result<f64, String> {
    match kind {
        Kind::Time => time_unit(unit)
            .map(|f| number * f)
            .filter(|&t| t >= 0.0)
            .ok_or_else(|| reject(kind, "")),
        Kind::Rate => rate_unit(unit)
            .map(|f| number * f)
            .map_err(|why| reject(kind, why))
            .and_then(|r| {
                if (1.0..=1e13).contains(&r) {
                    Ok(r)
                } else {
                    Err(reject(kind, ""))
                }
            }),
        Kind::Size => {
            let x = number * size_unit(unit).ok_or_else(|| reject(kind, ""))?;
            if x < 0.0 {
                return Err(reject(kind, ""));
            }
            whole(x)
                .map(|n| n as f64)
                .ok_or_else(|| reject(kind, "it must come to a whole number of bytes"))
        }
        Kind::Probability => {
            let p = match unit {
                "" => number,
                "%" => number / 100.0,
                _ => return Err(reject(kind, "")),
            };
            if (0.0..=1.0).contains(&p) {
                Ok(p)
            } else {
                Err(reject(kind, ""))
            }
        }
    }
}

/// A queue limit: packets, bytes or a multiple of the bandwidth-delay product.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferSpec {
    /// Packets.
    Packets(u64),
    /// Bytes.
    Bytes(u64),
    /// Multiple of the bandwidth-delay product: link rate × the largest base RTT
    /// of the flows crossing the link, in packets of their data wire size.
    Bdp(f64),
}

impl BufferSpec {
    /// Parse "1500pkts", "64KB", "0.5bdp" or a number of packets.
    pub fn parse(text: &str) -> Result<BufferSpec, String> {
        let (number, unit) = split(text).ok_or_else(|| BUFFER_ALLOWED.to_string())?;
        BufferSpec::from_parts(number, unit)
    }

    fn from_parts(number: f64, unit: &str) -> Result<BufferSpec, String> {
        let whole_or = |x: f64| match whole(x) {
            _ if x > 1e12 => Err(BUFFER_BOUNDS.to_string()),
            Some(n) => Ok(n),
            None => Err(format!("{BUFFER_ALLOWED}; it must come to a whole number")),
        };
        match unit {
            "" | "p" | "pkt" | "pkts" | "packet" | "packets" => {
                Ok(BufferSpec::Packets(whole_or(number)?))
            }
            "bdp" | "BDP" | "xbdp" | "×bdp" => Ok(BufferSpec::Bdp(number)),
            u => match size_unit(u) {
                Some(f) => Ok(BufferSpec::Bytes(whole_or(number * f)?)),
                None => Err(BUFFER_ALLOWED.to_string()),
            },
        }
    }
}

/// Implement Deserialize (number or text with a unit), Serialize (the SI
/// number) and JsonSchema for a quantity newtype.
macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident($inner:ty), $kind:expr, $schema_name:literal, $example:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(QuantityVisitor($kind)).map(|x| $name(x as $inner))
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> Cow<'static, str> {
                $schema_name.into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!({ "anyOf": [{ "type": "number" }, { "type": "string" }], "description": $kind.allowed(), "examples": [$example] })
            }
        }
    };
}

quantity!(
    /// A time, s.
    Seconds(f64), Kind::Time, "Time", "100ms"
);
quantity!(
    /// A rate, bit/s.
    Rate(f64), Kind::Rate, "Rate", "100Mbps"
);
quantity!(
    /// A whole number of bytes.
    Bytes(u64), Kind::Size, "Size", "64KB"
);
quantity!(
    /// A probability in [0, 1].
    Probability(f64), Kind::Probability, "Probability", "1e-6"
);

struct QuantityVisitor(Kind);

impl QuantityVisitor {
    fn number<E: de::Error>(&self, x: f64, shown: Unexpected) -> Result<f64, E> {
        number_with_unit(self.0, x, "")
            .map_err(|allowed| E::invalid_value(shown, &allowed.as_str()))
    }
}

impl Visitor<'_> for QuantityVisitor {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.0.allowed())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        self.number(v as f64, Unexpected::Unsigned(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        self.number(v as f64, Unexpected::Signed(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        if !v.is_finite() {
            return Err(E::invalid_value(Unexpected::Float(v), &self));
        }
        self.number(v, Unexpected::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        parse(self.0, v).map_err(|allowed| E::invalid_value(Unexpected::Str(v), &allowed.as_str()))
    }
}

impl<'de> Deserialize<'de> for BufferSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BufferVisitor)
    }
}

/// The table form `{ packets = 1500 }`, `{ bytes = 64000 }`, `{ bdp = 0.5 }`.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum BufferTable {
    Packets(u64),
    Bytes(u64),
    Bdp(f64),
}

struct BufferVisitor;

impl<'de> Visitor<'de> for BufferVisitor {
    type Value = BufferSpec;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(BUFFER_ALLOWED)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<BufferSpec, E> {
        Ok(BufferSpec::Packets(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<BufferSpec, E> {
        Err(E::invalid_value(Unexpected::Signed(v), &self))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<BufferSpec, E> {
        BufferSpec::from_parts(v, "")
            .map_err(|allowed| E::invalid_value(Unexpected::Float(v), &allowed.as_str()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<BufferSpec, E> {
        BufferSpec::parse(v)
            .map_err(|allowed| E::invalid_value(Unexpected::Str(v), &allowed.as_str()))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<BufferSpec, A::Error> {
        let t = BufferTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
        Ok(match t {
            BufferTable::Packets(n) => BufferSpec::Packets(n),
            BufferTable::Bytes(n) => BufferSpec::Bytes(n),
            BufferTable::Bdp(x) => BufferSpec::Bdp(x),
        })
    }
}

impl JsonSchema for BufferSpec {
    fn schema_name() -> Cow<'static, str> {
        "Buffer".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [{ "type": "number" }, { "type": "string" }, { "type": "object" }], "description": BUFFER_ALLOWED, "examples": ["1500pkts", "64KB", "0.5bdp"] })
    }
}

/// An algorithm parameter: a number, or true/false (1/0).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(transparent)]
pub struct ParamValue(pub f64);

impl<'de> Deserialize<'de> for ParamValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = f64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, or true or false")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<f64, E> {
                Ok(if v { 1.0 } else { 0.0 })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            // JSON has no NaN or infinity: front ends send them as text, and
            // the parameter's own range check names what is allowed.
            fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
                match v {
                    "inf" | "-inf" | "nan" => Ok(v.parse().expect("f64 reads inf and nan")),
                    _ => Err(E::invalid_type(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(V).map(ParamValue)
    }
}

impl JsonSchema for ParamValue {
    fn schema_name() -> Cow<'static, str> {
        "ParamValue".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [{ "type": "number" }, { "type": "boolean" }], "description": "a number, or true or false" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(kind: Kind, text: &str) -> f64 {
        parse(kind, text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn units_scale_to_si() {
        assert_eq!(ok(Kind::Time, "100ms"), 0.1);
        assert_eq!(ok(Kind::Time, " 250 us "), 250e-6);
        assert_eq!(ok(Kind::Time, "2min"), 120.0);
        assert_eq!(ok(Kind::Time, "1e-3"), 1e-3);
        assert_eq!(ok(Kind::Rate, "700Mbps"), 700e6);
        assert_eq!(ok(Kind::Rate, "1.5Mbit/s"), 1.5e6);
        assert_eq!(ok(Kind::Rate, "64kbps"), 64e3);
        assert_eq!(ok(Kind::Size, "64KB"), 64_000.0);
        assert_eq!(ok(Kind::Size, "64KiB"), 65_536.0);
        assert_eq!(ok(Kind::Probability, "0.1%"), 1e-3);
        assert_eq!(BufferSpec::parse("1500pkts"), Ok(BufferSpec::Packets(1500)));
        assert_eq!(BufferSpec::parse("64KB"), Ok(BufferSpec::Bytes(64_000)));
        assert_eq!(BufferSpec::parse("0.5bdp"), Ok(BufferSpec::Bdp(0.5)));
    }

    #[test]
    fn bad_quantities_say_what_is_allowed() {
        assert!(parse(Kind::Time, "10 furlongs")
            .unwrap_err()
            .starts_with("a time of 0 or more, such as"));
        assert!(parse(Kind::Time, "-1ms").is_err());
        assert!(
            parse(Kind::Rate, "-5Mbps").is_err()
                && parse(Kind::Rate, "20Tbps").is_err()
                && parse(Kind::Rate, "0.5").is_err()
        );
        assert!(parse(Kind::Time, "nan").is_err());
        assert!(parse(Kind::Time, "1e999").is_err());
        assert!(parse(Kind::Rate, "100MBps")
            .unwrap_err()
            .contains("rates are in bits"));
        assert!(parse(Kind::Rate, "M").is_err());
        assert!(parse(Kind::Rate, "5M").is_err());
        assert!(parse(Kind::Size, "1.0001KB")
            .unwrap_err()
            .contains("whole number"));
        assert!(parse(Kind::Size, "64kb").is_err());
        assert!(parse(Kind::Probability, "2").is_err());
        assert!(BufferSpec::parse("1.5pkts")
            .unwrap_err()
            .contains("whole number"));
        assert!(parse(Kind::Time, &" ".repeat(1000)).is_err());
        assert!(
            parse(Kind::Time, ".").is_err()
                && parse(Kind::Time, "-").is_err()
                && parse(Kind::Time, "e5").is_err()
        );
    }

    #[test]
    fn values_deserialize_from_numbers_and_text_and_serialize_as_numbers() {
        let s: Seconds = serde_json::from_str("\"40ms\"").unwrap();
        assert_eq!(s, Seconds(0.04));
        assert_eq!(serde_json::to_string(&s).unwrap(), "0.04");
        let b: BufferSpec = serde_json::from_str(r#"{"bdp": 0.5}"#).unwrap();
        assert_eq!(b, BufferSpec::Bdp(0.5));
        assert_eq!(serde_json::to_string(&b).unwrap(), r#"{"bdp":0.5}"#);
        assert!(serde_json::from_str::<Seconds>("true").is_err());
        assert!(serde_json::from_str::<Bytes>("1.5").is_err());
        let p: ParamValue = serde_json::from_str("true").unwrap();
        assert_eq!(p, ParamValue(1.0));
    }
}
