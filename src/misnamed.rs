//! A delivery refused `timestamp_missing` or `signature_missing` that carried a header whose
//! name says it is the missing one, and verifies with it: the receiver's header names are
//! wrong (a typo, or a pair copied from another provider's guide), not the delivery. Every
//! delivery is refused so until they are put right, and a 400 is final for the service: the
//! host answers 5xx instead (retried once the names are fixed) and logs the names to set.

use std::collections::BTreeSet;
use std::fmt;

use crate::headers::{read_delivery_headers, validate_header_names};
use crate::verify::Verifier;

/// How many readings of a delivery's headers [`Verifier::misnamed_headers`] hashes at most: a
/// request built to look misnamed costs no more than this many HMACs.
const MAX_READINGS: usize = 4;

/// The header names a delivery verified with, instead of the configured ones it lacked: the
/// settings to change, each `None` when that name is right. Names are as the delivery carried
/// them, lower-cased (header names are case-insensitive).
///
/// `Display` writes what to set, in the crate's option names, for the log line.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::MisnamedHeaders;
/// let names = MisnamedHeaders { timestamp_header: None, signature_header: Some("x-cryptopay-signature".into()) };
/// assert_eq!(
///     names.to_string(),
///     "the delivery verifies with its signature read from x-cryptopay-signature: set signature_header to x-cryptopay-signature"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MisnamedHeaders {
    /// The header that held the timestamp, when it is not the configured one.
    pub timestamp_header: Option<String>,
    /// The header that held the signature, when it is not the configured one.
    pub signature_header: Option<String>,
}

impl fmt::Display for MisnamedHeaders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let renamed: Vec<(&str, &str, &str)> = [
            (
                "timestamp",
                "timestamp_header",
                self.timestamp_header.as_deref(),
            ),
            (
                "signature",
                "signature_header",
                self.signature_header.as_deref(),
            ),
        ]
        .into_iter()
        .filter_map(|(what, option, name)| name.map(|name| (what, option, name)))
        .collect();
        let read: Vec<String> = renamed
            .iter()
            .map(|(what, _, name)| format!("{what} read from {name}"))
            .collect();
        let set: Vec<String> = renamed
            .iter()
            .map(|(_, option, name)| format!("{option} to {name}"))
            .collect();
        write!(
            f,
            "the delivery verifies with its {}: set {}",
            read.join(" and "),
            set.join(" and ")
        )
    }
}

