//! Values nothing captures: most of a document (an event's `data` beyond the two fields the
//! checks read). A string is passed where it is met; anything else by one loop that keeps
//! its position in a local and the containers it opened in the scanner's slots, instead of a
//! call per value with the position in the scanner (measured in V8 with `bench/scan.mjs`, the
//! scan of the benchmark's events: 0.86-0.90 of the time at 1 KiB, 0.73-0.78 at 16 KiB and
//! 1 MiB, 0.98-1.03 at 256 B). The same checks as the captured path: the grammar, the depth,
//! repeated keys, numbers a double cannot hold, the UTF-8 of strings outside ASCII.

use super::strings::{check_plain, string_end};
use super::{MAX_DEPTH, OPEN_SLOTS, Scan, Scanner, Syntax, literal_end, ws_end};

/// An open array among the containers opened (an open object's entry is where its keys start
/// in the scanner's `keys`, always less).
const ARRAY: usize = usize::MAX;

// Each position below is at most one past a byte of the body, so adding 1 cannot wrap; the
// containers opened are fewer than `MAX_DEPTH`, so counting them cannot either.
impl Scanner<'_> {
    /// Past the value at `at` (whitespace before it passed), at `depth` (the number of
    /// containers around it), that nothing captures: checked, its repeated keys and inexact
    /// numbers noted, nothing kept.
    #[inline(always)]
    pub(super) fn past(&mut self, at: usize, depth: usize) -> Scan<usize> {
        if self.body.get(at) == Some(&b'"') {
            self.past_string(at)
        } else {
            self.past_value(at, depth)
        }
    }

    /// Past a string whose quote is at `at`, checked whole (ASCII needs no UTF-8 check).
    #[inline(always)]
    fn past_string(&mut self, at: usize) -> Scan<usize> {
        let end = string_end(self.body, at)?;
        if end.high {
            self.high = true;
            let raw = self.body.get(at.wrapping_add(1)..end.quote);
            check_plain(raw.ok_or(Syntax)?, true)?;
        }
        Ok(end.quote.wrapping_add(1))
    }

    /// Past the value at `at` (at `depth`) and everything in it. Out of line: the strings
    /// [`past`](Self::past) meets most need none of it.
    #[inline(never)]
    fn past_value(&mut self, mut at: usize, depth: usize) -> Scan<usize> {
        let body = self.body;
        let mut opened = 0_usize;
        'value: loop {
            at = ws_end(body, at);
            match body.get(at).copied().ok_or(Syntax)? {
                byte @ (b'{' | b'[') => {
                    if depth.wrapping_add(opened) >= MAX_DEPTH {
                        return Err(Syntax);
                    }
                    let close = if byte == b'{' { b'}' } else { b']' };
                    at = ws_end(body, at.wrapping_add(1));
                    if body.get(at) == Some(&close) {
                        at = at.wrapping_add(1);
                    } else if byte == b'{' {
                        self.push_open(opened, self.keys.len());
                        opened = opened.wrapping_add(1);
                        at = self.key_at(at)?;
                        continue 'value;
                    } else {
                        self.push_open(opened, ARRAY);
                        opened = opened.wrapping_add(1);
                        continue 'value;
                    }
                }
                b'"' => at = self.past_string(at)?,
                b'-' | b'0'..=b'9' => at = self.past_number(body, at)?,
                b't' => at = literal_end(body, at, b"true")?,
                b'f' => at = literal_end(body, at, b"false")?,
                b'n' => at = literal_end(body, at, b"null")?,
                _ => return Err(Syntax),
            }
            // After a value: close the containers that end here, up to the next value.
            while let Some(top) = opened.checked_sub(1) {
                let own = self.open_at(top);
                at = ws_end(body, at);
                match body.get(at).copied() {
                    Some(b',') => {
                        at = at.wrapping_add(1);
                        if own != ARRAY {
                            at = self.key_at(ws_end(body, at))?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if own != ARRAY => {
                        self.pop_open(top);
                        opened = top;
                        // The depth inside the object closed.
                        self.close_keys(own, depth.wrapping_add(opened).wrapping_add(1));
                    }
                    Some(b']') if own == ARRAY => {
                        self.pop_open(top);
                        opened = top;
                    }
                    _ => return Err(Syntax),
                }
                at = at.wrapping_add(1);
            }
            return Ok(at);
        }
    }

    /// Notes the container opened `index`-th (from 0) in the value being skipped: in the
    /// scanner's slots, past them in a `Vec` (allocated only for a document nested deeper).
    #[inline(always)]
    fn push_open(&mut self, index: usize, own: usize) {
        match self.open.get_mut(index) {
            Some(slot) => *slot = own,
            None => self.deeper.push(own),
        }
    }

    /// The entry of the container opened `index`-th, the innermost open.
    #[inline(always)]
    fn open_at(&self, index: usize) -> usize {
        match self.open.get(index) {
            Some(&own) => own,
            None => self.deeper.last().copied().unwrap_or(ARRAY),
        }
    }

    /// Forgets the container opened `index`-th, the innermost open.
    #[inline(always)]
    fn pop_open(&mut self, index: usize) {
        if index >= OPEN_SLOTS {
            self.deeper.pop();
        }
    }

    /// A key at `at` (whitespace before it passed), kept for its object's check (see
    /// [`last_key`](Self::last_key)), and the colon after it: the position past the colon.
    #[inline(always)]
    pub(super) fn key_at(&mut self, at: usize) -> Scan<usize> {
        let body = self.body;
        if body.get(at) != Some(&b'"') {
            return Err(Syntax);
        }
        let end = string_end(body, at)?;
        let raw = body.get(at.wrapping_add(1)..end.quote).ok_or(Syntax)?;
        self.high |= end.high;
        if end.escaped {
            self.keep_escaped_key(raw)?;
        } else {
            check_plain(raw, end.high)?;
            self.keys.push(raw);
        }
        let at = ws_end(body, end.quote.wrapping_add(1));
        if body.get(at) == Some(&b':') {
            Ok(at.wrapping_add(1))
        } else {
            Err(Syntax)
        }
    }
}
