//! The program's globals between two inaccessible pages. A write past the
//! last of them (past its `.data` and `.bss`, through pointer arithmetic the
//! sanitizer cannot see) faults inside the hook, which fault.rs reports with
//! the line, instead of landing in the runtime's or the simulator's memory;
//! so does a write before the first.
//!
//! The build (compile.rs) links the runtime first, then a pad, the program,
//! and a guard last: the writable segment is the runtime's data, the pad, the
//! program's data, its bss and the guard, in that order. It links twice: the
//! first link says where the guard begins, and the second grows the pad so
//! that the program's writable data ends at (or within alignment of) a page
//! boundary, the guard's page right after it. The loader makes the page in
//! the pad and the page in the guard inaccessible ([`protect`]).
//!
//! What the guard cannot see: a write from one global into the next (the
//! compiler and linker order them as they like), and slack the alignment
//! leaves before the guard page (less than the largest alignment among the
//! globals, 32 bytes for gcc's arrays; it belongs to no global).

use object::{Object as _, ObjectSection as _, ObjectSymbol as _};

use crate::guard::page_size;

/// The pad's symbol: the runtime's data lies below it, the program's above.
pub const PAD: &str = "hscc_rt_pad";
/// The guard's symbol: the last thing in the writable segment.
pub const GUARD: &str = "hscc_rt_guard";

/// Assembly of a section of `size` bytes named `symbol` (hidden), 1-aligned
/// so that it begins right where the section before it ends.
fn section(kind: &str, symbol: &str, size: u64) -> String {
    let (name, bits) = match kind {
        "pad" => (".data.hscc_pad", "@progbits"),
        _ => (".bss.hscc_guard", "@nobits"),
    };
    format!(
        "\t.section {name},\"aw\",{bits}\n\t.globl {symbol}\n\t.hidden {symbol}\n\
         {symbol}:\n\t.zero {size}\n\t.size {symbol}, {size}\n\
         \t.section .note.GNU-stack,\"\",@progbits\n"
    )
}

/// The pad, `extra` bytes more than the two pages that hold a whole page.
pub fn pad_source(extra: u64) -> String {
    section("pad", PAD, 2 * page_size() as u64 + extra)
}

/// The guard: two pages, so that a whole page lies within it.
pub fn guard_source() -> String {
    section("guard", GUARD, 2 * page_size() as u64)
}

/// Where a linked image's pad and guard begin (addresses from its load base).
pub fn fences(image: &[u8]) -> Result<(u64, u64), String> {
    let file = object::File::parse(image).map_err(|e| format!("not a shared object: {e}"))?;
    let at = |name: &str| {
        file.symbols()
            .find(|s| s.name() == Ok(name))
            .map(|s| s.address())
            .ok_or_else(|| format!("the guard's symbol {name} is missing"))
    };
    Ok((at(PAD)?, at(GUARD)?))
}

/// How many bytes more the pad needs for the guard to begin at a page
/// boundary, in the image linked with the smallest pad: a multiple of the
/// largest alignment among the sections after the pad, so that each moves by
/// exactly that much.
pub fn pad_growth(image: &[u8]) -> Result<u64, String> {
    let (pad, guard) = fences(image)?;
    let file = object::File::parse(image).map_err(|e| format!("not a shared object: {e}"))?;
    let align = file
        .sections()
        // Every section that holds something after the pad: .data, which
        // begins below it, takes the largest alignment of its parts.
        .filter(|s| s.size() > 0 && s.address() + s.size() > pad && s.address() <= guard)
        .map(|s| s.align().max(1))
        .chain([1])
        .max()
        .unwrap_or(1);
    let page = page_size() as u64;
    let short = (page - guard % page) % page;
    Ok(short / align * align)
}

/// Refuse a runtime object with zero-initialised data (`.bss`): the linker
/// would put it after the program's data, within reach of a write past the
/// program's globals; the runtime keeps its data in `.data`, below the pad.
pub fn runtime_below(runtime: &[u8]) -> Result<(), String> {
    let file = object::File::parse(runtime).map_err(|e| format!("not an object file: {e}"))?;
    match file.sections().find(|s| {
        s.size() > 0
            && s.name()
                .is_ok_and(|n| n == ".bss" || n.starts_with(".bss."))
    }) {
        Some(s) => Err(format!(
            "the runtime has {} bytes in {} (it must keep its data in .data, below the \
             program's globals)",
            s.size(),
            s.name().unwrap_or(".bss")
        )),
        None => Ok(()),
    }
}

/// The loaded program's two inaccessible pages: in the pad, below its data,
/// and in the guard, above it.
#[derive(Clone, Copy, Debug)]
pub struct Fences {
    below: u64,
    above: u64,
}

/// Make the page in the pad and the page in the guard of the program loaded
/// at `base` inaccessible; `pad` and `guard` from [`fences`].
pub fn protect(base: u64, pad: u64, guard: u64) -> Result<Fences, String> {
    let page = page_size() as u64;
    let up = |a: u64| base.wrapping_add(a).div_ceil(page) * page;
    let f = Fences {
        below: up(pad),
        above: up(guard),
    };
    for at in [f.below, f.above] {
        // SAFETY: the page lies within the pad or the guard (each holds a
        // whole page), sections of the program's own mapping that nothing
        // reads or writes.
        if unsafe {
            libc::mprotect(
                at as usize as *mut libc::c_void,
                page as usize,
                libc::PROT_NONE,
            )
        } != 0
        {
            return Err(format!(
                "cannot protect the pages around its globals: {} (each loaded program \
                 holds a few mappings, and vm.max_map_count limits them)",
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(f)
}

impl Fences {
    /// Whether `addr` is in the page right after the program's globals.
    pub fn just_past(&self, addr: u64) -> bool {
        (self.above..self.above + page_size() as u64).contains(&addr)
    }

    /// Whether `addr` is in the page right before them.
    pub fn just_before(&self, addr: u64) -> bool {
        (self.below..self.below + page_size() as u64).contains(&addr)
    }
}
