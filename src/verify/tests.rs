//! The unit tests of `verify` (kept beside it so that `src/verify.rs` stays readable).

use super::*;
use crate::delivery::tests::delivery;
use crate::mac::tests::inner_hash;
use crate::mac::{KeyedMac, SignatureEncoding, sign_webhook};
use crate::secret::{Secret, SecretEntry};

#[test]
fn host_tags_give_what_the_crate_computes() {
    // The host's tags are the HMAC of each entry, in order: the answer is the crate's own,
    // for every kind that matches, a wrong tag, a missing tag and an overlap that ended.
    let secrets = ["active-key", "pending-key", "old-key"];
    let set = || {
        SecretSet::new(vec![
            SecretEntry::active(Secret::new(secrets[0])),
            SecretEntry::pending(Secret::new(secrets[1])),
            SecretEntry::retiring(Secret::new(secrets[2]), 1_700_000_100),
        ])
        .unwrap()
    };
    let options = VerifyOptions::new(300);
    let body = b"{}";
    let tags: Vec<Tag> = secrets
        .iter()
        .map(|s| {
            KeyedMac::new(s.as_bytes())
                .unwrap()
                .delivery_tag(b"1700000000", body)
        })
        .collect();
    let bytes = tags.concat();
    // Or their inner hashes, which the crate finishes.
    let inner: Vec<u8> = secrets
        .iter()
        .flat_map(|s| inner_hash(s.as_bytes(), &[b"1700000000", b".", body]))
        .collect();
    for (signer, now) in [
        (0, 1_700_000_000),
        (1, 1_700_000_000),
        (2, 1_700_000_000),
        (2, 1_700_000_200),
        (0, 1_700_000_400),
    ] {
        let sig = sign_webhook(
            &Secret::new(secrets[signer]),
            b"1700000000",
            body,
            SignatureEncoding::Hex,
        )
        .unwrap();
        let with_body = delivery(body, b"1700000000", &sig);
        let without_body = delivery(b"", b"1700000000", &sig);
        let crate_answer = verify_signature(&with_body, &set(), options, now);
        let host_answer =
            verify_signature_tags(&without_body, &set(), options, &bytes, HostHash::Tags, now);
        assert_eq!(host_answer, crate_answer, "signer {signer} at {now}");
        let inner_answer =
            verify_signature_tags(&without_body, &set(), options, &inner, HostHash::Inner, now);
        assert_eq!(
            inner_answer, crate_answer,
            "signer {signer} at {now}, inner hashes"
        );
        // Tags given as inner hashes, or inner hashes as tags, are refused.
        for (given, hashed) in [(&bytes, HostHash::Inner), (&inner, HostHash::Tags)] {
            let code = verify_signature_tags(&without_body, &set(), options, given, hashed, now)
                .map_err(|e| e.code());
            assert!(
                matches!(code, Err("signature_mismatch" | "timestamp_too_old")),
                "{code:?}"
            );
        }
    }
    let sig = sign_webhook(
        &Secret::new(secrets[0]),
        b"1700000000",
        body,
        SignatureEncoding::Hex,
    )
    .unwrap();
    let d = delivery(b"", b"1700000000", &sig);
    let refused = |d: &Delivery<'_>, tags: &[u8]| {
        verify_signature_tags(d, &set(), options, tags, HostHash::Tags, 1_700_000_000)
            .unwrap_err()
            .code()
    };
    let mut wrong = bytes.clone();
    wrong[0] ^= 1;
    assert_eq!(refused(&d, &wrong), "signature_mismatch");
    assert_eq!(refused(&d, &bytes[..64]), "invalid_argument");
    // Not 32 bytes each: refused, but only after the headers (a malformed one first).
    assert_eq!(refused(&d, &bytes[..95]), "invalid_argument");
    let unsigned = delivery(b"", b"1700000000", "");
    assert_eq!(refused(&unsigned, &bytes[..95]), "signature_missing");
}

#[test]
fn rotation_reports_the_first_kind_and_honours_the_overlap() {
    let old = Secret::new("old");
    let new = Secret::new("new");
    let sig = sign_webhook(&old, b"1000", b"x", SignatureEncoding::Hex).unwrap();
    let d = delivery(b"x", b"1000", &sig);
    let set = SecretSet::new(vec![
        SecretEntry::active(new.clone()),
        SecretEntry::retiring(old.clone(), 1100),
    ])
    .unwrap();
    let v = Verifier::new(set, VerifyOptions::new(300));
    assert_eq!(
        v.verify_signature(&d, 1100).unwrap().matched_secret,
        SecretKind::Retiring
    );
    let late = v.verify_signature(&d, 1101).unwrap_err();
    assert_eq!(late.code(), "signature_mismatch");
    assert!(late.to_string().contains("overlap ended"));

    let both = SecretSet::new(vec![
        SecretEntry::pending(old.clone()),
        SecretEntry::active(old),
    ])
    .unwrap();
    let v = Verifier::new(both, VerifyOptions::new(300));
    assert_eq!(
        v.verify_signature(&d, 1000).unwrap().matched_secret,
        SecretKind::Active
    );
}

#[test]
fn whitespace_secret_is_named_in_the_message() {
    let sig = sign_webhook(&Secret::new("s"), b"1000", b"x", SignatureEncoding::Hex).unwrap();
    let v = Verifier::new(
        SecretSet::single(Secret::new("s\n")).unwrap(),
        VerifyOptions::new(5),
    );
    let e = v
        .verify_signature(&delivery(b"x", b"1000", &sig), 1000)
        .unwrap_err();
    assert_eq!(e.code(), "signature_mismatch");
    assert!(e.to_string().contains("whitespace"));
}

#[test]
fn quoted_secret_is_named_in_the_message() {
    let sig = sign_webhook(&Secret::new("s"), b"1000", b"x", SignatureEncoding::Hex).unwrap();
    let v = Verifier::new(
        SecretSet::single(Secret::new("\"s\"")).unwrap(),
        VerifyOptions::new(5),
    );
    let e = v
        .verify_signature(&delivery(b"x", b"1000", &sig), 1000)
        .unwrap_err();
    assert_eq!(e.code(), "signature_mismatch");
    assert!(e.to_string().contains("wrapped in quotes"), "{e}");
}

#[test]
fn the_hmac_is_checked_before_the_skew() {
    let secrets = SecretSet::single(Secret::new("s")).unwrap();
    let options = VerifyOptions::new(0);
    let hex = "00".repeat(32);
    let wrong = verify_signature(&delivery(b"x", b"1", &hex), &secrets, options, 5000);
    assert_eq!(wrong.unwrap_err().code(), "signature_mismatch");
    let sig = sign_webhook(&Secret::new("s"), b"1", b"x", SignatureEncoding::Hex).unwrap();
    let old = verify_signature(&delivery(b"x", b"1", &sig), &secrets, options, 5000);
    assert_eq!(old.unwrap_err().code(), "timestamp_too_old");
}

#[test]
fn a_verifier_is_shareable_across_threads() {
    fn shareable<T: Send + Sync + 'static>() {}
    shareable::<Verifier>();
    shareable::<SecretSet>();
}
