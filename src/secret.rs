//! Signing secrets and the rotation set (spec: Webhook signature, Secret lifecycle).
//!
//! A secret is used as the UTF-8 bytes of the string exactly as saved: no trimming, no
//! base64 decoding, no prefix stripping. A set holds up to [`MAX_SECRETS`] entries: exactly
//! one [`SecretKind::Active`], and any `Pending` (the new secret before activation) and
//! `Retiring` ones (the old secret during the bounded overlap after activation, accepted
//! until `accept_until_secs`).

use core::fmt;

use zeroize::Zeroizing;

use crate::error::{Error, ErrorKind, err};

/// The most entries a secret set may hold.
pub const MAX_SECRETS: usize = 4;

/// A signing secret. Its bytes are wiped on drop and never printed.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::Secret;
/// let secret = Secret::new("whsec_test_secret");
/// assert_eq!(format!("{secret:?}"), "Secret([REDACTED])");
/// ```
#[derive(Clone)]
pub struct Secret(Zeroizing<Vec<u8>>);

impl Secret {
    /// A secret from its text (or bytes) exactly as saved.
    ///
    /// Emptiness is checked where the secret is used (`secret_empty`), so that every
    /// failure is reported in the contract's order of checks.
    #[must_use]
    pub fn new(secret: impl AsRef<[u8]>) -> Self {
        Secret(Zeroizing::new(secret.as_ref().to_vec()))
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether the secret starts or ends with whitespace (a frequent copy-paste error).
    pub(crate) fn has_surrounding_whitespace(&self) -> bool {
        let ws = |b: &u8| b.is_ascii_whitespace();
        self.0.first().is_some_and(ws) || self.0.last().is_some_and(ws)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([REDACTED])")
    }
}

/// The role of a secret in a rotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum SecretKind {
    /// The secret the service signs with now.
    Active,
    /// A rotated secret, saved but not yet activated in the dashboard.
    Pending,
    /// The previous secret, accepted until `accept_until_secs` after activation.
    Retiring,
}

impl SecretKind {
    /// The kind's name as JavaScript spells it: `active`, `pending` or `retiring`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::SecretKind;
    /// assert_eq!(SecretKind::Retiring.as_str(), "retiring");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            SecretKind::Active => "active",
            SecretKind::Pending => "pending",
            SecretKind::Retiring => "retiring",
        }
    }

    /// The kind named `name`.
    ///
    /// # Errors
    ///
    /// `invalid_argument` for any other name.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::SecretKind;
    /// assert_eq!(SecretKind::parse("pending").unwrap(), SecretKind::Pending);
    /// assert_eq!(SecretKind::parse("old").unwrap_err().code(), "invalid_argument");
    /// ```
    pub fn parse(name: &str) -> Result<Self, Error> {
        match name {
            "active" => Ok(SecretKind::Active),
            "pending" => Ok(SecretKind::Pending),
            "retiring" => Ok(SecretKind::Retiring),
            _ => Err(err(
                ErrorKind::InvalidArgument,
                "a secret's kind must be \"active\", \"pending\" or \"retiring\"",
            )),
        }
    }
}

/// One entry of a secret set: a secret, its kind and, for `Retiring`, the end of its overlap.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Secret, SecretEntry};
/// let entries = vec![
///     SecretEntry::active(Secret::new("whsec_new")),
///     SecretEntry::retiring(Secret::new("whsec_old"), 1_700_086_400),
/// ];
/// assert_eq!(entries.len(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct SecretEntry {
    secret: Secret,
    kind: SecretKind,
    accept_until_secs: Option<u64>,
}

impl SecretEntry {
    /// An entry of any kind, as JavaScript describes it. The combination is checked when
    /// the set is used (`acceptUntilSecs` is required on `Retiring` and refused on others).
    #[must_use]
    pub fn new(secret: Secret, kind: SecretKind, accept_until_secs: Option<u64>) -> Self {
        SecretEntry {
            secret,
            kind,
            accept_until_secs,
        }
    }

    /// The active secret.
    #[must_use]
    pub fn active(secret: Secret) -> Self {
        SecretEntry::new(secret, SecretKind::Active, None)
    }

    /// A pending secret (rotated, not yet activated).
    #[must_use]
    pub fn pending(secret: Secret) -> Self {
        SecretEntry::new(secret, SecretKind::Pending, None)
    }

    /// The old secret, accepted while `now_secs <= accept_until_secs`.
    #[must_use]
    pub fn retiring(secret: Secret, accept_until_secs: u64) -> Self {
        SecretEntry::new(secret, SecretKind::Retiring, Some(accept_until_secs))
    }

