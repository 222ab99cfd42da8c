//! w^k in fixed point for the binomial increase α·win^k (eq. 5, first line):
//! 2^(k·log2 w) by repeated squaring and a table of 2^(2^−i).

/// 2^(2^−(i+1)) in Q30, for `exp2_q30`.
const EXP2_Q30: [u64; 30] = [
    1518500250, 1276901417, 1170923762, 1121280436, 1097253708, 1085434106, 1079572136, 1076653033,
    1075196443, 1074468888, 1074105294, 1073923544, 1073832680, 1073787251, 1073764537, 1073753181,
    1073747502, 1073744663, 1073743244, 1073742534, 1073742179, 1073742001, 1073741913, 1073741868,
    1073741846, 1073741835, 1073741830, 1073741827, 1073741825, 1073741825,
];

/// log2(w) in Q30 for w ≥ 1, by repeated squaring (30 fraction bits).
fn log2_q30(w: u32) -> u64 {
    let n = 31 - w.leading_zeros();
    let mut x = (w as u64) << (31 - n); // Q31 in [1, 2)
    let mut frac = 0u64;
    for i in 0..30 {
        x = (x * x) >> 31;
        if x >= 1 << 32 {
            x >>= 1;
            frac |= 1 << (29 - i);
        }
    }
    ((n as u64) << 30) | frac
}

/// w^k in Q8 (rounded), k in Q24 (≤ 1), via 2^(k·log2 w).
pub(crate) fn pow_q8(w: u32, k_q24: u32) -> u64 {
    if w == 0 {
        return 0;
    }
    let y = (k_q24 as u64 * log2_q30(w)) >> 24; // Q30, < 32
    let mut r: u64 = 1 << 30; // 2^frac(y), Q30
    for (i, c) in EXP2_Q30.iter().enumerate() {
        if y & (1 << (29 - i)) != 0 {
            r = (r * c) >> 30;
        }
    }
    ((r << (y >> 30)) + (1 << 21)) >> 22
}
