//! What the loader reads from a built program before loading it: the
//! struct_ops variables (by their section, as libbpf finds them; which one
//! runs is program.rs's choice) and the
//! parameters: the program's global integers with an initializer, the ones a
//! kernel loader sets through a skeleton's `rodata` and `data` before loading
//! (`const volatile` globals, as libbpf programs declare them; the C compiler
//! keeps volatile ones in `.data`, so a plain initialized global counts too).
//! Zero-initialized globals (`.bss`) and static ones are the program's own.

use object::{Object as _, ObjectSection as _, ObjectSymbol as _, SymbolKind};

/// One global the loader can set: where it is in the file and its default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: String,
    pub size: u8,
    /// Offset of its bytes in the file.
    pub offset: u64,
    /// The program's value, read as an unsigned integer of its size.
    pub default: i64,
}

/// The parts of a built program the loader needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The struct_ops variables, name and address, in the order of their
    /// addresses; at least one.
    pub ops: Vec<(String, u64)>,
    /// The runtime's entry point's address (to find the load base).
    pub entry: u64,
    pub globals: Vec<Global>,
    /// Where the pad below the program's globals and the guard above them
    /// begin ([`crate::globals`]).
    pub fences: (u64, u64),
}

/// Read `image` (a shared object built by compile.rs).
pub fn read(image: &[u8]) -> Result<Layout, String> {
    let file = object::File::parse(image).map_err(|e| format!("not a shared object: {e}"))?;
    let mut ops = Vec::new();
    let mut entry = None;
    let mut globals = Vec::new();
    for sym in file.symbols() {
        let Ok(name) = sym.name() else { continue };
        if name == "hscc_rt_call" {
            entry = Some(sym.address());
        }
        let Some(index) = sym.section_index() else {
            continue;
        };
        let Ok(section) = file.section_by_index(index) else {
            continue;
        };
        let section_name = section.name().unwrap_or("");
        // Sized: the linker's markers (__TMC_END__) can land in the section too.
        if sym.kind() == SymbolKind::Data
            && sym.size() > 0
            && section_name.starts_with(".struct_ops")
        {
            ops.push((name.to_string(), sym.address()));
        }
        let size = sym.size();
        if sym.kind() == SymbolKind::Data
            && sym.is_global()
            && (section_name.starts_with(".rodata") || section_name.starts_with(".data"))
            && matches!(size, 1 | 2 | 4 | 8)
        {
            let Some((start, _)) = section.file_range() else {
                continue;
            };
            let offset = start + (sym.address() - section.address());
            let bytes = image
                .get(offset as usize..(offset + size) as usize)
                .ok_or_else(|| format!("global {name} lies outside the file"))?;
            let mut v = [0u8; 8];
            v[..size as usize].copy_from_slice(bytes);
            globals.push(Global {
                name: name.to_string(),
                size: size as u8,
                offset,
                default: i64::from_le_bytes(v),
            });
        }
    }
    globals.sort_by(|a, b| a.name.cmp(&b.name));
    ops.sort_by_key(|(_, at)| *at);
    let entry = entry.ok_or("the runtime's entry point is missing")?;
    if ops.is_empty() {
        return Err(
            "it defines no struct tcp_congestion_ops in a SEC(\".struct_ops\") or \
             SEC(\".struct_ops.link\") section"
                .to_string(),
        );
    }
    Ok(Layout {
        ops,
        entry,
        globals,
        fences: crate::globals::fences(image)?,
    })
}
