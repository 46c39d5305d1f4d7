//! The unit tests of `error` (kept beside it so that `src/error.rs` stays readable).

use super::*;
use std::collections::HashSet;

#[test]
fn codes_are_unique_snake_case_and_round_trip() {
    let mut seen = HashSet::new();
    for kind in ErrorKind::ALL {
        let code = kind.code();
        assert!(seen.insert(code), "duplicate code {code}");
        assert!(
            code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{code} is not snake_case"
        );
        assert_eq!(ErrorKind::from_code(code), Some(*kind));
    }
    assert_eq!(ErrorKind::ALL.len(), 44);
}

#[test]
fn display_is_the_code_detail_and_remedy() {
    let e = Error::with_detail(ErrorKind::InvalidArgument, "max_skew_secs is required");
    assert_eq!(
        e.to_string(),
        format!(
            "invalid_argument: max_skew_secs is required; {}",
            ErrorKind::InvalidArgument.help()
        )
    );
    assert_eq!(
        Error::new(ErrorKind::SignatureMismatch).to_string(),
        format!(
            "signature_mismatch: {}",
            ErrorKind::SignatureMismatch.help()
        )
    );
    assert_eq!(e.detail(), Some("max_skew_secs is required"));
    assert_eq!(Error::from(ErrorKind::NoSecrets).detail(), None);
}

/// JavaScript's names and framework hints, which belong to the binding (bindings/wasm/) and
/// the npm package.
const JAVASCRIPT: [&str; 14] = [
    "maxSkewSecs",
    "nowSecs",
    "maxBodyBytes",
    "acceptUntilSecs",
    "websiteOrigin",
    "paymentId",
    "Uint8Array",
    "ArrayBuffer",
    "Express",
    "Next.js",
    "Workers",
    "toAmountRaw",
    "buildSourceAmount",
    "timestampHeader",
];

#[test]
fn messages_speak_rust() {
    for kind in ErrorKind::ALL {
        for name in JAVASCRIPT {
            for text in [kind.message(), kind.help()] {
                assert!(!text.contains(name), "{}: names {name}", kind.code());
            }
        }
    }
}

/// Every message that states a limit states the constant's value: the constants are the
/// source of truth, these texts (static, so written out) are checked against them.
#[test]
fn messages_state_the_limits_they_name() {
    use crate::amount::MAX_DECIMALS;
    use crate::idempotency::MAX_IDEMPOTENCY_KEY_LEN;
    use crate::json::MAX_DEPTH;
    use crate::options::{
        CLOCK_FROM, MAX_BODY_BYTES_RANGE, MAX_MAX_BODY_BYTES, NOW_BEFORE_2001, NOW_IN_MILLISECONDS,
    };
    use crate::origin::{MAX_WEBHOOK_URL_BYTES, WEBHOOK_URL_TOO_LONG};
    use crate::secret_set::{
        MAX_SECRETS, MILLISECONDS_FROM, TOO_MANY_SECRETS, UNTIL_IN_MILLISECONDS,
    };
    use crate::signature::{
        MAX_CANDIDATES, MAX_SIGNATURE_HEADER_BYTES, SIGNATURE_HEADER_TOO_LONG, TOO_MANY_CANDIDATES,
    };
    use crate::timestamp::{MAX_TIMESTAMP_DIGITS, TIMESTAMP_TOO_LONG};
    let mib = MAX_MAX_BODY_BYTES / (1024 * 1024);
    let stated = [
        (
            ErrorKind::TimestampMalformed.help(),
            format!("1 to {MAX_TIMESTAMP_DIGITS} ASCII digits"),
        ),
        (
            TIMESTAMP_TOO_LONG,
            format!("more than {MAX_TIMESTAMP_DIGITS} digits"),
        ),
        (
            ErrorKind::EventNotJson.help(),
            format!("nesting at most {MAX_DEPTH} levels"),
        ),
        (
            ErrorKind::SignatureMalformed.help(),
            format!("up to {MAX_CANDIDATES} HMAC-SHA256 values"),
        ),
        (
            TOO_MANY_CANDIDATES,
            format!("more than {MAX_CANDIDATES} signatures"),
        ),
        (
            SIGNATURE_HEADER_TOO_LONG,
            format!("longer than {MAX_SIGNATURE_HEADER_BYTES} bytes"),
        ),
        (TOO_MANY_SECRETS, format!("at most {MAX_SECRETS} entries")),
        (
            UNTIL_IN_MILLISECONDS,
            format!("{} digits or more", MILLISECONDS_FROM.to_string().len()),
        ),
        (
            NOW_IN_MILLISECONDS,
            format!("{} digits or more", MILLISECONDS_FROM.to_string().len()),
        ),
        (NOW_BEFORE_2001, format!("under {CLOCK_FROM}, before")),
        (
            MAX_BODY_BYTES_RANGE,
            format!("from 1 to {MAX_MAX_BODY_BYTES} ({mib} MiB)"),
        ),
        (
            ErrorKind::WebhookUrlMalformed.help(),
            format!("at most {MAX_WEBHOOK_URL_BYTES} ASCII characters"),
        ),
        (
            WEBHOOK_URL_TOO_LONG,
            format!("longer than {MAX_WEBHOOK_URL_BYTES} bytes"),
        ),
        (
            ErrorKind::IdempotencyKeyInvalid.help(),
            format!("1 to {MAX_IDEMPOTENCY_KEY_LEN} visible ASCII"),
        ),
        (
            ErrorKind::DecimalsInvalid.help(),
            format!("from 0 to {MAX_DECIMALS}"),
        ),
        (
            ErrorKind::StoreSourceInvalid.help(),
            format!("decimals (0 to {MAX_DECIMALS})"),
        ),
        (
            ErrorKind::TimestampMalformed.message(),
            format!("1 to {MAX_TIMESTAMP_DIGITS} ASCII digits"),
        ),
        (
            ErrorKind::DecimalsInvalid.message(),
            format!("from 0 to {MAX_DECIMALS}"),
        ),
        (
            ErrorKind::IdempotencyKeyInvalid.message(),
            format!("1 to {MAX_IDEMPOTENCY_KEY_LEN} visible ASCII"),
        ),
    ];
    for (text, limit) in stated {
        assert!(text.contains(&limit), "{text:?} does not state {limit:?}");
    }
    // The retry schedule's details, as the checks that refuse past the limits word them.
    use crate::service::{MAX_RETRY_DELAY_MS, MAX_RETRY_DELAYS, validate_retry_delays};
    let too_many = vec![0; MAX_RETRY_DELAYS + 1];
    let too_long = [MAX_RETRY_DELAY_MS + 1];
    for (refused, limit) in [
        (
            validate_retry_delays(&too_many),
            format!("at most {MAX_RETRY_DELAYS} delays"),
        ),
        (
            validate_retry_delays(&too_long),
            format!("from 0 to {MAX_RETRY_DELAY_MS} ms"),
        ),
    ] {
        let detail = refused.unwrap_err().detail().unwrap_or_default();
        assert!(
            detail.contains(&limit),
            "{detail:?} does not state {limit:?}"
        );
    }
}

