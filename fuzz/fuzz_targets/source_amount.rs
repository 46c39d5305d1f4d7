//! SourceAmount and CreatePayment against a store's primary source:
//! `PrimarySource::from_json`, `build_source_amount`, `validate_source_amount` and
//! `validate_create_payment` on arbitrary JSON-ish bytes parsed with `serde_json`. No
//! panic; only documented codes; what is built validates; an accepted SourceAmount has
//! the store's kind and ref and a valid amount; CreatePayment checks its `source_amount`
//! exactly as `validate_source_amount` does and its `checkout_origin` as
//! `validate_checkout_origin` does.
//!
//! Input, one field per line: the primary source as JSON (an unreadable one is replaced by
//! a fixed store chosen by its first byte), a decimal amount, the website origin (an empty
//! line: none), then a JSON body (the rest).
#![no_main]

use cryptopay_verify::{
    ErrorKind, PrimarySource, SourceKind, build_source_amount, is_valid_amount_raw, to_amount_raw,
    validate_checkout_origin, validate_create_payment, validate_source_amount,
};
use cryptopay_verify_fuzz::{Fields, checked};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

const SOURCE_CODES: &[ErrorKind] = &[
    ErrorKind::SourceAmountInvalid,
    ErrorKind::SourceKindMismatch,
    ErrorKind::SourceCurrencyMissing,
    ErrorKind::SourceCurrencyMismatch,
    ErrorKind::SourcePricingRefMissing,
    ErrorKind::SourcePricingRefMismatch,
    ErrorKind::PricingRefIsAddress,
    ErrorKind::PricingRefIsNetworkId,
    ErrorKind::AmountRawInvalid,
];

const ORIGIN_CODES: &[ErrorKind] = &[
    ErrorKind::OriginInvalid,
    ErrorKind::OriginNotHttps,
    ErrorKind::OriginNotPermitted,
    ErrorKind::InvalidArgument,
];

fn fixed_store(selector: u8) -> PrimarySource {
    let (kind, reference, decimals) = match selector % 4 {
        0 => (SourceKind::Fiat, "USD", 2),
        1 => (SourceKind::Crypto, "usdc", 6),
        2 => (SourceKind::Fiat, "JPY", 0),
        _ => (SourceKind::Crypto, "eth", 18),
    };
    PrimarySource::new(kind, reference, decimals).expect("a valid store")
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let store_line = fields.line();
    let amount = fields.text();
    let website = Some(fields.text()).filter(|w| !w.is_empty());
    let body = fields.rest();

    let store = match serde_json::from_slice::<Value>(store_line) {
        Ok(json) => match checked(
            PrimarySource::from_json(&json),
            &[ErrorKind::StoreSourceInvalid],
        ) {
            Ok(store) => {
                assert_eq!(json["kind"].as_str(), Some(store.kind().as_str()));
                assert_eq!(json["ref"].as_str(), Some(store.reference()));
                assert_eq!(json["decimals"].as_u64(), Some(u64::from(store.decimals())));
                let rebuilt = PrimarySource::new(store.kind(), store.reference(), store.decimals());
                assert_eq!(rebuilt.as_ref(), Ok(&store));
                store
            }
            Err(_) => fixed_store(store_line.first().copied().unwrap_or(0)),
        },
        Err(_) => fixed_store(store_line.first().copied().unwrap_or(0)),
    };
    let website = website.as_deref();

    // What is built from a decimal validates, alone and inside a CreatePayment.
    let built = build_source_amount(&store, &amount);
    let raw = to_amount_raw(&amount, store.decimals());
    assert_eq!(built.as_ref().err(), raw.as_ref().err());
    if let (Ok(built), Ok(raw)) = (&built, &raw) {
        assert_eq!(built["amount_raw"].as_str(), Some(raw.as_str()));
        assert_eq!(built["kind"].as_str(), Some(store.kind().as_str()));
        assert_eq!(validate_source_amount(built, &store), Ok(()));
        let payment = json!({"source_amount": built, "order_ref": amount});
        assert_eq!(validate_create_payment(&payment, &store, None), Ok(()));
        if let Some(w) = website {
            // With a checkout_origin equal to the website origin: exactly the origin check.
            let payment = json!({"source_amount": built, "checkout_origin": w});
            assert_eq!(
                validate_create_payment(&payment, &store, Some(w)),
                validate_checkout_origin(w, Some(w))
            );
        }
    }

    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        return;
    };

    let source = checked(validate_source_amount(&body, &store), SOURCE_CODES);
    if source.is_ok() {
        let (required, forbidden) = match store.kind() {
            SourceKind::Fiat => ("currency", "pricing_ref"),
            _ => ("pricing_ref", "currency"),
        };
        let object = body.as_object().expect("an object");
        assert_eq!(object["kind"].as_str(), Some(store.kind().as_str()));
        assert_eq!(object[required].as_str(), Some(store.reference()));
        assert!(!object.contains_key(forbidden));
        assert!(is_valid_amount_raw(
            object["amount_raw"].as_str().expect("a string")
        ));
        assert!(object.len() <= 3);
    }
    // Wrapped in a CreatePayment, the same verdict, code and detail.
    let wrapped = json!({"source_amount": body});
    assert_eq!(validate_create_payment(&wrapped, &store, website), source);

    let mut create_codes = vec![ErrorKind::CreatePaymentInvalid];
    create_codes.extend_from_slice(SOURCE_CODES);
    create_codes.extend_from_slice(ORIGIN_CODES);
    let payment = checked(
        validate_create_payment(&body, &store, website),
        &create_codes,
    );
    if payment.is_ok() {
        let object = body.as_object().expect("an object");
        assert!(
            object
                .keys()
                .all(|k| ["source_amount", "order_ref", "checkout_origin"].contains(&k.as_str()))
        );
        assert_eq!(
            validate_source_amount(&object["source_amount"], &store),
            Ok(())
        );
        assert!(object.get("order_ref").is_none_or(Value::is_string));
        if let Some(origin) = object.get("checkout_origin") {
            let origin = origin.as_str().expect("a string");
            assert_eq!(validate_checkout_origin(origin, website), Ok(()));
        }
    }
});
