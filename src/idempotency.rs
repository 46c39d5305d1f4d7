//! Idempotent creation (spec: Endpoints 1, idempotency rules): a fingerprint of the exact
//! request bytes to store beside the Idempotency-Key, and the key's own check.

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind};

/// The longest Idempotency-Key accepted.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_idempotency_key, MAX_IDEMPOTENCY_KEY_LEN};
/// assert!(validate_idempotency_key(&"k".repeat(MAX_IDEMPOTENCY_KEY_LEN)).is_ok());
/// let too_long = "k".repeat(MAX_IDEMPOTENCY_KEY_LEN + 1);
/// assert_eq!(validate_idempotency_key(&too_long).unwrap_err().code(), "idempotency_key_invalid");
/// ```
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// The lowercase hex SHA-256 of the exact request bytes.
///
/// Store it with the Idempotency-Key: a retry after a timeout must send the same body,
/// and equal fingerprints prove it does.
///
/// # Examples
///
/// ```
/// assert_eq!(
///     cryptopay_verify::request_fingerprint(b""),
///     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
#[must_use]
pub fn request_fingerprint(body: &[u8]) -> String {
    base16ct::lower::encode_string(&Sha256::digest(body))
}

/// Checks an Idempotency-Key: 1 to 255 visible ASCII characters.
///
/// # Errors
///
/// `idempotency_key_invalid`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::validate_idempotency_key;
/// assert!(validate_idempotency_key("7f6f2c1e-0c1b-4e57-9f3a-3f0d1f2f4b55").is_ok());
/// assert_eq!(validate_idempotency_key("two words").unwrap_err().code(), "idempotency_key_invalid");
/// ```
pub fn validate_idempotency_key(key: &str) -> Result<(), Error> {
    let ok = (1..=MAX_IDEMPOTENCY_KEY_LEN).contains(&key.len())
        && key.bytes().all(|b| b.is_ascii_graphic());
    if ok {
        Ok(())
    } else {
        Err(Error::new(ErrorKind::IdempotencyKeyInvalid))
    }
}

#[cfg(test)]
mod tests;
