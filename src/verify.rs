//! Verifying a delivery (spec: Webhook signature, receiver rules 1 and 6): limits first,
//! then the header grammar, then the HMAC comparison in constant time, then the skew, and
//! only then (for [`Verifier::verify_webhook`]) the event envelope.

use subtle::{Choice, ConstantTimeEq};

use crate::error::{Error, ErrorKind, err};
use crate::event::{Event, parse_event};
use crate::secret::{SecretEntry, SecretKind, check_material, check_shape};
use crate::signature::{Candidates, KeyedMac, parse_signature_header, parse_timestamp};

/// The default body limit: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The largest body limit that may be configured: 64 MiB.
pub const MAX_MAX_BODY_BYTES: usize = 64 * 1024 * 1024;

/// One delivery as received: the raw body bytes and the two header values, untouched.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::Delivery;
/// let delivery = Delivery {
///     body: br#"{"event_id":"evt_1"}"#,
///     timestamp: b"1700000000",
///     signature: b"v1=0123",
/// };
/// assert_eq!(delivery.timestamp, b"1700000000");
/// ```
#[derive(Clone, Copy)]
pub struct Delivery<'a> {
    /// The raw request body, exactly as received (never parsed and re-serialized).
    pub body: &'a [u8],
    /// The timestamp header value, exactly as received.
    pub timestamp: &'a [u8],
    /// The signature header value, exactly as received.
    pub signature: &'a [u8],
}

impl core::fmt::Debug for Delivery<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Delivery")
            .field("body_len", &self.body.len())
            .field("timestamp", &String::from_utf8_lossy(self.timestamp))
            .field("signature", &"[REDACTED]")
            .finish()
    }
}

/// The limits a verification applies. `max_skew_secs` has no default: the receiver chooses
/// it (300 seconds is the usual choice).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::VerifyOptions;
/// let options = VerifyOptions::new(300).with_max_body_bytes(1 << 20)?;
/// assert_eq!(options.max_body_bytes(), 1 << 20);
/// assert_eq!(VerifyOptions::new(300).with_max_body_bytes(0).unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifyOptions {
    max_skew_secs: u64,
    max_body_bytes: usize,
}

impl VerifyOptions {
    /// Options with this skew and the default body limit (4 MiB).
    #[must_use]
    pub const fn new(max_skew_secs: u64) -> Self {
        VerifyOptions {
            max_skew_secs,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// The same options with another body limit, from 1 byte to 64 MiB.
    ///
    /// # Errors
    ///
    /// `invalid_argument` for 0 or more than 64 MiB.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::VerifyOptions;
    /// assert!(VerifyOptions::new(300).with_max_body_bytes(64 * 1024 * 1024).is_ok());
    /// let over = VerifyOptions::new(300).with_max_body_bytes(64 * 1024 * 1024 + 1);
    /// assert_eq!(over.unwrap_err().code(), "invalid_argument");
    /// ```
    pub const fn with_max_body_bytes(self, max_body_bytes: usize) -> Result<Self, Error> {
        if max_body_bytes == 0 || max_body_bytes > MAX_MAX_BODY_BYTES {
            return Err(err(
                ErrorKind::InvalidArgument,
                "maxBodyBytes must be an integer from 1 to 67108864 (64 MiB)",
            ));
        }
        Ok(VerifyOptions {
            max_skew_secs: self.max_skew_secs,
            max_body_bytes,
        })
    }

    /// The accepted distance between the timestamp and `now_secs`, in seconds.
    #[must_use]
    pub const fn max_skew_secs(&self) -> u64 {
        self.max_skew_secs
    }

    /// The largest body accepted, in bytes.
    #[must_use]
    pub const fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }
}

/// An authentic, fresh delivery: which kind of secret matched, and its timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verified {
    /// The kind of the secret that matched (the first of active, pending, retiring).
    pub matched_secret: SecretKind,
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: u64,
}

/// An authentic, fresh delivery and its parsed event.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct VerifiedEvent {
    /// The parsed `payment.updated` event.
    pub event: Event,
    /// The kind of the secret that matched.
    pub matched_secret: SecretKind,
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: u64,
}

