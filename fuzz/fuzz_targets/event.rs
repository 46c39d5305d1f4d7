//! `parse_event` on arbitrary bytes, differentially against a reference reader
//! (`cryptopay_verify_fuzz::reference_json`: serde_json's `RawValue` level by level, an
//! obviously right and slower way to read the same strict JSON). No panic; only the
//! documented codes; not JSON and repeated keys exactly when the reference says so; a parsed
//! event's identifiers, `occurred_at`, exact `status_version` and `data` text are the
//! reference's; the numbers a double cannot hold are located exactly (the spans the binding
//! quotes for JavaScript); what `check_event` tells the binding (all ASCII, a lossy number)
//! agrees with std and the reference; the envelope's checks follow the documented order; the
//! body signed and verified with `verify_webhook` gives exactly `parse_event`'s result.
#![no_main]

use std::sync::LazyLock;

use cryptopay_verify::__fuzzing::{inexact_numbers, text_survives_f64};
use cryptopay_verify::{
    Decision, Delivery, ErrorKind, OccurredAt, PAYMENT_UPDATED, Secret, SecretSet,
    SignatureEncoding, StatusVersion, Stored, Verifier, VerifyOptions, decide_event,
    doubles::check_event, parse_event, sign_webhook,
};
use cryptopay_verify_fuzz::{RefRefusal, RefValue, checked, reference_envelope, reference_json};
use libfuzzer_sys::fuzz_target;

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
    let set = SecretSet::single(Secret::new(SECRET)).expect("a valid one-secret set");
    Verifier::new(set, VerifyOptions::new(300))
});

fn unsigned_integer(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// What `parse_event` must answer, read from the reference's tree.
fn expected(top: &RefValue) -> Result<(), ErrorKind> {
    let RefValue::Object(_) = top else {
        return Err(ErrorKind::EventMalformed);
    };
    match top.field("event_type") {
        Some((RefValue::Str(t), _)) if t == PAYMENT_UPDATED => {}
        Some((RefValue::Str(_), _)) => return Err(ErrorKind::EventTypeUnknown),
        _ => return Err(ErrorKind::EventMalformed),
    }
    match top.field("schema_version") {
        Some((RefValue::Str(_), _)) => {}
        Some((RefValue::Num(n), _)) if unsigned_integer(n) => {}
        _ => return Err(ErrorKind::EventMalformed),
    }
    if !matches!(top.field("event_id"), Some((RefValue::Str(s), _)) if !s.is_empty()) {
        return Err(ErrorKind::EventMalformed);
    }
    if !matches!(
        top.field("occurred_at"),
        Some((RefValue::Str(_) | RefValue::Num(_), _))
    ) {
        return Err(ErrorKind::EventMalformed);
    }
    let Some((data @ RefValue::Object(_), _)) = top.field("data") else {
        return Err(ErrorKind::EventMalformed);
    };
    if !matches!(data.field("payment_id"), Some((RefValue::Str(s), _)) if !s.is_empty()) {
        return Err(ErrorKind::EventMalformed);
    }
    let version = match data.field("status_version") {
        None => return Err(ErrorKind::EventMalformed),
        Some((RefValue::Str(s), _)) => s.as_str(),
        Some((RefValue::Num(n), _)) if unsigned_integer(n) => n.as_str(),
        Some(_) => return Err(ErrorKind::StatusVersionInvalid),
    };
    StatusVersion::parse(version)
        .map(|_| ())
        .map_err(|e| e.kind())
}

/// Every number of a reference tree, as its text.
fn numbers<'a>(value: &'a RefValue, out: &mut Vec<&'a str>) {
    match value {
        RefValue::Num(text) => out.push(text),
        RefValue::Object(pairs) => pairs.iter().for_each(|(_, v, _)| numbers(v, out)),
        RefValue::Array(items) => items.iter().for_each(|v| numbers(v, out)),
        RefValue::Str(_) | RefValue::Literal | RefValue::Null => {}
    }
}

/// A decimal text's value as (negative, significant digits, exponent E of 0.digits × 10^E),
/// zero as (false, "", 0); `None` when the exponent does not fit an i128.
fn decimal(text: &str) -> Option<(bool, String, i128)> {
    let (negative, rest) = text
        .strip_prefix('-')
        .map_or((false, text), |rest| (true, rest));
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i128>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    if significant.is_empty() {
        return Some((false, String::new(), 0));
    }
    let point = i128::try_from(int.len()).ok()? + exponent - i128::try_from(leading).ok()?;
    Some((negative, significant.to_owned(), point))
}

