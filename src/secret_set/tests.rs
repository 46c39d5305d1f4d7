//! The unit tests of `secret_set`.

use super::*;

fn code(entries: Vec<SecretEntry>) -> Option<&'static str> {
    SecretSet::new(entries).err().map(Error::code)
}

#[test]
fn len_counts_the_entries() {
    let set = |n: usize| {
        let mut entries = vec![SecretEntry::active(Secret::new("a"))];
        entries.extend((1..n).map(|i| SecretEntry::pending(Secret::new(format!("p{i}")))));
        SecretSet::new(entries).unwrap().len()
    };
    assert_eq!([set(1), set(2), set(3)], [1, 2, 3]);
}

#[test]
fn shapes_then_material() {
    let a = || SecretEntry::active(Secret::new("a"));
    let p = || SecretEntry::pending(Secret::new("p"));
    let r = || SecretEntry::retiring(Secret::new("r"), 10);
    let empty = || SecretEntry::active(Secret::new(""));
    assert_eq!(code(vec![a()]), None);
    assert_eq!(code(vec![a(), p(), r(), r()]), None);
    assert_eq!(
        code(vec![a(), p(), r(), r(), p()]),
        Some("invalid_argument")
    );
    assert_eq!(code(vec![p()]), Some("invalid_argument"));
    assert_eq!(code(vec![a(), a()]), Some("invalid_argument"));
    assert_eq!(code(vec![]), Some("no_secrets"));
    assert_eq!(code(vec![empty()]), Some("secret_empty"));
    // The shape is checked before the material.
    assert_eq!(code(vec![empty(), empty()]), Some("invalid_argument"));
    let five_empty = vec![empty(), p(), p(), p(), p()];
    assert_eq!(code(five_empty), Some("invalid_argument"));
}

#[test]
fn a_bound_in_milliseconds_is_refused() {
    let a = || SecretEntry::active(Secret::new("a"));
    let r = |until| SecretEntry::retiring(Secret::new("r"), until);
    assert_eq!(code(vec![a(), r(999_999_999_999)]), None);
    assert_eq!(
        code(vec![a(), r(1_000_000_000_000)]),
        Some("invalid_argument")
    );
    assert_eq!(code(vec![a(), r(u64::MAX)]), Some("invalid_argument"));
    let error = SecretSet::new(vec![a(), r(1_767_225_600_000)]).unwrap_err();
    assert!(error.to_string().contains("in milliseconds"), "{error}");
    // Before the material: an empty secret beside it is not what is reported.
    let empty = SecretEntry::active(Secret::new(""));
    assert_eq!(
        code(vec![empty, r(1_767_225_600_000)]),
        Some("invalid_argument")
    );
}

/// The tag of the delivery `1.x` under `key`.
fn sig(key: &str) -> Tag {
    KeyedMac::new(key.as_bytes())
        .unwrap()
        .delivery_tag(b"1", b"x")
}

/// An active secret "new" and a retiring "old" whose overlap ends at 10.
fn new_and_old() -> SecretSet {
    SecretSet::new(vec![
        SecretEntry::active(Secret::new("new")),
        SecretEntry::retiring(Secret::new("old"), 10),
    ])
    .unwrap()
}

#[test]
fn retiring_bound_is_inclusive_and_the_first_kind_is_reported() {
    let set = SecretSet::new(vec![
        SecretEntry::active(Secret::new("new")),
        SecretEntry::retiring(Secret::new("old"), 10),
        SecretEntry::pending(Secret::new("old")),
    ])
    .unwrap();
    let kind = |tag: Tag, now| set.matching(b"1", b"x", &[tag], now, None);
    assert_eq!(kind(sig("old"), 10), Ok(SecretKind::Pending));
    assert_eq!(kind(sig("new"), 11), Ok(SecretKind::Active));
    let only_old = new_and_old();
    assert_eq!(
        only_old.matching(b"1", b"x", &[sig("old")], 10, None),
        Ok(SecretKind::Retiring)
    );
    let late = only_old
        .matching(b"1", b"x", &[sig("old")], 11, None)
        .unwrap_err();
    assert_eq!(late.code(), "signature_mismatch");
    assert!(late.to_string().contains("overlap ended"));
    assert!(!late.is_receiver_fault());
}

#[test]
fn a_delivery_signed_inside_the_overlap_that_arrives_after_it_is_the_receivers() {
    let set = new_and_old();
    // Signed at the bound (inside, inclusive) or before it, in time: in flight at the end.
    for signed in [9, 10] {
        let e = set
            .matching(b"1", b"x", &[sig("old")], 11, Some(signed))
            .unwrap_err();
        assert_eq!(
            (e.code(), e.detail()),
            ("signature_mismatch", Some(SIGNED_IN_OVERLAP))
        );
        assert!(e.is_receiver_fault() && e.to_string().contains("overlap ended"));
    }
    // Signed after the bound, or not within the skew (None): the old secret, used after.
    for signed in [Some(11), None] {
        let e = set
            .matching(b"1", b"x", &[sig("old")], 11, signed)
            .unwrap_err();
        assert_eq!(e.detail(), Some(OVERLAP_ENDED));
        assert!(!e.is_receiver_fault());
    }
    // A signature of no secret is the sender's, whatever the time.
    let forged = set
        .matching(b"1", b"x", &[sig("other")], 11, Some(10))
        .unwrap_err();
    assert_eq!((forged.detail(), forged.is_receiver_fault()), (None, false));
}

#[test]
fn a_clone_shares_the_keyed_states() {
    let set = SecretSet::single(Secret::new("s")).unwrap();
    let copy = set.clone();
    assert!(Arc::ptr_eq(&set.keys, &copy.keys));
    assert_eq!(Arc::strong_count(&set.keys), 2);
    drop(copy);
    assert_eq!(Arc::strong_count(&set.keys), 1);
}

#[test]
fn debug_shows_kinds_never_secrets() {
    let set = SecretSet::new(vec![
        SecretEntry::active(Secret::new("canary-5f1e")),
        SecretEntry::retiring(Secret::new("canary-0ld"), 7),
    ])
    .unwrap();
    let text = format!("{set:?}");
    assert_eq!(text, "[active, retiring(until 7)]");
}
