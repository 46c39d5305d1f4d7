//! The scanner: one pass over the bytes, validating JSON as `serde_json::from_slice` does
//! (RFC 8259; UTF-8 strings; no control characters in strings; `\u` escapes paired into
//! whole characters, a lone surrogate refused; at most [`MAX_DEPTH`] nested containers;
//! whitespace only around the value), and noting on the way what `JSON.parse` does not: a
//! key repeated in an object, a number a double cannot hold, the fields a [`Spec`] names.
//!
//! Strings are skipped eight bytes at a time while they hold no quote, backslash or control
//! byte; the UTF-8 of a string is checked by `core::str::from_utf8` when it has a byte outside
//! ASCII or is captured. Keys are compared as bytes (decoded when they have escapes), and
//! nothing is allocated for a key or string without escapes. A value nothing captures is
//! checked and noted without building a [`Shape`]. The `event` fuzz target and
//! `tests/vectors.rs` hold it to serde_json and to the public JSONTestSuite.

use std::borrow::Cow;

use super::{Shape, Span, Spec, text_survives_f64};

/// Containers nested deeper than this are refused (serde_json's recursion limit: 127
/// containers read, the 128th refused).
pub(super) const MAX_DEPTH: usize = 127;

/// Up to this many keys, an object's keys are compared pairwise; above, sorted.
pub(super) const PAIRWISE_KEYS: usize = 16;

/// Not JSON: where exactly does not matter to any caller.
#[derive(Debug)]
pub(super) struct Syntax;

type Scan<T> = Result<T, Syntax>;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `word` that is zero.
const fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// The bytes of `word` (little endian) that end a plain run of string bytes, each as its high
/// bit: `"`, `\` or a control byte. The lowest one is exact (a borrow only reaches the bytes
/// above it), which is all [`Scanner::skip_plain`] reads.
const fn stops(word: u64) -> u64 {
    let quote = zero_bytes(word ^ ONES.wrapping_mul(b'"' as u64));
    let backslash = zero_bytes(word ^ ONES.wrapping_mul(b'\\' as u64));
    let control = word.wrapping_sub(ONES.wrapping_mul(0x20)) & !word & HIGHS;
    quote | backslash | control
}

