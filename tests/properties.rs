//! Properties over random inputs (proptest): signing then verifying always succeeds, any
//! change to the body, timestamp, signature or secret fails, decimal and raw amounts round
//! trip exactly, `status_version` order is integer order at any size, and any sequence of
//! actions on a payment announces each change with the next version, never loses an amount
//! received, and settles by the exact total.
#![cfg(not(target_arch = "wasm32"))]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::string_slice,
    clippy::cast_possible_truncation
)]

use std::cmp::Ordering;

use cryptopay_verify::{
    Delivery, PaymentAction, PaymentState, PaymentStatus, Secret, SecretSet, SignatureEncoding,
    StatusVersion, Verifier, VerifyOptions, from_amount_raw, sign_webhook, to_amount_raw,
};
use proptest::prelude::*;

const SKEW: u64 = 300;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

fn verifier(secret: &[u8]) -> Verifier {
    Verifier::new(
        SecretSet::single(Secret::new(secret)).unwrap(),
        VerifyOptions::new(SKEW),
    )
}

/// A random action: which one (`pay` most often), and the amount a `pay` pays (up to 10^30,
/// so that totals stay within u128 for the reference sum; `0` is never an amount).
fn action() -> impl Strategy<Value = (u8, u128)> {
    (
        0u8..11,
        prop_oneof![0u128..=3, 1u128..=1_000_000_000_000_000_000_000_000_000_000],
    )
}

fn as_action(which: u8, amount: &str) -> PaymentAction<'_> {
    match which {
        0..=3 => PaymentAction::Pay { amount_raw: amount },
        4 => PaymentAction::PayHeld { amount_raw: amount },
        5 => PaymentAction::Settle,
        6 => PaymentAction::Review,
        7 => PaymentAction::Expire,
        8 => PaymentAction::Cancel,
        9 => PaymentAction::DisableConsumerAccess,
        _ => PaymentAction::OpenCheckout,
    }
}

