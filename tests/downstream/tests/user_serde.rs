//! The serde code a user writes, in a program that depends on cryptopay-verify: it must
//! behave exactly as serde_json documents it without `arbitrary_precision`. Were the crate to
//! enable that feature (for everyone, through Cargo's feature unification), each of these
//! would change: an untagged enum holding `f64` no longer reads `1.5`, a flattened `f64`
//! reads as "invalid type: map", and `Value` prints `1e2` as `1e+2`.
#![cfg(not(feature = "user-arbitrary-precision"))]

use serde::Deserialize;
use serde_json::Value;

/// The crate is really in this program (and verifies), so Cargo unified its features here.
#[test]
fn the_crate_is_linked_and_works() {
    let secrets =
        cryptopay_verify::SecretSet::single(cryptopay_verify::Secret::new("whsec_test_secret"))
            .unwrap();
    let verifier =
        cryptopay_verify::Verifier::new(secrets, cryptopay_verify::VerifyOptions::new(300));
    let delivery = cryptopay_verify::Delivery {
        body: b"",
        timestamp: b"1700000000",
        signature: b"316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
    };
    assert!(verifier.verify_signature(&delivery, 1_700_000_000).is_ok());
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(untagged)]
enum Price {
    Amount(f64),
    Label(String),
}

#[test]
fn an_untagged_enum_holding_f64_reads_a_decimal() {
    let price: Price = serde_json::from_str("1.5").expect("an untagged f64 reads 1.5");
    assert_eq!(price, Price::Amount(1.5));
    assert_eq!(
        serde_json::from_str::<Price>(r#""free""#).unwrap(),
        Price::Label("free".into())
    );
    let list: Vec<Price> = serde_json::from_str(r#"[1.5, 2, "x"]"#).unwrap();
    assert_eq!(list[1], Price::Amount(2.0));
}

#[derive(Debug, Deserialize, PartialEq)]
struct Inner {
    rate: f64,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Outer {
    name: String,
    #[serde(flatten)]
    inner: Inner,
}

#[test]
fn a_flattened_struct_with_f64_reads() {
    let outer: Outer = serde_json::from_str(r#"{"name":"x","rate":0.25}"#)
        .expect("a flattened f64 reads (not \"invalid type: map\")");
    assert_eq!(outer.inner.rate, 0.25);
    assert_eq!(outer.name, "x");
}

#[test]
fn value_prints_numbers_as_doubles() {
    let value: Value = serde_json::from_str("1e2").unwrap();
    assert_eq!(value.to_string(), "100.0");
    let value: Value = serde_json::from_str(r#"{"a":1.50,"b":18446744073709551617}"#).unwrap();
    assert_eq!(value.to_string(), r#"{"a":1.5,"b":1.8446744073709552e+19}"#);
    // No arbitrary precision: an out-of-range number is an error, as serde_json documents.
    assert!(serde_json::from_str::<Value>("1e400").is_err());
}
