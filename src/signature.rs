//! The signature header's grammar (spec: Webhook signature): its value read into signature
//! candidates before any HMAC is computed.

use base64ct::{Base64, Base64Unpadded, Base64Url, Base64UrlUnpadded, Encoding};

use crate::error::{Error, ErrorKind, err};
use crate::mac::{TAG_LEN, Tag};

/// The most signature values one header may carry.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Delivery, VerifyOptions, MAX_CANDIDATES};
/// let one = "v1=316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727";
/// let most = vec![one; MAX_CANDIDATES].join(" ");
/// let delivery = Delivery { body: b"", timestamp: b"1700000000", signature: most.as_bytes() };
/// assert!(delivery.check(&VerifyOptions::new(300)).is_ok());
/// let too_many = vec![one; MAX_CANDIDATES + 1].join(" ");
/// let delivery = Delivery { signature: too_many.as_bytes(), ..delivery };
/// assert_eq!(delivery.check(&VerifyOptions::new(300)).unwrap_err().code(), "signature_malformed");
/// ```
pub const MAX_CANDIDATES: usize = 8;
/// The longest signature header value accepted, in bytes.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Delivery, VerifyOptions, MAX_SIGNATURE_HEADER_BYTES};
/// let one = "v1=316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727";
/// let longest = format!("{one:<MAX_SIGNATURE_HEADER_BYTES$}"); // padded with spaces
/// let delivery = Delivery { body: b"", timestamp: b"1700000000", signature: longest.as_bytes() };
/// assert!(delivery.check(&VerifyOptions::new(300)).is_ok());
/// let over = format!("{longest} ");
/// let delivery = Delivery { signature: over.as_bytes(), ..delivery };
/// assert_eq!(delivery.check(&VerifyOptions::new(300)).unwrap_err().code(), "signature_malformed");
/// ```
pub const MAX_SIGNATURE_HEADER_BYTES: usize = 1024;
/// The detail of a header with more than [`MAX_CANDIDATES`] values (the number pinned by a test).
pub(crate) const TOO_MANY_CANDIDATES: &str = "the signature header holds more than 8 signatures";
/// The detail of a header over [`MAX_SIGNATURE_HEADER_BYTES`] (the number pinned by a test).
pub(crate) const SIGNATURE_HEADER_TOO_LONG: &str = "the signature header is longer than 1024 bytes";

/// The signature values read from one header value, each 32 bytes.
#[derive(Clone, Default)]
pub(crate) struct Candidates {
    tags: [Tag; MAX_CANDIDATES],
    len: usize,
}

