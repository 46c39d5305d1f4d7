//! The one error type of the crate and its stable codes.
//!
//! Every failure is an [`Error`]: an [`ErrorKind`] whose [`code`](ErrorKind::code) is the
//! stable snake_case string (the JavaScript package's `err.code` is the same), plus an
//! optional static detail that makes the message more precise. `Display` is a short lowercase
//! sentence ([`ErrorKind::message`], then the detail); [`ErrorKind::help`] says how to fix it.
//! Both speak Rust (`max_skew_secs`, `now_secs`, the body bytes); the npm package's binding
//! words them for JavaScript. They are built only from static text, so they can never
//! contain a secret, a signature or a byte of the body.

use core::fmt;

mod kind;

pub use kind::ErrorKind;

/// A failure: a stable [`ErrorKind`] and an optional static detail.
///
/// The detail refines the message (which field, which rule); it is static text and never
/// holds a value taken from the input. `{}` writes the message (and detail); `{:#}` writes the
/// remedy, [`ErrorKind::help`], which restates the message and names the fix (after the
/// message and detail when there is a detail): what a log line should say.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{to_amount_raw, ErrorKind};
/// let err = to_amount_raw("1.005", 2).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::AmountTooPrecise);
/// assert_eq!(err.code(), "amount_too_precise");
/// assert!(format!("{err:#}").ends_with(err.kind().help()));
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
    /// assert_eq!(e.to_string(), "no secrets given");
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
    /// assert_eq!(e.to_string(), "invalid argument or option: now_secs is required");
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
    /// assert!(e.kind().is_event_error()); // authentic, unusable: keep it, acknowledge it
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
    /// The message and detail; with `{:#}`, the remedy (after the message and detail when
    /// there is a detail), as the JavaScript messages read.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.detail, f.alternate()) {
            (Some(detail), false) => write!(f, "{}: {detail}", self.kind.message()),
            (None, false) => f.write_str(self.kind.message()),
            (Some(detail), true) => {
                write!(f, "{}: {detail}; {}", self.kind.message(), self.kind.help())
            }
            (None, true) => f.write_str(self.kind.help()),
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
