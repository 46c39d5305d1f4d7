//! The unit tests of `primary_source`.

use super::*;

#[test]
fn kinds_read_back_as_the_wire_spells_them() {
    assert_eq!(SourceKind::Fiat.as_str(), "fiat");
    assert_eq!(SourceKind::Crypto.as_str(), "crypto");
    assert_eq!(SourceKind::parse("crypto"), Some(SourceKind::Crypto));
}

#[test]
fn store_sources() {
    for bad in [
        "null",
        "[]",
        r#"{"kind": "gold", "ref": "x", "decimals": 2}"#,
        r#"{"kind": "fiat", "ref": "", "decimals": 2}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": 78}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": 2.5}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": 2.0}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": 2e0}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": -1}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": 4294967298}"#,
        r#"{"kind": "fiat", "ref": "USD", "decimals": 1e400}"#,
        r#"{"kind": "fiat", "ref": "USD", "ref": "EUR", "decimals": 2}"#,
        r#"{"kind": "fiat", "ref": "USD""#,
    ] {
        assert_eq!(
            PrimarySource::from_json(bad).unwrap_err().code(),
            "store_source_invalid",
            "{bad}"
        );
    }
    let extra = r#"{"kind": "fiat", "ref": "USD", "decimals": 2, "label": {"a": [1e400]}}"#;
    let read = PrimarySource::from_json(extra).unwrap();
    assert_eq!(
        (read.kind(), read.reference(), read.decimals()),
        (SourceKind::Fiat, "USD", 2)
    );
}

#[test]
fn serde_reads_and_writes_the_wire_form() {
    let source = PrimarySource::new(SourceKind::Crypto, "usdc-eth", 6).unwrap();
    let text = serde_json::to_string(&source).unwrap();
    assert_eq!(text, r#"{"kind":"crypto","ref":"usdc-eth","decimals":6}"#);
    assert_eq!(
        serde_json::from_str::<PrimarySource>(&text).unwrap(),
        source
    );
    assert_eq!(PrimarySource::from_json(&text).unwrap(), source);
    let over =
        serde_json::from_str::<PrimarySource>(r#"{"kind":"fiat","ref":"USD","decimals":78}"#);
    assert!(
        over.unwrap_err()
            .to_string()
            .starts_with("store_source_invalid: ")
    );
}
