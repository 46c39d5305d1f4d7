//! Runs of bytes the scanner passes without a look at each: where a string's plain bytes end
//! ([`plain_end`]: at a quote, a backslash, a control byte, or a byte outside ASCII) and where
//! whitespace ends ([`space_end`]), found a block of [`BLOCK`] bytes at a time.
//!
//! A block's first byte of interest is found by [`swar`]: two 64-bit words, exact bit
//! arithmetic, then the count of trailing zeros.

pub(crate) mod swar;

/// The bytes a block holds.
pub(crate) const BLOCK: usize = 16;

/// Where the plain bytes of a string that start at `at` end: the index of the first quote,
/// backslash or control byte (with `ASCII`, or byte outside ASCII) from `at`, or the body's
/// length if there is none.
///
/// The usual path adds a constant to `at`, not the count a block found, so that the next
/// block's load does not wait for this block's arithmetic.
#[inline(always)]
pub(super) fn plain_end<const ASCII: bool>(body: &[u8], mut at: usize) -> usize {
    while let Some(block) = block_at(body, at) {
        if let Some(run) = swar::first_stop::<ASCII>(block) {
            // Within the block (no wrap: `at + BLOCK` did not).
            return at.wrapping_add(run);
        }
        at = at.wrapping_add(BLOCK);
    }
    last_end(body, at, is_stop::<ASCII>)
}

/// Where the whitespace (space, tab, line feed, carriage return) that starts at `at` ends: the
/// index of the first other byte from `at`, or the body's length.
#[inline(always)]
pub(super) fn space_end(body: &[u8], mut at: usize) -> usize {
    while let Some(block) = block_at(body, at) {
        if let Some(run) = swar::first_non_space(block) {
            return at.wrapping_add(run);
        }
        at = at.wrapping_add(BLOCK);
    }
    last_end(body, at, |byte| !is_space(byte))
}

/// The [`BLOCK`] bytes of `body` at `at`, if it holds them.
#[inline(always)]
fn block_at(body: &[u8], at: usize) -> Option<&[u8; BLOCK]> {
    body.get(at..at.checked_add(BLOCK)?)?.try_into().ok()
}

/// [`plain_end`] or [`space_end`] in the last bytes of the body, fewer than a block: one by
/// one, to the first byte that `ends` the run. Out of line, and a loop, which wasm-opt does not
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
