//! The timestamp header's grammar (spec: Webhook signature): Unix seconds as 1 to 12 ASCII
//! digits, whose bytes go into the MAC exactly as received.

use crate::error::{Error, ErrorKind, err};

/// The most digits a timestamp may have.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{parse_timestamp, MAX_TIMESTAMP_DIGITS};
/// assert_eq!(parse_timestamp(&[b'9'; MAX_TIMESTAMP_DIGITS])?, 999_999_999_999);
/// // Milliseconds (13 digits today) are refused, not read as a far future.
/// assert_eq!(parse_timestamp(b"1700000000000").unwrap_err().code(), "timestamp_malformed");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub const MAX_TIMESTAMP_DIGITS: usize = 12;
/// The detail of a timestamp over [`MAX_TIMESTAMP_DIGITS`] (the number pinned by a test).
/// The detail of a timestamp that reads as a signature: the two header names may be swapped
/// in the receiver's configuration, or a sender put a signature there (refused as the
/// delivery's own unless it verifies read the other way round: [`HEADERS_SWAPPED`]).
pub(crate) const READS_AS_SIGNATURE: &str = "the timestamp reads as a signature (v1=, sha256= or 64 hex digits): are the \
     timestamp and signature header names swapped?";
/// The detail of a delivery that verifies with its two header values read the other way
/// round: the receiver's configuration has the two header names swapped (every delivery is
/// then refused until they are put right).
pub(crate) const HEADERS_SWAPPED: &str = "the timestamp reads as a signature, and the delivery verifies with the two \
     headers read the other way round: when every delivery is refused so, the timestamp and signature header names \
     are swapped in this receiver's configuration (exchange them); when only some are, they are captured deliveries \
     replayed with their two header values exchanged (never accepted: change nothing)";
pub(crate) const TIMESTAMP_TOO_LONG: &str = "the timestamp has more than 12 digits (milliseconds?)";

/// Reads a timestamp header value: 1 to 12 ASCII digits, nothing else.
///
/// The bytes themselves go into the MAC; the number is used only for the skew check.
///
/// # Errors
///
/// `timestamp_missing` when empty, `timestamp_malformed` otherwise.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::parse_timestamp;
/// assert_eq!(parse_timestamp(b"1700000000").unwrap(), 1_700_000_000);
/// assert_eq!(parse_timestamp(b"+1700000000").unwrap_err().code(), "timestamp_malformed");
/// assert_eq!(parse_timestamp(b"").unwrap_err().code(), "timestamp_missing");
/// ```
pub fn parse_timestamp(value: &[u8]) -> Result<u64, Error> {
    if value.is_empty() {
        return Err(Error::new(ErrorKind::TimestampMissing));
    }
    // Characters first: a value that is not digits at all (a signature pasted in its place)
    // is not called too long.
    if !value.iter().all(u8::is_ascii_digit) {
        return Err(err(
            ErrorKind::TimestampMalformed,
            if reads_as_signature(value) {
                READS_AS_SIGNATURE
            } else {
                "the timestamp holds a character other than an ASCII digit"
            },
        ));
    }
    if value.len() > MAX_TIMESTAMP_DIGITS {
        return Err(err(ErrorKind::TimestampMalformed, TIMESTAMP_TOO_LONG));
    }
    // 1 to 12 ASCII digits: below 10^12, so neither operation wraps (`wrapping_` says so
    // without a check per digit; profiled natively, about a third of the time of `str::parse`
    // with its UTF-8 check).
    Ok(value.iter().fold(0, |n: u64, digit| {
        n.wrapping_mul(10)
            .wrapping_add(u64::from(digit.wrapping_sub(b'0')))
    }))
}

/// Whether a timestamp header's value reads as a signature header's: a `v1=` anywhere, a
/// `sha256=` prefix, or a bare tag of 64 hex digits. The header names are then likely swapped
/// in the receiver's configuration, and every delivery is refused until they are put right.
fn reads_as_signature(value: &[u8]) -> bool {
    let bare_tag = value.len() == 64 && value.iter().all(u8::is_ascii_hexdigit);
    bare_tag
        || value
            .windows(3)
            .any(|three| three.eq_ignore_ascii_case(b"v1="))
        || value
            .get(..7)
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(b"sha256="))
}

/// A timestamp header's value as Debug output shows it: the value when it is a timestamp
/// (1 to 12 ASCII digits), else only its length; what is not a timestamp may be a signature
/// (the header names swapped), or anything a sender put there.
pub(crate) struct ShownTimestamp<'a>(pub(crate) &'a [u8]);

impl core::fmt::Debug for ShownTimestamp<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match core::str::from_utf8(self.0) {
            Ok(digits) if parse_timestamp(self.0).is_ok() => core::fmt::Debug::fmt(digits, f),
            _ => write!(f, "[not a timestamp: {} bytes]", self.0.len()),
        }
    }
}

#[cfg(test)]
mod tests;