#[derive(Clone, Debug)]
struct Key {
    mac: KeyedMac,
    entry: SecretEntry,
}

/// A verifier keyed once with a secret set and reused for every delivery.
///
/// The HMAC inner and outer states are computed when the verifier is built, so each
/// delivery costs only its own hashing.
///
/// # Security
///
/// Every usable secret's tag is compared with every signature candidate through
/// `subtle::ConstantTimeEq` on fixed 32-byte arrays, with no early exit. A candidate of the
/// wrong length is rejected while parsing and never compared as a prefix.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{sign, Delivery, Secret, SecretEntry, SignatureEncoding, Verifier, VerifyOptions};
/// let secret = Secret::new("whsec_test_secret");
/// let body = br#"{"schema_version":"1","event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":3}}"#;
/// let signature = sign(&secret, b"1700000000", body, SignatureEncoding::Hex)?;
/// let verifier = Verifier::new(vec![SecretEntry::active(secret)], VerifyOptions::new(300))?;
/// let delivery = Delivery { body, timestamp: b"1700000000", signature: signature.as_bytes() };
/// let verified = verifier.verify_webhook(&delivery, 1_700_000_100)?;
/// assert_eq!(verified.event.status_version().as_str(), "3");
///
/// let tampered = Delivery { body: b"{}", ..delivery };
/// assert_eq!(verifier.verify_signature(&tampered, 1_700_000_100).unwrap_err().code(), "signature_mismatch");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Verifier {
    keys: Vec<Key>,
    options: VerifyOptions,
}

impl Verifier {
    /// Keys a verifier with a secret set.
    ///
    /// # Errors
    ///
    /// `invalid_argument` for a set of the wrong shape (more than 4 entries, not exactly
    /// one active, `accept_until_secs` missing on a retiring entry or present on another);
    /// `no_secrets` for an empty set; `secret_empty` for an empty secret.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, Verifier, VerifyOptions};
    /// let rotation = vec![
    ///     SecretEntry::active(Secret::new("whsec_new")),
    ///     SecretEntry::retiring(Secret::new("whsec_old"), 1_700_003_600),
    /// ];
    /// assert!(Verifier::new(rotation, VerifyOptions::new(300)).is_ok());
    /// let two_actives = vec![SecretEntry::active(Secret::new("a")), SecretEntry::active(Secret::new("b"))];
    /// assert_eq!(Verifier::new(two_actives, VerifyOptions::new(300)).unwrap_err().code(), "invalid_argument");
    /// assert_eq!(Verifier::new(vec![], VerifyOptions::new(300)).unwrap_err().code(), "no_secrets");
    /// ```
    pub fn new(secrets: Vec<SecretEntry>, options: VerifyOptions) -> Result<Self, Error> {
        check_shape(&secrets)?;
        check_material(&secrets)?;
        Self::keyed(secrets, options)
    }

