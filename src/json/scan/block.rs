//! Runs of bytes the scanner passes without a look at each: where a string's plain bytes end
//! ([`plain_end`]: at a quote, a backslash, a control byte, or a byte outside ASCII) and, in
//! the `.wasm`, where whitespace ends ([`space_end`]), found a block of [`BLOCK`] bytes at a
//! time.
//!
//! A block's first byte of interest has two implementations with one contract: `simd` (wasm
//! SIMD128: a compare per kind of byte, one `i8x16.bitmask`, a count of trailing zeros),
//! compiled when the target is wasm32 with `simd128` on, as the npm package's `.wasm` is built
//! (scripts/build-pkg.mjs); and [`swar`] (two 64-bit words, bit arithmetic), everywhere else,
//! and the reference `tests/wasm.rs` (`make wasm-test`) holds `simd` to. The string loop
//! around them, and the last bytes of a body (fewer than a block, read one by one), are the
//! same code on every target, so the native fuzzing reads the shipped loop.
//!
//! Why the wasm side names its instructions (`core::arch::wasm32`, safe functions under
//! `+simd128`): safe Rust over `[u8; 16]` written for LLVM to vectorize (a compare per byte
//! folded into a `u16` mask, or into bytes read as a `u128`) did not get there with rustc
//! 1.95: LLVM vectorized the compares, then built the mask from lane extracts and shuffles,
//! or went back to a byte at a time, in wasm and in x86_64 alike; no `i8x16.bitmask`.

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) mod simd;
#[cfg(any(
    not(all(target_arch = "wasm32", target_feature = "simd128")),
    wasm_test
))]
pub(crate) mod swar;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use simd as fastest;
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
use swar as fastest;

/// The bytes a block holds.
pub(crate) const BLOCK: usize = 16;

/// Where the plain bytes of a string that start at `at` end: the index of the first quote,
/// backslash or control byte (with `ASCII`, or byte outside ASCII) from `at`, or the body's
/// length if there is none.
///
/// The usual path adds a constant to `at`, not the count a block found, so that the next
/// block's load does not wait for this block's compares: measured in V8 with the SIMD blocks,
/// 22 bytes per ns on a long string, against 3.5 with `at` advanced by the count.
#[inline(always)]
pub(super) fn plain_end<const ASCII: bool>(body: &[u8], mut at: usize) -> usize {
    while let Some(block) = block_at(body, at) {
        if let Some(run) = fastest::first_stop::<ASCII>(block) {
            // Within the block (no wrap: `at + BLOCK` did not).
            return at.wrapping_add(run);
        }
        at = at.wrapping_add(BLOCK);
    }
    last_end(body, at, is_stop::<ASCII>)
}

/// Where the whitespace (space, tab, line feed, carriage return) that starts at `at` ends: the
/// index of the first other byte from `at`, or the body's length. (The scanner's in the
/// `.wasm`; elsewhere it reads whitespace byte by byte, see `ws_end` in the scanner, and this is
/// for the tests.)
#[cfg(any(test, all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub(super) fn space_end(body: &[u8], mut at: usize) -> usize {
    while let Some(block) = block_at(body, at) {
        if let Some(run) = fastest::first_non_space(block) {
            return at.wrapping_add(run);
        }
        at = at.wrapping_add(BLOCK);
    }
    // The last bytes, fewer than a block, one by one and inline (not `last_end`): see
    // `ws_end` in the scanner for why no call is left on this path.
    while body.get(at).is_some_and(|&byte| is_space(byte)) {
        // Past a byte of the body: no wrap.
        at = at.wrapping_add(1);
    }
    at
}

/// The [`BLOCK`] bytes of `body` at `at`, if it holds them.
#[inline(always)]
fn block_at(body: &[u8], at: usize) -> Option<&[u8; BLOCK]> {
    body.get(at..at.checked_add(BLOCK)?)?.try_into().ok()
}

/// [`plain_end`] in the last bytes of the body, fewer than a block: one by one, to the first
/// byte that `ends` the run. Out of line, and a loop, which wasm-opt does not
/// inline: at most the last string or two of a body reach it, and its callers stay small.
#[inline(never)]
fn last_end(body: &[u8], at: usize, ends: impl Fn(u8) -> bool) -> usize {
    let left = body.get(at..).unwrap_or_default();
    // At most `left.len()`: no wrap.
    at.wrapping_add(
        left.iter()
            .position(|&byte| ends(byte))
            .unwrap_or(left.len()),
    )
}

/// Whether `byte` ends a run of plain string bytes: a quote, a backslash, a control byte, and
/// with `ASCII` a byte outside ASCII.
pub(crate) const fn is_stop<const ASCII: bool>(byte: u8) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20 || (ASCII && byte >= 0x80)
}

/// Whether `byte` is JSON whitespace.
pub(crate) const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\t' | b'\r')
}

#[cfg(test)]
mod tests;
