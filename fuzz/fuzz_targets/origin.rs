//! Checkout origins, webhook URLs and the Hosted Checkout address:
//! `validate_checkout_origin`, `validate_webhook_url` and `hosted_checkout_url` on
//! arbitrary text. No panic; only documented codes; a valid origin is accepted against
//! itself (in any letter case) as website origin, and the relation is symmetric; an
//! invalid website origin is `invalid_argument`; the Hosted Checkout URL is the canonical
//! origin (itself valid and the same origin) plus the payment id percent-encoded
//! losslessly; an accepted webhook URL has a valid checkout origin for its scheme and
//! authority, is under no special-use name (`.local`, `.internal`...), and gains `webhook_url_query` / `webhook_url_fragment` when `?` / `#` is
//! appended.
//!
//! Input, one field per line: origin, website origin (an empty line: none), webhook URL,
//! then the payment id (the rest).
#![no_main]

use cryptopay_verify::{
    ErrorKind, MAX_WEBHOOK_URL_BYTES, hosted_checkout_url, validate_checkout_origin,
    validate_webhook_url,
};
use cryptopay_verify_fuzz::{Fields, checked, percent_decode};
use libfuzzer_sys::fuzz_target;

const ORIGIN_CODES: &[ErrorKind] = &[
    ErrorKind::OriginInvalid,
    ErrorKind::OriginNotHttps,
    ErrorKind::OriginNotPermitted,
    ErrorKind::InvalidArgument,
];

const URL_CODES: &[ErrorKind] = &[
    ErrorKind::WebhookUrlMalformed,
    ErrorKind::WebhookUrlNotHttps,
    ErrorKind::WebhookUrlCredentials,
    ErrorKind::WebhookUrlIpLiteral,
    ErrorKind::WebhookUrlNotRegisteredDomain,
    ErrorKind::WebhookUrlPort,
    ErrorKind::WebhookUrlQuery,
    ErrorKind::WebhookUrlFragment,
];

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn check_origin(origin: &str, website: Option<&str>, payment_id: &str) {
    let alone = checked(validate_checkout_origin(origin, None), ORIGIN_CODES);
    if let Err(e) = &alone {
        assert_ne!(e.kind(), ErrorKind::OriginNotPermitted);
        assert_ne!(e.kind(), ErrorKind::InvalidArgument);
    }
    let valid = alone.is_ok();
    if valid {
        assert!(origin.len() > 8 && origin[..8].eq_ignore_ascii_case("https://"));
        assert_eq!(validate_checkout_origin(origin, Some(origin)), Ok(()));
        let upper = origin.to_ascii_uppercase();
        assert_eq!(validate_checkout_origin(&upper, Some(origin)), Ok(()));
        assert_eq!(validate_checkout_origin(origin, Some(&upper)), Ok(()));
    }

    if let Some(website) = website {
        let result = checked(
            validate_checkout_origin(origin, Some(website)),
            ORIGIN_CODES,
        );
        let website_valid = validate_checkout_origin(website, None).is_ok();
        if !website_valid {
            assert_eq!(
                result.map_err(|e| e.kind()),
                Err(ErrorKind::InvalidArgument)
            );
        } else if !valid {
            assert_eq!(result, alone);
        } else {
            // Same origin is symmetric.
            let reverse = validate_checkout_origin(website, Some(origin));
            assert_eq!(result.is_ok(), reverse.is_ok(), "{origin:?} vs {website:?}");
            if let Err(e) = result {
                assert_eq!(e.kind(), ErrorKind::OriginNotPermitted);
            }
        }
    }

    let hosted = checked(
        hosted_checkout_url(origin, payment_id),
        &[
            ErrorKind::OriginInvalid,
            ErrorKind::OriginNotHttps,
            ErrorKind::InvalidArgument,
        ],
    );
    match hosted {
        Ok(url) => {
            assert!(valid && !payment_id.is_empty());
            let (canonical, encoded) = url.split_once("/#payment_id=").expect("the shape");
            assert!(canonical.starts_with("https://"));
            assert_eq!(canonical, canonical.to_ascii_lowercase());
            assert!(!canonical.ends_with(":443"));
            assert_eq!(validate_checkout_origin(canonical, Some(origin)), Ok(()));
            assert!(
                encoded.bytes().all(|b| is_unreserved(b) || b == b'%'),
                "{encoded:?}"
            );
            assert_eq!(
                percent_decode(encoded).as_deref(),
                Some(payment_id.as_bytes())
            );
        }
        Err(e) if e.kind() == ErrorKind::InvalidArgument => {
            assert!(valid && payment_id.is_empty());
        }
        Err(e) => assert_eq!(alone.err().map(|a| a.kind()), Some(e.kind())),
    }
}

fn check_webhook_url(url: &str) {
    let result = checked(validate_webhook_url(url), URL_CODES);
    if url.len() > MAX_WEBHOOK_URL_BYTES {
        assert_eq!(
            result.map_err(|e| e.kind()),
            Err(ErrorKind::WebhookUrlMalformed)
        );
        return;
    }
    let Ok(()) = result else {
        return;
    };
    assert!(url.len() > 8 && url[..8].eq_ignore_ascii_case("https://"));
    assert!(!url.contains(['?', '#', '\\', ' ']));
    let rest = &url[8..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    assert!(!authority.contains('@'));
    // Never a special-use name (RFC 6761 and after): the last label, or home.arpa.
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host)
        .trim_end_matches('.')
        .to_ascii_lowercase();
    let labels: Vec<&str> = host.rsplit('.').collect();
    assert!(
        !matches!(
            labels.first().copied(),
            Some("localhost" | "test" | "invalid" | "local" | "onion" | "alt" | "internal")
        ) && labels.get(..2) != Some(&["arpa", "home"][..]),
        "{url:?}: a special-use name accepted"
    );
    let origin = format!("https://{authority}");
    assert_eq!(
        validate_checkout_origin(&origin, None),
        Ok(()),
        "{url:?} is a valid webhook URL but {origin:?} is no valid origin"
    );
    if url.len() < MAX_WEBHOOK_URL_BYTES {
        let query = validate_webhook_url(&format!("{url}?"));
        assert_eq!(query.map_err(|e| e.kind()), Err(ErrorKind::WebhookUrlQuery));
        let fragment = validate_webhook_url(&format!("{url}#"));
        assert_eq!(
            fragment.map_err(|e| e.kind()),
            Err(ErrorKind::WebhookUrlFragment)
        );
    }
    // The same URL in capitals is still accepted (scheme and host are case-insensitive;
    // the path's case is the receiver's business but never makes it invalid).
    assert_eq!(
        validate_webhook_url(&url.to_ascii_uppercase()),
        Ok(()),
        "accepted in lowercase, refused in capitals: {url:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let mut fields = Fields::new(data);
    let origin = fields.text();
    let website = Some(fields.text()).filter(|w| !w.is_empty());
    let url = fields.text();
    let payment_id = String::from_utf8_lossy(fields.rest()).into_owned();

    check_origin(&origin, website.as_deref(), &payment_id);
    check_webhook_url(&url);
    // Each field also serves as the other kind of input.
    check_webhook_url(&origin);
    check_origin(&url, None, "pay_1");
});
