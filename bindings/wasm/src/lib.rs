//! The npm package's wasm-bindgen binding of the `cryptopay-verify` core: the only Rust code
//! that names `wasm_bindgen` or `js_sys`.
//!
//! These exports are the package's internal interface. The public JavaScript API
//! (`npm/src/api/`) checks JavaScript types and containers, turns bodies and
//! header containers into bytes and strings, and calls these with plain values that
//! wasm-bindgen marshals (`&[u8]`, `&str`, numbers). Limits, rules and messages are the
//! core's: [`constants`] and [`error_message`] hand them to JavaScript. Each export converts,
//! calls the core and maps the error to the package's `CryptoPayError` (the core's remedy,
//! `ErrorKind::help`, worded for JavaScript by `messages`), except `RawVerifier.verify`, on every request's path,
//! which answers a small integer (a failure as the index of its kind) so that no error object
//! is built here for a delivery. None can panic (the crate denies unwrap, expect, panic,
//! indexing and unchecked arithmetic).
//!
//! An export that the public API wraps under the same name is named with `raw` in JavaScript
//! (`rawSignWebhook` under `signWebhook`): a bundler that puts the glue and the API in one
//! scope would otherwise rename one of the two (`signWebhook2`), and users would see that
//! name in stack traces and in `util.inspect`.
//!
//! Secrets cross as owned strings and are moved into [`Secret`](cryptopay_verify::Secret)s, never
//! copied here, and are wiped on drop. The glue writes a string into wasm memory in one block
//! when it is ASCII (a signing Secret is); one with a character outside ASCII may be moved by a
//! `realloc` while it is written, which leaves its ASCII prefix in the freed block, unwiped.

// wasm-bindgen's generated glue holds its own `unsafe`, from its macros, which the lint leaves
// to that crate; this crate's own code may write none.
#![forbid(unsafe_code)]
// Its `pub` items are exports of the .wasm, called from JavaScript (which reads every
// result), not Rust API: rustc cannot see either, so neither lint applies.
#![allow(unreachable_pub, clippy::must_use_candidate)]

mod event;
mod fulfilment;
mod messages;
mod pricing;
mod values;
mod verify;

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use cryptopay_verify::{Error, ErrorKind};

thread_local! {
    static ERROR_CLASS: core::cell::OnceCell<Function> = const { core::cell::OnceCell::new() };
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
    let text = messages::message(&error);
    let message = JsValue::from_str(&text);
    let constructed = ERROR_CLASS.with(|cell| {
        cell.get()
            .and_then(|class| Reflect::construct(class, &Array::of2(&code, &message)).ok())
    });
    constructed.unwrap_or_else(|| {
        let plain = js_sys::Error::new(&text);
        let _ = Reflect::set(&plain, &JsValue::from_str("code"), &code);
        plain.into()
    })
}

type JsResult<T> = Result<T, JsValue>;

fn js<T>(result: Result<T, Error>) -> JsResult<T> {
    result.map_err(to_js)
}

/// The whole message of a failure JavaScript detected (a value of the wrong JavaScript type,
/// a body that is not raw...): `code: detail; general`, as the core writes its own; the
/// detail is JavaScript's, already in JavaScript's names. An unknown code is
/// `invalid_argument`'s message.
#[wasm_bindgen(js_name = errorMessage)]
pub fn error_message(code: &str, detail: Option<String>) -> String {
    let kind = ErrorKind::from_code(code).unwrap_or(ErrorKind::InvalidArgument);
    messages::compose(kind, detail.as_deref())
}

/// Every error code, in the contract's order (the order `RawVerifier.verify` numbers them),
/// separated by commas (JavaScript splits them: one string crosses, not one per code).
#[wasm_bindgen(js_name = rawErrorCodes)]
pub fn error_codes() -> String {
    ErrorKind::ALL
        .iter()
        .map(|k| k.code())
        .collect::<Vec<_>>()
        .join(",")
}

/// The codes of failures about the event of a delivery whose signature verified
/// (`ErrorKind::is_event_error`), separated by commas: `CryptoPayError#authentic`.
#[wasm_bindgen(js_name = rawEventErrorCodes)]
pub fn event_error_codes() -> String {
    ErrorKind::ALL
        .iter()
        .filter(|k| k.is_event_error())
        .map(|k| k.code())
        .collect::<Vec<_>>()
        .join(",")
}

/// The core's limits JavaScript needs before it calls in (one source of truth), in this
/// order: `defaultMaxBodyBytes, maxMaxBodyBytes, maxSecrets, maxHeaderValueBytes,
/// outcomeInexact, outcomeAscii` (api/instance.mjs names them). Numbers cross as one array: no formatting
/// code runs, and nothing is built field by field across the boundary.
#[wasm_bindgen]
#[allow(clippy::cast_precision_loss)] // each is far below 2^53
pub fn constants() -> Vec<f64> {
    vec![
        cryptopay_verify::DEFAULT_MAX_BODY_BYTES as f64,
        cryptopay_verify::MAX_MAX_BODY_BYTES as f64,
        cryptopay_verify::MAX_SECRETS as f64,
        cryptopay_verify::MAX_SIGNATURE_HEADER_BYTES as f64,
        f64::from(event::EVENT_INEXACT),
        f64::from(event::EVENT_ASCII),
    ]
}

/// The secret kinds in the order `RawVerifier.verify` numbers them, separated by commas.
#[wasm_bindgen(js_name = secretKinds)]
pub fn secret_kinds() -> String {
    cryptopay_verify::SecretKind::ALL
        .iter()
        .map(|kind| kind.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// A non-negative integer the JavaScript layer already checked, as `u64`.
fn uint(value: f64, name: &'static str) -> Result<u64, Error> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    if (0.0..=MAX_SAFE).contains(&value) && value.fract() == 0.0 {
        // In range and integral: the conversion is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(value as u64)
    } else {
        Err(Error::with_detail(ErrorKind::InvalidArgument, name))
    }
}
