//! A `payment.updated` receiver on axum 0.8 (see README.md): verify the raw body with
//! cryptopay-verify, record the event in a SQLite file in one transaction, answer 2xx only
//! after the commit.
//!
//! Configuration (environment): `CRYPTOPAY_WEBHOOK_SECRET` (required),
//! `CRYPTOPAY_PENDING_SECRET` (optional, a rotated secret not yet activated),
//! `TIMESTAMP_HEADER` and `SIGNATURE_HEADER` (required: the service's header names),
//! `DATABASE` (the SQLite file, default `receiver.db`), `HOST` (default 127.0.0.1),
//! `PORT` (default 8080; 0 picks a free port).

mod store;

use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use cryptopay_verify::{
    DEFAULT_MAX_BODY_BYTES, DeliveryHeaders, ErrorKind, Secret, SecretEntry, SecretSet, Verifier,
    VerifyOptions,
};
use serde_json::json;

use store::Store;

/// What every request shares.
struct App {
    verifier: Verifier,
    timestamp_header: String,
    signature_header: String,
    store: Mutex<Store>,
}

/// `POST /webhook`: verify first, then record, then answer.
async fn webhook(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let now_secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let found =
        DeliveryHeaders::from_header_map(&headers, &app.timestamp_header, &app.signature_header);
    let verified = found.and_then(|h| app.verifier.verify_webhook(&h.with_body(&body), now_secs));
    let result = match verified {
        Ok(verified) => {
            let app = Arc::clone(&app);
            tokio::task::spawn_blocking(move || {
                let store = app.store.lock().map_err(|_| store::Unavailable)?;
                store.record(&verified.event, now_secs)
            })
            .await
            .unwrap_or(Err(store::Unavailable))
            .map(|decision| json!({"received": true, "decision": decision.as_str()}))
        }
        // Authentic, but not an event this receiver can apply: keep it for inspection and
        // acknowledge it, so that the service stops retrying.
        Err(e) if is_envelope_error(e.kind()) => {
            let app = Arc::clone(&app);
            let code = e.code();
            tokio::task::spawn_blocking(move || {
                let store = app.store.lock().map_err(|_| store::Unavailable)?;
                store.quarantine(code, &body, now_secs)
            })
            .await
            .unwrap_or(Err(store::Unavailable))
            .map(|()| json!({"received": true, "quarantined": code}))
        }
        // The code only: a message may describe the configuration.
        Err(e) => {
            return (StatusCode::BAD_REQUEST, json!({"error": e.code()}).to_string()).into_response();
        }
    };
    match result {
        Ok(answer) => (StatusCode::OK, answer.to_string()).into_response(),
        // Never a 2xx for what was not committed: the service retries.
        Err(store::Unavailable) => (
            StatusCode::SERVICE_UNAVAILABLE,
            json!({"error": "store_unavailable"}).to_string(),
        )
            .into_response(),
    }
}

/// The codes of an authentic delivery whose envelope cannot be applied.
fn is_envelope_error(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::EventNotJson
            | ErrorKind::EventMalformed
            | ErrorKind::EventDuplicateKey
            | ErrorKind::EventTypeUnknown
            | ErrorKind::StatusVersionInvalid
    )
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let mut entries = vec![SecretEntry::active(Secret::from(env(
        "CRYPTOPAY_WEBHOOK_SECRET",
    )?))];
    if let Ok(pending) = env("CRYPTOPAY_PENDING_SECRET") {
        entries.push(SecretEntry::pending(Secret::from(pending)));
    }
    let secrets = SecretSet::new(entries).map_err(|e| format!("the secrets: {e}"))?;
    let database = env("DATABASE").unwrap_or_else(|_| "receiver.db".to_owned());
    let app = Arc::new(App {
        verifier: Verifier::new(secrets, VerifyOptions::new(300)),
        timestamp_header: env("TIMESTAMP_HEADER")?,
        signature_header: env("SIGNATURE_HEADER")?,
        store: Mutex::new(Store::open(&database).map_err(|e| format!("{database}: {e}"))?),
    });
    let router = Router::new()
        .route("/webhook", post(webhook))
        // Larger bodies are answered 413 before the handler runs.
        .layer(DefaultBodyLimit::max(DEFAULT_MAX_BODY_BYTES))
        .with_state(app);
    let host = env("HOST").unwrap_or_else(|_| "127.0.0.1".to_owned());
    let port = env("PORT").unwrap_or_else(|_| "8080".to_owned());
    let listener = tokio::net::TcpListener::bind(format!("{host}:{port}"))
        .await
        .map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on http://{address}/webhook");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}
