//! The kernel's BPF result for a division that traps in a hook.
//!
//! BPF defines every division (Linux Documentation/bpf/standardization/
//! instruction-set.rst, kernel/bpf/core.c): `x / 0 = 0` and `x % 0 = x`,
//! signed or not, and for the signed forms `MIN / -1 = MIN` (it wraps) and
//! `MIN % -1 = 0`; a 32-bit result is zero-extended. x86_64's `div` and
//! `idiv` trap on exactly these operands instead (#DE, SIGFPE), so when one
//! traps inside a hook the signal handler ([`emulate`], called by fault.rs)
//! decodes the instruction at the faulting address, writes the BPF result into
//! its destination registers and resumes after it: the hook goes on as the
//! kernel's would.
//!
//! An instruction it does not decode (another opcode, an fs/gs segment or
//! 32-bit address override) keeps the report fault.rs gives any arithmetic
//! fault. Other architectures: no emulation, the report as well.

/// A decoded `div`/`idiv`: operand size in bytes, signedness, where the
/// divisor is, and the instruction's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Div {
    pub size: u8,
    pub signed: bool,
    pub divisor: Divisor,
    pub len: usize,
}

/// Where a division's divisor is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Divisor {
    /// A general register by its x86 number (0 = rax … 15 = r15); the low
    /// `size` bytes of it.
    Reg(usize),
    /// AH, CH, DH or BH: bits 8..16 of register 0..3 (8-bit form, no REX).
    HighByte(usize),
    /// Memory at this address.
    Mem(u64),
}

/// Decode the instruction at `code` (bytes from the program counter `rip`) if
/// it is `div` or `idiv` (F6 /6, F6 /7, F7 /6, F7 /7 with an operand-size or
/// REX prefix); `reg(n)` reads general register `n` (x86 numbering).
pub fn decode(code: &[u8], rip: u64, reg: impl Fn(usize) -> u64) -> Option<Div> {
    let mut i = 0;
    let mut operand16 = false;
    // Legacy prefixes; fs/gs (64, 65) and the address-size override (67)
    // are not decoded.
    loop {
        match *code.get(i)? {
            0x66 => operand16 = true,
            0xF2 | 0xF3 | 0x2E | 0x3E | 0x26 | 0x36 => {}
            _ => break,
        }
        i += 1;
    }
    let mut rex = 0u8;
    if (0x40..=0x4F).contains(code.get(i)?) {
        rex = code[i];
        i += 1;
    }
    let opcode = *code.get(i)?;
    let modrm = *code.get(i + 1)?;
    i += 2;
    let signed = match (modrm >> 3) & 7 {
        6 => false,
        7 => true,
        _ => return None,
    };
    let size = match opcode {
        0xF6 => 1,
        0xF7 if rex & 8 != 0 => 8,
        0xF7 if operand16 => 2,
        0xF7 => 4,
        _ => return None,
    };
    let (mode, rm) = (modrm >> 6, (modrm & 7) as usize);
    let b = usize::from(rex & 1) * 8;
    let x = usize::from((rex >> 1) & 1) * 8;
    if mode == 3 {
        let divisor = if size == 1 && rex == 0 && rm >= 4 {
            Divisor::HighByte(rm - 4)
        } else {
            Divisor::Reg(rm + b)
        };
        return Some(Div {
            size,
            signed,
            divisor,
            len: i,
        });
    }
    let mut rip_relative = false;
    let mut disp32 = mode == 2;
    let mut addr: u64 = 0;
    if rm == 4 {
        let sib = *code.get(i)?;
        i += 1;
        let (scale, index, base) = (sib >> 6, ((sib >> 3) & 7) as usize, (sib & 7) as usize);
        if base == 5 && mode == 0 {
            disp32 = true; // no base
        } else {
            addr = reg(base + b);
        }
        if index + x != 4 {
            addr = addr.wrapping_add(reg(index + x) << scale);
        }
    } else if rm == 5 && mode == 0 {
        rip_relative = true;
        disp32 = true;
    } else {
        addr = reg(rm + b);
    }
    let disp = if disp32 {
        let d = code.get(i..i + 4)?;
        i += 4;
        i64::from(i32::from_le_bytes([d[0], d[1], d[2], d[3]]))
    } else if mode == 1 {
        let d = *code.get(i)?;
        i += 1;
        i64::from(d as i8)
    } else {
        0
    };
    addr = addr.wrapping_add(disp as u64);
    if rip_relative {
        // Relative to the next instruction.
        addr = addr.wrapping_add(rip).wrapping_add(i as u64);
    }
    Some(Div {
        size,
        signed,
        divisor: Divisor::Mem(addr),
        len: i,
    })
}

