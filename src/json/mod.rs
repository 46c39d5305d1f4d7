//! Strict JSON, read in one pass (UTF-8, no BOM, nesting at most 127 containers), with
//! repeated keys noted at any depth, every number kept as its exact text and checked against
//! what a double can hold, and the few fields a caller names captured on the way, with no
//! tree built for the rest.
//!
//! The scanner ([`scan`](self::scan) module) is our own: measured in wasm32, `serde_json`
//! read an event at about 130 MB/s, several times slower than `JSON.parse`, and its
//! deserializer, float and error formatting were most of the `.wasm` (see bench/limits.md).
//! It accepts exactly serde_json's grammar, as `serde_json::from_slice` reads a document into
//! `RawValue`: the `event` fuzz target compares them (a reference reader built on
//! `RawValue`), and `tests/vectors.rs` runs the public JSONTestSuite. Numbers are kept as
//! text, never converted, so `1e400` is read here where `from_slice::<Value>` refuses it.

mod scan;

use core::ops::Range;
use std::borrow::Cow;

use scan::Scanner;

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
    /// `null`.
    Null,
    /// An array, `true` or `false`.
    Other,
}

impl<'de> Shape<'de> {
    /// The captured field `name` of an object (its first value if it is repeated).
    pub(crate) fn field(&self, name: &str) -> Option<&Shape<'de>> {
        match self {
            Shape::Object { fields, .. } => fields
                .iter()
                .find(|(n, _)| same_bytes(n.as_bytes(), name.as_bytes()))
                .map(|(_, s)| s),
            _ => None,
        }
    }

    /// Whether the object has a key its spec does not name (false for anything else).
    pub(crate) fn has_unknown_key(&self) -> bool {
        matches!(self, Shape::Object { unknown: true, .. })
    }
}

/// Whether `a` and `b` are the same bytes: for the few short names a [`Spec`] holds, compared
/// in place (`==` on slices calls `memcmp`, in wasm a loop of its own behind a call: measured,
/// about 60 ns of the scan of a 1 KiB event went to it).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
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
    /// Every byte of the document is ASCII.
    pub(crate) ascii: bool,
    /// An object below the top level repeats a key (only [`scan_envelope`] answers one).
    pub(crate) nested_duplicate: bool,
}

/// Reads `body` in one pass, capturing the fields `spec` names at the top level.
///
/// Syntax errors anywhere win over repeated keys.
pub(crate) fn scan<'de>(body: &'de [u8], spec: &'static Spec) -> Result<Scanned<'de>, Refusal> {
    run(body, spec, false, false).map(|(scanned, _)| scanned)
}

/// As [`scan`], but a key repeated below the top level is answered in
/// [`Scanned::nested_duplicate`] rather than refused, for the envelope's order of checks
/// (an unknown `event_type` is reported before anything inside `data`).
pub(crate) fn scan_envelope<'de>(
    body: &'de [u8],
    spec: &'static Spec,
) -> Result<Scanned<'de>, Refusal> {
    run(body, spec, false, true).map(|(scanned, _)| scanned)
}

/// Where the numbers a double cannot hold (see [`text_survives_f64`]) are in `body`, in
/// document order, after the same checks as [`scan`].
pub(crate) fn inexact_numbers(body: &[u8]) -> Result<Vec<Span>, Refusal> {
    run(body, &LEAF, true, false).map(|(_, spans)| spans)
}

fn run<'de>(
    body: &'de [u8],
    spec: &'static Spec,
    collect: bool,
    nested_later: bool,
) -> Result<(Scanned<'de>, Vec<Span>), Refusal> {
    let mut scanner = Scanner::new(body, collect);
    let top = scanner.document(spec).map_err(|_| Refusal::Syntax)?;
    if scanner.duplicate || (scanner.nested_duplicate && !nested_later) {
        return Err(Refusal::DuplicateKey);
    }
    let scanned = Scanned {
        top,
        inexact: scanner.inexact,
        ascii: !scanner.high,
        nested_duplicate: scanner.nested_duplicate,
    };
    Ok((scanned, scanner.spans.unwrap_or_default()))
}

/// Whether a JSON number's text keeps its value as an IEEE 754 double, for certain: whether
/// the number `JSON.parse` reads from it is the same decimal value.
///
/// Integers (digits only) must lie within ±(2^53 - 1), as `Number.isSafeInteger` has it. A
/// number with a fraction or an exponent must be zero, or have a magnitude from 1e-307 up to
/// (not including) 1e308 and at most 15 significant digits (DBL_DIG: every such decimal is
/// the shortest text of its nearest double). More digits may or may not survive
/// (`0.30000000000000004` does, `9007199254740993.0` and `1.00000000000000000001` do not);
/// telling them apart needs a float parser and printer (measured: 44 KB more `.wasm`), so
/// they count as changing, and the host keeps their exact text.
pub(crate) fn text_survives_f64(text: &str) -> bool {
    let magnitude = text.strip_prefix('-').unwrap_or(text);
    if !magnitude.is_empty() && magnitude.bytes().all(|b| b.is_ascii_digit()) {
        return magnitude
            .parse::<u64>()
            .is_ok_and(|n| n <= MAX_SAFE_INTEGER);
    }
    significant(magnitude)
        .is_none_or(|(place, digits)| (-306..=308).contains(&place) && digits <= 15)
}

/// A non-zero, non-negative decimal number (JSON's grammar) as the place of its leading
/// significant digit (the value lies in [10^(m-1), 10^m)) and how many significant digits it
/// has (leading and trailing zeros are not). None for zero.
fn significant(magnitude: &str) -> Option<(i64, usize)> {
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
    let (leading, frac) = if int.is_empty() {
        let zeros = frac.find(|c: char| c != '0')?;
        (
            i64::try_from(zeros).map_or(i64::MIN, i64::saturating_neg),
            frac.get(zeros..).unwrap_or_default(),
        )
    } else {
        (i64::try_from(int.len()).unwrap_or(i64::MAX), frac)
    };
    let frac = frac.trim_end_matches('0');
    let digits = if frac.is_empty() {
        int.trim_end_matches('0').len()
    } else {
        int.len().saturating_add(frac.len())
    };
    Some((leading.saturating_add(exponent), digits))
}

#[cfg(test)]
pub(crate) use scan::MAX_DEPTH;
#[cfg(all(wasm_test, target_arch = "wasm32", target_feature = "simd128"))]
pub(crate) use scan::{simd, swar};
#[cfg(test)]
mod tests;
