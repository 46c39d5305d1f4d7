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
use cryptopay_verify::{Decision, Event, SecretKind};

/// The store failed (connection, disk, lock, timeout): the delivery must be retried. The
/// reason is for the log: it never holds a secret, a body, an id or the connection string.
#[derive(Debug)]
pub struct Unavailable(pub String);

/// Why an event is not recorded when the tables are shared with an npm receiver that names its
/// integrations and the payment (its stored facts or its order, or the event) came through one
/// of them: this example has one set of secrets (no names), and another integration's payment
/// is not its to move.
pub(crate) const INTEGRATION_MISMATCH: &str = "integration_mismatch: the payment's stored facts came through a named \
     integration's secret, or its order or this event did (these tables are shared with a receiver that names its \
     integrations), and this receiver has one set of secrets: not recorded; run it on tables of its own, or record \
     through that receiver";

/// The merchant's side of a created payment, as the `orders` table holds it.
pub struct NewOrder {
    pub payment_id: String,
    pub order_ref: Option<String>,
    /// The `source_amount` sent at creation, as JSON text.
    pub source_amount: String,
    pub integration: Option<String>,
}

/// An order as stored (read back to compare, or for a pass).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredOrder {
    pub order_ref: Option<String>,
    pub source_amount: String,
    pub integration: Option<String>,
}

/// For how long after its order was recorded a closed payment (ended unpaid) is looked at
/// again for money that came late, less and less often (the statements' `closed_due`), as the
/// npm receiver's default `recheckClosedSecs`: 7 days.
pub const RECHECK_CLOSED_SECS: i32 = 604_800;

/// What a pass asks `claim`.
pub struct Lease {
    pub owner: String,
    pub lease_secs: i32,
    pub batch: i32,
    pub recover_after_secs: i32,
}

/// A failed attempt's retry: see [`Store::retry`].
#[derive(Clone, Copy)]
pub struct Retry<'a> {
    pub payment_id: &'a str,
    pub owner: &'a str,
    pub delay_secs: i64,
    pub code: &'static str,
    pub loaded: Option<&'a str>,
}

/// A leased payment, as the `load` statement gives it.
pub struct Leased {
    pub handled_version: Option<String>,
    pub outcome: Option<String>,
    pub code: Option<String>,
    pub attempts: i64,
    /// The lease is still this owner's.
    pub leased: bool,
    /// The applied facts are newer than the version handled.
    pub event_due: bool,
    /// Not settled, and not looked at for recoverAfterSecs.
    pub recover_due: bool,
    pub event_version: Option<String>,
    pub event_integration: Option<String>,
    pub has_payment: bool,
    pub order: Option<StoredOrder>,
}

/// What a pass writes once the handler resolved.
pub struct Completion {
    pub payment_id: String,
    pub owner: String,
    pub version: String,
    /// `None` only for a payment seen again whose handled version has no outcome (recorded
    /// before the loop existed, taken as handled by the migration).
    pub outcome: Option<String>,
    pub code: Option<String>,
    pub settled: bool,
}

/// The longest `event_id` and `payment_id`, in UTF-8 bytes, on every store (and no U+0000):
/// the npm receiver's `MAX_ID_BYTES`. PostgreSQL's index refuses a key over about 2,700 bytes
/// and its `text` refuses a NUL, so such an event would be a 503 at every retry; held on both
/// stores alike, so moving from SQLite to PostgreSQL never meets an id one took and the other
/// cannot.
const MAX_ID_BYTES: usize = 1024;

