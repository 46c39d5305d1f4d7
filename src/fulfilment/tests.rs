use super::*;
use crate::error::{Error, ErrorKind};
use crate::pricing::SourceAmount;
use crate::service::{ApiError, PaymentStatus};
use crate::status::StatusVersion;

const SOURCE: &str = r#"{"kind":"fiat","currency":"USD","amount_raw":"12800"}"#;

fn view_json(fields: &[(&str, &str)]) -> String {
    let mut all: Vec<(&str, &str)> = vec![
        ("payment_id", r#""pay_1""#),
        ("order_ref", r#""order-42""#),
        ("source_amount", SOURCE),
        ("status", r#""paid""#),
        ("status_version", "3"),
        ("amount_received_raw", r#""12800""#),
    ];
    for (key, value) in fields {
        all.retain(|(k, _)| k != key);
        if !value.is_empty() {
            all.push((key, value));
        }
    }
    let members: Vec<String> = all.iter().map(|(k, v)| format!(r#""{k}":{v}"#)).collect();
    format!("{{{}}}", members.join(","))
}

/// The view with these fields replaced (an empty value removes the field).
fn read(fields: &[(&str, &str)]) -> Result<PaymentView, &'static str> {
    PaymentView::from_json(&view_json(fields)).map_err(Error::code)
}

fn view(status: &str) -> PaymentView {
    PaymentView::new(
        "pay_1",
        SourceAmount::fiat("USD", "12800"),
        status,
        StatusVersion::from(3_u64),
    )
}

fn order() -> Order {
    Order::new("pay_1", SourceAmount::fiat("USD", "12800"))
}

#[test]
fn views_read_their_fields() {
    let full = read(&[]).unwrap();
    assert_eq!(
        full,
        view("paid")
            .with_order_ref("order-42")
            .with_amount_received_raw("12800")
    );
    // Only the required fields.
    let bare = read(&[("order_ref", ""), ("amount_received_raw", "")]).unwrap();
    assert_eq!(bare, view("paid"));
    // Unknown keys, at the top and in source_amount, are tolerated.
    let grown = read(&[
        ("checkout_url", r#""https://pay.example/c/1""#),
        (
            "source_amount",
            r#"{"kind":"fiat","currency":"USD","amount_raw":"12800","decimals":2}"#,
        ),
        ("metadata", r#"{"a":[1e400,null]}"#),
    ]);
    assert_eq!(
        grown.unwrap().source_amount,
        SourceAmount::fiat("USD", "12800")
    );
    // Any status is read as written.
    assert_eq!(
        read(&[("status", r#""refunded""#)]).unwrap().status,
        "refunded"
    );
    assert_eq!(read(&[("status", r#""""#)]).unwrap().status, "");
}

#[test]
fn status_versions_are_exact() {
    let version = |text: &str| read(&[("status_version", text)]).map(|v| v.status_version);
    let big = "340282366920938463463374607431768211457"; // 2^128 + 1
    assert_eq!(version(big), Ok(StatusVersion::parse(big).unwrap()));
    assert_eq!(
        version(&format!(r#""{big}""#)),
        Ok(StatusVersion::parse(big).unwrap())
    );
    assert_eq!(version("0"), Ok(StatusVersion::from(0_u64)));
    for bad in [
        "1.0", "1e3", "-1", r#""01""#, r#""1.0""#, r#""""#, "null", "true", "[1]", "{}",
    ] {
        assert_eq!(version(bad), Err("status_version_invalid"), "{bad}");
    }
    assert_eq!(version(""), Err("invalid_argument"));
}

#[test]
fn views_refuse_in_order() {
    assert_eq!(
        PaymentView::from_json("[]").map_err(Error::code),
        Err("invalid_argument")
    );
    assert_eq!(
        PaymentView::from_json("{").map_err(Error::code),
        Err("invalid_argument")
    );
    // A view is the service's answer, not the caller's value: the message says which.
    let shown = PaymentView::from_json("{").unwrap_err().to_string();
    assert!(
        shown.contains("the payment view: it is not JSON")
            && shown.contains("pass the body of GET /v1/payments/{payment_id} as received"),
        "{shown}"
    );
    let twice = view_json(&[]).replacen('{', r#"{"status":"open","#, 1);
    assert_eq!(
        PaymentView::from_json(&twice).map_err(Error::code),
        Err("invalid_argument")
    );
    for (fields, code) in [
        (vec![("payment_id", "")], "invalid_argument"),
        (vec![("payment_id", r#""""#)], "invalid_argument"),
        (vec![("payment_id", "1")], "invalid_argument"),
        (vec![("order_ref", "42")], "invalid_argument"),
        (vec![("source_amount", "")], "invalid_argument"),
        (
            vec![("source_amount", r#""12800""#)],
            "source_amount_invalid",
        ),
        (
            vec![(
                "source_amount",
                r#"{"kind":"fiat","currency":7,"amount_raw":"1"}"#,
            )],
            "source_amount_invalid",
        ),
        (
            vec![(
                "source_amount",
                r#"{"kind":"fiat","currency":"USD","amount_raw":12800}"#,
            )],
            "amount_raw_invalid",
        ),
        (
            vec![(
                "source_amount",
                r#"{"kind":"fiat","currency":"USD","amount_raw":"0"}"#,
            )],
            "amount_raw_invalid",
        ),
        (vec![("status", "")], "invalid_argument"),
        (vec![("status", "null")], "invalid_argument"),
        (vec![("amount_received_raw", "12800")], "amount_raw_invalid"),
        (
            vec![("amount_received_raw", r#""012800""#)],
            "amount_raw_invalid",
        ),
        // The first failure in the order of checks wins.
        (
            vec![("payment_id", ""), ("status_version", "1.0")],
            "invalid_argument",
        ),
        (
            vec![("status_version", "1.0"), ("amount_received_raw", "1")],
            "status_version_invalid",
        ),
    ] {
        assert_eq!(read(&fields).map(|_| ()), Err(code), "{fields:?}");
    }
    // A null optional field reads as absent: a view that writes null is never stuck.
    let nulls = read(&[("amount_received_raw", "null"), ("order_ref", "null")]).unwrap();
    assert_eq!((nulls.amount_received_raw, nulls.order_ref), (None, None));
    // In source_amount too: the field its kind does not use, written null.
    let fiat = read(&[(
        "source_amount",
        r#"{"kind":"fiat","currency":"USD","pricing_ref":null,"amount_raw":"1"}"#,
    )])
    .unwrap();
    assert_eq!(fiat.source_amount, SourceAmount::fiat("USD", "1"));
    assert_eq!(
        read(&[("amount_received_raw", r#""0""#)])
            .unwrap()
            .amount_received_raw
            .as_deref(),
        Some("0")
    );
}

#[test]
fn links_compare_every_field_exactly() {
    let code = |order: Option<&Order>, view: &PaymentView, integration: Option<&str>| {
        link_event(order, view, integration).map_err(LinkMismatch::code)
    };
    let paid = view("paid");
    assert_eq!(code(Some(&order()), &paid, None), Ok(()));
    assert_eq!(code(None, &paid, None), Err("payment_unknown"));
    let other_id = Order::new("pay_2", SourceAmount::fiat("USD", "12800"));
    assert_eq!(
        code(Some(&other_id), &paid, None),
        Err("payment_id_mismatch")
    );
    // order_ref: both absent is equal; absent against present differs; exact.
    let with_ref = order().with_order_ref("order-42");
    assert_eq!(
        code(Some(&with_ref), &paid, None),
        Err("order_ref_mismatch")
    );
    assert_eq!(
        code(
            Some(&order()),
            &paid.clone().with_order_ref("order-42"),
            None
        ),
        Err("order_ref_mismatch")
    );
    assert_eq!(
        code(
            Some(&with_ref),
            &paid.clone().with_order_ref("Order-42"),
            None
        ),
        Err("order_ref_mismatch")
    );
    assert_eq!(
        code(
            Some(&with_ref),
            &paid.clone().with_order_ref("order-42"),
            None
        ),
        Ok(())
    );
    // source_amount: every field.
    for other in [
        SourceAmount::fiat("USD", "12801"),
        SourceAmount::fiat("usd", "12800"),
        SourceAmount::fiat("EUR", "12800"),
        SourceAmount::crypto("USD", "12800"),
        SourceAmount {
            pricing_ref: Some("USD".into()),
            ..SourceAmount::fiat("USD", "12800")
        },
    ] {
        let order = Order::new("pay_1", other.clone());
        assert_eq!(
            code(Some(&order), &paid, None),
            Err("source_amount_mismatch"),
            "{other:?}"
        );
    }
    // Integration: None matches only None.
    let named = order().with_integration("shop-eu");
    assert_eq!(code(Some(&named), &paid, Some("shop-eu")), Ok(()));
    assert_eq!(
        code(Some(&named), &paid, Some("shop-us")),
        Err("integration_mismatch")
    );
    assert_eq!(
        code(Some(&named), &paid, Some("Shop-eu")),
        Err("integration_mismatch")
    );
    assert_eq!(code(Some(&named), &paid, None), Err("integration_mismatch"));
    assert_eq!(
        code(Some(&order()), &paid, Some("shop-eu")),
        Err("integration_mismatch")
    );
    // The first mismatch in the order of checks wins.
    let everything = Order::new("pay_2", SourceAmount::fiat("EUR", "1"))
        .with_order_ref("x")
        .with_integration("y");
    assert_eq!(
        code(Some(&everything), &paid, None),
        Err("payment_id_mismatch")
    );
    let ref_and_amount = Order::new("pay_1", SourceAmount::fiat("EUR", "1")).with_order_ref("x");
    assert_eq!(
        code(Some(&ref_and_amount), &paid, Some("y")),
        Err("order_ref_mismatch")
    );
}

#[test]
fn mismatches_have_their_own_codes() {
    let codes: Vec<&str> = LinkMismatch::ALL.iter().map(|m| m.code()).collect();
    assert_eq!(
        codes,
        [
            "payment_unknown",
            "payment_id_mismatch",
            "order_ref_mismatch",
            "source_amount_mismatch",
            "integration_mismatch"
        ]
    );
    for mismatch in LinkMismatch::ALL {
        assert_eq!(LinkMismatch::from_code(mismatch.code()), Some(*mismatch));
        assert_eq!(ErrorKind::from_code(mismatch.code()), None);
        assert_eq!(ApiError::from_code(mismatch.code()), None);
        assert!(mismatch.message().contains("review"), "{mismatch}");
        assert!(mismatch.to_string().starts_with(mismatch.code()));
    }
}

#[test]
fn the_default_policy_for_every_status() {
    let action = |status: &str| default_policy(&view(status)).as_str();
    let table: Vec<(&str, &str)> = PaymentStatus::ALL
        .iter()
        .map(|s| (s.as_str(), action(s.as_str())))
        .collect();
    assert_eq!(
        table,
        [
            ("open", "wait"),
            ("confirming", "wait"),
            ("paid", "fulfil"),
            ("partially_paid", "review"),
            ("overpaid", "review"),
            ("review_required", "review"),
            ("expired", "closed"),
            ("cancelled", "closed"),
        ]
    );
    for unknown in [
        "", "PAID", "Paid", " paid", "paid ", "refunded", "settled", "fulfil",
    ] {
        assert_eq!(action(unknown), "review", "{unknown:?}");
    }
    let received = |raw: &str| default_policy(&view("paid").with_amount_received_raw(raw));
    assert_eq!(received("12800"), FulfilmentAction::Fulfil);
    for other in ["12799", "12801", "0", "012800", "128000"] {
        assert_eq!(received(other), FulfilmentAction::Review, "{other}");
    }
    // amount_received_raw is read for `paid`, `expired` and `cancelled` only.
    let open = view("open").with_amount_received_raw("1");
    assert_eq!(default_policy(&open), FulfilmentAction::Wait);
    for ended in ["expired", "cancelled"] {
        let received = |raw: &str| default_policy(&view(ended).with_amount_received_raw(raw));
        assert_eq!(received("0"), FulfilmentAction::Closed, "{ended}");
        for some in ["1", "100", "12800", "12801"] {
            assert_eq!(received(some), FulfilmentAction::Review, "{ended} {some}");
        }
    }
}

#[test]
fn actions_read_back_by_name() {
    for action in [
        FulfilmentAction::Fulfil,
        FulfilmentAction::Review,
        FulfilmentAction::Wait,
        FulfilmentAction::Closed,
    ] {
        assert_eq!(FulfilmentAction::parse(action.as_str()), Some(action));
    }
    assert_eq!(FulfilmentAction::parse("fulfill"), None);
    assert_eq!(FulfilmentAction::parse("Fulfil"), None);
}
