//! Origins and URLs (spec: Payment `checkout_origin`, Webhook endpoint binding `url`,
//! Checkout surfaces, Limits): the checkout origin, the webhook URL rules, each with its
//! own code, and the Hosted Checkout address.
//!
//! Only a strict ASCII subset of URL syntax is accepted: hosts must be given in their
//! ASCII (`xn--`) form, so a look-alike Unicode host can never pass as another.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::error::{Error, ErrorKind, err};

/// The longest webhook URL accepted, in bytes.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::{validate_webhook_url, MAX_WEBHOOK_URL_BYTES};
/// let base = "https://hooks.shop.example/";
/// let longest = format!("{base}{}", "a".repeat(MAX_WEBHOOK_URL_BYTES - base.len()));
/// assert!(validate_webhook_url(&longest).is_ok());
/// let over = format!("{longest}a");
/// assert_eq!(validate_webhook_url(&over).unwrap_err().code(), "webhook_url_malformed");
/// ```
pub const MAX_WEBHOOK_URL_BYTES: usize = 2048;
/// The detail of a URL over [`MAX_WEBHOOK_URL_BYTES`] (the number pinned by a test).
pub(crate) const WEBHOOK_URL_TOO_LONG: &str = "the URL is longer than 2048 bytes";

const MAX_HOST_BYTES: usize = 253;
const MAX_LABEL_BYTES: usize = 63;

/// Everything but `A-Z a-z 0-9 - . _ ~` is percent-encoded in a payment id.
const FRAGMENT_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The host of an authority.
#[derive(Debug, PartialEq, Eq)]
enum Host {
    /// A name of letters, digits and hyphens, lowercased.
    Name(String),
    /// A dotted-quad IPv4 address, without a trailing dot.
    Ipv4(String),
    /// A bracketed IPv6 address, lowercased, brackets included.
    Ipv6(String),
    /// A host that a URL parser would read as an IPv4 number (`2130706433`, `0x7f.1`).
    NumericOther,
}

/// `scheme:` at the start of `url`, if any, and what follows it.
fn split_scheme(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (first_ok && rest_ok).then_some((scheme, rest))
}

fn is_ldh_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= MAX_LABEL_BYTES
        && !label.starts_with('-')
        && !label.ends_with('-')
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn is_numeric_label(label: &str) -> bool {
    let hex = label
        .strip_prefix("0x")
        .or_else(|| label.strip_prefix("0X"));
    match hex {
        Some(digits) => digits.bytes().all(|b| b.is_ascii_hexdigit()),
        None => !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit()),
    }
}

fn is_dotted_quad(host: &str) -> bool {
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

/// Reads a host; `None` when it is not a valid host at all.
fn parse_host(host: &str) -> Option<Host> {
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return is_ipv6(inner).then(|| Host::Ipv6(host.to_ascii_lowercase()));
    }
    if host.is_empty() || host.len() > MAX_HOST_BYTES {
        return None;
    }
    let bare = host.strip_suffix('.').unwrap_or(host);
    let labels: Vec<&str> = bare.split('.').collect();
    if labels.last().is_some_and(|l| is_numeric_label(l)) {
        if is_dotted_quad(bare) {
            // A browser drops an IPv4 address's trailing dot (a name keeps its own).
            return Some(Host::Ipv4(bare.to_owned()));
        }
        return labels
            .iter()
            .all(|l| is_numeric_label(l))
            .then_some(Host::NumericOther);
    }
    labels
        .iter()
        .all(|l| is_ldh_label(l))
        .then(|| Host::Name(host.to_ascii_lowercase()))
}

/// Whether `text` (inside the brackets) is an IPv6 address: groups of one to four hex digits
/// separated by `:`, eight of them, or fewer around one `::`; the last two may be a dotted
/// quad (`::ffff:1.2.3.4`). Checked for its shape only: no zone id, and the address is kept
/// as written (lowercased), not in a browser's shortest form.
fn is_ipv6(text: &str) -> bool {
    // How many 16-bit groups a run of `:`-separated groups holds; None when one is no group.
    fn groups(run: &str, quad_allowed: bool) -> Option<usize> {
        if run.is_empty() {
            return Some(0);
        }
        let mut count: usize = 0;
        let mut parts = run.split(':').peekable();
        while let Some(part) = parts.next() {
            let last = parts.peek().is_none();
            let width = if last && quad_allowed && part.bytes().any(|b| b == b'.') {
                is_dotted_quad(part).then_some(2)?
            } else {
                ((1..=4).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_hexdigit()))
                    .then_some(1)?
            };
            count = count.checked_add(width)?;
        }
        Some(count)
    }
    // The place of a `::` (found by bytes: a substring search would add kilobytes to the wasm).
    let double = |run: &str| run.as_bytes().windows(2).position(|pair| pair == b"::");
    match double(text) {
        Some(at) => {
            let head = text.get(..at).unwrap_or_default();
            let tail = text.get(at.saturating_add(2)..).unwrap_or_default();
            double(tail).is_none()
                && groups(head, false)
                    .zip(groups(tail, true))
                    .and_then(|(h, t)| h.checked_add(t))
                    .is_some_and(|n| n <= 7)
        }
        None => groups(text, true) == Some(8),
    }
}