/// How many, never the tags: a full signature never appears in Debug output.
impl core::fmt::Debug for Candidates {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Candidates")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl Candidates {
    fn push(&mut self, tag: Tag) -> Result<(), Error> {
        let slot = self
            .tags
            .get_mut(self.len)
            .ok_or(err(ErrorKind::SignatureMalformed, TOO_MANY_CANDIDATES))?;
        *slot = tag;
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    pub(crate) fn as_slice(&self) -> &[Tag] {
        self.tags.get(..self.len).unwrap_or(&[])
    }
}

/// The candidates [`with_candidates`] hands over, as a list (for the tests: what ships is
/// what they read).
#[cfg(test)]
pub(crate) fn parse_signature_header(value: &[u8], timestamp: &[u8]) -> Result<Candidates, Error> {
    with_candidates(value, timestamp, |tags| {
        let mut list = Candidates::default();
        for tag in tags {
            list.push(*tag)?;
        }
        Ok(list)
    })
}

/// Reads a signature header value into its candidates, checking `t=` items against
/// `timestamp`, then answers `with` on them. The usual spelling's one tag is handed over as
/// it is, without the list of eight being zeroed and moved (measured natively, 25 ns of a
/// 256 B verification).
pub(crate) fn with_candidates<R>(
    value: &[u8],
    timestamp: &[u8],
    with: impl FnOnce(&[Tag]) -> Result<R, Error>,
) -> Result<R, Error> {
    match canonical(value) {
        Some(tag) => with(core::slice::from_ref(&tag)),
        None => with(parse_grammar(value, timestamp)?.as_slice()),
    }
}

/// The usual spellings, `v1=` and 64 hex digits or the 64 digits alone, read in one step:
/// the grammar gives each of them this single candidate (hex digits hold no separator, comma
/// or `=`), so only the time to read them differs.
fn canonical(value: &[u8]) -> Option<Tag> {
    let hex = value.strip_prefix(b"v1=").unwrap_or(value);
    if hex.len() != 2 * TAG_LEN {
        return None;
    }
    let mut tag = [0u8; TAG_LEN];
    let decoded = base16ct::mixed::decode(hex, &mut tag).is_ok();
    decoded.then_some(tag)
}

/// The whole grammar of the signature header (see `docs/decisions.md`).
fn parse_grammar(value: &[u8], timestamp: &[u8]) -> Result<Candidates, Error> {
    let is_sep = |b: &u8| *b == b' ' || *b == b'\t';
    if value.iter().all(is_sep) {
        return Err(Error::new(ErrorKind::SignatureMissing));
    }
    if value.len() > MAX_SIGNATURE_HEADER_BYTES {
        return Err(err(
            ErrorKind::SignatureMalformed,
            SIGNATURE_HEADER_TOO_LONG,
        ));
    }
    if !value.iter().all(|&b| b.is_ascii_graphic() || is_sep(&b)) {
        return Err(err(
            ErrorKind::SignatureMalformed,
            "the signature header holds a character that is not visible ASCII",
        ));
    }
    let mut candidates = Candidates::default();
    for token in value.split(is_sep).filter(|t| !t.is_empty()) {
        if let Some(rest) = token.strip_prefix(b"v1,") {
            // One trailing comma is the `, ` a container that merges a repeated header puts
            // between the values (`v1,<a>, v1,<b>`); base64 holds no comma, so any other is
            // malformed.
            candidates.push(decode_value(rest.strip_suffix(b",").unwrap_or(rest))?)?;
            continue;
        }
        for item in token.split(|&b| b == b',').filter(|i| !i.is_empty()) {
            match item.iter().position(|&b| b == b'=') {
                // A bare value; base64 padding makes `=` appear inside a value too.
                None => candidates.push(decode_value(item)?)?,
                Some(_) if item.starts_with(b"v1=") => {
                    candidates.push(decode_value(item.get(3..).unwrap_or_default())?)?;
                }
                Some(_) if item.starts_with(b"sha256=") => {
                    candidates.push(decode_value(item.get(7..).unwrap_or_default())?)?;
                }
                Some(_) if item.starts_with(b"t=") => {
                    if item.get(2..) != Some(timestamp) {
                        return Err(err(
                            ErrorKind::SignatureMalformed,
                            "the t= item of the signature header differs from the timestamp header",
                        ));
                    }
                }
                Some(_) if is_padded_base64_shape(item) => candidates.push(decode_value(item)?)?,
                Some(_) => {
                    return Err(err(
                        ErrorKind::SignatureMalformed,
                        "the signature header holds an unknown item (known: v1=, sha256=, v1, and t=)",
                    ));
                }
            }
        }
    }
    if candidates.len == 0 {
        return Err(err(
            ErrorKind::SignatureMalformed,
            "the signature header holds no signature value",
        ));
    }
    Ok(candidates)
}

/// A bare padded base64 value: 44 characters ending in exactly one `=`.
fn is_padded_base64_shape(item: &[u8]) -> bool {
    item.len() == 44 && item.iter().position(|&b| b == b'=') == Some(43)
}

/// Decodes one value: 64 hex digits, or base64 (standard or URL-safe, padded or not) of 32 bytes.
fn decode_value(value: &[u8]) -> Result<Tag, Error> {
    let mut tag = [0u8; TAG_LEN];
    let decoded = match value.len() {
        64 => base16ct::mixed::decode(value, &mut tag).is_ok(),
        44 => {
            decode_base64::<Base64>(value, &mut tag) || decode_base64::<Base64Url>(value, &mut tag)
        }
        43 => {
            decode_base64::<Base64Unpadded>(value, &mut tag)
                || decode_base64::<Base64UrlUnpadded>(value, &mut tag)
        }
        _ => false,
    };
    if decoded {
        Ok(tag)
    } else {
        Err(err(
            ErrorKind::SignatureMalformed,
            "a signature value is not 64 hex digits or the base64 of 32 bytes",
        ))
    }
}

fn decode_base64<E: Encoding>(value: &[u8], tag: &mut Tag) -> bool {
    matches!(E::decode(value, tag), Ok(out) if out.len() == TAG_LEN)
}

#[cfg(test)]
mod tests;
