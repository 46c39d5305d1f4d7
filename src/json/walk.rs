//! The walk over a document: where each value starts, and which `serde_json` reading it
//! gets (see the module above).

use core::cell::{Cell, RefCell};
use core::fmt;
use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Shape, Span, Spec, text_survives_f64};

/// What the walk shares: the document, the keys of the objects being read, what it noticed.
pub(super) struct Ctx<'de> {
    pub(super) body: &'de [u8],
    /// The keys of the objects being read, innermost last: one buffer for the whole
    /// document, so reading an object allocates nothing for its keys.
    pub(super) keys: RefCell<Vec<Cow<'de, str>>>,
    pub(super) duplicate: Cell<bool>,
    pub(super) inexact: Cell<bool>,
    /// Where the numbers a double cannot hold are, when asked for.
    pub(super) spans: Option<RefCell<Vec<Span>>>,
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
pub(super) struct ValueSeed<'c, 'de> {
    pub(super) ctx: &'c Ctx<'de>,
    pub(super) pos: usize,
    pub(super) capture: Option<&'static Spec>,
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
pub(super) const PAIRWISE_KEYS: usize = 16;

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
