//! The unit tests of `idempotency`.

use super::*;

#[test]
fn keys() {
    assert!(validate_idempotency_key("a").is_ok());
    assert!(validate_idempotency_key(&"k".repeat(255)).is_ok());
    for bad in ["", "a\tb", "é", "\u{7f}", &"k".repeat(256)] {
        assert!(validate_idempotency_key(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn fingerprint_is_of_the_exact_bytes() {
    assert_ne!(
        request_fingerprint(b"{\"a\":1}"),
        request_fingerprint(b"{\"a\": 1}")
    );
    assert_eq!(request_fingerprint(b"abc").len(), 64);
}
