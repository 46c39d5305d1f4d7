//! A `payment.updated` receiver on axum 0.8 (see README.md): verify the raw body with
//! cryptopay-verify, record the event in one transaction (a SQLite file, or PostgreSQL),
//! answer 2xx only after the commit.
//!
//! Configuration (environment): `CRYPTOPAY_WEBHOOK_SECRET` (required), and during a
//! rotation, as the npm receiver reads them: `CRYPTOPAY_WEBHOOK_SECRET_PENDING` (a rotated
//! secret not yet activated) or `CRYPTOPAY_WEBHOOK_SECRET_RETIRING` with
//! `CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL` (the previous secret, accepted until that Unix
//! second, for deliveries signed before the activation),
//! `TIMESTAMP_HEADER` and `SIGNATURE_HEADER` (required: the service's header names),
//! `DATABASE_URL` (PostgreSQL: `postgres://user:password@host/db` or `host=... user=...
//! dbname=...`; never printed; when set, any number of instances may share it),
//! `DATABASE` (otherwise: the SQLite file, default `receiver.db`), `HOST` (default
//! 127.0.0.1), `PORT` (default 8080; 0 picks a free port), `BODY_TIMEOUT_SECS` (default 30:
//! a body not all there by then is answered 408 `body_timeout`, which the service retries;
//! headers not all there by then, or a connection idle that long, are closed).
//!
//! The merchant loop (`fulfil.rs`), when `CRYPTOPAY_BASE_URL` and `CRYPTOPAY_API_KEY` are set:
//! `POST /orders` records the merchant's side of a created payment (the answer of
//! `POST /v1/payments`: `payment_id`, `order_ref`, `source_amount`), and every
//! `FULFIL_INTERVAL_MS` (default 5000) a pass fulfils what changed, with `link_event` and
//! `default_policy`; `RECOVER_AFTER_SECS` (default 900).
//!
//! `POST /orders` is the shop's route on the listener whose webhook URL must be public: it
//! answers only `Authorization: Bearer <ADMIN_TOKEN>` (else 401), and is off (404) when
//! `ADMIN_TOKEN` is not set. The webhook itself is authenticated by its signature.

mod config;
mod fulfil;
mod handler;
mod service;
mod shutdown;
mod store;
mod throttle;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Request, State};
use axum::http::header::{ALLOW, AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use cryptopay_verify::{
    Event, SecretKind, SourceAmount, Verifier, VerifyOptions, request_fingerprint,
    validate_amount_raw,
};
use serde_json::{Value, json};

use store::{NewOrder, Store, StoredOrder};

/// What every request shares.
pub struct App {
    pub verifier: Verifier,
    pub timestamp_header: String,
    pub signature_header: String,
    /// How long a delivery's whole body may take to arrive (`BODY_TIMEOUT_SECS`).
    pub body_timeout: std::time::Duration,
    /// The lines any request can cause, a few per kind a minute.
    pub refusals: throttle::Throttle,
    store: Arc<Store>,
}

/// A status and a JSON body (`Json` answers with `content-type: application/json`).
pub type Answer = (StatusCode, Json<Value>);

/// Records a verified event with the kind of secret that verified it; `200` with the decision
/// only after the commit. (`now_secs` is the handler's clock reading; the database's own clock
/// stamps the rows.)
async fn record(app: Arc<App>, event: Event, kind: SecretKind, now_secs: u64) -> Answer {
    // Valid, but more than the store can hold (an id of 3 KB, a version of 200000 digits):
    // quarantined now, rather than a write that fails at every retry.
    if let Some(code) = app.store.unrecordable(&event) {
        let body = Bytes::copy_from_slice(event.envelope_json().as_bytes());
        return quarantine(app, code, body, now_secs).await;
    }
    match app.store.record(event, kind).await {
        Ok(decision) => (
            StatusCode::OK,
            Json(json!({"received": true, "decision": decision.as_str()})),
        ),
        Err(failure) => unavailable("an event", failure),
    }
}

/// Keeps an authentic delivery that is no applicable event; `200` once it is kept.
async fn quarantine(app: Arc<App>, code: &'static str, body: Bytes, now_secs: u64) -> Answer {
    match app.store.quarantine(code, body).await {
        Ok(()) => {
            // A captured one sent again is kept again: its lines are throttled as refusals'.
            app.refusals.say(code, now_secs, || {
                format!(
                    "quarantined an authentic delivery: {code}; kept in cryptopay_quarantine, \
                     never applied, answered 200"
                )
            });
            (
                StatusCode::OK,
                Json(json!({"received": true, "quarantined": code})),
            )
        }
        Err(failure) => unavailable(&format!("a {code} delivery in quarantine"), failure),
    }
}

/// Never a 2xx for what was not committed: the service retries. The log line says why (never
/// a secret, a body, an id or the connection string).
fn unavailable(what: &str, store::Unavailable(why): store::Unavailable) -> Answer {
    eprintln!(
        "store_unavailable: could not record {what} ({why}); answered 503 so the service retries"
    );
    (
        StatusCode::SERVICE_UNAVAILABLE,
        Json(json!({"error": "store_unavailable"})),
    )
}

/// The bearer token of the shop's route (`ADMIN_TOKEN`), kept only as its SHA-256 (lowercase
/// hex, by the core's `request_fingerprint`).
struct AdminToken {
    digest: String,
}

impl AdminToken {
    /// At least 16 visible ASCII characters (a header carries them; a short one is guessed).
    /// The error names the variable, never the value.
    fn new(token: &str) -> Result<AdminToken, String> {
        if token.len() < 16 || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(
                "ADMIN_TOKEN must be at least 16 visible ASCII characters, no spaces \
                 (a random value: openssl rand -hex 32)"
                    .to_owned(),
            );
        }
        Ok(AdminToken {
            digest: request_fingerprint(token.as_bytes()),
        })
    }

    /// Whether the request carries one `Authorization: Bearer <token>` with this token. The two
    /// SHA-256 digests are compared with a fold that looks at every byte: the timing tells
    /// neither the token's length nor where a guess differs.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let mut values = headers.get_all(AUTHORIZATION).iter();
        let (Some(value), None) = (values.next(), values.next()) else {
            return false;
        };
        let Some((scheme, token)) = value.to_str().ok().and_then(|v| v.split_once(' ')) else {
            return false;
        };
        let token = token.trim_matches(' ');
        if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() || token.contains(' ') {
            return false;
        }
        let sent = request_fingerprint(token.as_bytes());
        let diff = sent
            .bytes()
            .zip(self.digest.bytes())
            .fold(0_u8, |acc, (a, b)| acc | (a ^ b));
        std::hint::black_box(diff) == 0 && sent.len() == self.digest.len()
    }
}

