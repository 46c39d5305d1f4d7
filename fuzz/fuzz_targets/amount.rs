//! `amount_raw` and decimal conversion: `validate_amount_raw`,
//! `to_amount_raw` and `from_amount_raw` on arbitrary text and decimals 0 to 79 (78 and
//! 79 are invalid), against independent oracles (2^256 - 1 checked with 32-bit limbs, the
//! decimal grammar re-read by hand), and the round trips: from_amount_raw then
//! to_amount_raw gives the raw back; to_amount_raw then from_amount_raw gives the same
//! number written with exactly `decimals` digits.
//!
//! Input: decimals on the first line, the text in the rest.
#![no_main]

use cryptopay_verify::{
    ErrorKind, MAX_AMOUNT_RAW, MAX_DECIMALS, from_amount_raw, to_amount_raw, validate_amount_raw,
    validate_decimals,
};
use cryptopay_verify_fuzz::{Fields, checked};
use libfuzzer_sys::fuzz_target;

/// Whether decimal digits (no leading zero) fit in 256 bits, by schoolbook arithmetic on
/// eight 32-bit limbs: no string comparison with the maximum.
fn fits_u256(digits: &[u8]) -> bool {
    if digits.len() > 100 {
        return false;
    }
    let mut limbs = [0u32; 8];
    for d in digits {
        let mut carry = u64::from(d - b'0');
        for limb in &mut limbs {
            let v = u64::from(*limb) * 10 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            return false;
        }
    }
    true
}

fn is_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn raw_ok(s: &str) -> bool {
    is_digits(s) && !s.starts_with('0') && fits_u256(s.as_bytes())
}

/// What to_amount_raw must return, read independently.
fn expected_raw(decimal: &str, decimals: u32) -> Result<String, ErrorKind> {
    if decimals > MAX_DECIMALS {
        return Err(ErrorKind::DecimalsInvalid);
    }
    let d = decimals as usize;
    let (int, frac) = match decimal.find('.') {
        Some(dot) => (&decimal[..dot], Some(&decimal[dot + 1..])),
        None => (decimal, None),
    };
    if !is_digits(int) || frac.is_some_and(|f| !is_digits(f)) {
        return Err(ErrorKind::AmountDecimalInvalid);
    }
    let frac = frac.unwrap_or("");
    if frac.bytes().skip(d).any(|b| b != b'0') {
        return Err(ErrorKind::AmountTooPrecise);
    }
    let mut all: String = int.to_owned();
    all.extend(frac.chars().chain(std::iter::repeat('0')).take(d));
    let raw = all.trim_start_matches('0');
    if raw.is_empty() || !fits_u256(raw.as_bytes()) {
        return Err(ErrorKind::AmountRawInvalid);
    }
    Ok(raw.to_owned())
}

/// The number a decimal text stands for, as (integer digits, fraction digits) without
/// leading or trailing zeros.
fn value(decimal: &str) -> (String, String) {
    let (int, frac) = decimal.split_once('.').unwrap_or((decimal, ""));
    (
        int.trim_start_matches('0').to_owned(),
        frac.trim_end_matches('0').to_owned(),
    )
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let decimals = (fields.number() % 80) as u32;
    let text = String::from_utf8_lossy(fields.rest()).into_owned();

    assert_eq!(
        checked(validate_decimals(decimals), &[ErrorKind::DecimalsInvalid]).is_ok(),
        decimals <= 77
    );
    let valid = checked(validate_amount_raw(&text), &[ErrorKind::AmountRawInvalid]).is_ok();
    assert_eq!(valid, raw_ok(&text), "validate_amount_raw({text:?})");
    assert!(validate_amount_raw(MAX_AMOUNT_RAW).is_ok());

    // Raw → decimal → raw.
    let decimal = checked(
        from_amount_raw(&text, decimals),
        &[ErrorKind::DecimalsInvalid, ErrorKind::AmountRawInvalid],
    );
    match &decimal {
        Ok(d) => {
            assert!(valid && decimals <= 77);
            if decimals == 0 {
                assert_eq!(d, &text);
            } else {
                let (int, frac) = d.split_once('.').expect("a fraction");
                assert_eq!(frac.len(), decimals as usize);
                assert!(is_digits(int) && (int == "0" || !int.starts_with('0')));
            }
            assert_eq!(
                to_amount_raw(d, decimals).as_ref(),
                Ok(&text),
                "round trip of {text:?} with {decimals} decimals"
            );
        }
        Err(e) if decimals > 77 => assert_eq!(e.kind(), ErrorKind::DecimalsInvalid),
        Err(e) => {
            assert!(!valid);
            assert_eq!(e.kind(), ErrorKind::AmountRawInvalid);
        }
    }

    // Decimal → raw → decimal.
    let raw = checked(
        to_amount_raw(&text, decimals),
        &[
            ErrorKind::DecimalsInvalid,
            ErrorKind::AmountDecimalInvalid,
            ErrorKind::AmountTooPrecise,
            ErrorKind::AmountRawInvalid,
        ],
    );
    assert_eq!(
        raw.as_ref().map_err(|e| e.kind()),
        expected_raw(&text, decimals).as_ref().map_err(|k| *k),
        "to_amount_raw({text:?}, {decimals})"
    );
    if let Ok(raw) = raw {
        assert!(validate_amount_raw(&raw).is_ok());
        let back = from_amount_raw(&raw, decimals).expect("a valid raw converts back");
        assert_eq!(value(&back), value(&text), "{text:?} → {raw} → {back}");
        assert_eq!(to_amount_raw(&back, decimals).as_ref(), Ok(&raw));
    }
});
