//! A `payment.updated` receiver on axum 0.8 (see README.md): verify the raw body with
//! cryptopay-verify, record the event in a SQLite file in one transaction, answer 2xx only
//! after the commit.
//!
//! Configuration (environment): `CRYPTOPAY_WEBHOOK_SECRET` (required),
//! `CRYPTOPAY_PENDING_SECRET` (optional, a rotated secret not yet activated),
//! `TIMESTAMP_HEADER` and `SIGNATURE_HEADER` (required: the service's header names),
//! `DATABASE` (the SQLite file, default `receiver.db`), `HOST` (default 127.0.0.1),
//! `PORT` (default 8080; 0 picks a free port).

mod handler;
mod store;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::post;
use cryptopay_verify::{
    DEFAULT_MAX_BODY_BYTES, Event, Secret, SecretEntry, SecretSet, Verifier, VerifyOptions,
};
use serde_json::json;

use store::Store;

/// What every request shares.
pub struct App {
    pub verifier: Verifier,
    pub timestamp_header: String,
    pub signature_header: String,
    store: Mutex<Store>,
}

/// A status and a JSON body.
pub type Answer = (StatusCode, String);

/// Records a verified event; `200` with the decision only after the commit.
async fn record(app: Arc<App>, event: Event, now_secs: u64) -> Answer {
    let stored = tokio::task::spawn_blocking(move || {
        let store = app.store.lock().map_err(|_| store::Unavailable)?;
        store.record(&event, now_secs)
    })
    .await
    .unwrap_or(Err(store::Unavailable));
    match stored {
        Ok(decision) => (
            StatusCode::OK,
            json!({"received": true, "decision": decision.as_str()}).to_string(),
        ),
        Err(store::Unavailable) => unavailable(),
    }
}

/// Keeps an authentic delivery that is no applicable event; `200` once it is kept.
async fn quarantine(app: Arc<App>, code: &'static str, body: Bytes, now_secs: u64) -> Answer {
    let kept = tokio::task::spawn_blocking(move || {
        let store = app.store.lock().map_err(|_| store::Unavailable)?;
        store.quarantine(code, &body, now_secs)
    })
    .await
    .unwrap_or(Err(store::Unavailable));
    match kept {
        Ok(()) => (
            StatusCode::OK,
            json!({"received": true, "quarantined": code}).to_string(),
        ),
        Err(store::Unavailable) => unavailable(),
    }
}

/// Never a 2xx for what was not committed: the service retries.
fn unavailable() -> Answer {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        json!({"error": "store_unavailable"}).to_string(),
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
