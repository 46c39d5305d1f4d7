//! The unit tests of `status`.

use super::*;

fn v(s: &str) -> StatusVersion {
    StatusVersion::parse(s).unwrap()
}

#[test]
fn order_is_integer_order() {
    let mut values: Vec<u128> = vec![0, 1, 9, 10, 99, 100, u64::MAX.into(), u128::MAX];
    values.extend((0..50u128).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    for a in &values {
        for b in &values {
            assert_eq!(
                v(&a.to_string()).cmp(&v(&b.to_string())),
                a.cmp(b),
                "{a} vs {b}"
            );
        }
    }
}

#[test]
fn text_forms() {
    let big = v("18446744073709551617");
    assert_eq!(big.to_string(), "18446744073709551617");
    assert_eq!(format!("{big:?}"), "StatusVersion(18446744073709551617)");
    assert_eq!("7".parse::<StatusVersion>().unwrap(), v("7"));
}

#[test]
fn from_integers_is_canonical() {
    for n in [0_u64, 1, 9, 10, 4_294_967_296, u64::MAX] {
        let from = StatusVersion::from(n);
        assert_eq!(from, v(&n.to_string()));
        assert_eq!(from, StatusVersion::from(u128::from(n)));
        assert!(StatusVersion::is_valid(from.as_str()));
    }
    assert_eq!(StatusVersion::from(u128::MAX), v(&u128::MAX.to_string()));
    assert!(StatusVersion::from(u128::MAX) > StatusVersion::from(u64::MAX));
}

#[test]
fn invalid_versions() {
    for bad in ["", "-1", "+1", "01", "1.0", "1e3", " 1", "١"] {
        assert_eq!(
            StatusVersion::parse(bad).unwrap_err().code(),
            "status_version_invalid",
            "{bad}"
        );
    }
}

#[test]
fn decisions() {
    let none = Stored::default();
    assert_eq!(decide_event(&v("0"), &none), Decision::Apply);
    let seen = Stored {
        event_seen: true,
        status_version: None,
    };
    assert_eq!(decide_event(&v("9"), &seen), Decision::Duplicate);
    let at = |s: &str| Stored {
        event_seen: false,
        status_version: Some(v(s)),
    };
    assert_eq!(decide_event(&v("10"), &at("9")), Decision::Apply);
    assert_eq!(decide_event(&v("9"), &at("9")), Decision::Stale);
    assert_eq!(decide_event(&v("8"), &at("9")), Decision::Stale);
}

#[test]
fn successors_are_exact_at_any_size() {
    assert_eq!(v("0").successor(), v("1"));
    assert_eq!(v("9").successor(), v("10"));
    assert_eq!(v("9007199254740992").successor(), v("9007199254740993"));
    assert_eq!(
        StatusVersion::from(u64::MAX).successor(),
        StatusVersion::from(u128::from(u64::MAX) + 1)
    );
    let nines = "9".repeat(100);
    assert_eq!(
        v(&nines).successor().as_str(),
        format!("1{}", "0".repeat(100))
    );
}
