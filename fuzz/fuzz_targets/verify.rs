//! The whole verification: arbitrary body, timestamp, signature header, secret set (0 to 5
//! entries of any kind, with or without `accept_until_secs`), `now_secs`, skew and body
//! limit. The set is built as a `SecretSet` exactly when an independent reading of the rules
//! says it may be; then `Verifier` (`verify_signature`, `verify_webhook`) and the one-shot
//! `verify_signature` / `verify_webhook` must agree.
//!
//! Then a delivery signed with one of the secrets is checked against a full oracle (body
//! limit, which secrets are usable, which kind matches, the two-sided inclusive skew), and
//! one byte of its body, timestamp or signature is changed: the changed delivery never
//! verifies, unless the changed header still carries the same tag in an accepted spelling
//! (hex in another case; base64 in the other alphabet, or unpadded: a padding `=` turned
//! into a space or tab, a separator, leaves the unpadded value).
//!
//! Input, one field per line: now, skew, body limit (0: the default), mutation selector,
//! number of secrets, one line per secret (`a`/`p`/`r` + secret; `A`/`P`/`R` + until +
//! `:` + secret), timestamp, signature, then the body (the rest, newlines included).
#![no_main]

use cryptopay_verify::{
    Delivery, Error, ErrorKind, MAX_MAX_BODY_BYTES, MAX_SECRETS, Secret, SecretEntry, SecretKind,
    SecretSet, SignatureEncoding, Verified, Verifier, VerifyOptions, parse_event, parse_timestamp,
    request_fingerprint, sign_webhook, verify_signature, verify_webhook,
};
use cryptopay_verify_fuzz::{Fields, TagSpellings, checked, number};
use libfuzzer_sys::fuzz_target;

const SIGNATURE_CODES: &[ErrorKind] = &[
    ErrorKind::InvalidArgument,
    ErrorKind::BodyTooLarge,
    ErrorKind::TimestampMissing,
    ErrorKind::TimestampMalformed,
    ErrorKind::SignatureMissing,
    ErrorKind::SignatureMalformed,
    ErrorKind::NoSecrets,
    ErrorKind::SecretEmpty,
    ErrorKind::SignatureMismatch,
    ErrorKind::TimestampTooOld,
    ErrorKind::TimestampInFuture,
];

/// What `verify_webhook` adds to those of `verify_signature`: those of `parse_event`.
const EVENT_CODES: &[ErrorKind] = &[
    ErrorKind::EventNotJson,
    ErrorKind::EventDuplicateKey,
    ErrorKind::EventMalformed,
    ErrorKind::EventTypeUnknown,
    ErrorKind::StatusVersionInvalid,
];

/// The codes the delivery itself can produce before the secret material is looked at.
const DELIVERY_CODES: &[ErrorKind] = &[
    ErrorKind::BodyTooLarge,
    ErrorKind::TimestampMissing,
    ErrorKind::TimestampMalformed,
    ErrorKind::SignatureMissing,
    ErrorKind::SignatureMalformed,
];

/// One entry of the secret set as the input describes it.
#[derive(Clone)]
struct Spec {
    kind: SecretKind,
    until: Option<u64>,
    key: Vec<u8>,
}

impl Spec {
    /// One secret line: a kind letter (uppercase: with `accept_until_secs` up to a `:`),
    /// then the secret. Any other first byte picks a kind by its value, with an until if
    /// its top bit is set.
    fn read(line: &[u8]) -> Spec {
        let (first, rest) = line.split_first().map_or((b'a', &[][..]), |(f, r)| (*f, r));
        let kind = match first.to_ascii_lowercase() {
            b'a' => SecretKind::Active,
            b'p' => SecretKind::Pending,
            b'r' => SecretKind::Retiring,
            other => [
                SecretKind::Active,
                SecretKind::Pending,
                SecretKind::Retiring,
            ][usize::from(other % 3)],
        };
        let with_until = first.is_ascii_uppercase() || first >= 0x80;
        let (until, key) = match rest.iter().position(|&b| b == b':') {
            Some(colon) if with_until => (Some(number(&rest[..colon])), &rest[colon + 1..]),
            _ if with_until => (Some(number(rest)), &[][..]),
            _ => (None, rest),
        };
        Spec {
            kind,
            until,
            key: key.to_vec(),
        }
    }

    fn entry(&self) -> Result<SecretEntry, Error> {
        SecretEntry::new(Secret::new(&self.key), self.kind, self.until)
    }

    /// Whether the entry may verify at `now` (a retiring one only until its bound).
    fn usable(&self, now: u64) -> bool {
        self.kind != SecretKind::Retiring || self.until.is_some_and(|u| now <= u)
    }
}

