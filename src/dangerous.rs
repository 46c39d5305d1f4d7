//! Verification steps that are only safe when the caller upholds what the function cannot
//! check itself. Not needed by a receiver: use [`Verifier`].

use crate::delivery::Delivery;
use crate::error::Error;
use crate::mac::HostHash;
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
/// bytes per entry. A timestamp that reads as a signature is always the delivery's refusal
/// here (never [`is_receiver_fault`](Error::is_receiver_fault)): whether the delivery verifies
/// with its two header values read the other way round needs their HMAC, which the host did
/// not compute; [`Verifier::verify_signature`] on the same delivery tells.
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
        HostHash::Tags,
        now_secs,
    )
}

/// As [`verify_signature_with_tags`], with the inner hash of each tag computed by the host:
/// `inner` holds 32 bytes per entry of the verifier's [`SecretSet`](crate::SecretSet), in its
/// order, each SHA-256 over the entry's inner pad block and the delivery's bytes (RFC 2104:
/// the secret's bytes, first hashed with SHA-256 when longer than 64, zero-padded to 64 and
/// XORed byte by byte with `0x36`; then the timestamp header bytes, `.` and the body bytes).
/// The crate finishes each tag with the entry's outer state (one SHA-256 compression).
///
/// For a host whose SHA-256 keeps a state it can copy cheaply (node:crypto's `Hash.copy()`)
/// but whose HMAC is set up again for every tag: the inner pad block is hashed once per
/// secret, and each delivery costs one copy.
///
/// # Security
///
/// As for [`verify_signature_with_tags`]: an inner hash over other bytes, or from another
/// key, than the delivery's own would accept what it should refuse. The inner pad block is
/// derived from the secret: wipe it once hashed.
///
/// # Errors
///
/// Those of [`Verifier::verify_signature`], and `invalid_argument` when `inner` is not 32
/// bytes per entry. A timestamp that reads as a signature is always the delivery's refusal
/// here (never [`is_receiver_fault`](Error::is_receiver_fault)): whether the delivery verifies
/// with its two header values read the other way round needs their HMAC, which the host did
/// not compute; [`Verifier::verify_signature`] on the same delivery tells.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{dangerous, sign_webhook, Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
/// use sha2::{Digest, Sha256};
/// let secret = "whsec_test_secret";
/// let verifier = Verifier::new(SecretSet::single(Secret::new(secret))?, VerifyOptions::new(300));
/// let signature = sign_webhook(&Secret::new(secret), b"1700000000", b"{}", SignatureEncoding::Hex)?;
/// let delivery = Delivery { body: b"{}", timestamp: b"1700000000", signature: signature.as_bytes() };
/// // The secret's inner pad block (a secret of at most 64 bytes is not hashed first).
/// let mut pad = [0x36_u8; 64];
/// pad.iter_mut().zip(secret.as_bytes()).for_each(|(p, k)| *p ^= k);
/// let keyed = Sha256::new_with_prefix(pad); // once per secret; then per delivery:
/// let inner = keyed.clone().chain_update(delivery.timestamp).chain_update(b".").chain_update(delivery.body).finalize();
/// assert!(dangerous::verify_signature_with_inner_hashes(&verifier, &delivery, &inner, 1_700_000_000).is_ok());
/// // A whole tag is not an inner hash.
/// let tag = base16ct::lower::decode_vec(&signature).unwrap();
/// let wrong = dangerous::verify_signature_with_inner_hashes(&verifier, &delivery, &tag, 1_700_000_000);
/// assert_eq!(wrong.unwrap_err().code(), "signature_mismatch");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn verify_signature_with_inner_hashes(
    verifier: &Verifier,
    delivery: &Delivery<'_>,
    inner: &[u8],
    now_secs: u64,
) -> Result<Verified, Error> {
    verify_signature_tags(
        delivery,
        verifier.secrets(),
        verifier.options(),
        inner,
        HostHash::Inner,
        now_secs,
    )
}
