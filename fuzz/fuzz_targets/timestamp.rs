//! `parse_timestamp` on arbitrary bytes, against an independent reading of the grammar
//! (1 to 12 ASCII digits, leading zeros allowed, no trimming); `sign_webhook` accepts exactly the
//! timestamps that parse, and the signed delivery is fresh at that second and at no other
//! with a skew of 0.
#![no_main]

use cryptopay_verify::{
    Delivery, ErrorKind, MAX_TIMESTAMP_DIGITS, Secret, SecretSet, SignatureEncoding, Verifier,
    VerifyOptions, parse_timestamp, sign_webhook,
};
use cryptopay_verify_fuzz::checked;
use libfuzzer_sys::fuzz_target;

fn expected(data: &[u8]) -> Result<u64, ErrorKind> {
    if data.is_empty() {
        return Err(ErrorKind::TimestampMissing);
    }
    if data.len() > MAX_TIMESTAMP_DIGITS || !data.iter().all(u8::is_ascii_digit) {
        return Err(ErrorKind::TimestampMalformed);
    }
    let text = std::str::from_utf8(data).map_err(|_| ErrorKind::TimestampMalformed)?;
    text.parse::<u64>()
        .map_err(|_| ErrorKind::TimestampMalformed)
}

fuzz_target!(|data: &[u8]| {
    let parsed = checked(
        parse_timestamp(data),
        &[ErrorKind::TimestampMissing, ErrorKind::TimestampMalformed],
    );
    assert_eq!(parsed.map_err(|e| e.kind()), expected(data));

    let secret = Secret::new("whsec_fuzz_timestamp");
    let body = b"{}";
    let signed = sign_webhook(&secret, data, body, SignatureEncoding::Hex);
    assert_eq!(
        signed.as_ref().map(|_| ()).map_err(|e| e.kind()),
        parsed.map(|_| ()).map_err(|e| e.kind()),
        "sign and parse_timestamp disagree"
    );
    let (Ok(ts), Ok(signature)) = (parsed, signed) else {
        return;
    };
    assert!(ts < 1_000_000_000_000);
    let set = SecretSet::single(secret).expect("a valid one-secret set");
    let verifier = Verifier::new(set, VerifyOptions::new(0));
    let delivery = Delivery {
        body,
        timestamp: data,
        signature: signature.as_bytes(),
    };
    let at = |now: u64| {
        verifier
            .verify_signature(&delivery, now)
            .map_err(|e| e.kind())
    };
    assert_eq!(at(ts).map(|v| v.timestamp), Ok(ts));
    assert_eq!(at(ts + 1).err(), Some(ErrorKind::TimestampTooOld));
    assert_eq!(at(u64::MAX).err(), Some(ErrorKind::TimestampTooOld));
    if let Some(before) = ts.checked_sub(1) {
        assert_eq!(at(before).err(), Some(ErrorKind::TimestampInFuture));
        assert_eq!(at(0).err(), Some(ErrorKind::TimestampInFuture));
    }
});