    fn keyed(secrets: Vec<SecretEntry>, options: VerifyOptions) -> Result<Self, Error> {
        let keys = secrets
            .into_iter()
            .map(|entry| {
                Ok(Key {
                    mac: KeyedMac::new(entry.secret().bytes())?,
                    entry,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Verifier { keys, options })
    }

    /// The options this verifier applies.
    #[must_use]
    pub fn options(&self) -> VerifyOptions {
        self.options
    }

    /// Verifies a delivery's signature and freshness without parsing its body.
    ///
    /// # Errors
    ///
    /// In this order: `body_too_large`, `timestamp_missing`, `timestamp_malformed`,
    /// `signature_missing`, `signature_malformed`, `signature_mismatch`,
    /// `timestamp_too_old`, `timestamp_in_future`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Delivery, Secret, SecretEntry, SecretKind, Verifier, VerifyOptions};
    /// let verifier = Verifier::new(vec![SecretEntry::active(Secret::new("whsec_test_secret"))], VerifyOptions::new(300))?;
    /// let hex = "316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727";
    /// let ok = Delivery { body: b"", timestamp: b"1700000000", signature: hex.as_bytes() };
    /// assert_eq!(verifier.verify_signature(&ok, 1_700_000_000)?.matched_secret, SecretKind::Active);
    /// let future = verifier.verify_signature(&ok, 1_699_999_000).unwrap_err();
    /// assert_eq!(future.code(), "timestamp_in_future");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn verify_signature(
        &self,
        delivery: &Delivery<'_>,
        now_secs: u64,
    ) -> Result<Verified, Error> {
        let parsed = check_delivery(delivery, &self.options)?;
        self.authenticate(delivery, &parsed, now_secs)
    }

    /// Verifies a delivery, then parses its event from the same bytes.
    ///
    /// # Errors
    ///
    /// Those of [`verify_signature`](Self::verify_signature), then those of
    /// [`parse_event`](crate::parse_event): `event_not_json`, `event_duplicate_key`,
    /// `event_malformed`, `event_type_unknown`, `status_version_invalid`.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{sign, Delivery, Secret, SecretEntry, SignatureEncoding, Verifier, VerifyOptions};
    /// let secret = Secret::new("whsec_test_secret");
    /// let verifier = Verifier::new(vec![SecretEntry::active(secret.clone())], VerifyOptions::new(300))?;
    /// let body = br#"{"event_type":"payment.created"}"#;
    /// let sig = sign(&secret, b"1700000000", body, SignatureEncoding::Hex)?;
    /// let delivery = Delivery { body, timestamp: b"1700000000", signature: sig.as_bytes() };
    /// // Authentic, but not an event this receiver handles: acknowledge and ignore it.
    /// let err = verifier.verify_webhook(&delivery, 1_700_000_000).unwrap_err();
    /// assert_eq!(err.code(), "event_type_unknown");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    pub fn verify_webhook(
        &self,
        delivery: &Delivery<'_>,
        now_secs: u64,
    ) -> Result<VerifiedEvent, Error> {
        let verified = self.verify_signature(delivery, now_secs)?;
        Ok(VerifiedEvent {
            event: parse_event(delivery.body)?,
            matched_secret: verified.matched_secret,
            timestamp: verified.timestamp,
        })
    }

    fn authenticate(
        &self,
        delivery: &Delivery<'_>,
        parsed: &Parsed,
        now_secs: u64,
    ) -> Result<Verified, Error> {
        let mut matched: Option<SecretKind> = None;
        let mut only_expired_matched = false;
        for key in &self.keys {
            let tag = key.mac.delivery_tag(delivery.timestamp, delivery.body);
            let hit = parsed
                .candidates
                .as_slice()
                .iter()
                .fold(Choice::from(0), |acc, candidate| acc | tag.ct_eq(candidate));
            if bool::from(hit) {
                if key.entry.usable_at(now_secs) {
                    let kind = key.entry.kind();
                    matched = Some(matched.map_or(kind, |m| m.min(kind)));
                } else {
                    only_expired_matched = true;
                }
            }
        }
        let Some(matched_secret) = matched else {
            return Err(self.mismatch(only_expired_matched));
        };
        check_skew(parsed.timestamp, now_secs, self.options.max_skew_secs)?;
        Ok(Verified {
            matched_secret,
            timestamp: parsed.timestamp,
        })
    }

    fn mismatch(&self, only_expired_matched: bool) -> Error {
        if only_expired_matched {
            return err(
                ErrorKind::SignatureMismatch,
                "the delivery is signed with a retiring secret whose overlap ended (acceptUntilSecs is past)",
            );
        }
        if self
            .keys
            .iter()
            .any(|k| k.entry.secret().has_surrounding_whitespace())
        {
            return err(
                ErrorKind::SignatureMismatch,
                "a secret starts or ends with whitespace, which is used as part of the key: check for a pasted space or newline",
            );
        }
        Error::new(ErrorKind::SignatureMismatch)
    }
}

/// What the header grammar yields before any HMAC is computed.
#[derive(Debug)]
struct Parsed {
    timestamp: u64,
    candidates: Candidates,
}

fn check_delivery(delivery: &Delivery<'_>, options: &VerifyOptions) -> Result<Parsed, Error> {
    if delivery.body.len() > options.max_body_bytes {
        return Err(Error::new(ErrorKind::BodyTooLarge));
    }
    let timestamp = parse_timestamp(delivery.timestamp)?;
    let candidates = parse_signature_header(delivery.signature, delivery.timestamp)?;
    Ok(Parsed {
        timestamp,
        candidates,
    })
}

fn check_skew(timestamp: u64, now_secs: u64, max_skew_secs: u64) -> Result<(), Error> {
    if timestamp.abs_diff(now_secs) <= max_skew_secs {
        Ok(())
    } else if timestamp < now_secs {
        Err(Error::new(ErrorKind::TimestampTooOld))
    } else {
        Err(Error::new(ErrorKind::TimestampInFuture))
    }
}

/// Verifies one delivery with a secret set given for this call only.
///
/// Checks run in the contract's order: the secret set's shape, the body size, the
/// timestamp, the signature header, the secret material, the HMAC, the skew. For many
/// deliveries, build a [`Verifier`] once instead.
///
/// # Errors
///
/// `invalid_argument` (the set's shape), then those of [`Verifier::verify_signature`]
/// with `no_secrets` and `secret_empty` before `signature_mismatch`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{verify_signature, Delivery, Secret, SecretEntry, SecretKind, VerifyOptions};
/// let secrets = [SecretEntry::active(Secret::new("whsec_test_secret"))];
/// let delivery = Delivery {
///     body: b"",
///     timestamp: b"1700000000",
///     signature: b"316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
/// };
/// let ok = verify_signature(&delivery, &secrets, VerifyOptions::new(300), 1_700_000_000)?;
/// assert_eq!(ok.matched_secret, SecretKind::Active);
/// let late = verify_signature(&delivery, &secrets, VerifyOptions::new(300), 1_700_000_301);
/// assert_eq!(late.unwrap_err().code(), "timestamp_too_old");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn verify_signature(
    delivery: &Delivery<'_>,
    secrets: &[SecretEntry],
    options: VerifyOptions,
    now_secs: u64,
) -> Result<Verified, Error> {
    check_shape(secrets)?;
    let parsed = check_delivery(delivery, &options)?;
    check_material(secrets)?;
    let verifier = Verifier::keyed(secrets.to_vec(), options)?;
    verifier.authenticate(delivery, &parsed, now_secs)
}

