//! Verify payment-service webhooks and check what a merchant sends to the service, with no
//! I/O: no clock, network, files or randomness. The host passes `now_secs` and the secrets;
//! the core decides. The same core ships to JavaScript as the npm package `cryptopay-verify`,
//! through a binding crate of its own; this crate knows nothing of JavaScript.
//!
//! - [`Verifier`] (a [`SecretSet`] and [`VerifyOptions`]) / [`verify_signature`] /
//!   [`verify_webhook`]: HMAC-SHA256 over the raw timestamp bytes, `.` and the raw body
//!   bytes, with a bounded secret rotation and a two-sided skew check; then the strict
//!   `payment.updated` envelope ([`parse_event`], [`Event`]).
//! - [`read_delivery_headers`], [`DeliveryHeaders::from_header_map`](struct.DeliveryHeaders.html#method.from_header_map) (feature `http`): the
//!   two header values, a repeated header refused; [`validate_header_names`] checks the
//!   configured names at start-up; [`Verifier::misnamed_headers`]: the names to set when a
//!   delivery lacking one verifies with a header it carried instead.
//! - [`decide_event`]: de-duplication by `event_id` and ordering by exact [`StatusVersion`].
//! - [`to_amount_raw`], [`build_source_amount`], [`validate_source_amount`],
//!   [`validate_create_payment`]: exact integer amounts from the store's [`PrimarySource`],
//!   as typed [`SourceAmount`] and [`CreatePayment`] values that serde reads and writes.
//! - [`validate_checkout_origin`], [`validate_webhook_url`], [`hosted_checkout_url`],
//!   [`request_fingerprint`], [`validate_idempotency_key`], [`classify_delivery_response`].
//! - [`PaymentState::apply`] ([`PaymentStatus`], [`PaymentAction`], [`Applied`]): the
//!   service's payment state machine, as a sandbox applies it; [`ApiError`]: the service's
//!   own answers (code, HTTP status, message), distinct from this crate's [`ErrorKind`];
//!   [`check_idempotency`] ([`IdempotencyCheck`]): a creation's stored fingerprint against
//!   the incoming one; [`next_delivery_step`] ([`DeliveryAnswer`], [`DeliveryStep`],
//!   [`validate_retry_delays`]): the webhook delivery schedule.
//! - [`link_event`] ([`Order`], [`PaymentView`], [`LinkMismatch`]) and [`default_policy`]
//!   ([`FulfilmentAction`]): link a verified event to the merchant's order by the
//!   authoritative view, then decide from its exact status whether to fulfil.
//! - [`doubles`]: for a host that parses the verified bytes with its own JSON parser into
//!   doubles; [`dangerous`]: verification with HMAC tags the host computed.
//!
//! Every failure of the crate's own checks is an [`Error`] with a stable
//! [`code`](Error::code). The service's answers ([`ApiError`]) and the reasons an event does
//! not link to its order ([`LinkMismatch`]) are types of their own, each with its own codes,
//! none of them an [`ErrorKind`] code.
//!
//! # Features
//!
//! - `http`: [`DeliveryHeaders::from_header_map`](struct.DeliveryHeaders.html#method.from_header_map) reads the headers from an
//!   `http::HeaderMap` of `http` 1.x (axum, hyper 1, reqwest). Frameworks on `http` 0.2
//!   (actix-web 4, hyper 0.14) pass their header pairs to [`read_delivery_headers`].
//!
//! The crate enables no behaviour-changing feature of a shared dependency. It does not
//! depend on `serde_json` (it reads JSON with its own strict scanner; `serde_json` is only a
//! dev-dependency of its tests), so it never turns on `arbitrary_precision`; `serde` is built
//! with `std` and `derive`, and `hmac` and `sha2` with `zeroize`, which changes no output.
//!
//! # What is wiped
//!
//! A [`Secret`] wipes its bytes when dropped; a [`SecretSet`] wipes each secret as soon as
//! it is keyed, and its HMAC-SHA256 states (as good as the keys) when dropped (clones of a
//! set or [`Verifier`] share the states: when the last is dropped), as does every copy of
//! those states a verification works on. Not wiped: strings or buffers you copied a
//! secret from (build a `Secret` from an owned `String` to move it in instead), the padded
//! key `hmac` derives on its stack while keying, and the bytes a Rust move leaves behind.
//!
//! # Examples
//!
//! ```
//! use cryptopay_verify::{Delivery, Secret, SecretSet, Verifier, VerifyOptions};
//! let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, VerifyOptions::new(300));
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

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::string_slice, clippy::arithmetic_side_effects))]

