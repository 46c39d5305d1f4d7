//! The scanner: one pass over the bytes, validating JSON as `serde_json::from_slice` does
//! (RFC 8259; UTF-8 strings; no control characters in strings; `\u` escapes paired into
//! whole characters, a lone surrogate refused; at most [`MAX_DEPTH`] nested containers;
//! whitespace only around the value), and noting on the way what `JSON.parse` does not: a
//! key repeated in an object, a number a double cannot hold, the fields a [`Spec`] names.
//!
//! Strings are skipped sixteen bytes at a time while they hold no quote, backslash or control
//! byte, and so are runs of whitespace (see [`block`]: wasm SIMD128 in the npm package's
//! `.wasm`, 64-bit words elsewhere); the UTF-8 of a string is checked by
//! `core::str::from_utf8` when it has a byte outside ASCII or is captured. Keys are compared
//! as bytes (decoded when they have escapes), and nothing is allocated for a key or string
//! without escapes. A value nothing captures is checked and noted without building a
//! [`Shape`]. The `event` fuzz target and `tests/vectors.rs` hold it to serde_json and to the
//! public JSONTestSuite.

use std::borrow::Cow;

use super::{Shape, Span, Spec, text_survives_f64};

mod block;
mod strings;

use block::is_space;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use block::space_end;
#[cfg(all(wasm_test, target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) use block::{simd, swar};

/// Containers nested deeper than this are refused (serde_json's recursion limit: 127
/// containers read, the 128th refused).
pub(crate) const MAX_DEPTH: usize = 127;

/// Up to this many keys, an object's keys are compared pairwise; above, sorted.
pub(super) const PAIRWISE_KEYS: usize = 16;

/// Not JSON: where exactly does not matter to any caller.
#[derive(Debug)]
pub(super) struct Syntax;

type Scan<T> = Result<T, Syntax>;

/// The state of one pass.
pub(super) struct Scanner<'de> {
    body: &'de [u8],
    at: usize,
    /// The keys of the objects being read, innermost last: one buffer for the document.
    keys: Vec<Cow<'de, [u8]>>,
    /// An object at the top level repeats a key.
    pub(super) duplicate: bool,
    /// An object below the top level repeats a key.
    pub(super) nested_duplicate: bool,
    pub(super) inexact: bool,
    /// A string holds a byte outside ASCII (anywhere else, such a byte is not JSON).
    pub(super) high: bool,
    /// Where the numbers a double cannot hold are, when asked for.
    pub(super) spans: Option<Vec<Span>>,
}

impl<'de> Scanner<'de> {
    pub(super) fn new(body: &'de [u8], collect: bool) -> Self {
        Scanner {
            body,
            at: 0,
            // Room for the keys of a few nested objects: no growth for the usual event.
            keys: Vec::with_capacity(32),
            duplicate: false,
            nested_duplicate: false,
            inexact: false,
            high: false,
            spans: collect.then(Vec::new),
        }
    }

    /// The whole document: one value, whitespace around it, nothing else.
    pub(super) fn document(&mut self, spec: &'static Spec) -> Scan<Shape<'de>> {
        let top = self.value(0, spec)?;
        self.skip_ws();
        if self.at == self.body.len() {
            Ok(top)
        } else {
            Err(Syntax)
        }
    }

    fn peek(&self) -> Option<u8> {
        self.body.get(self.at).copied()
    }

    /// One byte on. `at` never passes the end by more than a byte, and a slice is at most
    /// `isize::MAX` long, so the sum cannot wrap: a plain add (a saturating one costs a
    /// compare and a select per byte, 3 % of the scan in wasm).
    fn bump(&mut self) {
        self.at = self.at.wrapping_add(1);
    }

    /// Past whitespace.
    ///
    /// In the npm package's `.wasm` (wasm32 with `simd128`): the usual cases byte by byte,
    /// none (compact JSON) or one byte (the space of `": "`), and from a second byte (a line
    /// break and an indent) a block of sixteen at a time. Measured in V8: a body indented by
    /// four spaces scanned in 0.75 of the time, by two in 0.96.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    fn skip_ws(&mut self) {
        if self.peek().is_some_and(is_space) {
            self.bump();
            if self.peek().is_some_and(is_space) {
                self.skip_ws_run();
            }
        }
    }

    /// Past a run of whitespace, sixteen bytes at a time. Out of line: compact JSON never
    /// calls it, and [`skip_ws`](Self::skip_ws) stays small enough to inline.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(never)]
    fn skip_ws_run(&mut self) {
        self.at = space_end(self.body, self.at);
    }