/// The state of one pass.
pub(super) struct Scanner<'de> {
    body: &'de [u8],
    at: usize,
    /// The keys of the objects being read, innermost last: one buffer for the document.
    keys: Vec<Cow<'de, [u8]>>,
    pub(super) duplicate: bool,
    pub(super) inexact: bool,
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
            inexact: false,
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

    fn bump(&mut self) {
        self.at = self.at.saturating_add(1);
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
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
            self.duplicate = true;
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
        if integer && bytes.len() <= 15 {
            return Ok(bytes);
        }
        // The grammar above admits ASCII only.
        let text = core::str::from_utf8(bytes).map_err(|_| Syntax)?;
        if !text_survives_f64(text) {
            self.inexact = true;
            if let Some(spans) = &mut self.spans {
                spans.push(start..self.at);
            }
        }
        Ok(bytes)
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

    /// Past a string at `"`: its bytes between the quotes, whether it has escapes and whether
    /// it has a byte outside ASCII. Its escapes and control bytes are checked, not its UTF-8.
    fn raw_string(&mut self) -> Scan<(&'de [u8], bool, bool)> {
        self.bump(); // "
        let start = self.at;
        let mut escaped = false;
        let mut high = false;
        loop {
            high |= self.skip_plain();
            match self.peek().ok_or(Syntax)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.bump();
                    self.escape()?;
                }
                0x00..=0x1f => return Err(Syntax),
                _ => self.bump(),
            }
        }
        let raw = self.body.get(start..self.at).ok_or(Syntax)?;
        self.bump(); // "
        Ok((raw, escaped, high))
    }

    /// A string nothing captures, checked whole (ASCII needs no UTF-8 check).
    fn skip_string(&mut self) -> Scan<()> {
        let (raw, _, high) = self.raw_string()?;
        if high {
            core::str::from_utf8(raw).map_err(|_| Syntax)?;
        }
        Ok(())
    }

    /// A key: its bytes, decoded when it has escapes (so that `"a"` and `"\u0061"` are one key).
    fn key(&mut self) -> Scan<Cow<'de, [u8]>> {
        let (raw, escaped, high) = self.raw_string()?;
        if escaped {
            let text = core::str::from_utf8(raw).map_err(|_| Syntax)?;
            return Ok(Cow::Owned(decode(text)?.into_bytes()));
        }
        if high {
            core::str::from_utf8(raw).map_err(|_| Syntax)?;
        }
        Ok(Cow::Borrowed(raw))
    }

    /// A captured string, decoded (borrowed unless it has escapes).
    fn text(&mut self) -> Scan<Cow<'de, str>> {
        let (raw, escaped, _) = self.raw_string()?;
        let text = core::str::from_utf8(raw).map_err(|_| Syntax)?;
        Ok(if escaped {
            Cow::Owned(decode(text)?)
        } else {
            Cow::Borrowed(text)
        })
    }

    /// Past the bytes of a string that need no look: eight at a time up to the first that
    /// does, then one by one for the last few of the body. Whether one of them is outside ASCII.
    fn skip_plain(&mut self) -> bool {
        let mut seen = 0;
        while let Some(word) = self
            .at
            .checked_add(8)
            .and_then(|end| self.body.get(self.at..end))
            .and_then(|chunk| <[u8; 8]>::try_from(chunk).ok())
        {
            let word = u64::from_le_bytes(word);
            let stop = stops(word);
            if stop != 0 {
                // The plain bytes before the first stop: its index, and those bytes of `word`.
                let plain = stop.trailing_zeros() / 8;
                let before = u64::MAX.checked_shr(64_u32.saturating_sub(plain.saturating_mul(8)));
                seen |= word & before.unwrap_or(0);
                self.at = self.at.saturating_add(plain as usize);
                return seen & HIGHS != 0;
            }
            seen |= word;
            self.at = self.at.saturating_add(8);
        }
        let mut high = seen & HIGHS != 0;
        while let Some(b) = self
            .peek()
            .filter(|&b| b >= 0x20 && b != b'"' && b != b'\\')
        {
            high |= b >= 0x80;
            self.bump();
        }
        high
    }

    /// An escape after its `\`: one of `"\/bfnrt`, or `u` with four hex digits, a high
    /// surrogate followed at once by `\u` and a low one.
    fn escape(&mut self) -> Scan<()> {
        match self.peek().ok_or(Syntax)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.bump();
                Ok(())
            }
            b'u' => {
                self.bump();
                match self.hex4()? {
                    0xD800..=0xDBFF => {
                        if self.peek() != Some(b'\\') {
                            return Err(Syntax);
                        }
                        self.bump();
                        if self.peek() != Some(b'u') {
                            return Err(Syntax);
                        }
                        self.bump();
                        if (0xDC00..=0xDFFF).contains(&self.hex4()?) {
                            Ok(())
                        } else {
                            Err(Syntax)
                        }
                    }
                    0xDC00..=0xDFFF => Err(Syntax),
                    _ => Ok(()),
                }
            }
            _ => Err(Syntax),
        }
    }

    fn hex4(&mut self) -> Scan<u16> {
        let end = self.at.checked_add(4).ok_or(Syntax)?;
        let digits = self.body.get(self.at..end).ok_or(Syntax)?;
        let text = core::str::from_utf8(digits).map_err(|_| Syntax)?;
        if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Syntax); // from_str_radix would take a sign
        }
        let value = u16::from_str_radix(text, 16).map_err(|_| Syntax)?;
        self.at = end;
        Ok(value)
    }
}

/// A string's content (between its quotes, already checked) with its escapes decoded.
fn decode(text: &str) -> Scan<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next().ok_or(Syntax)? {
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'u' => {
                let first = hex_unit(&mut chars)?;
                if (0xD800..=0xDBFF).contains(&first) {
                    // Checked by the scan: `\u` and a low surrogate follow.
                    chars.next();
                    chars.next();
                    let second = hex_unit(&mut chars)?;
                    char::decode_utf16([first, second])
                        .next()
                        .and_then(Result::ok)
                        .ok_or(Syntax)?
                } else {
                    char::from_u32(u32::from(first)).ok_or(Syntax)?
                }
            }
            other => other, // `"`, `\` and `/` stand for themselves
        };
        out.push(decoded);
    }
    Ok(out)
}

fn hex_unit(chars: &mut core::str::Chars<'_>) -> Scan<u16> {
    let text: String = chars.by_ref().take(4).collect();
    u16::from_str_radix(&text, 16).map_err(|_| Syntax)
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
        keys.sort_unstable();
        keys.windows(2).any(|pair| pair.first() == pair.get(1))
    }
}
