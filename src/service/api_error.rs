//! The service's API errors: what the sandbox answers, as `{"error":{"code","message"}}`
//! with an HTTP status, when it refuses a request.

use core::fmt;

use crate::error::Error;

macro_rules! api_errors {
    ($(
        $(#[$doc:meta])*
        $variant:ident => $code:literal, $status:literal, $message:literal;
    )*) => {
        /// An error the payment service answers with: a code, an HTTP status and a message.
        ///
        /// These are the service's answers to its clients (a merchant's server, a checkout
        /// page), not failures of this library: [`ErrorKind`](crate::ErrorKind) says what
        /// was wrong with a value given to this crate; `ApiError` says what the service (or
        /// a sandbox of it) refuses, and is written in the service's `ErrorResponse`,
        /// `{"error": {"code": ..., "message": ...}}`, with [`status`](Self::status).
        /// The one bridge is [`Invalid`](Self::Invalid): a value the core refuses (such as
        /// an `amount_raw`) is a `400` with the core error's code.
        ///
        /// Each variant's documentation starts with its code and status. Codes are never
        /// renamed; new ones may be added, hence `#[non_exhaustive]`.
        ///
        /// # Examples
        ///
        /// ```
        /// use cryptopay_verify::{ApiError, PaymentAction, PaymentState};
        /// let state = PaymentState::new("12800")?;
        /// let refused = state.apply(PaymentAction::Pay { amount_raw: "12.80" }).unwrap_err();
        /// assert_eq!((refused.status(), refused.code()), (400, "amount_raw_invalid"));
        /// let cancelled = state.apply(PaymentAction::Cancel).unwrap().state;
        /// let refused = cancelled.apply(PaymentAction::Expire).unwrap_err();
        /// assert_eq!(refused, ApiError::PaymentNotExpirable);
        /// assert_eq!(refused.status(), 409);
        /// # Ok::<(), cryptopay_verify::Error>(())
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ApiError {
            $( $(#[$doc])* $variant, )*
            /// A value the core refuses (such as `amount_raw_invalid` for a payment's
            /// amount): `400`, with the core error's code and its kind's remedy
            /// ([`ErrorKind::help`](crate::ErrorKind::help)); the detail stays in the
            /// wrapped `Error`.
            Invalid(Error),
        }

        impl ApiError {
            /// Every error with a code of its own (not [`Invalid`](Self::Invalid), whose
            /// codes are those of [`ErrorKind`](crate::ErrorKind)), in the order of the
            /// service's table.
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ApiError;
            /// // E.g. a sandbox's table of answers, each with its HTTP status.
            /// for error in ApiError::ALL {
            ///     assert_eq!(ApiError::from_code(error.code()), Some(*error));
            ///     assert!((400..=499).contains(&error.status()));
            /// }
            /// ```
            pub const ALL: &'static [ApiError] = &[ $( ApiError::$variant, )* ];

            /// The stable code (`error.code` of the service's answer).
            ///
            /// # Examples
            ///
            /// ```
            /// assert_eq!(cryptopay_verify::ApiError::PaymentNotPayable.code(), "payment_not_payable");
            /// ```
            #[must_use]
            pub const fn code(self) -> &'static str {
                match self {
                    $( ApiError::$variant => $code, )*
                    ApiError::Invalid(error) => error.code(),
                }
            }

            /// The HTTP status the service answers with.
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ApiError;
            /// assert_eq!(ApiError::ConsumerAccessDisabled.status(), 403);
            /// assert_eq!(ApiError::MethodNotAllowed.status(), 405);
            /// ```
            #[must_use]
            pub const fn status(self) -> u16 {
                match self {
                    $( ApiError::$variant => $status, )*
                    ApiError::Invalid(_) => 400,
                }
            }

            /// A short message for `error.message`: the problem and the fix.
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ApiError;
            /// assert!(ApiError::IdempotencyKeyReused.message().contains("same body"));
            /// ```
            #[must_use]
            pub const fn message(self) -> &'static str {
                match self {
                    $( ApiError::$variant => $message, )*
                    ApiError::Invalid(error) => error.kind().help(),
                }
            }

            /// The error with this code among [`ALL`](Self::ALL); `None` for any other code
            /// (the core's codes included).
            ///
            /// # Examples
            ///
            /// ```
            /// use cryptopay_verify::ApiError;
            /// assert_eq!(ApiError::from_code("webhook_exists"), Some(ApiError::WebhookExists));
            /// assert_eq!(ApiError::from_code("amount_raw_invalid"), None);
            /// ```
            #[must_use]
            pub fn from_code(code: &str) -> Option<Self> {
                match code { $( $code => Some(ApiError::$variant), )* _ => None }
            }
        }
    };
}

api_errors! {
    /// `unauthorized` (401): no API key, or not a valid one.
    Unauthorized => "unauthorized", 401,
        "the API key is missing or not valid: send a secret key of this store in the Authorization header (scheme Bearer)";
    /// `insufficient_scope` (403): the key is valid but lacks the scope the endpoint needs.
    InsufficientScope => "insufficient_scope", 403,
        "the API key lacks the scope this endpoint needs: use a key that has it";
    /// `idempotency_key_missing` (400): a creation (a payment, a webhook) without an
    /// Idempotency-Key.
    IdempotencyKeyMissing => "idempotency_key_missing", 400,
        "this request creates something and needs an Idempotency-Key header: send one random key (a UUID) per creation intent, and the same key when you retry it";
    /// `idempotency_key_reused` (409): the key was used before with a different body.
    IdempotencyKeyReused => "idempotency_key_reused", 409,
        "this Idempotency-Key was used with a different body: retry with the same body byte for byte, or use a new key for a new creation (cancel first what the key created if the new one replaces it, such as a payment for an order whose amount changed)";
    /// `payment_not_found` (404): no such payment in this store.
    PaymentNotFound => "payment_not_found", 404,
        "no payment with this id in this store: check the payment_id";
    /// `payment_not_payable` (409): the payment's status takes no payment.
    PaymentNotPayable => "payment_not_payable", 409,
        "the payment cannot be paid in its status: only open and partially_paid payments take a payment";
    /// `payment_not_confirming` (409): only a `confirming` payment settles.
    PaymentNotConfirming => "payment_not_confirming", 409,
        "the payment is not confirming: only a payment paid with its confirmations held (pay_held), still confirming, can be settled";
    /// `payment_not_cancellable` (409): only an `open` payment with nothing received can be
    /// cancelled.
    PaymentNotCancellable => "payment_not_cancellable", 409,
        "the payment cannot be cancelled: only an open payment with nothing received can be";
    /// `payment_not_reviewable` (409): the payment's status cannot go to review.
    PaymentNotReviewable => "payment_not_reviewable", 409,
        "the payment cannot be sent to review: only open, paid, partially_paid and overpaid payments can be";
    /// `payment_not_expirable` (409): the payment's status cannot expire.
    PaymentNotExpirable => "payment_not_expirable", 409,
        "the payment cannot expire: only open and partially_paid payments can";
    /// `consumer_access_disabled` (403): the merchant disabled the checkout for this payment.
    ConsumerAccessDisabled => "consumer_access_disabled", 403,
        "checkout access to this payment was disabled by the merchant: create a new payment for the customer";
    /// `webhook_exists` (409): a webhook endpoint is already registered.
    WebhookExists => "webhook_exists", 409,
        "a webhook endpoint is already registered: change or delete it rather than create another";
    /// `webhook_not_found` (404): no webhook endpoint is registered under the id given (or at all).
    WebhookNotFound => "webhook_not_found", 404,
        "no webhook endpoint is registered under this id: use the resource_id its setup answered (a setup sent again with the same Idempotency-Key answers it again), or create one if none is";
    /// `secret_mismatch` (400): the secret sent is not the endpoint's signing secret.
    SecretMismatch => "secret_mismatch", 400,
        "the secret sent is not the webhook endpoint's signing secret: send it exactly as saved";
    /// `request_invalid` (400): the body is not the JSON object the endpoint expects.
    RequestInvalid => "request_invalid", 400,
        "the request body is not the JSON object this endpoint expects: check the field names and types";
    /// `not_found` (404): no such endpoint.
    NotFound => "not_found", 404,
        "no such endpoint: check the path";
    /// `method_not_allowed` (405): the endpoint exists but not with this method.
    MethodNotAllowed => "method_not_allowed", 405,
        "this endpoint does not take this HTTP method: check the method";
}

impl From<Error> for ApiError {
    fn from(error: Error) -> Self {
        ApiError::Invalid(error)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // As the ErrorResponse carries it: the code, then the message.
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for ApiError {}
