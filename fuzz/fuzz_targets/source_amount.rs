//! SourceAmount and CreatePayment against a store's primary source: `PrimarySource::from_json`,
//! `SourceAmount::from_json`, `build_source_amount`, `validate_source_amount`,
//! `validate_create_payment` and `validate_create_payment_json` on arbitrary JSON-ish text.
//! No panic; only documented codes; what the code-giving readers accept, serde's derives read
//! to the same value, and what serde's derives read from JSON with each key once and no
//! array (they also take a struct's fields as an array, and let an ignored key repeat, which
//! the readers refuse), the readers accept as the same value; what is built validates and reads back; an accepted SourceAmount has
//! the store's kind and ref and a valid amount; CreatePayment checks its `source_amount`
//! exactly as `validate_source_amount` does and its `checkout_origin` as
//! `validate_checkout_origin` does.
//!
//! Input, one field per line: the primary source as JSON (an unreadable one is replaced by
//! a fixed store chosen by its first byte), a decimal amount, the website origin (an empty
//! line: none), then a JSON body (the rest).
#![no_main]

use cryptopay_verify::{
    CreatePayment, Error, ErrorKind, PrimarySource, SourceAmount, SourceKind, build_source_amount,
    to_amount_raw, validate_amount_raw, validate_checkout_origin, validate_create_payment,
    validate_create_payment_json, validate_source_amount,
};
use cryptopay_verify_fuzz::{Fields, RefValue, checked, reference_json};
use libfuzzer_sys::fuzz_target;

/// Whether `text` is JSON with each key once and no array anywhere, by the reference reader:
/// where serde's derives differ from the crate's readers by design, they read a struct's
/// fields from an array too (none of these types holds one), and let an ignored key repeat.
fn plain_objects(text: &str) -> bool {
    fn any_array(value: &RefValue) -> bool {
        match value {
            RefValue::Array(_) => true,
            RefValue::Object(members) => members.iter().any(|(_, value, _)| any_array(value)),
            _ => false,
        }
    }
    reference_json(text.as_bytes()).is_ok_and(|value| !any_array(&value))
}

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

/// A `from_json` reader and serde's derive agree on `text`: what the reader accepts, serde
/// reads to the same value; what serde reads from JSON with each key once and no array, the
/// reader accepts.
fn agrees_with_serde<T>(text: &str, read: &Result<T, Error>)
where
    T: serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let serde = serde_json::from_str::<T>(text).ok();
    match read {
        Ok(value) => assert_eq!(serde.as_ref(), Some(value), "serde and from_json disagree"),
        Err(error) => assert!(
            serde.is_none() || !plain_objects(text),
            "serde reads {serde:?} where from_json refuses: {error:?}"
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let store_line = fields.text();
    let amount = fields.text();
    let website = Some(fields.text()).filter(|w| !w.is_empty());
    let body = String::from_utf8_lossy(fields.rest()).into_owned();

    let store_read = checked(
        PrimarySource::from_json(&store_line),
        &[ErrorKind::StoreSourceInvalid],
    );
    agrees_with_serde(&store_line, &store_read);
    let store = match store_read {
        Ok(store) => {
            let rebuilt = PrimarySource::new(store.kind(), store.reference(), store.decimals());
            assert_eq!(rebuilt.as_ref(), Ok(&store));
            let written = serde_json::to_string(&store).expect("serializes");
            assert_eq!(PrimarySource::from_json(&written).as_ref(), Ok(&store));
            store
        }
        Err(_) => fixed_store(store_line.bytes().next().unwrap_or(0)),
    };
    let website = website.as_deref();

    // What is built from a decimal validates, alone and inside a CreatePayment, and reads back.
    let built = build_source_amount(&store, &amount);
    let raw = to_amount_raw(&amount, store.decimals());
    assert_eq!(built.as_ref().err(), raw.as_ref().err());
    if let (Ok(built), Ok(raw)) = (&built, &raw) {
        assert_eq!(&built.amount_raw, raw);
        assert_eq!(built.kind, store.kind());
        assert_eq!(validate_source_amount(built, &store), Ok(()));
        let text = serde_json::to_string(built).expect("serializes");
        assert_eq!(SourceAmount::from_json(&text).as_ref(), Ok(built));
        let payment = CreatePayment::new(built.clone()).with_order_ref(amount.clone());
        assert_eq!(validate_create_payment(&payment, &store, None), Ok(()));
        let payment_text = serde_json::to_string(&payment).expect("serializes");
        assert_eq!(
            validate_create_payment_json(&payment_text, &store, None).as_ref(),
            Ok(&payment)
        );
        if let Some(w) = website {
            // With a checkout_origin equal to the website origin: exactly the origin check.
            let payment = CreatePayment::new(built.clone()).with_checkout_origin(w);
            assert_eq!(
                validate_create_payment(&payment, &store, Some(w)),
                validate_checkout_origin(w, Some(w))
            );
        }
    }

    // The body as a SourceAmount.
    let read = checked(
        SourceAmount::from_json(&body),
        &[ErrorKind::SourceAmountInvalid, ErrorKind::AmountRawInvalid],
    );
    let source = read
        .as_ref()
        .map_err(|e| *e)
        .and_then(|sa| checked(validate_source_amount(sa, &store), SOURCE_CODES));
    agrees_with_serde(&body, &read);
    if let (Ok(sa), Ok(())) = (&read, &source) {
        assert_eq!(sa.kind, store.kind());
        let (required, forbidden) = match store.kind() {
            SourceKind::Fiat => (&sa.currency, &sa.pricing_ref),
            _ => (&sa.pricing_ref, &sa.currency),
        };
        assert_eq!(required.as_deref(), Some(store.reference()));
        assert!(forbidden.is_none());
        assert!(validate_amount_raw(&sa.amount_raw).is_ok());
    }
    // Wrapped in a CreatePayment, the same verdict, code and detail (for JSON without a
    // repeated key: one anywhere in the body refuses the whole body, create_payment_invalid).
    let wrapped = format!(r#"{{"source_amount":{body}}}"#);
    if reference_json(body.as_bytes()).is_ok() {
        assert_eq!(
            validate_create_payment_json(&wrapped, &store, website).map(|_| ()),
            source
        );
    }

    // The body as a CreatePayment.
    let mut create_codes = vec![ErrorKind::CreatePaymentInvalid];
    create_codes.extend_from_slice(SOURCE_CODES);
    create_codes.extend_from_slice(ORIGIN_CODES);
    let payment = checked(
        validate_create_payment_json(&body, &store, website),
        &create_codes,
    );
    // What serde's derive reads from an object, the reader judges as validate_create_payment
    // judges serde's value: the same code, or the same payment.
    if let Ok(serde) = serde_json::from_str::<CreatePayment>(&body)
        && plain_objects(&body)
    {
        assert_eq!(
            payment.as_ref().map_err(|e| e.kind()),
            validate_create_payment(&serde, &store, website)
                .map(|()| &serde)
                .map_err(|e| e.kind()),
            "serde reads a payment the reader judges otherwise"
        );
    }
    if let Ok(payment) = payment {
        let serde = serde_json::from_str::<CreatePayment>(&body);
        assert_eq!(
            serde.as_ref().ok(),
            Some(&payment),
            "serde and the reader disagree"
        );
        assert_eq!(validate_create_payment(&payment, &store, website), Ok(()));
        assert_eq!(
            validate_source_amount(&payment.source_amount, &store),
            Ok(())
        );
        if let Some(origin) = &payment.checkout_origin {
            assert_eq!(validate_checkout_origin(origin, website), Ok(()));
        }
    }
});
