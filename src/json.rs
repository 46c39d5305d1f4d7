//! Strict JSON, read in one pass by `serde_json` (UTF-8, no BOM, nesting at most 128 levels),
//! with repeated keys noted at any depth, every number kept as its exact text and checked
//! against what a double can hold, and the few fields a caller names captured on the way,
//! with no tree built for the rest.
//!
//! `serde_json` reads every byte and decides every syntax question. Numbers are taken as
//! [`RawValue`]s (their text, never converted, so `1e400` and `2^64 + 1` stay exact), objects
//! and arrays are walked with `deserialize_map` / `deserialize_seq`, and strings are decoded
//! by `serde_json` itself. To choose between them before `serde_json` reads a value, the walk
//! follows where each value starts: after the opening bracket, a key's end, a `:` or a `,`,
//! past the four JSON whitespace bytes. Only whitespace and those separators are looked at
//! here; on a document `serde_json` rejects, the choice does not matter, since it fails anyway.
//!
//! Nothing here depends on `serde_json`'s `arbitrary_precision` feature or its private
//! number token: the scan gives the same answers whether or not a program enables it.

use core::cell::{Cell, RefCell};
use core::fmt;
use core::ops::Range;
use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// 2^53 - 1: every integer up to it is exact in a double.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The fields to capture in an object, each with the fields to capture inside it.
#[derive(Debug)]
pub(crate) struct Spec(pub(crate) &'static [(&'static str, &'static Spec)]);

/// Capture a field's own value only.
pub(crate) const LEAF: Spec = Spec(&[]);

/// A byte range of the document.
pub(crate) type Span = Range<usize>;

/// A captured value: strings decoded, numbers as their exact text, objects with their
/// captured fields.
#[derive(Debug, PartialEq)]
pub(crate) enum Shape<'de> {
    Str(Cow<'de, str>),
    /// A number's exact text, as it is in the document.
    Num(&'de str),
    Object {
        /// The captured fields, in document order (a repeated one more than once).
        fields: Vec<(&'static str, Shape<'de>)>,
        /// Where the object's text is in the document.
        span: Span,
        /// Whether the object has a key its spec does not name.
        unknown: bool,
    },
    /// An array, `true`, `false` or `null`.
    Other,
}

impl<'de> Shape<'de> {
    /// The captured field `name` of an object (its first value if it is repeated).
    pub(crate) fn field(&self, name: &str) -> Option<&Shape<'de>> {
        match self {
            Shape::Object { fields, .. } => fields.iter().find(|(n, _)| *n == name).map(|(_, s)| s),
            _ => None,
        }
    }

    /// Whether the object has a key its spec does not name (false for anything else).
    pub(crate) fn has_unknown_key(&self) -> bool {
        matches!(self, Shape::Object { unknown: true, .. })
    }
}

/// Why a document was refused.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not JSON at all.
    Syntax,
    /// Some object repeats a key.
    DuplicateKey,
}

/// What one pass over a document found.
#[derive(Debug)]
pub(crate) struct Scanned<'de> {
    /// The top-level value, captured with the spec given.
    pub(crate) top: Shape<'de>,
    /// Some number in the document would change as a double.
    pub(crate) inexact: bool,
}

/// Reads `body` in one pass, capturing the fields `spec` names at the top level.
///
/// Syntax errors anywhere win over repeated keys.
pub(crate) fn scan<'de>(body: &'de [u8], spec: &'static Spec) -> Result<Scanned<'de>, Refusal> {
    run(body, spec, false).map(|(scanned, _)| scanned)
}

/// Where the numbers a double cannot hold (see [`text_survives_f64`]) are in `body`, in
/// document order, after the same checks as [`scan`].
#[cfg_attr(not(feature = "wasm"), allow(dead_code))]
pub(crate) fn inexact_numbers(body: &[u8]) -> Result<Vec<Span>, Refusal> {
    run(body, &LEAF, true).map(|(_, spans)| spans)
}