    /// Past whitespace.
    ///
    /// Off wasm SIMD128, byte by byte and inline. Measured natively (x86_64) on a body
    /// indented by two spaces (runs of 3 to 9 bytes), against this loop: blocks of sixteen
    /// (SWAR words, or bytes) scanned it in 1.1 to 1.4 of the time, this loop out of line in
    /// 1.25.
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.bump();
        }
    }

    /// Consumes `byte` (after whitespace) or fails.
    fn expect(&mut self, byte: u8) -> Scan<()> {
        self.skip_ws();
        if self.peek() == Some(byte) {
            self.bump();
            Ok(())
        } else {
            Err(Syntax)
        }
    }

    /// A value at `depth` (the number of containers around it), captured as `spec` says.
    fn value(&mut self, depth: usize, spec: &'static Spec) -> Scan<Shape<'de>> {
        self.skip_ws();
        match self.peek().ok_or(Syntax)? {
            b'{' => self.object(depth, spec),
            b'"' => self.text().map(Shape::Str),
            b'-' | b'0'..=b'9' => {
                let bytes = self.number()?;
                // The grammar admits ASCII only.
                core::str::from_utf8(bytes)
                    .map(Shape::Num)
                    .map_err(|_| Syntax)
            }
            b'n' => self.literal(b"null").map(|()| Shape::Null),
            _ => self.skip(depth).map(|()| Shape::Other),
        }
    }

    /// A value at `depth` that nothing captures: checked, its repeated keys and inexact
    /// numbers noted, nothing kept.
    fn skip(&mut self, depth: usize) -> Scan<()> {
        self.skip_ws();
        match self.peek().ok_or(Syntax)? {
            b'{' => self.members(depth, |scanner, _, depth| scanner.skip(depth)),
            b'[' => self.array(depth),
            b'"' => self.skip_string(),
            b'-' | b'0'..=b'9' => self.number().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => Err(Syntax),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Scan<()> {
        let end = self.at.checked_add(word.len()).ok_or(Syntax)?;
        if self.body.get(self.at..end) == Some(word) {
            self.at = end;
            Ok(())
        } else {
            Err(Syntax)
        }
    }

    /// An object whose fields `spec` names: each captured as its own spec says, the others
    /// checked and skipped.
    fn object(&mut self, depth: usize, spec: &'static Spec) -> Scan<Shape<'de>> {
        let start = self.at;
        // Room for each field once: no growth while the usual object is read.
        let mut fields = Vec::with_capacity(spec.0.len());
        let mut unknown = false;
        self.members(depth, |scanner, key, depth| {
            match spec.0.iter().find(|(name, _)| name.as_bytes() == key) {
                Some((name, nested)) => {
                    let value = scanner.value(depth, nested)?;
                    fields.push((*name, value));
                }
                None => {
                    unknown = true;
                    scanner.skip(depth)?;
                }
            }
            Ok(())
        })?;
        Ok(Shape::Object {
            fields,
            span: start..self.at,
            unknown,
        })
    }

    /// The members of an object at `{`: each key read, then its value by `member` (given
    /// the key and the depth inside the object), the keys compared for a repeat at the end.
    /// Monomorphized per caller, so that an object nothing captures builds nothing.
    fn members(
        &mut self,
        depth: usize,
        mut member: impl FnMut(&mut Self, &[u8], usize) -> Scan<()>,
    ) -> Scan<()> {
        let depth = depth.saturating_add(1);
        if depth > MAX_DEPTH {
            return Err(Syntax);
        }
        self.bump(); // {
        let own = self.keys.len();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.bump();
        } else {
            loop {
                self.skip_ws();
                if self.peek() != Some(b'"') {
                    return Err(Syntax);
                }
                let key = self.key()?;
                self.expect(b':')?;
                member(self, &key, depth)?;
                self.keys.push(key);
                self.skip_ws();
                match self.peek() {
                    Some(b',') => self.bump(),
                    Some(b'}') => {
                        self.bump();
                        break;
                    }
                    _ => return Err(Syntax),
                }
            }
        }
        if self.keys.get_mut(own..).is_some_and(|own| repeats(own)) {
            // `depth` is 1 inside the top-level object.
            if depth == 1 {
                self.duplicate = true;
            } else {
                self.nested_duplicate = true;
            }
        }
        self.keys.truncate(own);
        Ok(())
    }

    fn array(&mut self, depth: usize) -> Scan<()> {
        let depth = depth.saturating_add(1);
        if depth > MAX_DEPTH {
            return Err(Syntax);
        }
        self.bump(); // [
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(());
        }
        loop {
            self.skip(depth)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return Ok(());
                }
                _ => return Err(Syntax),
            }
        }
    }

    /// A number's bytes, checked against the grammar and against what a double holds.
    fn number(&mut self) -> Scan<&'de [u8]> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => self.bump(),
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(Syntax),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.bump();
            self.at_least_one_digit()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            integer = false;
            self.bump();
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.bump();
            }
            self.at_least_one_digit()?;
        }
        let bytes = self.body.get(start..self.at).ok_or(Syntax)?;
        // An integer of at most 15 digits is below 10^15 < 2^53: exact, nothing to look at.
        if !(integer && bytes.len() <= 15) {
            self.note_inexact(start, bytes)?;
        }
        Ok(bytes)
    }

    /// Notes the number `bytes` (from `start`) if a double cannot hold it. Out of line: the
    /// usual number needs no look, and [`number`](Self::number) then needs no stack frame in
    /// wasm.
    #[inline(never)]
    fn note_inexact(&mut self, start: usize, bytes: &[u8]) -> Scan<()> {
        // The grammar admits ASCII only.
        let text = core::str::from_utf8(bytes).map_err(|_| Syntax)?;
        if !text_survives_f64(text) {
            self.inexact = true;
            if let Some(spans) = &mut self.spans {
                spans.push(start..self.at);
            }
        }
        Ok(())
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.bump();
        }
    }

    fn at_least_one_digit(&mut self) -> Scan<()> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(Syntax);
        }
        self.digits();
        Ok(())
    }
}

/// Whether some key appears twice (reorders `keys`).
fn repeats(keys: &mut [Cow<'_, [u8]>]) -> bool {
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
        sorted_repeats(keys)
    }
}

/// [`repeats`] for more than [`PAIRWISE_KEYS`] keys: sorted, then neighbours compared. Out of
/// line: most objects have a few keys, and `repeats` then needs no stack frame in wasm.
#[inline(never)]
fn sorted_repeats(keys: &mut [Cow<'_, [u8]>]) -> bool {
    keys.sort_unstable();
    keys.windows(2).any(|pair| pair.first() == pair.get(1))
}