    /// The entry's kind.
    #[must_use]
    pub fn kind(&self) -> SecretKind {
        self.kind
    }

    pub(crate) fn secret(&self) -> &Secret {
        &self.secret
    }

    /// Whether the entry may verify at `now_secs` (a retiring entry only until its bound).
    pub(crate) fn usable_at(&self, now_secs: u64) -> bool {
        match (self.kind, self.accept_until_secs) {
            (SecretKind::Retiring, Some(until)) => now_secs <= until,
            _ => true,
        }
    }
}

/// Checks the shape of a set: size, exactly one active, `accept_until_secs` placement.
///
/// An empty set passes here: it is reported as `no_secrets` later, in the order of checks.
pub(crate) fn check_shape(entries: &[SecretEntry]) -> Result<(), Error> {
    if entries.len() > MAX_SECRETS {
        return Err(err(
            ErrorKind::InvalidArgument,
            "a secret set holds at most 4 entries",
        ));
    }
    for entry in entries {
        match (entry.kind, entry.accept_until_secs) {
            (SecretKind::Retiring, None) => {
                return Err(err(
                    ErrorKind::InvalidArgument,
                    "a retiring secret needs acceptUntilSecs, the end of the overlap",
                ));
            }
            (SecretKind::Active | SecretKind::Pending, Some(_)) => {
                return Err(err(
                    ErrorKind::InvalidArgument,
                    "acceptUntilSecs is only allowed on a retiring secret",
                ));
            }
            _ => {}
        }
    }
    let actives = entries
        .iter()
        .filter(|e| e.kind == SecretKind::Active)
        .count();
    if !entries.is_empty() && actives != 1 {
        return Err(err(
            ErrorKind::InvalidArgument,
            "a secret set needs exactly one active secret",
        ));
    }
    Ok(())
}

/// Checks the material: at least one entry, no empty secret.
pub(crate) fn check_material(entries: &[SecretEntry]) -> Result<(), Error> {
    if entries.is_empty() {
        return Err(Error::new(ErrorKind::NoSecrets));
    }
    if entries.iter().any(|e| e.secret.bytes().is_empty()) {
        return Err(Error::new(ErrorKind::SecretEmpty));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(entries: &[SecretEntry]) -> Option<&'static str> {
        check_shape(entries)
            .and_then(|()| check_material(entries))
            .err()
            .map(Error::code)
    }

    #[test]
    fn shapes() {
        let a = || SecretEntry::active(Secret::new("a"));
        let p = || SecretEntry::pending(Secret::new("p"));
        let r = || SecretEntry::retiring(Secret::new("r"), 10);
        assert_eq!(codes(&[a()]), None);
        assert_eq!(codes(&[a(), p(), r(), r()]), None);
        assert_eq!(codes(&[a(), p(), r(), r(), p()]), Some("invalid_argument"));
        assert_eq!(codes(&[p()]), Some("invalid_argument"));
        assert_eq!(codes(&[a(), a()]), Some("invalid_argument"));
        assert_eq!(codes(&[]), Some("no_secrets"));
        let no_bound = SecretEntry::new(Secret::new("r"), SecretKind::Retiring, None);
        assert_eq!(codes(&[a(), no_bound]), Some("invalid_argument"));
        let bounded_active = SecretEntry::new(Secret::new("a"), SecretKind::Active, Some(1));
        assert_eq!(codes(&[bounded_active]), Some("invalid_argument"));
        assert_eq!(
            codes(&[SecretEntry::active(Secret::new(""))]),
            Some("secret_empty")
        );
    }

    #[test]
    fn retiring_bound_is_inclusive() {
        let r = SecretEntry::retiring(Secret::new("r"), 10);
        assert!(r.usable_at(10));
        assert!(!r.usable_at(11));
        assert!(SecretEntry::active(Secret::new("a")).usable_at(u64::MAX));
    }

    #[test]
    fn whitespace_detection() {
        assert!(Secret::new("abc\n").has_surrounding_whitespace());
        assert!(Secret::new(" abc").has_surrounding_whitespace());
        assert!(!Secret::new("a b").has_surrounding_whitespace());
        assert!(!Secret::new("").has_surrounding_whitespace());
    }

    #[test]
    fn debug_is_redacted() {
        let entry = SecretEntry::active(Secret::new("canary-5f1e"));
        let text = format!("{entry:?}");
        assert!(!text.contains("canary"));
        assert!(text.contains("Secret([REDACTED])"), "{text}");
        assert_eq!(format!("{:?}", Secret::new("x")), "Secret([REDACTED])");
    }
}
