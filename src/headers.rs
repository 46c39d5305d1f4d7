//! Reading the delivery headers (spec: Webhook signature, receiver rule 5). The spec does
//! not name the headers, so the receiver names them; they are matched case-insensitively,
//! and a header sent twice is refused rather than guessed at. With the `http` feature, the
//! same from an `http::HeaderMap` (axum, hyper, reqwest).

use crate::delivery::Delivery;
use crate::error::{Error, ErrorKind, err};

/// The two header values a delivery is verified with, exactly as received.
///
/// Found by [`read_delivery_headers`] or `from_header_map` (feature `http`), or
/// built from two values your framework gives. `Debug` shows the timestamp, never the
/// signature.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{DeliveryHeaders, Secret, SecretSet, Verifier, VerifyOptions};
/// let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, VerifyOptions::new(300));
/// let headers = DeliveryHeaders {
///     timestamp: b"1700000000",
///     signature: b"v1=316b9ab98c15bfa039d243f3196acee619cf29749a91a634e6a8154e2f7b6727",
/// };
/// assert!(verifier.verify_signature(&headers.with_body(b""), 1_700_000_000).is_ok());
/// assert!(!format!("{headers:?}").contains("316b9a"));
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
// No `PartialEq`: comparing the signature's bytes with `==` is not constant-time (as
// `Delivery`, which has none either).
#[derive(Clone, Copy)]
pub struct DeliveryHeaders<'a> {
    /// The timestamp header's value.
    pub timestamp: &'a [u8],
    /// The signature header's value.
    pub signature: &'a [u8],
}

impl<'a> DeliveryHeaders<'a> {
    /// The delivery these headers came with: the raw body bytes beside the two values.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::read_delivery_headers;
    /// let headers = [("x-timestamp", "1700000000"), ("x-signature", "v1=ab")];
    /// let pairs = headers.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    /// let found = read_delivery_headers(pairs, "X-Timestamp", "X-Signature")?;
    /// let delivery = found.with_body(b"{}");
    /// assert_eq!((delivery.body, delivery.signature), (&b"{}"[..], &b"v1=ab"[..]));
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[must_use]
    pub fn with_body(self, body: &'a [u8]) -> Delivery<'a> {
        Delivery {
            body,
            timestamp: self.timestamp,
            signature: self.signature,
        }
    }

    /// Finds the two headers in an `http::HeaderMap` (feature `http`), with the rules of
    /// [`read_delivery_headers`]: names in any letter case, a header present more than once
    /// is `header_duplicated`, an absent one `timestamp_missing` / `signature_missing`.
    ///
    /// This is the `HeaderMap` of `http` 1.x (axum 0.7 and later, hyper 1, reqwest 0.12).
    /// actix-web 4 and hyper 0.14 use `http` 0.2, whose `HeaderMap` it does not accept: pass
    /// their headers to [`read_delivery_headers`] instead, which takes any `(name, value)`
    /// pairs and applies the same rules (second example).
    ///
    /// # Errors
    ///
    /// Those of [`read_delivery_headers`].
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::DeliveryHeaders;
    /// use http::HeaderMap;
    /// let mut headers = HeaderMap::new();
    /// headers.insert("x-webhook-timestamp", "1700000000".parse().unwrap());
    /// headers.insert("x-webhook-signature", "v1=ab".parse().unwrap());
    /// let found = DeliveryHeaders::from_header_map(&headers, "X-Webhook-Timestamp", "X-Webhook-Signature")?;
    /// assert_eq!(found.timestamp, b"1700000000");
    ///
    /// headers.append("x-webhook-signature", "v1=cd".parse().unwrap());
    /// let twice = DeliveryHeaders::from_header_map(&headers, "X-Webhook-Timestamp", "X-Webhook-Signature");
    /// assert_eq!(twice.unwrap_err().code(), "header_duplicated");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    ///
    /// With actix-web 4 (`req.headers()`) or hyper 0.14 (`request.headers()`), whose
    /// `iter()` yields `(&HeaderName, &HeaderValue)` pairs of `http` 0.2 (here `http` 1's
    /// `HeaderMap` stands in for theirs: the expression is the same):
    ///
    /// ```
    /// use cryptopay_verify::read_delivery_headers;
    /// # let mut headers = http::HeaderMap::new();
    /// # headers.insert("x-webhook-timestamp", "1700000000".parse().unwrap());
    /// # headers.insert("x-webhook-signature", "v1=ab".parse().unwrap());
    /// let found = read_delivery_headers(
    ///     headers.iter().map(|(n, v)| (n.as_str().as_bytes(), v.as_bytes())),
    ///     "X-Webhook-Timestamp",
    ///     "X-Webhook-Signature",
    /// )?;
    /// let delivery = found.with_body(b"{}");
    /// assert_eq!(delivery.timestamp, b"1700000000");
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn from_header_map(
        headers: &'a http::HeaderMap,
        timestamp_header: &str,
        signature_header: &str,
    ) -> Result<Self, Error> {
        // `iter` yields every value of a repeated header as its own pair.
        let pairs = headers
            .iter()
            .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes()));
        read_delivery_headers(pairs, timestamp_header, signature_header)
    }
}