fn code(v: &Verifier, body: &[u8], ts: &[u8], sig: &str, now: u64) -> Option<&'static str> {
    let delivery = Delivery {
        body,
        timestamp: ts,
        signature: sig.as_bytes(),
    };
    v.verify_signature(&delivery, now).err().map(|e| e.code())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn signed_deliveries_verify(
        secret in prop::collection::vec(any::<u8>(), 1..80),
        body in prop::collection::vec(any::<u8>(), 0..300),
        ts in 0u64..=999_999_999_999,
        offset in 0u64..=SKEW,
        future in any::<bool>(),
        base64 in any::<bool>(),
    ) {
        let ts_text = ts.to_string();
        let encoding = if base64 { SignatureEncoding::Base64 } else { SignatureEncoding::Hex };
        let sig = sign_webhook(&Secret::new(&secret), ts_text.as_bytes(), &body, encoding).unwrap();
        let now = if future { ts.saturating_sub(offset) } else { ts + offset };
        prop_assert_eq!(code(&verifier(&secret), &body, ts_text.as_bytes(), &sig, now), None);
    }

    #[test]
    fn any_change_is_rejected(
        secret in prop::collection::vec(any::<u8>(), 1..64),
        body in prop::collection::vec(any::<u8>(), 1..200),
        ts in 1_000_000_000u64..2_000_000_000,
        flip_at in any::<prop::sample::Index>(),
        bit in 0u8..8,
        what in 0u8..4,
    ) {
        let ts_text = ts.to_string();
        let sig = sign_webhook(&Secret::new(&secret), ts_text.as_bytes(), &body, SignatureEncoding::Hex).unwrap();
        let v = verifier(&secret);
        let got = match what {
            0 => {
                let mut body = body.clone();
                let i = flip_at.index(body.len());
                body[i] ^= 1 << bit;
                code(&v, &body, ts_text.as_bytes(), &sig, ts)
            }
            1 => {
                let other = (ts + 1 + u64::from(bit)).to_string();
                code(&v, &body, other.as_bytes(), &sig, ts)
            }
            2 => {
                let mut raw = base16ct::mixed::decode_vec(&sig).unwrap();
                let i = flip_at.index(raw.len());
                raw[i] ^= 1 << bit;
                code(&v, &body, ts_text.as_bytes(), &base16ct::lower::encode_string(&raw), ts)
            }
            _ => {
                let mut other = secret.clone();
                let i = flip_at.index(other.len());
                other[i] ^= 1 << bit;
                code(&verifier(&other), &body, ts_text.as_bytes(), &sig, ts)
            }
        };
        prop_assert_eq!(got, Some("signature_mismatch"));
    }

    #[test]
    fn skew_is_exactly_the_limit(ts in 1_000u64..999_999_999_000, delta in 0u64..1_000) {
        let ts_text = ts.to_string();
        let sig = sign_webhook(&Secret::new("s"), ts_text.as_bytes(), b"b", SignatureEncoding::Hex).unwrap();
        let v = verifier(b"s");
        let old = code(&v, b"b", ts_text.as_bytes(), &sig, ts + delta);
        let new = code(&v, b"b", ts_text.as_bytes(), &sig, ts - delta);
        if delta <= SKEW {
            prop_assert_eq!((old, new), (None, None));
        } else {
            prop_assert_eq!((old, new), (Some("timestamp_too_old"), Some("timestamp_in_future")));
        }
    }

    #[test]
    fn amounts_round_trip(raw in "[1-9][0-9]{0,60}", decimals in 0u32..=18) {
        let decimal = from_amount_raw(&raw, decimals).unwrap();
        prop_assert_eq!(to_amount_raw(&decimal, decimals).unwrap(), raw.clone());
        // Trailing zeros past `decimals` are accepted and change nothing.
        let padded = if decimals == 0 { format!("{decimal}.000") } else { format!("{decimal}000") };
        prop_assert_eq!(to_amount_raw(&padded, decimals).unwrap(), raw);
    }

    #[test]
    fn extra_precision_is_never_rounded(int in "[1-9][0-9]{0,10}", kept in "[0-9]{0,5}", extra in "[0-9]{0,4}[1-9]") {
        // `extra` holds at least one non-zero digit past the `decimals` kept digits.
        let decimals = u32::try_from(kept.len()).unwrap();
        let code = to_amount_raw(&format!("{int}.{kept}{extra}"), decimals).unwrap_err().code();
        prop_assert_eq!(code, "amount_too_precise");
    }

    #[test]
    fn versions_order_as_integers(a in any::<u128>(), b in any::<u128>()) {
        let (va, vb) = (StatusVersion::parse(&a.to_string()).unwrap(), StatusVersion::parse(&b.to_string()).unwrap());
        prop_assert_eq!(va.cmp(&vb), a.cmp(&b));
    }

    #[test]
    fn long_versions_order_by_digits(a in "[1-9][0-9]{0,80}", b in "[1-9][0-9]{0,80}") {
        let (va, vb) = (StatusVersion::parse(&a).unwrap(), StatusVersion::parse(&b).unwrap());
        let expected = a.len().cmp(&b.len()).then_with(|| a.cmp(&b));
        prop_assert_eq!(va.cmp(&vb), expected);
        prop_assert_eq!(va.cmp(&vb) == Ordering::Equal, a == b);
    }

    #[test]
    fn payment_histories_keep_the_service_rules(
        amount in prop_oneof![1u128..=6, 1u128..=2_000_000_000_000_000_000_000_000_000_000],
        actions in prop::collection::vec(action(), 0..40),
    ) {
        let mut state = PaymentState::new(&amount.to_string()).unwrap();
        let (mut version, mut received) = (1u64, 0u128);
        for (which, paid) in actions {
            let paid_text = paid.to_string();
            let before = state.clone();
            let Ok(applied) = before.apply(as_action(which, &paid_text)) else {
                continue; // refused: the caller keeps its state, nothing is announced
            };
            // Each announced change is the next version, and the final state is the last one.
            for event in &applied.events {
                version += 1;
                prop_assert_eq!(event.status_version(), &StatusVersion::from(version));
                // What was received never decreases, and never changes without a payment.
                let now = event.amount_received_raw().parse::<u128>().unwrap();
                prop_assert!(now >= received);
                received = now;
            }
            match applied.events.last() {
                Some(last) => prop_assert_eq!(last, &applied.state),
                None => {
                    prop_assert_eq!(applied.state.status(), before.status());
                    prop_assert_eq!(applied.state.status_version(), before.status_version());
                    prop_assert_eq!(applied.state.amount_received_raw(), before.amount_received_raw());
                }
            }
            let settled = match received.cmp(&amount) {
                Ordering::Less => PaymentStatus::PartiallyPaid,
                Ordering::Equal => PaymentStatus::Paid,
                Ordering::Greater => PaymentStatus::Overpaid,
            };
            if which <= 4 {
                // An accepted payment: its amount counted once; settled by the exact total,
                // or held confirming.
                prop_assert_eq!(received, before.amount_received_raw().parse::<u128>().unwrap() + paid);
                let (status, events) = if which == 4 { (PaymentStatus::Confirming, 1) } else { (settled, 2) };
                prop_assert_eq!(applied.state.status(), status);
                prop_assert_eq!(applied.events.len(), events);
            } else if which == 5 {
                // Settled: by the exact total, nothing more received.
                prop_assert_eq!(before.status(), PaymentStatus::Confirming);
                prop_assert_eq!(applied.state.status(), settled);
                prop_assert_eq!(applied.state.amount_received_raw(), before.amount_received_raw());
            } else {
                prop_assert_eq!(applied.state.amount_received_raw(), before.amount_received_raw());
            }
            state = applied.state;
        }
        prop_assert_eq!(state.status_version(), &StatusVersion::from(version));
        prop_assert_eq!(state.amount_received_raw(), received.to_string());
    }
}
