//! The `payment.updated` event envelope (spec: Events), parsed strictly and only from bytes
//! that verified.
//!
//! Strict means: UTF-8 JSON as `serde_json` reads it (no BOM, nesting at most 128 levels),
//! no object that repeats a key at any depth (parsers disagree on which copy wins), and
//! numbers kept as their exact decimal text, so that `status_version` never passes through
//! a float. Unknown fields are kept.

use core::fmt;

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, err};
use crate::json::{Flags, LEAF, Refusal, Shape, Spec, scan, text_survives_f64};
use crate::status::StatusVersion;

/// The only event type the service sends.
pub const PAYMENT_UPDATED: &str = "payment.updated";

/// A parsed `payment.updated` event.
///
/// `Debug` shows only the identifiers, never the payment facts.
#[derive(Clone, PartialEq)]
pub struct Event {
    envelope: Map<String, Value>,
    schema_version: String,
    event_id: String,
    payment_id: String,
    status_version: StatusVersion,
}

impl Event {
    /// `schema_version`, as decimal text when the service sent a number.
    #[must_use]
    pub fn schema_version(&self) -> &str {
        &self.schema_version
    }

    /// `event_id`: the key for de-duplication.
    #[must_use]
    pub fn event_id(&self) -> &str {
        &self.event_id
    }

    /// `event_type`: always `payment.updated`.
    #[must_use]
    pub fn event_type(&self) -> &str {
        PAYMENT_UPDATED
    }

    /// `occurred_at`, as given (a string or a number; its format is not interpreted).
    #[must_use]
    pub fn occurred_at(&self) -> &Value {
        self.envelope.get("occurred_at").unwrap_or(&Value::Null)
    }

    /// `data.payment_id`.
    #[must_use]
    pub fn payment_id(&self) -> &str {
        &self.payment_id
    }

    /// `data.status_version`, exact.
    #[must_use]
    pub fn status_version(&self) -> &StatusVersion {
        &self.status_version
    }

    /// The whole `data` object (always a JSON object), every field passed through with its
    /// wire name.
    #[must_use]
    pub fn data(&self) -> &Value {
        self.envelope.get("data").unwrap_or(&Value::Null)
    }

    /// The whole top-level object, unknown fields included.
    #[must_use]
    pub fn envelope(&self) -> &Map<String, Value> {
        &self.envelope
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("event_id", &self.event_id)
            .field("payment_id", &self.payment_id)
            .field("status_version", &self.status_version)
            .finish_non_exhaustive()
    }
}

/// Parses a verified body into an event.
///
/// Call it only on bytes whose signature verified (as [`Verifier::verify_webhook`] does).
///
/// [`Verifier::verify_webhook`]: crate::Verifier::verify_webhook
///
/// # Errors
///
/// In this order: `event_not_json`; `event_duplicate_key`; `event_malformed` (top level not
/// an object, `event_type` missing or not a string); `event_type_unknown`;
/// `event_malformed` (`schema_version`, `event_id`, `occurred_at`, `data`,
/// `data.payment_id`, `data.status_version` missing); `status_version_invalid`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::parse_event;
/// let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated",
///   "occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":18446744073709551617}}"#;
/// let event = parse_event(body)?;
/// assert_eq!(event.status_version().as_str(), "18446744073709551617");
/// assert_eq!(event.schema_version(), "1");
///
/// let twice = br#"{"event_id":"a","event_id":"b"}"#;
/// assert_eq!(parse_event(twice).unwrap_err().code(), "event_duplicate_key");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn parse_event(body: &[u8]) -> Result<Event, Error> {
    let facts = check_envelope(body)?;
    // The scan above accepted the document, so this parse cannot fail.
    let envelope: Map<String, Value> =
        serde_json::from_slice(body).map_err(|_| Error::new(ErrorKind::EventNotJson))?;
    Ok(Event {
        envelope,
        schema_version: facts.schema_version,
        event_id: facts.event_id,
        payment_id: facts.payment_id,
        status_version: facts.status_version,
    })
}

