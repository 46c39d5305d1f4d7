//! Delivery responses (spec: Events, delivery rules): what the sender makes of the HTTP
//! status a receiver answers with.

use crate::error::{Error, ErrorKind, err};

/// What a receiver's HTTP status means to the sender.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{classify_delivery_response, DeliveryOutcome};
/// // What the service makes of your receiver's answers: a 503 while your database is down
/// // is retried; a 400 for a delivery you could have applied is lost.
/// assert_eq!(classify_delivery_response(503)?, DeliveryOutcome::Retry);
/// assert_eq!(classify_delivery_response(400)?, DeliveryOutcome::PermanentFailure);
/// assert_eq!(classify_delivery_response(200)?.as_str(), "acknowledged");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeliveryOutcome {
    /// 2xx: the receiver accepted responsibility (not a payment receipt).
    Acknowledged,
    /// 408, 425, 429 or 5xx: the sender retries a finite number of times.
    Retry,
    /// Every other status, 3xx included (redirects are never followed).
    PermanentFailure,
}

impl DeliveryOutcome {
    /// The outcome's name: `acknowledged`, `retry` or `permanent_failure`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::DeliveryOutcome::Retry.as_str(), "retry");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryOutcome::Acknowledged => "acknowledged",
            DeliveryOutcome::Retry => "retry",
            DeliveryOutcome::PermanentFailure => "permanent_failure",
        }
    }
}

/// Classifies a receiver's HTTP status as the sender does.
///
/// # Errors
///
/// `invalid_argument` for a status outside 100 to 599.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{classify_delivery_response, DeliveryOutcome};
/// assert_eq!(classify_delivery_response(204)?, DeliveryOutcome::Acknowledged);
/// assert_eq!(classify_delivery_response(429)?, DeliveryOutcome::Retry);
/// assert_eq!(classify_delivery_response(302)?, DeliveryOutcome::PermanentFailure);
/// assert_eq!(classify_delivery_response(99).unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn classify_delivery_response(status: u16) -> Result<DeliveryOutcome, Error> {
    Ok(match status {
        200..=299 => DeliveryOutcome::Acknowledged,
        408 | 425 | 429 | 500..=599 => DeliveryOutcome::Retry,
        100..=199 | 300..=499 => DeliveryOutcome::PermanentFailure,
        _ => {
            return Err(err(
                ErrorKind::InvalidArgument,
                "an HTTP status is an integer from 100 to 599",
            ));
        }
    })
}

#[cfg(test)]
mod tests;
