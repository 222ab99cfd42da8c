//! Divisions that trap on x86_64, run as a hook runs (under the fault
//! handler): each gets BPF's result (Linux instruction-set.rst: `x / 0 = 0`,
//! `x % 0 = x`, signed `MIN / -1 = MIN`, `MIN % -1 = 0`, 32-bit results
//! zero-extended) and execution goes on after the instruction.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]
#![allow(
    unsafe_code,
    reason = "executes the trapping instructions themselves: each block says why it is sound"
)]

use core::arch::asm;

/// A fault the handler did not emulate ends the test process: no hook frame
/// to jump back to here.
unsafe extern "C" fn not_emulated(_sig: libc::c_int, _pc: u64, _addr: u64) {
    std::process::abort();
}

/// Run `f` as a hook runs.
fn in_hook<R>(f: impl FnOnce() -> R) -> R {
    crate::test_env();
    hscc_program::fault::install();
    hscc_program::fault::guarded(not_emulated, f)
}

static ZERO32: u32 = 0;

#[test]
fn unsigned_32_bit_by_a_zero_register_and_memory() {
    // div r32: EDX:EAX / r32 → EAX quotient, EDX remainder.
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (0xFFFF_FFFF_0000_0007u64, 0u64);
        // SAFETY: a division by a zero register; the handler resumes after it.
        unsafe { asm!("div {z:e}", z = in(reg) 0u64, inout("rax") a, inout("rdx") d) };
        (a, d)
    });
    // 7 / 0 = 0, 7 % 0 = 7, both zero-extended.
    assert_eq!((rax, rdx), (0, 7));
    let zero = [5u32, 0u32];
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (1234u64, 0u64);
        // SAFETY: the divisor is zero[1], readable.
        unsafe {
            asm!("div dword ptr [{p} + 4]", p = in(reg) zero.as_ptr(), inout("rax") a, inout("rdx") d)
        };
        (a, d)
    });
    assert_eq!((rax, rdx), (0, 1234));
    // RIP-relative memory operand.
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (99u64, 0u64);
        // SAFETY: the divisor is the static ZERO32.
        unsafe {
            asm!("div dword ptr [rip + {z}]", z = sym ZERO32, inout("rax") a, inout("rdx") d)
        };
        (a, d)
    });
    assert_eq!((rax, rdx), (0, 99));
}

#[test]
fn unsigned_64_bit_by_zero_in_an_extended_register_and_indexed_memory() {
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (0x1_0000_0005u64, 0u64);
        // SAFETY: a division by a zero register (r9: REX.B).
        unsafe { asm!("div r9", in("r9") 0u64, inout("rax") a, inout("rdx") d) };
        (a, d)
    });
    assert_eq!((rax, rdx), (0, 0x1_0000_0005));
    let words = [1u64, 2, 0, 3];
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (u64::MAX, 0u64);
        // SAFETY: base + index * 8: words[2] = 0, readable.
        unsafe {
            asm!("div qword ptr [{b} + {i} * 8]", b = in(reg) words.as_ptr(), i = in(reg) 2u64,
                 inout("rax") a, inout("rdx") d)
        };
        (a, d)
    });
    assert_eq!((rax, rdx), (0, u64::MAX));
}

#[test]
fn signed_32_bit_by_zero_and_min_by_minus_one() {
    // -7 / 0 = 0, -7 % 0 = -7 (0xFFFF_FFF9, zero-extended to 64 bits).
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (0xFFFF_FFF9u64, 0xFFFF_FFFFu64);
        // SAFETY: a division by a zero register.
        unsafe { asm!("idiv {z:e}", z = in(reg) 0u64, inout("rax") a, inout("rdx") d) };
        (a, d)
    });
    assert_eq!((rax, rdx), (0, 0xFFFF_FFF9));
    // i32::MIN / -1 = i32::MIN (wraps), i32::MIN % -1 = 0.
    let minus_one = [-1i32];
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (0x8000_0000u64, 0xFFFF_FFFFu64);
        // SAFETY: the divisor is minus_one[0], readable.
        unsafe {
            asm!("idiv dword ptr [{p}]", p = in(reg) minus_one.as_ptr(), inout("rax") a, inout("rdx") d)
        };
        (a, d)
    });
    assert_eq!((rax, rdx), (0x8000_0000, 0));
}

#[test]
fn signed_64_bit_by_zero_and_min_by_minus_one() {
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = ((-7i64) as u64, u64::MAX);
        // SAFETY: a division by a zero register.
        unsafe { asm!("idiv {z}", z = in(reg) 0u64, inout("rax") a, inout("rdx") d) };
        (a, d)
    });
    assert_eq!((rax, rdx), (0, (-7i64) as u64));
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (i64::MIN as u64, u64::MAX);
        // SAFETY: a division by -1 in r12 (REX.B).
        unsafe { asm!("idiv r12", in("r12") -1i64, inout("rax") a, inout("rdx") d) };
        (a, d)
    });
    assert_eq!((rax, rdx), (i64::MIN as u64, 0));
    let minus_one = [0i64, -1i64];
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (i64::MIN as u64, u64::MAX);
        // SAFETY: the divisor is minus_one[1] (an 8-bit displacement).
        unsafe {
            asm!("idiv qword ptr [{p} + 8]", p = in(reg) minus_one.as_ptr(), inout("rax") a, inout("rdx") d)
        };
        (a, d)
    });
    assert_eq!((rax, rdx), (i64::MIN as u64, 0));
}

#[test]
fn the_8_and_16_bit_forms_keep_the_bits_they_do_not_write() {
    // div r/m8: AX / r8 → AL quotient, AH remainder; the rest of rax stays.
    let rax = in_hook(|| {
        let mut a = 0x1234_0000_0000_00C8u64; // AX = 200
                                              // SAFETY: a division by CH = 0 (no REX: the high-byte register).
        unsafe { asm!("div ch", in("rcx") 0x00FFu64, inout("rax") a, out("rdx") _) };
        a
    });
    assert_eq!(rax, 0x1234_0000_0000_C800, "AL = 0, AH = 200");
    // div r/m16: DX:AX / r16 → AX, DX; the upper 48 bits of both stay.
    let (rax, rdx) = in_hook(|| {
        let (mut a, mut d) = (0xAAAA_BBBB_CCCC_1234u64, 0x5555_6666_7777_0000u64);
        // SAFETY: a division by a zero register (operand-size prefix).
        unsafe { asm!("div {z:x}", z = in(reg) 0u64, inout("rax") a, inout("rdx") d) };
        (a, d)
    });
    assert_eq!((rax, rdx), (0xAAAA_BBBB_CCCC_0000, 0x5555_6666_7777_1234));
}

#[test]
fn only_the_divisions_bpf_defines_are_emulated() {
    use hscc_program::divide::{bpf_result, decode, Div, Divisor};
    // 10 / 2 does not trap: no BPF result to give.
    let div = Div {
        size: 4,
        signed: false,
        divisor: Divisor::Reg(1),
        len: 2,
    };
    assert_eq!(bpf_result(&div, 10, 0, 2), None);
    // Not a division: mul ecx (F7 /4).
    assert_eq!(decode(&[0xF7, 0xE1], 0, |_| 0), None);
    // An fs-relative operand is left to the report.
    assert_eq!(
        decode(&[0x64, 0xF7, 0x34, 0x25, 0, 0, 0, 0], 0, |_| 0),
        None
    );
}
