//! A block's first byte of interest ([`first_stop`], [`first_non_space`]) from two 64-bit
//! words, for every target without wasm SIMD128, and as the reference the wasm tests hold the
//! SIMD implementation to.
//!
//! Each byte's test sets the byte's high bit and never carries into its neighbour (the low
//! seven bits are added to at most `0x7f`), so every bit is exact, not only the lowest: a
//! test can look at any byte of the block.

use super::BLOCK;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// `byte` in every byte of a word.
const fn splat(byte: u8) -> u64 {
    ONES.wrapping_mul(byte as u64)
}

/// The high bit of every byte of `word` that is zero.
pub(crate) const fn zero_bytes(word: u64) -> u64 {
    !((word & LOWS).wrapping_add(LOWS) | word) & HIGHS
}

/// The high bit of every byte of `word` that is below `0x20`, or with `ASCII` below `0x20` or
/// from `0x80`: the low seven bits plus `0x60` reach the high bit exactly from `0x20`.
const fn control_bytes<const ASCII: bool>(word: u64) -> u64 {
    let from_0x20 = (word & LOWS).wrapping_add(splat(0x60));
    if ASCII {
        (!from_0x20 | word) & HIGHS
    } else {
        !(from_0x20 | word) & HIGHS
    }
}

/// The high bit of every byte of `word` that ends a run of plain string bytes.
pub(crate) const fn stops<const ASCII: bool>(word: u64) -> u64 {
    zero_bytes(word ^ splat(b'"')) | zero_bytes(word ^ splat(b'\\')) | control_bytes::<ASCII>(word)
}

/// The high bit of every byte of `word` that is not JSON whitespace.
pub(crate) const fn non_spaces(word: u64) -> u64 {
    let spaces = zero_bytes(word ^ splat(b' '))
        | zero_bytes(word ^ splat(b'\n'))
        | zero_bytes(word ^ splat(b'\t'))
        | zero_bytes(word ^ splat(b'\r'));
    !spaces & HIGHS
}

/// The block as two little-endian words, its first eight bytes and its last eight.
const fn words(block: &[u8; BLOCK]) -> (u64, u64) {
    let [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] = *block;
    (
        u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        u64::from_le_bytes([i, j, k, l, m, n, o, p]),
    )
}

/// The index of the lowest byte whose high bit is set in `low` (bytes 0 to 7) or `high`
/// (bytes 8 to 15), if one is.
fn first(low: u64, high: u64) -> Option<usize> {
    let both = u128::from(high) << 64 | u128::from(low);
    (both != 0).then(|| (both.trailing_zeros() / 8) as usize)
}

/// The index of the first byte of `block` that ends a run of plain string bytes (a quote, a
/// backslash or a control byte, and with `ASCII` a byte outside ASCII), if one does.
pub(crate) fn first_stop<const ASCII: bool>(block: &[u8; BLOCK]) -> Option<usize> {
    let (low, high) = words(block);
    first(stops::<ASCII>(low), stops::<ASCII>(high))
}

/// The index of the first byte of `block` that is not JSON whitespace, if one is not.
pub(crate) fn first_non_space(block: &[u8; BLOCK]) -> Option<usize> {
    let (low, high) = words(block);
    first(non_spaces(low), non_spaces(high))
}
