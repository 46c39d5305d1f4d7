//! The exports that take and return plain values: signing, header lists, status versions,
//! amounts, origins and URLs, idempotency, delivery responses. JavaScript-shaped answers
//! (`-1 | 0 | 1`, names as strings) are made here from the core's Rust types.

use core::cmp::Ordering;

use wasm_bindgen::prelude::*;

use super::{JsResult, js, uint};
use cryptopay_verify::{
    Error, ErrorKind, Secret, SignatureEncoding, StatusVersion, Stored, decide_event,
};

/// Signs a delivery (lowercase hex, or padded standard base64). The secret is moved into
/// a `Secret` (wiped when dropped), never copied.
#[wasm_bindgen(js_name = rawSignWebhook)]
pub fn sign_webhook(
    secret: String,
    timestamp: &str,
    body: &[u8],
    base64: bool,
) -> JsResult<String> {
    let encoding = if base64 {
        SignatureEncoding::Base64
    } else {
        SignatureEncoding::Hex
    };
    js(cryptopay_verify::sign_webhook(
        &Secret::from(secret),
        timestamp.as_bytes(),
        body,
        encoding,
    ))
}

/// Finds the two headers among parallel name and value lists: `[timestamp, signature]`.
/// Lists of different lengths are refused, never paired short.
#[wasm_bindgen(js_name = rawReadDeliveryHeaders)]
pub fn read_delivery_headers(
    names: Vec<String>,
    values: Vec<String>,
    timestamp_header: &str,
    signature_header: &str,
) -> JsResult<Vec<String>> {
    if names.len() != values.len() {
        return js(Err(Error::with_detail(
            ErrorKind::InvalidArgument,
            "the header names and values must be lists of one length",
        )));
    }
    let pairs = names
        .iter()
        .zip(&values)
        .map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    let found = js(cryptopay_verify::read_delivery_headers(
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

/// `text` as a [`StatusVersion`], or `status_version_invalid` with `detail` naming the
/// argument (the core's message alone does not say which of two it was).
fn version(text: &str, detail: &'static str) -> JsResult<StatusVersion> {
    js(StatusVersion::parse(text)
        .map_err(|_| Error::with_detail(ErrorKind::StatusVersionInvalid, detail)))
}

/// -1, 0 or 1: the exact order of two versions ([`StatusVersion`]'s `Ord`).
#[wasm_bindgen(js_name = rawCompareStatusVersions)]
pub fn compare_status_versions(a: &str, b: &str) -> JsResult<i8> {
    let a = version(
        a,
        "the first argument of compareStatusVersions is not a status version: pass event.statusVersion, a string of digits",
    )?;
    let b = version(
        b,
        "the second argument of compareStatusVersions is not a status version: pass event.statusVersion, a string of digits",
    )?;
    Ok(match a.cmp(&b) {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    })
}

/// `apply`, `duplicate` or `stale`.
#[wasm_bindgen(js_name = rawDecideEvent)]
pub fn decide_event_export(
    incoming: &str,
    event_seen: bool,
    stored: Option<String>,
) -> JsResult<String> {
    let incoming = version(
        incoming,
        "incoming.statusVersion is not a status version: pass the event as verifyWebhook returns it (statusVersion a string of digits)",
    )?;
    let status_version = stored
        .as_deref()
        .map(|text| version(text, "stored.statusVersion is not a status version: store event.statusVersion as the exact string (never as a number) and pass it back"))
        .transpose()?;
    let stored = Stored {
        event_seen,
        status_version,
    };
    Ok(decide_event(&incoming, &stored).as_str().to_owned())
}

/// Throws `amount_raw_invalid` unless valid (`isValidAmountRaw` is built on it in JavaScript).
#[wasm_bindgen(js_name = rawValidateAmountRaw)]
pub fn validate_amount_raw(value: &str) -> JsResult<()> {
    js(cryptopay_verify::validate_amount_raw(value))
}

/// `decimals` was checked to be an integer by JavaScript; 0 to 77 is checked here.
fn decimals(value: f64) -> Result<u32, Error> {
    let d = uint(value, "decimals").map_err(|_| Error::new(ErrorKind::DecimalsInvalid))?;
    u32::try_from(d).map_err(|_| Error::new(ErrorKind::DecimalsInvalid))
}

/// A decimal to `amount_raw`.
#[wasm_bindgen(js_name = rawToAmountRaw)]
pub fn to_amount_raw(decimal: &str, decimals_value: f64) -> JsResult<String> {
    let d = js(decimals(decimals_value))?;
    js(cryptopay_verify::to_amount_raw(decimal, d))
}

/// `amount_raw` to a decimal.
#[wasm_bindgen(js_name = rawFromAmountRaw)]
pub fn from_amount_raw(raw: &str, decimals_value: f64) -> JsResult<String> {
    let d = js(decimals(decimals_value))?;
    js(cryptopay_verify::from_amount_raw(raw, d))
}

/// Checks a checkout origin.
#[wasm_bindgen(js_name = rawValidateCheckoutOrigin)]
pub fn validate_checkout_origin(value: &str, website_origin: Option<String>) -> JsResult<()> {
    js(cryptopay_verify::validate_checkout_origin(
        value,
        website_origin.as_deref(),
    ))
}

/// Checks a webhook URL.
#[wasm_bindgen(js_name = rawValidateWebhookUrl)]
pub fn validate_webhook_url(url: &str) -> JsResult<()> {
    js(cryptopay_verify::validate_webhook_url(url))
}

/// The Hosted Checkout address.
#[wasm_bindgen(js_name = rawHostedCheckoutUrl)]
pub fn hosted_checkout_url(checkout_origin: &str, payment_id: &str) -> JsResult<String> {
    js(cryptopay_verify::hosted_checkout_url(
        checkout_origin,
        payment_id,
    ))
}

/// Lowercase hex SHA-256 of the bytes.
#[wasm_bindgen(js_name = rawRequestFingerprint)]
pub fn request_fingerprint(body: &[u8]) -> String {
    cryptopay_verify::request_fingerprint(body)
}

/// Checks an Idempotency-Key.
#[wasm_bindgen(js_name = rawValidateIdempotencyKey)]
pub fn validate_idempotency_key(key: &str) -> JsResult<()> {
    js(cryptopay_verify::validate_idempotency_key(key))
}

/// `acknowledged`, `retry` or `permanent_failure`.
#[wasm_bindgen(js_name = rawClassifyDeliveryResponse)]
pub fn classify_delivery_response(status: f64) -> JsResult<String> {
    let status = js(uint(status, "an HTTP status is an integer from 100 to 599"))?;
    let status = u16::try_from(status).unwrap_or(u16::MAX);
    js(cryptopay_verify::classify_delivery_response(status).map(|c| c.as_str().to_owned()))
}
