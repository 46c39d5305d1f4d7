//! Verifying a delivery (spec: Webhook signature, receiver rules 1 and 6): limits first,
//! then the header grammar, then the HMAC comparison in constant time, then the skew, and
//! only then (for [`Verifier::verify_webhook`]) the event envelope.

use crate::delivery::Delivery;
use crate::error::{Error, ErrorKind, err};
use crate::event::{Event, parse_event};
use crate::mac::{HostHash, TAG_LEN, Tag};
use crate::options::VerifyOptions;
use crate::secret::SecretKind;
use crate::secret_set::SecretSet;
use crate::timestamp::{HEADERS_SWAPPED, READS_AS_SIGNATURE};

/// An authentic, fresh delivery: which kind of secret matched, and its timestamp.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{Delivery, Secret, SecretKind, SecretSet, Verifier, VerifyOptions};
/// let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, VerifyOptions::new(300));
/// let delivery = Delivery {
///     body: b"",
///     timestamp: b"1700000000",
///     signature: b"v1=316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
/// };
/// let verified = verifier.verify_signature(&delivery, 1_700_000_030)?;
/// assert_eq!(verified.matched_secret, SecretKind::Active);
/// assert_eq!(verified.timestamp, 1_700_000_000); // 30 s before now_secs
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Verified {
    /// The kind of the secret that matched (the first of active, pending, retiring).
    pub matched_secret: SecretKind,
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: u64,
}

/// An authentic, fresh delivery and its parsed event.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretKind, SecretSet, SignatureEncoding, Verifier, VerifiedEvent, VerifyOptions};
/// let secret = Secret::new("whsec_test_secret");
/// let body = br#"{"schema_version":1,"event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":3}}"#;
/// let signature = sign_webhook(&secret, b"1700000000", body, SignatureEncoding::Hex)?;
/// let verifier = Verifier::new(SecretSet::single(secret)?, VerifyOptions::new(300));
/// let delivery = Delivery { body, timestamp: b"1700000000", signature: signature.as_bytes() };
/// // `..`: fields may be added.
/// let VerifiedEvent { event, matched_secret, .. } = verifier.verify_webhook(&delivery, 1_700_000_000)?;
/// assert_eq!((event.payment_id(), matched_secret), ("pay_1", SecretKind::Active));
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifiedEvent {
    /// The parsed `payment.updated` event.
    pub event: Event,
    /// The kind of the secret that matched.
    pub matched_secret: SecretKind,
    /// The delivery's timestamp, in Unix seconds.
    pub timestamp: u64,
}

/// A verifier: a keyed [`SecretSet`] and the [`VerifyOptions`], built once and reused for
/// every delivery.
///
/// # Sharing
///
/// Build one at start and share it as an `Arc<Verifier>` (it is `Send + Sync`, and every
/// method takes `&self`): in axum, `Router::with_state(Arc::new(verifier))` and a handler
/// taking `State(verifier): State<Arc<Verifier>>`, or a field of your own `Arc<App>` state.
/// `Clone` exists and is cheap (clones share the keyed states), but an `Arc` makes the
/// sharing explicit and costs one reference count per request in any framework.
///
/// ```
/// use std::sync::Arc;
/// use std::thread;
/// use cryptopay_verify::{Delivery, Secret, SecretSet, Verifier, VerifyOptions};
///
/// // At start: keyed once.
/// let set = SecretSet::single(Secret::new("whsec_test_secret"))?;
/// let verifier = Arc::new(Verifier::new(set, VerifyOptions::new(300)));
///
/// // Per request, on any thread: a reference count, no copy of the keyed states.
/// let handler = {
///     let verifier = Arc::clone(&verifier);
///     thread::spawn(move || {
///         let delivery = Delivery {
///             body: b"",
///             timestamp: b"1700000000",
///             signature: b"v1=316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
///         };
///         verifier.verify_signature(&delivery, 1_700_000_000).is_ok()
///     })
/// };
/// assert_eq!(handler.join().ok(), Some(true));
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
///
/// # Security
///
/// Every usable secret's tag is compared with every signature candidate through
/// `ctutils::CtEq` (the constant-time equality `hmac` verifies with) on fixed 32-byte
/// arrays, with no early exit. A candidate of the wrong length is rejected while parsing
/// and never compared as a prefix. Freshness is checked only after the signature matched,
/// so `timestamp_too_old` always means an authentic but old delivery.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
/// let secret = Secret::new("whsec_test_secret");
/// let body = br#"{"schema_version":"1","event_id":"evt_1","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{"payment_id":"pay_1","status_version":3}}"#;
/// let signature = sign_webhook(&secret, b"1700000000", body, SignatureEncoding::Hex)?;
/// let verifier = Verifier::new(SecretSet::single(secret)?, VerifyOptions::new(300));
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
    secrets: SecretSet,
    options: VerifyOptions,
}

