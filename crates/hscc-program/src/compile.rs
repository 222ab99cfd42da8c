//! Building a program file for user space: the system C compiler against the
//! shim's headers (bpf/shim/include, embedded in this crate so an installed
//! hscc needs no checkout), with the runtime (csrc/runtime.c) linked in,
//! cached by content in the user's cache directory.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::{globals, symbols};

/// The headers a program builds against and the runtime, by path under the
/// build's include directory.
const SHIM: &[(&str, &str)] = &[
    (
        "vmlinux.h",
        include_str!("../../../bpf/shim/include/vmlinux.h"),
    ),
    (
        "hscc_layout.h",
        include_str!("../../../bpf/shim/include/hscc_layout.h"),
    ),
    (
        "hscc_prandom.h",
        include_str!("../../../bpf/shim/include/hscc_prandom.h"),
    ),
    (
        "bpf/bpf_helpers.h",
        include_str!("../../../bpf/shim/include/bpf/bpf_helpers.h"),
    ),
    (
        "bpf/bpf_tracing.h",
        include_str!("../../../bpf/shim/include/bpf/bpf_tracing.h"),
    ),
    (
        "bpf/bpf_core_read.h",
        include_str!("../../../bpf/shim/include/bpf/bpf_core_read.h"),
    ),
    (
        "bpf_tracing_net.h",
        include_str!("../../../bpf/include/bpf_tracing_net.h"),
    ),
];
const RUNTIME: &str = include_str!("../csrc/runtime.c");

/// The runtime's flags: no stack protector of its own (its calls of the
/// program's hooks would pay for it), and no checked longjmp (it jumps from the
/// hook's stack back to the caller's, which the checked one refuses).
const RUNTIME_FLAGS: &[&str] = &[
    "-std=gnu11",
    "-O2",
    "-g",
    "-fPIC",
    "-fno-stack-protector",
    "-U_FORTIFY_SOURCE",
];

/// How the objects are linked, part of the key: the runtime first, the pad,
/// the program, the guard last (globals.rs), twice.
const LINK: &str = "runtime pad program guard; the pad grown to put the guard on a page";

/// The link's flags, part of the key. -z defs: nothing is left for the
/// loader to find elsewhere. -Bsymbolic: the program's own globals and
/// functions are the ones it uses, not a same-named symbol the process
/// already has (a global `gamma` would otherwise read the C library's
/// function of that name, and the value the scenario sets would go unread).
const LINK_FLAGS: &[&str] = &["-shared", "-Wl,-z,defs", "-Wl,-Bsymbolic"];

/// The program's flags. Kernel BPF semantics where C can have them: signed
/// arithmetic wraps (-fwrapv) and pointers alias freely, as the kernel's own
/// code assumes; a division the processor traps on gets BPF's result
/// (divide.rs); an index out of an array's bounds is caught (the sanitizer
/// calls the runtime, which reports it with file:line); a write past a local
/// array is caught by the stack protector as the function returns (the
/// runtime's __stack_chk_fail reports the function and line). No common
/// symbols: every global lies in the program's .data or .bss (globals.rs).
const FLAGS: &[&str] = &[
    "-std=gnu11",
    "-O2",
    "-g",
    "-fPIC",
    "-fwrapv",
    "-fno-strict-aliasing",
    "-fsanitize=bounds",
    // The C library's checked variants (__memcpy_chk) are not what a BPF
    // program can call; a distribution's default would bring them in.
    "-U_FORTIFY_SOURCE",
    "-fno-sanitize-recover=all",
    "-fstack-protector-strong",
    "-fno-common",
    "-D__TARGET_ARCH_x86",
    "-Wall",
    "-Wno-unused-function",
    "-Wno-unused-variable",
    "-Werror=implicit-function-declaration",
    "-Werror=incompatible-pointer-types",
];

/// A program built for user space.
#[derive(Clone, Debug)]
pub struct Built {
    /// The source file, as given.
    pub source: PathBuf,
    /// The shared object in the cache.
    pub object: PathBuf,
    /// Hex digest of everything the object depends on.
    pub key: String,
}

