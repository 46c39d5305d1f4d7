//! The merchant loop, as the npm receiver's `fulfil` runs it, with the same statements
//! (`sql/*.sql`) and the same core functions: a pass leases the payments whose applied facts
//! changed since they were last handled and the orders with no news for `RECOVER_AFTER_SECS`
//! (a delivery may be lost); for each, the authoritative view (`GET /v1/payments/{id}`, read
//! with `PaymentView::from_json`), the link to the order (`link_event`: a mismatch is held for
//! review, never fulfilled), the policy (`default_policy`), then the handler, here a line on
//! stdout saying what a shop would do. The version handled is stored only once the handler
//! returned, never lowered: a crash repeats a handler call, never skips one.

use std::sync::Arc;
use std::time::Duration;

use cryptopay_verify::{
    FulfilmentAction, Order, PaymentView, SourceAmount, StatusVersion, default_policy, link_event,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::store::{Completion, Lease, Leased, Store, Unavailable};

/// How long a lease holds (another instance takes a crashed one's work over after it).
const LEASE_SECS: i32 = 300;
const BATCH: i32 = 20;
/// The largest answer read from the service.
const MAX_ANSWER: usize = 1 << 20;
const TIMEOUT: Duration = Duration::from_secs(10);

/// The payment service's API, as far as fulfilment asks it: `GET /v1/payments/{id}` over plain
/// HTTP (a local service, or a TLS-terminating proxy on the same host; for `https://` give this
/// program an HTTP client with TLS, such as reqwest). The API key goes in the Authorization
/// header only, and is never printed.
pub struct Service {
    host: String,
    port: u16,
    authority: String,
    base_path: String,
    api_key: String,
}

impl Service {
    /// From `CRYPTOPAY_BASE_URL` (`http://host[:port][/path]`) and `CRYPTOPAY_API_KEY`.
    pub fn new(base_url: &str, api_key: String) -> Result<Service, String> {
        let rest = base_url.strip_prefix("http://").ok_or(
            "CRYPTOPAY_BASE_URL: this example speaks plain http:// (a local service or a proxy); for https:// add a TLS client",
        )?;
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        if authority.is_empty() || authority.contains('@') {
            return Err("CRYPTOPAY_BASE_URL: no host, or credentials in it".to_owned());
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !host.ends_with(']') || host.starts_with('[') => (
                host.trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
                port.parse::<u16>()
                    .map_err(|_| "CRYPTOPAY_BASE_URL: the port is not a number")?,
            ),
            _ => (authority.to_owned(), 80),
        };
        if api_key.is_empty() || api_key.bytes().any(|b| !(0x21..=0x7e).contains(&b)) {
            return Err(
                "CRYPTOPAY_API_KEY is empty or holds a character a header cannot carry".to_owned(),
            );
        }
        let base_path = format!("/{}", path.trim_end_matches('/'))
            .trim_end_matches('/')
            .to_owned();
        Ok(Service {
            host,
            port,
            authority: authority.to_owned(),
            base_path,
            api_key,
        })
    }

    /// The exact text of `GET /v1/payments/{payment_id}`'s answer, or why there is none (never
    /// the key).
    async fn payment(&self, payment_id: &str) -> Result<String, String> {
        let path = format!("{}/v1/payments/{}", self.base_path, encode(payment_id));
        let (status, body) = tokio::time::timeout(TIMEOUT, self.get(&path))
            .await
            .map_err(|_| format!("no answer in {} s", TIMEOUT.as_secs()))??;
        if status != 200 {
            return Err(format!("the service answered {status}"));
        }
        String::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())
    }

    async fn get(&self, path: &str) -> Result<(u16, Vec<u8>), String> {
        let mut stream = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| format!("cannot reach the service: {e}"))?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nAccept: application/json\r\nConnection: close\r\n\r\n",
            self.authority, self.api_key
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("sending the request: {e}"))?;
        let mut raw = Vec::new();
        (&mut stream)
            .take(u64::try_from(MAX_ANSWER).unwrap_or(u64::MAX))
            .read_to_end(&mut raw)
            .await
            .map_err(|e| format!("reading the answer: {e}"))?;
        parse_answer(&raw)
    }
}