mod amount;
pub mod dangerous;
mod delivery;
pub mod doubles;
mod error;
mod event;
mod fulfilment;
mod headers;
mod idempotency;
mod json;
mod mac;
mod misnamed;
mod options;
mod origin;
mod pricing;
mod response;
mod secret;
mod secret_set;
mod service;
mod signature;
mod status;
mod timestamp;
mod verify;

pub use amount::{
    MAX_AMOUNT_RAW, MAX_DECIMALS, from_amount_raw, to_amount_raw, validate_amount_raw,
    validate_decimals,
};
pub use delivery::Delivery;
pub use error::{Error, ErrorKind};
pub use event::{Event, OccurredAt, PAYMENT_UPDATED, parse_event};
pub use fulfilment::{
    FulfilmentAction, LinkMismatch, Order, PaymentView, default_policy, link_event,
};
pub use headers::{DeliveryHeaders, read_delivery_headers, validate_header_names};
pub use idempotency::{MAX_IDEMPOTENCY_KEY_LEN, request_fingerprint, validate_idempotency_key};
pub use mac::{SignatureEncoding, sign_webhook};
pub use misnamed::MisnamedHeaders;
pub use options::{DEFAULT_MAX_BODY_BYTES, MAX_MAX_BODY_BYTES, VerifyOptions};
pub use origin::{
    MAX_WEBHOOK_URL_BYTES, hosted_checkout_url, validate_checkout_origin, validate_webhook_url,
};
pub use pricing::{
    CreatePayment, PrimarySource, SourceAmount, SourceKind, build_source_amount,
    validate_create_payment, validate_create_payment_json, validate_source_amount,
};
pub use response::{DeliveryOutcome, classify_delivery_response};
pub use secret::{Secret, SecretEntry, SecretKind};
pub use secret_set::{MAX_SECRETS, SecretSet};
pub use service::{
    ApiError, Applied, DeliveryAnswer, DeliveryStep, IdempotencyCheck, MAX_RETRY_DELAY_MS,
    MAX_RETRY_DELAYS, PaymentAction, PaymentState, PaymentStatus, check_idempotency,
    next_delivery_step, validate_retry_delays,
};
pub use signature::{MAX_CANDIDATES, MAX_SIGNATURE_HEADER_BYTES};
pub use status::{Decision, StatusVersion, Stored, decide_event};
pub use timestamp::{MAX_TIMESTAMP_DIGITS, parse_timestamp};
pub use verify::{Verified, VerifiedEvent, Verifier, verify_signature, verify_webhook};

/// The strict JSON scanner's internals, for the fuzz targets only (built with `--cfg
/// fuzzing` by cargo-fuzz; not part of the API).
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod __fuzzing {
    /// Where the numbers a double cannot hold are; `None` when the body is refused.
    #[must_use]
    pub fn inexact_numbers(body: &[u8]) -> Option<Vec<core::ops::Range<usize>>> {
        crate::json::inexact_numbers(body).ok()
    }

    /// Whether a JSON number's text keeps its value as a double.
    #[must_use]
    pub fn text_survives_f64(text: &str) -> bool {
        crate::json::text_survives_f64(text)
    }
}

/// The scanner's wasm SIMD128 blocks and their SWAR reference, for `tests/wasm.rs` only
/// (built with `--cfg wasm_test` and `+simd128` by `make wasm-test`; not part of the API).
#[cfg(all(wasm_test, target_arch = "wasm32", target_feature = "simd128"))]
#[doc(hidden)]
pub mod __wasm_test {
    use crate::json::{simd, swar};

    /// The first byte of `block` that ends a run of plain string bytes (with `ascii`, bytes
    /// outside ASCII end it too), by the SIMD and by the SWAR implementation.
    #[must_use]
    pub fn first_stop(block: &[u8; 16], ascii: bool) -> [Option<usize>; 2] {
        if ascii {
            [
                simd::first_stop::<true>(block),
                swar::first_stop::<true>(block),
            ]
        } else {
            [
                simd::first_stop::<false>(block),
                swar::first_stop::<false>(block),
            ]
        }
    }

    /// The first byte of `block` that is not JSON whitespace, both ways.
    #[must_use]
    pub fn first_non_space(block: &[u8; 16]) -> [Option<usize>; 2] {
        [simd::first_non_space(block), swar::first_non_space(block)]
    }
}

/// The Rust examples of the documents, compiled and run as doctests: the front README (its
/// axum handler is `rust,ignore`: a test of examples/axum-receiver checks it is that file),
/// the crates.io README and the Rust guide. Each file is in the crate package.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The crates.io README's examples (`readme` in Cargo.toml).
#[doc = include_str!("../README-crate.md")]
#[cfg(doctest)]
pub struct CrateReadmeDoctests;

/// The Rust guide's examples.
#[doc = include_str!("../docs/rust.md")]
#[cfg(doctest)]
pub struct RustGuideDoctests;
