//! The unit tests of `block`: the word arithmetic of [`swar`](super::swar) against
//! byte-by-byte references (every bit where every bit is read); a block's first byte of
//! interest at every index; the ends of runs at every offset of bodies of every length around
//! a block. (The wasm SIMD implementation is held to `swar` by `tests/wasm.rs`.)

use super::swar::{first_non_space, first_stop, non_spaces, stops, zero_bytes};
use super::{BLOCK, plain_end, space_end};

fn is_stop(byte: u8, ascii: bool) -> bool {
    byte == b'"' || byte == b'\\' || byte < 0x20 || (ascii && byte >= 0x80)
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\n' | b'\t' | b'\r')
}

/// The high bit of every byte of `word` (little endian) for which `test` holds.
fn expected(word: u64, test: impl Fn(u8) -> bool) -> u64 {
    let bytes = word.to_le_bytes().map(|b| if test(b) { 0x80 } else { 0 });
    u64::from_le_bytes(bytes)
}

fn random() -> impl Iterator<Item = u64> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    core::iter::repeat_with(move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    })
}

/// The words the arithmetic sees: random ones, and ones holding every byte value at every
/// position among bytes of a few kinds (plain, a stop, outside ASCII, whitespace, zero).
fn words() -> impl Iterator<Item = u64> {
    let placed = (0..8).flat_map(|at| {
        (0..=255u8).flat_map(move |b| {
            [b'a', 0x01, 0xff, b' ', 0x00, b'"'].map(|fill| {
                let mut bytes = [fill; 8];
                bytes[at] = b;
                u64::from_le_bytes(bytes)
            })
        })
    });
    random().take(200_000).chain(placed)
}

/// The lowest set bit of `bits` alone.
fn lowest(bits: u64) -> u64 {
    bits & bits.wrapping_neg()
}

#[test]
fn the_word_arithmetic_is_exact_where_it_is_read() {
    for word in words() {
        assert_eq!(
            zero_bytes(word),
            expected(word, |b| b == 0),
            "zero_bytes({word:#018x})"
        );
        // A string's stops: the lowest only.
        assert_eq!(
            lowest(stops::<true>(word)),
            lowest(expected(word, |b| is_stop(b, true))),
            "stops::<true>({word:#018x})"
        );
        assert_eq!(
            lowest(stops::<false>(word)),
            lowest(expected(word, |b| is_stop(b, false))),
            "stops::<false>({word:#018x})"
        );
        assert_eq!(
            non_spaces(word),
            expected(word, |b| !is_space(b)),
            "non_spaces({word:#018x})"
        );
    }
}

/// Blocks with every byte value at every index among plain bytes of a few kinds, a second
/// byte of interest after it, and random ones.
fn blocks() -> impl Iterator<Item = [u8; BLOCK]> {
    let placed = (0..BLOCK).flat_map(|at| {
        (0..=255u8).flat_map(move |b| {
            [b'a', b' ', 0xc3].into_iter().flat_map(move |fill| {
                [None, Some(b'"'), Some(b'\n'), Some(0x80)].map(|later| {
                    let mut block = [fill; BLOCK];
                    block[at] = b;
                    if let Some(later) = later {
                        block[BLOCK - 1 - (BLOCK - 1 - at) / 2] = later;
                    }
                    block
                })
            })
        })
    });
    let mut words = random();
    let random = core::iter::repeat_with(move || {
        let mut block = [0; BLOCK];
        for chunk in block.chunks_mut(8) {
            chunk.copy_from_slice(&words.next().unwrap().to_le_bytes());
        }
        block
    })
    .take(100_000);
    placed.chain(random)
}

#[test]
fn the_first_stop_and_the_first_non_space_at_every_index() {
    let first =
        |block: &[u8; BLOCK], test: &dyn Fn(u8) -> bool| block.iter().position(|&b| test(b));
    for block in blocks() {
        assert_eq!(
            first_stop::<true>(&block),
            first(&block, &|b| is_stop(b, true)),
            "{block:?}"
        );
        assert_eq!(
            first_stop::<false>(&block),
            first(&block, &|b| is_stop(b, false)),
            "{block:?}"
        );
        assert_eq!(
            first_non_space(&block),
            first(&block, &|b| !is_space(b)),
            "{block:?}"
        );
    }
}

#[test]
fn runs_end_where_a_byte_by_byte_reading_ends_them() {
    // Bodies of every length up to three blocks, each position holding a byte of interest
    // (every kind), the rest plain or whitespace, read from every offset: across whole blocks,
    // into the last bytes that are fewer than a block, and from the very end.
    let end = |body: &[u8], at: usize, ends: &dyn Fn(u8) -> bool| {
        at + body[at..]
            .iter()
            .position(|&b| ends(b))
            .unwrap_or(body.len() - at)
    };
    for len in 0..3 * BLOCK + 2 {
        for fill in [b'a', b' ', b'\n'] {
            for special in [
                None,
                Some(b'"'),
                Some(b'\\'),
                Some(0x1f),
                Some(0x80),
                Some(b'a'),
            ] {
                for at_special in 0..len.max(1) {
                    let mut body = vec![fill; len];
                    if let (Some(byte), Some(slot)) = (special, body.get_mut(at_special)) {
                        *slot = byte;
                    }
                    for at in 0..=len {
                        let context = format!("{body:?} from {at}");
                        assert_eq!(
                            plain_end::<true>(&body, at),
                            end(&body, at, &|b| is_stop(b, true)),
                            "{context}"
                        );
                        assert_eq!(
                            plain_end::<false>(&body, at),
                            end(&body, at, &|b| is_stop(b, false)),
                            "{context}"
                        );
                        assert_eq!(
                            space_end(&body, at),
                            end(&body, at, &|b| !is_space(b)),
                            "{context}"
                        );
                    }
                }
            }
        }
    }
}
