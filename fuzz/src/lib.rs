//! What the fuzz targets share: a reader that cuts an input into newline-separated fields
//! (so that seeds stay readable text), and the checks made on every error.
//!
//! A failed assertion is a finding: libFuzzer reports it as a crash and saves the input
//! under `fuzz/artifacts/<target>/`.

use cryptopay_verify::{Error, ErrorKind, Secret, SignatureEncoding, sign_webhook};

/// An input read as fields separated by `\n`; the last field can take everything left.
#[derive(Debug)]
pub struct Fields<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Fields<'a> {
    /// A reader over the whole input.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Self {
        Fields { rest: Some(data) }
    }

    /// Whether a field is left (an absent field differs from an empty one).
    #[must_use]
    pub fn has_more(&self) -> bool {
        self.rest.is_some()
    }

    /// The next field, without its `\n`; empty once the input is used up.
    pub fn line(&mut self) -> &'a [u8] {
        let Some(rest) = self.rest else {
            return &[];
        };
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let (line, tail) = rest.split_at(i);
                self.rest = tail.get(1..);
                line
            }
            None => {
                self.rest = None;
                rest
            }
        }
    }

    /// The next field as text (lossy: the API takes `&str` where a host passes strings).
    pub fn text(&mut self) -> String {
        String::from_utf8_lossy(self.line()).into_owned()
    }

    /// The next field if there is one, else `None`.
    pub fn optional_text(&mut self) -> Option<String> {
        self.has_more().then(|| self.text())
    }

    /// Everything not read yet, newlines included.
    pub fn rest(&mut self) -> &'a [u8] {
        self.rest.take().unwrap_or_default()
    }

    /// The next field as a number (see [`number`]).
    pub fn number(&mut self) -> u64 {
        number(self.line())
    }
}

/// A field as a number: its value when it is decimal digits that fit in a `u64` (readable
/// seeds), otherwise its first 8 bytes, little-endian (so every `u64` is reachable).
#[must_use]
pub fn number(field: &[u8]) -> u64 {
    if !field.is_empty()
        && field.iter().all(u8::is_ascii_digit)
        && let Some(n) = std::str::from_utf8(field)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
    {
        return n;
    }
    let mut bytes = [0u8; 8];
    for (slot, b) in bytes.iter_mut().zip(field) {
        *slot = *b;
    }
    u64::from_le_bytes(bytes)
}

/// A field with a repetition written out: `*N:UNIT` is `UNIT` repeated `N` times (at most
/// [`MAX_EXPANDED`] bytes in all), so that a short input can hold a number of thousands of
/// digits; any other field is its text as it is (lossy UTF-8, as [`Fields::text`]).
#[must_use]
pub fn expand(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    let Some((count, unit)) = text.strip_prefix('*').and_then(|t| t.split_once(':')) else {
        return text.into_owned();
    };
    let Ok(count) = count.parse::<usize>() else {
        return text.into_owned();
    };
    if unit.is_empty() {
        return String::new();
    }
    unit.repeat(count.min(MAX_EXPANDED / unit.len()))
}

/// The longest text [`expand`] writes out.
pub const MAX_EXPANDED: usize = 4_096;

/// A non-negative integer of any size, for oracles: base 10^9 limbs, least significant
/// first, no high zero limb (zero has none). Schoolbook arithmetic, unlike the crate's
/// digit-string code, so that the two can be compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nat(Vec<u32>);

const LIMB: u32 = 1_000_000_000;

impl Nat {
    /// Zero.
    #[must_use]
    pub fn zero() -> Self {
        Nat(Vec::new())
    }

    /// A small value.
    #[must_use]
    pub fn from_u64(mut n: u64) -> Self {
        let mut limbs = Vec::new();
        while n > 0 {
            limbs.push((n % u64::from(LIMB)) as u32);
            n /= u64::from(LIMB);
        }
        Nat(limbs)
    }

    /// The value of ASCII decimal digits (leading zeros allowed); `None` for an empty text
    /// or any other byte.
    #[must_use]
    pub fn parse(digits: &str) -> Option<Self> {
        let bytes = digits.as_bytes();
        if bytes.is_empty() || !bytes.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let mut limbs: Vec<u32> = bytes
            .rchunks(9)
            .map(|chunk| chunk.iter().fold(0u32, |v, d| v * 10 + u32::from(d - b'0')))
            .collect();
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        Some(Nat(limbs))
    }

    /// The sum.
    #[must_use]
    pub fn add(&self, other: &Nat) -> Nat {
        let mut out = Vec::with_capacity(self.0.len().max(other.0.len()) + 1);
        let mut carry = 0u32;
        for i in 0..self.0.len().max(other.0.len()) {
            let sum =
                self.0.get(i).copied().unwrap_or(0) + other.0.get(i).copied().unwrap_or(0) + carry;
            carry = u32::from(sum >= LIMB);
            out.push(sum % LIMB);
        }
        if carry > 0 {
            out.push(carry);
        }
        Nat(out)
    }

