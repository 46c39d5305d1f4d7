//! The event for JavaScript: the envelope's checks, and the body as JSON text that
//! `JSON.parse` reads without changing a number (those a double cannot hold become strings).

use wasm_bindgen::prelude::*;

use super::{JsResult, js};
use cryptopay_verify::doubles::{check_event as check, lossy_number_spans};

/// Set in what [`event_flags`] answers when the body holds a number a double cannot keep:
/// JavaScript then takes the event from [`event_text`], not from `JSON.parse` of the body.
/// A multiple of 4, so that it adds to a secret kind's index (0 to 2) without overlap.
pub(super) const EVENT_INEXACT: u8 = 4;

/// Set in what [`event_flags`] answers when every byte of the body is ASCII: JavaScript may
/// then decode it one byte per character (Latin-1), which Node, Bun and Deno do faster than
/// UTF-8, for the same text.
pub(super) const EVENT_ASCII: u8 = 8;

/// Checks a verified body as an event: [`EVENT_INEXACT`] and [`EVENT_ASCII`] as they apply.
pub(super) fn event_flags(body: &[u8]) -> Result<u8, cryptopay_verify::Error> {
    check(body).map(|checked| {
        let inexact = if checked.has_lossy_numbers() {
            EVENT_INEXACT
        } else {
            0
        };
        let ascii = if checked.is_ascii() { EVENT_ASCII } else { 0 };
        inexact | ascii
    })
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

/// Checks a verified body as an event (see `parseEvent`): its [`event_flags`].
#[wasm_bindgen(js_name = checkEvent)]
pub fn check_event_export(body: &[u8]) -> JsResult<u8> {
    js(event_flags(body))
}
