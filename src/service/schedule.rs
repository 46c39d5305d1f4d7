//! The webhook delivery schedule: after each attempt, what the sender does next.

use crate::error::{Error, ErrorKind, err};
use crate::response::{DeliveryOutcome, classify_delivery_response};

/// The most retry delays a schedule may list.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_retry_delays, MAX_RETRY_DELAYS};
/// assert!(validate_retry_delays(&[1_000; MAX_RETRY_DELAYS]).is_ok());
/// assert_eq!(validate_retry_delays(&[1_000; MAX_RETRY_DELAYS + 1]).unwrap_err().code(), "invalid_argument");
/// ```
pub const MAX_RETRY_DELAYS: usize = 20;

/// The longest retry delay, in milliseconds: one day.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_retry_delays, MAX_RETRY_DELAY_MS};
/// assert!(validate_retry_delays(&[MAX_RETRY_DELAY_MS]).is_ok());
/// assert_eq!(validate_retry_delays(&[MAX_RETRY_DELAY_MS + 1]).unwrap_err().code(), "invalid_argument");
/// ```
pub const MAX_RETRY_DELAY_MS: u64 = 86_400_000;

/// What one delivery attempt got back.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{next_delivery_step, DeliveryAnswer, DeliveryStep};
/// // A timeout, a refused connection or a TLS failure: no HTTP status at all.
/// let step = next_delivery_step(1, DeliveryAnswer::NetworkFailure, &[1_000])?;
/// assert_eq!(step, DeliveryStep::Retry { delay_ms: 1_000 });
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryAnswer {
    /// The receiver answered with this HTTP status (a status outside 100 to 599 is a
    /// protocol error, handled as a network failure).
    Status(u16),
    /// No HTTP answer: a timeout, a refused connection, a TLS or protocol failure.
    NetworkFailure,
}

/// What the sender does after an attempt.
///
/// Exhaustive: the schedule has these four outcomes, so a delivery loop's `match` needs no
/// catch-all arm and the compiler checks that each one is handled.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{next_delivery_step, DeliveryAnswer, DeliveryStep};
/// let delays = [1_000, 60_000];
/// let next = match next_delivery_step(2, DeliveryAnswer::Status(503), &delays)? {
///     DeliveryStep::Acknowledged => "done".to_owned(),
///     DeliveryStep::Retry { delay_ms } => format!("attempt 3 in {delay_ms} ms"),
///     DeliveryStep::Exhausted | DeliveryStep::FailedPermanently => "give up".to_owned(),
/// };
/// assert_eq!(next, "attempt 3 in 60000 ms");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryStep {
    /// A 2xx: the receiver took the event; deliver nothing more.
    Acknowledged,
    /// A retryable answer with a delay left: attempt again after `delay_ms`.
    Retry {
        /// The wait before the next attempt, in milliseconds.
        delay_ms: u64,
    },
    /// A retryable answer after the last delay was used: give up.
    Exhausted,
    /// An answer that is never retried (3xx, 1xx, 4xx other than 408, 425 and 429).
    FailedPermanently,
}

impl DeliveryStep {
    /// The step's name: `acknowledged`, `retrying`, `exhausted` or `failed_permanently`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::DeliveryStep;
    /// assert_eq!(DeliveryStep::Retry { delay_ms: 5 }.as_str(), "retrying");
    /// assert_eq!(DeliveryStep::FailedPermanently.as_str(), "failed_permanently");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryStep::Acknowledged => "acknowledged",
            DeliveryStep::Retry { .. } => "retrying",
            DeliveryStep::Exhausted => "exhausted",
            DeliveryStep::FailedPermanently => "failed_permanently",
        }
    }
}

/// Checks a list of retry delays: at most [`MAX_RETRY_DELAYS`] entries, each from 0 to
/// [`MAX_RETRY_DELAY_MS`] milliseconds. An empty list is valid: one attempt, no retry.
///
/// # Errors
///
/// `invalid_argument`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::validate_retry_delays;
/// assert!(validate_retry_delays(&[]).is_ok());
/// assert!(validate_retry_delays(&[0, 1_000, 60_000]).is_ok());
/// assert_eq!(validate_retry_delays(&[86_400_001]).unwrap_err().code(), "invalid_argument");
/// ```
pub fn validate_retry_delays(retry_delays_ms: &[u64]) -> Result<(), Error> {
    if retry_delays_ms.len() > MAX_RETRY_DELAYS {
        return Err(err(
            ErrorKind::InvalidArgument,
            "retry_delays_ms may list at most 20 delays",
        ));
    }
    if retry_delays_ms.iter().any(|&ms| ms > MAX_RETRY_DELAY_MS) {
        return Err(err(
            ErrorKind::InvalidArgument,
            "each retry delay must be from 0 to 86400000 ms (one day)",
        ));
    }
    Ok(())
}

/// What the sender does after attempt number `attempt` (1 for the first) got `answer`,
/// with `retry_delays_ms` the schedule's delays.
///
/// A 2xx is `Acknowledged`. A network failure, a status outside 100 to 599, 408, 425, 429
/// or a 5xx is retried: `Retry` after `retry_delays_ms[attempt - 1]` while `attempt` is at
/// most the number of delays, else `Exhausted` (so a schedule of `n` delays makes at most
/// `n + 1` attempts). Every other status, 3xx included, is `FailedPermanently`, as
/// [`classify_delivery_response`] classifies it.
///
/// # Errors
///
/// `invalid_argument` for `attempt` 0, then those of [`validate_retry_delays`].
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{next_delivery_step, DeliveryAnswer, DeliveryStep};
/// let delays = [1_000, 60_000];
/// assert_eq!(next_delivery_step(1, DeliveryAnswer::Status(204), &delays)?, DeliveryStep::Acknowledged);
/// assert_eq!(next_delivery_step(3, DeliveryAnswer::Status(500), &delays)?, DeliveryStep::Exhausted);
/// assert_eq!(next_delivery_step(1, DeliveryAnswer::Status(301), &delays)?, DeliveryStep::FailedPermanently);
/// assert_eq!(next_delivery_step(0, DeliveryAnswer::Status(200), &delays).unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn next_delivery_step(
    attempt: u32,
    answer: DeliveryAnswer,
    retry_delays_ms: &[u64],
) -> Result<DeliveryStep, Error> {
    if attempt == 0 {
        return Err(err(
            ErrorKind::InvalidArgument,
            "attempt is 1 for the first delivery attempt",
        ));
    }
    validate_retry_delays(retry_delays_ms)?;
    let outcome = match answer {
        // Outside 100..=599 there is no HTTP status: a protocol failure, retried.
        DeliveryAnswer::Status(status) => {
            classify_delivery_response(status).unwrap_or(DeliveryOutcome::Retry)
        }
        DeliveryAnswer::NetworkFailure => DeliveryOutcome::Retry,
    };
    Ok(match outcome {
        DeliveryOutcome::Acknowledged => DeliveryStep::Acknowledged,
        DeliveryOutcome::Retry => usize::try_from(attempt.wrapping_sub(1))
            .ok()
            .and_then(|index| retry_delays_ms.get(index))
            .map_or(DeliveryStep::Exhausted, |&delay_ms| DeliveryStep::Retry {
                delay_ms,
            }),
        DeliveryOutcome::PermanentFailure => DeliveryStep::FailedPermanently,
    })
}

#[cfg(test)]
mod tests;
