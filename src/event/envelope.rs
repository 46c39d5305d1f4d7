//! The checks of an envelope, in one pass of the strict scan over the verified body: the
//! fields `parse_event` and `check_event` read, borrowed from the body where they can be.

use core::ops::Range;
use std::borrow::Cow;

use super::{OccurredAt, PAYMENT_UPDATED};
use crate::error::{Error, ErrorKind, err};
use crate::json::{LEAF, Refusal, Shape, Spec, scan_envelope};
use crate::status::StatusVersion;

/// The fields of the envelope the checks read.
static DATA: Spec = Spec(&[("payment_id", &LEAF), ("status_version", &LEAF)]);
static ENVELOPE: Spec = Spec(&[
    ("event_type", &LEAF),
    ("schema_version", &LEAF),
    ("event_id", &LEAF),
    ("occurred_at", &LEAF),
    ("data", &DATA),
]);

/// What the checks of an envelope yield, without a tree of the document: the fields read,
/// borrowed from the body where it holds them as they are (a string with escapes is decoded),
/// so that checking an event allocates nothing for them.
#[derive(Debug)]
pub(crate) struct Facts<'de> {
    pub(crate) schema_version: Cow<'de, str>,
    pub(crate) event_id: Cow<'de, str>,
    pub(crate) occurred_at: OccurredAtText<'de>,
    pub(crate) payment_id: Cow<'de, str>,
    /// Decimal digits, checked as a [`StatusVersion`].
    pub(crate) status_version: Cow<'de, str>,
    /// Where `data` is in the body.
    pub(crate) data: Range<usize>,
    /// Some number in the document would change as a double.
    pub(crate) inexact: bool,
    /// Every byte of the body is ASCII.
    pub(crate) ascii: bool,
}

/// [`OccurredAt`] as the checks read it, borrowed from the body where it can be.
#[derive(Debug)]
pub(crate) enum OccurredAtText<'de> {
    String(Cow<'de, str>),
    Number(&'de str),
}

impl OccurredAtText<'_> {
    pub(super) fn into_owned(self) -> OccurredAt {
        match self {
            OccurredAtText::String(s) => OccurredAt::String(s.into_owned()),
            OccurredAtText::Number(n) => OccurredAt::Number(n.to_owned()),
        }
    }
}

/// The code of a document the strict JSON scan refused.
pub(crate) fn refused(refusal: Refusal) -> Error {
    match refusal {
        Refusal::Syntax => Error::new(ErrorKind::EventNotJson),
        Refusal::DuplicateKey => Error::new(ErrorKind::EventDuplicateKey),
    }
}

/// Checks a verified body as an envelope in one pass (see [`parse_event`](super::parse_event) for the order).
pub(crate) fn check_envelope(body: &[u8]) -> Result<Facts<'_>, Error> {
    let malformed = |detail| err(ErrorKind::EventMalformed, detail);
    let scanned = scan_envelope(body, &ENVELOPE).map_err(refused)?;
    let top = &scanned.top;
    // A key repeated inside the document: refused, unless the event is of an unknown type,
    // which is reported before anything inside `data` is looked at.
    if scanned.nested_duplicate {
        return Err(Error::new(match top.field("event_type") {
            Some(Shape::Str(t)) if t != PAYMENT_UPDATED => ErrorKind::EventTypeUnknown,
            _ => ErrorKind::EventDuplicateKey,
        }));
    }
    if !matches!(top, Shape::Object { .. }) {
        return Err(malformed("the event is not a JSON object"));
    }
    match top.field("event_type") {
        Some(Shape::Str(t)) if t == PAYMENT_UPDATED => {}
        Some(Shape::Str(_)) => return Err(Error::new(ErrorKind::EventTypeUnknown)),
        _ => return Err(malformed("event_type is missing or not a string")),
    }
    let schema_version = match top.field("schema_version") {
        Some(Shape::Str(s)) => s.clone(),
        Some(Shape::Num(n)) if is_unsigned_integer(n) => Cow::Borrowed(*n),
        _ => {
            return Err(malformed(
                "schema_version is missing, or not a string or a non-negative integer",
            ));
        }
    };
    let event_id = non_empty_string(top.field("event_id"))
        .ok_or(malformed("event_id is missing, empty or not a string"))?;
    let occurred_at = match top.field("occurred_at") {
        Some(Shape::Str(s)) => OccurredAtText::String(s.clone()),
        Some(Shape::Num(n)) => OccurredAtText::Number(n),
        _ => {
            return Err(malformed(
                "occurred_at is missing, or not a string or a number",
            ));
        }
    };
    let (data, span) = match top.field("data") {
        Some(data @ Shape::Object { span, .. }) => (data, span.clone()),
        _ => return Err(malformed("data is missing or not an object")),
    };
    let payment_id = non_empty_string(data.field("payment_id")).ok_or(malformed(
        "data.payment_id is missing, empty or not a string",
    ))?;
    let status_version = match data.field("status_version") {
        None => return Err(malformed("data.status_version is missing")),
        Some(Shape::Str(s)) => s.clone(),
        Some(Shape::Num(n)) if is_unsigned_integer(n) => Cow::Borrowed(*n),
        Some(_) => return Err(Error::new(ErrorKind::StatusVersionInvalid)),
    };
    if !StatusVersion::is_valid(&status_version) {
        return Err(Error::new(ErrorKind::StatusVersionInvalid));
    }
    Ok(Facts {
        schema_version,
        event_id,
        occurred_at,
        payment_id,
        status_version,
        data: span,
        inexact: scanned.inexact,
        ascii: scanned.ascii,
    })
}

fn non_empty_string<'de>(shape: Option<&Shape<'de>>) -> Option<Cow<'de, str>> {
    match shape {
        Some(Shape::Str(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// A JSON number's text that is an integer without sign, fraction or exponent.
fn is_unsigned_integer(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}
