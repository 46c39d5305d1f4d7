//! The PostgreSQL store, for any number of receiver instances: the npm package's statements
//! (`statements.rs`), run as its `postgresStore` runs them. Each delivery is ONE statement,
//! so one transaction: the payment row is written only when the event is new and its version
//! greater, checked by `INSERT ... ON CONFLICT DO UPDATE ... WHERE` on the locked, latest row;
//! then the event row records the outcome. Concurrent deliveries, on any instance, end as if
//! run one after the other. (A look-up, then a write, would race under READ COMMITTED: two
//! deliveries of one payment would both read the old version and both apply.)

use std::hash::BuildHasher;
use std::time::Duration;

use cryptopay_verify::{Decision, Event, SecretKind};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Config, NoTls, Row};

mod failure;
mod fulfil;
mod migrate;

use self::failure::{Failure, describe, describe_parse, unavailable};
use super::columns::{Column, check_columns};
use super::statements::Statements;
use super::{INTEGRATION_MISMATCH, NewOrder, StoredOrder, Unavailable};

/// The schema version of `sql/postgres.sql` (the row 'receiver' of `cryptopay_schema`).
const SCHEMA_VERSION: i32 = 5;

/// PostgreSQL's `numeric` holds at most this many digits before the decimal point: a longer
/// `status_version` is quarantined (`status_version_invalid`), as the npm receiver does.
pub const NUMERIC_DIGITS: usize = 131_072;
/// The events table's primary key: a unique violation on it is a concurrent duplicate.
const EVENTS_KEY: &str = "cryptopay_events_pkey";
/// Serialization failures and deadlocks are run again this many times, then answered 503.
const RETRIES: u32 = 5;
const POOL_SIZE: usize = 16;
/// Waiting for a connection, or for the server to accept one.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// A statement that has not answered by then is a 503 (the service retries).
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Store {
    pool: Pool,
    sql: Statements,
}