/// The fields of the envelope the checks read.
static DATA: Spec = Spec(&[("payment_id", &LEAF), ("status_version", &LEAF)]);
static ENVELOPE: Spec = Spec(&[
    ("event_type", &LEAF),
    ("schema_version", &LEAF),
    ("event_id", &LEAF),
    ("occurred_at", &LEAF),
    ("data", &DATA),
]);

/// What the checks of an envelope yield, without a tree of the document.
#[derive(Debug)]
pub(crate) struct Facts {
    pub(crate) schema_version: String,
    pub(crate) event_id: String,
    pub(crate) payment_id: String,
    pub(crate) status_version: StatusVersion,
    /// Some number in the document would change as a JavaScript `number`.
    #[cfg_attr(not(feature = "wasm"), allow(dead_code))]
    pub(crate) inexact: bool,
}

/// The code of a document the strict JSON scan refused.
pub(crate) fn refused(refusal: Refusal) -> Error {
    match refusal {
        Refusal::Syntax => Error::new(ErrorKind::EventNotJson),
        Refusal::DuplicateKey => Error::new(ErrorKind::EventDuplicateKey),
    }
}

/// Checks a verified body as an envelope in one pass (see [`parse_event`] for the order).
pub(crate) fn check_envelope(body: &[u8]) -> Result<Facts, Error> {
    let malformed = |detail| err(ErrorKind::EventMalformed, detail);
    let flags = Flags::default();
    let top = scan(body, &ENVELOPE, &flags).map_err(refused)?;
    if !matches!(top, Shape::Object(_)) {
        return Err(malformed("the event is not a JSON object"));
    }
    match top.field("event_type") {
        Some(Shape::Str(t)) if t == PAYMENT_UPDATED => {}
        Some(Shape::Str(_)) => return Err(Error::new(ErrorKind::EventTypeUnknown)),
        _ => return Err(malformed("event_type is missing or not a string")),
    }
    let schema_version = match top.field("schema_version") {
        Some(Shape::Str(s)) => s.to_string(),
        Some(Shape::Num(n)) if is_unsigned_integer(n) => n.clone(),
        _ => {
            return Err(malformed(
                "schema_version is missing, or not a string or a non-negative integer",
            ));
        }
    };
    let event_id = non_empty_string(top.field("event_id"))
        .ok_or(malformed("event_id is missing, empty or not a string"))?;
    if !matches!(
        top.field("occurred_at"),
        Some(Shape::Str(_) | Shape::Num(_))
    ) {
        return Err(malformed(
            "occurred_at is missing, or not a string or a number",
        ));
    }
    let data = match top.field("data") {
        Some(data @ Shape::Object(_)) => data,
        _ => return Err(malformed("data is missing or not an object")),
    };
    let payment_id = non_empty_string(data.field("payment_id")).ok_or(malformed(
        "data.payment_id is missing, empty or not a string",
    ))?;
    let status_version = match data.field("status_version") {
        None => return Err(malformed("data.status_version is missing")),
        Some(Shape::Str(s)) => StatusVersion::parse(s)?,
        Some(Shape::Num(n)) if is_unsigned_integer(n) => StatusVersion::parse(n)?,
        Some(_) => return Err(Error::new(ErrorKind::StatusVersionInvalid)),
    };
    Ok(Facts {
        schema_version,
        event_id,
        payment_id,
        status_version,
        inexact: flags.inexact.get(),
    })
}

fn non_empty_string(shape: Option<&Shape<'_>>) -> Option<String> {
    match shape {
        Some(Shape::Str(s)) if !s.is_empty() => Some(s.to_string()),
        _ => None,
    }
}

/// Whether a JSON number keeps its value as an IEEE 754 double (a JavaScript `number`).
///
/// Integers must lie within ±(2^53 - 1), where every integer is exact. A number with a
/// fraction or an exponent must be zero or have a magnitude from 1e-307 up to (not
/// including) 1e308, the range a double holds without overflowing to infinity or
/// underflowing to zero. The JavaScript binding gives every other number as its decimal
/// text, so no value changes on the way. The test reads the text only; no float is parsed.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{number_survives_f64, serde_json::Number};
/// let n = |s: &str| s.parse::<Number>().unwrap();
/// assert!(number_survives_f64(&n("9007199254740991")));
/// assert!(!number_survives_f64(&n("9007199254740993")));
/// assert!(number_survives_f64(&n("1.5e300")));
/// assert!(!number_survives_f64(&n("1e400")));
/// ```
#[must_use]
pub fn number_survives_f64(number: &serde_json::Number) -> bool {
    text_survives_f64(number.as_str())
}

