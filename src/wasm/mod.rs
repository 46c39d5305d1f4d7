//! The wasm-bindgen layer: the only Rust code that names `wasm_bindgen` or `js_sys`.
//!
//! These exports are the package's internal interface. The public JavaScript API
//! (`pkg-templates/src/api.mjs`) checks JavaScript types, turns bodies and header
//! containers into bytes and strings, and calls these with plain values. Each export
//! converts, calls the core and maps the error to the package's `CryptoPayError` (its
//! message worded for JavaScript by [`messages`]), except the verifying ones, which are on
//! every request's path: JavaScript writes the delivery into one reused input area
//! (`inputArea`) and they answer with a number, a failure as the index of its kind, so that
//! no allocation, string conversion or error construction happens here for a delivery. None
//! can panic (the crate denies unwrap, expect, panic, indexing and unchecked arithmetic).
//!
//! Secrets cross as owned strings and are moved into [`Secret`](crate::Secret)s, never
//! copied, so the only copy in wasm memory is the one wiped on drop.

// Exports must be `pub` for wasm-bindgen even though the module is private.
#![allow(unreachable_pub)]

mod event;
mod messages;
mod pricing;
mod values;
mod verify;

use js_sys::{Array, Function, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorKind, err};

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

/// The general message of a code, for failures detected in JavaScript; `undefined` if unknown.
#[wasm_bindgen(js_name = codeMessage)]
pub fn code_message(code: &str) -> Option<String> {
    ErrorKind::from_code(code).map(messages::general)
}

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
