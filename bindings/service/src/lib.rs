//! The sandbox's wasm-bindgen binding of the core's payment-service rules
//! (`PaymentState`, `check_idempotency`, `next_delivery_step`, `ApiError`, re-exported at the
//! crate root): the payment state machine, the creation-idempotency check,
//! the delivery schedule and the service's API errors. Only `cryptopay-verify/sandbox` loads
//! it; the package's main binding (`bindings/wasm`) does not carry these rules, so receivers
//! pay nothing for them.
//!
//! Each export converts, calls the core and maps the error, and answers JSON text, one
//! shape for all: `{"ok":true,...}` with the result, or `{"error":{"code","message"}}`, with
//! `"status"` (the HTTP status the service answers with) when the error is one of the
//! service's answers ([`ApiError`]), without it when the core refused an argument. The
//! sandbox's JavaScript reads that text and throws its own errors, so this crate needs no
//! `js_sys` and the module stays small. Values that are not of the expected JavaScript type
//! arrive as `None` (the JavaScript layer passes `undefined` for them) and are refused here,
//! in the core's order of checks. None of the exports can panic (the workspace denies
//! unwrap, expect, panic, indexing and unchecked arithmetic).

// wasm-bindgen's generated glue holds its own `unsafe`, from its macros, which the lint leaves
// to that crate; this crate's own code may write none.
#![forbid(unsafe_code)]
// Its `pub` items are exports of the .wasm, called from JavaScript (which reads every
// result), not Rust API: rustc cannot see either, so neither lint applies.
#![allow(unreachable_pub, clippy::must_use_candidate)]

mod json;
// The package's one wording of the core's messages for JavaScript (its names for options and
// functions: `toAmountRaw`, not `to_amount_raw`), shared with the main binding.
#[path = "../../wasm/src/messages.rs"]
mod messages;

use wasm_bindgen::prelude::*;

use cryptopay_verify::{
    ApiError, DeliveryAnswer, DeliveryStep, Error, ErrorKind, PaymentAction, PaymentState,
    PaymentStatus, PrimarySource, StatusVersion, check_idempotency, next_delivery_step,
    validate_create_payment_json, validate_retry_delays,
};
use json::{Json, error_json, ok_json};

/// A state as the sandbox keeps it and the vectors spell it: camelCase, numbers as strings.
fn state_json(state: &PaymentState) -> String {
    let mut out = Json::object();
    out.string("status", state.status().as_str());
    out.string("statusVersion", state.status_version().as_str());
    out.string("amountRaw", state.amount_raw());
    out.string("amountReceivedRaw", state.amount_received_raw());
    out.boolean("consumerAccess", state.consumer_access());
    out.finish()
}

/// An error of the core (an argument it refuses): code and message, no HTTP status.
fn core_error(error: Error) -> String {
    error_json(error.code(), &message(error), None)
}

/// One of the service's answers: code, message and HTTP status.
fn api_error(error: ApiError) -> String {
    let text = match error {
        ApiError::Invalid(error) => message(error),
        other => format!("{}: {}", other.code(), other.message()),
    };
    error_json(error.code(), &text, Some(error.status()))
}

/// `code: detail; remedy`, or `code: remedy`, worded for JavaScript: the format of every
/// message of the package.
fn message(error: Error) -> String {
    messages::message(&error)
}

fn invalid(detail: &'static str) -> Error {
    Error::with_detail(ErrorKind::InvalidArgument, detail)
}

/// A new payment's state: `open`, version 1, nothing received, checkout enabled.
/// `amount_raw` is `None` when JavaScript's value was not a string.
#[wasm_bindgen(js_name = newPaymentState)]
pub fn new_payment_state(amount_raw: Option<String>) -> String {
    let Some(amount_raw) = amount_raw else {
        return core_error(Error::with_detail(
            ErrorKind::AmountRawInvalid,
            "amount_raw must be a string of digits",
        ));
    };
    match PaymentState::new(&amount_raw) {
        Ok(state) => ok_json(&[("state", state_json(&state))]),
        Err(error) => core_error(error),
    }
}

/// A stored state, read in the order status, status_version, amounts, consumer access.
/// `consumer_access` is 0 (false), 1 (true) or anything else (not a boolean).
fn read_state(
    status: Option<String>,
    status_version: Option<String>,
    amount_raw: Option<String>,
    amount_received_raw: Option<String>,
    consumer_access: u8,
) -> Result<PaymentState, Error> {
    let status = status
        .as_deref()
        .and_then(PaymentStatus::parse)
        .ok_or_else(|| invalid("status must be one of the sandbox's eight status names"))?;
    let version = status_version.ok_or(Error::with_detail(
        ErrorKind::StatusVersionInvalid,
        "a stored status_version is a string of digits",
    ))?;
    let version = StatusVersion::parse(&version)?;
    let amount_error = Error::with_detail(
        ErrorKind::AmountRawInvalid,
        "a stored amount is a string of digits",
    );
    let amount_raw = amount_raw.ok_or(amount_error)?;
    let received = amount_received_raw.ok_or(amount_error)?;
    let access = match consumer_access {
        0 => false,
        1 => true,
        _ => return Err(invalid("consumer_access must be a boolean")),
    };
    PaymentState::from_parts(status, version, &amount_raw, &received, access)
}

