//! One delivery as received (spec: Webhook signature): the raw body and the two header
//! values, and the checks that need no secret (size, timestamp, signature header).

use crate::error::{Error, ErrorKind};
use crate::mac::Tag;
use crate::options::VerifyOptions;
use crate::signature::with_candidates;
use crate::timestamp::parse_timestamp;

/// One delivery as received: the raw body bytes and the two header values, untouched.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::Delivery;
/// let delivery = Delivery {
///     body: br#"{"event_id":"evt_1"}"#,
///     timestamp: b"1700000000",
///     signature: b"v1=0123",
/// };
/// assert_eq!(delivery.timestamp, b"1700000000");
/// // Debug never shows the body or the signature.
/// assert!(!format!("{delivery:?}").contains("evt_1"));
/// ```
#[derive(Clone, Copy)]
pub struct Delivery<'a> {
    /// The raw request body, exactly as received (never parsed and re-serialized).
    pub body: &'a [u8],
    /// The timestamp header value, exactly as received.
    pub timestamp: &'a [u8],
    /// The signature header value, exactly as received.
    pub signature: &'a [u8],
}

impl Delivery<'_> {
    /// Checks what can be checked without a secret, in the contract's order: the body size,
    /// the timestamp header, the signature header (its grammar and `t=` items). Returns the
    /// timestamp, in Unix seconds.
    ///
    /// Verifying runs these checks itself; call this to turn away a malformed delivery
    /// before looking secrets up.
    ///
    /// # Security
    ///
    /// This is not verification: a forged delivery of the right shape passes. Nothing it
    /// returns may be trusted, acted on or stored before [`verify_webhook`](crate::verify_webhook) or
    /// [`verify_signature`](crate::verify_signature) has verified the delivery.
    ///
    /// # Errors
    ///
    /// `body_too_large`, `timestamp_missing`, `timestamp_malformed`, `signature_missing`,
    /// `signature_malformed`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Delivery, VerifyOptions};
    /// let options = VerifyOptions::new(300);
    /// let hex = "316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727";
    /// let ok = Delivery { body: b"", timestamp: b"1700000000", signature: hex.as_bytes() };
    /// assert_eq!(ok.check(&options)?, 1_700_000_000);
    /// let no_signature = Delivery { signature: b"", ..ok };
    /// assert_eq!(no_signature.check(&options).unwrap_err().code(), "signature_missing");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn check(&self, options: &VerifyOptions) -> Result<u64, Error> {
        self.parse(options, |timestamp, _| Ok(timestamp))
    }

    /// The checks of [`check`](Self::check), then `with` given the timestamp (Unix seconds)
    /// and the signature header's candidates.
    pub(crate) fn parse<R>(
        &self,
        options: &VerifyOptions,
        with: impl FnOnce(u64, &[Tag]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        if self.body.len() > options.max_body_bytes() {
            return Err(Error::new(ErrorKind::BodyTooLarge));
        }
        let timestamp = parse_timestamp(self.timestamp)?;
        with_candidates(self.signature, self.timestamp, |candidates| {
            with(timestamp, candidates)
        })
    }
}

impl core::fmt::Debug for Delivery<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Delivery")
            .field("body_len", &self.body.len())
            .field(
                "timestamp",
                &crate::timestamp::ShownTimestamp(self.timestamp),
            )
            .field("signature", &"[REDACTED]")
            .finish()
    }
}

#[cfg(test)]
pub(crate) mod tests;
