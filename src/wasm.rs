//! The wasm-bindgen layer: the only file that names `wasm_bindgen` or `js_sys`.
//!
//! These exports are the package's internal interface. The public JavaScript API
//! (`pkg-templates/src/api.mjs`) checks JavaScript types, turns bodies and header
//! containers into bytes and strings, and calls these with plain values. Each export
//! converts, calls the core and maps the error to the package's `CryptoPayError`, except
//! the verifying ones, which are on every request's path: JavaScript writes the delivery
//! into one reused input area (`inputArea`) and they answer with a number, a failure as the
//! index of its kind, so that no allocation, string conversion or error construction happens
//! here for a delivery. None can panic (the crate denies unwrap, expect, panic, indexing and
//! unchecked arithmetic).

// Exports must be `pub` for wasm-bindgen even though the module is private.
#![allow(unreachable_pub)]

use core::cell::{Cell, RefCell};

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorKind, err};
use crate::event::{check_envelope, number_survives_f64, refused};
use crate::json::{Flags, LEAF, scan};
use crate::pricing::{
    PrimarySource, build_source_amount, validate_create_payment, validate_source_amount,
};
use crate::secret::{Secret, SecretEntry, SecretKind, check_shape};
use crate::signature::{SignatureEncoding, sign};
use crate::status::{StatusVersion, Stored, compare_status_versions, decide_event};
use crate::verify::{Delivery, Verified, Verifier, VerifyOptions};
use crate::{amount, delivery, headers, idempotency, origin};

thread_local! {
    static ERROR_CLASS: core::cell::OnceCell<Function> = const { core::cell::OnceCell::new() };
    /// Where JavaScript writes a delivery (timestamp value, signature value, body) for the
    /// verifying exports: one area reused by every call, so a verification allocates nothing
    /// and passes only numbers across the boundary.
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The failure of the last verifying export that returned a negative number.
    static LAST_ERROR: Cell<Option<Error>> = const { Cell::new(None) };
}

/// An input area larger than this is given back once a smaller delivery comes.
const KEEP_INPUT_AREA: usize = 1 << 20;

/// The input area, at least `len` bytes long: JavaScript writes the delivery there, then
/// calls a verifying export with the three lengths. The address stays valid until the next
/// call of `inputArea`.
#[wasm_bindgen(js_name = inputArea)]
pub fn input_area(len: usize) -> *mut u8 {
    INPUT.with_borrow_mut(|area| {
        if area.len() < len || (area.len() > KEEP_INPUT_AREA && len <= KEEP_INPUT_AREA) {
            // Give the old area back before taking the new one.
            *area = Vec::new();
            area.resize(len, 0);
        }
        area.as_mut_ptr()
    })
}

