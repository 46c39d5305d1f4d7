//! Paying: a held payment settled, the total compared exactly at every size, the order of the
//! checks.

use super::*;

#[test]
fn pay_held_then_settle_is_pay() {
    for amount in ["12799", "12800", "12801", "1"] {
        for before in [
            PaymentState::new("12800").unwrap(),
            state(PartiallyPaid, "4", "12800", "100"),
        ] {
            let paid = before.apply(pay(amount)).unwrap();
            let held = before
                .apply(PaymentAction::PayHeld { amount_raw: amount })
                .unwrap();
            assert_eq!(held.state.status(), Confirming);
            assert_eq!(held.events, paid.events[..1]);
            // Held: no second payment, no expiry, no cancel, until it settles.
            for action in [pay("1"), PaymentAction::Expire, PaymentAction::Cancel] {
                assert!(held.state.apply(action).is_err(), "{}", action.as_str());
            }
            let settled = held.state.apply(PaymentAction::Settle).unwrap();
            assert_eq!(settled.state, paid.state);
            assert_eq!(settled.events, paid.events[1..]);
            assert_eq!(
                settled
                    .state
                    .apply(PaymentAction::Settle)
                    .map_err(ApiError::code),
                Err("payment_not_confirming")
            );
        }
    }
}

#[test]
fn pay_compares_the_total_exactly() {
    let open = PaymentState::new("12800").unwrap();
    let cases = [
        ("12800", Paid),
        ("12799", PartiallyPaid),
        ("12801", Overpaid),
        ("1", PartiallyPaid),
        ("128000", Overpaid),
    ];
    for (amount, settled) in cases {
        let applied = open.apply(pay(amount)).unwrap();
        assert_eq!(
            summary(&applied),
            (
                vec![
                    (Confirming, "2".to_owned(), amount.to_owned()),
                    (settled, "3".to_owned(), amount.to_owned())
                ],
                settled
            ),
            "{amount}"
        );
        assert!(applied.state.consumer_access());
    }
    // Several payments add up, from partially_paid.
    let part = open.apply(pay("12000")).unwrap().state;
    let rest = part.apply(pay("800")).unwrap();
    assert_eq!(rest.state, state(Paid, "5", "12800", "12800"));
    assert_eq!(rest.events.first().unwrap().status(), Confirming);
}

#[test]
fn pay_is_exact_past_every_integer_type() {
    let max_minus_one =
        "115792089237316195423570985008687907853269984665640564039457584007913129639934";
    let open = PaymentState::new(MAX_AMOUNT_RAW).unwrap();
    let one_short = open.apply(pay(max_minus_one)).unwrap().state;
    assert_eq!(one_short.status(), PartiallyPaid);
    let paid = one_short.apply(pay("1")).unwrap().state;
    assert_eq!(paid.status(), Paid);
    assert_eq!(paid.amount_received_raw(), MAX_AMOUNT_RAW);
    let over = one_short.apply(pay("2")).unwrap().state;
    assert_eq!(over.status(), Overpaid);
    // A stored total of 78 nines plus 2^256 - 1: a 79-digit total, still exact.
    let nines = "9".repeat(78);
    let big = state(PartiallyPaid, "9007199254740993", MAX_AMOUNT_RAW, &nines);
    let applied = big.apply(pay(MAX_AMOUNT_RAW)).unwrap();
    assert_eq!(
        applied.state.amount_received_raw(),
        "1115792089237316195423570985008687907853269984665640564039457584007913129639934"
    );
    assert_eq!(applied.state.status(), Overpaid);
    assert_eq!(applied.state.status_version().as_str(), "9007199254740995");
}

#[test]
fn pay_checks_access_then_amount_then_status() {
    let code = |s: &PaymentState, amount: &str| s.apply(pay(amount)).map_err(ApiError::code);
    let open = PaymentState::new("100").unwrap();
    let off = open
        .apply(PaymentAction::DisableConsumerAccess)
        .unwrap()
        .state;
    let expired_off = off.apply(PaymentAction::Expire).unwrap().state;
    let expired_on = open.apply(PaymentAction::Expire).unwrap().state;
    assert_eq!(code(&off, "0"), Err("consumer_access_disabled"));
    assert_eq!(code(&expired_off, "10"), Err("consumer_access_disabled"));
    assert_eq!(code(&expired_on, "0"), Err("amount_raw_invalid"));
    assert_eq!(code(&expired_on, "10"), Err("payment_not_payable"));
    for bad in ["0", "", "01", "1.5", "1e3", "-1", " 1"] {
        assert_eq!(code(&open, bad), Err("amount_raw_invalid"), "{bad:?}");
    }
}
