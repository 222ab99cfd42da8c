//! Python's `json.dumps(data, indent=2)` layout, byte for byte, from the compact
//! text of `json.dumps(data, separators=(",", ":"))`. Python indents only in its
//! pure-Python encoder (0.3 ms for a short run's summary.json); its C encoder
//! writes compact text five times faster, and laying that text out is a scan.
//! The run tables' summary.json is written here too, its numbers and strings
//! exactly as Python's encoder writes them (`float`, `string`).

/// `compact` laid out as `json.dumps(..., indent=width)` would (a newline and
/// `width` spaces per level after each `[`, `{` and `,`, `": "` between a key and
/// its value, `[]` and `{}` kept empty), followed by a newline.
pub fn indent(compact: &str, width: usize) -> Vec<u8> {
    let b = compact.as_bytes();
    let mut out = Vec::with_capacity(b.len() * 2);
    let mut depth = 0usize;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.resize(out.len() + depth * width, b' ');
    };
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'"' => {
                // A string, copied as it is: its commas, colons and brackets are text.
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.extend_from_slice(&b[start..i]);
                continue;
            }
            b'{' | b'[' => {
                out.push(c);
                if matches!(b.get(i + 1), Some(b'}' | b']')) {
                    out.push(b[i + 1]);
                    i += 1;
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            b',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(c),
        }
        i += 1;
    }
    out.push(b'\n');
    out
}

/// `x` as Python's `json.dumps` writes a float (its `repr`): the shortest digits
/// that read back as `x`, positional from 1e-4 up to 1e16, else `1e-05`-style;
/// None for NaN and infinities, which hscc's JSON files never hold.
pub fn float(out: &mut String, x: f64) -> Option<()> {
    if !x.is_finite() {
        return None;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return Some(());
    }
    // Rust's `{:e}` without a precision is the shortest round-trip form too: "d.ddde±x".
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let point = exp.parse::<i32>().expect("an integer exponent") + 1; // x = 0.digits × 10^point
    let n = digits.len() as i32;
    if x < 0.0 {
        out.push('-');
    }
    if point <= -4 || point > 16 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = point - 1;
        out.push_str(&format!("e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs()));
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else if point >= n {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - n) as usize));
        out.push_str(".0");
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    Some(())
}

/// `s` as a JSON string the way Python's `json.dumps` (ensure_ascii) writes it:
/// printable ASCII as it is, the usual short escapes, anything else `\uXXXX`.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::indent;

    fn float_text(x: f64) -> String {
        let mut s = String::new();
        super::float(&mut s, x).unwrap();
        s
    }

    #[test]
    fn floats_as_python_repr() {
        // repr() of each, from Python 3.11.
        let cases = [
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (1e-4, "0.0001"),
            (0.00012345, "0.00012345"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (12345678901234567.0, "1.2345678901234568e+16"),
            (100.0, "100.0"),
            (-2.5, "-2.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (123.456, "123.456"),
            (1.5e-7, "1.5e-07"),
            (2.0f64.powi(60), "1.152921504606847e+18"),
        ];
        for (x, text) in cases {
            assert_eq!(float_text(x), text, "{x:e}");
        }
        assert!(super::float(&mut String::new(), f64::NAN).is_none());
        assert!(super::float(&mut String::new(), f64::INFINITY).is_none());
    }

    #[test]
    fn strings_as_python_ensure_ascii() {
        let mut s = String::new();
        // json.dumps('a"b\\c\n\x01\x7fé😀')
        super::string(&mut s, "a\"b\\c\n\u{1}\u{7f}é😀");
        assert_eq!(s, r#""a\"b\\c\n\u0001\u007f\u00e9\ud83d\ude00""#);
    }

    fn shown(compact: &str) -> String {
        String::from_utf8(indent(compact, 2)).unwrap()
    }

    #[test]
    fn lays_out_as_python_does() {
        // json.dumps({"a": [1, 2.5, {}], "b": {"c": null, "d": []}, "e": "x,y:[z]{\"}"}, indent=2) + "\n"
        let compact = r#"{"a":[1,2.5,{}],"b":{"c":null,"d":[]},"e":"x,y:[z]{\"}"}"#;
        let expected = "{\n  \"a\": [\n    1,\n    2.5,\n    {}\n  ],\n  \"b\": {\n    \"c\": null,\n    \"d\": []\n  },\n  \"e\": \"x,y:[z]{\\\"}\"\n}\n";
        assert_eq!(shown(compact), expected);
    }

    #[test]
    fn scalars_and_escaped_backslashes() {
        assert_eq!(shown("3"), "3\n");
        assert_eq!(shown(r#""a\\""#), "\"a\\\\\"\n");
        assert_eq!(shown(r#"["a\\",1]"#), "[\n  \"a\\\\\",\n  1\n]\n");
        assert_eq!(shown("[]"), "[]\n");
    }
}