/// Whether every store can hold `id` as an `event_id` or `payment_id`: at most `MAX_ID_BYTES`
/// and no NUL.
pub fn storable_id(id: &str) -> bool {
    id.len() <= MAX_ID_BYTES && !id.contains('\0')
}

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

    /// Runs `work` on the SQLite file (on a blocking thread), or `pg` on PostgreSQL.
    async fn either<T: Send + 'static>(
        &self,
        work: impl FnOnce(&sqlite::Store) -> Result<T, Unavailable> + Send + 'static,
        pg: impl std::future::Future<Output = Result<T, Unavailable>>,
    ) -> Result<T, Unavailable> {
        match self {
            Store::Sqlite(file) => {
                let file = Arc::clone(file);
                blocking(move || {
                    let file = file.lock().map_err(|_| poisoned())?;
                    work(&file)
                })
                .await
            }
            Store::Postgres(_) => pg.await,
        }
    }

    fn postgres(&self) -> Option<&postgres::Store> {
        match self {
            Store::Postgres(db) => Some(db),
            Store::Sqlite(_) => None,
        }
    }

    /// Stores an order once; returns the order stored for its payment, to compare.
    pub async fn record_order(&self, order: NewOrder) -> Result<Option<StoredOrder>, Unavailable> {
        let order = Arc::new(order);
        let local = Arc::clone(&order);
        let pg = self.postgres();
        self.either(move |file| file.record_order(&local), async move {
            match pg {
                Some(db) => db.record_order(&order).await,
                None => Ok(None),
            }
        })
        .await
    }

    /// Leases the payments due.
    pub async fn claim(&self, lease: Lease) -> Result<Vec<String>, Unavailable> {
        let lease = Arc::new(lease);
        let local = Arc::clone(&lease);
        let pg = self.postgres();
        self.either(move |file| file.claim(&local), async move {
            match pg {
                Some(db) => db.claim(&lease).await,
                None => Ok(Vec::new()),
            }
        })
        .await
    }

    /// What a pass needs of one leased payment, its lease renewed for `lease_secs` from now.
    pub async fn load(
        &self,
        payment_id: &str,
        owner: &str,
        recover_after_secs: i32,
        lease_secs: i32,
    ) -> Result<Option<Leased>, Unavailable> {
        let (id, who) = (payment_id.to_owned(), owner.to_owned());
        let pg = self.postgres();
        self.either(
            move |file| file.load(&id, &who, recover_after_secs, lease_secs),
            async move {
                match pg {
                    Some(db) => {
                        db.load(payment_id, owner, recover_after_secs, lease_secs)
                            .await
                    }
                    None => Ok(None),
                }
            },
        )
        .await
    }

    /// Once the handler resolved.
    pub async fn complete(&self, done: Completion) -> Result<(), Unavailable> {
        let done = Arc::new(done);
        let local = Arc::clone(&done);
        let pg = self.postgres();
        self.either(move |file| file.complete(&local), async move {
            match pg {
                Some(db) => db.complete(&done).await,
                None => Ok(()),
            }
        })
        .await
    }

    /// Right before the handler is called with fulfil: the version whose key every fulfil of
    /// the payment carries (`version`, unless one is stored); `None` when the lease was lost.
    pub async fn intend(
        &self,
        payment_id: &str,
        owner: &str,
        version: &str,
        lease_secs: i32,
    ) -> Result<Option<String>, Unavailable> {
        let (id, who, at) = (payment_id.to_owned(), owner.to_owned(), version.to_owned());
        let pg = self.postgres();
        self.either(
            move |file| file.intend(&id, &who, &at, lease_secs),
            async move {
                match pg {
                    Some(db) => db.intend(payment_id, owner, version, lease_secs).await,
                    None => Ok(None),
                }
            },
        )
        .await
    }

    /// Right before the handler of review, wait or closed: the lease renewed while it is still
    /// this owner's, run out or not; whether it was.
    pub async fn renew(
        &self,
        payment_id: &str,
        owner: &str,
        lease_secs: i32,
    ) -> Result<bool, Unavailable> {
        let (id, who) = (payment_id.to_owned(), owner.to_owned());
        let pg = self.postgres();
        self.either(move |file| file.renew(&id, &who, lease_secs), async move {
            match pg {
                Some(db) => db.renew(payment_id, owner, lease_secs).await,
                None => Ok(false),
            }
        })
        .await
    }

    /// After a failure: tried again after `delay_secs`, or at once when the payment's applied
    /// version is newer than the one the attempt loaded (`loaded`: `Some("")` when it loaded
    /// no payment, `None` when not known): the failure was about older facts.
    pub async fn retry(&self, retry: Retry<'_>) -> Result<(), Unavailable> {
        let (id, who, loaded) = (
            retry.payment_id.to_owned(),
            retry.owner.to_owned(),
            retry.loaded.map(str::to_owned),
        );
        let (delay_secs, code) = (retry.delay_secs, retry.code);
        let pg = self.postgres();
        self.either(
            move |file| {
                let loaded = loaded.as_deref();
                file.retry(&Retry {
                    payment_id: &id,
                    owner: &who,
                    delay_secs,
                    code,
                    loaded,
                })
            },
            async move {
                match pg {
                    Some(db) => db.retry(&retry).await,
                    None => Ok(()),
                }
            },
        )
        .await
    }

    /// The leases `owner` still holds given up, so that the next pass takes those payments
    /// at once instead of once the leases run out (a pass that stopped early).
    pub async fn release(&self, owner: &str) -> Result<(), Unavailable> {
        let who = owner.to_owned();
        let pg = self.postgres();
        self.either(move |file| file.release(&who), async move {
            match pg {
                Some(db) => db.release(owner).await,
                None => Ok(()),
            }
        })
        .await
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
        if !ids.iter().all(|id| storable_id(id)) {
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

    /// Records a verified event in one transaction, with the kind of secret that verified it
    /// (the events table's `secret_kind`, as the npm receiver writes it); returns what was
    /// decided.
    pub async fn record(&self, event: Event, kind: SecretKind) -> Result<Decision, Unavailable> {
        match self {
            Store::Sqlite(file) => {
                let file = Arc::clone(file);
                blocking(move || {
                    let file = file.lock().map_err(|_| poisoned())?;
                    file.record(&event, kind)
                })
                .await
            }
            Store::Postgres(db) => db.record(&event, kind).await,
        }
    }

    /// Keeps an authentic delivery that is no recordable event. The payment its body names
    /// (`data.payment_id`, read leniently), where the store knows it, is made due for the next
    /// fulfilment pass: the authoritative view stands in for facts the event could not give.
    pub async fn quarantine(&self, code: &'static str, body: Bytes) -> Result<(), Unavailable> {
        let payment_id = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|value| {
                value
                    .get("data")?
                    .get("payment_id")?
                    .as_str()
                    .map(str::to_owned)
            })
            .filter(|id| storable_id(id));
        match self {
            Store::Sqlite(file) => {
                let file = Arc::clone(file);
                blocking(move || {
                    let file = file.lock().map_err(|_| poisoned())?;
                    file.quarantine(code, &body, payment_id.as_deref())
                })
                .await
            }
            Store::Postgres(db) => db.quarantine(code, &body, payment_id.as_deref()).await,
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