/// Why a program could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// The file cannot be read.
    Read { file: PathBuf, error: String },
    /// No C compiler.
    NoCompiler { compiler: String, error: String },
    /// The compiler or linker refused it: its messages, which name the file and line.
    Compile { file: PathBuf, output: String },
    /// The cache directory cannot be written.
    Cache { dir: PathBuf, error: String },
    /// It uses what neither it nor the simulator defines (the C library, a
    /// kfunc the simulator lacks):
    /// each symbol with where it is used (`file:line`), when the line table says.
    Refused {
        file: PathBuf,
        uses: Vec<(String, Option<String>)>,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Read { file, error } => write!(f, "cannot read {}: {error}", file.display()),
            BuildError::NoCompiler { compiler, error } => write!(
                f,
                "no C compiler to build the program with ({compiler}: {error}); install gcc or clang, or name one in CC"
            ),
            BuildError::Compile { file, output } => {
                write!(f, "{} does not build:\n{}", file.display(), output.trim_end())
            }
            BuildError::Cache { dir, error } => write!(
                f,
                "cannot write the program cache {}: {error}; set HSCC_CACHE_DIR to a writable directory",
                dir.display()
            ),
            BuildError::Refused { file, uses } => {
                writeln!(f, "{} uses functions a BPF program cannot call:", file.display())?;
                for (symbol, place) in uses {
                    let place = place.clone().unwrap_or_else(|| file.display().to_string());
                    writeln!(
                        f,
                        "  {place}: {symbol} is not provided by hscc's simulator (a BPF program \
                         calls helpers and kfuncs only: the kernel refuses the C library's \
                         functions, and so does hscc)"
                    )?;
                }
                write!(f, "  note: {PROVIDED}")
            }
        }
    }
}

/// What a program may call, for the messages that refuse something else.
const PROVIDED: &str = "hscc's simulator provides the helpers bpf_ktime_get_ns, bpf_jiffies64, \
     bpf_get_prandom_u32, bpf_sk_storage_get, bpf_sk_storage_delete, bpf_printk, \
     bpf_setsockopt, bpf_getsockopt, bpf_tcp_send_ack and the kfuncs tcp_slow_start, \
     tcp_cong_avoid_ai, tcp_reno_ssthresh, tcp_reno_cong_avoid, tcp_reno_undo_cwnd \
     (docs/programs.md)";

impl std::error::Error for BuildError {}

fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string())
}

/// The compiler's identity (its `--version` line), part of the cache key;
/// asked once per compiler and process.
fn compiler_version(cc: &str) -> Result<String, BuildError> {
    static SEEN: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = seen.get(cc) {
        return Ok(v.clone());
    }
    let out = Command::new(cc)
        .arg("--version")
        .output()
        .map_err(|e| BuildError::NoCompiler {
            compiler: cc.to_string(),
            error: e.to_string(),
        })?;
    let line = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    seen.insert(cc.to_string(), line.clone());
    Ok(line)
}

/// Where built programs are kept: `$HSCC_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/hscc`, else `~/.cache/hscc`; programs under `programs/`.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("HSCC_CACHE_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(|v| PathBuf::from(v).join("hscc"))
        })
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/hscc")))
        .unwrap_or_else(|| std::env::temp_dir().join("hscc-cache"));
    base.join("programs")
}

