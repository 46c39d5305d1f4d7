//! The secret set a receiver verifies with (spec: Secret lifecycle): checked once when it is
//! built, and keyed then, so that each delivery costs only its own hashing.

use core::fmt;
use std::sync::Arc;

use ctutils::{Choice, CtEq};

use crate::error::{Error, ErrorKind, err};
use crate::mac::{HostHash, KeyedMac, Tag};
use crate::options::NOW_IN_MILLISECONDS;
use crate::secret::{Secret, SecretEntry, SecretKind};

/// The most entries a secret set may hold.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Secret, SecretEntry, SecretSet, MAX_SECRETS};
/// let mut entries = vec![SecretEntry::active(Secret::new("whsec_current"))];
/// for i in 1..MAX_SECRETS {
///     entries.push(SecretEntry::retiring(Secret::new(format!("whsec_old_{i}")), 1_700_003_600));
/// }
/// assert_eq!(SecretSet::new(entries.clone())?.len(), MAX_SECRETS);
/// entries.push(SecretEntry::pending(Secret::new("whsec_next")));
/// assert_eq!(SecretSet::new(entries).unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub const MAX_SECRETS: usize = 4;
/// The detail of a set over [`MAX_SECRETS`] (the number pinned by a test).
pub(crate) const TOO_MANY_SECRETS: &str = "a secret set holds at most 4 entries";
/// The first `accept_until_secs` refused: a time in milliseconds, not Unix seconds (10^12
/// seconds is the year 33658, and no timestamp of [`MAX_TIMESTAMP_DIGITS`](crate::MAX_TIMESTAMP_DIGITS)
/// digits reaches it). Accepted, such a bound would keep a retired secret verifying for ever.
pub(crate) const MILLISECONDS_FROM: u64 = 1_000_000_000_000;
/// The detail of a bound of [`MILLISECONDS_FROM`] or more (the number pinned by a test).
pub(crate) const UNTIL_IN_MILLISECONDS: &str = "accept_until_secs has 13 digits or more: a time in milliseconds? \
     give the last Unix second (not millisecond) the retiring secret verifies";

/// The detail of a mismatch where only a retiring secret past its `accept_until_secs`
/// matched, and the delivery was signed after that bound (or is not within the skew): the
/// service no longer signs with that secret, so it is a forgery with an old secret, or a
/// replay.
pub(crate) const OVERLAP_ENDED: &str =
    "the delivery is signed with a retiring secret whose overlap ended (accept_until_secs is past)";
/// The detail of a mismatch where only a retiring secret past its `accept_until_secs` matched,
/// and the delivery was signed inside the overlap (its timestamp at or before the bound, and
/// within the skew of `now_secs`): a delivery in flight when the overlap ended. The service's
/// retry is signed with the active secret, so a receiver answers it 5xx, not a final 400
/// (see [`Error::is_receiver_fault`]).
pub(crate) const SIGNED_IN_OVERLAP: &str = "the delivery was signed inside a retiring secret's overlap and arrived after the \
     overlap ended (accept_until_secs is past): the service's retry is signed with the active secret";
/// The details of a mismatch with a secret the configuration saved with white space or quotes
/// around it (the bytes are used as they are, so no delivery verifies).
pub(crate) const PADDED_SECRET: &str = "a secret starts or ends with whitespace, which is used as part of the key: check for a pasted space or newline";
/// See [`PADDED_SECRET`].
pub(crate) const QUOTED_SECRET: &str = "a secret is wrapped in quotes, which are used as part of the key: remove them where \
     the secret is configured (an env file, a YAML value or a shell script may have kept them)";

/// One keyed entry. The secret's bytes are dropped (and wiped) once keyed.
struct Key {
    mac: KeyedMac,
    kind: SecretKind,
    accept_until_secs: Option<u64>,
    /// The secret started or ended with whitespace (named in the mismatch message).
    padded: bool,
    /// The secret was wrapped in quotes (named in the mismatch message).
    quoted: bool,
}

