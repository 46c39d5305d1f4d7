//! Pricing for JavaScript: the objects arrive as `JSON.stringify` text and are read by the
//! core's `from_json` readers, which give the contract's codes.

use wasm_bindgen::prelude::*;

use super::{JsResult, js};
use crate::error::{Error, ErrorKind};
use crate::pricing::{
    PrimarySource, SourceAmount, build_source_amount, validate_create_payment_json,
    validate_source_amount,
};

/// Builds a SourceAmount; returns it as JSON text.
#[wasm_bindgen(js_name = buildSourceAmount)]
pub fn build_source_amount_export(primary_json: &str, amount: &str) -> JsResult<String> {
    let primary = js(PrimarySource::from_json(primary_json))?;
    let built = js(build_source_amount(&primary, amount))?;
    js(serde_json::to_string(&built).map_err(|_| Error::new(ErrorKind::SourceAmountInvalid)))
}

/// Checks a SourceAmount given as JSON text (the store is checked first).
#[wasm_bindgen(js_name = validateSourceAmount)]
pub fn validate_source_amount_export(source_json: &str, primary_json: &str) -> JsResult<()> {
    let primary = js(PrimarySource::from_json(primary_json))?;
    let source_amount = js(SourceAmount::from_json(source_json))?;
    js(validate_source_amount(&source_amount, &primary))
}

/// Checks a CreatePayment body given as JSON text (the store is checked first).
#[wasm_bindgen(js_name = validateCreatePayment)]
pub fn validate_create_payment_export(
    body_json: &str,
    primary_json: &str,
    website_origin: Option<String>,
) -> JsResult<()> {
    let primary = js(PrimarySource::from_json(primary_json))?;
    js(validate_create_payment_json(body_json, &primary, website_origin.as_deref()).map(|_| ()))
}
