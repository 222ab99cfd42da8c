//! Digest of the sources that decide a run's numbers (the engine, its
//! configuration with every default, the algorithms, the runtime of a user's
//! program, their manifests and the lock file; each Rust file without its unit
//! tests), as `HSCC_ENGINE_DIGEST`.
//! A sweep's cache keys carry it, so a run stored by another build of the
//! engine is never taken for this one's (the crate version alone does not
//! change when the code does). The pre-run estimate (`hscc-sim/src/estimate`)
//! is left out: it decides whether a run starts, never a number it computes;
//! so is the algorithms' test harness (`hscc-cc/src/testing`), which only
//! tests use.

use sha2::{Digest, Sha256};
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let here =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let crates = here.parent().expect("crates/hscc-py has a parent");
    let mut files = Vec::new();
    for krate in ["hscc-model", "hscc-sim", "hscc-cc", "hscc-program"] {
        let dir = crates.join(krate);
        println!("cargo:rerun-if-changed={}", dir.join("src").display());
        println!(
            "cargo:rerun-if-changed={}",
            dir.join("Cargo.toml").display()
        );
        files.push(dir.join("Cargo.toml"));
        collect(&dir.join("src"), &mut files);
    }
    for left_out in [
        crates.join("hscc-sim").join("src").join("estimate"),
        crates.join("hscc-cc").join("src").join("testing"),
    ] {
        files.retain(|f| !f.starts_with(&left_out) && *f != left_out.with_extension("rs"));
    }
    let workspace = crates.parent().expect("the workspace holds crates/");
    // What hscc-program compiles into every user's program (its runtime and
    // the shim's headers, include_str!'d from outside its src): a program
    // file's run depends on them as on the engine.
    for dir in [
        crates.join("hscc-program").join("csrc"),
        workspace.join("bpf").join("shim").join("include"),
        workspace.join("bpf").join("include"),
    ] {
        println!("cargo:rerun-if-changed={}", dir.display());
        collect(&dir, &mut files);
    }
    let lock = workspace.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    files.push(lock);
    files.sort();
    let mut hash = Sha256::new();
    for f in &files {
        // The path within the workspace, '/'-separated: the same digest wherever
        // the tree is checked out, on any system.
        let rel: Vec<String> = f
            .strip_prefix(workspace)
            .expect("every hashed file is in the workspace")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        hash.update(rel.join("/").as_bytes());
        hash.update([0]);
        let bytes = fs::read(f).unwrap_or_default();
        let code = if f.extension().is_some_and(|e| e == "rs") {
            without_unit_tests(&bytes)
        } else {
            &bytes
        };
        hash.update(code);
        hash.update([0]);
    }
    let digest: String = hash
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    println!("cargo:rustc-env=HSCC_ENGINE_DIGEST={digest}");
}

/// A Rust source without its unit tests: the bytes before a last item
/// `#[cfg(test)]` + `mod tests {` at column 0, when every line after it is
/// indented or blank up to the module's closing `}` at the file's end (else the
/// whole file). The tests decide no run's numbers, so editing them keeps every
/// stored run and dated note current.
fn without_unit_tests(bytes: &[u8]) -> &[u8] {
    const START: &[u8] = b"\n#[cfg(test)]\nmod tests {\n";
    let Some(at) = bytes.windows(START.len()).rposition(|w| w == START) else {
        return bytes;
    };
    let rest: Vec<&[u8]> = bytes[at + START.len()..]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    match rest.split_last() {
        Some((last, body)) if *last == b"}" && body.iter().all(|l| l[0] == b' ') => {
            &bytes[..at + 1]
        }
        _ => bytes,
    }
}

/// Every file under `dir`, recursively (directories read in any order; the caller sorts).
fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out); // cargo watches the whole src tree (rerun-if-changed on a directory)
        } else {
            out.push(path);
        }
    }
}
