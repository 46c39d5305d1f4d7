//! `PaymentView::from_json` on untrusted response text, differentially against the reference
//! reader (`cryptopay_verify_fuzz::reference_json`, serde_json's `RawValue` level by level)
//! and the documented rules read from its tree; then `link_event` and `default_policy` on
//! what parses.
//!
//! No panic; only documented codes, in the documented order; a parsed view's fields are the
//! reference's, its `status_version` exactly the digits of the text (a string's, or a
//! number's token, at any size); `default_policy` answers as its documented table says;
//! `link_event` links an order built from the same view's fields (with or without an
//! integration), refuses no order with `payment_unknown` and each changed field with its
//! own mismatch.
//!
//! Each input is read twice:
//! - as it is, the response text (lossy UTF-8, as a host's string);
//! - as a view built from fields, one per line: a plan (byte `i` picks how field `i` is
//!   written, by its value mod 8: 0 left out, 1 a JSON string, 2 the raw text (a number, a
//!   literal, anything), 3 a string with key and value `\u`-escaped, 4 `null`, 5 the string
//!   twice (a repeated key), 6 an object holding the string, 7 the string after an unknown
//!   key with a nested value; byte 9 the `source_amount` object: 0 left out, 4 `null`, 6 in
//!   an array, else the object; byte 10 odd: whitespace around the separators), then
//!   `payment_id`, `order_ref`, `kind`, `currency`, `pricing_ref`, `amount_raw`, `status`,
//!   `status_version`, `amount_received_raw` (a field `*N:UNIT` is UNIT repeated N times),
//!   and the rest, when not empty, as the raw value of an unknown top-level key.
#![no_main]

use cryptopay_verify::{
    ErrorKind, FulfilmentAction, LinkMismatch, Order, PaymentView, SourceAmount, SourceKind,
    StatusVersion, default_policy, link_event,
};
use cryptopay_verify_fuzz::{
    Fields, RefValue, amount_raw_ok, checked, expand, reference_json, unsigned_digits,
};
use libfuzzer_sys::fuzz_target;

const VIEW_CODES: &[ErrorKind] = &[
    ErrorKind::InvalidArgument,
    ErrorKind::SourceAmountInvalid,
    ErrorKind::AmountRawInvalid,
    ErrorKind::StatusVersionInvalid,
];

/// The fields a view must have, by the documentation of `from_json`.
fn expected(top: &RefValue) -> Result<PaymentView, ErrorKind> {
    use ErrorKind::{AmountRawInvalid, InvalidArgument, SourceAmountInvalid, StatusVersionInvalid};
    let RefValue::Object(_) = top else {
        return Err(InvalidArgument);
    };
    let payment_id = match top.field("payment_id") {
        Some((RefValue::Str(id), _)) if !id.is_empty() => id.clone(),
        _ => return Err(InvalidArgument),
    };
    let order_ref = match top.field("order_ref") {
        None | Some((RefValue::Null, _)) => None,
        Some((RefValue::Str(r), _)) => Some(r.clone()),
        Some(_) => return Err(InvalidArgument),
    };
    let Some((sa, _)) = top.field("source_amount") else {
        return Err(InvalidArgument);
    };
    let RefValue::Object(_) = sa else {
        return Err(SourceAmountInvalid);
    };
    let kind = match sa.field("kind") {
        Some((RefValue::Str(k), _)) if k == "fiat" => SourceKind::Fiat,
        Some((RefValue::Str(k), _)) if k == "crypto" => SourceKind::Crypto,
        _ => return Err(SourceAmountInvalid),
    };
    let amount_raw = match sa.field("amount_raw") {
        None => return Err(SourceAmountInvalid),
        Some((RefValue::Str(a), _)) => a.clone(),
        Some(_) => return Err(AmountRawInvalid),
    };
    // In a view, `null` reads as absent (the field a kind does not use, written null).
    let text = |name| match sa.field(name) {
        None | Some((RefValue::Null, _)) => Ok(None),
        Some((RefValue::Str(s), _)) => Ok(Some(s.clone())),
        Some(_) => Err(SourceAmountInvalid),
    };
    let mut source_amount = SourceAmount::fiat("", "");
    source_amount.kind = kind;
    source_amount.currency = text("currency")?;
    source_amount.pricing_ref = text("pricing_ref")?;
    if !amount_raw_ok(&amount_raw) {
        return Err(AmountRawInvalid);
    }
    source_amount.amount_raw = amount_raw;
    let status = match top.field("status") {
        Some((RefValue::Str(s), _)) => s.clone(),
        _ => return Err(InvalidArgument),
    };
    let digits = match top.field("status_version") {
        None => return Err(InvalidArgument),
        Some((RefValue::Str(s), _)) if unsigned_digits(s) => s,
        Some((RefValue::Num(n), _)) if unsigned_digits(n) => n,
        Some(_) => return Err(StatusVersionInvalid),
    };
    let version = StatusVersion::parse(digits).expect("digits parse");
    let mut view = PaymentView::new(payment_id, source_amount, status, version);
    view.order_ref = order_ref;
    view.amount_received_raw = match top.field("amount_received_raw") {
        None | Some((RefValue::Null, _)) => None,
        Some((RefValue::Str(r), _)) if unsigned_digits(r) => Some(r.clone()),
        Some(_) => return Err(AmountRawInvalid),
    };
    Ok(view)
}

