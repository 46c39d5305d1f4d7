//! The scanner: one pass over the bytes, validating JSON as `serde_json::from_slice` into
//! `RawValue` does (numbers by their grammar, not their range)
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
//! without escapes. The position is a local passed from call to call, never a field of the
//! scanner. A value nothing captures is checked and noted without building a [`Shape`], by
//! one loop over its containers (see [`skip`]); the few objects a [`Spec`] names are read
//! member by member, a call per captured value (see [`capture`]). The `event` fuzz target and
//! `tests/vectors.rs` hold it to serde_json and to the public JSONTestSuite.

use super::{Shape, Span, Spec, same_bytes, text_survives_f64};

mod block;
mod capture;
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
/// note more (see [`past`](Scanner::past)).
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
    /// The keys of the objects being read, innermost last, as they are between their quotes:
    /// one buffer for the document. Slices, not `Cow`s: measured in V8, the scan of a 16 KiB
    /// event 0.92 of the time (natively, a `Cow` pushed from memory stalled on the store).
    keys: Vec<&'de [u8]>,
    /// The keys with escapes among `keys`: their index there and their bytes decoded, in the
    /// order of `keys` (empty for the usual document: compared only where an object has one).
    escaped: Vec<(usize, Vec<u8>)>,
    /// The first containers a value nothing captures opened (see [`past`](Self::past)), in
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
        let (top, at) = self.value(ws_end(self.body, 0), 0, spec)?;
        if ws_end(self.body, at) == self.body.len() {
            Ok(top)
        } else {
            Err(Syntax)
        }
    }

    /// Past the number at `start` in `body` (the scanner's, held by the caller in a local),
    /// checked against the grammar and noted if a double may not hold it: the one reading of
    /// a number, for the captured path and the loop alike.
    #[inline(always)]
    fn past_number(&mut self, body: &[u8], start: usize) -> Scan<usize> {
        let (end, look) = number_end(body, start)?;
        if look {
            self.note_inexact(start, end)?;
        }
        Ok(end)
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
///
/// All of it inline, the blocks too, though compact JSON never reaches them. With the run of
/// blocks behind a call (to keep this function small), that call, inlined after every token,
/// cost JavaScriptCore's code for the loops around it more than the code it saved: measured
/// both ways in one Bun process (`bench/scan.mjs`), the 16 KiB event scanned inline in 0.84
/// of the time, 1 KiB 0.92, 1 MiB 0.87, indented 0.86-0.91; in V8 a wash (16 KiB 0.77-0.94
/// over two runs, 1 KiB 0.92-0.99, 1 MiB 1.03-1.05, text outside ASCII 1.05-1.14).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn ws_end(body: &[u8], at: usize) -> usize {
    if !body.get(at).is_some_and(|&b| is_space(b)) {
        return at;
    }
    // Past a byte of the body: no wrap.
    let at = at.wrapping_add(1);
    if body.get(at).is_some_and(|&b| is_space(b)) {
        space_end(body, at)
    } else {
        at
    }
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