impl Verifier {
    /// For a delivery refused `timestamp_missing` or `signature_missing` (by
    /// [`read_delivery_headers`] or `DeliveryHeaders::from_header_map`): the names to set,
    /// when it carried a header whose name says it is the missing one (holding `timestamp`
    /// or `ts`, `signature` or `sig`; not a proxy's own such as `x-forwarded-*`) and verifies,
    /// fresh at `now_secs`, with that header read instead, or with both read instead when
    /// neither configured name came. `None` otherwise, and when a configured name is not a
    /// header name or both configured names came.
    ///
    /// Answer such a delivery 5xx, never 400: the receiver's configuration is wrong, every
    /// delivery is refused until it is put right, and the service retries a 5xx (a 400 is
    /// final, the event lost). It is never to accept the delivery: it was refused, and is
    /// verified here only to tell the operator what to fix. A sender without the secret
    /// cannot make a refusal a 5xx; at most four readings are hashed, so a request built to
    /// look misnamed costs at most four HMACs.
    ///
    /// # Examples
    ///
    /// ```
    /// use cryptopay_verify::{read_delivery_headers, sign_webhook, Secret, SecretSet, SignatureEncoding, Verifier, VerifyOptions};
    /// let verifier = Verifier::new(SecretSet::single(Secret::new("whsec_test_secret"))?, VerifyOptions::new(300));
    /// let signature = sign_webhook(&Secret::new("whsec_test_secret"), b"1700000000", b"{}", SignatureEncoding::Hex)?;
    /// // The service sends X-Webhook-Signature; this receiver was set up with X-Signature.
    /// let headers = [("X-Webhook-Timestamp", "1700000000"), ("X-Webhook-Signature", signature.as_str())];
    /// let pairs = || headers.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    /// let refused = read_delivery_headers(pairs(), "X-Webhook-Timestamp", "X-Signature").unwrap_err();
    /// assert_eq!(refused.code(), "signature_missing");
    ///
    /// let names = verifier.misnamed_headers(pairs(), "X-Webhook-Timestamp", "X-Signature", b"{}", 1_700_000_010);
    /// let names = names.expect("verifies with x-webhook-signature");
    /// assert_eq!(names.signature_header.as_deref(), Some("x-webhook-signature"));
    /// // Answer 500 (retried once fixed) and log what to set:
    /// eprintln!("refused a delivery (500): {refused}; {names}");
    ///
    /// // A forgery under the same names says nothing: answer it 400.
    /// let forged = [("X-Webhook-Timestamp", "1700000000"), ("X-Webhook-Signature", "v1=00")];
    /// let pairs = forged.iter().map(|(n, v)| (n.as_bytes(), v.as_bytes()));
    /// assert_eq!(verifier.misnamed_headers(pairs, "X-Webhook-Timestamp", "X-Signature", b"{}", 1_700_000_010), None);
    /// # Ok::<(), cryptopay_verify::Error>(())
    /// ```
    ///
    /// An `http::HeaderMap` (axum, hyper 1) gives its pairs as
    /// `headers.iter().map(|(n, v)| (n.as_str().as_bytes(), v.as_bytes()))`.
    #[must_use]
    pub fn misnamed_headers<'a, I>(
        &self,
        headers: I,
        timestamp_header: &str,
        signature_header: &str,
        body: &[u8],
        now_secs: u64,
    ) -> Option<MisnamedHeaders>
    where
        I: IntoIterator<Item = (&'a [u8], &'a [u8])>,
    {
        validate_header_names(timestamp_header, signature_header).ok()?;
        let pairs: Vec<(&'a [u8], &'a [u8])> = headers.into_iter().collect();
        let carried: BTreeSet<String> = pairs
            .iter()
            .filter_map(|(name, _)| core::str::from_utf8(name).ok())
            .map(str::to_ascii_lowercase)
            .collect();
        let has = |name: &str| carried.contains(&name.to_ascii_lowercase());
        let likely =
            |timestamp: bool| near_misses(&carried, timestamp_header, signature_header, timestamp);
        let readings: Vec<MisnamedHeaders> = match (has(timestamp_header), has(signature_header)) {
            // Neither came: the 2 by 2 pairs (a reading of one alone lacks the other).
            (false, false) => {
                let signatures = likely(false);
                likely(true)
                    .into_iter()
                    .take(2)
                    .flat_map(|timestamp| {
                        signatures
                            .iter()
                            .take(2)
                            .map(move |signature| MisnamedHeaders {
                                timestamp_header: Some(timestamp.clone()),
                                signature_header: Some(signature.clone()),
                            })
                    })
                    .collect()
            }
            (false, true) => likely(true)
                .into_iter()
                .take(MAX_READINGS)
                .map(|name| MisnamedHeaders {
                    timestamp_header: Some(name),
                    signature_header: None,
                })
                .collect(),
            (true, false) => likely(false)
                .into_iter()
                .take(MAX_READINGS)
                .map(|name| MisnamedHeaders {
                    timestamp_header: None,
                    signature_header: Some(name),
                })
                .collect(),
            (true, true) => Vec::new(),
        };
        readings.into_iter().find(|renamed| {
            let timestamp = renamed
                .timestamp_header
                .as_deref()
                .unwrap_or(timestamp_header);
            let signature = renamed
                .signature_header
                .as_deref()
                .unwrap_or(signature_header);
            read_delivery_headers(pairs.iter().copied(), timestamp, signature).is_ok_and(|found| {
                self.verify_signature(&found.with_body(body), now_secs)
                    .is_ok()
            })
        })
    }
}

/// The names in `carried` (lower-case) that say they are the missing timestamp header
/// (`timestamp`), else the missing signature header: neither configured name, and not a
/// proxy's own (`x-envoy-*`, `x-amzn-*`, `x-forwarded-*`, a timeout).
fn near_misses(
    carried: &BTreeSet<String>,
    timestamp_header: &str,
    signature_header: &str,
    timestamp: bool,
) -> Vec<String> {
    let (word, short) = if timestamp {
        ("timestamp", "ts")
    } else {
        ("signature", "sig")
    };
    carried
        .iter()
        .filter(|name| {
            !name.eq_ignore_ascii_case(timestamp_header)
                && !name.eq_ignore_ascii_case(signature_header)
                && (name.contains(word) || name.split('-').any(|part| part == short))
                && !["x-envoy-", "x-amzn-", "x-forwarded-"]
                    .iter()
                    .any(|proxy| name.starts_with(proxy))
                && !name.contains("timeout")
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
