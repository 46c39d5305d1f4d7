//! Idempotent creation as the service decides it: the stored request fingerprint against
//! the incoming one.

use super::ApiError;

/// What a creation request is, given what is stored under its Idempotency-Key.
///
/// Exhaustive: the service's rule has these three outcomes, so a `match` needs no
/// catch-all arm and the compiler checks that each one is handled.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{check_idempotency, request_fingerprint, IdempotencyCheck};
/// let body = br#"{"source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"}}"#;
/// let stored = request_fingerprint(body); // kept with the key and the payment it created
/// let answer = match check_idempotency(Some(&stored), &request_fingerprint(body)) {
///     IdempotencyCheck::New => "create the payment, store the key, fingerprint and payment",
///     IdempotencyCheck::Replay => "answer with the payment stored under the key",
///     IdempotencyCheck::Reused => "409 idempotency_key_reused",
/// };
/// assert_eq!(answer, "answer with the payment stored under the key");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdempotencyCheck {
    /// Nothing stored under the key: create the payment.
    New,
    /// The same body again: answer with the payment already created, never a second one.
    Replay,
    /// Another body under a used key: refuse with
    /// [`ApiError::IdempotencyKeyReused`] (409).
    Reused,
}

impl IdempotencyCheck {
    /// The outcome's name: `new`, `replay` or `reused`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::IdempotencyCheck::Replay.as_str(), "replay");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            IdempotencyCheck::New => "new",
            IdempotencyCheck::Replay => "replay",
            IdempotencyCheck::Reused => "reused",
        }
    }

    /// The service's answer when the request is refused: `Some` only for `Reused`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{ApiError, IdempotencyCheck};
    /// assert_eq!(IdempotencyCheck::Reused.api_error(), Some(ApiError::IdempotencyKeyReused));
    /// assert_eq!(IdempotencyCheck::New.api_error(), None);
    /// ```
    #[must_use]
    pub const fn api_error(self) -> Option<ApiError> {
        match self {
            IdempotencyCheck::Reused => Some(ApiError::IdempotencyKeyReused),
            IdempotencyCheck::New | IdempotencyCheck::Replay => None,
        }
    }
}

/// Decides a creation request from the fingerprint stored under its Idempotency-Key (if
/// any) and the incoming request's fingerprint.
///
/// Fingerprints are [`request_fingerprint`](crate::request_fingerprint)'s lowercase hex
/// SHA-256 of the exact body bytes, compared exactly: any other byte in the body, a space
/// included, makes another fingerprint. The caller looks the key up (scoped to its store)
/// and must make the look-up and the creation one serialized step, or two requests with
/// one key that arrive together both read `New`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{check_idempotency, request_fingerprint, IdempotencyCheck};
/// let first = request_fingerprint(br#"{"source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12800"}}"#);
/// assert_eq!(check_idempotency(None, &first), IdempotencyCheck::New);
/// let other = request_fingerprint(br#"{"source_amount":{"kind":"fiat","currency":"USD","amount_raw":"12900"}}"#);
/// assert_eq!(check_idempotency(Some(&first), &other), IdempotencyCheck::Reused);
/// ```
#[must_use]
pub fn check_idempotency(stored_fingerprint: Option<&str>, fingerprint: &str) -> IdempotencyCheck {
    match stored_fingerprint {
        None => IdempotencyCheck::New,
        Some(stored) if stored == fingerprint => IdempotencyCheck::Replay,
        Some(_) => IdempotencyCheck::Reused,
    }
}

#[cfg(test)]
mod tests;
