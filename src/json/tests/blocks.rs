//! The scan around its sixteen-byte blocks (`scan/block.rs`): strings, characters outside
//! ASCII and whitespace of every length around the blocks, with a byte of each kind at each
//! index, read as serde_json reads them.

use super::{OUTER, run_outer, span_text};
use crate::json::*;

/// What serde_json makes of `body`: its value, or `None` when it is not JSON.
fn serde(body: &[u8]) -> Option<serde_json::Value> {
    serde_json::from_slice(body).ok()
}

#[test]
fn strings_of_every_length_around_the_blocks() {
    // The plain-byte skip reads sixteen bytes at a time, then the last few of the body one by
    // one: a quote, backslash, control byte or multi-byte character at every index of a block
    // must be found, in a string that ends in a whole block, across blocks, or in the body's
    // last bytes (as the top-level value, with whitespace of a few lengths after it).
    for len in 0..50 {
        for at in 0..len {
            let mut plain = "x".repeat(len);
            plain.replace_range(at..=at, "\u{e9}");
            let text = format!("[\"{plain}\"]");
            assert!(run_outer(&text).0.is_ok(), "{text}");
            for stop in ["\"", "\u{1}", "\u{1f}"] {
                let mut bad = "x".repeat(len);
                bad.replace_range(at..=at, stop);
                let text = format!("[\"{bad}\"]");
                assert_eq!(run_outer(&text).0, Err(Refusal::Syntax), "{text:?}");
            }
            let mut escaped = "x".repeat(len);
            escaped.replace_range(at..=at, "\\n");
            let doc = format!("{{\"s\":\"{escaped}\"}}");
            let (shape, _) = run_outer(&doc);
            let want = format!("{}\n{}", &"x".repeat(at), &"x".repeat(len - at - 1));
            assert_eq!(
                shape.unwrap().field("s"),
                Some(&Shape::Str(Cow::Owned(want))),
                "{doc}"
            );
            for stop in [
                "",
                "\"",
                "\u{1}",
                "\u{7f}",
                "\\t",
                "\u{e9}",
                "\u{20ac}",
                "\u{1f600}",
            ] {
                for tail in ["", " ", &" ".repeat(15), &"\n".repeat(16), &" ".repeat(17)] {
                    let mut string = "x".repeat(len);
                    string.replace_range(at..=at, stop);
                    let top = format!("\"{string}\"{tail}");
                    let ours = scan(top.as_bytes(), &LEAF).ok().map(|scanned| scanned.top);
                    let theirs = serde(top.as_bytes());
                    match (&ours, &theirs) {
                        (Some(Shape::Str(ours)), Some(serde_json::Value::String(theirs))) => {
                            assert_eq!(ours, theirs, "{top:?}");
                        }
                        (None, None) => {}
                        _ => panic!("{top:?}: ours {ours:?}, serde_json {theirs:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn characters_outside_ascii_across_the_block_edges() {
    // A character of two, three or four bytes starting at each index around the first and
    // second block edges, whole, cut short, or with a byte that is not UTF-8 in it; each
    // string read as serde_json reads it, and captured as the same text.
    let characters: [&[u8]; 4] = [
        "\u{e9}".as_bytes(),
        "\u{20ac}".as_bytes(),
        "\u{1f600}".as_bytes(),
        "\u{10ffff}".as_bytes(),
    ];
    for len in 10..40 {
        for at in (12..20).chain(28..36).filter(|&at| at < len) {
            for character in characters {
                let mut variants = vec![character.to_vec()];
                for cut in 1..character.len() {
                    variants.push(character[..cut].to_vec());
                    let mut broken = character.to_vec();
                    broken[cut] = b'x';
                    variants.push(broken);
                }
                variants.push([character, b"\x80"].concat());
                variants.push(vec![0xed, 0xa0, 0x80]); // a surrogate's encoding
                variants.push(vec![0xc0, 0xaf]); // an overlong `/`
                for variant in variants {
                    let mut body = b"{\"s\":\"".to_vec();
                    body.extend(std::iter::repeat_n(b'y', at));
                    body.extend(&variant);
                    body.extend(std::iter::repeat_n(b'z', len - at));
                    body.extend(b"\"}");
                    let ours = run_outer_bytes(&body);
                    let theirs = serde(&body).map(|value| value["s"].as_str().unwrap().to_owned());
                    assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(&body));
                }
            }
        }
    }
}

/// The string `s` that [`OUTER`] captures in `body`, if it is JSON.
fn run_outer_bytes(body: &[u8]) -> Option<String> {
    let scanned = scan(body, &OUTER).ok()?;
    match scanned.top.field("s") {
        Some(Shape::Str(text)) => Some(text.to_string()),
        other => panic!("s: {other:?}"),
    }
}

#[test]
fn whitespace_of_every_length_around_the_blocks() {
    // Whitespace is read sixteen bytes at a time from its second byte: runs of every length,
    // ending in a whole block, across blocks or in the body's last bytes, with a byte that is
    // not JSON whitespace at each index; and the object after a run still found where it is.
    let spaces = |len: usize| -> Vec<u8> { (0..len).map(|i| b" \n\t\r"[i % 4]).collect() };
    for len in 0..50 {
        for at in 0..=len {
            for other in [b'x', 0x0b, 0x0c, 0xa0, b'"'] {
                let mut run = spaces(len);
                if at < len {
                    run[at] = other;
                }
                for body in [
                    [b"{\"n\":", &run[..], b"1}"].concat(),
                    [b"[", &run[..], b"1", &run[..], b"]"].concat(),
                    [&run[..], b"{}", &run[..]].concat(),
                ] {
                    let ours = scan(&body, &OUTER).is_ok();
                    let theirs = serde(&body).is_some();
                    assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(&body));
                }
            }
        }
        let run = String::from_utf8(spaces(len)).unwrap();
        let text = format!("{run}{{\"a\":{run}{{\"b\":1{run}}}{run},\"n\":2}}{run}");
        let (shape, _) = run_outer(&text);
        let shape = shape.unwrap();
        assert_eq!(
            span_text(&text, shape.field("a")),
            format!("{{\"b\":1{run}}}")
        );
        assert_eq!(shape.field("n"), Some(&Shape::Num("2")));
    }
}

#[test]
fn after_a_character_outside_ascii_the_skip_still_stops_where_it_must() {
    // A byte outside ASCII ends the ASCII-only words; the rest of that string is read by a
    // second loop. Past such a byte at every offset: a quote, backslash or control byte is
    // still found at every later offset, and bytes that are not UTF-8 are refused.
    let accepts = |bytes: &[u8]| scan(bytes, &OUTER).is_ok();
    for len in 1..28 {
        for at in 0..len {
            for later in at + 1..len + 1 {
                let mut body = b"[\"".to_vec();
                body.extend(std::iter::repeat_n(b'x', at));
                body.extend("\u{e9}".as_bytes());
                body.extend(std::iter::repeat_n(b'y', later - at - 1));
                let head = body.len();
                body.extend(b"zz\"]");
                assert!(accepts(&body), "{:?}", String::from_utf8_lossy(&body));
                for stop in [b'\x01', b'\x1f', b'"'] {
                    let mut bad = body.clone();
                    bad[head] = stop;
                    assert!(!accepts(&bad), "{:?}", String::from_utf8_lossy(&bad));
                }
                let mut escaped = body.clone();
                escaped.splice(head..head + 1, *b"\\n");
                assert!(accepts(&escaped), "{:?}", String::from_utf8_lossy(&escaped));
                for broken in [0x80, 0xff] {
                    let mut bad = body.clone();
                    bad[head] = broken;
                    assert!(!accepts(&bad), "{:?}", String::from_utf8_lossy(&bad));
                }
            }
        }
    }
}
