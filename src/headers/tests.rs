//! The unit tests of `headers`.

use super::*;

fn read(pairs: &[(&str, &str)]) -> Result<(String, String), &'static str> {
    let it = pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    read_delivery_headers(it, "T", "S")
        .map(|h| {
            (
                String::from_utf8(h.timestamp.to_vec()).unwrap(),
                String::from_utf8(h.signature.to_vec()).unwrap(),
            )
        })
        .map_err(Error::code)
}

#[test]
fn cases() {
    assert_eq!(
        read(&[("t", "1"), ("s", "x")]),
        Ok(("1".into(), "x".into()))
    );
    assert_eq!(read(&[("s", "x")]), Err("timestamp_missing"));
    assert_eq!(read(&[("t", "1")]), Err("signature_missing"));
    assert_eq!(
        read(&[("t", "1"), ("S", "x"), ("s", "x")]),
        Err("header_duplicated")
    );
    assert_eq!(read(&[("s", "x"), ("s", "x")]), Err("timestamp_missing"));
    assert_eq!(
        read(&[("T", "1"), ("s", "x"), ("s", "x")]),
        Err("header_duplicated")
    );
    // Which header was repeated, by its role (never its values).
    let detail = |pairs: &[(&'static str, &'static str)]| {
        read_delivery_headers(
            pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())),
            "t",
            "s",
        )
        .unwrap_err()
        .detail()
    };
    assert_eq!(
        detail(&[("t", "1"), ("t", "2"), ("s", "x")]),
        Some("the timestamp header")
    );
    assert_eq!(
        detail(&[("t", "1"), ("s", "x"), ("S", "y")]),
        Some("the signature header")
    );
    let same = read_delivery_headers(core::iter::empty(), "a", "A");
    assert_eq!(same.unwrap_err().code(), "invalid_argument");
    for (t, s) in [
        ("", "S"),
        ("T", ""),
        ("X Timestamp", "S"),
        ("T", "x-signature:"),
        ("X-Zeitstempel-ä", "S"),
        ("T\n", "S"),
    ] {
        let refused = read_delivery_headers(core::iter::empty(), t, s);
        assert_eq!(
            refused.unwrap_err().code(),
            "invalid_argument",
            "{t:?} {s:?}"
        );
    }
    let odd = [("x-ts!#$%&'*+-.^_`|~9", "1"), ("S", "v1=ab")];
    let pairs = odd.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    assert!(read_delivery_headers(pairs, "X-TS!#$%&'*+-.^_`|~9", "s").is_ok());
}

#[test]
fn debug_shows_the_timestamp_never_the_signature() {
    let h = DeliveryHeaders {
        timestamp: b"1700000000",
        signature: b"v1=abcdef",
    };
    let text = format!("{h:?}");
    assert!(
        text.contains("1700000000") && text.contains("[REDACTED]"),
        "{text}"
    );
    assert!(!text.contains("abcdef"));
    // Swapped header names: a bare tag (or anything but 1 to 12 digits) is shown by length.
    let tag = "cd".repeat(32);
    let h = DeliveryHeaders {
        timestamp: tag.as_bytes(),
        signature: b"1700000000",
    };
    let text = format!("{h:?}");
    assert!(
        !text.contains(&tag) && text.contains("[not a timestamp: 64 bytes]"),
        "{text}"
    );
    for odd in [&b""[..], b"1700000000000", b"17000 0000"] {
        let text = format!(
            "{:?}",
            DeliveryHeaders {
                timestamp: odd,
                signature: b"x"
            }
        );
        assert!(
            text.contains(&format!("[not a timestamp: {} bytes]", odd.len())),
            "{text}"
        );
    }
}

#[test]
fn header_names_are_checked_once_naming_the_bad_one() {
    use crate::validate_header_names;
    assert_eq!(validate_header_names("X-Timestamp", "X-Signature"), Ok(()));
    let detail = |t: &str, s: &str| validate_header_names(t, s).unwrap_err().detail();
    assert!(detail("", "s").is_some_and(|d| d.starts_with("timestamp_header is not")));
    assert!(detail("t", "X Sig").is_some_and(|d| d.starts_with("signature_header is not")));
    assert_eq!(
        detail("x-t", "X-T"),
        Some("timestamp_header and signature_header name the same header")
    );
    // read_delivery_headers refuses the same names at every call.
    let pairs = [("t", "1")].map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    assert_eq!(
        read_delivery_headers(pairs, "t", "t").unwrap_err().detail(),
        detail("t", "t")
    );
}