/// Verifies one delivery with a secret set given for this call only, then parses its event.
///
/// # Errors
///
/// Those of [`verify_signature`], then those of [`parse_event`](crate::parse_event).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{verify_webhook, Delivery, Secret, SecretEntry, VerifyOptions};
/// let secrets = [SecretEntry::active(Secret::new("whsec_test_secret"))];
/// let delivery = Delivery {
///     body: b"",
///     timestamp: b"1700000000",
///     signature: b"316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
/// };
/// // Authentic, but an empty body is no event.
/// let result = verify_webhook(&delivery, &secrets, VerifyOptions::new(300), 1_700_000_000);
/// assert_eq!(result.unwrap_err().code(), "event_not_json");
/// ```
pub fn verify_webhook(
    delivery: &Delivery<'_>,
    secrets: &[SecretEntry],
    options: VerifyOptions,
    now_secs: u64,
) -> Result<VerifiedEvent, Error> {
    let verified = verify_signature(delivery, secrets, options, now_secs)?;
    Ok(VerifiedEvent {
        event: parse_event(delivery.body)?,
        matched_secret: verified.matched_secret,
        timestamp: verified.timestamp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;
    use crate::signature::{SignatureEncoding, sign};

    fn delivery<'a>(body: &'a [u8], ts: &'a [u8], sig: &'a str) -> Delivery<'a> {
        Delivery {
            body,
            timestamp: ts,
            signature: sig.as_bytes(),
        }
    }

    #[test]
    fn skew_is_two_sided_and_inclusive() {
        assert!(check_skew(100, 100, 0).is_ok());
        assert!(check_skew(0, u64::MAX, u64::MAX).is_ok());
        assert_eq!(
            check_skew(99, 100, 0).unwrap_err().code(),
            "timestamp_too_old"
        );
        assert_eq!(
            check_skew(101, 100, 0).unwrap_err().code(),
            "timestamp_in_future"
        );
        assert!(check_skew(400, 100, 300).is_ok());
        assert_eq!(
            check_skew(401, 100, 300).unwrap_err().code(),
            "timestamp_in_future"
        );
        assert_eq!(
            check_skew(0, u64::MAX, 10).unwrap_err().code(),
            "timestamp_too_old"
        );
    }

    #[test]
    fn rotation_reports_the_first_kind_and_honours_the_overlap() {
        let old = Secret::new("old");
        let new = Secret::new("new");
        let sig = sign(&old, b"1000", b"x", SignatureEncoding::Hex).unwrap();
        let d = delivery(b"x", b"1000", &sig);
        let set = vec![
            SecretEntry::active(new.clone()),
            SecretEntry::retiring(old.clone(), 1100),
        ];
        let v = Verifier::new(set, VerifyOptions::new(300)).unwrap();
        assert_eq!(
            v.verify_signature(&d, 1100).unwrap().matched_secret,
            SecretKind::Retiring
        );
        let late = v.verify_signature(&d, 1101).unwrap_err();
        assert_eq!(late.code(), "signature_mismatch");
        assert!(late.to_string().contains("overlap ended"));

        let both = vec![SecretEntry::pending(old.clone()), SecretEntry::active(old)];
        let v = Verifier::new(both, VerifyOptions::new(300)).unwrap();
        assert_eq!(
            v.verify_signature(&d, 1000).unwrap().matched_secret,
            SecretKind::Active
        );
    }

    #[test]
    fn whitespace_secret_is_named_in_the_message() {
        let sig = sign(&Secret::new("s"), b"1000", b"x", SignatureEncoding::Hex).unwrap();
        let v = Verifier::new(
            vec![SecretEntry::active(Secret::new("s\n"))],
            VerifyOptions::new(5),
        )
        .unwrap();
        let e = v
            .verify_signature(&delivery(b"x", b"1000", &sig), 1000)
            .unwrap_err();
        assert_eq!(e.code(), "signature_mismatch");
        assert!(e.to_string().contains("whitespace"));
    }

    #[test]
    fn order_of_checks_in_the_one_shot_form() {
        let empty = [SecretEntry::active(Secret::new(""))];
        let opts = VerifyOptions::new(300).with_max_body_bytes(4).unwrap();
        let code = |d: Delivery<'_>, s: &[SecretEntry]| {
            verify_signature(&d, s, opts, 0).unwrap_err().code()
        };
        let hex = "00".repeat(32);
        assert_eq!(code(delivery(b"12345", b"", ""), &empty), "body_too_large");
        assert_eq!(code(delivery(b"", b"", ""), &empty), "timestamp_missing");
        assert_eq!(code(delivery(b"", b"x", ""), &empty), "timestamp_malformed");
        assert_eq!(code(delivery(b"", b"1", ""), &empty), "signature_missing");
        assert_eq!(
            code(delivery(b"", b"1", "zz"), &empty),
            "signature_malformed"
        );
        assert_eq!(code(delivery(b"", b"1", &hex), &empty), "secret_empty");
        assert_eq!(code(delivery(b"", b"1", &hex), &[]), "no_secrets");
        let two = [SecretEntry::pending(Secret::new(""))];
        assert_eq!(code(delivery(b"12345", b"", ""), &two), "invalid_argument");
    }

    #[test]
    fn debug_never_shows_the_signature_or_body() {
        let d = delivery(b"secret-body", b"1700000000", "abcdef");
        let text = format!("{d:?}");
        assert!(!text.contains("secret-body") && !text.contains("abcdef"));
        assert!(
            text.contains("body_len: 11") && text.contains("1700000000"),
            "{text}"
        );
    }

    #[test]
    fn options_keep_what_they_were_given() {
        let o = VerifyOptions::new(300);
        assert_eq!(o.max_skew_secs(), 300);
        assert_eq!(o.max_body_bytes(), 4_194_304);
        assert_eq!(MAX_MAX_BODY_BYTES, 67_108_864);
        assert_eq!(o.with_max_body_bytes(7).unwrap().max_body_bytes(), 7);
        let v = Verifier::new(vec![SecretEntry::active(Secret::new("s"))], o).unwrap();
        assert_eq!(v.options(), o);
    }
}
