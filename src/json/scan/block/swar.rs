//! A block's first byte of interest ([`first_stop`], [`first_non_space`]) from two 64-bit
//! words, for every target without wasm SIMD128, and as the reference the wasm tests hold the
//! SIMD implementation to.
//!
//! A string's stops need only their lowest byte, and are found with a borrow from byte to
//! byte, as cheaply as can be. Whitespace needs its complement, where a byte wrongly found
//! would hide one that is not whitespace: its tests never carry into a neighbour (the low
//! seven bits are added to at most `0x7f`), so every bit is exact.

use super::BLOCK;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;
#[cfg(any(test, wasm_test))]
const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// `byte` in every byte of a word.
const fn splat(byte: u8) -> u64 {
    ONES.wrapping_mul(byte as u64)
}

/// The high bit of every byte of `word` that is zero.
#[cfg(any(test, wasm_test))]
pub(crate) const fn zero_bytes(word: u64) -> u64 {
    !((word & LOWS).wrapping_add(LOWS) | word) & HIGHS
}

/// The high bit of the lowest byte of `word` that is below `byte` (at most `0x80`), and
/// maybe of bytes above it: a borrow reaches only the bytes above the one it starts from.
/// Cheaper than the exact tests: enough where only the lowest byte is read.
const fn lowest_below(word: u64, byte: u8) -> u64 {
    word.wrapping_sub(splat(byte)) & !word & HIGHS
}

/// The high bit of the lowest byte of `word` that ends a run of plain string bytes, and maybe
/// of bytes above it (see [`lowest_below`]).
pub(crate) const fn stops<const ASCII: bool>(word: u64) -> u64 {
    let quote = lowest_below(word ^ splat(b'"'), 1);
    let backslash = lowest_below(word ^ splat(b'\\'), 1);
    let control = lowest_below(word, 0x20);
    let stops = quote | backslash | control;
    if ASCII { stops | (word & HIGHS) } else { stops }
}

/// The high bit of every byte of `word` that is not JSON whitespace.
#[cfg(any(test, wasm_test))]
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

/// The index of the lowest byte of the block whose high bit `test` sets, in its first word
/// (bytes 0 to 7) or else in its second (bytes 8 to 15), if one is: the second word is only
/// tested when the first holds none.
#[inline(always)]
fn first(block: &[u8; BLOCK], test: impl Fn(u64) -> u64) -> Option<usize> {
    let (low, high) = words(block);
    let bits = test(low);
    if bits != 0 {
        return Some((bits.trailing_zeros() / 8) as usize);
    }
    let bits = test(high);
    // At most 8 + 7: no wrap.
    (bits != 0).then(|| ((bits.trailing_zeros() / 8) as usize).wrapping_add(8))
}

/// The index of the first byte of `block` that ends a run of plain string bytes (a quote, a
/// backslash or a control byte, and with `ASCII` a byte outside ASCII), if one does.
#[inline(always)]
pub(crate) fn first_stop<const ASCII: bool>(block: &[u8; BLOCK]) -> Option<usize> {
    first(block, stops::<ASCII>)
}

/// The index of the first byte of `block` that is not JSON whitespace, if one is not. (Only
/// for the tests and as the wasm tests' reference: off wasm SIMD128, the scanner reads
/// whitespace byte by byte, see `ws_end` in the scanner.)
#[cfg(any(test, wasm_test))]
#[inline(always)]
pub(crate) fn first_non_space(block: &[u8; BLOCK]) -> Option<usize> {
    first(block, non_spaces)
}
