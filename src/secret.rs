//! Signing secrets and their roles in a rotation (spec: Webhook signature, Secret lifecycle).
//!
//! A secret is used as the UTF-8 bytes of the string exactly as saved: no trimming, no
//! base64 decoding, no prefix stripping. Entries are gathered into a
//! [`SecretSet`](crate::SecretSet), which is checked when it is built.

use core::fmt;
use core::str::FromStr;

use zeroize::Zeroizing;

use crate::error::{Error, ErrorKind, err};

mod entry;

pub use entry::SecretEntry;

/// A signing secret. Its bytes are wiped when it is dropped, and never printed.
///
/// Build it from a `String` or `Vec<u8>` you own to move the bytes in without a copy;
/// [`Secret::new`] copies from a borrowed value (whose own memory this crate cannot wipe).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::Secret;
/// let secret = Secret::from(String::from("whsec_test_secret")); // moved, not copied
/// assert_eq!(format!("{secret:?}"), "Secret([REDACTED])");
/// assert_eq!(secret.len(), 17);
/// ```
#[derive(Clone)]
pub struct Secret(Zeroizing<Vec<u8>>);

impl Secret {
    /// A secret copied from its text (or bytes) exactly as saved.
    ///
    /// For a value you own, such as an environment variable, use [`Secret::from`] instead: it
    /// moves the bytes in, leaving no copy this crate cannot wipe. An empty secret is refused
    /// when a [`SecretSet`](crate::SecretSet) is built (`secret_empty`).
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretSet};
    ///
    /// // A borrowed value (a literal in a test, a field of a config kept elsewhere): copied.
    /// let secret = Secret::new("whsec_test_secret");
    /// assert_eq!(secret.len(), 17);
    ///
    /// // An owned String, as `std::env::var` returns: moved in with `Secret::from`, and an
    /// // unset variable is an error rather than an empty secret. Reported by the variable's
    /// // name: `VarError`'s Display of a value that is not Unicode prints the value.
    /// fn from_env() -> Result<SecretSet, String> {
    ///     let value = std::env::var("CRYPTOPAY_WEBHOOK_SECRET").map_err(|e| match e {
    ///         std::env::VarError::NotPresent => "CRYPTOPAY_WEBHOOK_SECRET is not set".to_owned(),
    ///         std::env::VarError::NotUnicode(_) => "CRYPTOPAY_WEBHOOK_SECRET is not valid UTF-8".to_owned(),
    ///     })?;
    ///     // `secret_empty` if set to "".
    ///     SecretSet::single(Secret::from(value)).map_err(|e| format!("CRYPTOPAY_WEBHOOK_SECRET: {e}"))
    /// }
    /// if let Ok(set) = from_env() {
    ///     assert_eq!(set.len(), 1);
    /// }
    /// ```
    #[must_use]
    pub fn new(secret: impl AsRef<[u8]>) -> Self {
        Secret(Zeroizing::new(secret.as_ref().to_vec()))
    }

    /// The length of the secret in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(cryptopay_verify::Secret::new("é").len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the secret is empty (an unset environment variable is a common cause).
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(cryptopay_verify::Secret::new("").is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether the secret starts or ends with ASCII white space: a pasted space or newline, a
    /// secret file's last line. The bytes are used as saved, so such a secret verifies no
    /// delivery the service signed; check it where the secret is loaded, to stop the start.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::Secret;
    /// assert!(Secret::new("whsec_abc\n").has_surrounding_whitespace());
    /// assert!(!Secret::new("whsec_abc").has_surrounding_whitespace());
    /// ```
    #[must_use]
    pub fn has_surrounding_whitespace(&self) -> bool {
        let ws = |b: &u8| b.is_ascii_whitespace();
        self.0.first().is_some_and(ws) || self.0.last().is_some_and(ws)
    }

    /// Whether the secret, white space aside, is wrapped in a pair of the same quotes (`"..."`
    /// or `'...'`): an env file, a YAML value or a shell script that kept its quotes. As with
    /// [`has_surrounding_whitespace`](Self::has_surrounding_whitespace), such a secret
    /// verifies nothing the service signed; check it where the secret is loaded.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::Secret;
    /// assert!(Secret::new("\"whsec_abc\"").is_quoted());
    /// assert!(!Secret::new("whsec_abc").is_quoted());
    /// ```
    #[must_use]
    pub fn is_quoted(&self) -> bool {
        let inner = self.0.trim_ascii();
        matches!((inner.first(), inner.last()), (Some(a), Some(b)) if inner.len() >= 2 && a == b && (*a == b'"' || *a == b'\''))
    }
}

impl From<String> for Secret {
    /// Moves the string's bytes into the secret (no copy is left behind).
    fn from(secret: String) -> Self {
        Secret(Zeroizing::new(secret.into_bytes()))
    }
}

impl From<Vec<u8>> for Secret {
    /// Moves the bytes into the secret (no copy is left behind).
    fn from(secret: Vec<u8>) -> Self {
        Secret(Zeroizing::new(secret))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([REDACTED])")
    }
}

/// The role of a secret in a rotation.
///
/// Ordered as the contract reports a signature that several entries match: the first of
/// active, pending, retiring.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretEntry, SecretKind, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
/// let set = SecretSet::new(vec![
///     SecretEntry::active(Secret::new("whsec_new")),
///     SecretEntry::retiring(Secret::new("whsec_old"), 1_700_003_600),
/// ])?;
/// let verifier = Verifier::new(set, VerifyOptions::new(300));
/// let signature = sign_webhook(&Secret::new("whsec_old"), b"1700000000", b"{}", SignatureEncoding::Hex)?;
/// let delivery = Delivery { body: b"{}", timestamp: b"1700000000", signature: signature.as_bytes() };
/// let matched = verifier.verify_signature(&delivery, 1_700_000_000)?.matched_secret;
/// // Still signed with the old secret: the service has not switched yet.
/// assert_eq!(matched, SecretKind::Retiring);
/// assert!(SecretKind::Active < SecretKind::Pending && SecretKind::Pending < SecretKind::Retiring);
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
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
    /// Every kind, in the order a match is reported: `active`, `pending`, `retiring`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::SecretKind;
    /// let names: Vec<&str> = SecretKind::ALL.iter().map(|k| k.as_str()).collect();
    /// assert_eq!(names, ["active", "pending", "retiring"]);
    /// ```
    pub const ALL: &'static [SecretKind] = &[
        SecretKind::Active,
        SecretKind::Pending,
        SecretKind::Retiring,
    ];

    /// The kind's name: `active`, `pending` or `retiring`.
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
    /// assert_eq!(SecretKind::parse("pending")?, SecretKind::Pending);
    /// assert_eq!("retiring".parse::<SecretKind>()?, SecretKind::Retiring);
    /// assert_eq!(SecretKind::parse("old").unwrap_err().code(), "invalid_argument");
    /// # Ok::<(), cryptopay_verify::Error>(())
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

impl FromStr for SecretKind {
    type Err = Error;
    fn from_str(name: &str) -> Result<Self, Error> {
        SecretKind::parse(name)
    }
}

impl fmt::Display for SecretKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests;
