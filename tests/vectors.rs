//! Every case of `tests/vectors/*.json` against the native build, and the public
//! JSONTestSuite (`json_suite.json`) through the strict JSON scanner.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::string_slice
)]

mod common;

use cryptopay_verify::{ApiError, ErrorKind, LinkMismatch};

#[test]
fn every_vector_holds() {
    common::assert_every_vector_holds();
}

/// The public JSONTestSuite through the strict JSON scanner (see `tests/vectors/json_suite.json`).
#[test]
fn json_test_suite_holds() {
    common::assert_json_suite_holds();
}

#[test]
fn every_error_code_has_a_vector() {
    let covered = common::codes_covered();
    let missing: Vec<&str> = ErrorKind::ALL
        .iter()
        .map(|k| k.code())
        // Rust's types make a non-byte body unrepresentable: only JavaScript can send one,
        // and the JavaScript tests cover it.
        .filter(|code| *code != "body_not_raw" && !covered.contains(*code))
        .collect();
    assert!(missing.is_empty(), "no vector expects: {missing:?}");
    // The refusals of the payment state machine (service.json) are the service's answers.
    let refusals = [
        ApiError::PaymentNotPayable,
        ApiError::PaymentNotConfirming,
        ApiError::PaymentNotCancellable,
        ApiError::PaymentNotReviewable,
        ApiError::PaymentNotExpirable,
        ApiError::ConsumerAccessDisabled,
    ];
    for refusal in refusals {
        assert!(
            covered.contains(refusal.code()),
            "no vector expects {refusal}"
        );
    }
    // And every mismatch of linking an event to its order (fulfilment.json).
    for mismatch in LinkMismatch::ALL {
        assert!(
            covered.contains(mismatch.code()),
            "no vector expects {mismatch}"
        );
    }
    for code in &covered {
        assert!(
            ErrorKind::from_code(code).is_some()
                || ApiError::from_code(code).is_some()
                || LinkMismatch::from_code(code).is_some(),
            "vectors expect an unknown code {code}"
        );
    }
}
