//! Every shared vector (tests/vectors/) through cryptopay-verify as a dependency of this
//! crate: with the user's default serde_json, and (`--features user-arbitrary-precision`)
//! with `arbitrary_precision` turned on by the user. The crate's answers never depend on it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::string_slice
)]

// Shared with the crate's own tests; the coverage of the error codes (`codes_covered`) is
// checked there, on the same vector files.
#[path = "../../common/mod.rs"]
#[allow(dead_code)]
mod common;

#[test]
fn every_vector_holds_in_a_user_program() {
    common::assert_every_vector_holds();
}

#[test]
fn json_test_suite_holds_in_a_user_program() {
    common::assert_json_suite_holds();
}

#[test]
fn big_and_out_of_range_numbers_stay_exact_in_the_event() {
    let body = br#"{"schema_version":1,"event_id":"e","event_type":"payment.updated","occurred_at":1e400,"data":{"payment_id":"p","status_version":18446744073709551617,"x":[1e-400,0.1]}}"#;
    let event = cryptopay_verify::parse_event(body).unwrap();
    assert_eq!(event.status_version().as_str(), "18446744073709551617");
    assert_eq!(event.occurred_at().as_str(), "1e400");
    assert_eq!(
        event.data_json(),
        r#"{"payment_id":"p","status_version":18446744073709551617,"x":[1e-400,0.1]}"#
    );
}
