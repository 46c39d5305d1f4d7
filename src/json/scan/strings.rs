//! The scanner's strings: a string's plain bytes passed sixteen at a time (see
//! [`block`](super::block)), its escapes checked, and a key or a captured string decoded where
//! it has escapes.

use super::block::plain_end;
use super::{Scan, Syntax};

/// Where a string ends, as [`string_end`] reads it.
pub(super) struct StringEnd {
    /// The index of the closing quote.
    pub(super) quote: usize,
    /// The string has an escape.
    pub(super) escaped: bool,
    /// The string has a byte outside ASCII (its UTF-8 is not checked yet).
    pub(super) high: bool,
}

/// Past a string whose opening quote is at `open`: where its closing quote is, whether it has
/// escapes and whether it has a byte outside ASCII. Its escapes and control bytes are checked,
/// not its UTF-8. A function of the body and a position, inlined into its callers, so that the
/// position stays in a local of the loop that reads the document.
///
/// The plain bytes are passed a block at a time (see [`plain_end`]), ASCII first: a byte
/// outside ASCII also ends the run, so that a string of ASCII (the usual key or value) costs no
/// bookkeeping; past one, the rest of the string is read with such bytes not ending the run.
#[inline(always)]
pub(super) fn string_end(body: &[u8], open: usize) -> Scan<StringEnd> {
    // The quote is a byte of the body: no wrap.
    let mut at = open.wrapping_add(1);
    let mut escaped = false;
    let mut high = false;
    loop {
        at = plain_end::<true>(body, at);
        match body.get(at).copied().ok_or(Syntax)? {
            b'"' => break,
            b'\\' => {
                escaped = true;
                at = escape_end(body, at)?;
            }
            0x00..=0x1f => return Err(Syntax),
            _ => {
                // A byte outside ASCII (`plain_end` stops at nothing else).
                high = true;
                at = plain_end::<false>(body, at);
            }
        }
    }
    Ok(StringEnd {
        quote: at,
        escaped,
        high,
    })
}

/// A key with escapes, between its quotes (`raw`), decoded. Out of line: most keys have none.
#[inline(never)]
pub(super) fn decode_key(raw: &[u8]) -> Scan<Vec<u8>> {
    let text = core::str::from_utf8(raw).map_err(|_| Syntax)?;
    Ok(decode(text)?.into_bytes())
}

/// A string or key as it is between its quotes (escapes undecoded): its UTF-8 checked where
/// it has a byte outside ASCII (`high`; ASCII needs no check).
#[inline(always)]
pub(super) fn check_plain(raw: &[u8], high: bool) -> Scan<()> {
    if high {
        core::str::from_utf8(raw).map_err(|_| Syntax)?;
    }
    Ok(())
}

/// Past an escape whose `\` is at `at`: one of `"\/bfnrt`, or `u` with four hex digits, a
/// high surrogate followed at once by `\u` and a low one. Out of line: most strings have no
/// escape, and the string loop then needs no stack frame in wasm.
#[inline(never)]
fn escape_end(body: &[u8], at: usize) -> Scan<usize> {
    // Each position below is at most one past a byte of the body: no wrap.
    let at = at.wrapping_add(1);
    match body.get(at).copied().ok_or(Syntax)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Ok(at.wrapping_add(1)),
        b'u' => {
            let (unit, at) = hex4(body, at.wrapping_add(1))?;
            match unit {
                0xD800..=0xDBFF => {
                    if body.get(at..at.wrapping_add(2)) != Some(b"\\u") {
                        return Err(Syntax);
                    }
                    let (low, at) = hex4(body, at.wrapping_add(2))?;
                    if (0xDC00..=0xDFFF).contains(&low) {
                        Ok(at)
                    } else {
                        Err(Syntax)
                    }
                }
                0xDC00..=0xDFFF => Err(Syntax),
                _ => Ok(at),
            }
        }
        _ => Err(Syntax),
    }
}

/// Four hex digits at `at`: their value and the position past them.
fn hex4(body: &[u8], at: usize) -> Scan<(u16, usize)> {
    let end = at.checked_add(4).ok_or(Syntax)?;
    let digits = body.get(at..end).ok_or(Syntax)?;
    let text = core::str::from_utf8(digits).map_err(|_| Syntax)?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Syntax); // from_str_radix would take a sign
    }
    let value = u16::from_str_radix(text, 16).map_err(|_| Syntax)?;
    Ok((value, end))
}

/// A string's content (between its quotes, already checked) with its escapes decoded.
pub(super) fn decode(text: &str) -> Scan<String> {
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
