//! Runs the language-neutral vectors of `tests/vectors/` against the Rust API.
//!
//! Shared by the native test (`tests/vectors.rs`) and the wasm32 test (`tests/wasm.rs`),
//! so both builds answer every case the same way. `include_str!` keeps it free of file I/O.

use cryptopay_verify::*;
use serde_json::{Map, Value, json};

mod fulfilment;
pub(crate) mod json_reference;
mod service;

/// Every vector file, by name.
pub(crate) const FILES: &[(&str, &str)] = &[
    ("verify.json", include_str!("../vectors/verify.json")),
    ("sign.json", include_str!("../vectors/sign.json")),
    (
        "read_headers.json",
        include_str!("../vectors/read_headers.json"),
    ),
    ("event.json", include_str!("../vectors/event.json")),
    ("status.json", include_str!("../vectors/status.json")),
    ("amount.json", include_str!("../vectors/amount.json")),
    ("pricing.json", include_str!("../vectors/pricing.json")),
    ("urls.json", include_str!("../vectors/urls.json")),
    (
        "idempotency.json",
        include_str!("../vectors/idempotency.json"),
    ),
    ("delivery.json", include_str!("../vectors/delivery.json")),
    (
        "error_codes.json",
        include_str!("../vectors/error_codes.json"),
    ),
    ("service.json", include_str!("../vectors/service.json")),
    (
        "fulfilment.json",
        include_str!("../vectors/fulfilment.json"),
    ),
];

/// A refusal as the vectors spell it: the crate's [`Error`], one of the payment service's
/// own answers ([`ApiError`]) or a [`LinkMismatch`], by its code.
#[derive(Debug)]
pub(crate) struct Failure {
    code: &'static str,
    text: String,
    /// [`Error::is_receiver_fault`] (the vectors' `receiverFault`); none for the others.
    receiver_fault: Option<bool>,
}

impl Failure {
    pub(crate) fn code(&self) -> &'static str {
        self.code
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure {
            code: error.code(),
            text: error.to_string(),
            receiver_fault: Some(error.is_receiver_fault()),
        }
    }
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        Failure {
            code: error.code(),
            text: error.to_string(),
            receiver_fault: None,
        }
    }
}

impl From<LinkMismatch> for Failure {
    fn from(mismatch: LinkMismatch) -> Self {
        Failure {
            code: mismatch.code(),
            text: mismatch.to_string(),
            receiver_fault: None,
        }
    }
}

type Outcome = Result<Value, Error>;

/// The result of any vector's function: the crate's or the service's refusals.
type Answer = Result<Value, Failure>;

fn text<'a>(case: &'a Value, key: &str) -> &'a str {
    case[key]
        .as_str()
        .unwrap_or_else(|| panic!("input {key} must be a string"))
}

/// A string argument; any other JSON type is `code`, as the contract's typing rules say.
fn string_or<'a>(case: &'a Value, key: &str, code: ErrorKind) -> Result<&'a str, Error> {
    case[key].as_str().ok_or(Error::new(code))
}

/// A non-negative integer argument; anything else is `code`.
fn integer_or(value: &Value, code: ErrorKind) -> Result<u64, Error> {
    value.as_u64().ok_or(Error::new(code))
}

fn num(case: &Value, key: &str) -> Result<u64, Error> {
    integer_or(&case[key], ErrorKind::InvalidArgument)
}

/// A header value: a non-string stands for a value that is never well-formed, so it is
/// reported by the timestamp or signature check at its place in the order of checks.
fn header(case: &Value, key: &str) -> Vec<u8> {
    case[key]
        .as_str()
        .map_or_else(|| b"\0".to_vec(), |s| s.as_bytes().to_vec())
}

fn hex(case: &Value, key: &str) -> Vec<u8> {
    base16_decode(text(case, key))
}

fn base16_decode(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The entries of a vector's secret set (the JavaScript shapes: a string, or an array of
/// `{secret, kind, acceptUntilSecs?}`); a bad entry is `invalid_argument`.
fn secrets(value: &Value) -> Result<Vec<SecretEntry>, Error> {
    let invalid = || Error::new(ErrorKind::InvalidArgument);
    match value {
        Value::String(s) => Ok(vec![SecretEntry::active(Secret::new(s))]),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                let kind = SecretKind::parse(item["kind"].as_str().ok_or_else(invalid)?)?;
                let until = match item.get("acceptUntilSecs") {
                    None => None,
                    Some(v) => Some(integer_or(v, ErrorKind::InvalidArgument)?),
                };
                let secret = item["secret"].as_str().ok_or_else(invalid)?;
                SecretEntry::new(Secret::new(secret), kind, until)
            })
            .collect(),
        _ => Err(invalid()),
    }
}