/// The spans the binding quotes for JavaScript (`inexact_numbers`): exactly the numbers a
/// double cannot hold, each a whole number token; quoted, the document is still JSON to the
/// reference and holds no such number any more.
fn check_inexact_spans(data: &[u8], reference: &Result<RefValue, RefRefusal>) {
    let spans = inexact_numbers(data);
    let Ok(top) = reference else {
        assert!(
            spans.is_none(),
            "spans for a document the reference refuses"
        );
        return;
    };
    let spans = spans.expect("spans for a document the reference reads");
    let mut all = Vec::new();
    numbers(top, &mut all);
    // What the crate says a double keeps, std's parser and shortest printer agree with: the
    // nearest double prints as the same decimal value (an oracle of its own, not the
    // crate's rule; the crate may call more numbers inexact than are, never fewer).
    for number in all.iter().filter(|n| text_survives_f64(n)) {
        let double: f64 = number.parse().expect("a JSON number parses as f64");
        assert!(double.is_finite(), "{number} said to survive as {double}");
        if let (Some(text), Some(printed)) = (decimal(number), decimal(&format!("{double:e}"))) {
            assert_eq!(
                text, printed,
                "{number} said to survive, but reads back as {double:e}"
            );
        }
    }
    let inexact = all.iter().filter(|n| !text_survives_f64(n)).count();
    assert_eq!(spans.len(), inexact, "one span per inexact number");
    let mut quoted = Vec::with_capacity(data.len() + 2 * spans.len());
    let mut at = 0;
    for span in &spans {
        assert!(
            span.start >= at && span.end > span.start,
            "spans in order, apart"
        );
        let text = std::str::from_utf8(&data[span.clone()]).expect("a number is ASCII");
        assert!(
            !text_survives_f64(text),
            "a span that a double holds: {text}"
        );
        quoted.extend_from_slice(&data[at..span.start]);
        quoted.push(b'"');
        quoted.extend_from_slice(text.as_bytes());
        quoted.push(b'"');
        at = span.end;
    }
    quoted.extend_from_slice(&data[at..]);
    let rewritten = reference_json(&quoted).expect("the quoted document is JSON");
    let mut left = Vec::new();
    numbers(&rewritten, &mut left);
    assert!(
        left.iter().all(|n| text_survives_f64(n)),
        "an inexact number left unquoted"
    );
    assert_eq!(
        left.len() + spans.len(),
        all.len(),
        "only the spans' numbers became strings"
    );
}

fuzz_target!(|data: &[u8]| {
    let parsed = checked(parse_event(data), EVENT_CODES);
    let envelope = reference_envelope(data);
    // A key repeated below the top level is event_duplicate_key, unless event_type is a
    // string other than payment.updated: event_type_unknown is reported first.
    let want = match &envelope {
        Err(RefRefusal::NotJson) => Err(ErrorKind::EventNotJson),
        Err(RefRefusal::DuplicateKey) => Err(ErrorKind::EventDuplicateKey),
        Ok((top, true)) => match top.field("event_type") {
            Some((RefValue::Str(t), _)) if t != PAYMENT_UPDATED => Err(ErrorKind::EventTypeUnknown),
            _ => Err(ErrorKind::EventDuplicateKey),
        },
        Ok((top, false)) => expected(top),
    };
    // The same reading as reference_json's, which refuses a key repeated at any depth.
    let reference = match envelope {
        Ok((_, true)) => Err(RefRefusal::DuplicateKey),
        Ok((top, false)) => Ok(top),
        Err(refusal) => Err(refusal),
    };
    check_inexact_spans(data, &reference);
    assert_eq!(
        parsed.as_ref().map(|_| ()).map_err(|e| e.kind()),
        want,
        "parse_event and the reference disagree"
    );

    if let (Ok(event), Ok(top)) = (&parsed, &reference) {
        assert_eq!(event.envelope_json().as_bytes(), data);
        assert_eq!(event.event_type(), PAYMENT_UPDATED);
        let text = |v: Option<(&RefValue, &str)>| match v {
            Some((RefValue::Str(s), _)) => s.clone(),
            Some((RefValue::Num(n), _)) => n.clone(),
            other => panic!("not a string or a number: {other:?}"),
        };
        assert_eq!(event.event_id(), text(top.field("event_id")));
        assert_eq!(event.schema_version(), text(top.field("schema_version")));
        let expected_at = match top.field("occurred_at") {
            Some((RefValue::Str(s), _)) => OccurredAt::String(s.clone()),
            Some((RefValue::Num(n), _)) => OccurredAt::Number(n.clone()),
            other => panic!("occurred_at: {other:?}"),
        };
        assert_eq!(event.occurred_at(), &expected_at);
        // What the binding tells JavaScript about the bytes: all ASCII (decoded as Latin-1
        // there) exactly when std says so; a number a double cannot hold exactly when the
        // reference holds one.
        let check = check_event(data).expect("check_event accepts what parse_event does");
        assert_eq!(check.is_ascii(), data.is_ascii(), "ASCII as std reads it");
        let mut all = Vec::new();
        numbers(top, &mut all);
        assert_eq!(
            check.has_lossy_numbers(),
            all.iter().any(|n| !text_survives_f64(n)),
            "a lossy number exactly when the reference holds one"
        );
        let (data_value, data_text) = top.field("data").expect("data");
        assert_eq!(
            event.data_json(),
            data_text,
            "data is kept as its exact text"
        );
        assert_eq!(event.payment_id(), text(data_value.field("payment_id")));
        let version = event.status_version();
        assert_eq!(version.as_str(), text(data_value.field("status_version")));

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

    // The same bytes through the whole pipeline: sign, verify, parse.
    let signature = sign_webhook(
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