/// The delivery JavaScript wrote into the input area: the timestamp value, the signature
/// value and the body, one after the other, with the lengths it reported.
fn with_delivery<T>(
    lens: [usize; 3],
    f: impl FnOnce(&Delivery<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    INPUT.with_borrow(|area| {
        let [body_len, timestamp_len, signature_len] = lens;
        let outside = || {
            err(
                ErrorKind::InvalidArgument,
                "the lengths given exceed the input area",
            )
        };
        let (timestamp, rest) = area.split_at_checked(timestamp_len).ok_or_else(outside)?;
        let (signature, rest) = rest.split_at_checked(signature_len).ok_or_else(outside)?;
        let body = rest.get(..body_len).ok_or_else(outside)?;
        f(&Delivery {
            body,
            timestamp,
            signature,
        })
    })
}

/// A verifying export's answer: the packed result (see `pack`), or, when it failed,
/// `-1 - index` of the error's kind in [`ErrorKind::ALL`], the error kept for
/// [`last_error_message`]. JavaScript then builds the `CryptoPayError` itself, which costs
/// a fraction of constructing it from here.
fn settle(result: Result<f64, Error>) -> f64 {
    result.unwrap_or_else(|error| {
        let index = ErrorKind::ALL
            .iter()
            .position(|k| *k == error.kind())
            .unwrap_or_default();
        LAST_ERROR.set(Some(error));
        #[allow(clippy::cast_precision_loss)] // fewer than 2^53 kinds
        let index = index as f64;
        -1.0 - index
    })
}

/// The message of the failure a verifying export reported by a negative number.
#[wasm_bindgen(js_name = lastErrorMessage)]
pub fn last_error_message() -> String {
    LAST_ERROR
        .take()
        .map(|error| error.to_string())
        .unwrap_or_default()
}

/// Registers the `CryptoPayError` class that every failure is thrown as.
#[wasm_bindgen(js_name = setErrorClass)]
pub fn set_error_class(class: Function) {
    ERROR_CLASS.with(|cell| {
        // Set once per instance; a second call keeps the first class.
        let _ = cell.set(class);
    });
}

/// A `CryptoPayError(code, message)`, or a plain `Error` with `code` before registration.
fn to_js(error: Error) -> JsValue {
    let code = JsValue::from_str(error.code());
    let message = JsValue::from_str(&error.to_string());
    let constructed = ERROR_CLASS.with(|cell| {
        cell.get()
            .and_then(|class| Reflect::construct(class, &Array::of2(&code, &message)).ok())
    });
    constructed.unwrap_or_else(|| {
        let plain = js_sys::Error::new(&error.to_string());
        let _ = Reflect::set(&plain, &JsValue::from_str("code"), &code);
        plain.into()
    })
}

type JsResult<T> = Result<T, JsValue>;

fn js<T>(result: Result<T, Error>) -> JsResult<T> {
    result.map_err(to_js)
}

/// The general message of a code, for failures detected in JavaScript; `undefined` if unknown.
#[wasm_bindgen(js_name = codeMessage)]
pub fn code_message(code: &str) -> Option<String> {
    ErrorKind::from_code(code).map(|k| k.message().to_owned())
}

/// What JavaScript found when it read the body, before copying it.
fn body_state(state: u8) -> Result<(), Error> {
    match state {
        BODY_RAW => Ok(()),
        BODY_OVERSIZED => Err(Error::new(ErrorKind::BodyTooLarge)),
        _ => Err(Error::new(ErrorKind::BodyNotRaw)),
    }
}

/// The body is raw bytes within the limit (and was passed).
const BODY_RAW: u8 = 0;
/// The body is over `maxBodyBytes` (and was not copied).
const BODY_OVERSIZED: u8 = 1;

/// Every error code, in the contract's order.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Vec<String> {
    ErrorKind::ALL.iter().map(|k| k.code().to_owned()).collect()
}

/// A non-negative integer the JavaScript layer already checked, as `u64`.
fn uint(value: f64, name: &'static str) -> Result<u64, Error> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    if (0.0..=MAX_SAFE).contains(&value) && value.fract() == 0.0 {
        // In range and integral: the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(value as u64)
    } else {
        Err(err(ErrorKind::InvalidArgument, name))
    }
}

fn entries(
    secrets: Vec<String>,
    kinds: Vec<String>,
    until: Vec<f64>,
) -> Result<Vec<SecretEntry>, Error> {
    if secrets.len() != kinds.len() || secrets.len() != until.len() {
        return Err(err(
            ErrorKind::InvalidArgument,
            "secrets, kinds and bounds differ in length",
        ));
    }
    secrets
        .into_iter()
        .zip(kinds)
        .zip(until)
        .map(|((secret, kind), until)| {
            let until = if until < 0.0 {
                None
            } else {
                Some(uint(until, "acceptUntilSecs must be a safe integer >= 0")?)
            };
            Ok(SecretEntry::new(
                Secret::new(secret),
                SecretKind::parse(&kind)?,
                until,
            ))
        })
        .collect()
}

fn options(max_skew_secs: f64, max_body_bytes: f64) -> Result<VerifyOptions, Error> {
    let skew = uint(max_skew_secs, "maxSkewSecs must be a safe integer >= 0")?;
    let body = uint(
        max_body_bytes,
        "maxBodyBytes must be an integer from 1 to 67108864",
    )?;
    VerifyOptions::new(skew).with_max_body_bytes(usize::try_from(body).unwrap_or(usize::MAX))
}

