//! The unit tests of `event` (kept beside it so that `src/event.rs` stays readable).

use super::*;

fn code(body: &str) -> &'static str {
    parse_event(body.as_bytes()).unwrap_err().code()
}

const GOOD: &str = r#"{"schema_version":"1","event_id":"evt_1","event_type":"payment.updated","occurred_at":1700000000,"extra":[1,{"a":1}],"data":{"payment_id":"pay_1","status_version":"7","note":{"k":1e400}}}"#;

#[test]
fn good_event_keeps_everything() {
    let e = parse_event(GOOD.as_bytes()).unwrap();
    assert_eq!(e.event_id(), "evt_1");
    assert_eq!(e.payment_id(), "pay_1");
    assert_eq!(e.status_version().as_str(), "7");
    assert_eq!(e.occurred_at(), &OccurredAt::Number("1700000000".into()));
    assert_eq!(e.envelope_json(), GOOD);
    assert_eq!(
        e.data_json(),
        r#"{"payment_id":"pay_1","status_version":"7","note":{"k":1e400}}"#
    );
    let debug = format!("{e:?}");
    assert!(debug.contains("evt_1") && !debug.contains("note"));
}

#[test]
fn data_keeps_its_exact_text_with_whitespace_and_escapes() {
    let body = "{ \"data\" :\n { \"payment_id\" : \"p\\u00e9\", \"status_version\": 18446744073709551617 } ,\n\"schema_version\":1,\"event_id\":\"e\",\"event_type\":\"payment.updated\",\"occurred_at\":\"x\"}";
    let e = parse_event(body.as_bytes()).unwrap();
    assert_eq!(e.payment_id(), "pé");
    assert_eq!(
        e.data_json(),
        "{ \"payment_id\" : \"p\\u00e9\", \"status_version\": 18446744073709551617 }"
    );
    assert_eq!(e.status_version().as_str(), "18446744073709551617");
}

#[test]
fn duplicates_at_any_depth() {
    assert_eq!(code(r#"{"a":1,"a":1}"#), "event_duplicate_key");
    assert_eq!(
        code(r#"{"data":{"x":[{"k":1,"k":2}]}}"#),
        "event_duplicate_key"
    );
    assert_eq!(code(r#"{"a":1,"\u0061":2}"#), "event_duplicate_key");
    // A syntax error after a duplicate is still reported as not JSON.
    assert_eq!(code(r#"{"a":1,"a":1"#), "event_not_json");
}

#[test]
fn not_json() {
    assert_eq!(code(""), "event_not_json");
    assert_eq!(code("\u{feff}{}"), "event_not_json");
    assert_eq!(code("{} x"), "event_not_json");
    assert_eq!(
        code(&format!("{}{}", "[".repeat(200), "]".repeat(200))),
        "event_not_json"
    );
    assert_eq!(
        parse_event(b"{\"a\":\"\xff\"}").unwrap_err().code(),
        "event_not_json"
    );
}

#[test]
fn shape() {
    assert_eq!(code("[]"), "event_malformed");
    assert_eq!(code("1e400"), "event_malformed");
    assert_eq!(
        code(r#"{"event_type":"payment.created"}"#),
        "event_type_unknown"
    );
    let swap = |from: &str, to: &str| GOOD.replace(from, to);
    for (version, expected) in [
        (r#""07""#, "status_version_invalid"),
        ("7.0", "status_version_invalid"),
        ("-7", "status_version_invalid"),
        ("7e0", "status_version_invalid"),
        ("null", "status_version_invalid"),
    ] {
        let body = swap(
            r#""status_version":"7""#,
            &format!(r#""status_version":{version}"#),
        );
        assert_eq!(code(&body), expected, "{version}");
    }
    assert_eq!(
        code(&swap(r#""status_version":"7""#, r#""v":1"#)),
        "event_malformed"
    );
    assert_eq!(
        code(&swap(r#""payment_id":"pay_1""#, r#""payment_id":"""#)),
        "event_malformed"
    );
    assert_eq!(
        code(&swap(r#""schema_version":"1""#, r#""schema_version":-1"#)),
        "event_malformed"
    );
    assert_eq!(
        code(&swap(
            r#""occurred_at":1700000000"#,
            r#""occurred_at":null"#
        )),
        "event_malformed"
    );
}
