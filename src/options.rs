//! The limits a verification applies (spec: Webhook signature, receiver rule 6; Limits):
//! the skew the receiver accepts and the largest body it reads.

use crate::error::{Error, ErrorKind, err};
use crate::secret_set::MILLISECONDS_FROM;

/// The detail of a delivery refused as old against a `now_secs` of
/// [`MILLISECONDS_FROM`] or more: a clock read in milliseconds makes every authentic delivery
/// look old (the number pinned by a test).
pub(crate) const NOW_IN_MILLISECONDS: &str = "now_secs has 13 digits or more: a time in milliseconds? \
     pass Unix seconds (SystemTime's duration since UNIX_EPOCH, as_secs)";

/// The first `now_secs` read as the current time (September 2001): below it, a clock that failed
/// or was never set (`unwrap_or_default` gives 0) makes every authentic delivery look to come
/// from the future.
pub(crate) const CLOCK_FROM: u64 = 1_000_000_000;
/// The detail of a delivery refused as from the future against a `now_secs` below
/// [`CLOCK_FROM`] (the number pinned by a test).
pub(crate) const NOW_BEFORE_2001: &str = "now_secs is under 1000000000, before September 2001: \
     a clock that failed or was never set (unwrap_or_default gives 0)? pass the current Unix \
     time in seconds (SystemTime's duration since UNIX_EPOCH, as_secs)";

/// The default body limit: 4 MiB.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Delivery, VerifyOptions, DEFAULT_MAX_BODY_BYTES};
/// let options = VerifyOptions::new(300);
/// assert_eq!(options.max_body_bytes(), DEFAULT_MAX_BODY_BYTES);
/// let body = vec![b' '; DEFAULT_MAX_BODY_BYTES + 1];
/// let delivery = Delivery { body: &body, timestamp: b"1700000000", signature: b"v1=00" };
/// assert_eq!(delivery.check(&options).unwrap_err().code(), "body_too_large");
/// ```
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The largest body limit that may be configured: 64 MiB.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{VerifyOptions, MAX_MAX_BODY_BYTES};
/// let largest = VerifyOptions::new(300).with_max_body_bytes(MAX_MAX_BODY_BYTES)?;
/// assert_eq!(largest.max_body_bytes(), 64 * 1024 * 1024);
/// assert!(VerifyOptions::new(300).with_max_body_bytes(MAX_MAX_BODY_BYTES + 1).is_err());
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub const MAX_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// The detail of a `max_body_bytes` out of range (the numbers pinned by a test).
pub(crate) const MAX_BODY_BYTES_RANGE: &str = "max_body_bytes must be from 1 to 67108864 (64 MiB)";

/// The limits a verification applies. `max_skew_secs` has no default: the receiver chooses
/// it (300 seconds is the usual choice).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::VerifyOptions;
/// let options = VerifyOptions::new(300).with_max_body_bytes(1 << 20)?;
/// assert_eq!(options.max_body_bytes(), 1 << 20);
/// assert_eq!(VerifyOptions::new(300).with_max_body_bytes(0).unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    max_skew_secs: u64,
    max_body_bytes: usize,
}

impl VerifyOptions {
    /// Options with this skew and the default body limit (4 MiB).
    ///
    /// A delivery is fresh when `|now_secs - timestamp| <= max_skew_secs`; `0` means the
    /// timestamp must equal `now_secs` (it never turns the check off). The skew is also how
    /// long a captured delivery can be replayed: 300 seconds is the usual choice, and a skew of
    /// days or more (`u64::MAX` accepts any timestamp) leaves replays to the event_id
    /// de-duplication alone.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{VerifyOptions, DEFAULT_MAX_BODY_BYTES};
    /// let options = VerifyOptions::new(300);
    /// assert_eq!(options.max_skew_secs(), 300);
    /// assert_eq!(options.max_body_bytes(), DEFAULT_MAX_BODY_BYTES);
    /// ```
    #[must_use]
    pub const fn new(max_skew_secs: u64) -> Self {
        VerifyOptions {
            max_skew_secs,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// The same options with another body limit, from 1 byte to 64 MiB.
    ///
    /// # Errors
    ///
    /// `invalid_argument` for 0 or more than 64 MiB.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::VerifyOptions;
    /// assert!(VerifyOptions::new(300).with_max_body_bytes(64 * 1024 * 1024).is_ok());
    /// let over = VerifyOptions::new(300).with_max_body_bytes(64 * 1024 * 1024 + 1);
    /// assert_eq!(over.unwrap_err().code(), "invalid_argument");
    /// ```
    pub const fn with_max_body_bytes(self, max_body_bytes: usize) -> Result<Self, Error> {
        if max_body_bytes == 0 || max_body_bytes > MAX_MAX_BODY_BYTES {
            return Err(err(ErrorKind::InvalidArgument, MAX_BODY_BYTES_RANGE));
        }
        Ok(VerifyOptions {
            max_skew_secs: self.max_skew_secs,
            max_body_bytes,
        })
    }

    /// The accepted distance between the timestamp and `now_secs`, in seconds.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::VerifyOptions;
    /// let options = VerifyOptions::new(300);
    /// // Deliveries stamped from now - 300 to now + 300 are fresh.
    /// let now_secs = 1_700_000_000;
    /// let oldest = now_secs - options.max_skew_secs();
    /// assert_eq!(oldest, 1_699_999_700);
    /// ```
    #[must_use]
    pub const fn max_skew_secs(&self) -> u64 {
        self.max_skew_secs
    }

    /// The largest body accepted, in bytes.
    ///
    /// Give your server the same limit (axum: `DefaultBodyLimit::max(options.max_body_bytes())`),
    /// so that it stops reading a body the verifier would refuse.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::VerifyOptions;
    /// let options = VerifyOptions::new(300).with_max_body_bytes(1 << 20)?;
    /// let content_length = 2_000_000;
    /// assert!(content_length > options.max_body_bytes()); // answer 413 without reading it
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub const fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// Checks a verified timestamp against `now_secs`, in both directions.
    pub(crate) fn check_skew(&self, timestamp: u64, now_secs: u64) -> Result<(), Error> {
        if timestamp.abs_diff(now_secs) <= self.max_skew_secs {
            Ok(())
        } else if timestamp < now_secs {
            Err(if now_secs >= MILLISECONDS_FROM {
                err(ErrorKind::TimestampTooOld, NOW_IN_MILLISECONDS)
            } else {
                Error::new(ErrorKind::TimestampTooOld)
            })
        } else {
            Err(if now_secs < CLOCK_FROM {
                err(ErrorKind::TimestampInFuture, NOW_BEFORE_2001)
            } else {
                Error::new(ErrorKind::TimestampInFuture)
            })
        }
    }
}

#[cfg(test)]
mod tests;
