//! What the fuzz targets share: a reader that cuts an input into newline-separated fields
//! (so that seeds stay readable text), and the checks made on every error.
//!
//! A failed assertion is a finding: libFuzzer reports it as a crash and saves the input
//! under `fuzz/artifacts/<target>/`.

use cryptopay_verify::{Error, ErrorKind, Secret, SignatureEncoding, sign};

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
    /// [`sign`] refuses the secret or the timestamp.
    #[must_use]
    pub fn of(secret: &[u8], timestamp: &[u8], body: &[u8]) -> Option<Self> {
        let secret = Secret::new(secret);
        let hex = sign(&secret, timestamp, body, SignatureEncoding::Hex).ok()?;
        let base64 = sign(&secret, timestamp, body, SignatureEncoding::Base64).ok()?;
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
/// function documents (`allowed`), whose message starts with its kind's short message.
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
    assert!(
        error.to_string().starts_with(kind.message()),
        "the message does not start with the kind's message"
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
pub use json_reference::{RefRefusal, RefValue, reference_json};
