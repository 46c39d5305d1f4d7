//! The delivery headers' grammar (spec: Webhook signature): the timestamp value and the
//! signature value, read into signature candidates before any HMAC is computed.

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
/// The most digits a timestamp may have.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{parse_timestamp, MAX_TIMESTAMP_DIGITS};
/// assert_eq!(parse_timestamp(&[b'9'; MAX_TIMESTAMP_DIGITS])?, 999_999_999_999);
/// // Milliseconds (13 digits today) are refused, not read as a far future.
/// assert_eq!(parse_timestamp(b"1700000000000").unwrap_err().code(), "timestamp_malformed");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub const MAX_TIMESTAMP_DIGITS: usize = 12;
/// The detail of a timestamp over [`MAX_TIMESTAMP_DIGITS`] (the number pinned by a test).
pub(crate) const TIMESTAMP_TOO_LONG: &str = "the timestamp has more than 12 digits (milliseconds?)";
/// The detail of a header with more than [`MAX_CANDIDATES`] values (the number pinned by a test).
pub(crate) const TOO_MANY_CANDIDATES: &str = "the signature header holds more than 8 signatures";
/// The detail of a header over [`MAX_SIGNATURE_HEADER_BYTES`] (the number pinned by a test).
pub(crate) const SIGNATURE_HEADER_TOO_LONG: &str = "the signature header is longer than 1024 bytes";

/// Reads a timestamp header value: 1 to 12 ASCII digits, nothing else.
///
/// The bytes themselves go into the MAC; the number is used only for the skew check.
///
/// # Errors
///
/// `timestamp_missing` when empty, `timestamp_malformed` otherwise.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::parse_timestamp;
/// assert_eq!(parse_timestamp(b"1700000000").unwrap(), 1_700_000_000);
/// assert_eq!(parse_timestamp(b"+1700000000").unwrap_err().code(), "timestamp_malformed");
/// assert_eq!(parse_timestamp(b"").unwrap_err().code(), "timestamp_missing");
/// ```
pub fn parse_timestamp(value: &[u8]) -> Result<u64, Error> {
    if value.is_empty() {
        return Err(Error::new(ErrorKind::TimestampMissing));
    }
    // Characters first: a value that is not digits at all (a signature pasted in its place)
    // is not called too long.
    if !value.iter().all(u8::is_ascii_digit) {
        return Err(err(
            ErrorKind::TimestampMalformed,
            "the timestamp holds a character other than an ASCII digit",
        ));
    }
    if value.len() > MAX_TIMESTAMP_DIGITS {
        return Err(err(ErrorKind::TimestampMalformed, TIMESTAMP_TOO_LONG));
    }
    // 1 to 12 ASCII digits: valid UTF-8, and the value fits (std parses so few digits without
    // per-digit overflow checks, which wasm32 would pay as 128-bit multiplications).
    core::str::from_utf8(value)
        .ok()
        .and_then(|digits| digits.parse::<u64>().ok())
        .ok_or(Error::new(ErrorKind::TimestampMalformed))
}

/// The signature values read from one header value, each 32 bytes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Candidates {
    tags: [Tag; MAX_CANDIDATES],
    len: usize,
}

