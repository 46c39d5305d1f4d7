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
//! [`Shape`], by one loop over its containers with the position in a local (see [`skip`]);
//! the few objects a [`Spec`] names are read by a call per value. The `event` fuzz target
//! and `tests/vectors.rs` hold it to serde_json and to the public JSONTestSuite.

use super::{Shape, Span, Spec, same_bytes, text_survives_f64};

mod block;
mod keys;
mod skip;
mod strings;

use block::is_space;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
use block::space_end;
#[cfg(all(wasm_test, target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) use block::{simd, swar};

/// Containers nested deeper than this are refused (serde_json's recursion limit: 127
/// containers read, the 128th refused).
pub(crate) const MAX_DEPTH: usize = 127;

/// How many containers a value nothing captures may open before the scanner allocates to
/// note more (see [`skip`](Scanner::skip)).
pub(super) const OPEN_SLOTS: usize = 16;

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
    /// The keys of the objects being read, innermost last, as they are between their quotes:
    /// one buffer for the document. Slices, not `Cow`s: measured in V8, the scan of a 16 KiB
    /// event 0.92 of the time (natively, a `Cow` pushed from memory stalled on the store).
    keys: Vec<&'de [u8]>,
    /// The keys with escapes among `keys`: their index there and their bytes decoded, in the
    /// order of `keys` (empty for the usual document: compared only where an object has one).
    escaped: Vec<(usize, Vec<u8>)>,
    /// The first containers a value nothing captures opened (see [`skip`](Self::skip)), in
    /// the scanner rather than in a `Vec` allocated per document (measured in V8: the scan
    /// of a 1 KiB event 0.93-0.97 of the time with a `Vec`, 0.86-0.87 with these slots).
    open: [usize; OPEN_SLOTS],
    /// The containers opened past those (allocated only for a document nested deeper).
    deeper: Vec<usize>,
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
            escaped: Vec::new(),
            open: [0; OPEN_SLOTS],
            deeper: Vec::new(),
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

    /// Past whitespace (see [`ws_end`]).
    fn skip_ws(&mut self) {
        self.at = ws_end(self.body, self.at);
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

    fn literal(&mut self, word: &[u8]) -> Scan<()> {
        self.at = literal_end(self.body, self.at, word)?;
        Ok(())
    }

    /// An object at `{` whose fields `spec` names: each captured as its own spec says, the
    /// others checked and skipped (see [`skip`](Self::skip)); its keys compared for a repeat
    /// when it closes.
    fn object(&mut self, depth: usize, spec: &'static Spec) -> Scan<Shape<'de>> {
        let start = self.at;
        let depth = depth.saturating_add(1);
        if depth > MAX_DEPTH {
            return Err(Syntax);
        }
        self.bump(); // {
        let own = self.keys.len();
        // Room for each field once: no growth while the usual object is read.
        let mut fields = Vec::with_capacity(spec.0.len());
        let mut unknown = false;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.bump();
        } else {
            loop {
                self.skip_ws();
                if self.peek() != Some(b'"') {
                    return Err(Syntax);
                }
                let (raw, decoded) = self.key()?;
                self.expect(b':')?;
                let key = decoded.as_deref().unwrap_or(raw);
                match spec
                    .0
                    .iter()
                    .find(|(name, _)| same_bytes(name.as_bytes(), key))
                {
                    Some((name, nested)) => {
                        let value = self.value(depth, nested)?;
                        fields.push((*name, value));
                    }
                    None => {
                        unknown = true;
                        self.skip(depth)?;
                    }
                }
                self.keep_key(raw, decoded);
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
        // `depth` is 1 inside the top-level object.
        self.close_keys(own, depth);
        Ok(Shape::Object {
            fields,
            span: start..self.at,
            unknown,
        })
    }

    /// A number's bytes, checked against the grammar and against what a double holds.
    fn number(&mut self) -> Scan<&'de [u8]> {
        let start = self.at;
        let (end, look) = number_end(self.body, start)?;
        self.at = end;
        if look {
            self.note_inexact(start, end)?;
        }
        self.body.get(start..end).ok_or(Syntax)
    }

    /// Notes the number from `start` to `end` if a double cannot hold it. Out of line: the
    /// usual number needs no look, and its readers then need no stack frame in wasm.
    #[inline(never)]
    fn note_inexact(&mut self, start: usize, end: usize) -> Scan<()> {
        // The grammar admits ASCII only.
        let bytes = self.body.get(start..end).ok_or(Syntax)?;
        let text = core::str::from_utf8(bytes).map_err(|_| Syntax)?;
        if !text_survives_f64(text) {
            self.inexact = true;
            if let Some(spans) = &mut self.spans {
                spans.push(start..end);
            }
        }
        Ok(())
    }
}

/// Past whitespace from `at`.
///
/// In the npm package's `.wasm` (wasm32 with `simd128`): the usual cases byte by byte, none
/// (compact JSON) or one byte (the space of `": "`), and from a second byte (a line break and
/// an indent) a block of sixteen at a time. Measured in V8: a body indented by four spaces
/// scanned in 0.75 of the time, by two in 0.96.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn ws_end(body: &[u8], at: usize) -> usize {
    if !body.get(at).is_some_and(|&b| is_space(b)) {
        return at;
    }
    // Past a byte of the body: no wrap.
    let at = at.wrapping_add(1);
    if body.get(at).is_some_and(|&b| is_space(b)) {
        ws_run_end(body, at)
    } else {
        at
    }
}