fn kind_index(kind: SecretKind) -> f64 {
    match kind {
        SecretKind::Active => 0.0,
        SecretKind::Pending => 1.0,
        SecretKind::Retiring => 2.0,
    }
}

/// Packs a result into one number: `timestamp * 8 + rewrite * 4 + kind`, exact below 2^53.
///
/// `rewrite` says that the body holds numbers a double cannot keep, so JavaScript must
/// take the event from [`event_text`] instead of `JSON.parse` of the body.
fn pack(verified: Verified, rewrite: bool) -> f64 {
    // A timestamp has at most 12 digits, so timestamp * 8 < 2^43: exact in a double.
    #[allow(clippy::cast_precision_loss)]
    let ts = verified.timestamp as f64;
    ts * 8.0 + if rewrite { 4.0 } else { 0.0 } + kind_index(verified.matched_secret)
}

/// The part both verifying exports share, after the checks that come before it: the body's
/// state, `verify` over the delivery in the input area, the envelope when asked for.
fn verify_in_area(
    lens: [usize; 3],
    state: u8,
    parse: bool,
    verify: impl FnOnce(&Delivery<'_>) -> Result<Verified, Error>,
) -> Result<f64, Error> {
    body_state(state)?;
    with_delivery(lens, |delivery| {
        verify(delivery).and_then(|verified| finish(verified, delivery.body, parse))
    })
}

/// After a verification: the envelope's checks when asked for, then the packed result.
fn finish(verified: Verified, body: &[u8], parse: bool) -> Result<f64, Error> {
    let rewrite = if parse { check_event(body)? } else { false };
    Ok(pack(verified, rewrite))
}

/// Checks a verified body as an event; true when JavaScript must use [`event_text`].
fn check_event(body: &[u8]) -> Result<bool, Error> {
    check_envelope(body).map(|facts| facts.inexact)
}

fn rewrite(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) if !number_survives_f64(&n) => Value::String(n.to_string()),
        Value::Array(items) => Value::Array(items.into_iter().map(rewrite).collect()),
        Value::Object(map) => {
            Value::Object(map.into_iter().map(|(k, v)| (k, rewrite(v))).collect())
        }
        other => other,
    }
}

/// The verified event as JSON text in which every number a double cannot keep is a string.
#[wasm_bindgen(js_name = eventText)]
pub fn event_text(body: &[u8]) -> JsResult<String> {
    js(scan(body, &LEAF, &Flags::default()).map_err(refused))?;
    let value: serde_json::Value =
        js(serde_json::from_slice(body).map_err(|_| Error::new(ErrorKind::EventNotJson)))?;
    js(serde_json::to_string(&rewrite(value)).map_err(|_| Error::new(ErrorKind::EventMalformed)))
}

/// Checks a verified body as an event (see `parseEvent`): 1 when [`event_text`] is needed.
#[wasm_bindgen(js_name = checkEvent)]
pub fn check_event_export(body: &[u8]) -> JsResult<u8> {
    js(check_event(body).map(u8::from))
}

/// A verifier keyed once; freed by `free()` or the FinalizationRegistry.
#[wasm_bindgen(js_name = RawVerifier)]
#[derive(Debug)]
pub struct RawVerifier {
    inner: Verifier,
}

#[wasm_bindgen(js_class = RawVerifier)]
impl RawVerifier {
    /// Keys a verifier (`until` is -1 where a secret has no `acceptUntilSecs`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        secrets: Vec<String>,
        kinds: Vec<String>,
        until: Vec<f64>,
        max_skew_secs: f64,
        max_body_bytes: f64,
    ) -> JsResult<RawVerifier> {
        let options = js(options(max_skew_secs, max_body_bytes))?;
        let inner = js(entries(secrets, kinds, until).and_then(|e| Verifier::new(e, options)))?;
        Ok(RawVerifier { inner })
    }

    /// Verifies the delivery in the input area (`inputArea`), whose parts have these
    /// lengths; `state` is 0 for a raw body, 1 for one over the limit (not copied), 2 for a
    /// body that is not raw. Returns the packed result or a failure (see `settle`).
    #[wasm_bindgen(js_name = verifyArea)]
    pub fn verify_area(
        &self,
        body_len: usize,
        timestamp_len: usize,
        signature_len: usize,
        state: u8,
        now_secs: f64,
        parse: bool,
    ) -> f64 {
        settle(
            uint(now_secs, "nowSecs must be a safe integer >= 0").and_then(|now| {
                verify_in_area(
                    [body_len, timestamp_len, signature_len],
                    state,
                    parse,
                    |delivery| self.inner.verify_signature(delivery, now),
                )
            }),
        )
    }
}

