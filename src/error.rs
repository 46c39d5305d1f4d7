//! The one error type of the crate and its stable codes.
//!
//! Every failure is an [`Error`]: an [`ErrorKind`] whose [`code`](ErrorKind::code) is the
//! stable snake_case string (the JavaScript package's `err.code` is the same), plus an
//! optional static detail that makes the message more precise. `Display` writes the code, the
//! detail and the remedy ([`ErrorKind::help`], which says what failed and how to fix it): the
//! JavaScript package's `err.message`, in Rust names. [`ErrorKind::message`] is the short form.
//! Both speak Rust (`max_skew_secs`, `now_secs`, the body bytes); the npm package's binding
//! words them for JavaScript. They are built only from static text, so they can never
//! contain a secret, a signature or a byte of the body.

use core::fmt;

use crate::options::NOW_IN_MILLISECONDS;
use crate::secret_set::{PADDED_SECRET, QUOTED_SECRET, SIGNED_IN_OVERLAP};
use crate::status::STORED_VERSION;
use crate::timestamp::HEADERS_SWAPPED;

mod kind;

pub use kind::ErrorKind;

/// A failure: a stable [`ErrorKind`] and an optional static detail.
///
/// The detail refines the message (which field, which rule); it is static text and never
/// holds a value taken from the input. `{}` writes `code: remedy`, or `code: detail; remedy`
/// ([`ErrorKind::help`] restates what failed and names the fix): what a log line should say,
/// also through `anyhow` or `tracing`'s `%e`. `{:#}` writes the same.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{to_amount_raw, ErrorKind};
/// let err = to_amount_raw("1.005", 2).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::AmountTooPrecise);
/// assert_eq!(err.code(), "amount_too_precise");
/// assert!(err.to_string().starts_with("amount_too_precise: "));
/// assert!(err.to_string().ends_with(err.kind().help()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    detail: Option<&'static str>,
}

impl Error {
    /// An error of this kind with the kind's general message.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Error, ErrorKind};
    /// // Your own check, reported with the crate's code and message.
    /// fn secret_from(value: Option<String>) -> Result<String, Error> {
    ///     value.ok_or(Error::new(ErrorKind::NoSecrets))
    /// }
    /// let e = secret_from(None).unwrap_err();
    /// assert_eq!(e.to_string(), format!("no_secrets: {}", ErrorKind::NoSecrets.help()));
    /// ```
    #[must_use]
    pub const fn new(kind: ErrorKind) -> Self {
        Error { kind, detail: None }
    }

    /// An error of this kind whose message starts with `detail` (static text only).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Error, ErrorKind};
    /// let e = Error::with_detail(ErrorKind::InvalidArgument, "now_secs is required");
    /// assert_eq!(e.detail(), Some("now_secs is required"));
    /// assert!(e.to_string().starts_with("invalid_argument: now_secs is required; "));
    /// assert_eq!(Error::new(ErrorKind::NoSecrets).detail(), None);
    /// ```
    #[must_use]
    pub const fn with_detail(kind: ErrorKind, detail: &'static str) -> Self {
        Error {
            kind,
            detail: Some(detail),
        }
    }

    /// The kind of failure.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{parse_event, ErrorKind};
    /// let e = parse_event(b"not json").unwrap_err();
    /// assert_eq!(e.kind(), ErrorKind::EventNotJson);
    /// assert!(e.is_event_error()); // authentic, unusable: keep it, acknowledge it
    /// ```
    #[must_use]
    pub const fn kind(self) -> ErrorKind {
        self.kind
    }

