use super::*;

/// An envelope whose data holds `extra` after the payment's id and version.
fn event(extra: &str) -> Vec<u8> {
    format!(
        r#"{{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":1,"data":{{"payment_id":"p","status_version":3{extra}}}}}"#
    )
    .into_bytes()
}

#[test]
fn lossy_numbers_are_told_from_exact_ones() {
    for (extra, lossy) in [
        ("", false),
        (r#","amount":9007199254740991"#, false),
        (r#","amount":9007199254740992"#, true),
        (r#","rate":0.1"#, false),
        (r#","rate":1e400"#, true),
        (r#","rate":1.00000000000000000001"#, true),
        (r#","list":[1,2,{"deep":18446744073709551617}]"#, true),
    ] {
        let checked = check_event(&event(extra)).unwrap();
        assert_eq!(checked.has_lossy_numbers(), lossy, "{extra}");
    }
}

#[test]
fn ascii_is_told_from_text_outside_it() {
    assert!(check_event(&event("")).unwrap().is_ascii());
    assert!(
        check_event(&event(r#","note":"\u00e9""#))
            .unwrap()
            .is_ascii()
    );
    assert!(!check_event(&event(r#","note":"é""#)).unwrap().is_ascii());
    assert!(!check_event(&event(r#","note":"€""#)).unwrap().is_ascii());
}

#[test]
fn lossy_spans_are_each_number_exactly_in_document_order() {
    let body = br#"{"a":1,"b":[9007199254740993,2.5,1e999],"c":{"d":-18446744073709551617},"e":"9007199254740993"}"#;
    let spans = lossy_number_spans(body).unwrap();
    let texts: Vec<&[u8]> = spans.iter().map(|span| &body[span.clone()]).collect();
    assert_eq!(
        texts,
        [
            &b"9007199254740993"[..],
            &b"1e999"[..],
            &b"-18446744073709551617"[..]
        ]
    );
    assert_eq!(lossy_number_spans(br#"{"a":1,"b":2.5}"#).unwrap(), []);
    assert_eq!(
        lossy_number_spans(br#"{"a":1,"a":2}"#).unwrap_err().code(),
        "event_duplicate_key"
    );
}
