//! The verifying exports, on every request's path: the delivery is written by JavaScript
//! into one reused input area, and the answer is one number (a failure as the index of its
//! kind), so that a verification allocates nothing and builds no error here.

use core::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

use super::{JsResult, js, messages, uint};
use crate::delivery::Delivery;
use crate::error::{Error, ErrorKind, err};
use crate::options::VerifyOptions;
use crate::secret::{Secret, SecretEntry, SecretKind};
use crate::secret_set::SecretSet;
use crate::verify::{Verified, Verifier, verify_signature};

thread_local! {
    /// Where JavaScript writes a delivery (timestamp value, signature value, body) for the
    /// verifying exports: one area reused by every call, so a verification allocates nothing
    /// and passes only numbers across the boundary.
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The failure of the last verifying export that returned a negative number.
    static LAST_ERROR: Cell<Option<Error>> = const { Cell::new(None) };
}

/// An input area larger than this is given back once a smaller delivery comes.
const KEEP_INPUT_AREA: usize = 1 << 20;

/// The input area, at least `len` bytes long: JavaScript writes the delivery there, then
/// calls a verifying export with the three lengths. The address stays valid until the next
/// call of `inputArea`.
#[wasm_bindgen(js_name = inputArea)]
pub fn input_area(len: usize) -> *mut u8 {
    INPUT.with_borrow_mut(|area| {
        if area.len() < len || (area.len() > KEEP_INPUT_AREA && len <= KEEP_INPUT_AREA) {
            // Give the old area back before taking the new one.
            *area = Vec::new();
            area.resize(len, 0);
        }
        area.as_mut_ptr()
    })
}