/// `occurred_at` as JavaScript receives it: a string as it is; a number as a number when a
/// double holds it exactly (the vectors use integers), otherwise as its exact text.
fn occurred_at_view(at: &OccurredAt) -> Value {
    match at {
        OccurredAt::Number(text) => match text.parse::<i64>() {
            Ok(n) if n.unsigned_abs() < (1 << 53) => json!(n),
            _ => json!(text),
        },
        other => json!(other.as_str()),
    }
}

fn event_json(event: &Event) -> Value {
    json!({
        "schemaVersion": event.schema_version(),
        "eventId": event.event_id(),
        "eventType": event.event_type(),
        "occurredAt": occurred_at_view(event.occurred_at()),
        "paymentId": event.payment_id(),
        "statusVersion": event.status_version().as_str(),
    })
}

fn decimals(case: &Value) -> Result<u32, Error> {
    let d = integer_or(&case["decimals"], ErrorKind::DecimalsInvalid)?;
    Ok(u32::try_from(d).unwrap_or(u32::MAX))
}

fn verify(case: &Value, webhook: bool) -> Outcome {
    let now = num(case, "nowSecs")?;
    let mut options = VerifyOptions::new(num(case, "maxSkewSecs")?);
    if case.get("maxBodyBytes").is_some() {
        let n = usize::try_from(num(case, "maxBodyBytes")?).unwrap_or(usize::MAX);
        options = options.with_max_body_bytes(n)?;
    }
    let set = secrets(&case["secrets"]).and_then(SecretSet::new);
    let body = hex(case, "bodyHex");
    let (timestamp, signature) = (header(case, "timestamp"), header(case, "signature"));
    let delivery = Delivery {
        body: &body,
        timestamp: &timestamp,
        signature: &signature,
    };
    // The contract's order for a call that brings its own secrets (as JavaScript's one-shot
    // functions do): the set's shape first, its material (`no_secrets`, `secret_empty`) after
    // the checks that need no secret.
    let set = match set {
        Ok(set) => set,
        Err(e) if matches!(e.kind(), ErrorKind::NoSecrets | ErrorKind::SecretEmpty) => {
            delivery.check(&options)?;
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    // The one-shot functions and a Verifier: both must give the same answer.
    let one_shot = if webhook {
        verify_webhook(&delivery, &set, options, now).map(|v| {
            json!({"matchedSecret": v.matched_secret.as_str(), "timestamp": v.timestamp, "event": event_json(&v.event)})
        })
    } else {
        verify_signature(&delivery, &set, options, now)
            .map(|v| json!({"matchedSecret": v.matched_secret.as_str(), "timestamp": v.timestamp}))
    };
    let verifier = Verifier::new(set, options);
    let keyed = if webhook {
        verifier.verify_webhook(&delivery, now).map(|v| {
            json!({"matchedSecret": v.matched_secret.as_str(), "timestamp": v.timestamp, "event": event_json(&v.event)})
        })
    } else {
        verifier
            .verify_signature(&delivery, now)
            .map(|v| json!({"matchedSecret": v.matched_secret.as_str(), "timestamp": v.timestamp}))
    };
    assert_eq!(
        keyed.as_ref().map_err(|e| e.code()),
        one_shot.as_ref().map_err(|e| e.code()),
        "Verifier and the one-shot function disagree"
    );
    one_shot
}

/// A vector's JSON input as the text a host holds (JavaScript passes `JSON.stringify` of it).
fn json_text(case: &Value, key: &str) -> String {
    serde_json::to_string(&case[key]).expect("serializes")
}

fn primary(case: &Value) -> Result<PrimarySource, Error> {
    PrimarySource::from_json(&json_text(case, "primarySource"))
}

fn opt_str<'a>(case: &'a Value, key: &str) -> Option<&'a str> {
    case.get(key).map(|v| v.as_str().expect("string"))
}

/// Runs one case and returns its result as the vectors spell it.
pub(crate) fn run(function: &str, case: &Value) -> Answer {
    service::run(function, case)
        .or_else(|| fulfilment::run(function, case))
        .unwrap_or_else(|| run_core(function, case).map_err(Failure::from))
}

