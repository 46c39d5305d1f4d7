//! The verifying exports, on every request's path. wasm-bindgen marshals the arguments (the
//! body as `&[u8]`, the header values as `&str`); the answer is one small integer, an
//! outcome or a failure numbered in [`FAILURES`], so that no error object and no message is
//! built here for a delivery: JavaScript builds the `CryptoPayError` from the number, with the
//! code and message it asked once for each failure ([`failure_code`], [`failure_message`],
//! [`failure_receiver_fault`]).

use core::cell::RefCell;

use wasm_bindgen::prelude::*;

use super::{JsResult, js, messages, uint};
use cryptopay_verify::dangerous::{verify_signature_with_inner_hashes, verify_signature_with_tags};
use cryptopay_verify::{
    Delivery, Error, ErrorKind, Secret, SecretEntry, SecretKind, SecretSet, Verified, Verifier,
    VerifyOptions,
};

thread_local! {
    /// Every distinct failure `verify` has answered, numbered in the order first seen. An
    /// [`Error`] is a kind and a static detail, so the list is bounded by the failures the
    /// core can name (a few dozen), whatever the input.
    static FAILURES: RefCell<Vec<Error>> = const { RefCell::new(Vec::new()) };
}

/// What `verify` answers for an authentic delivery: the index of the matched secret's kind
/// in [`SecretKind::ALL`] (`active` 0, `pending` 1, `retiring` 2), plus the event's
/// [`event_flags`](super::event::event_flags) when it was checked as an event.
fn outcome(verified: &Verified, event_flags: u8) -> Result<i32, Error> {
    let kind = SecretKind::ALL
        .iter()
        .position(|kind| *kind == verified.matched_secret)
        .and_then(|index| i32::try_from(index).ok())
        .ok_or(Error::with_detail(
            ErrorKind::InvalidArgument,
            "the core reported a secret kind this binding does not know",
        ))?;
    Ok(kind | i32::from(event_flags))
}

/// A failure as `-1 - n`, `n` its number in [`FAILURES`].
fn failure(error: Error) -> i32 {
    let index = FAILURES.with_borrow_mut(|seen| {
        seen.iter().position(|e| *e == error).unwrap_or_else(|| {
            seen.push(error);
            seen.len().saturating_sub(1)
        })
    });
    0_i32
        .saturating_sub(i32::try_from(index).unwrap_or(i32::MAX))
        .saturating_sub(1)
}

fn numbered(n: u32) -> Error {
    FAILURES.with_borrow(|seen| {
        usize::try_from(n)
            .ok()
            .and_then(|n| seen.get(n).copied())
            .unwrap_or(Error::new(ErrorKind::InvalidArgument))
    })
}

/// The code of failure `n` (`verify` answered `-1 - n`).
#[wasm_bindgen(js_name = failureCode)]
pub fn failure_code(n: u32) -> String {
    numbered(n).code().to_owned()
}

/// The message (worded for JavaScript) of failure `n` (`verify` answered `-1 - n`).
#[wasm_bindgen(js_name = failureMessage)]
pub fn failure_message(n: u32) -> String {
    messages::message(&numbered(n))
}

/// Whether failure `n` is the receiver's own (`Error::is_receiver_fault`: answered 5xx, which
/// the service retries, not a final 400).
#[wasm_bindgen(js_name = failureReceiverFault)]
pub fn failure_receiver_fault(n: u32) -> bool {
    numbered(n).is_receiver_fault()
}

/// The entries of a secret set from parallel lists; each secret is moved, not copied.
/// `until` is -1 where an entry has no `acceptUntilSecs`; any other value must be a safe
/// integer >= 0 (JavaScript passes NaN for a value of the wrong type). Lists of different
/// lengths are refused, never paired short.
fn entries(
    secrets: Vec<String>,
    kinds: Vec<String>,
    until: Vec<f64>,
) -> Result<Vec<SecretEntry>, Error> {
    if kinds.len() != secrets.len() || until.len() != secrets.len() {
        return Err(Error::with_detail(
            ErrorKind::InvalidArgument,
            "the secrets, their kinds and their acceptUntilSecs must be lists of one length",
        ));
    }
    secrets
        .into_iter()
        .zip(kinds)
        .zip(until)
        .map(|((secret, kind), until)| {
            #[allow(clippy::float_cmp)] // -1 is the exact marker JavaScript sends
            let until = if until == -1.0 {
                None
            } else {
                Some(uint(
                    until,
                    "accept_until_secs must be a safe integer >= 0",
                )?)
            };
            SecretEntry::new(Secret::from(secret), SecretKind::parse(&kind)?, until)
        })
        .collect()
}

/// The options, checked by the core (`max_body_bytes` as given, JavaScript having put in the
/// default where the option was left out).
fn options(max_skew_secs: f64, max_body_bytes: f64) -> Result<VerifyOptions, Error> {
    let skew = uint(max_skew_secs, "max_skew_secs must be a safe integer >= 0")?;
    // A value that is no integer >= 0 is out of range as usize::MAX is: the core's own error
    // (one message for the range, the core's).
    let body =
        uint(max_body_bytes, "").map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
    VerifyOptions::new(skew).with_max_body_bytes(body)
}

