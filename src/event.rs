//! The `payment.updated` event envelope (spec: Events), parsed strictly and only from bytes
//! that verified.
//!
//! Strict means: UTF-8 JSON as `serde_json` reads it (no BOM, nesting at most 127 levels),
//! no object that repeats a key at any depth (parsers disagree on which copy wins), and
//! numbers kept as their exact decimal text, so that `status_version` never passes through
//! a float. Unknown fields are kept. The body is read once.

use core::fmt;
use core::ops::Range;

use crate::error::{Error, ErrorKind};
use crate::status::StatusVersion;

mod envelope;

pub(crate) use envelope::{check_envelope, refused};

/// The only event type the service sends.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{parse_event, PAYMENT_UPDATED};
/// let body = format!(
///     r#"{{"schema_version":1,"event_id":"evt_1","event_type":"{PAYMENT_UPDATED}","occurred_at":"2026-11-22T10:00:00Z","data":{{"payment_id":"pay_1","status_version":1}}}}"#
/// );
/// assert_eq!(parse_event(body.as_bytes())?.event_type(), PAYMENT_UPDATED);
/// let other = body.replace(PAYMENT_UPDATED, "payment.created");
/// assert_eq!(parse_event(other.as_bytes()).unwrap_err().code(), "event_type_unknown");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub const PAYMENT_UPDATED: &str = "payment.updated";

/// `occurred_at` as the service sent it: a string or a number, not interpreted (its format
/// is not in the specification).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::OccurredAt;
/// let at = OccurredAt::Number("18446744073709551617".to_owned());
/// assert_eq!(at.as_str(), "18446744073709551617");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OccurredAt {
    /// A JSON string, decoded.
    String(String),
    /// A JSON number, as its exact text (never converted to a float).
    Number(String),
}

impl OccurredAt {
    /// The string, or the number's exact text.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::OccurredAt;
    /// // Stored as text, whichever the service sent.
    /// assert_eq!(OccurredAt::String("2026-11-22T10:00:00Z".into()).as_str(), "2026-11-22T10:00:00Z");
    /// assert_eq!(OccurredAt::Number("1763805600".into()).as_str(), "1763805600");
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            OccurredAt::String(text) | OccurredAt::Number(text) => text,
        }
    }
}

/// A parsed `payment.updated` event.
///
/// The identifiers are typed; `data` and the whole envelope are kept as the exact JSON text
/// it was parsed from, for you to deserialize into your own types (numbers stay exact however
/// large they are). `Debug` shows only the identifiers, never the payment facts. An `Event`
/// alone proves nothing ([`parse_event`] makes one of any bytes): a
/// [`VerifiedEvent`](crate::VerifiedEvent), which only verification makes, carries one that
/// verified.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{parse_event, OccurredAt};
/// let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#;
/// let event = parse_event(body)?;
/// assert_eq!(event.payment_id(), "pay_1");
/// assert_eq!(event.occurred_at(), &OccurredAt::String("2026-11-22T10:00:00Z".into()));
///
/// #[derive(serde::Deserialize)]
/// struct Data { status: String }
/// let data: Data = serde_json::from_str(event.data_json()).unwrap();
/// assert_eq!(data.status, "paid");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Event {
    /// The verified body, as text.
    envelope: Box<str>,
    /// Where `data` is in `envelope`.
    data: Range<usize>,
    schema_version: String,
    event_id: String,
    occurred_at: OccurredAt,
    payment_id: String,
    status_version: StatusVersion,
}

impl Event {
    /// `schema_version`, as decimal text when the service sent a number.
    ///
    /// # Examples
    ///
    /// ```
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// assert_eq!(event.schema_version(), "1"); // sent as the number 1
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn schema_version(&self) -> &str {
        &self.schema_version
    }

