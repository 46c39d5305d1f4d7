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