impl Verifier {
    /// A verifier for a checked secret set and options. Nothing is left to fail here: the
    /// set was checked and keyed when it was built.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretEntry, SecretSet, Verifier, VerifyOptions};
    /// let rotation = SecretSet::new(vec![
    ///     SecretEntry::active(Secret::new("whsec_new")),
    ///     SecretEntry::retiring(Secret::new("whsec_old"), 1_700_003_600),
    /// ])?;
    /// let verifier = Verifier::new(rotation, VerifyOptions::new(300));
    /// assert_eq!(verifier.options().max_skew_secs(), 300);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn new(secrets: SecretSet, options: VerifyOptions) -> Self {
        Verifier { secrets, options }
    }

    /// The options this verifier applies.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretSet, Verifier, VerifyOptions};
    /// let options = VerifyOptions::new(300).with_max_body_bytes(1 << 20)?;
    /// let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, options);
    /// // E.g. to give the server the body limit the verifier applies.
    /// assert_eq!(verifier.options().max_body_bytes(), 1 << 20);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn options(&self) -> VerifyOptions {
        self.options
    }

    /// The secret set this verifier uses.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{Secret, SecretSet, Verifier, VerifyOptions};
    /// let verifier = Verifier::new(SecretSet::single(Secret::new("s"))?, VerifyOptions::new(60));
    /// assert_eq!(verifier.secrets().len(), 1);
    /// assert_eq!(format!("{:?}", verifier.secrets()), "[active]"); // kinds only, never secrets
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn secrets(&self) -> &SecretSet {
        &self.secrets
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
    /// use cryptopay_verify::{Delivery, Secret, SecretKind, SecretSet, Verifier, VerifyOptions};
    /// let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, VerifyOptions::new(300));
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
        verify_signature(delivery, &self.secrets, self.options, now_secs)
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
    /// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
    /// let secret = Secret::new("whsec_test_secret");
    /// let body = br#"{"event_type":"payment.created"}"#;
    /// let sig = sign_webhook(&secret, b"1700000000", body, SignatureEncoding::Hex)?;
    /// let verifier = Verifier::new(SecretSet::single(secret)?, VerifyOptions::new(300));
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
        verify_webhook(delivery, &self.secrets, self.options, now_secs)
    }
}

/// Verifies one delivery's signature and freshness with a secret set and options given for
/// this call (a [`Verifier`] holds the same two).
///
/// # Errors
///
/// Those of [`Verifier::verify_signature`].
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{verify_signature, Delivery, Secret, SecretKind, SecretSet, VerifyOptions};
/// let secrets = SecretSet::single(Secret::new("whsec_test_secret"))?;
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
    secrets: &SecretSet,
    options: VerifyOptions,
    now_secs: u64,
) -> Result<Verified, Error> {
    let verify = |delivery: &Delivery<'_>| {
        verify_parsed(delivery, options, now_secs, |candidates, signed_in_time| {
            secrets.matching(
                delivery.timestamp,
                delivery.body,
                candidates,
                now_secs,
                signed_in_time,
            )
        })
    };
    verify(delivery).map_err(|e| swapped_headers(e, delivery, |swapped| verify(swapped).is_ok()))
}

