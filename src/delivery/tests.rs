//! The unit tests of `delivery`.

use super::*;

/// A delivery of these bytes, for the tests here and in `verify`.
pub(crate) fn delivery<'a>(body: &'a [u8], ts: &'a [u8], sig: &'a str) -> Delivery<'a> {
    Delivery {
        body,
        timestamp: ts,
        signature: sig.as_bytes(),
    }
}

#[test]
fn checks_in_order_without_a_secret() {
    let opts = VerifyOptions::new(300).with_max_body_bytes(4).unwrap();
    let code = |d: Delivery<'_>| d.check(&opts).unwrap_err().code();
    let hex = "00".repeat(32);
    assert_eq!(code(delivery(b"12345", b"", "")), "body_too_large");
    assert_eq!(code(delivery(b"", b"", "")), "timestamp_missing");
    assert_eq!(code(delivery(b"", b"x", "")), "timestamp_malformed");
    assert_eq!(code(delivery(b"", b"1", "")), "signature_missing");
    assert_eq!(code(delivery(b"", b"1", "zz")), "signature_malformed");
    assert_eq!(
        code(delivery(b"", b"1", &format!("t=2,v1={hex}"))),
        "signature_malformed"
    );
    assert_eq!(delivery(b"1234", b"7", &hex).check(&opts), Ok(7));
}

#[test]
fn debug_never_shows_the_signature_or_body() {
    let d = delivery(b"secret-body", b"1700000000", "abcdef");
    let text = format!("{d:?}");
    assert!(!text.contains("secret-body") && !text.contains("abcdef"));
    assert!(
        text.contains("body_len: 11") && text.contains("1700000000"),
        "{text}"
    );
    // The header names swapped: the timestamp's value is the signature, shown by length only.
    let tag = "ab".repeat(32);
    let swapped = format!("v1={tag}");
    let d = Delivery {
        body: b"{}",
        timestamp: swapped.as_bytes(),
        signature: b"1700000000",
    };
    let text = format!("{d:?}");
    assert!(!text.contains(&tag), "{text}");
    assert!(text.contains("[not a timestamp: 67 bytes]"), "{text}");
}
