//! The scanner's strings: a string's plain bytes passed sixteen at a time (see
//! [`block`](super::block)), its escapes checked, and a key or a captured string decoded where
//! it has escapes.

use std::borrow::Cow;

use super::block::plain_end;
use super::{Scan, Scanner, Syntax};

impl<'de> Scanner<'de> {
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
    pub(super) fn skip_string(&mut self) -> Scan<()> {
        let (raw, _, high) = self.raw_string()?;
        if high {
            core::str::from_utf8(raw).map_err(|_| Syntax)?;
        }
        Ok(())
    }

    /// A key: its bytes, decoded when it has escapes (so that `"a"` and `"\u0061"` are one key).
    pub(super) fn key(&mut self) -> Scan<Cow<'de, [u8]>> {
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
    pub(super) fn text(&mut self) -> Scan<Cow<'de, str>> {
        let (raw, escaped, _) = self.raw_string()?;
        let text = core::str::from_utf8(raw).map_err(|_| Syntax)?;
        Ok(if escaped {
            Cow::Owned(decode(text)?)
        } else {
            Cow::Borrowed(text)
        })
    }

    /// Past the bytes of a string that need no look (see [`plain_end`]). Whether one of them
    /// is outside ASCII.
    ///
    /// ASCII first: a byte outside ASCII also ends the run, so that a string of ASCII (the
    /// usual key or value) costs no bookkeeping; past one, [`skip_plain_high`](Self::skip_plain_high)
    /// reads the rest of the string.
    fn skip_plain(&mut self) -> bool {
        self.at = plain_end::<true>(self.body, self.at);
        self.peek().is_some_and(|b| b >= 0x80) && self.skip_plain_high()
    }

    /// As [`skip_plain`](Self::skip_plain), from a byte outside ASCII: the bytes outside ASCII
    /// do not end the run. Notes that the document is not all ASCII; always true.
    fn skip_plain_high(&mut self) -> bool {
        self.high = true;
        self.at = plain_end::<false>(self.body, self.at);
        true
    }

    /// An escape after its `\`: one of `"\/bfnrt`, or `u` with four hex digits, a high
    /// surrogate followed at once by `\u` and a low one. Out of line: most strings have no
    /// escape, and [`raw_string`](Self::raw_string) then needs no stack frame in wasm.
    #[inline(never)]
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
