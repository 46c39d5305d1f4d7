//! The runners of fulfilment (`tests/vectors/fulfilment.json`): linking an event to its
//! order by the authoritative view, and the default policy.

use cryptopay_verify::*;
use serde_json::{Value, json};

use super::Answer;

/// An optional string field of the merchant's record (absent or `null`: none).
fn optional(record: &Value, key: &str) -> Option<String> {
    match record.get(key) {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_str().expect("a string").to_owned()),
    }
}

/// The merchant's stored order: `{paymentId, orderRef?, sourceAmount, integration?}`, its
/// `sourceAmount` read as a body sent to the service (strict).
fn read_order(record: &Value) -> Result<Order, Error> {
    let payment_id = record["paymentId"].as_str().expect("paymentId");
    let source_amount = serde_json::to_string(&record["sourceAmount"]).expect("serializes");
    let mut order = Order::new(payment_id, SourceAmount::from_json(&source_amount)?);
    order.order_ref = optional(record, "orderRef");
    order.integration = optional(record, "integration");
    Ok(order)
}

fn view(case: &Value) -> Result<PaymentView, Error> {
    PaymentView::from_json(case["viewJson"].as_str().expect("viewJson"))
}

fn link(case: &Value) -> Answer {
    let view = view(case)?;
    let order = match case.get("order") {
        None | Some(Value::Null) => None,
        Some(record) => Some(read_order(record)?),
    };
    let integration = optional(case, "eventIntegration");
    link_event(order.as_ref(), &view, integration.as_deref())?;
    Ok(json!({}))
}

/// Runs one case of the fulfilment functions; `None` for another function.
pub(crate) fn run(function: &str, case: &Value) -> Option<Answer> {
    Some(match function {
        "defaultPolicy" => view(case)
            .map(|view| json!({ "action": default_policy(&view).as_str() }))
            .map_err(Into::into),
        "linkEvent" => link(case),
        _ => return None,
    })
}
