//! `parse_event` on arbitrary bytes. No panic; only its documented codes; a parsed event
//! agrees with plain `serde_json` (same envelope, identifiers and exact `status_version`),
//! parses again to the same event once re-serialized, and decides as its version says; a
//! body plain `serde_json` rejects is `event_not_json`; and the body signed and verified
//! with `verify_webhook` gives exactly `parse_event`'s result.
#![no_main]

use std::sync::LazyLock;

use cryptopay_verify::{
    Decision, Delivery, ErrorKind, PAYMENT_UPDATED, Secret, SecretEntry, SignatureEncoding,
    StatusVersion, Stored, Verifier, VerifyOptions, decide_event, parse_event, sign,
};
use cryptopay_verify_fuzz::checked;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const EVENT_CODES: &[ErrorKind] = &[
    ErrorKind::EventNotJson,
    ErrorKind::EventDuplicateKey,
    ErrorKind::EventMalformed,
    ErrorKind::EventTypeUnknown,
    ErrorKind::StatusVersionInvalid,
];

const SECRET: &str = "whsec_fuzz_event";
const TIMESTAMP: &[u8] = b"1700000000";
const NOW: u64 = 1_700_000_000;

static VERIFIER: LazyLock<Verifier> = LazyLock::new(|| {
    Verifier::new(
        vec![SecretEntry::active(Secret::new(SECRET))],
        VerifyOptions::new(300),
    )
    .expect("a valid one-secret set")
});

/// A number's or a string's text, as the event keeps it.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let parsed = checked(parse_event(data), EVENT_CODES);
    let plain = serde_json::from_slice::<Value>(data);
    match &parsed {
        Ok(event) => {
            let Ok(Value::Object(object)) = &plain else {
                panic!("parse_event accepted what serde_json does not read as an object");
            };
            assert_eq!(object, event.envelope());
            assert_eq!(event.event_type(), PAYMENT_UPDATED);
            assert_eq!(object["event_type"], PAYMENT_UPDATED);
            assert!(!event.event_id().is_empty() && !event.payment_id().is_empty());
            assert_eq!(object["event_id"].as_str(), Some(event.event_id()));
            assert_eq!(
                object["data"]["payment_id"].as_str(),
                Some(event.payment_id())
            );
            assert_eq!(event.data(), &object["data"]);
            assert_eq!(event.occurred_at(), &object["occurred_at"]);
            assert_eq!(
                text(&object["schema_version"]).as_deref(),
                Some(event.schema_version())
            );
            let version = event.status_version();
            assert_eq!(
                text(&object["data"]["status_version"]).as_deref(),
                Some(version.as_str())
            );
            assert_eq!(StatusVersion::parse(version.as_str()).as_ref(), Ok(version));

            // Re-serialized (numbers keep their exact text), it is the same event.
            let again = serde_json::to_vec(event.envelope()).expect("serializes");
            assert_eq!(parse_event(&again).as_ref(), Ok(event));

            // Its version decides: new → apply, same → stale, seen → duplicate.
            let stored = |seen: bool, v: Option<StatusVersion>| Stored {
                event_seen: seen,
                status_version: v,
            };
            assert_eq!(decide_event(version, &stored(false, None)), Decision::Apply);
            assert_eq!(
                decide_event(version, &stored(false, Some(version.clone()))),
                Decision::Stale
            );
            assert_eq!(
                decide_event(version, &stored(true, None)),
                Decision::Duplicate
            );
        }
        Err(e) => {
            if plain.is_err() {
                assert_eq!(e.kind(), ErrorKind::EventNotJson);
            } else {
                assert_ne!(e.kind(), ErrorKind::EventNotJson, "serde_json reads it");
            }
        }
    }

    // The same bytes through the whole pipeline: sign, verify, parse.
    let signature = sign(
        &Secret::new(SECRET),
        TIMESTAMP,
        data,
        SignatureEncoding::Hex,
    )
    .expect("signs");
    let delivery = Delivery {
        body: data,
        timestamp: TIMESTAMP,
        signature: signature.as_bytes(),
    };
    match (VERIFIER.verify_webhook(&delivery, NOW), &parsed) {
        (Ok(verified), Ok(event)) => assert_eq!(&verified.event, event),
        (Err(a), Err(b)) => assert_eq!(&a, b),
        (Err(a), Ok(_)) => assert_eq!(a.kind(), ErrorKind::BodyTooLarge),
        (Ok(_), Err(_)) => panic!("verify_webhook accepted an event parse_event refused"),
    }
});
