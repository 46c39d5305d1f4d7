use super::*;
use crate::amount::MAX_AMOUNT_RAW;
use crate::error::ErrorKind;
use crate::status::StatusVersion;

use PaymentStatus::{
    Cancelled, Confirming, Expired, Open, Overpaid, Paid, PartiallyPaid, ReviewRequired,
};

mod pay;

fn state(status: PaymentStatus, version: &str, amount: &str, received: &str) -> PaymentState {
    PaymentState::from_parts(
        status,
        StatusVersion::parse(version).unwrap(),
        amount,
        received,
        true,
    )
    .unwrap()
}

fn pay(amount_raw: &str) -> PaymentAction<'_> {
    PaymentAction::Pay { amount_raw }
}

/// (status, version, received) of each event, then of the final state.
fn summary(applied: &Applied) -> (Vec<(PaymentStatus, String, String)>, PaymentStatus) {
    let events = applied
        .events
        .iter()
        .map(|e| {
            (
                e.status(),
                e.status_version().to_string(),
                e.amount_received_raw().to_owned(),
            )
        })
        .collect();
    (events, applied.state.status())
}

#[test]
fn statuses_read_back_as_the_wire_spells_them() {
    let names: Vec<&str> = PaymentStatus::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(
        names,
        [
            "open",
            "confirming",
            "paid",
            "partially_paid",
            "overpaid",
            "review_required",
            "expired",
            "cancelled"
        ]
    );
    for status in PaymentStatus::ALL {
        assert_eq!(PaymentStatus::parse(status.as_str()), Some(*status));
        assert_eq!(status.to_string(), status.as_str());
    }
    for unknown in ["", "OPEN", "paid ", "refunded", "partially-paid"] {
        assert_eq!(PaymentStatus::parse(unknown), None, "{unknown}");
    }
}

#[test]
fn api_errors_have_unique_codes_and_their_statuses() {
    let table: Vec<(&str, u16)> = ApiError::ALL
        .iter()
        .map(|e| (e.code(), e.status()))
        .collect();
    assert_eq!(
        table,
        [
            ("unauthorized", 401),
            ("insufficient_scope", 403),
            ("idempotency_key_missing", 400),
            ("idempotency_key_reused", 409),
            ("payment_not_found", 404),
            ("payment_not_payable", 409),
            ("payment_not_confirming", 409),
            ("payment_not_cancellable", 409),
            ("payment_not_reviewable", 409),
            ("payment_not_expirable", 409),
            ("consumer_access_disabled", 403),
            ("webhook_exists", 409),
            ("webhook_not_found", 404),
            ("secret_mismatch", 400),
            ("request_invalid", 400),
            ("not_found", 404),
            ("method_not_allowed", 405),
        ]
    );
    for error in ApiError::ALL {
        assert_eq!(ApiError::from_code(error.code()), Some(*error));
        // Distinct from the library's codes: one code, one meaning.
        assert_eq!(ErrorKind::from_code(error.code()), None, "{}", error.code());
        assert!(!error.message().is_empty());
        assert_eq!(
            error.to_string(),
            format!("{}: {}", error.code(), error.message())
        );
    }
    let invalid = ApiError::from(crate::validate_amount_raw("0").unwrap_err());
    assert_eq!(
        (invalid.code(), invalid.status()),
        ("amount_raw_invalid", 400)
    );
    assert_eq!(invalid.message(), ErrorKind::AmountRawInvalid.help());
    assert!(invalid.to_string().starts_with("amount_raw_invalid: "));
    assert_eq!(ApiError::from_code("amount_raw_invalid"), None);
}

#[test]
fn a_new_payment_is_open_at_version_1() {
    let created = PaymentState::new("12800").unwrap();
    assert_eq!(created, state(Open, "1", "12800", "0"));
    assert!(created.consumer_access());
    for bad in [
        "0",
        "",
        "012800",
        "1.5",
        "-1",
        "115792089237316195423570985008687907853269984665640564039457584007913129639936",
    ] {
        assert_eq!(
            PaymentState::new(bad).unwrap_err().code(),
            "amount_raw_invalid",
            "{bad}"
        );
    }
}

#[test]
fn stored_states_are_checked() {
    let parts = |version: &str, amount: &str, received: &str| {
        PaymentState::from_parts(
            Paid,
            StatusVersion::parse(version).unwrap(),
            amount,
            received,
            false,
        )
        .map_err(|e| e.code())
    };
    assert!(parts("1", "5", "0").is_ok());
    assert!(parts(&"9".repeat(90), "5", &"9".repeat(90)).is_ok());
    assert_eq!(parts("0", "5", "0"), Err("status_version_invalid"));
    assert_eq!(parts("1", "0", "0"), Err("amount_raw_invalid"));
    for received in ["", "00", "05", "-5", "5.0", " 5"] {
        assert_eq!(
            parts("1", "5", received),
            Err("amount_raw_invalid"),
            "{received}"
        );
    }
}

