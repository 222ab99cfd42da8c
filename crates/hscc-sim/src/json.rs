//! Reading a scenario's JSON with errors in the [`ConfigError`] shape: the
//! path of the field (`topology.bottleneck.buffer.packets`, found by
//! `serde_path_to_error`), the value as written and what is allowed, instead of
//! serde's "expected u64 at line 1 column 414".

use serde::de::DeserializeOwned;

use crate::config::ConfigError;

/// Deserialize `text`, naming the field of any error.
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, ConfigError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        describe(if path == "." { "" } else { &path }, e.inner(), text)
    })?;
    // Trailing characters after the scenario.
    de.end().map_err(|e| describe("", &e, text))?;
    Ok(value)
}

/// Marks a [`ConfigError`] carried through serde as a custom message (see [`field_error`]).
const FIELD_ERROR: char = '\u{1}';

/// A [`ConfigError`] found inside a value while it is deserialized (its field
/// relative to that value), as a serde custom message that [`from_str`] turns
/// back into the error with the full path.
pub(crate) fn field_error(e: &ConfigError) -> String {
    format!(
        "{FIELD_ERROR}{}{FIELD_ERROR}{}{FIELD_ERROR}{}",
        e.field, e.value, e.allowed
    )
}

fn describe(path: &str, e: &serde_json::Error, text: &str) -> ConfigError {
    let full = e.to_string();
    // serde_json appends " at line L column C"; the field path says more.
    let msg = full
        .rfind(" at line ")
        .map_or(full.as_str(), |i| &full[..i]);
    let field = |name: Option<&str>| match (path, name) {
        ("", None) => "scenario".to_string(),
        ("", Some(n)) => n.to_string(),
        (p, None) => p.to_string(),
        (p, Some(n)) => format!("{p}.{n}"),
    };
    let at = |value: String, allowed: String, name: Option<&str>| ConfigError {
        field: field(name),
        value,
        allowed,
    };
    if let Some(rest) = msg.strip_prefix(FIELD_ERROR) {
        let mut parts = rest.splitn(3, FIELD_ERROR);
        let (name, value, allowed) = (
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or(""),
        );
        return at(
            value.into(),
            allowed.into(),
            (!name.is_empty()).then_some(name),
        );
    }
    if let Some(rest) = msg.strip_prefix("missing field ") {
        return at(
            "missing".into(),
            "a value: this field is required".into(),
            Some(quoted(rest)),
        );
    }
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let (name, expected) = rest
            .split_once(", expected ")
            .unwrap_or((rest, "no fields"));
        return at(
            quoted(name).into(),
            format!("one of the fields {}", list(expected)),
            None,
        );
    }
    if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let (name, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let names = expected.replace('`', "\"");
        return at(
            format!("\"{}\"", quoted(name)),
            format!("one of {}", names.strip_prefix("one of ").unwrap_or(&names)),
            None,
        );
    }
    if let Some(rest) = msg.strip_prefix("duplicate field ") {
        return at(quoted(rest).into(), "each field once".into(), None);
    }
    for prefix in ["invalid type: ", "invalid value: ", "invalid length "] {
        if let Some(rest) = msg.strip_prefix(prefix) {
            let (got, expected) = rest
                .split_once(", expected ")
                .unwrap_or((rest, "another value"));
            return at(literal(got), expected_text(expected), None);
        }
    }
    // Syntax errors (NaN, 1e400, a missing comma): show the text where it fails.
    let value = snippet(text, e.line(), e.column());
    let allowed = match msg {
        "number out of range" => "a number within ±1.8e308".to_string(),
        other => format!("valid JSON ({other})"),
    };
    at(value, allowed, None)
}

/// `x` → x (serde quotes names in backticks).
fn quoted(s: &str) -> &str {
    s.trim().trim_matches('`')
}

/// "one of `a`, `b`" → "a, b"; "`a` or `b`" → "a or b".
fn list(expected: &str) -> String {
    let names = expected.replace('`', "");
    names.strip_prefix("one of ").unwrap_or(&names).to_string()
}

