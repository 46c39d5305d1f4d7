//! Exact amounts (spec: SourceAmount `amount_raw`, Limits): integers in the smallest unit
//! as strings, and lossless conversion from and to decimals by string arithmetic. Nothing
//! is ever rounded and no float is ever involved.

use core::cmp::Ordering;

use crate::error::{Error, ErrorKind, err};

/// The largest `amount_raw`: 2^256 - 1.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_amount_raw, MAX_AMOUNT_RAW};
/// assert!(validate_amount_raw(MAX_AMOUNT_RAW).is_ok());
/// let two_to_the_256 = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
/// assert_eq!(validate_amount_raw(two_to_the_256).unwrap_err().code(), "amount_raw_invalid");
/// ```
pub const MAX_AMOUNT_RAW: &str =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";

/// The most decimals a pricing source may have.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{to_amount_raw, MAX_DECIMALS};
/// assert_eq!(to_amount_raw("0.5", MAX_DECIMALS)?.len(), 77); // 5 followed by 76 zeros
/// assert_eq!(to_amount_raw("0.5", MAX_DECIMALS + 1).unwrap_err().code(), "decimals_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub const MAX_DECIMALS: u32 = 77;

/// Checks an `amount_raw`: a positive integer without leading zeros, at most 2^256 - 1.
///
/// # Errors
///
/// `amount_raw_invalid`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::validate_amount_raw;
/// assert!(validate_amount_raw("12800").is_ok());
/// assert_eq!(validate_amount_raw("012800").unwrap_err().code(), "amount_raw_invalid");
/// ```
pub fn validate_amount_raw(amount_raw: &str) -> Result<(), Error> {
    let bytes = amount_raw.as_bytes();
    let shape = matches!(bytes.first(), Some(b'1'..=b'9')) && bytes.iter().all(u8::is_ascii_digit);
    if !shape {
        return Err(err(
            ErrorKind::AmountRawInvalid,
            "amount_raw is not a positive integer without sign, leading zeros or fraction",
        ));
    }
    // Without leading zeros, a longer number is larger; equal lengths compare digit-wise.
    if bytes.len() > MAX_AMOUNT_RAW.len()
        || (bytes.len() == MAX_AMOUNT_RAW.len() && bytes > MAX_AMOUNT_RAW.as_bytes())
    {
        return Err(err(
            ErrorKind::AmountRawInvalid,
            "amount_raw is larger than 2^256 - 1",
        ));
    }
    Ok(())
}

/// Checks `decimals`: an integer from 0 to 77.
///
/// # Errors
///
/// `decimals_invalid`.
///
/// # Examples
///
/// ```
/// assert!(cryptopay_verify::validate_decimals(18).is_ok());
/// assert_eq!(cryptopay_verify::validate_decimals(78).unwrap_err().code(), "decimals_invalid");
/// ```
pub fn validate_decimals(decimals: u32) -> Result<usize, Error> {
    if decimals > MAX_DECIMALS {
        return Err(Error::new(ErrorKind::DecimalsInvalid));
    }
    usize::try_from(decimals).map_err(|_| Error::new(ErrorKind::DecimalsInvalid))
}