/// Splits `host[:port]`; the port must be 1 to 65535 written with 1 to 5 digits.
fn split_port(authority: &str) -> Option<(&str, Option<u16>)> {
    let port_start = match authority.rfind(']') {
        Some(close) => authority
            .get(close..)?
            .find(':')
            .map(|i| close.saturating_add(i)),
        None => authority.rfind(':'),
    };
    let Some(colon) = port_start else {
        return Some((authority, None));
    };
    let host = authority.get(..colon)?;
    let port = authority.get(colon.saturating_add(1)..)?;
    let valid = !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
    let number = port.parse::<u16>().ok().filter(|p| valid && *p != 0)?;
    Some((host, Some(number)))
}

/// A checked origin in canonical form: lowercase, `:443` dropped.
fn canonical_origin(origin: &str) -> Result<String, Error> {
    let invalid = |detail| err(ErrorKind::OriginInvalid, detail);
    if !origin.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid(
            "the origin holds a space, a control or a non-ASCII character (use the xn-- form of the host)",
        ));
    }
    let (scheme, rest) = split_scheme(origin).ok_or(invalid("the origin has no scheme"))?;
    if scheme.eq_ignore_ascii_case("http") {
        return Err(err(
            ErrorKind::OriginNotHttps,
            "http:// is refused, a local sandbox's too (there, open the created payment's checkout_url)",
        ));
    }
    if !scheme.eq_ignore_ascii_case("https") {
        return Err(Error::new(ErrorKind::OriginNotHttps));
    }
    let authority = rest
        .strip_prefix("//")
        .ok_or(invalid("the origin must start with https://"))?;
    if authority.contains(['/', '?', '#']) {
        return Err(invalid(
            "an origin has no path (not even a trailing /), query or fragment",
        ));
    }
    if authority.contains('@') {
        return Err(invalid("an origin has no user name or password"));
    }
    let (host, port) =
        split_port(authority).ok_or(invalid("the port is not a number from 1 to 65535"))?;
    let host = match parse_host(host) {
        Some(Host::Name(h) | Host::Ipv4(h) | Host::Ipv6(h)) => h,
        Some(Host::NumericOther) | None => {
            return Err(invalid(
                "the host is not a valid ASCII host name or IP address",
            ));
        }
    };
    Ok(match port {
        Some(p) if p != 443 => format!("https://{host}:{p}"),
        _ => format!("https://{host}"),
    })
}

/// Checks a `checkout_origin`: `https://host[:port]` and nothing else, and, when the
/// store's website origin is given, the same origin as it.
///
/// Origins compare as browsers compare them: the host case-insensitively and `:443` equal
/// to no port.
///
/// # Errors
///
/// `origin_invalid`, `origin_not_https`, `origin_not_permitted`; `invalid_argument` when
/// `website_origin` is not itself a valid origin.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::validate_checkout_origin;
/// assert!(validate_checkout_origin("HTTPS://Shop.Example:443", Some("https://shop.example")).is_ok());
/// assert_eq!(validate_checkout_origin("https://shop.example/", None).unwrap_err().code(), "origin_invalid");
/// assert_eq!(validate_checkout_origin("https://evil.example", Some("https://shop.example")).unwrap_err().code(), "origin_not_permitted");
/// ```
pub fn validate_checkout_origin(origin: &str, website_origin: Option<&str>) -> Result<(), Error> {
    let permitted = website_origin
        .map(|w| {
            canonical_origin(w).map_err(|_| {
                err(
                    ErrorKind::InvalidArgument,
                    "website_origin must itself be an https origin such as https://shop.example",
                )
            })
        })
        .transpose()?;
    let origin = canonical_origin(origin)?;
    match permitted {
        Some(p) if p != origin => Err(Error::new(ErrorKind::OriginNotPermitted)),
        _ => Ok(()),
    }
}

/// The special-use names no registrar delegates, so that no public receiver can have one
/// (RFC 6761 `localhost`, `test`, `invalid`; RFC 6762 `local`, mDNS; RFC 7686 `onion`;
/// RFC 8375 `home.arpa`; RFC 9476 `alt`; ICANN's `internal`), each with its subdomains.
/// `example` (RFC 2606) stays accepted: documents use it for a receiver's URL.
const SPECIAL_USE_NAMES: [&str; 8] = [
    "localhost",
    "test",
    "invalid",
    "local",
    "onion",
    "home.arpa",
    "alt",
    "internal",
];

/// Whether a lowercased host (no trailing dot) is a special-use name or under one.
fn never_registered(host: &str) -> bool {
    SPECIAL_USE_NAMES.iter().any(|name| {
        host.strip_suffix(name)
            .is_some_and(|head| head.is_empty() || head.ends_with('.'))
    })
}