/// The set as `SecretSet` builds it, checked against an independent reading of the rules:
/// 1 to 4 entries, exactly one active, a bound on retiring entries only (and on each of
/// them), below 10^12 (a bound in milliseconds is refused), no empty secret; shape errors
/// before material ones.
fn set_of(specs: &[Spec]) -> Result<SecretSet, Error> {
    let built = specs
        .iter()
        .map(Spec::entry)
        .collect::<Result<Vec<_>, Error>>()
        .and_then(SecretSet::new);
    let bounds_ok = specs
        .iter()
        .all(|s| (s.kind == SecretKind::Retiring) == s.until.is_some());
    let actives = specs
        .iter()
        .filter(|s| s.kind == SecretKind::Active)
        .count();
    let expected = if !bounds_ok || specs.len() > MAX_SECRETS {
        Err(ErrorKind::InvalidArgument)
    } else if specs.is_empty() {
        Err(ErrorKind::NoSecrets)
    } else if actives != 1
        || specs
            .iter()
            .any(|s| s.until.is_some_and(|u| u >= 1_000_000_000_000))
    {
        Err(ErrorKind::InvalidArgument)
    } else if specs.iter().any(|s| s.key.is_empty()) {
        Err(ErrorKind::SecretEmpty)
    } else {
        Ok(specs.len())
    };
    let built = checked(
        built,
        &[
            ErrorKind::InvalidArgument,
            ErrorKind::NoSecrets,
            ErrorKind::SecretEmpty,
        ],
    );
    assert_eq!(
        built.as_ref().map(SecretSet::len).map_err(|e| e.kind()),
        expected,
        "SecretSet::new"
    );
    built
}

/// Verifies `delivery` every way; asserts that the ways agree; returns the result (a set
/// that cannot be built is its error).
fn verify_all_ways(
    specs: &[Spec],
    options: VerifyOptions,
    delivery: &Delivery<'_>,
    now: u64,
) -> Result<Verified, Error> {
    let set = match set_of(specs) {
        Ok(set) => set,
        Err(e) => {
            // What needs no secret is still checked, with the delivery's codes only.
            let _ = checked(delivery.check(&options), DELIVERY_CODES);
            return Err(e);
        }
    };
    let one_shot = checked(
        verify_signature(delivery, &set, options, now),
        SIGNATURE_CODES,
    );
    let one_shot_webhook = checked(
        verify_webhook(delivery, &set, options, now),
        &[SIGNATURE_CODES, EVENT_CODES].concat(),
    );
    let verifier = Verifier::new(set, options);
    assert_eq!(verifier.options(), options);
    let result = verifier.verify_signature(delivery, now);
    assert_eq!(result, one_shot, "Verifier and verify_signature disagree");
    let webhook = verifier.verify_webhook(delivery, now);
    assert_eq!(
        webhook, one_shot_webhook,
        "Verifier and verify_webhook disagree"
    );
    // verify_webhook = verify_signature, then parse_event on the same bytes.
    match (&result, &webhook) {
        (Err(a), Err(b)) => assert_eq!(a, b),
        (Ok(v), Ok(w)) => {
            assert_eq!(parse_event(delivery.body).as_ref(), Ok(&w.event));
            assert_eq!(v.matched_secret, w.matched_secret);
            assert_eq!(v.timestamp, w.timestamp);
        }
        (Ok(_), Err(e)) => assert_eq!(parse_event(delivery.body).err(), Some(*e)),
        (Err(_), Ok(_)) => panic!("verify_webhook accepted what verify_signature refused"),
    }
    // The checks that need no secret agree with the verification's first steps.
    match delivery.check(&options) {
        Ok(ts) => {
            if let Ok(v) = &result {
                assert_eq!(v.timestamp, ts);
            }
        }
        Err(e) => assert_eq!(result.as_ref().err(), Some(&e)),
    }
    if let Ok(v) = &one_shot {
        // Accepted: within the limit, a well-formed timestamp within the skew.
        assert!(delivery.body.len() <= options.max_body_bytes());
        assert_eq!(parse_timestamp(delivery.timestamp), Ok(v.timestamp));
        assert!(v.timestamp.abs_diff(now) <= options.max_skew_secs());
    }
    one_shot
}

/// Whether two secrets key HMAC-SHA256 alike (RFC 2104): a key longer than the 64-byte
/// block is replaced by its SHA-256, and every key is padded with zero bytes to the block,
/// so keys that differ only in trailing zero bytes are the same key.
fn same_hmac_key(a: &[u8], b: &[u8]) -> bool {
    fn block_key(key: &[u8]) -> Vec<u8> {
        let mut k = if key.len() > 64 {
            let hex = request_fingerprint(key);
            (0..32)
                .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex"))
                .collect()
        } else {
            key.to_vec()
        };
        while k.last() == Some(&0) {
            k.pop();
        }
        k
    }
    block_key(a) == block_key(b)
}