impl core::fmt::Debug for DeliveryHeaders<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeliveryHeaders")
            .field(
                "timestamp",
                &crate::timestamp::ShownTimestamp(self.timestamp),
            )
            .field("signature", &"[REDACTED]")
            .finish()
    }
}

/// Whether `name` is a field name as RFC 9110 defines it (a token: one or more of the letters,
/// digits and `!#$%&'*+-.^_`|~`).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Checks the two configured header names once, at start-up: each a header name, and not the
/// same header. [`read_delivery_headers`] checks them again at every call, where a bad name
/// would be a refusal (`invalid_argument`, the receiver's fault: a 500) for every delivery;
/// here it stops the process before it serves any.
///
/// # Errors
///
/// `invalid_argument` when a name is not one (empty, or holding a character no header name
/// has, such as a space) or both name the same header (in any letter case).
///
/// # Examples
///
/// ```
/// use cryptopay_verify::validate_header_names;
/// fn main() -> Result<(), cryptopay_verify::Error> {
///     // The names as the service's webhook settings give them (read from configuration).
///     validate_header_names("X-Webhook-Timestamp", "X-Webhook-Signature")?;
///     assert!(validate_header_names("X-Webhook-Timestamp ", "X-Webhook-Signature").is_err());
///     assert!(validate_header_names("x-sig", "X-Sig").is_err());
///     Ok(())
/// }
/// ```
pub fn validate_header_names(timestamp_header: &str, signature_header: &str) -> Result<(), Error> {
    // A name no header can have (a space, a colon, a non-ASCII letter) would make every
    // delivery `timestamp_missing`: the configuration is refused instead.
    if !is_header_name(timestamp_header) {
        return Err(err(
            ErrorKind::InvalidArgument,
            "timestamp_header is not a header name (letters, digits and !#$%&'*+-.^_`|~, not empty)",
        ));
    }
    if !is_header_name(signature_header) {
        return Err(err(
            ErrorKind::InvalidArgument,
            "signature_header is not a header name (letters, digits and !#$%&'*+-.^_`|~, not empty)",
        ));
    }
    if timestamp_header.eq_ignore_ascii_case(signature_header) {
        return Err(err(
            ErrorKind::InvalidArgument,
            "timestamp_header and signature_header name the same header",
        ));
    }
    Ok(())
}

/// Finds the timestamp and signature headers among `(name, value)` pairs, as a server
/// framework lists them (each occurrence of a repeated header as its own pair).
///
/// # Errors
///
/// `invalid_argument` when a header name is not one (empty, or holding a character no header
/// name has, such as a space) or both names are the same;
/// then for the timestamp header and then for the signature header: `header_duplicated`
/// when it appears more than once (in any letter case), `timestamp_missing` /
/// `signature_missing` when it is absent.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::read_delivery_headers;
/// let headers = [("Content-Type", "application/json"), ("X-Timestamp", "1700000000"), ("x-signature", "v1=ab")];
/// let pairs = headers.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
/// let found = read_delivery_headers(pairs, "x-timestamp", "X-Signature")?;
/// assert_eq!(found.timestamp, b"1700000000");
///
/// let twice = [("x-timestamp", "1"), ("X-Timestamp", "2"), ("x-signature", "v1=ab")];
/// let pairs = twice.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
/// assert_eq!(read_delivery_headers(pairs, "x-timestamp", "x-signature").unwrap_err().code(), "header_duplicated");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn read_delivery_headers<'a, I>(
    headers: I,
    timestamp_header: &str,
    signature_header: &str,
) -> Result<DeliveryHeaders<'a>, Error>
where
    I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
{
    validate_header_names(timestamp_header, signature_header)?;
    let headers_list: Vec<(&'a [u8], &'a [u8])> = headers.into_iter().collect();
    // `which` names the header in a duplicate's error (never its values).
    let find = |name: &str, which: &'static str| -> Result<Option<&'a [u8]>, Error> {
        let mut found = None;
        for (n, value) in headers_list.iter().copied() {
            if n.eq_ignore_ascii_case(name.as_bytes()) && found.replace(value).is_some() {
                return Err(err(ErrorKind::HeaderDuplicated, which));
            }
        }
        Ok(found)
    };
    let timestamp = find(timestamp_header, "the timestamp header")?
        .ok_or(Error::new(ErrorKind::TimestampMissing))?;
    let signature = find(signature_header, "the signature header")?
        .ok_or(Error::new(ErrorKind::SignatureMissing))?;
    Ok(DeliveryHeaders {
        timestamp,
        signature,
    })
}

#[cfg(test)]
mod tests;