/// Converts a decimal such as `"128.00"` to `amount_raw` with `decimals` fractional digits.
///
/// Extra fractional digits are accepted only when they are zeros; otherwise the amount is
/// too precise for the pricing source and nothing is rounded.
///
/// # Errors
///
/// `decimals_invalid`; `amount_decimal_invalid` unless `digits` or `digits.digits`;
/// `amount_too_precise`; `amount_raw_invalid` for zero or more than 2^256 - 1.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::to_amount_raw;
/// assert_eq!(to_amount_raw("128.00", 2)?, "12800");
/// assert_eq!(to_amount_raw("1.000", 2)?, "100");
/// assert_eq!(to_amount_raw("1.005", 2).unwrap_err().code(), "amount_too_precise");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn to_amount_raw(decimal: &str, decimals: u32) -> Result<String, Error> {
    let decimals = validate_decimals(decimals)?;
    let (int, frac) = match decimal.split_once('.') {
        Some((int, frac)) => (int, frac),
        None => (decimal, ""),
    };
    let digits_only = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits_only(int) || (decimal.contains('.') && !digits_only(frac)) {
        return Err(Error::new(ErrorKind::AmountDecimalInvalid));
    }
    let (kept, dropped) = frac.split_at(frac.len().min(decimals));
    if dropped.bytes().any(|b| b != b'0') {
        return Err(Error::new(ErrorKind::AmountTooPrecise));
    }
    let padding = decimals.saturating_sub(kept.len());
    let mut raw = String::with_capacity(int.len().saturating_add(decimals));
    raw.push_str(int.trim_start_matches('0'));
    raw.push_str(kept);
    raw.extend(core::iter::repeat_n('0', padding));
    let raw = raw.trim_start_matches('0');
    if raw.is_empty() {
        return Err(err(
            ErrorKind::AmountRawInvalid,
            "the decimal amount is zero: an amount must be more than zero",
        ));
    }
    validate_amount_raw(raw)?;
    Ok(raw.to_owned())
}

/// Converts `amount_raw` to a decimal with exactly `decimals` fractional digits.
///
/// # Errors
///
/// `decimals_invalid`; `amount_raw_invalid`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::from_amount_raw;
/// assert_eq!(from_amount_raw("12800", 2)?, "128.00");
/// assert_eq!(from_amount_raw("5", 2)?, "0.05");
/// assert_eq!(from_amount_raw("-5", 2).unwrap_err().code(), "amount_raw_invalid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn from_amount_raw(amount_raw: &str, decimals: u32) -> Result<String, Error> {
    let decimals = validate_decimals(decimals)?;
    validate_amount_raw(amount_raw)?;
    if decimals == 0 {
        return Ok(amount_raw.to_owned());
    }
    let zeros = (decimals.saturating_add(1)).saturating_sub(amount_raw.len());
    let padded: String = core::iter::repeat_n('0', zeros)
        .chain(amount_raw.chars())
        .collect();
    let (int, frac) = padded.split_at(padded.len().saturating_sub(decimals));
    Ok(format!("{int}.{frac}"))
}

/// Whether `digits` is a non-negative integer as the service writes one: `0`, or ASCII
/// digits without a leading zero, of any length (a `status_version`, an
/// `amount_received_raw`).
pub(crate) fn is_unsigned_digits(digits: &str) -> bool {
    match digits.as_bytes() {
        [] => false,
        [b'0'] => true,
        [b'0', ..] => false,
        bytes => bytes.iter().all(u8::is_ascii_digit),
    }
}

/// Compares two integers written as [`is_unsigned_digits`] reads them, exactly: without
/// leading zeros a longer number is larger, and equal lengths compare digit by digit.
pub(crate) fn cmp_digits(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

/// The sum of two integers written as [`is_unsigned_digits`] reads them (the callers check
/// that), exact at any length: two 78-digit amounts give their 79-digit sum. No integer
/// type is involved, so nothing can overflow or round.
pub(crate) fn add_digits(a: &str, b: &str) -> String {
    let digit = |d: Option<&u8>| d.map_or(0, |d| d.wrapping_sub(b'0'));
    let (mut a, mut b) = (a.as_bytes().iter().rev(), b.as_bytes().iter().rev());
    let mut reversed = Vec::with_capacity(a.len().max(b.len()).saturating_add(1));
    let mut carry = 0_u8;
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            break;
        }
        // At most 9 + 9 + 1: no u8 arithmetic here can wrap.
        let sum = digit(x).wrapping_add(digit(y)).wrapping_add(carry);
        carry = u8::from(sum >= 10);
        let unit = if sum >= 10 { sum.wrapping_sub(10) } else { sum };
        reversed.push(b'0'.wrapping_add(unit));
    }
    if carry == 1 {
        reversed.push(b'1');
    }
    reversed.iter().rev().map(|&d| char::from(d)).collect()
}

#[cfg(test)]
mod tests;
