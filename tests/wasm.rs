//! Every case of `tests/vectors/*.json` against the wasm32 build, run in Node by
//! wasm-bindgen-test (`make wasm-test`): the core gives the same answers on both targets. And
//! the JSON scanner's wasm SIMD128 blocks, which only this build has: against their SWAR
//! reference block by block, and through `parse_event` against serde_json on bodies around
//! the blocks' edges.
#![cfg(target_arch = "wasm32")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::string_slice
)]

mod common;

use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn every_vector_holds_in_wasm32() {
    common::assert_every_vector_holds();
}

#[wasm_bindgen_test]
fn json_test_suite_holds_in_wasm32() {
    common::assert_json_suite_holds();
}

// The scanner's wasm SIMD blocks are compiled only with `+simd128`, and their hooks only with
// `--cfg wasm_test`: without both, the tests below would hold nothing to anything.
#[cfg(not(all(wasm_test, target_feature = "simd128")))]
compile_error!(
    "tests/wasm.rs: run it by `make wasm-test` (RUSTFLAGS='-C target-feature=+simd128 --cfg wasm_test')"
);

/// A xorshift generator: the same blocks on every run.
fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The bytes that matter to the blocks: each kind of stop, whitespace, its near misses, the
/// edges of ASCII.
const EDGES: &[u8] = &[
    b'"', b'\\', 0x00, 0x01, 0x1f, b' ', b'\n', b'\t', b'\r', 0x0b, 0x0c, b'!', b'#', b'[', b']',
    0x5d, 0x7f, 0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0xff, b'a',
];

/// Blocks: every byte value at every index among fills of each kind, then a second byte of
/// interest after it; then random blocks, half of their bytes drawn from [`EDGES`].
fn blocks() -> impl Iterator<Item = [u8; 16]> {
    let placed = (0..16).flat_map(|at| {
        (0..=255u8).flat_map(move |b| {
            [b'a', b' ', b'\n', 0xc3, 0x80]
                .into_iter()
                .flat_map(move |fill| {
                    [None, Some(b'"'), Some(b'\t'), Some(0xff)].map(|later| {
                        let mut block = [fill; 16];
                        block[at] = b;
                        if let Some(later) = later {
                            block[15 - (15 - at) / 2] = later;
                        }
                        block
                    })
                })
        })
    });
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let random = core::iter::repeat_with(move || {
        let mut block = [0; 16];
        for byte in &mut block {
            let draw = next();
            *byte = if draw & 1 == 0 {
                EDGES[(draw >> 8) as usize % EDGES.len()]
            } else {
                draw.to_le_bytes()[2]
            };
        }
        block
    })
    .take(1_000_000);
    placed.chain(random)
}

#[wasm_bindgen_test]
fn the_scanners_simd_blocks_answer_as_its_swar_blocks() {
    use cryptopay_verify::__wasm_test::{first_non_space, first_stop};
    let mut count = 0;
    for block in blocks() {
        for ascii in [true, false] {
            let [simd, swar] = first_stop(&block, ascii);
            assert_eq!(simd, swar, "first_stop({block:?}, ascii: {ascii})");
        }
        let [simd, swar] = first_non_space(&block);
        assert_eq!(simd, swar, "first_non_space({block:?})");
        count += 1;
    }
    assert_eq!(count, 16 * 256 * 5 * 4 + 1_000_000, "blocks");
}

/// What an event body is to `parse_event` and to the reference reader (serde_json): JSON,
/// not JSON, or JSON with a repeated key.
fn verdicts(body: &[u8]) -> (&'static str, &'static str) {
    use common::json_reference::{RefRefusal, reference_json};
    use cryptopay_verify::{ErrorKind, parse_event};
    let ours = match parse_event(body).map_err(|e| e.kind()) {
        Err(ErrorKind::EventNotJson) => "not JSON",
        Err(ErrorKind::EventDuplicateKey) => "repeated key",
        _ => "JSON",
    };
    let reference = match reference_json(body) {
        Err(RefRefusal::NotJson) => "not JSON",
        Err(RefRefusal::DuplicateKey) => "repeated key",
        Ok(_) => "JSON",
    };
    (ours, reference)
}

#[wasm_bindgen_test]
fn strings_and_whitespace_around_the_blocks_read_as_serde_json_reads_them() {
    const HEAD: &str = r#"{"schema_version":"1","event_id":"e","event_type":"payment.updated","occurred_at":"t","data":{"payment_id":"p","status_version":1"#;
    let kinds: [&[u8]; 13] = [
        b"\"",
        b"\\n",
        b"\\u00e9",
        b"\\ud83d\\ude00",
        b"\x01",
        b"\x1f",
        b"\x7f",
        "é".as_bytes(),
        "€".as_bytes(),
        "😀".as_bytes(),
        b"\x80",
        b"\xc3",
        b"\xff",
    ];
    let mut checked = 0;
    let mut check = |body: Vec<u8>| {
        let (ours, reference) = verdicts(&body);
        assert_eq!(ours, reference, "{:?}", String::from_utf8_lossy(&body));
        checked += 1;
    };
    // A string of every length up to three blocks with a byte of each kind at each index: as
    // a value, as a key, and as the body's last string (its end among the body's last bytes,
    // fewer than a block, then whitespace of a few lengths).
    for len in 0..48 {
        for at in 0..len {
            for kind in kinds {
                let mut text = vec![b'x'; len];
                text.splice(at..=at, kind.iter().copied());
                let quoted = [&b"\""[..], &text, b"\""].concat();
                check([HEAD.as_bytes(), b",\"x\":", &quoted, b"}}"].concat());
                check([HEAD.as_bytes(), b",", &quoted, b":1}}"].concat());
                for tail in [0, 1, 15, 16, 17] {
                    let space = vec![b' '; tail];
                    check([HEAD.as_bytes(), b"},\"z\":", &quoted, b"}", &space].concat());
                }
            }
        }
    }
    // Whitespace of every length up to three blocks with another byte at each index: between
    // the items of an array, and at the end of the body.
    for len in 0..48 {
        for at in 0..=len {
            for other in [b'\t', b'\r', 0x0b, 0x0c, b'x', 0xa0] {
                let mut space: Vec<u8> = (0..len).map(|i| b" \n"[i % 2]).collect();
                if at < len {
                    space[at] = other;
                }
                check([HEAD.as_bytes(), b",\"x\":[1,", &space, b"2]}}"].concat());
                check([HEAD.as_bytes(), b"}}", &space].concat());
            }
        }
    }
    assert_eq!(checked, 116_760, "bodies");
}
