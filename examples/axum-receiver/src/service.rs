//! The payment service's API, as far as the merchant loop asks it: `GET /v1/payments/{id}`
//! through reqwest, the answer read whole up to 1 MiB; https, or http to a local sandbox only.

use std::time::Duration;

/// The largest answer read from the service.
const MAX_ANSWER: u64 = 1 << 20;
const TIMEOUT: Duration = Duration::from_secs(10);

/// The payment service's API, as far as fulfilment asks it: `GET /v1/payments/{id}`, through
/// reqwest (https, or http to a local sandbox), never following a redirect. The API key goes in
/// the Authorization header only, and is never printed.
pub struct Service {
    client: reqwest::Client,
    base: reqwest::Url,
    api_key: String,
}

impl Service {
    /// From `CRYPTOPAY_BASE_URL` (`https://host[:port][/path]`, or `http://` for a local
    /// sandbox) and `CRYPTOPAY_API_KEY`. Refused: credentials, a query or a fragment in the URL
    /// (a query would go with every request, and a key in it into every log of the URL), as
    /// the npm client refuses them. No error holds the value.
    pub fn new(base_url: &str, api_key: String) -> Result<Service, String> {
        let base = reqwest::Url::parse(base_url)
            .map_err(|_| "CRYPTOPAY_BASE_URL is not an absolute URL".to_owned())?;
        if !matches!(base.scheme(), "https" | "http") || base.cannot_be_a_base() {
            return Err(
                "CRYPTOPAY_BASE_URL must be an https:// URL (http:// for a local sandbox)"
                    .to_owned(),
            );
        }
        if base.scheme() == "http" && !local_sandbox(&base) {
            return Err(
                "CRYPTOPAY_BASE_URL must be https:// (the API key goes with every request); \
                 http:// only to a local sandbox: a loopback host, host.docker.internal, or a \
                 name under .test or .localhost (a Compose alias such as sandbox.test)"
                    .to_owned(),
            );
        }
        if !base.username().is_empty() || base.password().is_some() {
            return Err(
                "CRYPTOPAY_BASE_URL holds credentials: the API key goes in CRYPTOPAY_API_KEY"
                    .to_owned(),
            );
        }
        if base.query().is_some() || base.fragment().is_some() {
            return Err(
                "CRYPTOPAY_BASE_URL must not hold a query or a fragment: give the service's base \
                 URL only (https://host[:port][/path]); the API key goes in CRYPTOPAY_API_KEY"
                    .to_owned(),
            );
        }
        if api_key.is_empty() || api_key.bytes().any(|b| !(0x21..=0x7e).contains(&b)) {
            return Err(
                "CRYPTOPAY_API_KEY is empty or holds a character a header cannot carry".to_owned(),
            );
        }
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot make the HTTP client: {e}"))?;
        Ok(Service {
            client,
            base,
            api_key,
        })
    }

    /// The base URL for a log line: scheme, host, port and path only (no path when it is `/`).
    pub fn shown(&self) -> String {
        let port = self
            .base
            .port()
            .map(|p| format!(":{p}"))
            .unwrap_or_default();
        let path = Some(self.base.path()).filter(|path| *path != "/");
        format!(
            "{}://{}{port}{}",
            self.base.scheme(),
            self.base.host_str().unwrap_or_default(),
            path.unwrap_or_default()
        )
    }