/// The delivery JavaScript wrote into the input area: the timestamp value, the signature
/// value and the body, one after the other, with the lengths it reported.
fn with_delivery<T>(
    lens: [usize; 3],
    f: impl FnOnce(&Delivery<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    INPUT.with_borrow(|area| {
        let [body_len, timestamp_len, signature_len] = lens;
        let outside = || {
            err(
                ErrorKind::InvalidArgument,
                "the lengths given exceed the input area",
            )
        };
        let (timestamp, rest) = area.split_at_checked(timestamp_len).ok_or_else(outside)?;
        let (signature, rest) = rest.split_at_checked(signature_len).ok_or_else(outside)?;
        let body = rest.get(..body_len).ok_or_else(outside)?;
        f(&Delivery {
            body,
            timestamp,
            signature,
        })
    })
}

/// A verifying export's answer: the packed result (see `pack`), or, when it failed,
/// `-1 - index` of the error's kind in [`ErrorKind::ALL`], the error kept for
/// [`last_error_message`]. JavaScript then builds the `CryptoPayError` itself, which costs
/// a fraction of constructing it from here.
fn settle(result: Result<f64, Error>) -> f64 {
    result.unwrap_or_else(|error| {
        let index = ErrorKind::ALL
            .iter()
            .position(|k| *k == error.kind())
            .unwrap_or_default();
        LAST_ERROR.set(Some(error));
        #[allow(clippy::cast_precision_loss)] // fewer than 2^53 kinds
        let index = index as f64;
        -1.0 - index
    })
}

/// The message (worded for JavaScript) of the failure a verifying export reported by a
/// negative number.
#[wasm_bindgen(js_name = lastErrorMessage)]
pub fn last_error_message() -> String {
    LAST_ERROR
        .take()
        .map(|error| messages::message(&error))
        .unwrap_or_default()
}

/// What JavaScript found when it read the body, before copying it.
fn body_state(state: u8) -> Result<(), Error> {
    match state {
        BODY_RAW => Ok(()),
        BODY_OVERSIZED => Err(Error::new(ErrorKind::BodyTooLarge)),
        _ => Err(Error::new(ErrorKind::BodyNotRaw)),
    }
}

/// The body is raw bytes within the limit (and was passed).
const BODY_RAW: u8 = 0;
/// The body is over `maxBodyBytes` (and was not copied).
const BODY_OVERSIZED: u8 = 1;

/// The entries of a secret set from parallel lists; each secret is moved, not copied.
fn entries(
    secrets: Vec<String>,
    kinds: Vec<String>,
    until: Vec<f64>,
) -> Result<Vec<SecretEntry>, Error> {
    if secrets.len() != kinds.len() || secrets.len() != until.len() {
        return Err(err(
            ErrorKind::InvalidArgument,
            "secrets, kinds and bounds differ in length",
        ));
    }
    secrets
        .into_iter()
        .zip(kinds)
        .zip(until)
        .map(|((secret, kind), until)| {
            let until = if until < 0.0 {
                None
            } else {
                Some(uint(until, "acceptUntilSecs must be a safe integer >= 0")?)
            };
            SecretEntry::new(Secret::from(secret), SecretKind::parse(&kind)?, until)
        })
        .collect()
}

fn options(max_skew_secs: f64, max_body_bytes: f64) -> Result<VerifyOptions, Error> {
    let skew = uint(max_skew_secs, "maxSkewSecs must be a safe integer >= 0")?;
    let body = uint(
        max_body_bytes,
        "maxBodyBytes must be an integer from 1 to 67108864",
    )?;
    VerifyOptions::new(skew).with_max_body_bytes(usize::try_from(body).unwrap_or(usize::MAX))
}

fn kind_index(kind: SecretKind) -> f64 {
    match kind {
        SecretKind::Active => 0.0,
        SecretKind::Pending => 1.0,
        SecretKind::Retiring => 2.0,
    }
}

/// Packs a result into one number: `timestamp * 8 + rewrite * 4 + kind`, exact below 2^53.
///
/// `rewrite` says that the body holds numbers a double cannot keep, so JavaScript must
/// take the event from `eventText` instead of `JSON.parse` of the body.
fn pack(verified: Verified, rewrite: bool) -> f64 {
    // A timestamp has at most 12 digits, so timestamp * 8 < 2^43: exact in a double.
    #[allow(clippy::cast_precision_loss)]
    let ts = verified.timestamp as f64;
    ts * 8.0 + if rewrite { 4.0 } else { 0.0 } + kind_index(verified.matched_secret)
}

/// The part both verifying exports share, after the checks that come before it: the body's
/// state, `verify` over the delivery in the input area, the envelope when asked for.
fn verify_in_area(
    lens: [usize; 3],
    state: u8,
    parse: bool,
    verify: impl FnOnce(&Delivery<'_>) -> Result<Verified, Error>,
) -> Result<f64, Error> {
    body_state(state)?;
    with_delivery(lens, |delivery| {
        let verified = verify(delivery)?;
        let rewrite = if parse {
            super::event::check_event(delivery.body)?
        } else {
            false
        };
        Ok(pack(verified, rewrite))
    })
}

/// A verifier keyed once; freed (and its keyed states wiped) by `free()` or the
/// FinalizationRegistry.
#[wasm_bindgen(js_name = RawVerifier)]
#[derive(Debug)]
pub struct RawVerifier {
    inner: Verifier,
}

#[wasm_bindgen(js_class = RawVerifier)]
impl RawVerifier {
    /// Keys a verifier (`until` is -1 where a secret has no `acceptUntilSecs`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        secrets: Vec<String>,
        kinds: Vec<String>,
        until: Vec<f64>,
        max_skew_secs: f64,
        max_body_bytes: f64,
    ) -> JsResult<RawVerifier> {
        let options = js(options(max_skew_secs, max_body_bytes))?;
        let set = js(entries(secrets, kinds, until).and_then(SecretSet::new))?;
        Ok(RawVerifier {
            inner: Verifier::new(set, options),
        })
    }

    /// Verifies the delivery in the input area (`inputArea`), whose parts have these
    /// lengths; `state` is 0 for a raw body, 1 for one over the limit (not copied), 2 for a
    /// body that is not raw. Returns the packed result or a failure (see `settle`).
    #[wasm_bindgen(js_name = verifyArea)]
    pub fn verify_area(
        &self,
        body_len: usize,
        timestamp_len: usize,
        signature_len: usize,
        state: u8,
        now_secs: f64,
        parse: bool,
    ) -> f64 {
        settle(
            uint(now_secs, "nowSecs must be a safe integer >= 0").and_then(|now| {
                verify_in_area(
                    [body_len, timestamp_len, signature_len],
                    state,
                    parse,
                    |delivery| self.inner.verify_signature(delivery, now),
                )
            }),
        )
    }
}

/// One-shot verification with the contract's order of checks, of the delivery in the input
/// area (see [`RawVerifier::verify_area`]). Returns the packed result or a failure.
///
/// The set's shape is an argument and is checked first; its material (`no_secrets`,
/// `secret_empty`) comes after the delivery's own checks, as the contract orders them.
#[wasm_bindgen(js_name = verifyArea)]
#[allow(clippy::too_many_arguments)]
pub fn verify_area(
    secrets: Vec<String>,
    kinds: Vec<String>,
    until: Vec<f64>,
    max_skew_secs: f64,
    max_body_bytes: f64,
    body_len: usize,
    timestamp_len: usize,
    signature_len: usize,
    state: u8,
    now_secs: f64,
    parse: bool,
) -> f64 {
    settle((|| {
        let now = uint(now_secs, "nowSecs must be a safe integer >= 0")?;
        let options = options(max_skew_secs, max_body_bytes)?;
        let set = match entries(secrets, kinds, until).and_then(SecretSet::new) {
            Err(e) if !matches!(e.kind(), ErrorKind::NoSecrets | ErrorKind::SecretEmpty) => {
                return Err(e);
            }
            other => other,
        };
        verify_in_area(
            [body_len, timestamp_len, signature_len],
            state,
            parse,
            |delivery| match &set {
                Ok(set) => verify_signature(delivery, set, options, now),
                Err(material) => {
                    delivery.check(&options)?;
                    Err(*material)
                }
            },
        )
    })())
}