/// Runs one case of the crate's own functions (not the service's rules).
fn run_core(function: &str, case: &Value) -> Outcome {
    match function {
        "verifySignature" => verify(case, false),
        "verifyWebhook" => verify(case, true),
        "signWebhook" => {
            let encoding = match case.get("encoding").and_then(Value::as_str) {
                None | Some("hex") => SignatureEncoding::Hex,
                Some("base64") => SignatureEncoding::Base64,
                Some(other) => panic!("unknown encoding {other}"),
            };
            let sig = sign_webhook(
                &Secret::new(text(case, "secret")),
                text(case, "timestamp").as_bytes(),
                &hex(case, "bodyHex"),
                encoding,
            )?;
            Ok(json!({ "signature": sig }))
        }
        "readDeliveryHeaders" => {
            let pairs: Vec<(String, String)> = case["headers"]
                .as_array()
                .expect("headers")
                .iter()
                .map(|p| {
                    (
                        p[0].as_str().expect("name").to_owned(),
                        p[1].as_str().expect("value").to_owned(),
                    )
                })
                .collect();
            let found = read_delivery_headers(
                pairs.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes())),
                text(case, "timestampHeader"),
                text(case, "signatureHeader"),
            )?;
            Ok(json!({
                "timestamp": String::from_utf8(found.timestamp.to_vec()).expect("utf8"),
                "signature": String::from_utf8(found.signature.to_vec()).expect("utf8"),
            }))
        }
        "parseEvent" => {
            parse_event(&hex(case, "bodyHex")).map(|e| json!({ "event": event_json(&e) }))
        }
        "compareStatusVersions" => {
            let a = StatusVersion::parse(text(case, "a"))?;
            let b = StatusVersion::parse(text(case, "b"))?;
            Ok(json!({ "result": a.cmp(&b) as i8 }))
        }
        "decideEvent" => {
            let incoming = StatusVersion::parse(text(&case["incoming"], "statusVersion"))?;
            let stored = &case["stored"];
            let status_version = match stored.get("statusVersion") {
                None | Some(Value::Null) => None,
                Some(v) => Some(StatusVersion::parse(v.as_str().expect("string"))?),
            };
            let stored = Stored {
                event_seen: stored["eventSeen"].as_bool().expect("eventSeen"),
                status_version,
            };
            Ok(json!({ "decision": decide_event(&incoming, &stored).as_str() }))
        }
        "validateAmountRaw" => {
            validate_amount_raw(string_or(case, "value", ErrorKind::AmountRawInvalid)?)
                .map(|()| json!({}))
        }
        "toAmountRaw" => {
            let decimals = decimals(case)?;
            let decimal = string_or(case, "decimal", ErrorKind::AmountDecimalInvalid)?;
            to_amount_raw(decimal, decimals).map(|r| json!({ "amountRaw": r }))
        }
        "fromAmountRaw" => {
            let decimals = decimals(case)?;
            let raw = string_or(case, "amountRaw", ErrorKind::AmountRawInvalid)?;
            from_amount_raw(raw, decimals).map(|d| json!({ "decimal": d }))
        }
        "validateSourceAmount" => {
            let p = primary(case)?;
            let source_amount = SourceAmount::from_json(&json_text(case, "sourceAmount"))?;
            validate_source_amount(&source_amount, &p).map(|()| json!({}))
        }
        "buildSourceAmount" => build_source_amount(&primary(case)?, text(case, "amount"))
            .map(|s| json!({ "sourceAmount": s })),
        "validateCreatePayment" => {
            let p = primary(case)?;
            let body = json_text(case, "body");
            let payment = validate_create_payment_json(&body, &p, opt_str(case, "websiteOrigin"))?;
            // The typed check of what was read gives the same answer.
            assert_eq!(
                validate_create_payment(&payment, &p, opt_str(case, "websiteOrigin")),
                Ok(())
            );
            Ok(json!({}))
        }
        "validateCheckoutOrigin" => {
            validate_checkout_origin(text(case, "origin"), opt_str(case, "websiteOrigin"))
                .map(|()| json!({}))
        }
        "validateWebhookUrl" => validate_webhook_url(text(case, "url")).map(|()| json!({})),
        "hostedCheckoutUrl" => {
            hosted_checkout_url(text(case, "checkoutOrigin"), text(case, "paymentId"))
                .map(|u| json!({ "url": u }))
        }
        "requestFingerprint" => {
            Ok(json!({ "fingerprint": request_fingerprint(&hex(case, "bodyHex")) }))
        }
        "validateIdempotencyKey" => validate_idempotency_key(text(case, "key")).map(|()| json!({})),
        "classifyDeliveryResponse" => {
            let status = u16::try_from(num(case, "status")?).unwrap_or(u16::MAX);
            classify_delivery_response(status).map(|c| json!({ "classification": c.as_str() }))
        }
        "errorCodes" => {
            let code = text(case, "code");
            let index = ErrorKind::ALL.iter().position(|kind| kind.code() == code);
            let event = ErrorKind::from_code(code).map(ErrorKind::is_event_error);
            Ok(json!({ "index": index, "eventError": event }))
        }
        other => panic!("no runner for function {other}"),
    }
}

