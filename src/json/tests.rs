use super::scan::{MAX_DEPTH, PAIRWISE_KEYS};
use super::*;

static INNER: Spec = Spec(&[("b", &LEAF)]);
static OUTER: Spec = Spec(&[("a", &INNER), ("n", &LEAF), ("s", &LEAF)]);

fn run_outer(text: &str) -> (Result<Shape<'_>, Refusal>, bool) {
    match scan(text.as_bytes(), &OUTER) {
        Ok(scanned) => (Ok(scanned.top), scanned.inexact),
        Err(refusal) => (Err(refusal), false),
    }
}

fn span_text<'a>(text: &'a str, shape: Option<&Shape<'_>>) -> &'a str {
    match shape {
        Some(Shape::Object { span, .. }) => &text[span.clone()],
        other => panic!("not an object: {other:?}"),
    }
}

#[test]
fn captures_named_fields_only() {
    let text = r#"{"x":"skip","s":"yes","n":12.50,"a":{"b":"deep","c":1}}"#;
    let (shape, inexact) = run_outer(text);
    let shape = shape.unwrap();
    assert_eq!(shape.field("s"), Some(&Shape::Str(Cow::Borrowed("yes"))));
    assert_eq!(shape.field("n"), Some(&Shape::Num("12.50")));
    assert_eq!(shape.field("x"), None);
    assert!(shape.has_unknown_key());
    let a = shape.field("a").unwrap();
    assert_eq!(a.field("b"), Some(&Shape::Str(Cow::Borrowed("deep"))));
    assert_eq!(a.field("c"), None);
    assert_eq!(span_text(text, Some(a)), r#"{"b":"deep","c":1}"#);
    assert!(!inexact);
    let (known_only, _) = run_outer(r#"{"s":"x","n":1}"#);
    assert!(!known_only.unwrap().has_unknown_key());
}

#[test]
fn positions_survive_whitespace_escapes_and_nesting() {
    // Every kind of value before the captured ones, with all four whitespace bytes, escaped
    // keys and strings, and arrays of objects: the walk must find each value's start.
    let text = "\t{ \"x\\u0041\" :\r\n [ 1 , {\"k\":[true,false,null]} ,\"]\\\"}\" ,-0.5e-3 ] ,\n\
                \"s\"\t:\t\"tab\\tin\" , \"a\" : { \"b\" : \"\\u00e9\" , \"z\": {} } , \"n\" : 7 }\n";
    let (shape, _) = run_outer(text);
    let shape = shape.unwrap();
    assert_eq!(
        shape.field("s"),
        Some(&Shape::Str(Cow::Owned("tab\tin".into())))
    );
    assert_eq!(shape.field("n"), Some(&Shape::Num("7")));
    let a = shape.field("a").unwrap();
    assert_eq!(a.field("b"), Some(&Shape::Str(Cow::Owned("é".into()))));
    assert_eq!(span_text(text, Some(a)), r#"{ "b" : "\u00e9" , "z": {} }"#);
    assert_eq!(
        span_text(text, Some(&shape)),
        text.trim_matches(|c: char| c.is_ascii_whitespace())
    );
}

#[test]
fn numbers_arrive_as_exact_text() {
    let (shape, inexact) = run_outer(r#"{"n":1700000000,"s":-5}"#);
    let shape = shape.unwrap();
    assert_eq!(shape.field("n"), Some(&Shape::Num("1700000000")));
    assert_eq!(shape.field("s"), Some(&Shape::Num("-5")));
    assert!(!inexact);
    assert!(run_outer(r#"{"x":9007199254740992}"#).1);
    assert!(run_outer(r#"{"x":-9007199254740992}"#).1);
    let (shape, inexact) = run_outer(r#"{"n":18446744073709551617}"#);
    assert_eq!(
        shape.unwrap().field("n"),
        Some(&Shape::Num("18446744073709551617"))
    );
    assert!(inexact);
    // Out of a double's range: still read, never refused, never rounded.
    let (shape, inexact) = run_outer(r#"{"x":[1,{"y":1e400}],"n":1e400}"#);
    assert_eq!(shape.unwrap().field("n"), Some(&Shape::Num("1e400")));
    assert!(inexact);
    assert!(!run_outer(r#"{"x":[1,{"y":9007199254740991}]}"#).1);
}

#[test]
fn inexact_numbers_are_located() {
    let text = r#"[1, 9007199254740993 ,{"k":1e400,"j":"1e400"}, 0.5, -1e-400]"#;
    let spans = inexact_numbers(text.as_bytes()).unwrap();
    let found: Vec<&str> = spans.iter().map(|s| &text[s.clone()]).collect();
    assert_eq!(found, ["9007199254740993", "1e400", "-1e-400"]);
    assert_eq!(
        inexact_numbers(b"{\"a\":1,\"a\":2}"),
        Err(Refusal::DuplicateKey)
    );
    assert_eq!(inexact_numbers(b"[1e400"), Err(Refusal::Syntax));
}

#[test]
fn refusals() {
    assert_eq!(run_outer(r#"{"a":1,"a":2"#).0, Err(Refusal::Syntax));
    assert_eq!(
        run_outer(r#"{"a":{"b":1,"b":2}}"#).0,
        Err(Refusal::DuplicateKey)
    );
    assert_eq!(
        run_outer(r#"[{"k":1,"\u006b":2}]"#).0,
        Err(Refusal::DuplicateKey)
    );
    assert_eq!(run_outer("{} x").0, Err(Refusal::Syntax));
    assert_eq!(run_outer(&"[".repeat(200)).0, Err(Refusal::Syntax));
    assert_eq!(run_outer("").0, Err(Refusal::Syntax));
    assert_eq!(run_outer("\u{feff}{}").0, Err(Refusal::Syntax));
    // Separators in the wrong place, which the walk skips over: serde_json still refuses.
    for bad in [
        "{,\"a\":1}",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "[,1]",
        "[1,]",
        "[1 2]",
        "{\"a\":1 \"b\":2}",
        "{\"a\"::1}",
        "[1,,2]",
    ] {
        assert_eq!(run_outer(bad).0, Err(Refusal::Syntax), "{bad}");
    }
    // Strings: a lone surrogate escape, a control character, invalid UTF-8.
    assert_eq!(run_outer(r#"{"x":"\ud800"}"#).0, Err(Refusal::Syntax));
    assert_eq!(run_outer(r#"{"\udc00":1}"#).0, Err(Refusal::Syntax));
    assert_eq!(run_outer("{\"x\":\"a\u{1}\"}").0, Err(Refusal::Syntax));
    assert_eq!(
        scan(b"{\"x\":\"\xff\"}", &LEAF).map(|_| ()),
        Err(Refusal::Syntax)
    );
    // A paired surrogate escape is fine.
    assert!(run_outer(r#"{"x":"\ud83d\ude00"}"#).0.is_ok());
    // A high surrogate followed by anything but `\u` and a low one; escapes and numbers
    // outside the grammar; literals cut short.
    for bad in [
        r#"["\ud800\n"]"#,
        r#"["\ud800x"]"#,
        r#"["\ud800\ud800"]"#,
        r#"["\ud800\u0041"]"#,
        r#"["\x"]"#,
        r#"["\u12"]"#,
        r#"["\u+123"]"#,
        "[01]",
        "[1.]",
        "[.5]",
        "[1e]",
        "[1e+]",
        "[+1]",
        "[-]",
        "[tru]",
        "[nul]",
        "[True]",
        "\"x",
        "[\"a\u{7f}\", 1",
    ] {
        assert_eq!(run_outer(bad).0, Err(Refusal::Syntax), "{bad}");
        assert!(
            serde_json::from_str::<serde_json::Value>(bad).is_err(),
            "{bad}"
        );
    }
    for good in [
        "[-0]",
        "[0e5]",
        "[1E-2]",
        "[-1.5e+300]",
        r#"["\u007f\u00FF\/\b\f\r\t\\\""]"#,
        " \t\n\r[]\r\n",
    ] {
        assert!(run_outer(good).0.is_ok(), "{good}");
    }
}

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

#[test]
fn nesting_limit_is_serde_jsons() {
    // serde_json reads 127 nested arrays or objects and refuses 128 (its recursion limit);
    // the walk goes through the same checks, one level per level.
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    for (n, ok) in [(MAX_DEPTH, true), (MAX_DEPTH + 1, false)] {
        for text in [nested(n), objects(n)] {
            assert_eq!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), ok);
            assert_eq!(run_outer(&text).0.is_ok(), ok, "{n} levels");
        }
    }
}

#[test]
fn repeated_keys_in_large_and_nested_objects() {
    let object = |keys: &[String]| {
        let fields: Vec<String> = keys.iter().map(|k| format!("\"{k}\":1")).collect();
        format!("{{{}}}", fields.join(","))
    };
    // Above the pairwise limit the keys are sorted: both paths must agree.
    for n in [2, PAIRWISE_KEYS, PAIRWISE_KEYS + 1, 200] {
        let distinct: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        assert_eq!(
            run_outer(&object(&distinct)).0.map(|_| ()),
            Ok(()),
            "{n} distinct keys"
        );
        let mut repeated = distinct.clone();
        repeated.push(format!("k{}", n / 2));
        assert_eq!(
            run_outer(&object(&repeated)).0,
            Err(Refusal::DuplicateKey),
            "{n} keys + 1 repeat"
        );
    }
    // The same key in a parent and its child, or in siblings, is no repeat.
    assert!(
        run_outer(r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}],"c":{"a":1}}"#)
            .0
            .is_ok()
    );
    // A repeat after a nested object that used the same keys is still seen.
    assert_eq!(
        run_outer(r#"{"x":1,"y":{"x":1,"y":2},"x":3}"#).0,
        Err(Refusal::DuplicateKey)
    );
    // And one deep inside, after siblings.
    assert_eq!(
        run_outer(r#"{"a":[{"p":1},{"q":{"r":1,"s":2,"r":3}}],"b":2}"#).0,
        Err(Refusal::DuplicateKey)
    );
}

#[test]
fn numbers_a_double_keeps() {
    for keeps in [
        "0",
        "-0",
        "0.0",
        "1.5",
        "-9007199254740991",
        "1e307",
        "9.99e307",
        "1e-306",
        "0.001e-300",
        "123.456e2",
    ] {
        assert!(text_survives_f64(keeps), "{keeps}");
    }
    for changes in [
        "9007199254740992",
        "-9007199254740992",
        "1e308",
        "1e400",
        "1e-400",
        "0.0001e-305",
        "1e99999999999999999999",
    ] {
        assert!(!text_survives_f64(changes), "{changes}");
    }
}
