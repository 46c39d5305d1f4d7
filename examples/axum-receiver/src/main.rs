//! A `payment.updated` receiver on axum 0.8 (see README.md): verify the raw body with
//! cryptopay-verify, record the event in one transaction (a SQLite file, or PostgreSQL),
//! answer 2xx only after the commit.
//!
//! Configuration (environment): `CRYPTOPAY_WEBHOOK_SECRET` (required),
//! `CRYPTOPAY_PENDING_SECRET` (optional, a rotated secret not yet activated),
//! `TIMESTAMP_HEADER` and `SIGNATURE_HEADER` (required: the service's header names),
//! `DATABASE_URL` (PostgreSQL: `postgres://user:password@host/db` or `host=... user=...
//! dbname=...`; never printed; when set, any number of instances may share it),
//! `DATABASE` (otherwise: the SQLite file, default `receiver.db`), `HOST` (default
//! 127.0.0.1), `PORT` (default 8080; 0 picks a free port).

mod handler;
mod store;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use cryptopay_verify::{
    DEFAULT_MAX_BODY_BYTES, Event, Secret, SecretEntry, SecretSet, Verifier, VerifyOptions,
};
use serde_json::{Value, json};

use store::Store;

/// What every request shares.
pub struct App {
    pub verifier: Verifier,
    pub timestamp_header: String,
    pub signature_header: String,
    store: Store,
}

/// A status and a JSON body (`Json` answers with `content-type: application/json`).
pub type Answer = (StatusCode, Json<Value>);

/// Records a verified event; `200` with the decision only after the commit.
async fn record(app: Arc<App>, event: Event, now_secs: u64) -> Answer {
    // Valid, but more than the store can hold (an id of 3 KB, a version of 200000 digits):
    // quarantined now, rather than a write that fails at every retry.
    if let Some(code) = app.store.unrecordable(&event) {
        let body = Bytes::copy_from_slice(event.envelope_json().as_bytes());
        return quarantine(app, code, body, now_secs).await;
    }
    match app.store.record(event, now_secs).await {
        Ok(decision) => (
            StatusCode::OK,
            Json(json!({"received": true, "decision": decision.as_str()})),
        ),
        Err(failure) => unavailable("an event", failure),
    }
}

/// Keeps an authentic delivery that is no applicable event; `200` once it is kept.
async fn quarantine(app: Arc<App>, code: &'static str, body: Bytes, now_secs: u64) -> Answer {
    match app.store.quarantine(code, body, now_secs).await {
        Ok(()) => (
            StatusCode::OK,
            Json(json!({"received": true, "quarantined": code})),
        ),
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
    let timestamp_header = env("TIMESTAMP_HEADER")?;
    let signature_header = env("SIGNATURE_HEADER")?;
    let database = env("DATABASE").unwrap_or_else(|_| "receiver.db".to_owned());
    // Set and not empty: PostgreSQL (the value is never printed: it may hold a password).
    let database_url = env("DATABASE_URL").ok().filter(|url| !url.is_empty());
    let store = Store::open(database_url.as_deref(), &database).await?;
    println!("recording in {}", store.describe(&database));
    let app = Arc::new(App {
        verifier: Verifier::new(secrets, VerifyOptions::new(300)),
        timestamp_header,
        signature_header,
        store,
    });
    let router = Router::new()
        .route("/webhook", post(handler::webhook))
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