/// The details too: no string literal of the core (outside its tests) names a JavaScript
/// option or type, or a framework.
#[test]
fn details_speak_rust() {
    fn literals(line: &str) -> impl Iterator<Item = &str> {
        line.split('"').skip(1).step_by(2)
    }
    fn visit(dir: &std::path::Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                visit(&path, found);
                continue;
            }
            // A module's unit tests are its `tests.rs`, or sit at its end after `#[cfg(test)]`.
            if path.ends_with("tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (n, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for literal in literals(line) {
                    if let Some(name) = JAVASCRIPT.iter().find(|name| literal.contains(*name)) {
                        found.push(format!("{}:{}: {name}", path.display(), n + 1));
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    visit(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut found,
    );
    assert!(
        found.is_empty(),
        "JavaScript names in the core's messages: {found:?}"
    );
}

#[test]
fn event_errors_are_the_authentic_deliveries_kept_in_quarantine() {
    let event: Vec<&str> = ErrorKind::ALL
        .iter()
        .filter(|kind| kind.is_event_error())
        .map(|kind| kind.code())
        .collect();
    assert_eq!(
        event,
        [
            "event_not_json",
            "event_malformed",
            "event_duplicate_key",
            "event_type_unknown",
            "status_version_invalid"
        ]
    );
}

/// What a log line says names the fix, however it is formatted: `{}`, `{:#}`, or through a
/// wrapper that formats its source with `{}` (anyhow, tracing's `%e`).
#[test]
fn every_form_names_the_fix() {
    for kind in ErrorKind::ALL {
        let plain = Error::new(*kind);
        assert!(plain.to_string().ends_with(kind.help()), "{plain}");
        assert_eq!(format!("{plain:#}"), plain.to_string());
        let boxed: Box<dyn std::error::Error> = Box::new(plain);
        assert_eq!(boxed.to_string(), plain.to_string());
    }
}

#[test]
fn the_receivers_own_refusals_are_told_from_the_deliveries() {
    use crate::{
        Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions, sign_webhook,
    };
    let verifier = |secret: &str| {
        Verifier::new(
            SecretSet::single(Secret::new(secret)).unwrap(),
            VerifyOptions::new(300),
        )
    };
    let signature = sign_webhook(
        &Secret::new("whsec_k"),
        b"1700000000",
        b"{}",
        SignatureEncoding::Hex,
    )
    .unwrap();
    let delivery = Delivery {
        body: b"{}",
        timestamp: b"1700000000",
        signature: signature.as_bytes(),
    };
    let fault = |secret: &str, delivery: &Delivery<'_>, now: u64| {
        let e = verifier(secret)
            .verify_signature(delivery, now)
            .unwrap_err();
        (e.code(), e.is_receiver_fault())
    };
    // The receiver's: a clock in milliseconds, a secret saved with a newline or quotes, the
    // header names swapped.
    assert_eq!(
        fault("whsec_k", &delivery, 1_700_000_000_000),
        ("timestamp_too_old", true)
    );
    // Signed with a retiring secret, inside its overlap: a clock in milliseconds reads past
    // the bound, and is still the receiver's (not the final refusal of an ended overlap).
    let rotating = Verifier::new(
        SecretSet::new(vec![
            crate::SecretEntry::active(Secret::new("whsec_new")),
            crate::SecretEntry::retiring(Secret::new("whsec_k"), 1_700_003_600),
        ])
        .unwrap(),
        VerifyOptions::new(300),
    );
    let rotated = |now: u64| {
        let e = rotating.verify_signature(&delivery, now).unwrap_err();
        (e.code(), e.is_receiver_fault())
    };
    assert_eq!(rotated(1_700_000_000_000), ("timestamp_too_old", true));
    assert_eq!(rotated(1_700_003_601), ("signature_mismatch", false));
    assert_eq!(
        rotating
            .verify_signature(&delivery, 1_700_000_060)
            .unwrap()
            .matched_secret,
        crate::SecretKind::Retiring
    );
    assert_eq!(
        fault("whsec_k\n", &delivery, 1_700_000_000),
        ("signature_mismatch", true)
    );
    assert_eq!(
        fault("\"whsec_k\"", &delivery, 1_700_000_000),
        ("signature_mismatch", true)
    );
    let swapped = Delivery {
        body: b"{}",
        timestamp: signature.as_bytes(),
        signature: b"1700000000",
    };
    assert_eq!(
        fault("whsec_k", &swapped, 1_700_000_000),
        ("timestamp_malformed", true)
    );
    // A timestamp that only reads as a signature is the delivery's: a sender without the
    // secret (a made-up tag, the header values of another secret's delivery swapped, a
    // signature alone) cannot make it a 5xx.
    for (secret, forged) in [
        ("whsec_other", swapped),
        (
            "whsec_k",
            Delivery {
                timestamp: b"v1=hello",
                signature: b"1700000000",
                ..swapped
            },
        ),
        (
            "whsec_k",
            Delivery {
                signature: b"v1=00",
                ..swapped
            },
        ),
    ] {
        let e = verifier(secret)
            .verify_signature(&forged, 1_700_000_000)
            .unwrap_err();
        assert_eq!(
            (e.code(), e.is_receiver_fault()),
            ("timestamp_malformed", false)
        );
        assert!(
            e.to_string()
                .contains("are the timestamp and signature header names swapped?"),
            "{e}"
        );
    }
    // From the future (authentic: no replay is ahead of the clock): a clock, 500.
    assert_eq!(
        fault("whsec_k", &delivery, 1_699_999_699),
        ("timestamp_in_future", true)
    );
    // The delivery's: forged, stale, a timestamp in milliseconds.
    assert_eq!(
        fault("whsec_other", &delivery, 1_700_000_000),
        ("signature_mismatch", false)
    );
    assert_eq!(
        fault("whsec_k", &delivery, 1_700_000_301),
        ("timestamp_too_old", false)
    );
    let millis = Delivery {
        timestamp: b"1700000000000",
        ..delivery
    };
    assert_eq!(
        fault("whsec_k", &millis, 1_700_000_000),
        ("timestamp_malformed", false)
    );
    // Every invalid argument, every missing secret (an environment variable unset or empty)
    // and every authentic delivery from the future is the receiver's; no other kind without
    // its detail is.
    for kind in ErrorKind::ALL {
        let plain = Error::new(*kind);
        assert_eq!(
            plain.is_receiver_fault(),
            matches!(
                *kind,
                ErrorKind::InvalidArgument
                    | ErrorKind::NoSecrets
                    | ErrorKind::SecretEmpty
                    | ErrorKind::TimestampInFuture
            ),
            "{kind:?}"
        );
    }
}

/// A version the receiver's own store gave back unreadable is its fault (5xx, retried once the
/// column is fixed), never an event error (2xx, the delivery acknowledged unapplied); the
/// event's own version stays an event error, with either reading of the answer rule.
#[test]
fn a_stored_version_is_the_receivers_fault_not_the_events() {
    use crate::StatusVersion;
    for text in [
        "7.00",
        "1e+20",
        "1.8446744073709552e19",
        " 7",
        "07",
        "-1",
        "",
    ] {
        let stored = StatusVersion::parse_stored(text).unwrap_err();
        assert_eq!(stored.code(), "status_version_invalid", "{text:?}");
        assert!(
            stored.is_receiver_fault() && !stored.is_event_error(),
            "{text:?}"
        );
        assert!(
            stored.to_string().contains("answer the delivery 5xx"),
            "{stored}"
        );
        let incoming = StatusVersion::parse(text).unwrap_err();
        assert!(
            incoming.is_event_error() && !incoming.is_receiver_fault(),
            "{text:?}"
        );
    }
    assert_eq!(
        StatusVersion::parse_stored("18446744073709551617").map(|v| v.as_str().to_owned()),
        Ok("18446744073709551617".to_owned())
    );
    // Without a receiver fault, the error's answer is its kind's.
    for kind in ErrorKind::ALL {
        let plain = Error::new(*kind);
        assert_eq!(plain.is_event_error(), kind.is_event_error(), "{kind:?}");
    }
}