/// An HTTP/1.1 answer: the status and the body (Content-Length, chunked, or to the end).
fn parse_answer(raw: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("an answer with no end of headers")?;
    let head = String::from_utf8_lossy(raw.get(..end).unwrap_or_default());
    let body = raw.get(end.saturating_add(4)..).unwrap_or_default();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or("an answer with no status")?;
    let mut length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
        if name == "content-length" {
            length = value.parse::<usize>().ok();
        } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
            chunked = true;
        }
    }
    if chunked {
        return Ok((status, dechunk(body)?));
    }
    Ok((
        status,
        match length {
            Some(n) => body
                .get(..n)
                .ok_or("a body shorter than its Content-Length")?
                .to_vec(),
            None => body.to_vec(),
        },
    ))
}

fn dechunk(mut rest: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a broken chunk")?;
        let size_text = String::from_utf8_lossy(rest.get(..line_end).unwrap_or_default());
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "a broken chunk size")?;
        let start = line_end.saturating_add(2);
        if size == 0 {
            return Ok(out);
        }
        let chunk = rest
            .get(start..start.saturating_add(size))
            .ok_or("a chunk cut short")?;
        out.extend_from_slice(chunk);
        rest = rest
            .get(start.saturating_add(size).saturating_add(2)..)
            .unwrap_or_default();
    }
}

/// A path segment, percent-encoded (unreserved characters kept).
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Passes every `interval`, at once again after a full batch; a failed pass is logged.
pub async fn run(store: Arc<Store>, service: Service, interval: Duration, recover_after_secs: i32) {
    let mut passes: u64 = 0;
    loop {
        passes = passes.wrapping_add(1);
        let owner = format!("axum-{}-{passes}", std::process::id());
        match pass(&store, &service, &owner, recover_after_secs).await {
            Ok(claimed) if claimed >= usize::try_from(BATCH).unwrap_or(usize::MAX) => continue,
            Ok(_) => {}
            Err(Unavailable(why)) => eprintln!(
                "fulfilment: a pass failed ({why}); the next one in {} ms",
                interval.as_millis()
            ),
        }
        tokio::time::sleep(interval).await;
    }
}

/// One pass; returns how many payments it claimed.
async fn pass(
    store: &Store,
    service: &Service,
    owner: &str,
    recover_after_secs: i32,
) -> Result<usize, Unavailable> {
    let ids = store
        .claim(Lease {
            owner: owner.to_owned(),
            lease_secs: LEASE_SECS,
            batch: BATCH,
            recover_after_secs,
        })
        .await?;
    for id in &ids {
        if let Some(state) = store.load(id, owner, recover_after_secs).await?
            && state.leased
        {
            work(store, service, owner, id, state).await?;
        }
    }
    Ok(ids.len())
}

/// 1, 2, 4 ... seconds, at most an hour, after each failed attempt.
fn delay_secs(attempts: i64) -> i64 {
    let exponent = u32::try_from(attempts.saturating_sub(1).clamp(0, 12)).unwrap_or(12);
    2_i64.saturating_pow(exponent).min(3600)
}

const SETTLED: [&str; 3] = ["fulfil", "closed", "needs_review"];