/// Applies an action to a stored state: `{"ok":true,"state":{...},"events":[{...}...]}`
/// (the final state, and the state after each change, one `payment.updated` each), or the
/// service's answer. The state's parts are read first, then the action (`action` one of the
/// core's names; `amount_raw` given for `pay` and `pay_held` only: a value that was not a
/// string arrives as an empty string, refused at its place in pay's order of checks).
#[wasm_bindgen(js_name = applyPaymentAction)]
#[allow(clippy::too_many_arguments)]
pub fn apply_payment_action(
    status: Option<String>,
    status_version: Option<String>,
    amount_raw: Option<String>,
    amount_received_raw: Option<String>,
    consumer_access: u8,
    action: Option<String>,
    action_amount_raw: Option<String>,
) -> String {
    let state = match read_state(
        status,
        status_version,
        amount_raw,
        amount_received_raw,
        consumer_access,
    ) {
        Ok(state) => state,
        Err(error) => return core_error(error),
    };
    let parsed = action
        .as_deref()
        .and_then(|name| PaymentAction::parse(name, action_amount_raw.as_deref()));
    let Some(action) = parsed else {
        return core_error(invalid(
            "action must be pay or pay_held (with amount_raw), settle, review, expire, cancel, disable_consumer_access or open_checkout",
        ));
    };
    match state.apply(action) {
        Ok(applied) => {
            let events: Vec<String> = applied.events.iter().map(state_json).collect();
            ok_json(&[
                ("state", state_json(&applied.state)),
                ("events", format!("[{}]", events.join(","))),
            ])
        }
        Err(error) => api_error(error),
    }
}

/// A creation request against the fingerprint stored under its Idempotency-Key:
/// `{"ok":true,"check":"new"|"replay"|"reused"}`.
#[wasm_bindgen(js_name = checkIdempotency)]
pub fn check_idempotency_export(stored_fingerprint: Option<String>, fingerprint: &str) -> String {
    let check = check_idempotency(stored_fingerprint.as_deref(), fingerprint);
    ok_json(&[("check", json::string(check.as_str()))])
}

/// Retry delays from JavaScript numbers: each an integer from 0 (the range above is the
/// core's to check).
fn delays(values: &[f64]) -> Result<Vec<u64>, Error> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    values
        .iter()
        .map(|&ms| {
            if (0.0..=MAX_SAFE).contains(&ms) && ms.fract() == 0.0 {
                // In range and integral: the conversion is exact.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Ok(ms as u64)
            } else {
                Err(invalid(
                    "each retry delay must be a whole number of milliseconds from 0",
                ))
            }
        })
        .collect()
}

/// What the sender does after attempt `attempt` got an HTTP `status` (`None`: no HTTP
/// answer, a network failure): `{"ok":true,"step":"acknowledged"|"retrying"|"exhausted"|
/// "failed_permanently"}`, with `"delayMs"` when retrying.
#[wasm_bindgen(js_name = nextDeliveryStep)]
pub fn next_delivery_step_export(
    attempt: u32,
    status: Option<u16>,
    retry_delays_ms: &[f64],
) -> String {
    let answer = status.map_or(DeliveryAnswer::NetworkFailure, DeliveryAnswer::Status);
    let step = delays(retry_delays_ms).and_then(|d| next_delivery_step(attempt, answer, &d));
    match step {
        Ok(step @ DeliveryStep::Retry { delay_ms }) => ok_json(&[
            ("step", json::string(step.as_str())),
            ("delayMs", delay_ms.to_string()),
        ]),
        Ok(step) => ok_json(&[("step", json::string(step.as_str()))]),
        Err(error) => core_error(error),
    }
}

/// Checks a list of retry delays: `{"ok":true}` or `invalid_argument`.
#[wasm_bindgen(js_name = validateRetryDelays)]
pub fn validate_retry_delays_export(retry_delays_ms: &[f64]) -> String {
    match delays(retry_delays_ms).and_then(|d| validate_retry_delays(&d)) {
        Ok(()) => ok_json(&[]),
        Err(error) => core_error(error),
    }
}

/// Checks a `POST /v1/payments` body as it was received (the exact text: a repeated key or a
/// body that is not a JSON object is `create_payment_invalid`) against the store's pricing
/// source (its JSON text) and website origin: `{"ok":true}` or the core's error.
#[wasm_bindgen(js_name = validateCreatePayment)]
pub fn validate_create_payment_export(
    body_json: &str,
    primary_json: &str,
    website_origin: Option<String>,
) -> String {
    let checked = PrimarySource::from_json(primary_json).and_then(|primary| {
        validate_create_payment_json(body_json, &primary, website_origin.as_deref())
    });
    match checked {
        Ok(_) => ok_json(&[]),
        Err(error) => core_error(error),
    }
}

/// One of the service's own errors by its code: `{"ok":true,"code","status","message"}`, or
/// `invalid_argument` for any other code (the core's codes included).
#[wasm_bindgen(js_name = apiError)]
pub fn api_error_export(code: &str) -> String {
    match ApiError::from_code(code) {
        Some(error) => ok_json(&[
            ("code", json::string(error.code())),
            ("status", error.status().to_string()),
            (
                "message",
                json::string(&format!("{}: {}", error.code(), error.message())),
            ),
        ]),
        None => core_error(invalid("code is not one of the service's own error codes")),
    }
}
