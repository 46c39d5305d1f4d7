//! The unit tests of `timestamp`.

use super::*;

#[test]
fn timestamps() {
    assert_eq!(parse_timestamp(b"0"), Ok(0));
    assert_eq!(parse_timestamp(b"999999999999"), Ok(999_999_999_999));
    // Each digit in many places, leading zeros included: the value std's parser reads.
    for n in [
        1_700_000_000_u64,
        123_456_789_012,
        98_765_432_109,
        1,
        10,
        9,
        1_000_000_000_000 - 1,
    ] {
        for width in n.to_string().len()..=MAX_TIMESTAMP_DIGITS {
            let text = format!("{n:0width$}");
            assert_eq!(
                parse_timestamp(text.as_bytes()).ok(),
                text.parse().ok(),
                "{text}"
            );
        }
    }
    for bad in [
        &b"1700000000000"[..],
        b" 1",
        b"1 ",
        b"1.5",
        b"1e9",
        b"-1",
        b"0x1",
        b"1_0",
    ] {
        assert_eq!(
            parse_timestamp(bad).unwrap_err().code(),
            "timestamp_malformed"
        );
    }
    assert_eq!(
        parse_timestamp("１７".as_bytes()).unwrap_err().code(),
        "timestamp_malformed"
    );
    // The detail says what is wrong: too many digits only when they are all digits.
    let detail = |value: &[u8]| parse_timestamp(value).unwrap_err().detail();
    assert_eq!(detail(b"1700000000000"), Some(TIMESTAMP_TOO_LONG));
    assert_eq!(
        detail("x".repeat(64).as_bytes()),
        Some("the timestamp holds a character other than an ASCII digit")
    );
}

#[test]
fn a_signature_in_the_timestamp_says_the_headers_may_be_swapped() {
    let tag = "3b".repeat(32);
    let swapped = |value: &str| {
        parse_timestamp(value.as_bytes())
            .unwrap_err()
            .detail()
            .is_some_and(|d| d.contains("swapped"))
    };
    for value in [
        format!("v1={tag}"),
        format!("t=1700000000,v1={tag}"),
        format!("V1={tag}"),
        format!("sha256={tag}"),
        tag.clone(),
        tag.to_uppercase(),
    ] {
        assert!(swapped(&value), "{value}");
        // What it read is never in the error.
        let shown = format!("{:#}", parse_timestamp(value.as_bytes()).unwrap_err());
        assert!(!shown.contains(&tag), "{shown}");
    }
    for value in [
        "1700000000x",
        "2026-11-30T10:00:00Z",
        "v1",
        "sha256",
        &tag[1..],
    ] {
        assert!(!swapped(value), "{value}");
    }
}