/// Checks one outcome against `expected`; returns a description of the difference.
pub(crate) fn check(outcome: &Answer, expected: &Map<String, Value>) -> Result<(), String> {
    match (outcome, expected.get("error")) {
        (Err(e), Some(code)) if code == e.code() => {
            match expected.get("receiverFault").map(Value::as_bool) {
                Some(want) if want != e.receiver_fault => Err(format!(
                    "receiverFault: got {:?}, expected {want:?} ({e})",
                    e.receiver_fault
                )),
                _ => Ok(()),
            }
        }
        (Err(e), _) => Err(format!(
            "got error {} ({e}), expected {expected:?}",
            e.code()
        )),
        (Ok(got), Some(code)) => Err(format!("got ok {got}, expected error {code}")),
        (Ok(got), None) => {
            for (key, want) in expected.iter().filter(|(k, _)| k.as_str() != "ok") {
                if &got[key] != want {
                    return Err(format!("{key}: got {}, expected {want}", got[key]));
                }
            }
            Ok(())
        }
    }
}

/// Runs every case of every file; returns the number of cases run and the failures.
pub(crate) fn run_all() -> (usize, Vec<String>) {
    let mut count = 0;
    let mut failures = Vec::new();
    for (name, contents) in FILES {
        let file: Value = serde_json::from_str(contents).unwrap_or_else(|e| panic!("{name}: {e}"));
        let default_fn = file["function"].as_str().unwrap_or_default();
        for case in file["tests"].as_array().expect("tests") {
            let function = case
                .get("function")
                .and_then(Value::as_str)
                .unwrap_or(default_fn);
            let expected = case["expected"].as_object().expect("expected");
            count += 1;
            let outcome = std::panic::catch_unwind(|| run(function, case))
                .map_err(|_| "the runner could not read this case's inputs".to_owned());
            if let Err(why) = outcome.and_then(|o| check(&o, expected)) {
                failures.push(format!(
                    "{name} #{} ({function}: {}): {why}",
                    case["id"], case["comment"]
                ));
            }
        }
    }
    (count, failures)
}

/// Every code that some vector expects (used by the native test only).
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) fn codes_covered() -> std::collections::BTreeSet<String> {
    let mut codes = std::collections::BTreeSet::new();
    for (_, contents) in FILES {
        let file: Value = serde_json::from_str(contents).expect("json");
        for case in file["tests"].as_array().expect("tests") {
            if let Some(code) = case["expected"].get("error").and_then(Value::as_str) {
                codes.insert(code.to_owned());
            }
        }
    }
    codes
}

/// Runs every case and fails with the list of differences (shared by the native and wasm32 tests).
pub(crate) fn assert_every_vector_holds() {
    let (count, failures) = run_all();
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count >= 150, "only {count} cases");
}

/// The public JSONTestSuite (`tests/vectors/json_suite.json`, see its `source`): every `y_`
/// file is JSON to `parse_event` (whatever else it says of it), every `n_` file is
/// `event_not_json`, and every `i_` file is decided as serde_json decides (the file keeps
/// that decision; [`json_reference::reference_json`] confirms it on every run).
pub(crate) fn assert_json_suite_holds() {
    let suite: Value = serde_json::from_str(include_str!("../vectors/json_suite.json")).unwrap();
    let mut failures = Vec::new();
    let cases = suite["tests"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let bytes = match case["text"].as_str() {
            Some(text) => text.as_bytes().to_vec(),
            None => base16_decode(case["hex"].as_str().unwrap()),
        };
        let not_json = parse_event(&bytes).is_err_and(|e| e.kind() == ErrorKind::EventNotJson);
        let want_not_json = match case["expect"].as_str().unwrap() {
            "json" => false,
            "not_json" => true,
            other => panic!("{name}: unknown expectation {other}"),
        };
        if name.starts_with("i_") {
            // Implementation-defined: the file keeps serde_json's decision; it must still be it.
            let reference = matches!(
                json_reference::reference_json(&bytes),
                Err(json_reference::RefRefusal::NotJson)
            );
            assert_eq!(
                reference, want_not_json,
                "{name}: serde_json's decision changed"
            );
        }
        if not_json != want_not_json {
            failures.push(format!(
                "{name}: not JSON to us {not_json}, expected {want_not_json}"
            ));
        }
    }
    assert!(cases.len() > 300, "the suite has {} files", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} files:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