    /// `event_id`: the key for de-duplication.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{decide_event, Decision, Stored};
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// let recorded = ["evt_0"]; // the event_ids your store holds
    /// let stored = Stored { event_seen: recorded.contains(&event.event_id()), status_version: None };
    /// assert_eq!(decide_event(event.status_version(), &stored), Decision::Apply);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn event_id(&self) -> &str {
        &self.event_id
    }

    /// `event_type`: always `payment.updated`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::PAYMENT_UPDATED;
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// assert_eq!(event.event_type(), PAYMENT_UPDATED);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn event_type(&self) -> &str {
        PAYMENT_UPDATED
    }

    /// `occurred_at`, as given (a string or a number; its format is not interpreted).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::OccurredAt;
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// assert_eq!(event.occurred_at(), &OccurredAt::String("2026-11-22T10:00:00Z".into()));
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn occurred_at(&self) -> &OccurredAt {
        &self.occurred_at
    }

    /// `data.payment_id`: the payment whose stored `status_version` this event is ordered
    /// against (never another payment's).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{decide_event, Decision, StatusVersion, Stored};
    /// use std::collections::HashMap;
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// let stored_versions = HashMap::from([("pay_1", StatusVersion::from(6_u64))]);
    /// let stored = Stored { event_seen: false, status_version: stored_versions.get(event.payment_id()).cloned() };
    /// assert_eq!(decide_event(event.status_version(), &stored), Decision::Apply);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn payment_id(&self) -> &str {
        &self.payment_id
    }

    /// `data.status_version`, exact.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::StatusVersion;
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// assert_eq!(event.status_version().as_str(), "7");
    /// assert!(event.status_version() > &StatusVersion::from(6_u64));
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn status_version(&self) -> &StatusVersion {
        &self.status_version
    }

    /// The `data` object (every field, with its wire name) as the exact JSON text received.
    ///
    /// # Examples
    ///
    /// ```
    /// # let event = cryptopay_verify::parse_event(br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7,"status":"paid"}}"#)?;
    /// #[derive(serde::Deserialize)]
    /// struct Data { payment_id: String, status: String }
    /// let data: Data = serde_json::from_str(event.data_json()).unwrap();
    /// assert_eq!((data.payment_id.as_str(), data.status.as_str()), ("pay_1", "paid"));
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn data_json(&self) -> &str {
        self.envelope.get(self.data.clone()).unwrap_or("{}")
    }

    /// The whole verified body, unknown top-level fields included, as JSON text.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::parse_event;
    /// let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":7},"livemode":false}"#;
    /// let event = parse_event(body)?;
    /// assert_eq!(event.envelope_json().as_bytes(), body); // store it as received
    /// let envelope: serde_json::Value = serde_json::from_str(event.envelope_json()).unwrap();
    /// assert_eq!(envelope["livemode"], false); // a field this crate does not know
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn envelope_json(&self) -> &str {
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

/// Parses a verified body into an event, in one pass over the JSON.
///
/// Call it only on bytes whose signature verified (as [`Verifier::verify_webhook`] does). The
/// [`Event`] it answers proves nothing of where the bytes came from: code that records or acts
/// on events should take a [`VerifiedEvent`], which only verification makes, rather than an
/// `Event`, which this function makes of any bytes.
///
/// [`VerifiedEvent`]: crate::VerifiedEvent
/// [`Verifier::verify_webhook`]: crate::Verifier::verify_webhook
///
/// # Errors
///
/// In this order: `event_not_json`; `event_duplicate_key` (for a key repeated below the top
/// level, `event_type_unknown` comes first when `event_type` is another string: nothing
/// inside `data` is looked at for an event of an unknown type); `event_malformed` (top level
/// not an object, `event_type` missing or not a string); `event_type_unknown`;
/// `event_malformed` (`schema_version` missing, or neither a string nor an unsigned
/// integer; `event_id` missing, empty or not a string; `occurred_at` missing, or neither a
/// string nor a number; `data` missing or not an object; `data.payment_id` missing, empty or
/// not a string; `data.status_version` missing); `status_version_invalid`.
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
    // JSON that serde_json accepted is UTF-8 throughout.
    let envelope = core::str::from_utf8(body).map_err(|_| Error::new(ErrorKind::EventNotJson))?;
    Ok(Event {
        envelope: envelope.into(),
        data: facts.data,
        schema_version: facts.schema_version.into_owned(),
        event_id: facts.event_id.into_owned(),
        occurred_at: facts.occurred_at.into_owned(),
        payment_id: facts.payment_id.into_owned(),
        // Checked by check_envelope: this cannot fail.
        status_version: StatusVersion::parse(&facts.status_version)?,
    })
}

#[cfg(test)]
mod tests;
