use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::StatusCode;
use cryptopay_verify::{DeliveryHeaders, ErrorKind};
use serde_json::json;

use crate::{Answer, App, quarantine, record};

/// `POST /webhook`: the raw body and the two header values, verified before anything is parsed.
pub async fn webhook(State(app): State<Arc<App>>, request: Request) -> Answer {
    let headers = request.headers().clone();
    // The time the delivery arrived, read before its body: a slow body (up to
    // BODY_TIMEOUT_SECS) is not judged stale for the time it took to arrive.
    // A clock before 2001 (before 1970, or a board's clock reset and not yet set) is this
    // host's fault: 500 (retried), said before the body is read (the crate answers a delivery
    // from the future `timestamp_in_future`, a receiver fault, too).
    let Some(now_secs) = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
        .filter(|&secs| secs >= 1_000_000_000)
    else {
        eprintln!("refused a delivery (500): this host's clock reads before 2001: set it (NTP)");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": "internal"})),
        );
    };
    // The whole body within `BODY_TIMEOUT_SECS`, or 408 (which the service retries): one
    // deadline for all of it, since a byte now and then would outlast one per read.
    let read = tokio::time::timeout(app.body_timeout, Bytes::from_request(request, &()));
    // The lines a request can cause, a few per kind a minute (src/throttle.rs).
    let Ok(body) = read.await else {
        app.refusals.say("body_timeout", now_secs, || {
            format!(
                "refused a delivery (408 body_timeout): its body did not arrive within {} s; \
                 the service retries it",
                app.body_timeout.as_secs()
            )
        });
        return (
            StatusCode::REQUEST_TIMEOUT,
            Json(json!({"error": "body_timeout"})),
        );
    };
    // Longer than the body limit (the verifier's `max_body_bytes`, main.rs): 413 with the
    // npm receiver's body, not axum's own text; a body that could not be read, its status.
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return too_large();
        }
        Err(rejection) => {
            return (
                rejection.status(),
                Json(json!({"error": "body_unreadable"})),
            );
        }
    };
    let verified =
        DeliveryHeaders::from_header_map(&headers, &app.timestamp_header, &app.signature_header)
            .and_then(|found| {
                app.verifier
                    .verify_webhook(&found.with_body(&body), now_secs)
            });
    match verified {
        // Recorded in one transaction (de-duplicated, ordered) before any 2xx: src/store.rs.
        Ok(verified) => record(app, verified.event, verified.matched_secret, now_secs).await,
        // Authentic, but no event this receiver applies: kept, and acknowledged.
        Err(e) if e.is_event_error() => quarantine(app, e.code(), body, now_secs).await,
        Err(e) if e.kind() == ErrorKind::BodyTooLarge => too_large(),
        // Answered with the code only (the message may describe the configuration); logged
        // with the core's message, which never holds a secret, a signature or the body. A
        // skew is an authentic delivery (the HMAC is checked first): this host's clock, not a
        // forger. A refusal that is this receiver's own (an invalid argument, a clock in
        // milliseconds, the header names swapped, a delivery in flight when a retiring
        // secret's overlap ended: `is_receiver_fault`): 500, which the service retries, where
        // a 400 would be final and lose the event.
        Err(e) => {
            // A header missing that the delivery carried under another name, and verifies
            // with: this receiver's names (TIMESTAMP_HEADER, SIGNATURE_HEADER) are wrong, not
            // the delivery; 500 too, naming what to set (never accepted: it was refused).
            let missing = matches!(
                e.kind(),
                ErrorKind::TimestampMissing | ErrorKind::SignatureMissing
            );
            let misnamed = missing
                .then(|| {
                    let pairs = headers
                        .iter()
                        .map(|(n, v)| (n.as_str().as_bytes(), v.as_bytes()));
                    app.verifier.misnamed_headers(
                        pairs,
                        &app.timestamp_header,
                        &app.signature_header,
                        &body,
                        now_secs,
                    )
                })
                .flatten();
            if let Some(names) = misnamed {
                // The crate names its parameters; these variables hold them (config.rs).
                let set = names
                    .to_string()
                    .replace("timestamp_header", "TIMESTAMP_HEADER")
                    .replace("signature_header", "SIGNATURE_HEADER");
                app.refusals.say(e.code(), now_secs, || {
                    format!("refused a delivery (500): {e}; {set}; the service retries it")
                });
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    Json(json!({"error": e.code()})),
                );
            }
            let status = if e.is_receiver_fault() {
                StatusCode::INTERNAL_SERVER_ERROR
            } else {
                StatusCode::BAD_REQUEST
            };
            let clock = matches!(
                e.kind(),
                ErrorKind::TimestampTooOld | ErrorKind::TimestampInFuture
            );
            // A header missing: the names the delivery did carry (never a value), so that names
            // configured wrongly show even where none reads as the one missing.
            let carried = if missing {
                let names: Vec<&str> = headers.keys().map(|name| name.as_str()).take(30).collect();
                format!(
                    "; the delivery carried the headers {} (expected {} and {})",
                    names.join(", "),
                    app.timestamp_header,
                    app.signature_header
                )
            } else {
                String::new()
            };
            app.refusals.say(e.code(), now_secs, || {
                format!(
                    "refused a delivery ({}): {e}{}{carried}",
                    status.as_u16(),
                    if clock {
                        " (its signature verified: check this host's clock)"
                    } else {
                        ""
                    }
                )
            });
            (status, Json(json!({"error": e.code()})))
        }
    }
}

/// 413, as the npm receiver answers a body over `max_body_bytes`.
fn too_large() -> Answer {
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        Json(json!({"error": ErrorKind::BodyTooLarge.code()})),
    )
}
