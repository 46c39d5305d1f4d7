//! [`SecretEntry`]: one secret of a set, with its kind and, while retiring, its overlap's end.

use super::{Secret, SecretKind};
use crate::error::{Error, ErrorKind, err};

/// One entry of a secret set: a secret, its kind and, for `Retiring`, the end of its overlap.
///
/// The constructors make the combinations the contract refuses unrepresentable
/// (`accept_until_secs` exists on retiring entries only).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Secret, SecretEntry, SecretKind};
/// let old = SecretEntry::retiring(Secret::new("whsec_old"), 1_700_086_400);
/// assert_eq!(old.kind(), SecretKind::Retiring);
/// assert_eq!(old.accept_until_secs(), Some(1_700_086_400));
/// ```
#[derive(Clone, Debug)]
pub struct SecretEntry {
    pub(crate) secret: Secret,
    pub(crate) kind: SecretKind,
    pub(crate) accept_until_secs: Option<u64>,
}

impl SecretEntry {
    /// The active secret.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, SecretSet};
    /// let set = SecretSet::new(vec![SecretEntry::active(Secret::new("whsec_current"))])?;
    /// assert_eq!(format!("{set:?}"), "[active]");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn active(secret: Secret) -> Self {
        SecretEntry {
            secret,
            kind: SecretKind::Active,
            accept_until_secs: None,
        }
    }

    /// A pending secret (rotated, not yet activated).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretEntry, SecretKind, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
    /// // Saved before it is activated in the dashboard, so that no delivery fails at the switch.
    /// let set = SecretSet::new(vec![
    ///     SecretEntry::active(Secret::new("whsec_current")),
    ///     SecretEntry::pending(Secret::new("whsec_next")),
    /// ])?;
    /// let verifier = Verifier::new(set, VerifyOptions::new(300));
    /// let signature = sign_webhook(&Secret::new("whsec_next"), b"1700000000", b"{}", SignatureEncoding::Hex)?;
    /// let delivery = Delivery { body: b"{}", timestamp: b"1700000000", signature: signature.as_bytes() };
    /// assert_eq!(verifier.verify_signature(&delivery, 1_700_000_000)?.matched_secret, SecretKind::Pending);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn pending(secret: Secret) -> Self {
        SecretEntry {
            secret,
            kind: SecretKind::Pending,
            accept_until_secs: None,
        }
    }

    /// The old secret, accepted while `now_secs <= accept_until_secs`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretEntry, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
    /// let until = 1_700_003_600; // one hour after the new secret was activated
    /// let set = SecretSet::new(vec![
    ///     SecretEntry::active(Secret::new("whsec_new")),
    ///     SecretEntry::retiring(Secret::new("whsec_old"), until),
    /// ])?;
    /// let verifier = Verifier::new(set, VerifyOptions::new(300));
    /// let signature = sign_webhook(&Secret::new("whsec_old"), b"1700003600", b"{}", SignatureEncoding::Hex)?;
    /// let delivery = Delivery { body: b"{}", timestamp: b"1700003600", signature: signature.as_bytes() };
    /// assert!(verifier.verify_signature(&delivery, until).is_ok());
    /// let late = verifier.verify_signature(&delivery, until + 1).unwrap_err();
    /// assert_eq!(late.code(), "signature_mismatch");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn retiring(secret: Secret, accept_until_secs: u64) -> Self {
        SecretEntry {
            secret,
            kind: SecretKind::Retiring,
            accept_until_secs: Some(accept_until_secs),
        }
    }

    /// An entry from a kind and an optional bound read from configuration.
    ///
    /// # Errors
    ///
    /// `invalid_argument` when `accept_until_secs` is missing on a retiring entry or given
    /// on another.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, SecretKind};
    /// assert!(SecretEntry::new(Secret::new("s"), SecretKind::Retiring, Some(10)).is_ok());
    /// let unbounded = SecretEntry::new(Secret::new("s"), SecretKind::Retiring, None);
    /// assert_eq!(unbounded.unwrap_err().code(), "invalid_argument");
    /// ```
    pub fn new(
        secret: Secret,
        kind: SecretKind,
        accept_until_secs: Option<u64>,
    ) -> Result<Self, Error> {
        match (kind, accept_until_secs) {
            (SecretKind::Retiring, Some(until)) => Ok(SecretEntry::retiring(secret, until)),
            (SecretKind::Retiring, None) => Err(err(
                ErrorKind::InvalidArgument,
                "a retiring secret needs accept_until_secs, the end of the overlap",
            )),
            (SecretKind::Active | SecretKind::Pending, Some(_)) => Err(err(
                ErrorKind::InvalidArgument,
                "accept_until_secs is only allowed on a retiring secret",
            )),
            (kind, None) => Ok(SecretEntry {
                secret,
                kind,
                accept_until_secs: None,
            }),
        }
    }

    /// The entry's kind.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, SecretKind};
    /// let entries = [SecretEntry::active(Secret::new("a")), SecretEntry::pending(Secret::new("p"))];
    /// let kinds: Vec<SecretKind> = entries.iter().map(SecretEntry::kind).collect();
    /// assert_eq!(kinds, [SecretKind::Active, SecretKind::Pending]);
    /// ```
    #[must_use]
    pub fn kind(&self) -> SecretKind {
        self.kind
    }

    /// The end of a retiring entry's overlap, inclusive (`None` for the other kinds).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry};
    /// // Leave out of the next configuration the entries whose overlap has ended.
    /// let now_secs = 1_700_003_601;
    /// let entries = vec![
    ///     SecretEntry::active(Secret::new("whsec_new")),
    ///     SecretEntry::retiring(Secret::new("whsec_old"), 1_700_003_600),
    /// ];
    /// let kept: Vec<SecretEntry> = entries
    ///     .into_iter()
    ///     .filter(|e| e.accept_until_secs().is_none_or(|until| now_secs <= until))
    ///     .collect();
    /// assert_eq!(kept.len(), 1);
    /// ```
    #[must_use]
    pub fn accept_until_secs(&self) -> Option<u64> {
        self.accept_until_secs
    }
}