fn run<'de>(
    body: &'de [u8],
    spec: &'static Spec,
    collect: bool,
) -> Result<(Scanned<'de>, Vec<Span>), Refusal> {
    let ctx = Ctx {
        body,
        keys: RefCell::new(Vec::new()),
        duplicate: Cell::new(false),
        inexact: Cell::new(false),
        spans: collect.then(|| RefCell::new(Vec::new())),
    };
    let mut de = serde_json::Deserializer::from_slice(body);
    let seed = ValueSeed {
        ctx: &ctx,
        pos: 0,
        capture: Some(spec),
    };
    let (top, _) = seed
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value))
        .map_err(|_| Refusal::Syntax)?;
    if ctx.duplicate.get() {
        return Err(Refusal::DuplicateKey);
    }
    let scanned = Scanned {
        top,
        inexact: ctx.inexact.get(),
    };
    Ok((
        scanned,
        ctx.spans.map(RefCell::into_inner).unwrap_or_default(),
    ))
}

/// Whether a JSON number's text keeps its value as an IEEE 754 double.
///
/// Integers must lie within ±(2^53 - 1). A number with a fraction or an exponent must be
/// zero or have a magnitude from 1e-307 up to (not including) 1e308. No float is parsed.
pub(crate) fn text_survives_f64(text: &str) -> bool {
    let magnitude = text.strip_prefix('-').unwrap_or(text);
    if !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit()) {
        return magnitude
            .parse::<u64>()
            .is_ok_and(|n| n <= MAX_SAFE_INTEGER);
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
            Some(zeros) => i64::try_from(zeros).map_or(i64::MIN, i64::saturating_neg),
        }
    } else {
        i64::try_from(int.len()).unwrap_or(i64::MAX)
    };
    (-306..=308).contains(&leading.saturating_add(exponent))
}

/// What the walk shares: the document, the keys of the objects being read, what it noticed.
struct Ctx<'de> {
    body: &'de [u8],
    /// The keys of the objects being read, innermost last: one buffer for the whole
    /// document, so reading an object allocates nothing for its keys.
    keys: RefCell<Vec<Cow<'de, str>>>,
    duplicate: Cell<bool>,
    inexact: Cell<bool>,
    /// Where the numbers a double cannot hold are, when asked for.
    spans: Option<RefCell<Vec<Span>>>,
}

impl<'de> Ctx<'de> {
    /// `at`, moved past JSON whitespace.
    fn skip_ws(&self, mut at: usize) -> usize {
        while matches!(self.body.get(at), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            at = at.saturating_add(1);
        }
        at
    }

    /// `at`, moved past whitespace, one `separator` if it is there, and whitespace again.
    fn after(&self, at: usize, separator: u8) -> usize {
        let at = self.skip_ws(at);
        if self.body.get(at) == Some(&separator) {
            self.skip_ws(at.saturating_add(1))
        } else {
            at
        }
    }

    /// A string, number or literal whose text `serde_json` returned, starting at `start`.
    fn scalar<E: de::Error>(
        &self,
        text: &'de str,
        start: usize,
        capture: bool,
    ) -> Result<Shape<'de>, E> {
        match text.as_bytes().first() {
            Some(b'"') => {
                // Decoded even when not captured: serde_json's raw reading does not check
                // `\u` escapes (a lone surrogate), its string decoding does.
                let decoded = decode_str(text).map_err(E::custom)?;
                Ok(if capture {
                    Shape::Str(decoded)
                } else {
                    Shape::Other
                })
            }
            Some(b'-' | b'0'..=b'9') => {
                if !text_survives_f64(text) {
                    self.inexact.set(true);
                    if let Some(spans) = &self.spans {
                        spans
                            .borrow_mut()
                            .push(start..start.saturating_add(text.len()));
                    }
                }
                Ok(if capture {
                    Shape::Num(text)
                } else {
                    Shape::Other
                })
            }
            _ => Ok(Shape::Other),
        }
    }
}

/// A JSON string's text (quotes included) decoded, borrowed when it has no escapes.
fn decode_str(text: &str) -> Result<Cow<'_, str>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let decoded = (&mut de).deserialize_str(CowVisitor)?;
    de.end()?;
    Ok(decoded)
}

struct CowVisitor;