/// One-shot verification with the contract's order of checks, of the delivery in the input
/// area (see [`RawVerifier::verify_area`]). Returns the packed result or a failure.
#[wasm_bindgen(js_name = verifyArea)]
#[allow(clippy::too_many_arguments)]
pub fn verify_area(
    secrets: Vec<String>,
    kinds: Vec<String>,
    until: Vec<f64>,
    max_skew_secs: f64,
    max_body_bytes: f64,
    body_len: usize,
    timestamp_len: usize,
    signature_len: usize,
    state: u8,
    now_secs: f64,
    parse: bool,
) -> f64 {
    settle((|| {
        let now = uint(now_secs, "nowSecs must be a safe integer >= 0")?;
        let options = options(max_skew_secs, max_body_bytes)?;
        let entries = entries(secrets, kinds, until)?;
        check_shape(&entries)?;
        verify_in_area(
            [body_len, timestamp_len, signature_len],
            state,
            parse,
            |delivery| crate::verify::verify_signature(delivery, &entries, options, now),
        )
    })())
}

/// Signs a delivery (lowercase hex, or padded standard base64).
#[wasm_bindgen(js_name = signWebhook)]
pub fn sign_webhook(secret: &str, timestamp: &str, body: &[u8], base64: bool) -> JsResult<String> {
    let encoding = if base64 {
        SignatureEncoding::Base64
    } else {
        SignatureEncoding::Hex
    };
    js(sign(
        &Secret::new(secret),
        timestamp.as_bytes(),
        body,
        encoding,
    ))
}

/// Finds the two headers among parallel name and value lists: `[timestamp, signature]`.
#[wasm_bindgen(js_name = readDeliveryHeaders)]
pub fn read_delivery_headers(
    names: Vec<String>,
    values: Vec<String>,
    timestamp_header: &str,
    signature_header: &str,
) -> JsResult<Vec<String>> {
    let pairs = names
        .iter()
        .zip(&values)
        .map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    let found = js(headers::read_delivery_headers(
        pairs,
        timestamp_header,
        signature_header,
    ))?;
    // The values came in as strings, so they are UTF-8.
    Ok(vec![
        String::from_utf8_lossy(found.timestamp).into_owned(),
        String::from_utf8_lossy(found.signature).into_owned(),
    ])
}

/// -1, 0 or 1.
#[wasm_bindgen(js_name = compareStatusVersions)]
pub fn compare_status_versions_export(a: &str, b: &str) -> JsResult<i8> {
    js(compare_status_versions(a, b))
}

/// `apply`, `duplicate` or `stale`.
#[wasm_bindgen(js_name = decideEvent)]
pub fn decide_event_export(
    incoming: &str,
    event_seen: bool,
    stored: Option<String>,
) -> JsResult<String> {
    let incoming = js(StatusVersion::parse(incoming))?;
    let status_version = js(stored.as_deref().map(StatusVersion::parse).transpose())?;
    let stored = Stored {
        event_seen,
        status_version,
    };
    Ok(decide_event(&incoming, &stored).as_str().to_owned())
}

/// Throws `amount_raw_invalid` unless valid.
#[wasm_bindgen(js_name = validateAmountRaw)]
pub fn validate_amount_raw(value: &str) -> JsResult<()> {
    js(amount::validate_amount_raw(value))
}

/// `decimals` was checked to be an integer by JavaScript; 0 to 77 is checked here.
fn decimals(value: f64) -> Result<u32, Error> {
    let d = uint(value, "decimals").map_err(|_| Error::new(ErrorKind::DecimalsInvalid))?;
    u32::try_from(d).map_err(|_| Error::new(ErrorKind::DecimalsInvalid))
}