    /// `GET /v1/payments/{payment_id}` under the base URL, the id one percent-encoded segment.
    fn payment_url(&self, payment_id: &str) -> reqwest::Url {
        let mut url = self.base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments
                .pop_if_empty()
                .extend(["v1", "payments", payment_id]);
        }
        url
    }

    /// The exact text of `GET /v1/payments/{payment_id}`'s answer, or why there is none (never
    /// the key).
    pub async fn payment(&self, payment_id: &str) -> Result<String, String> {
        let answer = self
            .client
            .get(self.payment_url(payment_id))
            .bearer_auth(&self.api_key)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("cannot reach the service: {}", e.without_url()))?;
        let status = answer.status().as_u16();
        if status != 200 {
            return Err(format!("the service answered {status}"));
        }
        let too_large = || "the answer is larger than 1 MiB".to_owned();
        if answer.content_length().is_some_and(|n| n > MAX_ANSWER) {
            return Err(too_large());
        }
        // Read a chunk at a time, so that an answer without a length (chunked) that runs past
        // the limit is cut there, not held whole in memory first.
        let limit = usize::try_from(MAX_ANSWER).unwrap_or(usize::MAX);
        let mut answer = answer;
        let mut body = Vec::new();
        while let Some(chunk) = answer
            .chunk()
            .await
            .map_err(|e| format!("reading the answer: {}", e.without_url()))?
        {
            if chunk.len() > limit.saturating_sub(body.len()) {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).map_err(|_| "the answer is not UTF-8".to_owned())
    }
}

/// Whether `url` names a sandbox on this machine or beside it, the one place the API key may
/// go over plain http (as the npm client decides): a loopback address, `localhost`,
/// `host.docker.internal`, or a name under `.localhost` or `.test` (no network resolves them
/// to another machine; not `.local` nor `.internal`, which a LAN or a cloud network does).
fn local_sandbox(url: &reqwest::Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6
            .parse::<std::net::Ipv6Addr>()
            .is_ok_and(|ip| ip.is_loopback());
    }
    if let Ok(v4) = host.parse::<std::net::Ipv4Addr>() {
        return v4.is_loopback();
    }
    let name = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    name == "localhost"
        || name == "test"
        || name == "host.docker.internal"
        || name.ends_with(".localhost")
        || name.ends_with(".test")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_and_paths() {
        let service = Service::new("http://127.0.0.1:4010/api/", "sk_test".to_owned()).unwrap();
        assert_eq!(
            service.payment_url("pay/1 ?").as_str(),
            "http://127.0.0.1:4010/api/v1/payments/pay%2F1%20%3F"
        );
        let bare = Service::new("https://api.example.com", "sk".to_owned()).unwrap();
        assert_eq!(
            bare.payment_url("pay_1").as_str(),
            "https://api.example.com/v1/payments/pay_1"
        );
        assert!(Service::new("ftp://api.example.com", "sk".to_owned()).is_err());
        assert!(Service::new("http://user:pw@host", "sk".to_owned()).is_err());
        assert!(Service::new("http://host", "sk key".to_owned()).is_err());
        for url in [
            "https://api.example.com/?api_key=sk_live_SECRET#tok",
            "https://api.example.com/v1?api_key=sk_live_SECRET",
            "https://api.example.com/#sk_live_SECRET",
            "https://api.example.com/?",
        ] {
            let refused = Service::new(url, "sk".to_owned()).err().unwrap();
            assert!(refused.contains("must not hold a query or a fragment"));
            assert!(!refused.contains("SECRET"));
        }
        assert_eq!(bare.shown(), "https://api.example.com");
        assert_eq!(service.shown(), "http://127.0.0.1:4010/api/");
        let v6 = Service::new("http://[::1]:4010", "sk".to_owned()).unwrap();
        assert_eq!(v6.shown(), "http://[::1]:4010");
        // http:// only to a sandbox on this machine or beside it: the key goes with every call.
        for local in [
            "http://localhost:4010",
            "http://127.0.0.2",
            "http://sandbox.test:4010",
            "http://api.localhost",
            "http://host.docker.internal:4010",
            "http://SANDBOX.TEST.",
        ] {
            assert!(Service::new(local, "sk".to_owned()).is_ok(), "{local}");
        }
        for remote in [
            "http://api.example.com",
            "http://10.0.0.5:4010",
            "http://sandbox.local",
            "http://metadata.internal",
            "http://test.example.com",
        ] {
            let refused = Service::new(remote, "sk".to_owned()).err().unwrap();
            assert!(
                refused.contains("http:// only to a local sandbox"),
                "{remote}"
            );
        }
    }
}