/// `default_policy`'s documented table.
fn policy(view: &PaymentView) -> FulfilmentAction {
    match view.status.as_str() {
        "paid" => match &view.amount_received_raw {
            Some(r) if *r != view.source_amount.amount_raw => FulfilmentAction::Review,
            _ => FulfilmentAction::Fulfil,
        },
        "open" | "confirming" => FulfilmentAction::Wait,
        "expired" | "cancelled" => FulfilmentAction::Closed,
        _ => FulfilmentAction::Review,
    }
}

/// `link_event` on orders built from the view's own fields.
fn check_links(view: &PaymentView) {
    let order = || {
        let mut order = Order::new(view.payment_id.clone(), view.source_amount.clone());
        order.order_ref = view.order_ref.clone();
        order
    };
    assert_eq!(link_event(Some(&order()), view, None), Ok(()));
    let shop = order().with_integration("shop");
    assert_eq!(link_event(Some(&shop), view, Some("shop")), Ok(()));
    assert_eq!(
        link_event(None, view, None),
        Err(LinkMismatch::PaymentUnknown)
    );
    assert_eq!(
        link_event(Some(&shop), view, None),
        Err(LinkMismatch::IntegrationMismatch)
    );
    assert_eq!(
        link_event(Some(&order()), view, Some("shop")),
        Err(LinkMismatch::IntegrationMismatch)
    );
    let mut other = order();
    other.payment_id.push('x');
    assert_eq!(
        link_event(Some(&other), view, None),
        Err(LinkMismatch::PaymentIdMismatch)
    );
    let mut other = order();
    other.order_ref = match &view.order_ref {
        None => Some(String::new()),
        Some(_) => None,
    };
    assert_eq!(
        link_event(Some(&other), view, None),
        Err(LinkMismatch::OrderRefMismatch)
    );
    let mut other = order();
    other.source_amount.amount_raw.push('0');
    assert_eq!(
        link_event(Some(&other), view, None),
        Err(LinkMismatch::SourceAmountMismatch)
    );
    let mut other = order();
    other.source_amount.kind = match view.source_amount.kind {
        SourceKind::Fiat => SourceKind::Crypto,
        _ => SourceKind::Fiat,
    };
    assert_eq!(
        link_event(Some(&other), view, None),
        Err(LinkMismatch::SourceAmountMismatch)
    );
}

