//! The core's remedies (`ErrorKind::help`) worded for JavaScript: the package's own names for
//! options and functions (`maxSkewSecs`, `toAmountRaw`) in place of the core's Rust names.
//! Codes never change. Framework hints are the JavaScript layer's (`npm/src/api/hints.mjs`).

use cryptopay_verify::{Error, ErrorKind};

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

/// The general message of a kind, for JavaScript: its remedy.
pub(super) fn general(kind: ErrorKind) -> String {
    javascript(kind.help())
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