/// The keyed set, or (for a one-shot call) the failure its material gave, reported after
/// the delivery's own checks as the contract orders them.
#[derive(Debug)]
enum Keyed {
    Ready(Verifier),
    Deferred(VerifyOptions, Error),
}

/// A verifier keyed once; freed (and its keyed states wiped) by `free()` or the
/// FinalizationRegistry.
#[wasm_bindgen(js_name = RawVerifier)]
#[derive(Debug)]
pub struct RawVerifier {
    keyed: Keyed,
}

#[wasm_bindgen(js_class = RawVerifier)]
impl RawVerifier {
    /// Checks the options, then keys the set. With `defer_material` (the one-shot functions,
    /// which get their secrets with the delivery), `no_secrets` and `secret_empty` are kept
    /// and reported by `verify` after the delivery's own checks; every other failure throws.
    #[wasm_bindgen(constructor)]
    pub fn new(
        secrets: Vec<String>,
        kinds: Vec<String>,
        until: Vec<f64>,
        max_skew_secs: f64,
        max_body_bytes: f64,
        defer_material: bool,
    ) -> JsResult<RawVerifier> {
        let options = js(options(max_skew_secs, max_body_bytes))?;
        let keyed = match entries(secrets, kinds, until).and_then(SecretSet::new) {
            Ok(set) => Keyed::Ready(Verifier::new(set, options)),
            Err(e)
                if defer_material
                    && matches!(e.kind(), ErrorKind::NoSecrets | ErrorKind::SecretEmpty) =>
            {
                Keyed::Deferred(options, e)
            }
            Err(e) => return Err(super::to_js(e)),
        };
        Ok(RawVerifier { keyed })
    }

    /// Verifies a delivery whose body JavaScript found raw and within `maxBodyBytes`: the
    /// [outcome](outcome) (with `parse`, after the envelope's checks), or `-1 - n` for
    /// failure `n` (see [`failure_code`], [`failure_message`]).
    pub fn verify(
        &self,
        body: &[u8],
        timestamp: &str,
        signature: &str,
        now_secs: f64,
        parse: bool,
    ) -> i32 {
        let delivery = header_delivery(timestamp, signature, body);
        self.decide(&delivery, now_secs, parse, body, |verifier, now| {
            verifier.verify_signature(&delivery, now)
        })
    }

    /// As [`verify`](Self::verify), with the delivery's HMAC computed by the host: `tags`
    /// holds 32 bytes per entry of the set, in the order the set was given, each the HMAC
    /// of the timestamp, `.` and the body, or with `inner` its inner hash (which the core
    /// finishes: see `dangerous::verify_signature_with_inner_hashes`). The headers are still
    /// read first, so that a malformed delivery is refused with its own code; only the
    /// hashing has moved. JavaScript checked the body's size; `body` is read only with
    /// `parse`.
    #[wasm_bindgen(js_name = verifyTags)]
    #[allow(clippy::too_many_arguments)] // one crossing per delivery: everything it decides from
    pub fn verify_tags(
        &self,
        timestamp: &str,
        signature: &str,
        now_secs: f64,
        parse: bool,
        body: &[u8],
        tags: &[u8],
        inner: bool,
    ) -> i32 {
        let delivery = header_delivery(timestamp, signature, b"");
        self.decide(&delivery, now_secs, parse, body, |verifier, now| {
            if inner {
                verify_signature_with_inner_hashes(verifier, &delivery, tags, now)
            } else {
                verify_signature_with_tags(verifier, &delivery, tags, now)
            }
        })
    }
}

impl RawVerifier {
    /// What [`verify`](Self::verify) and [`verify_tags`](Self::verify_tags) share: `now`
    /// read, the delivery verified by `verified` (or, for a set reported late, its checks and
    /// then the set's error), the envelope checked with `parse`, the answer as a number.
    fn decide(
        &self,
        delivery: &Delivery<'_>,
        now_secs: f64,
        parse: bool,
        body: &[u8],
        verified: impl FnOnce(&Verifier, u64) -> Result<Verified, Error>,
    ) -> i32 {
        let result = uint(now_secs, "now_secs must be a safe integer >= 0").and_then(|now| {
            let verified = match &self.keyed {
                Keyed::Ready(verifier) => verified(verifier, now)?,
                Keyed::Deferred(options, material) => {
                    delivery.check(options)?;
                    return Err(*material);
                }
            };
            let flags = if parse {
                super::event::event_flags(body)?
            } else {
                0
            };
            outcome(&verified, flags)
        });
        result.unwrap_or_else(failure)
    }
}

fn header_delivery<'a>(timestamp: &'a str, signature: &'a str, body: &'a [u8]) -> Delivery<'a> {
    Delivery {
        body,
        timestamp: timestamp.as_bytes(),
        signature: signature.as_bytes(),
    }
}
