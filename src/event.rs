//! The `payment.updated` event envelope (spec: Events), parsed strictly and only from bytes
//! that verified.
//!
//! Strict means: UTF-8 JSON as `serde_json` reads it (no BOM, nesting at most 128 levels),
//! no object that repeats a key at any depth (parsers disagree on which copy wins), and
//! numbers kept as their exact decimal text, so that `status_version` never passes through
//! a float. Unknown fields are kept.

use core::cell::Cell;
use core::fmt;
use std::borrow::Cow;
use std::collections::BTreeSet;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, err};
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
    let value = parse_strict_json(body)?;
    let Value::Object(envelope) = value else {
        return Err(err(
            ErrorKind::EventMalformed,
            "the event is not a JSON object",
        ));
    };
    match envelope.get("event_type") {
        Some(Value::String(t)) if t == PAYMENT_UPDATED => {}
        Some(Value::String(_)) => return Err(Error::new(ErrorKind::EventTypeUnknown)),
        _ => {
            return Err(err(
                ErrorKind::EventMalformed,
                "event_type is missing or not a string",
            ));
        }
    }
    let schema_version = match envelope.get("schema_version") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) if is_unsigned_integer(n.as_str()) => n.as_str().to_owned(),
        _ => {
            return Err(err(
                ErrorKind::EventMalformed,
                "schema_version is missing, or not a string or a non-negative integer",
            ));
        }
    };
    let event_id = non_empty_string(&envelope, "event_id").ok_or(err(
        ErrorKind::EventMalformed,
        "event_id is missing, empty or not a string",
    ))?;
    if !matches!(
        envelope.get("occurred_at"),
        Some(Value::String(_) | Value::Number(_))
    ) {
        return Err(err(
            ErrorKind::EventMalformed,
            "occurred_at is missing, or not a string or a number",
        ));
    }
    let Some(Value::Object(data)) = envelope.get("data") else {
        return Err(err(
            ErrorKind::EventMalformed,
            "data is missing or not an object",
        ));
    };
    let payment_id = non_empty_string(data, "payment_id").ok_or(err(
        ErrorKind::EventMalformed,
        "data.payment_id is missing, empty or not a string",
    ))?;
    let status_version = match data.get("status_version") {
        None => {
            return Err(err(
                ErrorKind::EventMalformed,
                "data.status_version is missing",
            ));
        }
        Some(Value::String(s)) => StatusVersion::parse(s)?,
        Some(Value::Number(n)) if is_unsigned_integer(n.as_str()) => {
            StatusVersion::parse(n.as_str())?
        }
        Some(_) => return Err(Error::new(ErrorKind::StatusVersionInvalid)),
    };
    Ok(Event {
        event_id,
        payment_id,
        schema_version,
        status_version,
        envelope,
    })
}

fn non_empty_string(map: &Map<String, Value>, key: &str) -> Option<String> {
    match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
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
    const MAX_SAFE: u64 = (1 << 53) - 1;
    let text = number.as_str();
    let magnitude = text.strip_prefix('-').unwrap_or(text);
    if is_unsigned_integer(magnitude) {
        return magnitude.parse::<u64>().is_ok_and(|n| n <= MAX_SAFE);
    }
    let (mantissa, exponent) = match magnitude.find(['e', 'E']) {
        Some(at) => magnitude.split_at(at),
        None => (magnitude, ""),
    };
    // An exponent too long for i64 is far outside the range either way.
    let exponent = exponent
        .get(1..)
        .unwrap_or_default()
        .trim_start_matches('+');
    let exponent: i64 = if exponent.is_empty() {
        0
    } else {
        exponent.parse().unwrap_or(if exponent.starts_with('-') {
            i64::MIN
        } else {
            i64::MAX
        })
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let int = int.trim_start_matches('0');
    // The position of the leading significant digit: the value lies in [10^(m-1), 10^m).
    let leading = if int.is_empty() {
        match frac.find(|c: char| c != '0') {
            None => return true, // zero
            Some(zeros) => i64::try_from(zeros).map_or(i64::MIN, |z| z.saturating_neg()),
        }
    } else {
        i64::try_from(int.len()).unwrap_or(i64::MAX)
    };
    (-306..=308).contains(&leading.saturating_add(exponent))
}

/// A JSON number's text that is an integer without sign, fraction or exponent.
fn is_unsigned_integer(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Parses JSON strictly: syntax first (`event_not_json`), then duplicate keys at any depth.
pub(crate) fn parse_strict_json(body: &[u8]) -> Result<Value, Error> {
    let duplicate = Cell::new(false);
    let mut de = serde_json::Deserializer::from_slice(body);
    Scan {
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end())
    .map_err(|_| Error::new(ErrorKind::EventNotJson))?;
    if duplicate.get() {
        return Err(Error::new(ErrorKind::EventDuplicateKey));
    }
    serde_json::from_slice(body).map_err(|_| Error::new(ErrorKind::EventNotJson))
}

/// Walks a JSON document, noting (not failing on) repeated keys so that syntax errors
/// anywhere still win.
struct Scan<'a> {
    duplicate: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Scan {
                duplicate: self.duplicate,
            })?
            .is_some()
        {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = BTreeSet::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if !keys.insert(key) {
                self.duplicate.set(true);
            }
            map.next_value_seed(Scan {
                duplicate: self.duplicate,
            })?;
        }
        Ok(())
    }
}

/// An object key, borrowed from the input when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
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
    fn numbers_a_double_keeps() {
        let n = |s: &str| number_survives_f64(&s.parse::<serde_json::Number>().unwrap());
        for keeps in [
            "0",
            "-0",
            "0.0",
            "1.5",
            "-9007199254740991",
            "1e307",
            "9.99e307",
            "1e-306",
            "0.001e-300",
            "123.456e2",
        ] {
            assert!(n(keeps), "{keeps}");
        }
        for changes in [
            "9007199254740992",
            "-9007199254740992",
            "1e308",
            "1e400",
            "1e-400",
            "0.0001e-305",
            "1e99999999999999999999",
        ] {
            assert!(!n(changes), "{changes}");
        }
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
