//! The receiver's store: a SQLite file (one process; `store/sqlite.rs`), or PostgreSQL when
//! `DATABASE_URL` is set (any number of instances; `store/postgres.rs`). Both record a
//! delivery in one transaction, with the semantics of `decide_event` and the answers of the
//! npm package's receiver: an `event_id` already recorded is `duplicate` (nothing changes);
//! otherwise the event is recorded, and applied to its payment only when no version is
//! stored or its version is greater (`apply`), else `stale`.

mod columns;
mod postgres;
mod sqlite;
mod statements;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use cryptopay_verify::{Decision, Event};

/// The store failed (connection, disk, lock, timeout): the delivery must be retried. The
/// reason is for the log: it never holds a secret, a body, an id or the connection string.
#[derive(Debug)]
pub struct Unavailable(pub String);

/// The longest `event_id` and `payment_id`, in UTF-8 bytes, on every store (and no U+0000):
/// the npm receiver's `MAX_ID_BYTES`. PostgreSQL's index refuses a key over about 2,700 bytes
/// and its `text` refuses a NUL, so such an event would be a 503 at every retry; held on both
/// stores alike, so moving from SQLite to PostgreSQL never meets an id one took and the other
/// cannot.
const MAX_ID_BYTES: usize = 1024;

pub enum Store {
    Sqlite(Arc<Mutex<sqlite::Store>>),
    Postgres(postgres::Store),
}

impl Store {
    /// PostgreSQL when `database_url` is given, else the SQLite file `database`. The error
    /// never holds the URL.
    pub async fn open(database_url: Option<&str>, database: &str) -> Result<Store, String> {
        if let Some(url) = database_url {
            return Ok(Store::Postgres(postgres::Store::open(url).await?));
        }
        let file = sqlite::Store::open(database).map_err(|e| format!("{database}: {e}"))?;
        Ok(Store::Sqlite(Arc::new(Mutex::new(file))))
    }

    /// What this store is, for the start-up line (never the URL).
    pub fn describe(&self, database: &str) -> String {
        match self {
            Store::Sqlite(_) => format!("SQLite file {database}"),
            Store::Postgres(_) => "PostgreSQL (DATABASE_URL)".to_owned(),
        }
    }

    /// Why a valid event cannot be recorded in this store, as the code it is quarantined
    /// under: an id over `MAX_ID_BYTES` or holding a NUL (`event_malformed`, every store), a
    /// version longer than PostgreSQL's `numeric` holds (`status_version_invalid`).
    pub fn unrecordable(&self, event: &Event) -> Option<&'static str> {
        let ids = [event.event_id(), event.payment_id()];
        if ids
            .iter()
            .any(|id| id.len() > MAX_ID_BYTES || id.contains('\0'))
        {
            return Some("event_malformed");
        }
        let digits = event.status_version().as_str().len();
        match self {
            Store::Postgres(_) if digits > postgres::NUMERIC_DIGITS => {
                Some("status_version_invalid")
            }
            _ => None,
        }
    }

    /// Records a verified event in one transaction; returns what was decided.
    pub async fn record(&self, event: Event, now_secs: u64) -> Result<Decision, Unavailable> {
        match self {
            Store::Sqlite(file) => {
                let file = Arc::clone(file);
                blocking(move || {
                    let file = file.lock().map_err(|_| poisoned())?;
                    file.record(&event, now_secs)
                })
                .await
            }
            Store::Postgres(db) => db.record(&event).await,
        }
    }

    /// Keeps an authentic delivery that is no recordable event.
    pub async fn quarantine(
        &self,
        code: &'static str,
        body: Bytes,
        now_secs: u64,
    ) -> Result<(), Unavailable> {
        match self {
            Store::Sqlite(file) => {
                let file = Arc::clone(file);
                blocking(move || {
                    let file = file.lock().map_err(|_| poisoned())?;
                    file.quarantine(code, &body, now_secs)
                })
                .await
            }
            Store::Postgres(db) => db.quarantine(code, &body).await,
        }
    }
}

/// SQLite's calls block: run on tokio's blocking threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Unavailable> + Send + 'static,
) -> Result<T, Unavailable> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err(Unavailable("the SQLite task failed".to_owned())))
}

fn poisoned() -> Unavailable {
    Unavailable("the SQLite connection's lock is poisoned".to_owned())
}
