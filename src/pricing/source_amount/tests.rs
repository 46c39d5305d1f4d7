//! The unit tests of `source_amount`.

use super::*;

fn crypto() -> PrimarySource {
    PrimarySource::new(SourceKind::Crypto, "usdc-eth", 6).unwrap()
}

fn code(json: &str, p: &PrimarySource) -> Option<&'static str> {
    SourceAmount::from_json(json)
        .and_then(|sa| validate_source_amount(&sa, p))
        .err()
        .map(Error::code)
}

#[test]
fn shapes_and_order() {
    let p = crypto();
    assert_eq!(code(r#""x""#, &p), Some("source_amount_invalid"));
    assert_eq!(code("{", &p), Some("source_amount_invalid"));
    assert_eq!(
        code(r#"{"kind":"crypto","kind":"crypto"}"#, &p),
        Some("source_amount_invalid")
    );
    assert_eq!(
        code(r#"{"kind":"crypto","amount_raw":1}"#, &p),
        Some("amount_raw_invalid")
    );
    assert_eq!(
        code(r#"{"kind":"crypto","amount_raw":1e400,"x":1}"#, &p),
        Some("amount_raw_invalid")
    );
    assert_eq!(
        code(r#"{"kind":"crypto","amount_raw":null}"#, &p),
        Some("amount_raw_invalid")
    );
    assert_eq!(
        code(r#"{"kind":"crypto"}"#, &p),
        Some("source_amount_invalid")
    );
    assert_eq!(
        code(r#"{"kind":"fiat","currency":"USD","amount_raw":"1"}"#, &p),
        Some("source_kind_mismatch")
    );
    assert_eq!(
        code(r#"{"kind":"crypto","amount_raw":"1"}"#, &p),
        Some("source_pricing_ref_missing")
    );
    assert_eq!(
        code(
            r#"{"kind":"crypto","currency":"USD","pricing_ref":"usdc-eth","amount_raw":"1"}"#,
            &p
        ),
        Some("source_amount_invalid")
    );
    assert_eq!(
        code(r#"{"kind":"crypto","pricing_ref":5,"amount_raw":"1"}"#, &p),
        Some("source_amount_invalid")
    );
    assert_eq!(
        code(
            r#"{"kind":"crypto","pricing_ref":"usdc-eth","amount_raw":"01"}"#,
            &p
        ),
        Some("amount_raw_invalid")
    );
    assert_eq!(
        code(
            r#"{"kind":"crypto","pricingRef":"usdc-eth","amount_raw":"1"}"#,
            &p
        ),
        Some("source_amount_invalid")
    );
    assert_eq!(
        code(
            r#"{"kind":"crypto","pricing_ref":"0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48","amount_raw":"0"}"#,
            &p
        ),
        Some("pricing_ref_is_address")
    );
    assert_eq!(
        code(
            r#"{"kind":"crypto","pricing_ref":"usdc-eth","amount_raw":"1"}"#,
            &p
        ),
        None
    );
}

#[test]
fn built_amounts_validate_and_serialize_as_the_wire_form() {
    let p = crypto();
    let built = build_source_amount(&p, "1.5").unwrap();
    assert_eq!(built, SourceAmount::crypto("usdc-eth", "1500000"));
    assert_eq!(validate_source_amount(&built, &p), Ok(()));
    let text = serde_json::to_string(&built).unwrap();
    assert_eq!(
        text,
        r#"{"kind":"crypto","pricing_ref":"usdc-eth","amount_raw":"1500000"}"#
    );
    assert_eq!(SourceAmount::from_json(&text).unwrap(), built);
    assert_eq!(serde_json::from_str::<SourceAmount>(&text).unwrap(), built);
    // serde refuses what from_json refuses: a null, a number, an unknown key.
    for refused in [
        r#"{"kind":"crypto","pricing_ref":null,"amount_raw":"1"}"#,
        r#"{"kind":"crypto","pricing_ref":"x","amount_raw":1}"#,
        r#"{"kind":"crypto","pricing_ref":"x","amount_raw":"1","memo":""}"#,
        r#"{"kind":"gold","amount_raw":"1"}"#,
    ] {
        assert!(
            serde_json::from_str::<SourceAmount>(refused).is_err(),
            "{refused}"
        );
        assert!(SourceAmount::from_json(refused).is_err(), "{refused}");
    }
}
