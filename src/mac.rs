//! The signature scheme (spec: Webhook signature): HMAC-SHA256 over the raw timestamp
//! bytes, one `.` byte and the raw body bytes, keyed with the secret exactly as saved; and a
//! signer for tests.
//!
//! # What is wiped
//!
//! `hmac` and `sha2` are built with their `zeroize` feature: every SHA-256 state (the keyed
//! inner and outer states of a [`KeyedMac`], the outer state it keeps to finish a host's inner
//! hash, and the copies each delivery works on) and every block buffer overwrite themselves
//! with zeros when dropped; the outer pad block this module derives is cleared once absorbed.
//! Not wiped: the padded key that `hmac` derives on its stack while keying (it does not clear
//! it), and the bytes left behind when Rust moves a value (a move is a copy; the old place is
//! not cleared).

use base64ct::{Base64, Encoding};
use hmac::digest::block_api::{Block, Buffer, CoreProxy, FixedOutputCore, UpdateCore};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use zeroize::Zeroize;

/// SHA-256's block-level state, as `hmac` keeps its keyed states: finishing a tag with it
/// reuses the code `hmac` finalizes with (measured: a whole `Sha256` instead made the `.wasm`
/// 1.1 KB larger).
type Sha256Core = <Sha256 as CoreProxy>::Core;

use crate::error::{Error, ErrorKind, err};
use crate::secret::Secret;
use crate::timestamp::parse_timestamp;

/// The length of an HMAC-SHA256 tag.
pub(crate) const TAG_LEN: usize = 32;

pub(crate) type Tag = [u8; TAG_LEN];

/// What a host hashed for each entry of a set, when it computes a delivery's HMAC itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HostHash {
    /// The whole HMAC tag.
    Tags,
    /// The HMAC's inner hash, which the crate finishes with the entry's outer state (see
    /// [`KeyedMac::finish`]).
    Inner,
}

/// SHA-256's block: an HMAC key is hashed when longer, then padded to it (RFC 2104).
const BLOCK_LEN: usize = 64;

/// The byte an HMAC key is XORed with for the outer hash (RFC 2104's `opad`).
const OPAD: u8 = 0x5c;

/// An HMAC-SHA256 state keyed with one secret, reused for every delivery (wiped on drop).
#[derive(Clone)]
pub(crate) struct KeyedMac {
    mac: Hmac<Sha256>,
    /// SHA-256 after the key's outer pad block: what finishes a tag whose inner hash the host
    /// computed ([`finish`](Self::finish)).
    outer: Sha256Core,
}

impl KeyedMac {
    pub(crate) fn new(key: &[u8]) -> Result<Self, Error> {
        // HMAC takes keys of any length; this error cannot happen, but is not unwrapped.
        let mac = Hmac::<Sha256>::new_from_slice(key)
            .map_err(|_| err(ErrorKind::InvalidArgument, "the secret cannot key HMAC"))?;
        Ok(KeyedMac {
            mac,
            outer: outer_state(key),
        })
    }

    /// The tag over the concatenation of `parts`.
    pub(crate) fn tag(&self, parts: &[&[u8]]) -> Tag {
        // The clone carries the keyed states; `finalize` consumes it, and it is wiped then.
        let mut mac = self.mac.clone();
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().into()
    }

    /// The tag whose inner hash the host computed: `inner` is SHA-256 over the key's inner
    /// pad block (the key, hashed first when longer than 64 bytes, zero-padded to 64 and
    /// XORed with `0x36`) and the message. HMAC is `SHA-256(outer pad block || inner)`; the
    /// outer pad block is absorbed once, when keying, so this is one compression.
    pub(crate) fn finish(&self, inner: &Tag) -> Tag {
        // As `hmac` finishes its own tags: the inner hash through a block buffer into a copy
        // of the outer state (both wiped on drop).
        let mut outer = self.outer.clone();
        let mut buffer = Buffer::<Sha256Core>::default();
        buffer.digest_blocks(inner, |blocks| outer.update_blocks(blocks));
        let mut tag = Tag::default();
        outer.finalize_fixed_core(&mut buffer, (&mut tag).into());
        tag
    }