/// A timestamp that reads as a signature is the receiver's fault (its two header names
/// swapped: [`HEADERS_SWAPPED`]) only when the delivery `verifies` with its two header
/// values read the other way round; otherwise it stays the delivery's own refusal, so that no
/// sender can turn a refusal into a 5xx without the secret (or a captured delivery replayed
/// with its header values exchanged, which the message names). Any other refusal is kept as it is.
fn swapped_headers(
    e: Error,
    delivery: &Delivery<'_>,
    verifies: impl FnOnce(&Delivery<'_>) -> bool,
) -> Error {
    if e.detail() != Some(READS_AS_SIGNATURE) {
        return e;
    }
    let swapped = Delivery {
        body: delivery.body,
        timestamp: delivery.signature,
        signature: delivery.timestamp,
    };
    if verifies(&swapped) {
        err(ErrorKind::TimestampMalformed, HEADERS_SWAPPED)
    } else {
        e
    }
}

/// As [`verify_signature`], with the delivery's HMAC tags, or their inner hashes (`hashed`),
/// computed by the host (a platform's hardware SHA-256): `tags` holds 32 bytes per entry of
/// the set, in its order, over the same bytes. They are read only once the headers have
/// been, so a malformed delivery is refused with its own code, and tags of another length as
/// `invalid_argument`. The body is not needed: the host checked its size against
/// `max_body_bytes`. Everything else (the outer hash of an inner one, the header grammar, the
/// constant-time comparison, rotation, skew) is this crate's.
pub(crate) fn verify_signature_tags(
    delivery: &Delivery<'_>,
    secrets: &SecretSet,
    options: VerifyOptions,
    tags: &[u8],
    hashed: HostHash,
    now_secs: u64,
) -> Result<Verified, Error> {
    verify_parsed(delivery, options, now_secs, |candidates, signed_in_time| {
        let (tags, rest) = tags.as_chunks::<TAG_LEN>();
        if !rest.is_empty() {
            return Err(err(
                ErrorKind::InvalidArgument,
                "the host's tags are not 32 bytes each",
            ));
        }
        secrets.matching_tags(tags, hashed, candidates, now_secs, signed_in_time)
    })
}

/// The steps of a verification around its HMAC: the headers read (and the body's size
/// checked), the secret matched by `matched` against the signature's candidates, the skew.
fn verify_parsed(
    delivery: &Delivery<'_>,
    options: VerifyOptions,
    now_secs: u64,
    matched: impl FnOnce(&[Tag], Option<u64>) -> Result<SecretKind, Error>,
) -> Result<Verified, Error> {
    delivery.parse(&options, |timestamp, candidates| {
        let skew = options.check_skew(timestamp, now_secs);
        let matched_secret = matched(candidates, skew.is_ok().then_some(timestamp))?;
        skew?;
        Ok(Verified {
            matched_secret,
            timestamp,
        })
    })
}

/// Verifies one delivery with a secret set and options given for this call, then parses its
/// event from the same bytes.
///
/// # Errors
///
/// Those of [`verify_signature`], then those of [`parse_event`](crate::parse_event).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{verify_webhook, Delivery, Secret, SecretSet, VerifyOptions};
/// let secrets = SecretSet::single(Secret::new("whsec_test_secret"))?;
/// let delivery = Delivery {
///     body: b"",
///     timestamp: b"1700000000",
///     signature: b"316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
/// };
/// // Authentic, but an empty body is no event.
/// let result = verify_webhook(&delivery, &secrets, VerifyOptions::new(300), 1_700_000_000);
/// assert_eq!(result.unwrap_err().code(), "event_not_json");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn verify_webhook(
    delivery: &Delivery<'_>,
    secrets: &SecretSet,
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
mod tests;