/// A checked, keyed set of 1 to 4 secrets: exactly one active, any pending ones, and
/// retiring ones each accepted until its `accept_until_secs`.
///
/// # Security
///
/// The HMAC-SHA256 states keyed with each secret are computed here; the secrets' own bytes
/// are wiped as soon as that is done, and the states are wiped when the set is dropped (see
/// "What is wiped" in the crate documentation). A clone shares the same keyed states (it
/// costs a reference count, not a copy of them); they are wiped when the last one is dropped.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Secret, SecretEntry, SecretSet};
/// let one = SecretSet::single(Secret::new("whsec_test_secret"))?;
///
/// let rotation = SecretSet::new(vec![
///     SecretEntry::active(Secret::new("whsec_new")),
///     SecretEntry::retiring(Secret::new("whsec_old"), 1_700_003_600),
/// ])?;
///
/// let two_actives = SecretSet::new(vec![
///     SecretEntry::active(Secret::new("a")),
///     SecretEntry::active(Secret::new("b")),
/// ]);
/// assert_eq!(two_actives.unwrap_err().code(), "invalid_argument");
/// assert_eq!(SecretSet::single(Secret::new("")).unwrap_err().code(), "secret_empty");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone)]
pub struct SecretSet {
    // Behind an `Arc`, so that a clone copies no keyed state. An `Arc<Vec>`, not an
    // `Arc<[Key]>`: building that from the Vec would copy the states and free the Vec's
    // buffer without wiping it.
    keys: Arc<Vec<Key>>,
}

