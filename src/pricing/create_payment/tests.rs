//! The unit tests of `create_payment`.

use super::*;
use crate::pricing::SourceKind;

fn code(json: &str) -> Option<&'static str> {
    let store = PrimarySource::new(SourceKind::Fiat, "USD", 2).unwrap();
    validate_create_payment_json(json, &store, Some("https://shop.example"))
        .err()
        .map(Error::code)
}

const FIAT: &str = r#"{"kind":"fiat","currency":"USD","amount_raw":"12800"}"#;

#[test]
fn a_typed_body_is_checked_as_the_json_one() {
    let store = PrimarySource::new(SourceKind::Fiat, "USD", 2).unwrap();
    let body = |currency: &str, origin: Option<&str>| CreatePayment {
        source_amount: SourceAmount::fiat(currency, "12800"),
        order_ref: None,
        checkout_origin: origin.map(str::to_owned),
    };
    let code = |payment: &CreatePayment| {
        validate_create_payment(payment, &store, Some("https://shop.example"))
            .err()
            .map(Error::code)
    };
    assert_eq!(code(&body("USD", None)), None);
    assert_eq!(code(&body("USD", Some("https://shop.example"))), None);
    assert_eq!(code(&body("EUR", None)), Some("source_currency_mismatch"));
    assert_eq!(
        code(&body("USD", Some("https://evil.example"))),
        Some("origin_not_permitted")
    );
}

#[test]
fn order_of_checks() {
    assert_eq!(code("[]"), Some("create_payment_invalid"));
    assert_eq!(code("{"), Some("create_payment_invalid"));
    assert_eq!(code(r#"{"order_ref":"a"}"#), Some("create_payment_invalid"));
    assert_eq!(
        code(r#"{"source_amount":"12800","orderRef":"x"}"#),
        Some("create_payment_invalid")
    );
    assert_eq!(
        code(r#"{"source_amount":"12800"}"#),
        Some("source_amount_invalid")
    );
    // source_amount (against the store) before order_ref, order_ref before the origin.
    let usd_lower = FIAT.replace("USD", "usd");
    assert_eq!(
        code(&format!(r#"{{"source_amount":{usd_lower},"order_ref":1}}"#)),
        Some("source_currency_mismatch")
    );
    assert_eq!(
        code(&format!(
            r#"{{"source_amount":{FIAT},"order_ref":1,"checkout_origin":"http://x.example"}}"#
        )),
        Some("create_payment_invalid")
    );
    assert_eq!(
        code(&format!(
            r#"{{"source_amount":{FIAT},"checkout_origin":7}}"#
        )),
        Some("origin_invalid")
    );
    assert_eq!(
        code(&format!(
            r#"{{"source_amount":{FIAT},"checkout_origin":"https://evil.example"}}"#
        )),
        Some("origin_not_permitted")
    );
    assert_eq!(
        code(&format!(
            r#"{{"source_amount":{FIAT},"checkout_origin":"https://shop.example","order_ref":"o"}}"#
        )),
        None
    );
}

#[test]
fn typed_and_text_forms_agree() {
    let store = PrimarySource::new(SourceKind::Fiat, "USD", 2).unwrap();
    let json = format!(r#"{{"source_amount":{FIAT},"order_ref":"o-1"}}"#);
    let read = validate_create_payment_json(&json, &store, None).unwrap();
    assert_eq!(
        read,
        CreatePayment::new(SourceAmount::fiat("USD", "12800")).with_order_ref("o-1")
    );
    assert_eq!(serde_json::from_str::<CreatePayment>(&json).unwrap(), read);
    assert_eq!(validate_create_payment(&read, &store, None), Ok(()));
    assert_eq!(serde_json::to_string(&read).unwrap(), json);
}
