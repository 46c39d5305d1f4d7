//! The unit tests of `misnamed`.

use super::*;
use crate::{Secret, SecretSet, SignatureEncoding, VerifyOptions, sign_webhook};

const NOW: u64 = 1_700_000_000;

fn verifier() -> Verifier {
    Verifier::new(
        SecretSet::single(Secret::new("whsec_test_secret")).unwrap(),
        VerifyOptions::new(300),
    )
}

fn signed(body: &[u8]) -> String {
    sign_webhook(
        &Secret::new("whsec_test_secret"),
        NOW.to_string().as_bytes(),
        body,
        SignatureEncoding::Hex,
    )
    .unwrap()
}

fn misnamed(pairs: &[(&str, &str)], names: (&str, &str), now: u64) -> Option<MisnamedHeaders> {
    let it = pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    verifier().misnamed_headers(it, names.0, names.1, b"{}", now)
}

fn renamed(timestamp: Option<&str>, signature: Option<&str>) -> Option<MisnamedHeaders> {
    Some(MisnamedHeaders {
        timestamp_header: timestamp.map(Into::into),
        signature_header: signature.map(Into::into),
    })
}

#[test]
fn one_name_wrong() {
    let sig = signed(b"{}");
    let now = NOW.to_string();
    let sent = [
        ("X-Webhook-Timestamp", now.as_str()),
        ("X-Webhook-Signature", sig.as_str()),
    ];
    assert_eq!(
        misnamed(&sent, ("X-Webhook-Timestamp", "X-Signature"), NOW),
        renamed(None, Some("x-webhook-signature"))
    );
    assert_eq!(
        misnamed(&sent, ("X-Timestamp", "x-webhook-signature"), NOW),
        renamed(Some("x-webhook-timestamp"), None)
    );
    // Both names right: nothing to say.
    assert_eq!(
        misnamed(&sent, ("x-webhook-timestamp", "X-Webhook-Signature"), NOW),
        None
    );
    // A short form of the word counts: x-sig, x-ts.
    let short = [("x-ts", now.as_str()), ("x-sig", sig.as_str())];
    assert_eq!(
        misnamed(&short, ("x-ts", "x-signature"), NOW),
        renamed(None, Some("x-sig"))
    );
}

#[test]
fn both_names_wrong() {
    let sig = signed(b"{}");
    let now = NOW.to_string();
    // A pair copied from another provider's guide, beside unrelated headers.
    let sent = [
        ("content-type", "application/json"),
        ("X-Cryptopay-Timestamp", now.as_str()),
        ("X-Cryptopay-Signature", sig.as_str()),
        ("user-agent", "service"),
    ];
    let names = misnamed(&sent, ("Webhook-Timestamp", "Webhook-Signature"), NOW);
    assert_eq!(
        names,
        renamed(Some("x-cryptopay-timestamp"), Some("x-cryptopay-signature"))
    );
    assert_eq!(
        names.unwrap().to_string(),
        "the delivery verifies with its timestamp read from x-cryptopay-timestamp and signature read \
         from x-cryptopay-signature: set timestamp_header to x-cryptopay-timestamp and signature_header \
         to x-cryptopay-signature"
    );
}

#[test]
fn nothing_without_a_verified_reading() {
    let sig = signed(b"{}");
    let now = NOW.to_string();
    let names = ("X-Webhook-Timestamp", "X-Signature");
    // A forgery, a stale delivery, a clock in milliseconds: no reading verifies fresh.
    let forged = [
        ("X-Webhook-Timestamp", now.as_str()),
        ("X-Webhook-Signature", "v1=00"),
    ];
    assert_eq!(misnamed(&forged, names, NOW), None);
    let sent = [
        ("X-Webhook-Timestamp", now.as_str()),
        ("X-Webhook-Signature", sig.as_str()),
    ];
    assert_eq!(misnamed(&sent, names, NOW + 301), None);
    assert_eq!(misnamed(&sent, names, NOW * 1000), None);
    // A header whose name says nothing, or a proxy's own: not read.
    for other in [
        "x-payload-mac",
        "x-forwarded-signature",
        "x-amzn-signature",
        "x-envoy-sig",
    ] {
        let sent = [("X-Webhook-Timestamp", now.as_str()), (other, sig.as_str())];
        assert_eq!(misnamed(&sent, names, NOW), None, "{other}");
    }
    // Configured names that cannot be header names: nothing (validate_header_names says why).
    assert_eq!(
        misnamed(&sent, ("X Webhook Timestamp", "X-Signature"), NOW),
        None
    );
    assert_eq!(misnamed(&sent, ("x-a", "X-A"), NOW), None);
    // The near miss sent twice: refused as read, so not the answer.
    let twice = [
        ("X-Webhook-Timestamp", now.as_str()),
        ("X-Webhook-Signature", sig.as_str()),
        ("x-webhook-signature", sig.as_str()),
    ];
    assert_eq!(misnamed(&twice, names, NOW), None);
}

#[test]
fn at_most_four_readings() {
    let sig = signed(b"{}");
    let now = NOW.to_string();
    // Four decoys sorted before the real one: it is the fifth reading, never hashed.
    let sent = [
        ("X-Webhook-Timestamp", now.as_str()),
        ("a-sig", "v1=00"),
        ("b-sig", "v1=00"),
        ("c-sig", "v1=00"),
        ("d-sig", "v1=00"),
        ("e-signature", sig.as_str()),
    ];
    assert_eq!(
        misnamed(&sent, ("X-Webhook-Timestamp", "X-Signature"), NOW),
        None
    );
    // With three decoys it is the fourth, and read.
    let three: Vec<_> = sent
        .iter()
        .copied()
        .filter(|(n, _)| *n != "d-sig")
        .collect();
    assert_eq!(
        misnamed(&three, ("X-Webhook-Timestamp", "X-Signature"), NOW),
        renamed(None, Some("e-signature"))
    );
    // Neither name came: two by two.
    let pairs = [
        ("a-timestamp", "1"),
        ("b-timestamp", now.as_str()),
        ("c-timestamp", now.as_str()),
        ("a-signature", sig.as_str()),
    ];
    assert_eq!(
        misnamed(&pairs, ("T", "S"), NOW),
        renamed(Some("b-timestamp"), Some("a-signature"))
    );
    let third = [
        ("a-timestamp", "1"),
        ("b-timestamp", "2"),
        ("c-timestamp", now.as_str()),
        ("a-signature", sig.as_str()),
    ];
    assert_eq!(misnamed(&third, ("T", "S"), NOW), None);
}