#[test]
fn actions_parse_by_name() {
    for action in [
        PaymentAction::Settle,
        PaymentAction::Review,
        PaymentAction::Expire,
        PaymentAction::Cancel,
        PaymentAction::DisableConsumerAccess,
        PaymentAction::OpenCheckout,
    ] {
        assert_eq!(PaymentAction::parse(action.as_str(), None), Some(action));
        assert_eq!(PaymentAction::parse(action.as_str(), Some("1")), None);
    }
    assert_eq!(PaymentAction::parse("pay", Some("x")), Some(pay("x")));
    assert_eq!(pay("1").as_str(), "pay");
    assert_eq!(PaymentAction::parse("pay", None), None);
    assert_eq!(
        PaymentAction::parse("pay_held", Some("5")),
        Some(PaymentAction::PayHeld { amount_raw: "5" })
    );
    assert_eq!(
        PaymentAction::PayHeld { amount_raw: "5" }.as_str(),
        "pay_held"
    );
    assert_eq!(PaymentAction::parse("pay_held", None), None);
    assert_eq!(PaymentAction::parse("Pay", Some("1")), None);
    assert_eq!(PaymentAction::parse("refund", None), None);
}

#[test]
fn every_status_and_action() {
    // The spec's table, written out independently of `apply`: Some(statuses of the events)
    // or the refusal.
    type Want = Result<&'static [PaymentStatus], &'static str>;
    let want = |status: PaymentStatus, action: &str| -> Want {
        match (action, status) {
            ("pay", Open | PartiallyPaid) => Ok(&[Confirming, PartiallyPaid]),
            ("pay", _) => Err("payment_not_payable"),
            ("pay_held", Open | PartiallyPaid) => Ok(&[Confirming]),
            ("pay_held", _) => Err("payment_not_payable"),
            // The states hold 0 of 1000 received: a confirming one settles partially_paid.
            ("settle", Confirming) => Ok(&[PartiallyPaid]),
            ("settle", _) => Err("payment_not_confirming"),
            ("review", Open | Paid | PartiallyPaid | Overpaid) => Ok(&[ReviewRequired]),
            ("review", _) => Err("payment_not_reviewable"),
            ("expire", Open | PartiallyPaid) => Ok(&[Expired]),
            ("expire", _) => Err("payment_not_expirable"),
            ("cancel", Open) => Ok(&[Cancelled]),
            ("cancel", Cancelled) => Ok(&[]),
            ("cancel", _) => Err("payment_not_cancellable"),
            ("disable_consumer_access" | "open_checkout", _) => Ok(&[]),
            (other, _) => panic!("an action the table does not name: {other}"),
        }
    };
    for status in PaymentStatus::ALL {
        let before = state(*status, "7", "1000", "0");
        for action in [
            pay("10"),
            PaymentAction::PayHeld { amount_raw: "10" },
            PaymentAction::Settle,
            PaymentAction::Review,
            PaymentAction::Expire,
            PaymentAction::Cancel,
            PaymentAction::DisableConsumerAccess,
            PaymentAction::OpenCheckout,
        ] {
            let got = before.apply(action);
            let name = action.as_str();
            match want(*status, name) {
                Ok(statuses) => {
                    let applied = got.unwrap_or_else(|e| panic!("{status} {name}: {e}"));
                    let got: Vec<PaymentStatus> =
                        applied.events.iter().map(PaymentState::status).collect();
                    assert_eq!(got, statuses, "{status} {name}");
                    for (n, event) in applied.events.iter().enumerate() {
                        assert_eq!(event.status_version().as_str(), (8 + n).to_string());
                    }
                    match applied.events.last() {
                        Some(last) => assert_eq!(last, &applied.state),
                        None => {
                            assert_eq!(applied.state.status(), *status);
                            assert_eq!(applied.state.status_version(), before.status_version());
                        }
                    }
                }
                Err(code) => assert_eq!(got.map_err(ApiError::code), Err(code), "{status} {name}"),
            }
        }
    }
}

#[test]
fn cancel_needs_an_open_payment_with_nothing_received() {
    let open = PaymentState::new("100").unwrap();
    let cancelled = open.apply(PaymentAction::Cancel).unwrap();
    assert_eq!(cancelled.state, state(Cancelled, "2", "100", "0"));
    assert_eq!(cancelled.events, std::slice::from_ref(&cancelled.state));
    // Twice: answered as it is, no change, no event.
    let again = cancelled.state.apply(PaymentAction::Cancel).unwrap();
    assert_eq!(again.state, cancelled.state);
    assert!(again.events.is_empty());
    // A stored open payment that received something is not cancellable.
    let received = state(Open, "4", "100", "1");
    assert_eq!(
        received.apply(PaymentAction::Cancel),
        Err(ApiError::PaymentNotCancellable)
    );
}

#[test]
fn consumer_access_changes_no_status_or_version() {
    let part = PaymentState::new("100")
        .unwrap()
        .apply(pay("40"))
        .unwrap()
        .state;
    let off = part.apply(PaymentAction::DisableConsumerAccess).unwrap();
    assert!(off.events.is_empty());
    assert!(!off.state.consumer_access());
    assert_eq!(
        (off.state.status(), off.state.status_version()),
        (part.status(), part.status_version())
    );
    let twice = off
        .state
        .apply(PaymentAction::DisableConsumerAccess)
        .unwrap();
    assert_eq!(twice.state, off.state);
    assert_eq!(
        off.state.apply(PaymentAction::OpenCheckout),
        Err(ApiError::ConsumerAccessDisabled)
    );
    let opened = part.apply(PaymentAction::OpenCheckout).unwrap();
    assert_eq!((opened.state, opened.events.len()), (part.clone(), 0));
    // Merchant actions do not depend on the checkout.
    assert_eq!(
        off.state
            .apply(PaymentAction::Expire)
            .unwrap()
            .state
            .status(),
        Expired
    );
    assert_eq!(
        off.state
            .apply(PaymentAction::Review)
            .unwrap()
            .state
            .status(),
        ReviewRequired
    );
}
