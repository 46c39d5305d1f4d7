//! UTF-8 checked sixteen bytes at a time in wasm SIMD128, by the lookup algorithm of Keiser
//! and Lemire ("Validating UTF-8 In Less Than One Instruction Per Byte", 2021; simdjson's
//! `utf8_lookup4`): each byte is checked against the byte before it by three table lookups
//! (`i8x16.swizzle`) whose bits name the errors a pair of bytes can show, and against the two
//! and three bytes before it for the continuations a three- or four-byte character needs.
//! The errors of every block are gathered in one vector, looked at once at the end.
//!
//! The text is followed by zeros (ASCII): a character cut short at the end is then followed by
//! a byte that is not a continuation, an error of the same pair checks.

use core::arch::wasm32::{
    i8x16_shuffle, u8x16, u8x16_add, u8x16_shr, u8x16_splat, u8x16_sub_sat, u8x16_swizzle, v128,
    v128_and, v128_any_true, v128_or, v128_xor,
};

/// A lead byte followed by ASCII or by another lead byte.
const TOO_SHORT: u8 = 1 << 0;
/// ASCII followed by a continuation byte.
const TOO_LONG: u8 = 1 << 1;
/// `E0` followed by `80`-`9F`.
const OVERLONG_3: u8 = 1 << 2;
/// `F4` followed by `90`-`BF`, or `F5`-`FF` followed by `90`-`BF`: above U+10FFFF.
const TOO_LARGE: u8 = 1 << 3;
/// `ED` followed by `A0`-`BF`: a surrogate.
const SURROGATE: u8 = 1 << 4;
/// `C0` or `C1` followed by a continuation.
const OVERLONG_2: u8 = 1 << 5;
/// `F5`-`FF` followed by `80`-`8F`.
const TOO_LARGE_1000: u8 = 1 << 6;
/// `F0` followed by `80`-`8F` (the same bit: the two never share a first byte).
const OVERLONG_4: u8 = 1 << 6;
/// A continuation followed by a continuation: an error unless a three- or four-byte
/// character needs it (then the bit is expected, see [`block_errors`]).
const TWO_CONTS: u8 = 1 << 7;
/// The errors decided by the first byte's high nibble alone.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/// The errors a pair can show, by the high nibble of its first byte.
const BYTE_1_HIGH: [u8; 16] = [
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];

/// The errors a pair can show, by the low nibble of its first byte.
const BYTE_1_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];

/// The errors a pair can show, by the high nibble of its second byte.
const BYTE_2_HIGH: [u8; 16] = [
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

/// Sixteen bytes as a vector (one `v128.load` when they are in memory).
#[inline(always)]
fn load(bytes: [u8; 16]) -> v128 {
    let [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p] = bytes;
    u8x16(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)
}

/// The errors of the block `input` after the block `before`: nonzero lanes where a byte and
/// the bytes before it are not UTF-8.
#[inline(always)]
fn block_errors(before: v128, input: v128) -> v128 {
    // The byte before each byte, and the two and three before it, across the blocks' edge.
    let prev1 = i8x16_shuffle::<15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30>(
        before, input,
    );
    let prev2 = i8x16_shuffle::<14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29>(
        before, input,
    );
    let prev3 = i8x16_shuffle::<13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28>(
        before, input,
    );
    let low_nibbles = u8x16_splat(0x0f);
    let special = v128_and(
        v128_and(
            u8x16_swizzle(load(BYTE_1_HIGH), u8x16_shr(prev1, 4)),
            u8x16_swizzle(load(BYTE_1_LOW), v128_and(prev1, low_nibbles)),
        ),
        u8x16_swizzle(load(BYTE_2_HIGH), u8x16_shr(input, 4)),
    );
    // A byte two after a lead of three or four bytes, or three after one of four, must be a
    // continuation (its TWO_CONTS bit set above); elsewhere TWO_CONTS is an error.
    let third = u8x16_sub_sat(prev2, u8x16_splat(0xe0 - 0x80));
    let fourth = u8x16_sub_sat(prev3, u8x16_splat(0xf0 - 0x80));
    let must_continue = v128_and(v128_or(third, fourth), u8x16_splat(0x80));
    v128_xor(must_continue, special)
}

/// Whether `bytes` are UTF-8 (below sixteen bytes, no block to load: `core::str::from_utf8`).
pub(crate) fn valid(bytes: &[u8]) -> bool {
    let (Some(first), Some(last)) = (bytes.first_chunk::<16>(), bytes.last_chunk::<16>()) else {
        return core::str::from_utf8(bytes).is_ok();
    };
    let mut before = u8x16_splat(0);
    let mut errors = u8x16_splat(0);
    let (blocks, rest) = bytes.as_chunks::<16>();
    for &block in blocks {
        let input = load(block);
        errors = v128_or(errors, block_errors(before, input));
        before = input;
    }
    // The last sixteen bytes, when the blocks left some out, after the sixteen before them
    // (bytes checked twice are checked alike): read from the text, or, in a text of fewer than
    // 32 bytes, the first block moved up past zeros (lanes a swizzle index out of range).
    if !rest.is_empty() {
        let sixteen_before = bytes
            .len()
            .checked_sub(32)
            .and_then(|start| bytes.get(start..))
            .and_then(<[u8]>::first_chunk::<16>);
        let before_last = match sixteen_before {
            Some(&block) => load(block),
            None => {
                // Lane i takes byte i - (32 - len) of the first block: below 0, an index
                // from 0xf0 (wrapped), out of range.
                let shift = u8x16_splat(bytes.len().to_le_bytes()[0].wrapping_sub(32));
                let lanes = u8x16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                u8x16_swizzle(load(*first), u8x16_add(lanes, shift))
            }
        };
        before = load(*last);
        errors = v128_or(errors, block_errors(before_last, before));
    }
    // Zeros after the text: a character cut short at its end is an error.
    errors = v128_or(errors, block_errors(before, u8x16_splat(0)));
    !v128_any_true(errors)
}