impl Store {
    /// Connects, creates the tables when one is missing, checks them; an error says why (never
    /// the connection string, which may hold a password).
    pub async fn open(url: &str) -> Result<Store, String> {
        let sql = Statements::postgres()?;
        let mut config: Config = url.parse().map_err(|e: tokio_postgres::Error| {
            format!(
                "DATABASE_URL is not a PostgreSQL connection string (postgres://user:password@host/db, \
                 postgresql://..., or key=value pairs: host=... user=... dbname=...): {}",
                describe_parse(&e)
            )
        })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection that broke (a server restart) is replaced when next taken.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| format!("the PostgreSQL pool: {e}"))?;
        let store = Store { pool, sql };
        store.ready().await?;
        Ok(store)
    }

    /// As the npm store's `ready()`: the schema (under an advisory lock, so instances started
    /// together create it once; it also migrates tables of the first schema in place) only when
    /// a table is missing or the schema version is older; then the encoding and the columns'
    /// types; a read of every column where no DDL ran; writes that change nothing.
    async fn ready(&self) -> Result<(), String> {
        let failed = |what: &str, e: Failure| format!("PostgreSQL: {what}: {}", e.describe());
        let client = self
            .pool
            .get()
            .await
            .map_err(|e| failed("cannot connect (DATABASE_URL)", Failure::Pool(e)))?;
        let version = self
            .schema_version(&client)
            .await
            .map_err(|e| failed("reading the schema version", e))?;
        if version > SCHEMA_VERSION {
            return Err(format!(
                "PostgreSQL: the tables are at schema version {version}, newer than this receiver's ({SCHEMA_VERSION}): a newer release made them"
            ));
        }
        let mut found = self
            .columns(&client)
            .await
            .map_err(|e| failed("reading the tables' columns", e))?;
        let create =
            found.is_empty() || found.iter().any(|c| c.name.is_none()) || version < SCHEMA_VERSION;
        if create {
            if let Err(e) = migrate::migrate(&client, self.sql.whole("schema")).await {
                if e.code() == Some(&SqlState::INSUFFICIENT_PRIVILEGE) {
                    return Err(format!(
                        "PostgreSQL: this role may not create the receiver's tables ({}): create them once as a role \
                         that may (the schema statement of sql/postgres.sql), then GRANT \
                         SELECT, INSERT, UPDATE on them and USAGE on the quarantine id sequence to this role",
                        describe(&e)
                    ));
                }
                return Err(failed("creating the tables", Failure::Db(e)));
            }
            found = self
                .columns(&client)
                .await
                .map_err(|e| failed("reading the tables' columns", e))?;
        }
        check_columns(&found)?;
        if !create {
            client_query(&client, &self.sql.one("check"), &[])
                .await
                .map_err(|e| failed("reading the tables", e))?;
        }
        if let Err(e) = client_query(&client, &self.sql.one("writable"), &[]).await {
            return Err(match e.stuck_fix() {
                Some(fix) => format!(
                    "PostgreSQL: no delivery could be recorded ({}): {fix}",
                    e.describe()
                ),
                None => failed("checking that the tables are writable", e),
            });
        }
        Ok(())
    }

    /// The tables' columns (a row with no name for a table that is missing).
    async fn columns(&self, client: &tokio_postgres::Client) -> Result<Vec<Column>, Failure> {
        let rows = client_query(client, &self.sql.one("columns"), &[]).await?;
        Ok(rows.iter().map(Column::from).collect())
    }

    /// 0: no tables; the version row's; without one (the first schema's tables, or a later
    /// one's whose row was lost), the version their columns show.
    async fn schema_version(&self, client: &tokio_postgres::Client) -> Result<i32, Failure> {
        let rows = client_query(client, &self.sql.one("tables"), &[]).await?;
        let flag = |i: usize| {
            rows.first()
                .and_then(|r| r.try_get::<_, bool>(i).ok())
                .unwrap_or(false)
        };
        let by_columns = rows
            .first()
            .and_then(|r| r.try_get::<_, i32>(2).ok())
            .unwrap_or(1);
        if flag(0) {
            let rows = client_query(client, &self.sql.one("version"), &[]).await?;
            if let Some(version) = rows
                .first()
                .and_then(|r| r.try_get::<_, Option<i32>>(0).ok())
                .flatten()
            {
                return Ok(version);
            }
        }
        Ok(if flag(1) { by_columns } else { 0 })
    }

    /// Records a verified event in one statement; returns what was decided.
    pub async fn record(&self, event: &Event, kind: SecretKind) -> Result<Decision, Unavailable> {
        let (id, payment, version, data, body) = (
            event.event_id(),
            event.payment_id(),
            event.status_version().as_str(),
            event.data_json(),
            event.envelope_json().as_bytes(),
        );
        // As the npm store passes them: the version as its canonical digits and the data as
        // JSON text (the statement casts them: $3::numeric, $4::text::json), the body as bytes;
        // the integration NULL (one set of secrets), the secret's kind as the core named it.
        let none: Option<&str> = None;
        let kind = kind.as_str();
        let params: [(&(dyn ToSql + Sync), Type); 7] = [
            (&id, Type::TEXT),
            (&payment, Type::TEXT),
            (&version, Type::TEXT),
            (&data, Type::TEXT),
            (&body, Type::BYTEA),
            (&none, Type::TEXT),
            (&kind, Type::TEXT),
        ];
        let record = self.sql.one("record");
        let mut attempt = 0;
        loop {
            let failure = match self.run(&record, &params).await {
                Ok(rows) => return decision_of(&rows),
                Err(failure) => failure,
            };
            if let Failure::Db(e) = &failure {
                // Another transaction committed this event_id while this one applied it: the
                // statement was rolled back whole, nothing changed. Run again, it reads the
                // event stored: a duplicate, or integration_mismatch when it came through a
                // named integration (tables shared with an npm receiver that names them).
                let constraint = e.as_db_error().and_then(|db| db.constraint());
                if e.code() == Some(&SqlState::UNIQUE_VIOLATION) && constraint == Some(EVENTS_KEY) {
                    if attempt < RETRIES {
                        attempt = attempt.saturating_add(1);
                        continue;
                    }
                    return Ok(Decision::Duplicate);
                }
            }
            // Rolled back whole by the server: run again after a short random pause.
            if failure.passing() && attempt < RETRIES {
                attempt = attempt.saturating_add(1);
                pause(attempt).await;
                continue;
            }
            return Err(unavailable(&failure));
        }
    }

    /// Keeps an authentic delivery that is no recordable event; its payment, where the store
    /// knows it, made due first (`quarantine_due`, a statement of its own: a failure after it
    /// answers 503 and costs one more look at the payment).
    pub async fn quarantine(
        &self,
        code: &str,
        body: &[u8],
        payment_id: Option<&str>,
    ) -> Result<(), Unavailable> {
        if let Some(payment_id) = payment_id {
            // The integration NULL (one set of secrets): a payment another integration's
            // (tables shared with an npm receiver that names them) is not made due.
            let none: Option<&str> = None;
            let params: [(&(dyn ToSql + Sync), Type); 2] =
                [(&payment_id, Type::TEXT), (&none, Type::TEXT)];
            self.query("quarantine_due", &params).await?;
        }
        let params: [(&(dyn ToSql + Sync), Type); 2] = [(&code, Type::TEXT), (&body, Type::BYTEA)];
        self.query("quarantine", &params).await.map(|_| ())
    }

    /// Stores an order once; returns the order stored for its payment (`None` when this call
    /// stored it), to compare.
    pub async fn record_order(&self, order: &NewOrder) -> Result<Option<StoredOrder>, Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 4] = [
            (&order.payment_id, Type::TEXT),
            (&order.order_ref, Type::TEXT),
            (&order.source_amount, Type::TEXT),
            (&order.integration, Type::TEXT),
        ];
        let rows = self.query("order", &params).await?;
        let row = rows.first();
        let inserted = row
            .and_then(|r| r.try_get::<_, bool>(0).ok())
            .unwrap_or(false);
        if inserted {
            return Ok(None);
        }
        let stored = |row: &Row, at: usize| {
            row.try_get::<_, Option<String>>(at + 1)
                .ok()
                .flatten()
                .map(|source_amount| StoredOrder {
                    order_ref: row.try_get(at).ok().flatten(),
                    source_amount,
                    integration: row.try_get(at + 2).ok().flatten(),
                })
        };
        if let Some(order) = row.and_then(|row| stored(row, 1)) {
            return Ok(Some(order));
        }
        // Not inserted, yet not seen: another request committed it after this statement's
        // snapshot. Read it again (a new snapshot), for the caller to compare.
        let params: [(&(dyn ToSql + Sync), Type); 1] = [(&order.payment_id, Type::TEXT)];
        let rows = self.query("order_read", &params).await?;
        match rows.first().and_then(|row| stored(row, 0)) {
            Some(order) => Ok(Some(order)),
            None => Err(Unavailable(
                "the order was neither stored nor found; try again".to_owned(),
            )),
        }
    }

    /// One statement on a connection of the pool, bounded in time.
    async fn run(
        &self,
        sql: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Vec<Row>, Failure> {
        let client = self.pool.get().await.map_err(Failure::Pool)?;
        let result = client_query(&client, sql, params).await;
        if matches!(result, Err(Failure::Timeout)) {
            // The statement may still run on the server (waiting on a lock, or on a server
            // that stopped answering), and the connection's next query would queue behind it:
            // the server is asked to cancel it, then the connection is closed instead of being
            // handed to the next delivery (in that order: a pooler such as PgBouncer finds the
            // statement by the client connection the cancel names).
            let cancel = client.cancel_token();
            let connection = deadpool_postgres::Object::take(client);
            tokio::spawn(async move {
                let _ = tokio::time::timeout(CONNECT_TIMEOUT, cancel.cancel_query(NoTls)).await;
                drop(connection);
            });
        }
        result
    }

    /// The statement of `sql/postgres.sql` named `name`, run again after a serialization
    /// failure or a deadlock (a `complete` racing deliveries that write the same payment); its
    /// failure as the 503 it answers.
    async fn query(
        &self,
        name: &str,
        params: &[(&(dyn ToSql + Sync), Type)],
    ) -> Result<Vec<Row>, Unavailable> {
        let statement = self.sql.one(name);
        let mut attempt = 0;
        loop {
            match self.run(&statement, params).await {
                Ok(rows) => return Ok(rows),
                Err(failure) if failure.passing() && attempt < RETRIES => {
                    attempt = attempt.saturating_add(1);
                    pause(attempt).await;
                }
                Err(failure) => return Err(unavailable(&failure)),
            }
        }
    }
}

