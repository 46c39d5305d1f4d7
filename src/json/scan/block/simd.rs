//! A block's first byte of interest ([`first_stop`], [`first_non_space`]) in wasm SIMD128: the
//! block loaded as one `v128`, a compare per kind of byte (`i8x16.eq`, `i8x16.lt_s` or
//! `i8x16.lt_u`), the lanes' high bits gathered by `i8x16.bitmask`, the first set one found by
//! `i32.ctz`. The same answers as [`swar`](super::swar)'s functions of the same names, which
//! `tests/wasm.rs` checks.

use core::arch::wasm32::{
    i8x16_bitmask, i8x16_eq, i8x16_lt, i8x16_splat, u8x16, u8x16_lt, u8x16_splat, v128, v128_or,
};

use super::BLOCK;

/// The block as a vector: LLVM makes one `v128.load` of the sixteen bytes.
#[inline(always)]
fn load(block: &[u8; BLOCK]) -> v128 {
    let [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] = *block;
    u8x16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)
}

/// The index of the lowest bit set in `mask` (a bit per lane, from `i8x16.bitmask`), if one is.
#[inline(always)]
fn first(mask: u16) -> Option<usize> {
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

/// The index of the first byte of `block` that ends a run of plain string bytes (a quote, a
/// backslash or a control byte, and with `ASCII` a byte outside ASCII), if one does.
#[inline(always)]
pub(crate) fn first_stop<const ASCII: bool>(block: &[u8; BLOCK]) -> Option<usize> {
    let bytes = load(block);
    let control = if ASCII {
        // Signed: below 0x20, or from 0x80 (negative).
        i8x16_lt(bytes, i8x16_splat(0x20))
    } else {
        u8x16_lt(bytes, u8x16_splat(0x20))
    };
    let quote = i8x16_eq(bytes, u8x16_splat(b'"'));
    let backslash = i8x16_eq(bytes, u8x16_splat(b'\\'));
    first(i8x16_bitmask(v128_or(v128_or(quote, backslash), control)))
}

/// The index of the first byte of `block` that is not JSON whitespace, if one is not.
#[inline(always)]
pub(crate) fn first_non_space(block: &[u8; BLOCK]) -> Option<usize> {
    let bytes = load(block);
    let spaces = v128_or(
        v128_or(
            i8x16_eq(bytes, u8x16_splat(b' ')),
            i8x16_eq(bytes, u8x16_splat(b'\n')),
        ),
        v128_or(
            i8x16_eq(bytes, u8x16_splat(b'\t')),
            i8x16_eq(bytes, u8x16_splat(b'\r')),
        ),
    );
    first(!i8x16_bitmask(spaces))
}
