//! The event for JavaScript: the envelope's checks, and the body as JSON text that
//! `JSON.parse` reads without changing a number (those a double cannot hold become strings).

use wasm_bindgen::prelude::*;

use super::{JsResult, js};
use cryptopay_verify::doubles::{check_event as check, lossy_number_spans};

/// Checks a verified body as an event: whether JavaScript must take it from [`event_text`]
/// (some number would change as a JavaScript `number`).
pub(super) fn check_event(body: &[u8]) -> Result<bool, cryptopay_verify::Error> {
    check(body).map(|checked| checked.has_lossy_numbers())
}

/// The verified event as JSON text in which every number a double cannot keep is a string
/// of its exact digits: the body itself, those numbers quoted.
#[wasm_bindgen(js_name = eventText)]
pub fn event_text(body: &[u8]) -> JsResult<String> {
    let spans = js(lossy_number_spans(body))?;
    // JSON that serde_json accepted is UTF-8 throughout.
    let text = String::from_utf8_lossy(body);
    let mut out = String::with_capacity(text.len().saturating_add(spans.len().saturating_mul(2)));
    let mut at = 0;
    for span in spans {
        out.push_str(text.get(at..span.start).unwrap_or_default());
        out.push('"');
        out.push_str(text.get(span.clone()).unwrap_or_default());
        out.push('"');
        at = span.end;
    }
    out.push_str(text.get(at..).unwrap_or_default());
    Ok(out)
}

/// Checks a verified body as an event (see `parseEvent`): 1 when [`event_text`] is needed.
#[wasm_bindgen(js_name = checkEvent)]
pub fn check_event_export(body: &[u8]) -> JsResult<u8> {
    js(check_event(body).map(u8::from))
}
