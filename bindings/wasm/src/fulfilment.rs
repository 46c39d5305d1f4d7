//! Fulfilment for JavaScript: the authoritative view crosses as the exact text of
//! `GET /v1/payments/{payment_id}`'s answer (never re-serialized), the merchant's order as
//! plain values with its `source_amount` as JSON text, read strictly. Answers are strings.

use wasm_bindgen::prelude::*;

use super::{JsResult, js};
use cryptopay_verify::doubles::lossy_number_spans;
use cryptopay_verify::{Order, PaymentView, SourceAmount, default_policy, link_event, parse_event};

/// The view's text with every number a double cannot keep quoted as its exact digits, once
/// the core has read the view (so an invalid view throws its code first).
#[wasm_bindgen(js_name = rawPaymentViewText)]
pub fn payment_view_text(view_text: &str) -> JsResult<String> {
    js(PaymentView::from_json(view_text))?;
    let spans = js(lossy_number_spans(view_text.as_bytes()))?;
    let mut out = String::with_capacity(
        view_text
            .len()
            .saturating_add(spans.len().saturating_mul(2)),
    );
    let mut at = 0;
    for span in spans {
        out.push_str(view_text.get(at..span.start).unwrap_or_default());
        out.push('"');
        out.push_str(view_text.get(span.clone()).unwrap_or_default());
        out.push('"');
        at = span.end;
    }
    out.push_str(view_text.get(at..).unwrap_or_default());
    Ok(out)
}

/// `fulfil`, `review`, `wait` or `closed`: the core's default policy for the view.
#[wasm_bindgen(js_name = rawDefaultPolicy)]
pub fn default_policy_export(view_text: &str) -> JsResult<String> {
    let view = js(PaymentView::from_json(view_text))?;
    Ok(default_policy(&view).as_str().to_owned())
}

/// Links the view to the order: `""` when linked, else the mismatch as `code: message`.
/// The view is read first, then the order (`has_order` false: no order was stored).
#[wasm_bindgen(js_name = rawLinkEvent)]
pub fn link_event_export(
    view_text: &str,
    has_order: bool,
    payment_id: &str,
    order_ref: Option<String>,
    source_amount_json: &str,
    order_integration: Option<String>,
    event_integration: Option<String>,
) -> JsResult<String> {
    let view = js(PaymentView::from_json(view_text))?;
    let order = if has_order {
        let mut order = Order::new(payment_id, js(SourceAmount::from_json(source_amount_json))?);
        order.order_ref = order_ref;
        order.integration = order_integration;
        Some(order)
    } else {
        None
    };
    Ok(
        match link_event(order.as_ref(), &view, event_integration.as_deref()) {
            Ok(()) => String::new(),
            Err(mismatch) => mismatch.to_string(),
        },
    )
}

/// The `data` object of a verified event, as the exact JSON text received (its bytes as they
/// arrived: `128.10` stays `128.10`).
#[wasm_bindgen(js_name = rawDataText)]
pub fn data_text(body: &[u8]) -> JsResult<String> {
    let event = js(parse_event(body))?;
    Ok(event.data_json().to_owned())
}