fn skew_error(ts: u64, now: u64, skew: u64) -> Option<ErrorKind> {
    if ts.abs_diff(now) <= skew {
        None
    } else if ts < now {
        Some(ErrorKind::TimestampTooOld)
    } else {
        Some(ErrorKind::TimestampInFuture)
    }
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let now = fields.number();
    let skew = fields.number();
    let max_body = fields.number();
    let mutation = fields.number();
    let count = usize::try_from(fields.number() % (MAX_SECRETS as u64 + 2)).unwrap_or(0);
    let specs: Vec<Spec> = (0..count).map(|_| Spec::read(fields.line())).collect();
    let timestamp = fields.line();
    let signature = fields.line();
    let body = fields.rest();

    let options = if max_body == 0 {
        VerifyOptions::new(skew)
    } else {
        let limit = usize::try_from(max_body).unwrap_or(usize::MAX);
        match checked(
            VerifyOptions::new(skew).with_max_body_bytes(limit),
            &[ErrorKind::InvalidArgument],
        ) {
            Ok(options) => options,
            Err(_) => {
                assert!(limit > MAX_MAX_BODY_BYTES);
                return;
            }
        }
    };
    assert_eq!(options.max_skew_secs(), skew);

    // 1. The delivery as given.
    let delivery = Delivery {
        body,
        timestamp,
        signature,
    };
    let _ = verify_all_ways(&specs, options, &delivery, now);

    // 2. A delivery signed with one of the secrets. An unusable set is replaced by one
    // active secret (the first non-empty one, or a fixed one).
    let specs = if set_of(&specs).is_ok() {
        specs
    } else {
        let key = specs
            .iter()
            .map(|s| s.key.clone())
            .find(|k| !k.is_empty())
            .unwrap_or_else(|| b"whsec_fuzz".to_vec());
        vec![Spec {
            kind: SecretKind::Active,
            until: None,
            key,
        }]
    };
    let signer = &specs[usize::try_from(mutation % specs.len() as u64).unwrap_or(0)];
    let ts_text: Vec<u8> = match parse_timestamp(timestamp) {
        Ok(_) => timestamp.to_vec(),
        Err(_) => (now % 1_000_000_000_000).to_string().into_bytes(),
    };
    let ts = parse_timestamp(&ts_text).expect("a valid timestamp");
    let encoding = if mutation & 0x100 == 0 {
        SignatureEncoding::Hex
    } else {
        SignatureEncoding::Base64
    };
    let tag = sign_webhook(&Secret::new(&signer.key), &ts_text, body, encoding).expect("signs");
    let prefix: Vec<u8> = match ((mutation >> 9) % 4, encoding) {
        (0, _) => Vec::new(),
        (1, _) => b"v1=".to_vec(),
        (2, SignatureEncoding::Hex) => b"sha256=".to_vec(),
        (2, _) => b"v1,".to_vec(),
        _ => [&b"t="[..], &ts_text, b",v1="].concat(),
    };
    let header = [&prefix[..], tag.as_bytes()].concat();
    let signed = Delivery {
        body,
        timestamp: &ts_text,
        signature: &header,
    };

    // The oracle: the usable entries with the signer's key, the first kind among them.
    let matched = specs
        .iter()
        .filter(|s| same_hmac_key(&s.key, &signer.key) && s.usable(now))
        .map(|s| s.kind)
        .min();
    let expected = if body.len() > options.max_body_bytes() {
        Err(ErrorKind::BodyTooLarge)
    } else if let Some(kind) = matched {
        match skew_error(ts, now, skew) {
            Some(e) => Err(e),
            None => Ok((kind, ts)),
        }
    } else if now >= 1_000_000_000_000 && specs.iter().any(|s| same_hmac_key(&s.key, &signer.key)) {
        // Only a retiring secret past its bound has the signer's key, and the clock reads
        // milliseconds: the receiver's clock, as for a usable secret.
        Err(ErrorKind::TimestampTooOld)
    } else {
        Err(ErrorKind::SignatureMismatch)
    };
    let result = verify_all_ways(&specs, options, &signed, now);
    assert_eq!(
        result
            .map(|v| (v.matched_secret, v.timestamp))
            .map_err(|e| e.kind()),
        expected,
        "a signed delivery"
    );

    // One byte changed: never verifies (but for the same tag spelled otherwise).
    let delta = u8::try_from((mutation >> 40) & 0xff).unwrap_or(1).max(1);
    let position = usize::try_from((mutation >> 16) & 0xffff).unwrap_or(0);
    let mut body_m = body.to_vec();
    let mut ts_m = ts_text.clone();
    let mut header_m = header.clone();
    let target: &mut Vec<u8> = match mutation % 3 {
        0 if !body_m.is_empty() => &mut body_m,
        0 | 1 => &mut ts_m,
        _ => &mut header_m,
    };
    let at = position % target.len();
    target[at] ^= delta;
    let mutated = Delivery {
        body: &body_m,
        timestamp: &ts_m,
        signature: &header_m,
    };
    if let Ok(v) = verify_all_ways(&specs, options, &mutated, now) {
        let spellings = TagSpellings::of(&signer.key, &ts_text, body).expect("signs");
        assert!(
            body_m == body && ts_m == ts_text && spellings.appear_in(&header_m),
            "a changed delivery verified: {v:?}"
        );
    }
});
