//! A value drawn from a distribution, as a scenario writes it: a plain value
//! (always that value) or a table `{ dist = "uniform", min = "5ms", max = "25ms" }`,
//! `{ dist = "exponential", mean = … }`, `{ dist = "pareto", mean = …, shape = 1.2 }`.

use core::fmt;
use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::config::ConfigError;

/// The distribution families.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DistKind {
    /// Always `value`.
    Fixed,
    /// Uniform on [min, max].
    Uniform,
    /// Exponential with `mean`.
    Exponential,
    /// Pareto with `mean` and tail index `shape` (> 1): scale = mean·(shape − 1)/shape.
    Pareto,
    /// PackMime-HTTP's own distribution of the quantity (web request and response sizes only).
    Packmime,
}

/// A distribution of quantities `Q` (seconds, bytes, a count).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DistSpec<Q> {
    /// Always this value.
    Fixed(Q),
    /// Uniform on [min, max].
    Uniform {
        /// Lower end.
        min: Q,
        /// Upper end.
        max: Q,
    },
    /// Exponential.
    Exponential {
        /// Mean.
        mean: Q,
    },
    /// Pareto.
    Pareto {
        /// Mean.
        mean: Q,
        /// Tail index (> 1).
        shape: f64,
    },
    /// PackMime-HTTP's distribution (Cao et al. 2004).
    Packmime,
}

/// The table form, every field optional so that a missing one is named.
#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "Q: Deserialize<'de>", serialize = "Q: Serialize")
)]
struct Table<Q> {
    dist: DistKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<Q>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<Q>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<Q>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mean: Option<Q>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shape: Option<f64>,
}

impl<Q: Copy> Table<Q> {
    /// The distribution, or an error naming the field that is missing or extra (relative to the table).
    fn resolve(&self) -> Result<DistSpec<Q>, ConfigError> {
        let needs: &[&str] = match self.dist {
            DistKind::Fixed => &["value"],
            DistKind::Uniform => &["min", "max"],
            DistKind::Exponential => &["mean"],
            DistKind::Pareto => &["mean", "shape"],
            DistKind::Packmime => &[],
        };
        let given = [
            ("value", self.value.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("mean", self.mean.is_some()),
            ("shape", self.shape.is_some()),
        ];
        let name = format!("{:?}", self.dist).to_lowercase();
        for (field, present) in given {
            let needed = needs.contains(&field);
            if needed && !present {
                return Err(ConfigError {
                    field: field.into(),
                    value: "missing".into(),
                    allowed: format!("the {field} of a {name} distribution"),
                });
            }
            if !needed && present {
                return Err(ConfigError {
                    field: field.into(),
                    value: "given".into(),
                    allowed: format!("only {} for a {name} distribution", needs.join(" and ")),
                });
            }
        }
        let q = |o: Option<Q>| o.expect("checked above");
        Ok(match self.dist {
            DistKind::Fixed => DistSpec::Fixed(q(self.value)),
            DistKind::Uniform => DistSpec::Uniform {
                min: q(self.min),
                max: q(self.max),
            },
            DistKind::Exponential => DistSpec::Exponential { mean: q(self.mean) },
            DistKind::Pareto => DistSpec::Pareto {
                mean: q(self.mean),
                shape: self.shape.expect("checked above"),
            },
            DistKind::Packmime => DistSpec::Packmime,
        })
    }
}

impl<Q: Serialize + Copy> Serialize for DistSpec<Q> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = |dist, min, max, mean, shape| Table {
            dist,
            value: None,
            min,
            max,
            mean,
            shape,
        };
        match *self {
            DistSpec::Fixed(v) => v.serialize(s),
            DistSpec::Uniform { min, max } => {
                t(DistKind::Uniform, Some(min), Some(max), None, None).serialize(s)
            }
            DistSpec::Exponential { mean } => {
                t(DistKind::Exponential, None, None, Some(mean), None).serialize(s)
            }
            DistSpec::Pareto { mean, shape } => {
                t(DistKind::Pareto, None, None, Some(mean), Some(shape)).serialize(s)
            }
            DistSpec::Packmime => t(DistKind::Packmime, None, None, None, None).serialize(s),
        }
    }
}

impl<'de, Q: Deserialize<'de> + Copy> Deserialize<'de> for DistSpec<Q> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DistVisitor(PhantomData))
    }
}

struct DistVisitor<Q>(PhantomData<Q>);

impl<'de, Q: Deserialize<'de> + Copy> Visitor<'de> for DistVisitor<Q> {
    type Value = DistSpec<Q>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value, or a table such as { dist = \"uniform\", min = …, max = … }")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Q::deserialize(de::value::U64Deserializer::new(v)).map(DistSpec::Fixed)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Q::deserialize(de::value::I64Deserializer::new(v)).map(DistSpec::Fixed)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Q::deserialize(de::value::F64Deserializer::new(v)).map(DistSpec::Fixed)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Q::deserialize(de::value::StrDeserializer::new(v)).map(DistSpec::Fixed)
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        let t = Table::<Q>::deserialize(de::value::MapAccessDeserializer::new(map))?;
        t.resolve()
            .map_err(|e| de::Error::custom(crate::json::field_error(&e)))
    }
}

impl<Q: JsonSchema> JsonSchema for DistSpec<Q> {
    fn schema_name() -> Cow<'static, str> {
        format!("Dist_{}", Q::schema_name()).into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let q = g.subschema_for::<Q>();
        json_schema!({
            "description": "a value, or { dist = \"fixed\" | \"uniform\" | \"exponential\" | \"pareto\" | \"packmime\", value, min, max, mean, shape }",
            "anyOf": [q, { "type": "object", "properties": {
                "dist": { "enum": ["fixed", "uniform", "exponential", "pareto", "packmime"] },
                "value": q, "min": q, "max": q, "mean": q, "shape": { "type": "number" } }, "required": ["dist"] }]
        })
    }
}
