//! Pricing for JavaScript: the objects arrive as `JSON.stringify` text and are read by the
//! core's `from_json` readers, which give the contract's codes; a built SourceAmount goes
//! back as an object.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use super::{JsResult, js};
use cryptopay_verify::{
    PrimarySource, SourceAmount, build_source_amount, validate_create_payment_json,
    validate_source_amount,
};

/// Builds a SourceAmount; returns it as the object the service takes (its wire names, a
/// field that is `None` left out).
#[wasm_bindgen(js_name = rawBuildSourceAmount)]
pub fn build_source_amount_export(primary_json: &str, amount: &str) -> JsResult<Object> {
    let primary = js(PrimarySource::from_json(primary_json))?;
    let built = js(build_source_amount(&primary, amount))?;
    let out = Object::new();
    let set = |name: &str, value: &str| {
        let _ = Reflect::set(&out, &JsValue::from_str(name), &JsValue::from_str(value));
    };
    set("kind", built.kind.as_str());
    if let Some(currency) = &built.currency {
        set("currency", currency);
    }
    if let Some(pricing_ref) = &built.pricing_ref {
        set("pricing_ref", pricing_ref);
    }
    set("amount_raw", &built.amount_raw);
    Ok(out)
}

/// Checks a SourceAmount given as JSON text (the store is checked first).
#[wasm_bindgen(js_name = rawValidateSourceAmount)]
pub fn validate_source_amount_export(source_json: &str, primary_json: &str) -> JsResult<()> {
    let primary = js(PrimarySource::from_json(primary_json))?;
    let source_amount = js(SourceAmount::from_json(source_json))?;
    js(validate_source_amount(&source_amount, &primary))
}

/// Checks a CreatePayment body given as JSON text (the store is checked first).
#[wasm_bindgen(js_name = rawValidateCreatePayment)]
pub fn validate_create_payment_export(
    body_json: &str,
    primary_json: &str,
    website_origin: Option<String>,
) -> JsResult<()> {
    let primary = js(PrimarySource::from_json(primary_json))?;
    js(validate_create_payment_json(body_json, &primary, website_origin.as_deref()).map(|_| ()))
}
