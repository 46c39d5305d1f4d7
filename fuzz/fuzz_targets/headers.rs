//! Finding the delivery headers: `read_delivery_headers` on arbitrary header names and
//! `(name, value)` pairs, against an independent count of case-insensitive matches (a
//! repeated header is refused, never guessed at, and a name no header can have is refused
//! as configuration), in the documented order of checks.
//!
//! Input, one field per line: the timestamp header's name, the signature header's name,
//! then names and values alternately.
#![no_main]

use cryptopay_verify::{ErrorKind, read_delivery_headers};
use cryptopay_verify_fuzz::{Fields, checked};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let timestamp_name = fields.text();
    let signature_name = fields.text();
    let mut pairs: Vec<(&[u8], &[u8])> = Vec::new();
    while fields.has_more() {
        pairs.push((fields.line(), fields.line()));
    }

    let result = checked(
        read_delivery_headers(pairs.iter().copied(), &timestamp_name, &signature_name),
        &[
            ErrorKind::InvalidArgument,
            ErrorKind::HeaderDuplicated,
            ErrorKind::TimestampMissing,
            ErrorKind::SignatureMissing,
        ],
    );

    let values = |name: &str| -> Vec<&[u8]> {
        pairs
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| *v)
            .collect()
    };
    // RFC 9110's token, written as its grammar lists tchar.
    let is_name = |name: &str| {
        !name.is_empty()
            && name.chars().all(|c| {
                matches!(c, 'A'..='Z' | 'a'..='z' | '0'..='9'
                    | '!' | '#' | '$' | '%' | '&' | '\'' | '*' | '+' | '-' | '.' | '^' | '_' | '`' | '|' | '~')
            })
    };
    let expected = if !is_name(&timestamp_name)
        || !is_name(&signature_name)
        || timestamp_name.eq_ignore_ascii_case(&signature_name)
    {
        Err(ErrorKind::InvalidArgument)
    } else {
        let ts = values(&timestamp_name);
        let sig = values(&signature_name);
        match (ts.as_slice(), sig.as_slice()) {
            (t, _) if t.len() > 1 => Err(ErrorKind::HeaderDuplicated),
            ([], _) => Err(ErrorKind::TimestampMissing),
            (_, s) if s.len() > 1 => Err(ErrorKind::HeaderDuplicated),
            (_, []) => Err(ErrorKind::SignatureMissing),
            ([t], [s]) => Ok((t.to_vec(), s.to_vec())),
            _ => unreachable!(),
        }
    };
    assert_eq!(
        result
            .map(|h| (h.timestamp.to_vec(), h.signature.to_vec()))
            .map_err(|e| e.kind()),
        expected
    );
});
