//! Imports between the modules of each crate run one way: this test reads
//! every crate's sources, takes each module's `crate::` paths (in `use`
//! declarations and in code, not in comments or in its unit tests) as edges
//! to the modules they name, and fails on a cycle, printing it.
//!
//! A module re-exported from another crate (`pub use hscc_model::config;`)
//! is not a module of the crate, so a path through it is not an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Module path (`""` for the root, `"tcp::rtt"`) → source text.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable source folder") {
            let path = entry.expect("a folder entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bin") {
                    stack.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let mut parts: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
                parts.pop();
            }
            if parts.len() == 1 && parts[0] == "main" {
                continue;
            }
            let text = fs::read_to_string(&path).expect("readable source");
            out.insert(parts.join("::"), code_of(&text));
        }
    }
    out
}

/// The code a module runs with: comments dropped, unit tests cut off.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod ") || n.contains(" mod "))
        {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        let line = line.split(" //").next().unwrap_or(line);
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// Every path after `crate::`, with `{a, b::c}` groups spelled out.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `hscc_crate::`, not `crate::`
        }
        expand("", rest, &mut out);
    }
    out
}

/// Paths of the tree at the start of `s` (after `prefix::`) into `out`.
fn expand(prefix: &str, s: &str, out: &mut Vec<String>) {
    let s = s.trim_start();
    if let Some(inner) = s.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    expand(prefix, &inner[start..i], out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(prefix, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(s.len());
    let path = s[..end].trim_end_matches(':');
    let joined = match (prefix.is_empty(), path.is_empty()) {
        (_, true) => prefix.to_string(),
        (true, false) => path.to_string(),
        (false, false) => format!("{prefix}::{path}"),
    };
    if s[end..].starts_with('{') && s[..end].ends_with("::") {
        expand(&joined, &s[end..], out);
    } else if !joined.is_empty() {
        out.push(joined);
    }
}

/// The module a path names: its longest prefix that is a module.
fn module_of<'a>(path: &str, names: &'a BTreeSet<String>) -> Option<&'a String> {
    let segs: Vec<&str> = path.split("::").collect();
    (1..=segs.len())
        .rev()
        .find_map(|n| names.get(&segs[..n].join("::")))
}

/// Edges module → modules it imports (without itself and the root).
fn graph(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let names: BTreeSet<String> = mods.keys().cloned().collect();
    mods.iter()
        .map(|(m, code)| {
            let to = crate_paths(code)
                .iter()
                .filter_map(|p| module_of(p, &names))
                .filter(|t| *t != m && !t.is_empty())
                .cloned()
                .collect();
            (m.clone(), to)
        })
        .collect()
}

/// A cycle of `g`, if there is one, as the modules along it.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        v: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        mark: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        mark.insert(v.to_string(), Mark::Open);
        path.push(v.to_string());
        for w in g.get(v).into_iter().flatten() {
            match mark.get(w).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let at = path.iter().position(|p| p == w).expect("on the path");
                    let mut cycle = path[at..].to_vec();
                    cycle.push(w.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(w, g, mark, path) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        mark.insert(v.to_string(), Mark::Done);
        None
    }
    let mut mark = BTreeMap::new();
    for v in g.keys() {
        if mark.get(v).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(v, g, &mut mark, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn crates() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out: Vec<PathBuf> = fs::read_dir(&root)
        .expect("the crates folder")
        .map(|e| e.expect("a folder entry").path().join("src"))
        .filter(|p| p.join("lib.rs").is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let crates = crates();
    assert!(
        crates.iter().any(|c| c.ends_with("hscc-sim/src")),
        "the walk finds the crates: {crates:?}"
    );
    let mut cycles = Vec::new();
    for src in &crates {
        if let Some(c) = find_cycle(&graph(&modules(src))) {
            cycles.push(format!("{}: {}", src.display(), c.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_walk_sees_groups_and_finds_a_cycle() {
    let code = "use crate::a::{b, c::{d, E}};\nfn f() { crate::x::y(); }\n// crate::z\n";
    assert_eq!(
        crate_paths(&code_of(code)),
        ["a::b", "a::c::d", "a::c::E", "x::y"]
    );
    let mods: BTreeMap<String, String> = [
        ("a", "use crate::b::X;"),
        ("b", "use crate::c::{Y};"),
        ("c", "fn f() { crate::a::g() }"),
        ("d", "use crate::a;"),
    ]
    .into_iter()
    .map(|(m, s)| (m.to_string(), s.to_string()))
    .collect();
    assert_eq!(find_cycle(&graph(&mods)).unwrap(), ["a", "b", "c", "a"]);
    let mut acyclic = mods;
    acyclic.insert("c".into(), String::new());
    assert_eq!(find_cycle(&graph(&acyclic)), None);
}