    /// The tag of a delivery: `timestamp . body`.
    pub(crate) fn delivery_tag(&self, timestamp: &[u8], body: &[u8]) -> Tag {
        self.tag(&[timestamp, b".", body])
    }
}

/// SHA-256 after the outer pad block of `key` (RFC 2104, as `hmac` derives it when keying).
fn outer_state(key: &[u8]) -> Sha256Core {
    let mut hashed: Tag = if key.len() > BLOCK_LEN {
        Sha256::digest(key).into()
    } else {
        [0; TAG_LEN]
    };
    let key = if key.len() > BLOCK_LEN {
        hashed.as_slice()
    } else {
        key
    };
    let mut block = Block::<Sha256Core>::from([OPAD; BLOCK_LEN]);
    block.iter_mut().zip(key).for_each(|(b, k)| *b ^= k);
    let mut outer = Sha256Core::default();
    outer.update_blocks(core::slice::from_ref(&block));
    block.zeroize();
    hashed.zeroize();
    outer
}

impl core::fmt::Debug for KeyedMac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("KeyedMac([REDACTED])")
    }
}

/// How [`sign_webhook`] writes the signature.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{sign_webhook, Delivery, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
/// let secret = Secret::new("whsec_test_secret");
/// let hex = sign_webhook(&secret, b"1700000000", b"{}", SignatureEncoding::Hex)?;
/// let base64 = sign_webhook(&secret, b"1700000000", b"{}", SignatureEncoding::Base64)?;
/// assert_eq!((hex.len(), base64.len()), (64, 44));
/// // A verifier reads either form.
/// let verifier = Verifier::new(SecretSet::single(secret)?, VerifyOptions::new(300));
/// for signature in [&hex, &base64] {
///     let delivery = Delivery { body: b"{}", timestamp: b"1700000000", signature: signature.as_bytes() };
///     assert!(verifier.verify_signature(&delivery, 1_700_000_000).is_ok());
/// }
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SignatureEncoding {
    /// 64 lowercase hex digits (the default).
    #[default]
    Hex,
    /// Padded standard base64 (44 characters).
    Base64,
}

/// Signs a delivery as the service does, for tests: HMAC-SHA256 of `timestamp . body`.
///
/// # Security
///
/// Never verify a delivery by comparing this string with the signature header: `==` on
/// strings is not constant-time, and it skips the skew check, the `v1=` prefix and the
/// header's other candidates. Verify with [`Verifier`](crate::Verifier) or
/// [`verify_signature`](crate::verify_signature).
///
/// # Errors
///
/// `timestamp_missing` / `timestamp_malformed` when the timestamp is not 1 to 12 ASCII
/// digits; `secret_empty` for an empty secret.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{sign_webhook, Secret, SignatureEncoding};
/// let sig = sign_webhook(&Secret::new("whsec_test_secret"), b"1700000000", b"", SignatureEncoding::Hex)?;
/// assert_eq!(sig, "316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727");
/// let empty = sign_webhook(&Secret::new(""), b"1700000000", b"", SignatureEncoding::Hex);
/// assert_eq!(empty.unwrap_err().code(), "secret_empty");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn sign_webhook(
    secret: &Secret,
    timestamp: &[u8],
    body: &[u8],
    encoding: SignatureEncoding,
) -> Result<String, Error> {
    parse_timestamp(timestamp)?;
    if secret.is_empty() {
        return Err(Error::new(ErrorKind::SecretEmpty));
    }
    let tag = KeyedMac::new(secret.bytes())?.delivery_tag(timestamp, body);
    Ok(match encoding {
        SignatureEncoding::Hex => base16ct::lower::encode_string(&tag),
        SignatureEncoding::Base64 => Base64::encode_string(&tag),
    })
}

#[cfg(test)]
pub(crate) mod tests;
