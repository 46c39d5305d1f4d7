//! Verify payment-service webhooks and check what a merchant sends to the service, with no
//! I/O: no clock, network, files or randomness. The host passes `now_secs` and the secrets;
//! the core decides. The same core ships to JavaScript through the `wasm` feature.
//!
//! - [`Verifier`] / [`verify_signature`] / [`verify_webhook`]: HMAC-SHA256 over the raw
//!   timestamp bytes, `.` and the raw body bytes, with a bounded secret rotation and a
//!   two-sided skew check; then the strict `payment.updated` envelope ([`parse_event`]).
//! - [`decide_event`]: de-duplication by `event_id` and ordering by exact `status_version`.
//! - [`to_amount_raw`], [`build_source_amount`], [`validate_source_amount`],
//!   [`validate_create_payment`]: exact integer amounts from the store's pricing source.
//! - [`validate_checkout_origin`], [`validate_webhook_url`], [`hosted_checkout_url`],
//!   [`request_fingerprint`], [`validate_idempotency_key`], [`classify_delivery_response`].
//!
//! Every failure is an [`Error`] with a stable [`code`](Error::code).
//!
//! # Examples
//!
//! ```
//! use cryptopay_verify::{Delivery, Secret, SecretEntry, Verifier, VerifyOptions};
//! let verifier = Verifier::new(
//!     vec![SecretEntry::active(Secret::new("whsec_test_secret"))],
//!     VerifyOptions::new(300),
//! )?;
//! let delivery = Delivery {
//!     body: b"",
//!     timestamp: b"1700000000",
//!     signature: b"v1=316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
//! };
//! assert!(verifier.verify_signature(&delivery, 1_700_000_000).is_ok());
//! assert_eq!(
//!     verifier.verify_signature(&delivery, 1_700_000_301).unwrap_err().code(),
//!     "timestamp_too_old"
//! );
//! # Ok::<(), cryptopay_verify::Error>(())
//! ```

#![cfg_attr(not(feature = "wasm"), forbid(unsafe_code))]
#![cfg_attr(test, allow(clippy::string_slice, clippy::arithmetic_side_effects))]

mod amount;
mod delivery;
mod error;
mod event;
mod headers;
mod idempotency;
mod json;
mod origin;
mod pricing;
mod secret;
mod signature;
mod status;
mod verify;
// The JavaScript binding. wasm-bindgen's generated glue code uses `unsafe` internally;
// the module itself writes none.
#[cfg(feature = "wasm")]
#[allow(unsafe_code)]
mod wasm;

pub use amount::{
    MAX_AMOUNT_RAW, MAX_DECIMALS, from_amount_raw, is_valid_amount_raw, to_amount_raw,
    validate_amount_raw, validate_decimals,
};
pub use delivery::{DeliveryOutcome, classify_delivery_response};
pub use error::{Error, ErrorKind};
pub use event::{Event, PAYMENT_UPDATED, number_survives_f64, parse_event};
pub use headers::{DeliveryHeaders, read_delivery_headers};
pub use idempotency::{MAX_IDEMPOTENCY_KEY_LEN, request_fingerprint, validate_idempotency_key};
pub use origin::{
    MAX_WEBHOOK_URL_BYTES, hosted_checkout_url, validate_checkout_origin, validate_webhook_url,
};
pub use pricing::{
    PrimarySource, SourceKind, build_source_amount, validate_create_payment, validate_source_amount,
};
pub use secret::{MAX_SECRETS, Secret, SecretEntry, SecretKind};
pub use serde_json;
pub use signature::{
    MAX_CANDIDATES, MAX_SIGNATURE_HEADER_BYTES, MAX_TIMESTAMP_DIGITS, SignatureEncoding,
    parse_timestamp, sign,
};
pub use status::{Decision, StatusVersion, Stored, compare_status_versions, decide_event};
pub use verify::{
    DEFAULT_MAX_BODY_BYTES, Delivery, MAX_MAX_BODY_BYTES, Verified, VerifiedEvent, Verifier,
    VerifyOptions, verify_signature, verify_webhook,
};

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
