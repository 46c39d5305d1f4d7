//! The unit tests of `options`.

use super::*;

fn skew(timestamp: u64, now: u64, max: u64) -> Option<&'static str> {
    VerifyOptions::new(max)
        .check_skew(timestamp, now)
        .err()
        .map(Error::code)
}

#[test]
fn skew_is_two_sided_and_inclusive() {
    assert_eq!(skew(100, 100, 0), None);
    assert_eq!(skew(0, u64::MAX, u64::MAX), None);
    assert_eq!(skew(99, 100, 0), Some("timestamp_too_old"));
    assert_eq!(skew(101, 100, 0), Some("timestamp_in_future"));
    assert_eq!(skew(400, 100, 300), None);
    assert_eq!(skew(401, 100, 300), Some("timestamp_in_future"));
    assert_eq!(skew(0, u64::MAX, 10), Some("timestamp_too_old"));
}

/// A clock read in milliseconds: the delivery is still old (its code unchanged), and the
/// detail says why; a clock in seconds gets no such detail.
#[test]
fn an_old_delivery_against_a_clock_in_milliseconds_says_so() {
    let options = VerifyOptions::new(300);
    let millis = options
        .check_skew(1_700_000_000, 1_700_000_000_123)
        .unwrap_err();
    assert_eq!(millis.code(), "timestamp_too_old");
    assert_eq!(millis.detail(), Some(NOW_IN_MILLISECONDS));
    assert!(millis.to_string().contains("milliseconds"), "{millis}");
    let seconds = options
        .check_skew(1_700_000_000, 999_999_999_999)
        .unwrap_err();
    assert_eq!(
        (seconds.code(), seconds.detail()),
        ("timestamp_too_old", None)
    );
}

/// A clock before September 2001 (one that failed, read as 0): a delivery from the future with
/// a detail saying why; from 10^9 on, no such detail (the receiver's fault either way).
#[test]
fn a_delivery_from_the_future_against_a_clock_before_2001_says_so() {
    let options = VerifyOptions::new(300);
    for now in [0, 1, CLOCK_FROM - 1] {
        let early = options.check_skew(1_700_000_000, now).unwrap_err();
        assert_eq!(
            (early.code(), early.detail(), early.is_receiver_fault()),
            ("timestamp_in_future", Some(NOW_BEFORE_2001), true)
        );
    }
    let set = options.check_skew(1_700_000_000, CLOCK_FROM).unwrap_err();
    assert_eq!(
        (set.code(), set.detail(), set.is_receiver_fault()),
        ("timestamp_in_future", None, true)
    );
    // A delivery within the skew of such a clock is not refused (the signature decides).
    assert!(options.check_skew(100, 0).is_ok());
}

#[test]
fn options_keep_what_they_were_given() {
    let o = VerifyOptions::new(300);
    assert_eq!(o.max_skew_secs(), 300);
    assert_eq!(o.max_body_bytes(), 4_194_304);
    assert_eq!(MAX_MAX_BODY_BYTES, 67_108_864);
    assert_eq!(o.with_max_body_bytes(7).unwrap().max_body_bytes(), 7);
    assert_eq!(o.with_max_body_bytes(7).unwrap().max_skew_secs(), 300);
}
