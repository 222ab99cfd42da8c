//! Python's `json.dumps(data, indent=2)` layout, byte for byte, from the compact
//! text of `json.dumps(data, separators=(",", ":"))`. Python indents only in its
//! pure-Python encoder (0.3 ms for a short run's summary.json); its C encoder
//! writes compact text five times faster, and laying that text out is a scan.

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

#[cfg(test)]
mod tests {
    use super::indent;

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
