//! Repeated keys: at every depth, on the captured and the skipped paths, past the scanner's
//! slots for open containers, and with escapes.

use super::super::scan::{OPEN_SLOTS, PAIRWISE_KEYS};
use super::*;

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
fn repeated_keys_past_the_scanners_slots() {
    // A value nothing captures notes the containers it opens in OPEN_SLOTS slots, then in a
    // Vec: the keys of each object must be told apart at every depth on both sides of the line.
    // `depth` objects inside "x", each `{"k":[<next>,{"k":2}]}` around the next (arrays between
    // them, so both kinds are counted: 2 * depth - 1 containers), the innermost `{"k":1}`;
    // `extra` is added to the object at `level` (1: the outermost), after its nested value.
    let nest = |depth: usize, level: usize, extra: &str| {
        let mut text = String::new();
        for at in (1..=depth).rev() {
            let add = if at == level { extra } else { "" };
            text = if at == depth {
                format!("{{\"k\":1{add}}}")
            } else {
                format!("{{\"k\":[{text},{{\"k\":2}}]{add}}}")
            };
        }
        format!("{{\"x\":{text}}}")
    };
    // 15 and 17 containers on either side of the slots, then far past them.
    for depth in [
        1,
        2,
        OPEN_SLOTS / 2,
        OPEN_SLOTS / 2 + 1,
        OPEN_SLOTS / 2 + 2,
        60,
    ] {
        assert!(
            run_outer(&nest(depth, 0, "")).0.is_ok(),
            "{depth}: no repeat"
        );
        for level in 1..=depth {
            let new = nest(depth, level, ",\"j\":1");
            assert!(run_outer(&new).0.is_ok(), "{depth}, {level}: a new key");
            for repeat in [",\"k\":3", ",\"\\u006b\":3"] {
                let text = nest(depth, level, repeat);
                assert_eq!(
                    run_outer(&text).0,
                    Err(Refusal::DuplicateKey),
                    "{depth}, {level}: {repeat}"
                );
                let nested = scan_envelope(text.as_bytes(), &OUTER).map(|s| s.nested_duplicate);
                assert_eq!(
                    nested,
                    Ok(true),
                    "{depth}, {level}: {repeat} below the top level"
                );
            }
        }
    }
}

#[test]
fn keys_with_escapes_are_compared_decoded() {
    // Keys are kept as they are between their quotes; those with escapes are compared decoded,
    // on the captured path (the top level here) and on the skipped one (inside "x"), whatever
    // the number of keys (pairwise up to PAIRWISE_KEYS, sorted above).
    let many = |extra: &str| {
        let keys: Vec<String> = (0..PAIRWISE_KEYS + 3)
            .map(|i| format!("\"k{i}\":1"))
            .collect();
        format!("{{\"x\":{{{},{extra}}}}}", keys.join(","))
    };
    for (text, repeated) in [
        (r#"{"s":1,"\u0073":2}"#.to_owned(), true),
        (r#"{"\u0073":1,"s":2}"#.to_owned(), true),
        (r#"{"x":{"k":1,"\u006b":2}}"#.to_owned(), true),
        (r#"{"x":{"\u006b":1,"\u006B":2}}"#.to_owned(), true),
        (r#"{"x":{"\u0061":1,"\u0062":2}}"#.to_owned(), false),
        // The same key in a parent and its child, in siblings, or once each side of a child
        // whose keys have escapes: no repeat.
        (r#"{"x":{"\u006b":{"k":1},"j":2}}"#.to_owned(), false),
        (
            r#"{"x":[{"\u006b":1},{"\u006b":2},{"k":3}]}"#.to_owned(),
            false,
        ),
        (r#"{"x":[{"\u006b":1},{"a":1,"k":2}]}"#.to_owned(), false),
        (r#"{"x":{"a":{"\u0062":1},"b":2}}"#.to_owned(), false),
        (r#"{"\u0078":{"\u0078":1},"n":1}"#.to_owned(), false),
        // A repeat in the parent after a child with escapes is still seen.
        (
            r#"{"x":{"b":{"\u0062":1,"c":2},"\u0062":2}}"#.to_owned(),
            true,
        ),
        (r#"{"x":{"b":{"\u0062":1},"b":2}}"#.to_owned(), true),
        // A backslash of its own is not an escape of the next letter.
        (r#"{"x":{"\\u0061":1,"\u0061":2}}"#.to_owned(), false),
        (many(r#""\u006b5":2"#), true),
        (many(r#""\u006b99":2"#), false),
    ] {
        let expected = if repeated {
            Err(Refusal::DuplicateKey)
        } else {
            Ok(())
        };
        assert_eq!(run_outer(&text).0.map(drop), expected, "{text}");
        // A repeat inside "x" is below the top level; the others are at it.
        let envelope = scan_envelope(text.as_bytes(), &OUTER).map(|s| s.nested_duplicate);
        let below = match (repeated, text.starts_with("{\"x\"")) {
            (false, _) => Ok(false),
            (true, true) => Ok(true),
            (true, false) => Err(Refusal::DuplicateKey),
        };
        assert_eq!(envelope, below, "{text}");
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            "{text} is JSON"
        );
    }
}