async fn work(
    store: &Store,
    service: &Service,
    owner: &str,
    payment_id: &str,
    state: Leased,
) -> Result<(), Unavailable> {
    let retry = |code: &'static str, why: String| async move {
        let attempts = state.attempts.saturating_add(1);
        let delay = delay_secs(attempts);
        eprintln!(
            "fulfilment: {code} for payment {payment_id} (attempt {attempts}; tried again in {delay} s): {why}"
        );
        store.retry(payment_id, owner, delay, code).await
    };
    let complete = |version: String, outcome: String, code: Option<String>| Completion {
        payment_id: payment_id.to_owned(),
        owner: owner.to_owned(),
        settled: SETTLED.contains(&outcome.as_str()),
        version,
        outcome,
        code,
    };
    // Already handled at (or past) what is known: the payment's index of what is due follows.
    let seen = |state: &Leased| {
        state.handled_version.clone().map(|version| {
            complete(
                version,
                state.outcome.clone().unwrap_or_default(),
                state.code.clone(),
            )
        })
    };
    if !state.event_due && !state.recover_due {
        return match seen(&state) {
            Some(done) => store.complete(done).await,
            None => retry("nothing_due", "changed since the claim".to_owned()).await,
        };
    }
    let text = match service.payment(payment_id).await {
        Ok(text) => text,
        Err(why) => return retry("confirm_failed", why).await,
    };
    let view = match PaymentView::from_json(&text) {
        Ok(view) => view,
        Err(e) => return retry("view_invalid", e.code().to_owned()).await,
    };
    let version_of =
        |text: &Option<String>| text.as_deref().and_then(|v| StatusVersion::parse(v).ok());
    // A view older than the applied event: a stale read, to fetch again.
    if version_of(&state.event_version).is_some_and(|event| view.status_version < event) {
        return retry("view_stale", "the view is older than the event".to_owned()).await;
    }
    if version_of(&state.handled_version).is_some_and(|handled| view.status_version <= handled) {
        return match seen(&state) {
            Some(done) => store.complete(done).await,
            None => Ok(()),
        };
    }
    // The integration of the event (none here: one set of secrets), else the order's.
    let integration = if state.has_payment {
        state.event_integration.clone()
    } else {
        state.order.as_ref().and_then(|o| o.integration.clone())
    };
    let order = match &state.order {
        None => None,
        Some(stored) => match SourceAmount::from_json(&stored.source_amount) {
            Ok(source_amount) => {
                let mut order = Order::new(payment_id, source_amount);
                order.order_ref = stored.order_ref.clone();
                order.integration = stored.integration.clone();
                Some(order)
            }
            Err(e) => return retry("order_invalid", e.code().to_owned()).await,
        },
    };
    let (action, outcome, code) = match link_event(order.as_ref(), &view, integration.as_deref()) {
        Ok(()) => {
            let action = default_policy(&view);
            (action, action.as_str().to_owned(), None)
        }
        Err(mismatch) => (
            FulfilmentAction::Review,
            "needs_review".to_owned(),
            Some(mismatch.code().to_owned()),
        ),
    };
    // The handler: what fulfilling means for a shop. Here, a line saying what it would do; a
    // real one passes the key to its own systems (a repeat after a crash is recognised there).
    let key = format!("{payment_id}:{}", view.status_version.as_str());
    let what = match &order {
        Some(order) => format!(
            "order {}",
            order.order_ref.as_deref().unwrap_or("(no order_ref)")
        ),
        None => "a payment no order of ours holds".to_owned(),
    };
    let about = format!(
        "payment {payment_id}, {} at version {}; key {key}",
        view.status,
        view.status_version.as_str()
    );
    match action {
        FulfilmentAction::Fulfil => println!("fulfilment: would ship {what} ({about})"),
        FulfilmentAction::Review => println!(
            "fulfilment: would hold {what} for review ({}; {about})",
            code.as_deref().unwrap_or(&view.status)
        ),
        FulfilmentAction::Closed => {
            println!("fulfilment: would release {what}: not paid ({about})")
        }
        FulfilmentAction::Wait => println!("fulfilment: {what} waits ({about})"),
    }
    store
        .complete(complete(
            view.status_version.as_str().to_owned(),
            outcome,
            code,
        ))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_with_a_length_chunked_or_to_the_end() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}junk";
        assert_eq!(parse_answer(plain).unwrap(), (200, b"{}".to_vec()));
        let chunked = b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n2\r\n\":\r\n0\r\n\r\n";
        assert_eq!(parse_answer(chunked).unwrap(), (404, b"{\"a\":".to_vec()));
        let open = b"HTTP/1.0 200 OK\r\n\r\n{\"x\":1}";
        assert_eq!(parse_answer(open).unwrap(), (200, b"{\"x\":1}".to_vec()));
        assert!(parse_answer(b"HTTP/1.1 200").is_err());
    }

    #[test]
    fn base_urls_and_paths() {
        let service = Service::new("http://127.0.0.1:4010/api/", "sk_test".to_owned()).unwrap();
        assert_eq!(
            (
                service.host.as_str(),
                service.port,
                service.base_path.as_str()
            ),
            ("127.0.0.1", 4010, "/api")
        );
        let bare = Service::new("http://localhost", "sk".to_owned()).unwrap();
        assert_eq!((bare.port, bare.base_path.as_str()), (80, ""));
        assert!(Service::new("https://api.example.com", "sk".to_owned()).is_err());
        assert!(Service::new("http://user:pw@host", "sk".to_owned()).is_err());
        assert!(Service::new("http://host", "sk key".to_owned()).is_err());
        assert_eq!(encode("pay/1 ?"), "pay%2F1%20%3F");
        assert_eq!(
            (delay_secs(1), delay_secs(2), delay_secs(3), delay_secs(40)),
            (1, 2, 4, 3600)
        );
    }
}
