use super::*;

#[test]
fn round_trips() {
    for (decimal, decimals, raw) in [
        ("128.00", 2, "12800"),
        ("0.05", 2, "5"),
        ("5", 0, "5"),
        ("1", 18, "1000000000000000000"),
        ("0.000000000000000001", 18, "1"),
    ] {
        assert_eq!(to_amount_raw(decimal, decimals).unwrap(), raw);
        let back = from_amount_raw(raw, decimals).unwrap();
        assert_eq!(to_amount_raw(&back, decimals).unwrap(), raw);
    }
    assert_eq!(from_amount_raw("1", 77).unwrap().len(), 79);
}

#[test]
fn limits() {
    assert!(validate_amount_raw(MAX_AMOUNT_RAW).is_ok());
    let over = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
    assert_eq!(
        validate_amount_raw(over).unwrap_err().code(),
        "amount_raw_invalid"
    );
    assert_eq!(
        validate_amount_raw(&"9".repeat(79)).unwrap_err().code(),
        "amount_raw_invalid"
    );
    assert_eq!(
        to_amount_raw("0.00", 2).unwrap_err().code(),
        "amount_raw_invalid"
    );
    assert_eq!(
        to_amount_raw("1", 78).unwrap_err().code(),
        "decimals_invalid"
    );
    for bad in ["", ".5", "5.", "1.2.3", "-1", "+1", "1e3", " 1", "1,5", "١"] {
        assert_eq!(
            to_amount_raw(bad, 2).unwrap_err().code(),
            "amount_decimal_invalid",
            "{bad}"
        );
    }
}

#[test]
fn unsigned_digits() {
    for good in ["0", "1", "10", "9007199254740993", &"9".repeat(200)] {
        assert!(is_unsigned_digits(good), "{good}");
    }
    for bad in ["", "00", "01", "-1", "+1", "1.0", "1e3", " 1", "1 ", "١"] {
        assert!(!is_unsigned_digits(bad), "{bad}");
    }
}

#[test]
fn digit_strings_add_and_compare_as_integers() {
    let mut values: Vec<u128> = vec![0, 1, 9, 10, 99, 100, 999, u64::MAX.into()];
    values.extend((0..40u128).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 2));
    for a in &values {
        for b in &values {
            let (ta, tb) = (a.to_string(), b.to_string());
            assert_eq!(cmp_digits(&ta, &tb), a.cmp(b), "{a} vs {b}");
            if let Some(sum) = a.checked_add(*b) {
                assert_eq!(add_digits(&ta, &tb), sum.to_string(), "{a} + {b}");
            }
        }
    }
}

#[test]
fn sums_past_any_integer_type_stay_exact() {
    // Each value computed by Python's integers, independently of this code.
    let nines = "9".repeat(78);
    let sum = add_digits(&nines, MAX_AMOUNT_RAW);
    assert_eq!(sum.len(), 79);
    assert_eq!(
        sum,
        "1115792089237316195423570985008687907853269984665640564039457584007913129639934"
    );
    assert_eq!(
        add_digits(MAX_AMOUNT_RAW, MAX_AMOUNT_RAW),
        "231584178474632390847141970017375815706539969331281128078915168015826259279870"
    );
    assert_eq!(
        add_digits(MAX_AMOUNT_RAW, "1"),
        "115792089237316195423570985008687907853269984665640564039457584007913129639936"
    );
    assert_eq!(add_digits(&nines, "1"), format!("1{}", "0".repeat(78)));
    assert_eq!(add_digits("0", "0"), "0");
    assert_eq!(add_digits("0", MAX_AMOUNT_RAW), MAX_AMOUNT_RAW);
    assert_eq!(cmp_digits(&sum, &nines), Ordering::Greater);
    assert_eq!(cmp_digits(MAX_AMOUNT_RAW, &nines), Ordering::Less);
}