impl SecretSet {
    /// A set of one active secret: the common case.
    ///
    /// # Errors
    ///
    /// `secret_empty` for an empty secret.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretSet};
    /// let set = SecretSet::single(Secret::from(String::from("whsec_test_secret")))?;
    /// assert_eq!(set.len(), 1);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn single(secret: Secret) -> Result<Self, Error> {
        SecretSet::new(vec![SecretEntry::active(secret)])
    }

    /// Checks a rotation set and keys it.
    ///
    /// # Errors
    ///
    /// In this order: `invalid_argument` for more than 4 entries; `no_secrets` for none;
    /// `invalid_argument` unless exactly one is active, or for an `accept_until_secs` of 10^12
    /// or more (milliseconds: the retiring secret would verify for ever); `secret_empty` for an
    /// empty secret.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, SecretSet};
    /// assert_eq!(SecretSet::new(vec![]).unwrap_err().code(), "no_secrets");
    /// let pending_only = SecretSet::new(vec![SecretEntry::pending(Secret::new("p"))]);
    /// assert_eq!(pending_only.unwrap_err().code(), "invalid_argument");
    /// ```
    pub fn new(entries: Vec<SecretEntry>) -> Result<Self, Error> {
        if entries.len() > MAX_SECRETS {
            return Err(err(ErrorKind::InvalidArgument, TOO_MANY_SECRETS));
        }
        if entries.is_empty() {
            return Err(Error::new(ErrorKind::NoSecrets));
        }
        let actives = entries
            .iter()
            .filter(|e| e.kind == SecretKind::Active)
            .count();
        if actives != 1 {
            return Err(err(
                ErrorKind::InvalidArgument,
                "a secret set needs exactly one active secret",
            ));
        }
        if entries.iter().any(|e| {
            e.accept_until_secs
                .is_some_and(|until| until >= MILLISECONDS_FROM)
        }) {
            return Err(err(ErrorKind::InvalidArgument, UNTIL_IN_MILLISECONDS));
        }
        if entries.iter().any(|e| e.secret.is_empty()) {
            return Err(Error::new(ErrorKind::SecretEmpty));
        }
        let keys = entries
            .into_iter()
            .map(|entry| {
                Ok(Key {
                    mac: KeyedMac::new(entry.secret.bytes())?,
                    kind: entry.kind,
                    accept_until_secs: entry.accept_until_secs,
                    padded: entry.secret.has_surrounding_whitespace(),
                    quoted: entry.secret.is_quoted(),
                })
                // `entry.secret` is dropped here: its bytes are wiped.
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(SecretSet {
            keys: Arc::new(keys),
        })
    }

    /// The number of entries (1 to 4).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, SecretSet};
    /// let set = SecretSet::new(vec![
    ///     SecretEntry::active(Secret::new("new")),
    ///     SecretEntry::pending(Secret::new("next")),
    /// ])?;
    /// assert_eq!(set.len(), 2);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    #[allow(clippy::len_without_is_empty)] // a set is never empty
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Which kind of secret signed `timestamp . body` with one of `candidates`: the first of
    /// active, pending, retiring among the entries usable at `now_secs`.
    ///
    /// Every entry's tag is compared with every candidate in constant time, with no early
    /// exit; a retiring entry past its bound is computed too, so that the message can say why.
    /// `signed_in_time`: the delivery's timestamp, when it is within the skew of `now_secs`
    /// (a mismatch where only a retiring secret past its bound matched then tells whether it
    /// was signed inside the overlap).
    pub(crate) fn matching(
        &self,
        timestamp: &[u8],
        body: &[u8],
        candidates: &[Tag],
        now_secs: u64,
        signed_in_time: Option<u64>,
    ) -> Result<SecretKind, Error> {
        let tags = self
            .keys
            .iter()
            .map(|key| key.mac.delivery_tag(timestamp, body));
        self.matching_by(tags, candidates, now_secs, signed_in_time)
    }

    /// As [`matching`](Self::matching), with the delivery's tags, or their inner hashes
    /// (`hashed`), computed by the host: one per entry, in the set's order, a platform's
    /// hardware SHA-256 over the same bytes.
    pub(crate) fn matching_tags(
        &self,
        tags: &[Tag],
        hashed: HostHash,
        candidates: &[Tag],
        now_secs: u64,
        signed_in_time: Option<u64>,
    ) -> Result<SecretKind, Error> {
        if tags.len() != self.keys.len() {
            return Err(err(
                ErrorKind::InvalidArgument,
                "the host gave a tag count other than the set's entry count",
            ));
        }
        match hashed {
            HostHash::Tags => {
                self.matching_by(tags.iter().copied(), candidates, now_secs, signed_in_time)
            }
            HostHash::Inner => {
                let tags = self
                    .keys
                    .iter()
                    .zip(tags)
                    .map(|(key, inner)| key.mac.finish(inner));
                self.matching_by(tags, candidates, now_secs, signed_in_time)
            }
        }
    }

    /// `tags` holds one tag per entry, in order.
    fn matching_by(
        &self,
        tags: impl Iterator<Item = Tag>,
        candidates: &[Tag],
        now_secs: u64,
        signed_in_time: Option<u64>,
    ) -> Result<SecretKind, Error> {
        let mut matched: Option<SecretKind> = None;
        // Only retiring secrets past their bound matched: after it (`Some(false)`), or one of
        // them at a delivery signed inside its overlap (`Some(true)`).
        let mut expired_matched: Option<bool> = None;
        for (key, tag) in self.keys.iter().zip(tags) {
            let hit = candidates
                .iter()
                .fold(Choice::FALSE, |acc, candidate| acc | tag.ct_eq(candidate));
            if hit.to_bool() {
                match key.accept_until_secs {
                    Some(until) if now_secs > until => {
                        let inside = signed_in_time.is_some_and(|signed| signed <= until);
                        expired_matched = Some(expired_matched == Some(true) || inside);
                    }
                    _ => matched = Some(matched.map_or(key.kind, |m| m.min(key.kind))),
                }
            }
        }
        matched.ok_or_else(|| self.mismatch(expired_matched, now_secs))
    }

    fn mismatch(&self, expired_matched: Option<bool>, now_secs: u64) -> Error {
        // A retiring secret matched, past its bound only because the clock reads milliseconds:
        // the receiver's clock, as for a delivery the active secret signed (never a final
        // refusal of an authentic delivery).
        if expired_matched.is_some() && now_secs >= MILLISECONDS_FROM {
            return err(ErrorKind::TimestampTooOld, NOW_IN_MILLISECONDS);
        }
        match expired_matched {
            Some(true) => return err(ErrorKind::SignatureMismatch, SIGNED_IN_OVERLAP),
            Some(false) => return err(ErrorKind::SignatureMismatch, OVERLAP_ENDED),
            None => {}
        }
        if self.keys.iter().any(|k| k.padded) {
            return err(ErrorKind::SignatureMismatch, PADDED_SECRET);
        }
        if self.keys.iter().any(|k| k.quoted) {
            return err(ErrorKind::SignatureMismatch, QUOTED_SECRET);
        }
        Error::new(ErrorKind::SignatureMismatch)
    }
}

impl fmt::Debug for SecretSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for key in self.keys.iter() {
            match key.accept_until_secs {
                Some(until) => list.entry(&format_args!("{}(until {until})", key.kind)),
                None => list.entry(&format_args!("{}", key.kind)),
            };
        }
        list.finish()
    }
}

#[cfg(test)]
mod tests;
