//! Repeated keys: the keys of the objects being read, kept as they are between their quotes
//! (those with escapes also decoded, aside), compared when each object closes.

use super::strings::decode_key;
use super::{PAIRWISE_KEYS, Scan, Scanner};

impl<'de> Scanner<'de> {
    /// Keeps a key with escapes (`raw`: between its quotes) for its object's check, decoded
    /// aside. Out of line: most keys have none.
    #[inline(never)]
    pub(super) fn keep_escaped_key(&mut self, raw: &'de [u8]) -> Scan<()> {
        let decoded = decode_key(raw)?;
        self.escaped.push((self.keys.len(), decoded));
        self.keys.push(raw);
        Ok(())
    }

    /// The key kept last, decoded if it has escapes.
    #[inline(always)]
    pub(super) fn last_key(&self) -> Option<&[u8]> {
        let last = self.keys.len().checked_sub(1)?;
        match self.escaped.last() {
            Some((at, decoded)) if *at == last => Some(decoded),
            _ => self.keys.get(last).copied(),
        }
    }

    /// Notes whether the keys of an object from `own` repeat one (`depth`: the depth inside
    /// the object, 1 inside the top-level one), and drops them.
    #[inline(always)]
    pub(super) fn close_keys(&mut self, own: usize, depth: usize) {
        if self.escaped.last().is_some_and(|&(at, _)| at >= own) {
            self.close_escaped_keys(own, depth);
        } else {
            if self.keys.get_mut(own..).is_some_and(repeats) {
                self.note_repeat(depth);
            }
            self.keys.truncate(own);
        }
    }

    /// [`close_keys`](Self::close_keys) for an object with a key with escapes: its keys
    /// compared decoded. Out of line: most objects have no such key.
    ///
    /// Only the object's own entries of `escaped` are read and dropped (they are its last:
    /// `escaped` is in the order of `keys`), never those of the objects around it, so that a
    /// document of many objects with escapes in nested ones costs in proportion to its keys.
    #[inline(never)]
    fn close_escaped_keys(&mut self, own: usize, depth: usize) {
        let from = self.escaped.partition_point(|&(at, _)| at < own);
        let mut keys: Vec<&[u8]> = self.keys.get(own..).unwrap_or_default().to_vec();
        for (at, decoded) in self.escaped.get(from..).unwrap_or_default() {
            if let Some(key) = at.checked_sub(own).and_then(|i| keys.get_mut(i)) {
                *key = decoded;
            }
        }
        if repeats(&mut keys) {
            self.note_repeat(depth);
        }
        self.keys.truncate(own);
        self.escaped.truncate(from);
    }

    /// Notes a key repeated in an object (`depth`: the depth inside it).
    fn note_repeat(&mut self, depth: usize) {
        if depth == 1 {
            self.duplicate = true;
        } else {
            self.nested_duplicate = true;
        }
    }
}

/// Whether some key appears twice (reorders `keys`).
fn repeats(keys: &mut [&[u8]]) -> bool {
    if keys.len() <= PAIRWISE_KEYS {
        let mut rest = &*keys;
        while let Some((first, tail)) = rest.split_first() {
            if tail.contains(first) {
                return true;
            }
            rest = tail;
        }
        false
    } else {
        sorted_repeats(keys)
    }
}

/// [`repeats`] for more than [`PAIRWISE_KEYS`] keys: sorted, then neighbours compared. Out of
/// line: most objects have a few keys, and `repeats` then needs no stack frame in wasm. The
/// stable sort: measured in V8 on objects of 17 to 2000 keys, as fast here as the unstable
/// one (0.93-1.08 of the time), whose sorting networks for slices made the `.wasm` 4 KB larger.
#[inline(never)]
fn sorted_repeats(keys: &mut [&[u8]]) -> bool {
    keys.sort();
    keys.windows(2).any(|pair| pair.first() == pair.get(1))
}
