//! Verification steps that are only safe when the caller upholds what the function cannot
//! check itself. Not needed by a receiver: use [`Verifier`].

use crate::delivery::Delivery;
use crate::error::Error;
use crate::verify::{Verified, Verifier, verify_signature_tags};

/// As [`Verifier::verify_signature`], with the delivery's HMAC-SHA256 tags computed by the
/// host (a platform's hardware HMAC): `tags` holds one 32-byte tag per entry of the
/// verifier's [`SecretSet`](crate::SecretSet), in its order, each over the timestamp header
/// bytes, `.` and the body bytes.
///
/// The headers are read first, so a malformed delivery is refused with its own code; the
/// comparison (constant time), rotation and skew are this crate's. `delivery.body` is not
/// hashed (its length is still checked against `max_body_bytes`, before the headers): check
/// its size before hashing it yourself.
///
/// # Security
///
/// A tag computed over other bytes, or with another key, than the delivery's own would
/// accept what it should refuse: the caller answers for the tags.
///
/// # Errors
///
/// Those of [`Verifier::verify_signature`], and `invalid_argument` when `tags` is not 32
/// bytes per entry.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{dangerous, sign_webhook, Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
/// use hmac::{KeyInit, Mac};
/// let secret = "whsec_test_secret";
/// let verifier = Verifier::new(SecretSet::single(Secret::new(secret))?, VerifyOptions::new(300));
/// let signature = sign_webhook(&Secret::new(secret), b"1700000000", b"{}", SignatureEncoding::Hex)?;
/// let delivery = Delivery { body: b"{}", timestamp: b"1700000000", signature: signature.as_bytes() };
/// // The host's HMAC over the delivery's own bytes: its timestamp, ".", its body.
/// let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
/// mac.update(delivery.timestamp);
/// mac.update(b".");
/// mac.update(delivery.body);
/// let tag = mac.finalize().into_bytes();
/// assert!(dangerous::verify_signature_with_tags(&verifier, &delivery, &tag, 1_700_000_000).is_ok());
/// let short = dangerous::verify_signature_with_tags(&verifier, &delivery, &tag[..31], 1_700_000_000);
/// assert_eq!(short.unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn verify_signature_with_tags(
    verifier: &Verifier,
    delivery: &Delivery<'_>,
    tags: &[u8],
    now_secs: u64,
) -> Result<Verified, Error> {
    verify_signature_tags(
        delivery,
        verifier.secrets(),
        verifier.options(),
        tags,
        now_secs,
    )
}
