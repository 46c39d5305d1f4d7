//! Reading a verified event with a JSON parser that holds every number as an IEEE 754
//! double (JavaScript's `JSON.parse`, and many others): which numbers would change.
//!
//! [`parse_event`](crate::parse_event) keeps every number as its exact text. A host that
//! parses the same bytes with its own, faster parser can first ask [`check_event`] whether
//! that is safe, and otherwise quote the numbers [`lossy_number_spans`] names.

use core::ops::Range;

use crate::error::Error;
use crate::event::{check_envelope, refused};
use crate::json::inexact_numbers;

/// What [`check_event`] found in an event that passed every check of
/// [`parse_event`](crate::parse_event).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::doubles::check_event;
/// let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated",
///   "occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":3}}"#;
/// assert!(!check_event(body)?.has_lossy_numbers());
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventCheck {
    lossy: bool,
    ascii: bool,
}

impl EventCheck {
    /// Whether some number of the body may change as a double: an integer beyond
    /// 2^53 - 1, or a number with a fraction or an exponent outside 1e-307 to 1e308 or of
    /// more than 15 significant digits (`9007199254740993.0`, `1.00000000000000000001`,
    /// `1e400`; `0.30000000000000004` too, which a double happens to keep).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::doubles::check_event;
    /// let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated",
    ///   "occurred_at":1,"data":{"payment_id":"p","status_version":9007199254740993}}"#;
    /// assert!(check_event(body)?.has_lossy_numbers());
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub const fn has_lossy_numbers(self) -> bool {
        self.lossy
    }

    /// Whether every byte of the body is ASCII, so that a host may decode it one byte per
    /// character (as Latin-1), which some runtimes do faster than UTF-8, for the same text.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::doubles::check_event;
    /// let body = r#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated",
    ///   "occurred_at":1,"data":{"payment_id":"p","status_version":3,"note":"café"}}"#;
    /// assert!(!check_event(body.as_bytes())?.is_ascii());
    /// assert!(check_event(body.replace('é', "e").as_bytes())?.is_ascii());
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub const fn is_ascii(self) -> bool {
        self.ascii
    }
}

/// Runs every check of [`parse_event`](crate::parse_event) on a verified body, without
/// building the event, and says whether a double-based parser would read it exactly (and
/// whether it is all ASCII).
///
/// # Errors
///
/// Those of [`parse_event`](crate::parse_event), in its order.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::doubles::check_event;
/// assert_eq!(check_event(b"[]").unwrap_err().code(), "event_malformed");
/// ```
pub fn check_event(body: &[u8]) -> Result<EventCheck, Error> {
    check_envelope(body).map(|facts| EventCheck {
        lossy: facts.inexact,
        ascii: facts.ascii,
    })
}

/// Where the numbers a double cannot hold are in a JSON document, in document order, as
/// byte ranges of `body` (each the number's exact text).
///
/// # Errors
///
/// `event_not_json` when `body` is not strict JSON, `event_duplicate_key` when an object
/// repeats a key.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::doubles::lossy_number_spans;
/// let body = br#"{"small":1,"big":18446744073709551617}"#;
/// let spans = lossy_number_spans(body)?;
/// assert_eq!(spans.len(), 1);
/// assert_eq!(&body[spans[0].clone()], b"18446744073709551617");
/// assert_eq!(lossy_number_spans(b"{").unwrap_err().code(), "event_not_json");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn lossy_number_spans(body: &[u8]) -> Result<Vec<Range<usize>>, Error> {
    inexact_numbers(body).map_err(refused)
}

#[cfg(test)]
mod tests;