impl Candidates {
    fn one(tag: Tag) -> Self {
        let mut tags = [[0u8; TAG_LEN]; MAX_CANDIDATES];
        if let Some(first) = tags.first_mut() {
            *first = tag;
        }
        Candidates { tags, len: 1 }
    }

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

/// Reads a signature header value into candidates, checking `t=` items against `timestamp`.
pub(crate) fn parse_signature_header(value: &[u8], timestamp: &[u8]) -> Result<Candidates, Error> {
    match canonical(value) {
        Some(tag) => Ok(Candidates::one(tag)),
        None => parse_grammar(value, timestamp),
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
            candidates.push(decode_value(rest)?)?;
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
mod tests {
    use super::*;

    const TS: &[u8] = b"1700000000";
    const HEX: &str = "0900a08773f24e66b315e3d5c951f0b713a3559f282fd89bdc9ae5216a2b13b6";
    const B64: &str = "CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Y=";

    #[test]
    fn the_usual_spellings_read_in_one_step_as_the_grammar_reads_them() {
        let upper = HEX.to_uppercase();
        let mixed: String = HEX
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i % 2 == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect();
        let mut values = vec![];
        for hex in [HEX.to_owned(), upper, mixed] {
            for prefix in [
                "",
                "v1=",
                "V1=",
                "v1,",
                "sha256=",
                " v1=",
                "v1= ",
                "t=1700000000,v1=",
            ] {
                values.push(format!("{prefix}{hex}"));
            }
            values.push(format!("v1={}", hex.get(1..).unwrap()));
            values.push(format!("v1={hex}0"));
            values.push(format!("v1={}g", hex.get(1..).unwrap()));
            values.push(format!("v1={} ", hex.get(1..).unwrap()));
            values.push(format!("v1={},", hex.get(1..).unwrap()));
            values.push(format!("{}=", hex.get(1..).unwrap()));
        }
        values.push(format!("v1={B64}"));
        let mut fast = 0;
        for value in &values {
            let quick = parse_signature_header(value.as_bytes(), TS);
            let full = parse_grammar(value.as_bytes(), TS);
            assert_eq!(
                quick.as_ref().map(Candidates::as_slice),
                full.as_ref().map(Candidates::as_slice),
                "{value}"
            );
            fast += usize::from(canonical(value.as_bytes()).is_some());
        }
        // The plain and `v1=` spellings in three letter cases took the one-step path.
        assert_eq!(fast, 6);
    }

    fn parse(value: &str) -> Result<usize, &'static str> {
        parse_signature_header(value.as_bytes(), TS)
            .map(|c| c.as_slice().len())
            .map_err(Error::code)
    }

    #[test]
    fn shapes() {
        assert_eq!(parse(HEX), Ok(1));
        assert_eq!(parse(&HEX.to_uppercase()), Ok(1));
        assert_eq!(parse(B64), Ok(1));
        assert_eq!(parse(B64.trim_end_matches('=')), Ok(1));
        assert_eq!(parse(&format!("v1={HEX}")), Ok(1));
        assert_eq!(parse(&format!("sha256={HEX}")), Ok(1));
        assert_eq!(parse(&format!("v1,{B64}")), Ok(1));
        assert_eq!(parse(&format!("t=1700000000,v1={HEX},v1={HEX}")), Ok(2));
        assert_eq!(parse(&format!("  {HEX}\t{B64} ,")), Ok(2));
        assert_eq!(parse(&format!("{B64},{B64}")), Ok(2));
    }

    #[test]
    fn rejections() {
        assert_eq!(parse(""), Err("signature_missing"));
        assert_eq!(parse(" \t "), Err("signature_missing"));
        assert_eq!(parse("v1="), Err("signature_malformed"));
        assert_eq!(parse("t=1700000000"), Err("signature_malformed"));
        assert_eq!(parse(","), Err("signature_malformed"));
        assert_eq!(
            parse(&format!("t=01700000000,v1={HEX}")),
            Err("signature_malformed")
        );
        assert_eq!(parse(&format!("v0={HEX}")), Err("signature_malformed"));
        assert_eq!(parse(&format!("V1={HEX}")), Err("signature_malformed"));
        assert_eq!(parse(&HEX[..62]), Err("signature_malformed"));
        assert_eq!(parse(&format!("{HEX}0")), Err("signature_malformed"));
        assert_eq!(parse(&format!("v1,{B64},junk")), Err("signature_malformed"));
        assert_eq!(
            parse(&format!("{}é", &HEX[..63])),
            Err("signature_malformed")
        );
        let nine = [HEX; 9].join(" ");
        assert_eq!(parse(&nine), Err("signature_malformed"));
        assert_eq!(parse(&[HEX; 8].join(" ")), Ok(8));
        assert_eq!(parse(&"a".repeat(1025)), Err("signature_malformed"));
        // Non-canonical base64: the last character carries non-zero unused bits.
        assert_eq!(
            parse("CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Z="),
            Err("signature_malformed")
        );
    }

    #[test]
    fn an_unknown_item_is_named_as_such() {
        // A padded base64 value is the one item with `=` that is not a marker.
        let detail = |v: &str| {
            parse_signature_header(v.as_bytes(), TS)
                .unwrap_err()
                .detail()
                .unwrap_or_default()
        };
        assert!(detail(&format!("v0={HEX}")).contains("unknown item"));
        assert!(detail("abc=").contains("unknown item"));
        assert!(detail(&format!("{}==", &B64[..42])).contains("unknown item"));
        assert!(!detail("CQCgh3PyTmazFePVyVHwtxOjVZ8oL9ib3JrlIWorE7Z=").contains("unknown item"));
    }

    #[test]
    fn every_prefix_of_a_value_is_rejected() {
        for len in 0..HEX.len() {
            let code = parse(&format!("v1={}", &HEX[..len])).unwrap_err();
            assert!(code == "signature_malformed", "prefix {len}: {code}");
        }
    }

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp(b"0"), Ok(0));
        assert_eq!(parse_timestamp(b"999999999999"), Ok(999_999_999_999));
        for bad in [
            &b"1700000000000"[..],
            b" 1",
            b"1 ",
            b"1.5",
            b"1e9",
            b"-1",
            b"0x1",
            b"1_0",
        ] {
            assert_eq!(
                parse_timestamp(bad).unwrap_err().code(),
                "timestamp_malformed"
            );
        }
        assert_eq!(
            parse_timestamp("１７".as_bytes()).unwrap_err().code(),
            "timestamp_malformed"
        );
        // The detail says what is wrong: too many digits only when they are all digits.
        let detail = |value: &[u8]| parse_timestamp(value).unwrap_err().detail();
        assert_eq!(detail(b"1700000000000"), Some(TIMESTAMP_TOO_LONG));
        assert_eq!(
            detail("a".repeat(64).as_bytes()),
            Some("the timestamp holds a character other than an ASCII digit")
        );
    }
}
