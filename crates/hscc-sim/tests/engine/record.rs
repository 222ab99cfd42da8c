//! The measuring tests' table rows as data. With `HSCC_RESULTS_DIR` set,
//! `row` writes one JSON file per row into that directory (one file each, so
//! tests running in parallel never share a file), and
//! `scripts/validate-engine.sh` merges them into
//! `validation/results/engine.json`. Unset — the default and slow suites —
//! nothing is written and the tests only assert.
//!
//! A row: `name` (unique), `group` (the table it belongs to), `label` (the
//! row in words), `conditions`, `measured`, `reference` (the model's or the
//! paper's values, `null` for none) and `tolerance`: per key of `measured`,
//! a relative tolerance against `reference[key]` (a number), an absolute one
//! (`{"abs": x}`) or bounds (`{"min": a, "max": b}`, either optional) — what
//! the test asserts, from which `validation/results/results.py` computes the
//! verdict. An empty tolerance means the row is reported, not asserted.

use serde_json::{json, Value};

/// The environment variable naming the directory the rows go to.
pub const DIR_VAR: &str = "HSCC_RESULTS_DIR";

/// What one row says besides its numbers.
pub struct Row<'a> {
    pub name: &'a str,
    pub group: &'a str,
    pub label: &'a str,
    pub conditions: &'a str,
}

impl Row<'_> {
    /// Write the row with its numbers if `HSCC_RESULTS_DIR` is set. The test
    /// that wrote it is the current thread's name (libtest names each test's
    /// thread after the test). Panics on a write error: a results run must not
    /// lose a row silently.
    pub fn write(&self, measured: Value, reference: Value, tolerance: Value) {
        let Some(dir) = std::env::var_os(DIR_VAR) else {
            return;
        };
        let test = std::thread::current()
            .name()
            .unwrap_or("unknown")
            .to_string();
        let row = json!({
            "name": self.name,
            "group": self.group,
            "label": self.label,
            "test": test,
            "conditions": self.conditions,
            "measured": measured,
            "reference": reference,
            "tolerance": tolerance,
        });
        let path = std::path::Path::new(&dir).join(format!("{}.json", slug(self.name)));
        let text = serde_json::to_string_pretty(&row).expect("a row is plain JSON");
        if let Err(e) = std::fs::write(&path, text) {
            panic!("{DIR_VAR}: cannot write {}: {e}", path.display());
        }
    }
}

/// `text` in lower case with every run of other characters than letters,
/// digits, '.' and '-' replaced by one '-': a row name usable as a file name.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

#[test]
fn slug_keeps_letters_digits_and_dots() {
    assert_eq!(
        slug("highspeed linux, delayed ACKs 1e-4"),
        "highspeed-linux-delayed-acks-1e-4"
    );
    assert_eq!(slug("CTCP 20 Mbit/s γ=30"), "ctcp-20-mbit-s-30");
}
