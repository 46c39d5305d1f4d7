//! The unit tests of `secret` (kept beside it so that `src/secret.rs` stays readable).

use super::*;

#[test]
fn entries_refuse_misplaced_bounds() {
    let code = |kind, until| {
        SecretEntry::new(Secret::new("s"), kind, until)
            .err()
            .map(Error::code)
    };
    assert_eq!(code(SecretKind::Active, None), None);
    assert_eq!(code(SecretKind::Pending, None), None);
    assert_eq!(code(SecretKind::Retiring, Some(0)), None);
    assert_eq!(code(SecretKind::Retiring, None), Some("invalid_argument"));
    assert_eq!(code(SecretKind::Active, Some(1)), Some("invalid_argument"));
    assert_eq!(code(SecretKind::Pending, Some(1)), Some("invalid_argument"));
}

#[test]
fn whitespace_detection() {
    assert!(Secret::new("abc\n").has_surrounding_whitespace());
    assert!(Secret::new(" abc").has_surrounding_whitespace());
    assert!(!Secret::new("a b").has_surrounding_whitespace());
    assert!(!Secret::new("").has_surrounding_whitespace());
}

#[test]
fn quote_detection() {
    assert!(Secret::new("\"whsec_abc\"").is_quoted());
    assert!(Secret::new("'whsec_abc'\n").is_quoted());
    assert!(!Secret::new("\"whsec_abc'").is_quoted());
    assert!(!Secret::new("\"").is_quoted());
    assert!(!Secret::new("whsec_\"abc\"x").is_quoted());
    assert!(!Secret::new("").is_quoted());
}

#[test]
fn owned_values_move_in() {
    let text = String::from("whsec_moved");
    let address = text.as_ptr();
    let secret = Secret::from(text);
    // The very buffer the String owned, now inside the Zeroizing wrapper.
    assert_eq!(secret.bytes().as_ptr(), address);
    assert_eq!(secret.bytes(), b"whsec_moved");
    let bytes = vec![1u8, 2, 3];
    let address = bytes.as_ptr();
    assert_eq!(Secret::from(bytes).bytes().as_ptr(), address);
}

#[test]
fn debug_is_redacted() {
    let entry = SecretEntry::active(Secret::new("canary-5f1e"));
    let text = format!("{entry:?}");
    assert!(!text.contains("canary"));
    assert!(text.contains("Secret([REDACTED])"), "{text}");
    assert_eq!(format!("{:?}", Secret::new("x")), "Secret([REDACTED])");
    assert_eq!(SecretKind::Pending.to_string(), "pending");
}

#[test]
fn lengths_and_bounds_read_back() {
    assert_eq!(Secret::new("whsec_é").len(), 8);
    assert_eq!(
        SecretEntry::active(Secret::new("a")).accept_until_secs(),
        None
    );
    assert_eq!(
        SecretEntry::retiring(Secret::new("r"), 1_700_003_600).accept_until_secs(),
        Some(1_700_003_600)
    );
}