/// BPF's result of the trapping division `div` by `divisor` (its low `size`
/// bytes count) on the registers `(rax, rdx)` as they are: the registers
/// after it, or None when these operands should not have trapped (a
/// quotient too large for an unsigned division, which BPF code cannot ask for).
pub fn bpf_result(div: &Div, rax: u64, rdx: u64, divisor: u64) -> Option<(u64, u64)> {
    let bits = u32::from(div.size) * 8;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let d = divisor & mask;
    // The dividend's low half: AL for the 8-bit form (AX holds it widened),
    // else the low `size` bytes of rax (rdx holds the widening).
    let low = rax & mask;
    let min = 1u64 << (bits - 1);
    let (q, r) = if d == 0 {
        (0, low)
    } else if div.signed && d == mask && low == min {
        (min, 0)
    } else {
        return None;
    };
    Some(match div.size {
        1 => ((rax & !0xFFFF) | (r << 8) | q, rdx),
        2 => ((rax & !0xFFFF) | q, (rdx & !0xFFFF) | r),
        // A 32-bit write zero-extends, as BPF's 32-bit forms do.
        _ => (q, r),
    })
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod x86_64 {
    use super::{bpf_result, decode, Divisor};

    /// `gregs` index of each x86 register number.
    const GREGS: [libc::c_int; 16] = [
        libc::REG_RAX,
        libc::REG_RCX,
        libc::REG_RDX,
        libc::REG_RBX,
        libc::REG_RSP,
        libc::REG_RBP,
        libc::REG_RSI,
        libc::REG_RDI,
        libc::REG_R8,
        libc::REG_R9,
        libc::REG_R10,
        libc::REG_R11,
        libc::REG_R12,
        libc::REG_R13,
        libc::REG_R14,
        libc::REG_R15,
    ];

    /// Linux's si_code for an integer divide by zero and overflow.
    const FPE_INTDIV: libc::c_int = 1;
    const FPE_INTOVF: libc::c_int = 2;

    /// Give the faulting division BPF's result in the interrupted context
    /// `ctx` and step past it; false (nothing changed) when the fault is not
    /// one this handles.
    ///
    /// # Safety
    /// `info` and `ctx` are the siginfo and ucontext the kernel passed to an
    /// SA_SIGINFO handler of SIGFPE, on the thread that faulted.
    pub unsafe fn emulate(info: *const libc::siginfo_t, ctx: *mut libc::c_void) -> bool {
        // SAFETY: see the function's contract.
        let code = unsafe { (*info).si_code };
        if code != FPE_INTDIV && code != FPE_INTOVF {
            return false;
        }
        let uc = ctx.cast::<libc::ucontext_t>();
        // SAFETY: `uc` is the interrupted context; its gregs are plain data.
        let gregs = unsafe { &mut (*uc).uc_mcontext.gregs };
        let reg = |n: usize| gregs[GREGS[n] as usize] as u64;
        let rip = gregs[libc::REG_RIP as usize] as u64;
        // The instruction's bytes (15 is x86's longest), to the end of its
        // page first: the page after may be unmapped when it ends there.
        let in_page = (4096 - (rip % 4096) as usize).min(15);
        let read = |n: usize| {
            let mut bytes = [0u8; 15];
            // SAFETY: the instruction that trapped is at rip, in an
            // executable (readable) mapping: its first `in_page` bytes are
            // on its page, and when it is longer it is mapped on the next.
            unsafe {
                core::ptr::copy_nonoverlapping(rip as usize as *const u8, bytes.as_mut_ptr(), n)
            };
            bytes
        };
        let div = match decode(&read(in_page)[..in_page], rip, reg) {
            Some(d) => d,
            None if in_page < 15 => match decode(&read(15), rip, reg) {
                Some(d) => d,
                None => return false,
            },
            None => return false,
        };
        let divisor = match div.divisor {
            Divisor::Reg(n) => reg(n),
            Divisor::HighByte(n) => reg(n) >> 8,
            // SAFETY: the processor read these bytes to divide by them just
            // before it trapped, so they are mapped and readable.
            Divisor::Mem(a) => unsafe {
                let p = a as usize as *const u8;
                match div.size {
                    1 => u64::from(p.read()),
                    2 => u64::from(p.cast::<u16>().read_unaligned()),
                    4 => u64::from(p.cast::<u32>().read_unaligned()),
                    _ => p.cast::<u64>().read_unaligned(),
                }
            },
        };
        let Some((rax, rdx)) = bpf_result(&div, reg(0), reg(2), divisor) else {
            return false;
        };
        gregs[libc::REG_RAX as usize] = rax as i64;
        gregs[libc::REG_RDX as usize] = rdx as i64;
        gregs[libc::REG_RIP as usize] = rip.wrapping_add(div.len as u64) as i64;
        true
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub use x86_64::emulate;

/// Other architectures: no emulation (the fault is reported).
///
/// # Safety
/// None needed; the signature matches the x86_64 one.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
pub unsafe fn emulate(_info: *const libc::siginfo_t, _ctx: *mut libc::c_void) -> bool {
    false
}