/// Build `source` (or find it built), returning the shared object.
pub fn build(source: &Path) -> Result<Built, BuildError> {
    let text = std::fs::read(source).map_err(|e| BuildError::Read {
        file: source.to_path_buf(),
        error: e.to_string(),
    })?;
    let cc = compiler();
    let version = compiler_version(&cc)?;
    let mut h = Sha256::new();
    for part in [cc.as_bytes(), version.as_bytes(), &text, RUNTIME.as_bytes()] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    for (name, body) in SHIM {
        h.update(name.as_bytes());
        h.update(body.as_bytes());
    }
    for f in FLAGS
        .iter()
        .chain(RUNTIME_FLAGS)
        .chain(LINK_FLAGS)
        .chain([&LINK])
    {
        h.update(f.as_bytes());
    }
    // The path is part of the key: the compiler writes it into the messages
    // and the line table a fault is reported with.
    h.update(source.as_os_str().as_encoded_bytes());
    let source_key = hex(h.finalize());
    let root = cache_dir();
    let cache_err = |e: std::io::Error| BuildError::Cache {
        dir: root.clone(),
        error: e.to_string(),
    };
    // The headers the program includes from outside the shim (the compiler's
    // list, kept beside the objects) are part of the key, by their contents now:
    // editing one rebuilds the program.
    let entry = root.join(&source_key);
    if let Some(headers) = headers_digest(&entry) {
        let key = format!("{source_key}-{headers}");
        let object = entry.join(&headers).join("program.so");
        if object.is_file() {
            return Ok(Built {
                source: source.to_path_buf(),
                object,
                key,
            });
        }
    }
    std::fs::create_dir_all(&entry).map_err(cache_err)?;
    // Built beside the cache entry, then renamed into place: a reader never
    // sees half an entry, and two builders of one program both succeed.
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let tmp = entry.join(format!(
        ".build-{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ));
    let result = build_in(&tmp, source, &cc).and_then(|headers| {
        let listed = headers
            .iter()
            .map(|p| p.to_string_lossy().into_owned() + "\n")
            .collect::<String>();
        // A header gone since the compiler read it: an entry no lookup matches.
        let digest = digest_of(&headers).unwrap_or_else(|| "unread".into());
        let dir = entry.join(&digest);
        let object = dir.join("program.so");
        write_atomically(&entry.join(HEADERS), listed.as_bytes(), &tmp).map_err(cache_err)?;
        match std::fs::rename(&tmp, &dir) {
            Ok(()) => {}
            Err(_) if object.is_file() => {}
            Err(e) => return Err(cache_err(e)),
        }
        Ok(Built {
            source: source.to_path_buf(),
            object,
            key: format!("{source_key}-{digest}"),
        })
    });
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// The file in a program's cache entry that lists the headers it includes.
const HEADERS: &str = "headers";

/// The first 12 bytes of a digest, in hex.
fn hex(digest: impl AsRef<[u8]>) -> String {
    digest
        .as_ref()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The digest of the headers an entry's last build read, as they are now;
/// None when the entry has no list or a listed header cannot be read.
fn headers_digest(entry: &Path) -> Option<String> {
    let listed = std::fs::read_to_string(entry.join(HEADERS)).ok()?;
    let headers: Vec<PathBuf> = listed.lines().map(PathBuf::from).collect();
    digest_of(&headers)
}

/// The digest of `headers`' paths and contents (an empty list has one too).
fn digest_of(headers: &[PathBuf]) -> Option<String> {
    let mut h = Sha256::new();
    for p in headers {
        let body = std::fs::read(p).ok()?;
        for part in [p.as_os_str().as_encoded_bytes(), &body] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
    }
    Some(hex(h.finalize()))
}

/// Write `path` whole or not at all: a temporary file in `scratch`, renamed.
fn write_atomically(path: &Path, bytes: &[u8], scratch: &Path) -> std::io::Result<()> {
    let tmp = scratch.join(".write");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Build `source` in `dir`; the headers it read from outside the shim.
fn build_in(dir: &Path, source: &Path, cc: &str) -> Result<Vec<PathBuf>, BuildError> {
    let cache_err = |e: std::io::Error| BuildError::Cache {
        dir: dir.to_path_buf(),
        error: e.to_string(),
    };
    let include = dir.join("include");
    std::fs::create_dir_all(include.join("bpf")).map_err(cache_err)?;
    for (name, body) in SHIM {
        std::fs::File::create(include.join(name))
            .and_then(|mut f| f.write_all(body.as_bytes()))
            .map_err(cache_err)?;
    }
    std::fs::write(dir.join("runtime.c"), RUNTIME).map_err(cache_err)?;
    let run = |args: &[&std::ffi::OsStr]| -> Result<(), BuildError> {
        let out = Command::new(cc)
            .args(args)
            .output()
            .map_err(|e| BuildError::NoCompiler {
                compiler: cc.to_string(),
                error: e.to_string(),
            })?;
        if out.status.success() {
            return Ok(());
        }
        Err(BuildError::Compile {
            file: source.to_path_buf(),
            output: explain(&String::from_utf8_lossy(&out.stderr)),
        })
    };
    let inc = format!("-I{}", include.display());
    let os = |s: &str| std::ffi::OsString::from(s);
    let mut program: Vec<std::ffi::OsString> = FLAGS.iter().map(|f| os(f)).collect();
    let deps = dir.join("program.d");
    program.extend([
        os(&inc),
        os("-MMD"),
        os("-MF"),
        deps.clone().into_os_string(),
    ]);
    program.extend([os("-c"), source.as_os_str().to_owned(), os("-o")]);
    program.push(dir.join("program.o").into_os_string());
    run(&program.iter().map(|s| s.as_os_str()).collect::<Vec<_>>())?;
    let headers = std::fs::read_to_string(&deps)
        .map(|d| included(&d, source, dir))
        .map_err(cache_err)?;
    let mut runtime: Vec<std::ffi::OsString> = RUNTIME_FLAGS.iter().map(|f| os(f)).collect();
    runtime.extend([
        os(&inc),
        os("-c"),
        dir.join("runtime.c").into_os_string(),
        os("-o"),
        dir.join("runtime.o").into_os_string(),
    ]);
    run(&runtime.iter().map(|s| s.as_os_str()).collect::<Vec<_>>())?;
    let compiled = std::fs::read(dir.join("runtime.o")).map_err(cache_err)?;
    globals::runtime_below(&compiled).map_err(|e| BuildError::Compile {
        file: source.to_path_buf(),
        output: e,
    })?;
    refuse_foreign(dir, source)?;
    let assemble = |name: &str, text: String| -> Result<(), BuildError> {
        let s = dir.join(format!("{name}.s"));
        std::fs::write(&s, text).map_err(cache_err)?;
        let o = dir.join(format!("{name}.o"));
        run(&[
            os("-c").as_os_str(),
            s.as_os_str(),
            os("-o").as_os_str(),
            o.as_os_str(),
        ])
    };
    assemble("guard", globals::guard_source())?;
    assemble("pad", globals::pad_source(0))?;
    // No sanitizer library: the runtime defines the handlers the program
    // calls. The order puts the program's writable data between the pad and
    // the guard.
    let so = dir.join("program.so");
    let mut link: Vec<std::ffi::OsString> = LINK_FLAGS.iter().map(|f| os(f)).collect();
    link.extend([
        dir.join("runtime.o").into_os_string(),
        dir.join("pad.o").into_os_string(),
        dir.join("program.o").into_os_string(),
        dir.join("guard.o").into_os_string(),
        os("-o"),
        so.clone().into_os_string(),
    ]);
    let link_args: Vec<&std::ffi::OsStr> = link.iter().map(|s| s.as_os_str()).collect();
    run(&link_args)?;
    let image = std::fs::read(&so).map_err(cache_err)?;
    let growth = globals::pad_growth(&image).map_err(|e| BuildError::Compile {
        file: source.to_path_buf(),
        output: e,
    })?;
    if growth > 0 {
        assemble("pad", globals::pad_source(growth))?;
        run(&link_args)?;
    }
    Ok(headers)
}

/// Refuse a program whose object uses a symbol neither it nor the runtime
/// defines and the compiler does not emit (symbols.rs), before linking: the
/// linker would take it from the host's C library.
fn refuse_foreign(dir: &Path, source: &Path) -> Result<(), BuildError> {
    let cache_err = |e: std::io::Error| BuildError::Cache {
        dir: dir.to_path_buf(),
        error: e.to_string(),
    };
    let object = dir.join("program.o");
    let program = std::fs::read(&object).map_err(cache_err)?;
    let runtime = std::fs::read(dir.join("runtime.o")).map_err(cache_err)?;
    let uses = symbols::foreign(&program, &runtime).map_err(|e| BuildError::Compile {
        file: source.to_path_buf(),
        output: e,
    })?;
    if uses.is_empty() {
        return Ok(());
    }
    Err(BuildError::Refused {
        file: source.to_path_buf(),
        uses: uses
            .into_iter()
            .map(|u| {
                let place = line_in_object(&object, &u.section, u.offset);
                (u.symbol, place)
            })
            .collect(),
    })
}

/// `file:line` of `offset` in `section` of an object file, from its line
/// table (binutils' addr2line), where one is installed.
fn line_in_object(object: &Path, section: &str, offset: u64) -> Option<String> {
    if section.is_empty() {
        return None;
    }
    let out = Command::new("addr2line")
        .arg("-e")
        .arg(object)
        .arg("-j")
        .arg(section)
        .arg(format!("{offset:#x}"))
        .output()
        .ok()?;
    let place = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .trim()
        .split(" (")
        .next()?
        .to_string();
    (!place.starts_with("??") && !place.ends_with(":0")).then_some(place)
}

/// The files a make rule from the compiler's `-MMD` names, but the program
/// itself and the shim's headers in `dir` (already part of the key): the
/// program's own headers, absolute, in the order the compiler read them.
fn included(rule: &str, source: &Path, dir: &Path) -> Vec<PathBuf> {
    let joined = rule.replace("\\\n", " ");
    let deps = joined.split_once(": ").map_or("", |(_, d)| d);
    let mut files = Vec::new();
    let mut word = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // An escaped space is part of a name.
            '\\' if chars.peek() == Some(&' ') => word.push(chars.next().unwrap_or(' ')),
            c if c.is_whitespace() => files.push(std::mem::take(&mut word)),
            c => word.push(c),
        }
    }
    files.push(word);
    files
        .into_iter()
        .filter(|w| !w.is_empty())
        .map(PathBuf::from)
        .filter(|p| p != source && !p.starts_with(dir))
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .collect()
}

/// The compiler's messages, with a line added where a program uses a helper
/// or kfunc the simulator does not provide.
fn explain(stderr: &str) -> String {
    let mut out = String::new();
    for line in stderr.lines() {
        out.push_str(line);
        out.push('\n');
        let missing = line
            .split_once("implicit declaration of function")
            .map(|(_, r)| r)
            .or_else(|| line.split_once("undefined reference to").map(|(_, r)| r));
        if let Some(rest) = missing {
            let name: String = rest
                .trim()
                .trim_matches(|c: char| "'`‘’\"".contains(c))
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push_str(&format!(
                    "  note: {name} is not provided by hscc's simulator; it {}\n",
                    PROVIDED.trim_start_matches("hscc's simulator ")
                ));
            }
        }
    }
    out
}