    /// The stable code (also the JavaScript package's `err.code`).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::parse_timestamp;
    /// let e = parse_timestamp(b"1700000000000").unwrap_err(); // milliseconds
    /// // Answer with the code only (the message may describe your configuration).
    /// let body = format!(r#"{{"error":"{}"}}"#, e.code());
    /// assert_eq!(body, r#"{"error":"timestamp_malformed"}"#);
    /// ```
    #[must_use]
    pub const fn code(self) -> &'static str {
        self.kind.code()
    }

    /// Whether the refusal is the receiver's own, not the delivery's: answer it with a 5xx,
    /// which the service retries (once the receiver is fixed), never a 400, which is final and
    /// loses the event.
    ///
    /// True for [`ErrorKind::InvalidArgument`] (the receiver called the crate wrongly), for
    /// [`ErrorKind::NoSecrets`] and [`ErrorKind::SecretEmpty`] (no secret configured: often an
    /// environment variable that is unset or empty), and for
    /// the refusals this crate can tell come from the receiver's configuration, clock or
    /// rotation rather than from the sender: a `now_secs` in milliseconds (every delivery
    /// looks old); an authentic delivery from the future (`timestamp_in_future`: a replay of a
    /// captured delivery is old, never ahead, so this host's clock is behind, or the service's
    /// ahead; the message says which when `now_secs` is before September 2001, a clock that
    /// failed or was never set); a secret saved with white space or quotes around it (no delivery
    /// verifies); a delivery that verifies only with its two header values read the other way
    /// round (the two header names swapped: a timestamp that merely reads as a signature is
    /// the delivery's own, so that no sender can turn a refusal into a 5xx without the
    /// secret or a captured delivery replayed with its header values exchanged, which the
    /// message names); a delivery signed inside a retiring secret's overlap that arrived after the
    /// overlap ended (the service's retry is signed with the active secret); a version read
    /// back from your own store that is not one
    /// ([`StatusVersion::parse_stored`](crate::StatusVersion::parse_stored)). A forgery sent
    /// while a secret is saved with white space or quotes is answered 5xx too, which costs
    /// nothing: it is never accepted. False for every other refusal: a forged, stale or
    /// malformed delivery is answered 400.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Delivery, Secret, SecretSet, Verifier, VerifyOptions};
    /// let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, VerifyOptions::new(300));
    /// let delivery = Delivery {
    ///     body: b"",
    ///     timestamp: b"1700000000",
    ///     signature: b"316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
    /// };
    /// // A clock read in milliseconds: this receiver's fault, 500 (retried once fixed).
    /// let clock = verifier.verify_signature(&delivery, 1_700_000_000_000).unwrap_err();
    /// assert_eq!((clock.code(), clock.is_receiver_fault()), ("timestamp_too_old", true));
    /// // A delivery an hour old: the delivery's, 400 (final).
    /// let stale = verifier.verify_signature(&delivery, 1_700_003_600).unwrap_err();
    /// assert_eq!((stale.code(), stale.is_receiver_fault()), ("timestamp_too_old", false));
    /// // A delivery from the future: no replay is, so a clock is off (here one that failed,
    /// // read as 0 by `unwrap_or_default`): 500 too.
    /// let unset = verifier.verify_signature(&delivery, 0).unwrap_err();
    /// assert_eq!((unset.code(), unset.is_receiver_fault()), ("timestamp_in_future", true));
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn is_receiver_fault(self) -> bool {
        match self.kind {
            ErrorKind::InvalidArgument | ErrorKind::NoSecrets | ErrorKind::SecretEmpty => true,
            ErrorKind::SignatureMismatch => self.detail.is_some_and(|detail| {
                [PADDED_SECRET, QUOTED_SECRET, SIGNED_IN_OVERLAP].contains(&detail)
            }),
            // Only a delivery whose signature verified gets either: one from the future is no
            // replay (a captured delivery is old), so the clocks disagree.
            ErrorKind::TimestampInFuture => true,
            ErrorKind::TimestampTooOld => self.detail == Some(NOW_IN_MILLISECONDS),
            ErrorKind::TimestampMalformed => self.detail == Some(HEADERS_SWAPPED),
            ErrorKind::StatusVersionInvalid => self.detail == Some(STORED_VERSION),
            _ => false,
        }
    }

    /// Whether the delivery is authentic but holds no event you can apply: keep its body
    /// for review and answer 2xx, so the service stops retrying what no retry can fix.
    ///
    /// [`ErrorKind::is_event_error`] for the kind, unless the error is the receiver's own
    /// ([`is_receiver_fault`](Self::is_receiver_fault)): a `status_version_invalid` from
    /// [`StatusVersion::parse_stored`](crate::StatusVersion::parse_stored), a value read back
    /// from your store, is answered 5xx, never acknowledged unapplied. Ask this, not the kind,
    /// when you choose the answer.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{parse_event, StatusVersion};
    /// assert!(parse_event(b"[]").unwrap_err().is_event_error()); // authentic, unusable: 2xx
    /// let stored = StatusVersion::parse_stored("7.00").unwrap_err(); // your column's: 5xx
    /// assert!(!stored.is_event_error() && stored.is_receiver_fault());
    /// ```
    #[must_use]
    pub fn is_event_error(self) -> bool {
        self.kind.is_event_error() && !self.is_receiver_fault()
    }

    /// The refining detail, if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::VerifyOptions;
    /// let e = VerifyOptions::new(300).with_max_body_bytes(0).unwrap_err();
    /// assert_eq!(e.detail(), Some("max_body_bytes must be from 1 to 67108864 (64 MiB)"));
    /// ```
    #[must_use]
    pub const fn detail(self) -> Option<&'static str> {
        self.detail
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl fmt::Display for Error {
    /// `code: remedy`, or `code: detail; remedy` with a detail: the JavaScript package's
    /// message in Rust names. `{:#}` writes the same.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (code, help) = (self.kind.code(), self.kind.help());
        match self.detail {
            Some(detail) => write!(f, "{code}: {detail}; {help}"),
            None => write!(f, "{code}: {help}"),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for an error with a detail.
pub(crate) const fn err(kind: ErrorKind, detail: &'static str) -> Error {
    Error::with_detail(kind, detail)
}

#[cfg(test)]
mod tests;
