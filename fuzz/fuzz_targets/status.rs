//! `status_version` order and the de-duplication decision: `StatusVersion::parse`,
//! `Ord` and `decide_event` on two arbitrary versions, against an
//! independent grammar, `u128` order where both fit, and the order's laws (antisymmetry,
//! equality is text equality, one more is greater).
//!
//! Input: version a on the first line, version b in the rest.
#![no_main]

use std::cmp::Ordering;

use cryptopay_verify::{Decision, ErrorKind, StatusVersion, Stored, decide_event};
use cryptopay_verify_fuzz::{Fields, checked};
use libfuzzer_sys::fuzz_target;

fn grammar(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
}

/// Decimal digits plus one.
fn successor(s: &str) -> String {
    let mut digits = s.as_bytes().to_vec();
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return String::from_utf8(digits).expect("ascii");
        }
    }
    digits.insert(0, b'1');
    String::from_utf8(digits).expect("ascii")
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let a = fields.text();
    let b = String::from_utf8_lossy(fields.rest()).into_owned();
    let codes = &[ErrorKind::StatusVersionInvalid];

    let pa = checked(StatusVersion::parse(&a), codes);
    let pb = checked(StatusVersion::parse(&b), codes);
    assert_eq!(pa.is_ok(), grammar(&a), "parse({a:?})");
    assert_eq!(pb.is_ok(), grammar(&b), "parse({b:?})");
    let (Ok(va), Ok(vb)) = (pa, pb) else {
        return;
    };
    assert_eq!(va.as_str(), a);
    assert_eq!(va.to_string(), a);
    assert_eq!(a.parse::<StatusVersion>().as_ref(), Ok(&va));

    let order = va.cmp(&vb);
    assert_eq!(vb.cmp(&va), order.reverse());
    assert_eq!(va.partial_cmp(&vb), Some(order));
    assert_eq!(order == Ordering::Equal, a == b);
    if let (Ok(x), Ok(y)) = (a.parse::<u128>(), b.parse::<u128>()) {
        assert_eq!(order, x.cmp(&y), "{a} vs {b}");
    }
    let next = StatusVersion::parse(&successor(&a)).expect("the successor is a version");
    assert_eq!(next.cmp(&va), Ordering::Greater);
    if order == Ordering::Less {
        assert_ne!(
            next.cmp(&vb),
            Ordering::Greater,
            "nothing lies between {a} and {a} + 1"
        );
    }

    let stored = |seen: bool, v: Option<&StatusVersion>| Stored {
        event_seen: seen,
        status_version: v.cloned(),
    };
    assert_eq!(
        decide_event(&va, &stored(true, Some(&vb))),
        Decision::Duplicate
    );
    assert_eq!(decide_event(&va, &stored(false, None)), Decision::Apply);
    let expected = if order == Ordering::Greater {
        Decision::Apply
    } else {
        Decision::Stale
    };
    assert_eq!(decide_event(&va, &stored(false, Some(&vb))), expected);
});