/// What serde says it got: "floating point `1e30`" → 1e30, "string \"x\"" → "x".
fn literal(got: &str) -> String {
    if let (Some(a), Some(b)) = (got.find('`'), got.rfind('`')) {
        if b > a {
            return got[a + 1..b].to_string();
        }
    }
    if let Some(s) = got.strip_prefix("string ") {
        return s.to_string(); // quoted, as a scenario file writes it
    }
    got.to_string()
}

/// Serde's expectation in words.
fn expected_text(expected: &str) -> String {
    let whole = |max: u64| format!("a whole number from 0 to {max}");
    match expected {
        "u64" | "usize" => whole(u64::MAX),
        "u32" => whole(u32::MAX as u64),
        "u16" => whole(u16::MAX as u64),
        "u8" => whole(u8::MAX as u64),
        "f64" | "f32" => "a number".into(),
        "a boolean" => "true or false".into(),
        "a string" => "a string".into(),
        other if other.starts_with("struct ") => "a table of fields".into(),
        other if other.starts_with("a sequence") || other.starts_with("a tuple") => {
            format!("a list ({other})")
        }
        other => other.replace('`', ""),
    }
}

/// The token of `text` around line `line`, column `column` (1-based), at most 24 characters.
fn snippet(text: &str, line: usize, column: usize) -> String {
    let Some(l) = text.lines().nth(line.saturating_sub(1)) else {
        return "end of input".into();
    };
    let chars: Vec<char> = l.chars().collect();
    let at = column.saturating_sub(1).min(chars.len());
    let delimiter = |c: &char| matches!(c, ':' | ',' | '[' | ']' | '{' | '}') || c.is_whitespace();
    let start = chars[..at].iter().rposition(delimiter).map_or(0, |i| i + 1);
    let end = chars[start..]
        .iter()
        .position(delimiter)
        .map_or(chars.len(), |i| start + i);
    let token: String = chars[start..end.max(start)].iter().take(24).collect();
    if token.is_empty() {
        chars
            .get(at)
            .map_or("end of input".into(), |c| c.to_string())
    } else {
        token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(
        dead_code,
        reason = "the fields are there to be deserialized, not read"
    )]
    struct Inner {
        packets: u64,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(
        dead_code,
        reason = "the fields are there to be deserialized, not read"
    )]
    struct Outer {
        rate: f64,
        list: Vec<Inner>,
    }

    fn e(json: &str) -> String {
        from_str::<Outer>(json).unwrap_err().to_string()
    }

    #[test]
    fn errors_name_the_path_value_and_what_is_allowed() {
        assert_eq!(
            e(r#"{"rate": 1, "list": [{"packets": 1}, {"packets": 1e30}]}"#),
            "list[1].packets: 1e+30 is not allowed (a whole number from 0 to 18446744073709551615)"
        );
        assert_eq!(
            e(r#"{"rate": 1, "list": [{"packets": -5}]}"#),
            "list[0].packets: -5 is not allowed (a whole number from 0 to 18446744073709551615)"
        );
        assert_eq!(
            e(r#"{"rate": "fast", "list": []}"#),
            r#"rate: "fast" is not allowed (a number)"#
        );
        assert_eq!(
            e(r#"{"list": []}"#),
            "rate: missing is not allowed (a value: this field is required)"
        );
        assert_eq!(
            e(r#"{"rate": 1, "list": [], "x": 2}"#),
            "x: x is not allowed (one of the fields rate or list)"
        );
        assert_eq!(
            e(r#"{"rate": NaN, "list": []}"#),
            "rate: NaN is not allowed (valid JSON (expected value))"
        );
        assert_eq!(
            e(r#"{"rate": 1e400, "list": []}"#),
            "rate: 1e400 is not allowed (a number within ±1.8e308)"
        );
        assert!(e(r#"{"rate": 1, "list": []} trailing"#).starts_with("scenario: trailing"));
    }
}