/// An unnamed statement (parse, bind and execute in one round trip), with its parameters' types
/// given: it works through a pooler in transaction mode (PgBouncer), where named prepared
/// statements may not.
async fn client_query(
    client: &tokio_postgres::Client,
    sql: &str,
    params: &[(&(dyn ToSql + Sync), Type)],
) -> Result<Vec<Row>, Failure> {
    match tokio::time::timeout(STATEMENT_TIMEOUT, client.query_typed(sql, params)).await {
        Ok(result) => result.map_err(Failure::Db),
        Err(_) => Err(Failure::Timeout),
    }
}

/// The decision in the record statement's rows: none for a duplicate, else one row saying
/// apply or stale. Any other shape, and integration_mismatch, is a 503, never a guessed 200.
fn decision_of(rows: &[Row]) -> Result<Decision, Unavailable> {
    match rows {
        [] => Ok(Decision::Duplicate),
        [row] => match row.try_get::<_, &str>(0) {
            Ok("apply") => Ok(Decision::Apply),
            Ok("stale") => Ok(Decision::Stale),
            Ok("integration_mismatch") => Err(Unavailable(INTEGRATION_MISMATCH.to_owned())),
            _ => Err(Unavailable(
                "the record statement returned an unexpected row".to_owned(),
            )),
        },
        _ => Err(Unavailable(
            "the record statement returned several rows".to_owned(),
        )),
    }
}

/// Up to 10 * 2^attempt milliseconds, at random (retries of one payment spread apart).
async fn pause(attempt: u32) {
    let random = std::collections::hash_map::RandomState::new().hash_one(attempt);
    let millis = random.checked_rem(10_u64 << attempt.min(10)).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(millis)).await;
}
