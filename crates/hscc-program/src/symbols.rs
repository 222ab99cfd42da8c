//! What a program may take from outside its own file: the helpers and kfuncs
//! the runtime defines (runtime.c, the shim's headers), and what the C
//! compiler emits on its own (memcpy/memset/memmove for struct copies, the
//! stack protector's and thread-local storage's calls, libgcc's arithmetic),
//! which the kernel's build gets as builtins too. Anything else (printf, rand,
//! malloc, system, ...) is the host's C library, which the kernel refuses a
//! BPF program; the build refuses it, naming the symbol and where it is used.

use object::{Object as _, ObjectSection as _, ObjectSymbol as _, RelocationTarget};

/// One use of a symbol the program may not have: its name and the place
/// (section and offset in the program's object) that refers to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Use {
    pub symbol: String,
    pub section: String,
    pub offset: u64,
}

/// What the compiler emits calls to by itself.
const COMPILER: &[&str] = &[
    "memcpy",
    "memset",
    "memmove",
    "__stack_chk_fail",
    "__tls_get_addr",
    "_GLOBAL_OFFSET_TABLE_",
];

/// Whether the program may use `name` when the runtime does not define it.
pub fn compiler_emits(name: &str) -> bool {
    COMPILER.contains(&name) || is_libgcc_arithmetic(name)
}

/// libgcc's integer helpers (`__divti3`, `__popcountdi2`, `__udivmodti4`):
/// `__`, a lowercase name, a machine mode (qi, hi, si, di, ti) and the
/// operand count.
fn is_libgcc_arithmetic(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("__") else {
        return false;
    };
    let Some(stem) = rest.strip_suffix(['2', '3', '4']) else {
        return false;
    };
    ["qi", "hi", "si", "di", "ti"].iter().any(|mode| {
        stem.strip_suffix(mode)
            .is_some_and(|op| !op.is_empty() && op.chars().all(|c| c.is_ascii_lowercase()))
    })
}

/// The global symbols an object defines.
fn defined(object: &object::File) -> Vec<String> {
    object
        .symbols()
        .filter(|s| s.is_global() && !s.is_undefined())
        .filter_map(|s| s.name().ok().map(str::to_string))
        .collect()
}

/// The uses in `program` (the program's object, before linking) of symbols
/// neither it nor `runtime` (the runtime's object) defines and the compiler
/// does not emit: one per symbol, the first in the file's order.
pub fn foreign(program: &[u8], runtime: &[u8]) -> Result<Vec<Use>, String> {
    let prog = object::File::parse(program).map_err(|e| format!("not an object file: {e}"))?;
    let rt = object::File::parse(runtime).map_err(|e| format!("not an object file: {e}"))?;
    let provided = defined(&rt);
    let refused = |name: &str| !provided.iter().any(|p| p == name) && !compiler_emits(name);
    let mut uses: Vec<Use> = Vec::new();
    let mut unplaced: Vec<String> = prog
        .symbols()
        .filter(|s| s.is_undefined())
        .filter_map(|s| s.name().ok())
        .filter(|n| !n.is_empty() && refused(n))
        .map(str::to_string)
        .collect();
    for section in prog.sections() {
        let name = section.name().unwrap_or("");
        if name.starts_with(".debug") || name.starts_with(".rela.debug") {
            continue;
        }
        for (offset, reloc) in section.relocations() {
            let RelocationTarget::Symbol(index) = reloc.target() else {
                continue;
            };
            let Ok(symbol) = prog.symbol_by_index(index) else {
                continue;
            };
            let Ok(symbol) = symbol.name() else { continue };
            if let Some(i) = unplaced.iter().position(|u| u == symbol) {
                unplaced.remove(i);
                uses.push(Use {
                    symbol: symbol.to_string(),
                    section: name.to_string(),
                    offset,
                });
            }
        }
    }
    // Referred to from nowhere the relocations say (not expected): by name only.
    uses.extend(unplaced.into_iter().map(|symbol| Use {
        symbol,
        section: String::new(),
        offset: 0,
    }));
    Ok(uses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compilers_own_calls_are_allowed_and_the_c_library_is_not() {
        for name in [
            "memcpy",
            "memset",
            "__stack_chk_fail",
            "__divti3",
            "__popcountdi2",
            "__udivmodti4",
        ] {
            assert!(compiler_emits(name), "{name}");
        }
        for name in [
            "printf",
            "rand",
            "malloc",
            "system",
            "__printf_chk",
            "__fprintf_chk",
            "__memcpy_chk",
            "__errno_location",
            "__di3",
        ] {
            assert!(!compiler_emits(name), "{name}");
        }
    }
}