/// A JSON number's text that is an integer without sign, fraction or exponent.
fn is_unsigned_integer(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> &'static str {
        parse_event(body.as_bytes()).unwrap_err().code()
    }

    const GOOD: &str = r#"{"schema_version":"1","event_id":"evt_1","event_type":"payment.updated","occurred_at":1700000000,"extra":[1,{"a":1}],"data":{"payment_id":"pay_1","status_version":"7","note":{"k":1e400}}}"#;

    #[test]
    fn good_event_keeps_everything() {
        let e = parse_event(GOOD.as_bytes()).unwrap();
        assert_eq!(e.event_id(), "evt_1");
        assert_eq!(e.payment_id(), "pay_1");
        assert_eq!(e.status_version().as_str(), "7");
        assert_eq!(
            e.occurred_at(),
            &Value::Number(serde_json::Number::from(1_700_000_000u64))
        );
        assert!(e.envelope().contains_key("extra"));
        assert_eq!(e.data()["note"]["k"].to_string(), "1e+400");
        let debug = format!("{e:?}");
        assert!(debug.contains("evt_1") && !debug.contains("note"));
    }

    #[test]
    fn duplicates_at_any_depth() {
        assert_eq!(code(r#"{"a":1,"a":1}"#), "event_duplicate_key");
        assert_eq!(
            code(r#"{"data":{"x":[{"k":1,"k":2}]}}"#),
            "event_duplicate_key"
        );
        assert_eq!(code(r#"{"a":1,"\u0061":2}"#), "event_duplicate_key");
        // A syntax error after a duplicate is still reported as not JSON.
        assert_eq!(code(r#"{"a":1,"a":1"#), "event_not_json");
    }

    #[test]
    fn not_json() {
        assert_eq!(code(""), "event_not_json");
        assert_eq!(code("\u{feff}{}"), "event_not_json");
        assert_eq!(code("{} x"), "event_not_json");
        assert_eq!(
            code(&format!("{}{}", "[".repeat(200), "]".repeat(200))),
            "event_not_json"
        );
        assert_eq!(
            parse_event(b"{\"a\":\"\xff\"}").unwrap_err().code(),
            "event_not_json"
        );
    }

    #[test]
    fn shape() {
        assert_eq!(code("[]"), "event_malformed");
        assert_eq!(
            code(r#"{"event_type":"payment.created"}"#),
            "event_type_unknown"
        );
        let swap = |from: &str, to: &str| GOOD.replace(from, to);
        assert_eq!(
            code(&swap(r#""status_version":"7""#, r#""status_version":"07""#)),
            "status_version_invalid"
        );
        assert_eq!(
            code(&swap(r#""status_version":"7""#, r#""status_version":7.0"#)),
            "status_version_invalid"
        );
        assert_eq!(
            code(&swap(r#""status_version":"7""#, r#""status_version":-7"#)),
            "status_version_invalid"
        );
        assert_eq!(
            code(&swap(r#""status_version":"7""#, r#""status_version":null"#)),
            "status_version_invalid"
        );
        assert_eq!(
            code(&swap(r#""status_version":"7""#, r#""v":1"#)),
            "event_malformed"
        );
        assert_eq!(
            code(&swap(r#""payment_id":"pay_1""#, r#""payment_id":"""#)),
            "event_malformed"
        );
        assert_eq!(
            code(&swap(r#""schema_version":"1""#, r#""schema_version":-1"#)),
            "event_malformed"
        );
        assert_eq!(
            code(&swap(
                r#""occurred_at":1700000000"#,
                r#""occurred_at":null"#
            )),
            "event_malformed"
        );
    }
}