/// Checks a webhook receiver URL against the service's rules: HTTPS, a registered domain
/// name, port 443, no credentials, no query string, no fragment. A host under a special-use
/// name (`.local`, `.internal`, `.test`, `.home.arpa`...) is no registered domain.
///
/// # Errors
///
/// In this order: `webhook_url_malformed`, `webhook_url_not_https`,
/// `webhook_url_credentials`, `webhook_url_malformed` (a port that is no number from 1 to
/// 65535), `webhook_url_ip_literal`, `webhook_url_not_registered_domain`,
/// `webhook_url_malformed` (bad labels), `webhook_url_port`, `webhook_url_query`,
/// `webhook_url_fragment`.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::validate_webhook_url;
/// assert!(validate_webhook_url("https://hooks.shop.example/cryptopay").is_ok());
/// assert_eq!(validate_webhook_url("https://127.0.0.1/hook").unwrap_err().code(), "webhook_url_ip_literal");
/// assert_eq!(validate_webhook_url("https://shop.example:8443/").unwrap_err().code(), "webhook_url_port");
/// ```
pub fn validate_webhook_url(url: &str) -> Result<(), Error> {
    let malformed = |detail| err(ErrorKind::WebhookUrlMalformed, detail);
    if url.len() > MAX_WEBHOOK_URL_BYTES {
        return Err(malformed(WEBHOOK_URL_TOO_LONG));
    }
    if !url.bytes().all(|b| b.is_ascii_graphic() && b != b'\\') {
        return Err(malformed(
            "the URL holds a space, a backslash, a control or a non-ASCII character (use the xn-- form of the host, percent-encode the path)",
        ));
    }
    let (scheme, rest) = split_scheme(url)
        .and_then(|(scheme, rest)| Some((scheme, rest.strip_prefix("//")?)))
        .ok_or(malformed("the URL does not start with scheme://"))?;
    if !scheme.eq_ignore_ascii_case("https") {
        return Err(Error::new(ErrorKind::WebhookUrlNotHttps));
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    if authority.contains('@') {
        return Err(Error::new(ErrorKind::WebhookUrlCredentials));
    }
    let (host, port) =
        split_port(authority).ok_or(malformed("the port is not a number from 1 to 65535"))?;
    let bare = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    match parse_host(host) {
        Some(Host::Ipv4(_) | Host::Ipv6(_) | Host::NumericOther) => {
            return Err(Error::new(ErrorKind::WebhookUrlIpLiteral));
        }
        _ if host.starts_with('[') => return Err(Error::new(ErrorKind::WebhookUrlIpLiteral)),
        _ if never_registered(&bare) => {
            return Err(Error::new(ErrorKind::WebhookUrlNotRegisteredDomain));
        }
        Some(Host::Name(_)) if !bare.contains('.') => {
            return Err(Error::new(ErrorKind::WebhookUrlNotRegisteredDomain));
        }
        Some(Host::Name(_)) => {}
        None => return Err(malformed("the host is not a valid ASCII domain name")),
    }
    if port.is_some_and(|p| p != 443) {
        return Err(Error::new(ErrorKind::WebhookUrlPort));
    }
    let before_fragment = tail.split('#').next().unwrap_or_default();
    if before_fragment.contains('?') {
        return Err(Error::new(ErrorKind::WebhookUrlQuery));
    }
    if tail.contains('#') {
        return Err(Error::new(ErrorKind::WebhookUrlFragment));
    }
    Ok(())
}

/// The Hosted Checkout address of a payment: `{origin}/#payment_id=<encoded id>`.
///
/// The origin is checked as a checkout origin and written in canonical form; the id is
/// percent-encoded (everything but `A-Z a-z 0-9 - . _ ~`).
///
/// # Errors
///
/// `origin_invalid`, `origin_not_https`; `invalid_argument` for an empty payment id.
///
/// # Examples
///
/// ```
/// use cryptopay_verify::hosted_checkout_url;
/// assert_eq!(
///     hosted_checkout_url("https://pay.example:443", "pay 1/2")?,
///     "https://pay.example/#payment_id=pay%201%2F2"
/// );
/// assert_eq!(hosted_checkout_url("https://pay.example", "").unwrap_err().code(), "invalid_argument");
/// # Ok::<(), cryptopay_verify::Error>(())
/// ```
pub fn hosted_checkout_url(checkout_origin: &str, payment_id: &str) -> Result<String, Error> {
    let origin = canonical_origin(checkout_origin)?;
    if payment_id.is_empty() {
        return Err(err(
            ErrorKind::InvalidArgument,
            "the payment id must be a non-empty string (the id the service returned)",
        ));
    }
    Ok(format!(
        "{origin}/#payment_id={}",
        utf8_percent_encode(payment_id, FRAGMENT_VALUE)
    ))
}

#[cfg(test)]
mod tests;
