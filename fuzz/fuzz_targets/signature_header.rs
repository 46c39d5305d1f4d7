//! The signature header through the public verification: arbitrary header bytes against a
//! fixed body, timestamp and secret. No panic; only the header's codes; the `Verifier` and
//! the one-shot `verify_signature` agree; the grammar's outer rules hold (blank → missing,
//! over 1024 bytes or a byte that is not visible ASCII, space or tab → malformed); and a
//! header verifies only if it carries the true tag in one of its encodings, for this body
//! only.
#![no_main]

use std::sync::LazyLock;

use cryptopay_verify::{
    Delivery, ErrorKind, MAX_SIGNATURE_HEADER_BYTES, Secret, SecretKind, SecretSet, Verifier,
    VerifyOptions, verify_signature,
};
use cryptopay_verify_fuzz::{TagSpellings, checked};
use libfuzzer_sys::fuzz_target;

const SECRET: &str = "whsec_test_secret";
const TIMESTAMP: &[u8] = b"1700000000";
const NOW: u64 = 1_700_000_000;
const BODY: &[u8] = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated"}"#;
const OTHER_BODY: &[u8] = b"";

static SECRETS: LazyLock<SecretSet> =
    LazyLock::new(|| SecretSet::single(Secret::new(SECRET)).expect("a valid one-secret set"));
static VERIFIER: LazyLock<Verifier> =
    LazyLock::new(|| Verifier::new(SECRETS.clone(), VerifyOptions::new(300)));
static TAG: LazyLock<TagSpellings> =
    LazyLock::new(|| TagSpellings::of(SECRET.as_bytes(), TIMESTAMP, BODY).expect("signs"));
static OTHER_TAG: LazyLock<TagSpellings> =
    LazyLock::new(|| TagSpellings::of(SECRET.as_bytes(), TIMESTAMP, OTHER_BODY).expect("signs"));

const HEADER_CODES: &[ErrorKind] = &[
    ErrorKind::SignatureMissing,
    ErrorKind::SignatureMalformed,
    ErrorKind::SignatureMismatch,
];

fuzz_target!(|data: &[u8]| {
    let delivery = Delivery {
        body: BODY,
        timestamp: TIMESTAMP,
        signature: data,
    };
    let result = checked(VERIFIER.verify_signature(&delivery, NOW), HEADER_CODES);
    let one_shot = verify_signature(&delivery, &SECRETS, VerifyOptions::new(300), NOW);
    assert_eq!(result, one_shot, "Verifier and verify_signature disagree");

    let kind = result.as_ref().err().map(|e| e.kind());
    let blank = data.iter().all(|&b| b == b' ' || b == b'\t');
    let foreign = data
        .iter()
        .any(|&b| !(b.is_ascii_graphic() || b == b' ' || b == b'\t'));
    if blank {
        assert_eq!(kind, Some(ErrorKind::SignatureMissing));
    } else if data.len() > MAX_SIGNATURE_HEADER_BYTES || foreign {
        assert_eq!(kind, Some(ErrorKind::SignatureMalformed));
    } else {
        assert_ne!(kind, Some(ErrorKind::SignatureMissing));
    }
    if let Ok(verified) = result {
        assert!(TAG.appear_in(data), "verified without the true tag");
        assert_eq!(verified.matched_secret, SecretKind::Active);
        assert_eq!(verified.timestamp, NOW);
    }

    // The same header on another body: the same grammar verdict, and a success only with
    // that body's own tag.
    let other = VERIFIER.verify_signature(
        &Delivery {
            body: OTHER_BODY,
            ..delivery
        },
        NOW,
    );
    match (&result, &other) {
        (Err(a), Err(b)) if a.kind() != ErrorKind::SignatureMismatch => assert_eq!(a, b),
        (Ok(_), Err(b)) | (Err(_), Err(b)) => assert_eq!(b.kind(), ErrorKind::SignatureMismatch),
        (_, Ok(_)) => {
            assert!(OTHER_TAG.appear_in(data), "verified without the true tag");
            // A header this body verifies is well formed on the first body too.
            assert!(
                result
                    .as_ref()
                    .map_or_else(|e| e.kind() == ErrorKind::SignatureMismatch, |_| true),
                "a header verified on one body was refused by its grammar on another: {result:?}"
            );
        }
    }
});
