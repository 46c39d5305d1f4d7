//! The values a [`Spec`] names: an object's captured fields read into a [`Shape`], the rest
//! of it passed by [`past`](Scanner::past). Like the loop there, the position is a local
//! passed from call to call, not a field of the scanner: measured in V8 (`bench/scan.mjs`,
//! both builds in one Node 20 process), `checkEvent` took 0.92-0.94 of the time on an
//! envelope whose every field is captured, 0.93 on the 256 B event and 0.95-0.97 on the
//! 1 KiB one.

use std::borrow::Cow;

use super::strings::{decode, string_end};
use super::{MAX_DEPTH, Scan, Scanner, Shape, Spec, Syntax, literal_end, same_bytes, ws_end};

// Each position below is at most one past a byte of the body, so adding 1 cannot wrap.
impl<'de> Scanner<'de> {
    /// The value at `at` (whitespace before it passed), at `depth` (the number of containers
    /// around it), captured as `spec` says: the value and the position past it.
    pub(super) fn value(
        &mut self,
        at: usize,
        depth: usize,
        spec: &'static Spec,
    ) -> Scan<(Shape<'de>, usize)> {
        let body = self.body;
        match body.get(at).copied().ok_or(Syntax)? {
            b'{' => self.object(at, depth, spec),
            b'"' => {
                let (text, past) = self.captured_string(at)?;
                Ok((Shape::Str(text), past))
            }
            b'-' | b'0'..=b'9' => {
                let (text, past) = self.captured_number(at)?;
                Ok((Shape::Num(text), past))
            }
            b'n' => Ok((Shape::Null, literal_end(body, at, b"null")?)),
            _ => Ok((Shape::Other, self.past(at, depth)?)),
        }
    }

    /// The string at `at` (its quote), decoded: its text and the position past it.
    #[inline(always)]
    fn captured_string(&mut self, at: usize) -> Scan<(Cow<'de, str>, usize)> {
        let body = self.body;
        let end = string_end(body, at)?;
        let raw = body.get(at.wrapping_add(1)..end.quote).ok_or(Syntax)?;
        self.high |= end.high;
        let text = core::str::from_utf8(raw).map_err(|_| Syntax)?;
        let text = if end.escaped {
            Cow::Owned(decode(text)?)
        } else {
            Cow::Borrowed(text)
        };
        Ok((text, end.quote.wrapping_add(1)))
    }

    /// The number at `at`, as its exact text, and the position past it.
    #[inline(always)]
    fn captured_number(&mut self, at: usize) -> Scan<(&'de str, usize)> {
        let body = self.body;
        let end = self.past_number(body, at)?;
        // The grammar admits ASCII only.
        let text = body.get(at..end).ok_or(Syntax)?;
        let text = core::str::from_utf8(text).map_err(|_| Syntax)?;
        Ok((text, end))
    }

    /// An object at `{` whose fields `spec` names: each captured as its own spec says, the
    /// others checked and passed; its keys compared for a repeat when it closes.
    fn object(
        &mut self,
        start: usize,
        depth: usize,
        spec: &'static Spec,
    ) -> Scan<(Shape<'de>, usize)> {
        let body = self.body;
        let depth = depth.saturating_add(1);
        if depth > MAX_DEPTH {
            return Err(Syntax);
        }
        let own = self.keys.len();
        // Room for each field once: no growth while the usual object is read.
        let mut fields = Vec::with_capacity(spec.0.len());
        let mut unknown = false;
        let mut at = ws_end(body, start.wrapping_add(1));
        if body.get(at) == Some(&b'}') {
            at = at.wrapping_add(1);
        } else {
            loop {
                at = ws_end(body, self.key_at(at)?);
                let named = self.last_key().and_then(|key| {
                    spec.0
                        .iter()
                        .find(|(name, _)| same_bytes(name.as_bytes(), key))
                });
                match named {
                    // A string or a number captured here, in place; anything else by `value`.
                    Some((name, nested)) => match body.get(at) {
                        Some(b'"') => {
                            let (text, past) = self.captured_string(at)?;
                            fields.push((*name, Shape::Str(text)));
                            at = past;
                        }
                        Some(b'-' | b'0'..=b'9') => {
                            let (text, past) = self.captured_number(at)?;
                            fields.push((*name, Shape::Num(text)));
                            at = past;
                        }
                        _ => {
                            let (value, past) = self.value(at, depth, nested)?;
                            fields.push((*name, value));
                            at = past;
                        }
                    },
                    None => {
                        unknown = true;
                        at = self.past(at, depth)?;
                    }
                }
                at = ws_end(body, at);
                match body.get(at) {
                    Some(b',') => at = ws_end(body, at.wrapping_add(1)),
                    Some(b'}') => {
                        at = at.wrapping_add(1);
                        break;
                    }
                    _ => return Err(Syntax),
                }
            }
        }
        // `depth` is 1 inside the top-level object.
        self.close_keys(own, depth);
        let shape = Shape::Object {
            fields,
            span: start..at,
            unknown,
        };
        Ok((shape, at))
    }
}
