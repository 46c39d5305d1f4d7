//! The unit tests of `timestamp`.

use super::*;

#[test]
fn timestamps() {
    assert_eq!(parse_timestamp(b"0"), Ok(0));
    assert_eq!(parse_timestamp(b"999999999999"), Ok(999_999_999_999));
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
        detail("a".repeat(64).as_bytes()),
        Some("the timestamp holds a character other than an ASCII digit")
    );
}
