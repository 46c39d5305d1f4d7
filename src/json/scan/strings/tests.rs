//! The unit tests of `strings`.

use super::{stops, zero_bytes};

/// The first byte of `word` (little endian) that `needs` a look, as the bit arithmetic
/// should report it: its high bit.
fn first(word: u64, needs: impl Fn(u8) -> bool) -> Option<u32> {
    let index = word.to_le_bytes().iter().position(|&b| needs(b))?;
    Some(u32::try_from(index).unwrap() * 8 + 7)
}

fn lowest(bits: u64) -> Option<u32> {
    (bits != 0).then(|| bits.trailing_zeros())
}

/// The words the fast path reads: random ones, and ones holding every byte value at every
/// position among plain bytes (so the lowest stop is the one placed).
fn words() -> impl Iterator<Item = u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let random = core::iter::repeat_with(move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    })
    .take(200_000);
    let placed = (0..8).flat_map(|at| {
        (0..=255u8).flat_map(move |b| {
            [b'a', 0x01, 0xff].map(|fill| {
                let mut bytes = [fill; 8];
                bytes[at] = b;
                u64::from_le_bytes(bytes)
            })
        })
    });
    random.chain(placed)
}

#[test]
fn the_lowest_stop_is_exact() {
    for word in words() {
        assert_eq!(
            lowest(zero_bytes(word)),
            first(word, |b| b == 0),
            "zero_bytes({word:#018x})"
        );
        assert_eq!(
            lowest(stops(word)),
            first(word, |b| b == b'"' || b == b'\\' || b < 0x20),
            "stops({word:#018x})"
        );
    }
}