/// A decimal to `amount_raw`.
#[wasm_bindgen(js_name = toAmountRaw)]
pub fn to_amount_raw(decimal: &str, decimals_value: f64) -> JsResult<String> {
    let d = js(decimals(decimals_value))?;
    js(amount::to_amount_raw(decimal, d))
}

/// `amount_raw` to a decimal.
#[wasm_bindgen(js_name = fromAmountRaw)]
pub fn from_amount_raw(raw: &str, decimals_value: f64) -> JsResult<String> {
    let d = js(decimals(decimals_value))?;
    js(amount::from_amount_raw(raw, d))
}

fn json_arg(text: &str, kind: ErrorKind) -> Result<serde_json::Value, Error> {
    serde_json::from_str(text).map_err(|_| Error::new(kind))
}

fn primary(primary_json: &str) -> Result<PrimarySource, Error> {
    PrimarySource::from_json(&json_arg(primary_json, ErrorKind::StoreSourceInvalid)?)
}

/// Builds a SourceAmount; returns it as JSON text.
#[wasm_bindgen(js_name = buildSourceAmount)]
pub fn build_source_amount_export(primary_json: &str, amount: &str) -> JsResult<String> {
    let p = js(primary(primary_json))?;
    let value = js(build_source_amount(&p, amount))?;
    Ok(value.to_string())
}

/// Checks a SourceAmount given as JSON text.
#[wasm_bindgen(js_name = validateSourceAmount)]
pub fn validate_source_amount_export(source_json: &str, primary_json: &str) -> JsResult<()> {
    let p = js(primary(primary_json))?;
    let sa = js(json_arg(source_json, ErrorKind::SourceAmountInvalid))?;
    js(validate_source_amount(&sa, &p))
}

/// Checks a CreatePayment body given as JSON text.
#[wasm_bindgen(js_name = validateCreatePayment)]
pub fn validate_create_payment_export(
    body_json: &str,
    primary_json: &str,
    website_origin: Option<String>,
) -> JsResult<()> {
    let p = js(primary(primary_json))?;
    let body = js(json_arg(body_json, ErrorKind::CreatePaymentInvalid))?;
    js(validate_create_payment(
        &body,
        &p,
        website_origin.as_deref(),
    ))
}

/// Checks a checkout origin.
#[wasm_bindgen(js_name = validateCheckoutOrigin)]
pub fn validate_checkout_origin(value: &str, website_origin: Option<String>) -> JsResult<()> {
    js(origin::validate_checkout_origin(
        value,
        website_origin.as_deref(),
    ))
}

/// Checks a webhook URL.
#[wasm_bindgen(js_name = validateWebhookUrl)]
pub fn validate_webhook_url(url: &str) -> JsResult<()> {
    js(origin::validate_webhook_url(url))
}

/// The Hosted Checkout address.
#[wasm_bindgen(js_name = hostedCheckoutUrl)]
pub fn hosted_checkout_url(checkout_origin: &str, payment_id: &str) -> JsResult<String> {
    js(origin::hosted_checkout_url(checkout_origin, payment_id))
}

/// Lowercase hex SHA-256 of the bytes.
#[wasm_bindgen(js_name = requestFingerprint)]
pub fn request_fingerprint(body: &[u8]) -> String {
    idempotency::request_fingerprint(body)
}

/// Checks an Idempotency-Key.
#[wasm_bindgen(js_name = validateIdempotencyKey)]
pub fn validate_idempotency_key(key: &str) -> JsResult<()> {
    js(idempotency::validate_idempotency_key(key))
}

/// `acknowledged`, `retry` or `permanent_failure`.
#[wasm_bindgen(js_name = classifyDeliveryResponse)]
pub fn classify_delivery_response(status: f64) -> JsResult<String> {
    let status = js(uint(status, "an HTTP status is an integer from 100 to 599"))?;
    let status = u16::try_from(status).unwrap_or(u16::MAX);
    js(delivery::classify_delivery_response(status).map(|c| c.as_str().to_owned()))
}