impl<'de> Visitor<'de> for CowVisitor {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

/// Any value starting at or after `pos` (past whitespace): its shape and where it ends.
struct ValueSeed<'c, 'de> {
    ctx: &'c Ctx<'de>,
    pos: usize,
    capture: Option<&'static Spec>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, 'de> {
    type Value = (Shape<'de>, usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let start = self.ctx.skip_ws(self.pos);
        match self.ctx.body.get(start) {
            Some(b'{') => deserializer.deserialize_map(ObjectVisitor {
                ctx: self.ctx,
                start,
                capture: self.capture,
            }),
            Some(b'[') => deserializer.deserialize_seq(ArrayVisitor {
                ctx: self.ctx,
                start,
            }),
            _ => {
                let raw = <&'de RawValue>::deserialize(deserializer)?;
                let text = raw.get();
                let shape = self.ctx.scalar(text, start, self.capture.is_some())?;
                Ok((shape, start.saturating_add(text.len())))
            }
        }
    }
}

/// An object key starting at or after `pos`: decoded, and where it ends.
struct KeySeed<'c, 'de> {
    ctx: &'c Ctx<'de>,
    pos: usize,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_, 'de> {
    type Value = (Cow<'de, str>, usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let start = self.ctx.skip_ws(self.pos);
        let text = <&'de RawValue>::deserialize(deserializer)?.get();
        let key = decode_str(text).map_err(de::Error::custom)?;
        Ok((key, start.saturating_add(text.len())))
    }
}

/// Up to this many keys, an object's keys are compared pairwise; above, sorted.
const PAIRWISE_KEYS: usize = 16;

/// Whether some key appears twice (reorders `keys`).
fn repeats(keys: &mut [Cow<'_, str>]) -> bool {
    if keys.len() <= PAIRWISE_KEYS {
        let mut rest = &*keys;
        while let Some((first, tail)) = rest.split_first() {
            if tail.contains(first) {
                return true;
            }
            rest = tail;
        }
        false
    } else {
        keys.sort_unstable();
        keys.windows(2).any(|pair| pair.first() == pair.get(1))
    }
}

/// An object whose `{` is at `start`.
struct ObjectVisitor<'c, 'de> {
    ctx: &'c Ctx<'de>,
    start: usize,
    capture: Option<&'static Spec>,
}

impl<'de> Visitor<'de> for ObjectVisitor<'_, 'de> {
    type Value = (Shape<'de>, usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        // This object's keys are the stack's entries from `own` on.
        let own = ctx.keys.borrow().len();
        let mut fields = Vec::new();
        let mut unknown = false;
        let mut cursor = self.start.saturating_add(1);
        let mut first = true;
        loop {
            let pos = if first {
                cursor
            } else {
                ctx.after(cursor, b',')
            };
            let Some((key, key_end)) = map.next_key_seed(KeySeed { ctx, pos })? else {
                break;
            };
            first = false;
            let field = self
                .capture
                .and_then(|spec| spec.0.iter().find(|(n, _)| *n == key.as_ref()));
            unknown |= self.capture.is_some() && field.is_none();
            let (value, end) = map.next_value_seed(ValueSeed {
                ctx,
                pos: ctx.after(key_end, b':'),
                capture: field.map(|(_, nested)| *nested),
            })?;
            if let Some((name, _)) = field {
                fields.push((*name, value));
            }
            ctx.keys.borrow_mut().push(key);
            cursor = end;
        }
        let mut keys = ctx.keys.borrow_mut();
        if keys.get_mut(own..).is_some_and(|own| repeats(own)) {
            ctx.duplicate.set(true);
        }
        keys.truncate(own);
        // Past the closing `}` (serde_json checks that it is one).
        let end = ctx.skip_ws(cursor).saturating_add(1);
        let shape = match self.capture {
            Some(_) => Shape::Object {
                fields,
                span: self.start..end,
                unknown,
            },
            None => Shape::Other,
        };
        Ok((shape, end))
    }
}

/// An array whose `[` is at `start`.
struct ArrayVisitor<'c, 'de> {
    ctx: &'c Ctx<'de>,
    start: usize,
}

impl<'de> Visitor<'de> for ArrayVisitor<'_, 'de> {
    type Value = (Shape<'de>, usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let ctx = self.ctx;
        let mut cursor = self.start.saturating_add(1);
        let mut first = true;
        loop {
            let pos = if first {
                cursor
            } else {
                ctx.after(cursor, b',')
            };
            let seed = ValueSeed {
                ctx,
                pos,
                capture: None,
            };
            let Some((_, end)) = seq.next_element_seed(seed)? else {
                break;
            };
            first = false;
            cursor = end;
        }
        // Past the closing `]` (serde_json checks that it is one).
        Ok((Shape::Other, ctx.skip_ws(cursor).saturating_add(1)))
    }
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