fn check(text: &str) {
    let parsed = checked(PaymentView::from_json(text), VIEW_CODES);
    let reference = reference_json(text.as_bytes());
    let want = match &reference {
        Err(_) => Err(ErrorKind::InvalidArgument),
        Ok(top) => expected(top),
    };
    assert_eq!(
        parsed.as_ref().map_err(|e| e.kind()),
        want.as_ref().map_err(|k| *k),
        "from_json and the reference disagree"
    );
    let (Ok(view), Ok(top)) = (parsed, reference) else {
        return;
    };
    // The exact digits of the text, a string's or a number's token.
    let digits = match top.field("status_version") {
        Some((RefValue::Str(s), _)) => s.clone(),
        Some((RefValue::Num(_), raw)) => raw.to_owned(),
        other => panic!("status_version: {other:?}"),
    };
    assert_eq!(view.status_version.as_str(), digits);
    assert_eq!(default_policy(&view), policy(&view));
    check_links(&view);
}

/// A JSON string whose every character is a `\u` escape (surrogate pairs past the BMP).
fn escaped(text: &str) -> String {
    let mut out = String::from("\"");
    let mut units = [0u16; 2];
    for c in text.chars() {
        for unit in c.encode_utf16(&mut units) {
            out.push_str(&format!("\\u{unit:04x}"));
        }
    }
    out.push('"');
    out
}

fn string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// The members of an object being written.
struct Object {
    members: Vec<String>,
    spaced: bool,
}

impl Object {
    fn raw(&mut self, key: &str, value: &str) {
        let sep = if self.spaced { " :\n\t" } else { ":" };
        self.members.push(format!("{}{sep}{value}", string(key)));
    }

    fn member(&mut self, key: &str, text: &str, mode: u8) {
        match mode % 8 {
            0 => {}
            1 => self.raw(key, &string(text)),
            2 => self.raw(key, text),
            3 => {
                let sep = if self.spaced { " : " } else { ":" };
                self.members
                    .push(format!("{}{sep}{}", escaped(key), escaped(text)));
            }
            4 => self.raw(key, "null"),
            5 => {
                self.raw(key, &string(text));
                self.raw(key, &string(text));
            }
            6 => self.raw(key, &format!("{{\"v\":{}}}", string(text))),
            _ => {
                self.raw(
                    &format!("{key}_"),
                    r#"{"a":[1,-2.5e3,{"b":null}],"c":"\u00e9"}"#,
                );
                self.raw(key, &string(text));
            }
        }
    }

    fn close(self) -> String {
        let sep = if self.spaced { " ,\r\n " } else { "," };
        format!("{{{}}}", self.members.join(sep))
    }
}

fn structured(data: &[u8]) -> String {
    let mut fields = Fields::new(data);
    let plan = fields.line();
    let values: Vec<String> = (0..9).map(|_| expand(fields.line())).collect();
    let extra = String::from_utf8_lossy(fields.rest()).into_owned();
    let mode = |i: usize| plan.get(i).copied().unwrap_or(b'1');
    let value = |i: usize| values.get(i).map_or("", String::as_str);
    let spaced = mode(10) % 2 == 1;
    let mut source = Object {
        members: Vec::new(),
        spaced,
    };
    for (i, key) in ["kind", "currency", "pricing_ref", "amount_raw"]
        .iter()
        .enumerate()
    {
        source.member(key, value(i + 2), mode(i + 2));
    }
    let mut top = Object {
        members: Vec::new(),
        spaced,
    };
    top.member("payment_id", value(0), mode(0));
    top.member("order_ref", value(1), mode(1));
    match mode(9) % 8 {
        0 => {}
        4 => top.raw("source_amount", "null"),
        6 => top.raw("source_amount", &format!("[{}]", source.close())),
        _ => top.raw("source_amount", &source.close()),
    }
    top.member("status", value(6), mode(6));
    top.member("status_version", value(7), mode(7));
    top.member("amount_received_raw", value(8), mode(8));
    if !extra.is_empty() {
        top.raw("checkout_url", &extra);
    }
    top.close()
}

fuzz_target!(|data: &[u8]| {
    check(&String::from_utf8_lossy(data));
    check(&structured(data));
});