/// In front of the shop's route: `401 {"error":"unauthorized"}` with `WWW-Authenticate: Bearer`
/// unless the request carries `ADMIN_TOKEN`'s bearer (checked before the body is read; what
/// was sent is never echoed nor logged).
async fn require_admin(
    State(admin): State<Arc<AdminToken>>,
    request: Request,
    next: Next,
) -> Response {
    if admin.admits(request.headers()) {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(WWW_AUTHENTICATE, "Bearer")],
            Json(json!({ "error": "unauthorized" })),
        )
            .into_response()
    }
}

/// Any other path, `/orders` when it is off included.
async fn not_found() -> Answer {
    (StatusCode::NOT_FOUND, Json(json!({ "error": "not_found" })))
}

/// `/webhook` with any method but POST: the npm receiver's answer.
async fn method_not_allowed() -> impl IntoResponse {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(ALLOW, "POST")],
        Json(json!({ "error": "method_not_allowed" })),
    )
}

/// `POST /orders`: the merchant's side of a created payment (the answer of `POST
/// /v1/payments`), stored once for the link check: `payment_id`, `order_ref` (optional) and
/// `source_amount` (a SourceAmount, strictly). The same order again is `200`; another order for
/// the same payment `409` (the stored one is kept).
async fn record_order(State(app): State<Arc<App>>, body: Bytes) -> Answer {
    let refuse = |why: &str| (StatusCode::BAD_REQUEST, Json(json!({ "error": why })));
    let Ok(created) = serde_json::from_slice::<Value>(&body) else {
        return refuse("not_json");
    };
    let payment_id = match created.get("payment_id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() && store::storable_id(id) => id.to_owned(),
        _ => return refuse("payment_id_invalid"),
    };
    let order_ref = match created.get("order_ref") {
        None | Some(Value::Null) => None,
        Some(Value::String(order_ref)) => Some(order_ref.clone()),
        Some(_) => return refuse("order_ref_invalid"),
    };
    let source_amount = created
        .get("source_amount")
        .map(Value::to_string)
        .ok_or_else(|| "source_amount_invalid".to_owned())
        .and_then(|text| SourceAmount::from_json(&text).map_err(|e| e.code().to_owned()))
        // from_json reads the shape only: an amount_raw such as "-012" or "0" is refused here,
        // not stored to fail every link check later.
        .and_then(|amount| {
            validate_amount_raw(&amount.amount_raw).map_err(|e| e.code().to_owned())?;
            serde_json::to_string(&amount).map_err(|e| e.to_string())
        });
    let source_amount = match source_amount {
        Ok(text) => text,
        Err(code) => return refuse(&code),
    };
    let ours = StoredOrder {
        order_ref: order_ref.clone(),
        source_amount: source_amount.clone(),
        integration: None,
    };
    let order = NewOrder {
        payment_id,
        order_ref,
        source_amount,
        integration: None,
    };
    match app.store.record_order(order).await {
        Ok(Some(stored)) if stored != ours => (
            StatusCode::CONFLICT,
            Json(json!({ "error": "order_conflict" })),
        ),
        Ok(_) => (StatusCode::OK, Json(json!({ "recorded": true }))),
        Err(failure) => unavailable("an order", failure),
    }
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let secrets = config::secrets()?;
    let (timestamp_header, signature_header) = config::header_names()?;
    // Set and not empty: PostgreSQL (the value is never printed: it may hold a password).
    let database_url = config::optional("DATABASE_URL")?.filter(|url| !url.is_empty());
    // Else the SQLite file (a leftover DATABASE beside DATABASE_URL is not read).
    let database = match database_url {
        Some(_) => String::new(),
        None => config::database_file()?,
    };
    let store = Arc::new(Store::open(database_url.as_deref(), &database).await?);
    println!("recording in {}", store.describe(&database));
    // The merchant loop, when the service is configured (its key is never printed).
    let service = match (
        config::optional("CRYPTOPAY_BASE_URL")?,
        config::optional("CRYPTOPAY_API_KEY")?,
    ) {
        (Some(url), Some(key)) => Some(service::Service::new(&url, key)?),
        (None, None) => None,
        _ => {
            return Err(
                "the merchant loop needs both CRYPTOPAY_BASE_URL and CRYPTOPAY_API_KEY".to_owned(),
            );
        }
    };
    let number = |name: &str, default: u64| -> Result<u64, String> {
        config::optional(name)?.map_or(Ok(default), |v| {
            v.parse().map_err(|_| format!("{name} is a whole number"))
        })
    };
    let interval = std::time::Duration::from_millis(number("FULFIL_INTERVAL_MS", 5000)?.max(1));
    let recover_after =
        i32::try_from(number("RECOVER_AFTER_SECS", 900)?.max(1)).unwrap_or(i32::MAX);
    // Set and not empty: the shop's route is served, for its bearer only (never printed).
    let admin = match config::optional("ADMIN_TOKEN")?.filter(|token| !token.is_empty()) {
        Some(token) => Some(Arc::new(AdminToken::new(&token)?)),
        None => None,
    };
    let app = Arc::new(App {
        verifier: Verifier::new(secrets, VerifyOptions::new(300)),
        timestamp_header,
        signature_header,
        body_timeout: config::body_timeout()?,
        refusals: throttle::Throttle::default(),
        store,
    });
    let fulfilling = service.is_some();
    // Set at SIGINT or SIGTERM: the server stops taking requests, the loop ends its payment.
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut loop_task = None;
    if let Some(service) = service {
        println!(
            "fulfilling every {} ms, confirming with the service at {}",
            interval.as_millis(),
            service.shown()
        );
        loop_task = Some(tokio::spawn(fulfil::run(
            Arc::clone(&app.store),
            service,
            interval,
            recover_after,
            stopping,
        )));
    } else {
        println!(
            "fulfilment off (set CRYPTOPAY_BASE_URL and CRYPTOPAY_API_KEY to run the merchant loop)"
        );
    }
    let mut router = Router::new().route(
        "/webhook",
        post(handler::webhook).fallback(method_not_allowed),
    );
    match (fulfilling, admin) {
        (true, Some(admin)) => {
            println!("POST /orders answers Authorization: Bearer with ADMIN_TOKEN only");
            router = router.route(
                "/orders",
                post(record_order).layer(middleware::from_fn_with_state(admin, require_admin)),
            );
        }
        (true, None) => println!(
            "POST /orders is off: set ADMIN_TOKEN (a long random value) to record orders, sent as \
             Authorization: Bearer (with no order recorded, every payment is held for review)"
        ),
        (false, _) => {}
    }
    let header_timeout = app.body_timeout;
    let router = router
        .fallback(not_found)
        // Larger bodies are answered 413 once the bytes read pass the limit (never buffered
        // past it; a sender that trickles them is cut at BODY_TIMEOUT_SECS): the verifier's
        // own limit, one number for both.
        .layer(DefaultBodyLimit::max(
            app.verifier.options().max_body_bytes(),
        ))
        .with_state(app);
    let host = config::optional("HOST")?.unwrap_or_else(|| "127.0.0.1".to_owned());
    let port = config::optional("PORT")?.unwrap_or_else(|| "8080".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("{host}:{port}"))
        .await
        .map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on http://{address}/webhook");
    shutdown::serve(listener, router, header_timeout, stop, loop_task).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn admin_token() {
        let token = "admin_0123456789abcdef";
        let admin = AdminToken::new(token).unwrap();
        let with = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            }
            admin.admits(&headers)
        };
        assert!(with(&[&format!("Bearer {token}")]));
        assert!(with(&[&format!("bearer  {token} ")]));
        assert!(!with(&[]));
        assert!(!with(&[token]));
        assert!(!with(&[&format!("Basic {token}")]));
        assert!(!with(&[&format!("Bearer {token}x")]));
        assert!(!with(&[&format!("Bearer {token} x")]));
        assert!(!with(&["Bearer admin_0123456789abcdeF"]));
        assert!(!with(&["Bearer "]));
        assert!(!with(&[
            &format!("Bearer {token}"),
            &format!("Bearer {token}")
        ]));
        for refused in [
            "",
            "short_token",
            "admin token 0123456789",
            "admin_é_0123456789",
        ] {
            let error = AdminToken::new(refused).err().unwrap();
            assert!(error.starts_with("ADMIN_TOKEN must be"));
            assert!(refused.is_empty() || !error.contains(refused));
        }
    }
}