/// Past a run of whitespace, sixteen bytes at a time. Out of line: compact JSON never calls
/// it, and [`ws_end`] stays small enough to inline.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(never)]
fn ws_run_end(body: &[u8], at: usize) -> usize {
    space_end(body, at)
}

/// Past whitespace from `at`.
///
/// Off wasm SIMD128, byte by byte and inline. Measured natively (x86_64) on a body indented by
/// two spaces (runs of 3 to 9 bytes), against this loop: blocks of sixteen (SWAR words, or
/// bytes) scanned it in 1.1 to 1.4 of the time, this loop out of line in 1.25.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn ws_end(body: &[u8], mut at: usize) -> usize {
    while body.get(at).is_some_and(|&b| is_space(b)) {
        // Past a byte of the body: no wrap.
        at = at.wrapping_add(1);
    }
    at
}

/// Past `word` (`true`, `false` or `null`) at `at`, or not JSON.
#[inline(always)]
fn literal_end(body: &[u8], at: usize, word: &[u8]) -> Scan<usize> {
    let end = at.checked_add(word.len()).ok_or(Syntax)?;
    if body.get(at..end) == Some(word) {
        Ok(end)
    } else {
        Err(Syntax)
    }
}

/// Past a number at `at`, checked against the grammar: its end, and whether a double may not
/// hold it (anything but an integer of at most 15 digits, which is below 10^15 < 2^53).
#[inline(always)]
fn number_end(body: &[u8], start: usize) -> Scan<(usize, bool)> {
    // Every position is at most one past a byte of the body: no wrap.
    let digits = |mut at: usize| {
        while matches!(body.get(at), Some(b'0'..=b'9')) {
            at = at.wrapping_add(1);
        }
        at
    };
    let mut at = start;
    if body.get(at) == Some(&b'-') {
        at = at.wrapping_add(1);
    }
    match body.get(at) {
        Some(b'0') => at = at.wrapping_add(1),
        Some(b'1'..=b'9') => at = digits(at.wrapping_add(1)),
        _ => return Err(Syntax),
    }
    let mut integer = true;
    if body.get(at) == Some(&b'.') {
        integer = false;
        at = at.wrapping_add(1);
        if !matches!(body.get(at), Some(b'0'..=b'9')) {
            return Err(Syntax);
        }
        at = digits(at);
    }
    if matches!(body.get(at), Some(b'e' | b'E')) {
        integer = false;
        at = at.wrapping_add(1);
        if matches!(body.get(at), Some(b'+' | b'-')) {
            at = at.wrapping_add(1);
        }
        if !matches!(body.get(at), Some(b'0'..=b'9')) {
            return Err(Syntax);
        }
        at = digits(at);
    }
    // `at - start` is the number's length: `at` never falls behind `start`.
    Ok((at, !(integer && at.wrapping_sub(start) <= 15)))
}
