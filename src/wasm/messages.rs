//! The core's messages worded for JavaScript: the package's own names for options and
//! functions (`maxSkewSecs`, `toAmountRaw`) in place of the core's Rust names, and the
//! framework hints for a body that is not raw. Codes never change.

use crate::error::{Error, ErrorKind};

/// The core's Rust names and the JavaScript package's names for the same things. Only whole
/// words are replaced, so the wire's own snake_case names (`amount_raw`, `source_amount`,
/// `pricing_ref`) stay as the service spells them.
const JS_NAMES: &[(&str, &str)] = &[
    ("max_skew_secs", "maxSkewSecs"),
    ("now_secs", "nowSecs"),
    ("max_body_bytes", "maxBodyBytes"),
    ("accept_until_secs", "acceptUntilSecs"),
    ("timestamp_header", "timestampHeader"),
    ("signature_header", "signatureHeader"),
    ("website_origin", "websiteOrigin"),
    ("to_amount_raw", "toAmountRaw"),
    ("from_amount_raw", "fromAmountRaw"),
    ("build_source_amount", "buildSourceAmount"),
];

/// What JavaScript users are told when the body is not raw bytes: the types the package
/// takes, and how each framework gives the raw body.
const BODY_NOT_RAW: &str = "the body is not the raw request bytes: a parsed or re-serialized JSON body can never verify; pass the raw body as a Uint8Array, ArrayBuffer, Buffer or string (Express: express.raw({ type: 'application/json' }); Fastify: a raw-body content-type parser; NestJS: NestFactory.create(AppModule, { rawBody: true }), then req.rawBody; Next.js and Hono: await request.arrayBuffer(); a Next.js Pages Router API route: export const config = { api: { bodyParser: false } }; hapi: a route with options: { payload: { parse: false } }, then request.payload; Nitro 2 and Nuxt (h3 v1): receiver.fetch(toWebRequest(event)), or readRawBody(event, false); Nitro 3 (h3 v2): receiver.fetch(event.req); Workers: await request.arrayBuffer())";

/// `text` with every Rust name of [`JS_NAMES`] (as a whole word) in its JavaScript form.
fn javascript(text: &str) -> String {
    fn flush(out: &mut String, word: &mut String) {
        let name = JS_NAMES
            .iter()
            .find(|(rust, _)| *rust == word.as_str())
            .map_or(word.as_str(), |(_, js)| js);
        out.push_str(name);
        word.clear();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut out, &mut word);
            out.push(c);
        }
    }
    flush(&mut out, &mut word);
    out
}

/// The general message of a kind, for JavaScript.
pub(super) fn general(kind: ErrorKind) -> String {
    match kind {
        ErrorKind::BodyNotRaw => BODY_NOT_RAW.to_owned(),
        other => javascript(other.message()),
    }
}

/// An error's whole message, for JavaScript: `code: detail; general` as the core writes it.
pub(super) fn message(error: &Error) -> String {
    compose(error.kind(), error.detail().map(javascript).as_deref())
}

/// `code: detail; general`, or `code: general` without a detail (already worded for
/// JavaScript): the one format of every message the package gives.
pub(super) fn compose(kind: ErrorKind, detail: Option<&str>) -> String {
    let general = general(kind);
    match detail {
        Some(detail) => format!("{}: {detail}; {general}", kind.code()),
        None => format!("{}: {general}", kind.code()),
    }
}
