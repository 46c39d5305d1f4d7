use super::scan::MAX_DEPTH;
use super::*;

static INNER: Spec = Spec(&[("b", &LEAF)]);
static OUTER: Spec = Spec(&[("a", &INNER), ("n", &LEAF), ("s", &LEAF)]);

mod blocks;
mod keys;

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
fn captured_names_are_matched_decoded() {
    // A captured field whose key is written with escapes is the field (`\u0073` is `s`,
    // `\u0061` is `a`), and a plain key after keys with escapes is read as itself.
    let text = r#"{"\u0078":0,"\u0073":"yes","\u0061":{"\u0062":"deep"},"n":1}"#;
    let (shape, _) = run_outer(text);
    let shape = shape.unwrap();
    assert_eq!(shape.field("s"), Some(&Shape::Str(Cow::Borrowed("yes"))));
    let a = shape.field("a").unwrap();
    assert_eq!(a.field("b"), Some(&Shape::Str(Cow::Borrowed("deep"))));
    assert_eq!(shape.field("n"), Some(&Shape::Num("1")));
    assert!(shape.has_unknown_key());
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
        // At most 15 significant digits, trailing zeros not counted.
        "123456789012345e-3",
        "-1.23456789012345e300",
        "123456789012345.0000",
        "1.5000000000000000000000",
        "100000000000000000000e-5",
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
        // A fraction or an exponent that a double reads as another number...
        "9007199254740993.0",
        "9007199254740993e0",
        "12345678901234567890e0",
        "1.00000000000000000001",
        "-1.00000000000000000001",
        "0.30000000000000005",
        "0.1000000000000000055511151231257827",
        // ... or may not: more than 15 significant digits are kept as text.
        "0.30000000000000004",
        "1.234567890123456e10",
    ] {
        assert!(!text_survives_f64(changes), "{changes}");
    }
}

#[test]
fn ascii_is_every_byte_below_0x80() {
    let ascii = |text: &[u8]| scan(text, &OUTER).map(|scanned| scanned.ascii);
    assert_eq!(
        ascii(br#"{"a":{"b":"x\u00e9"},"n":1}"#),
        Ok(true),
        "an escape is ASCII"
    );
    // One character outside ASCII, in a key or a value, at every offset of a string longer
    // than a block of the scan, and after an escape.
    for ch in ["é", "€", "😀"] {
        for len in 0..40 {
            for at in 0..=len {
                let mut plain = "x".repeat(len);
                plain.insert_str(at, ch);
                for body in [
                    format!(r#"{{"s":"{plain}"}}"#),
                    format!(r#"{{"{plain}":1,"n":[{{"k":"\n{plain}"}}]}}"#),
                    format!(r#"{{"a":{{"b":"\"{plain}"}}}}"#),
                ] {
                    assert_eq!(ascii(body.as_bytes()), Ok(false), "{body}");
                    let back = body.replace(ch, "y");
                    assert_eq!(ascii(back.as_bytes()), Ok(true), "{back}");
                }
            }
        }
    }
}