    /// The value as a `u128`, when it fits.
    #[must_use]
    pub fn to_u128(&self) -> Option<u128> {
        self.0.iter().rev().try_fold(0u128, |v, &limb| {
            v.checked_mul(u128::from(LIMB))?
                .checked_add(u128::from(limb))
        })
    }
}

impl Ord for Nat {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

impl PartialOrd for Nat {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for Nat {
    /// Decimal digits without leading zeros (`0` for zero).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut limbs = self.0.iter().rev();
        match limbs.next() {
            None => f.write_str("0"),
            Some(high) => {
                write!(f, "{high}")?;
                limbs.try_for_each(|limb| write!(f, "{limb:09}"))
            }
        }
    }
}

/// 2^256 - 1, the largest `amount_raw`, built by doubling (no digit string involved).
static MAX_AMOUNT: std::sync::LazyLock<Nat> = std::sync::LazyLock::new(|| {
    (0..256).fold(Nat::zero(), |n, _| n.add(&n).add(&Nat::from_u64(1)))
});

/// The grammar of an integer of any size: `0`, or digits without a leading zero.
#[must_use]
pub fn unsigned_digits(text: &str) -> bool {
    text == "0"
        || (text.starts_with(|c: char| matches!(c, '1'..='9')) && Nat::parse(text).is_some())
}

/// An `amount_raw` by its documented rule, read independently: a positive integer without
/// leading zeros, at most 2^256 - 1.
#[must_use]
pub fn amount_raw_ok(text: &str) -> bool {
    text != "0" && unsigned_digits(text) && Nat::parse(text).is_some_and(|n| n <= *MAX_AMOUNT)
}

/// The spellings of one delivery's tag that a signature header may carry: hex in any
/// letter case, base64 in the standard or the URL-safe alphabet, with or without padding
/// (docs/decisions.md, "Values"). A header verifies only if one of them appears in it.
#[derive(Debug)]
pub struct TagSpellings {
    hex: Vec<u8>,
    base64: Vec<u8>,
    base64url: Vec<u8>,
}

impl TagSpellings {
    /// The spellings of the tag of `timestamp . body` under `secret`; `None` when
    /// [`sign_webhook`] refuses the secret or the timestamp.
    #[must_use]
    pub fn of(secret: &[u8], timestamp: &[u8], body: &[u8]) -> Option<Self> {
        let secret = Secret::new(secret);
        let hex = sign_webhook(&secret, timestamp, body, SignatureEncoding::Hex).ok()?;
        let base64 = sign_webhook(&secret, timestamp, body, SignatureEncoding::Base64).ok()?;
        let base64 = base64.trim_end_matches('=');
        Some(TagSpellings {
            hex: hex.into_bytes(),
            base64: base64.as_bytes().to_vec(),
            base64url: base64.replace('+', "-").replace('/', "_").into_bytes(),
        })
    }

    /// Whether one of the spellings appears in `header` (unpadded base64 is a prefix of
    /// the padded form, so it covers both).
    #[must_use]
    pub fn appear_in(&self, header: &[u8]) -> bool {
        let contains = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
        contains(&header.to_ascii_lowercase(), &self.hex)
            || contains(header, &self.base64)
            || contains(header, &self.base64url)
    }
}

/// Asserts what every error must be: one of the crate's stable codes, one of those the
/// function documents (`allowed`), shown as `code: remedy` or `code: detail; remedy`.
///
/// # Panics
///
/// When it is not (a finding).
pub fn check_error(error: &Error, allowed: &[ErrorKind]) {
    let kind = error.kind();
    assert!(
        ErrorKind::ALL.contains(&kind),
        "error kind {kind:?} is not in ErrorKind::ALL"
    );
    assert_eq!(
        ErrorKind::from_code(error.code()),
        Some(kind),
        "code {} does not map back to its kind",
        error.code()
    );
    assert!(
        allowed.contains(&kind),
        "undocumented code {} (documented: {allowed:?})",
        error.code()
    );
    let shown = error.to_string();
    assert!(
        shown.starts_with(error.code()) && shown.ends_with(kind.help()),
        "the message is not `code: remedy` or `code: detail; remedy`"
    );
}

/// [`check_error`] on the error of a result, if any; the result is passed through.
///
/// # Panics
///
/// When the error is not one of `allowed` (a finding).
pub fn checked<T>(result: Result<T, Error>, allowed: &[ErrorKind]) -> Result<T, Error> {
    if let Err(e) = &result {
        check_error(e, allowed);
    }
    result
}

/// The code of a result's error, `None` when it is `Ok`.
#[must_use]
pub fn code<T>(result: &Result<T, Error>) -> Option<&'static str> {
    result.as_ref().err().map(|e| e.code())
}

/// Decodes `%XX` escapes (an oracle for the percent-encoding of the Hosted Checkout URL).
#[must_use]
pub fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Some(out)
}

// The reference JSON reader, shared with the crate's own tests (tests/vectors.rs).
#[path = "../../tests/common/json_reference.rs"]
mod json_reference;
pub use json_reference::{RefRefusal, RefValue, reference_envelope, reference_json};
