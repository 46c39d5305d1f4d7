//! The SQLite store: one SQLite file, one transaction per delivery, with the same
//! semantics as `decide_event` (and as the npm package's `sqliteStore`): an `event_id`
//! already recorded is a duplicate (nothing changes); otherwise the event is recorded and
//! applied to its payment only when no version is stored or its version is greater.
//! `status_version` is stored as its exact digits and compared as a `StatusVersion`, never
//! as a float or a fixed-width integer.

use cryptopay_verify::{Decision, Event, StatusVersion, Stored, decide_event};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::Unavailable;

impl From<rusqlite::Error> for Unavailable {
    fn from(e: rusqlite::Error) -> Self {
        // SQLite's message (the statement's values are never in it).
        Unavailable(format!("SQLite: {e}"))
    }
}

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS cryptopay_events (
        event_id TEXT PRIMARY KEY,
        payment_id TEXT NOT NULL,
        status_version TEXT NOT NULL,
        decision TEXT NOT NULL,
        received_at INTEGER NOT NULL,
        body BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS cryptopay_payments (
        payment_id TEXT PRIMARY KEY,
        status_version TEXT NOT NULL,
        event_id TEXT NOT NULL,
        data TEXT NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS cryptopay_quarantine (
        id INTEGER PRIMARY KEY,
        received_at INTEGER NOT NULL,
        code TEXT NOT NULL,
        body BLOB NOT NULL
    );
";

pub struct Store {
    db: Connection,
}

impl Store {
    /// Opens (and creates when missing) the store, durable at every commit.
    pub fn open(path: &str) -> rusqlite::Result<Self> {
        let db = Connection::open(path)?;
        db.pragma_update(None, "journal_mode", "WAL")?;
        db.pragma_update(None, "synchronous", "FULL")?;
        db.busy_timeout(std::time::Duration::from_secs(5))?;
        db.execute_batch(SCHEMA)?;
        Ok(Store { db })
    }

    /// Records a verified event in one transaction; returns what was decided.
    pub fn record(&self, event: &Event, now_secs: u64) -> Result<Decision, Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        let seen = tx
            .query_row(
                "SELECT 1 FROM cryptopay_events WHERE event_id = ?1",
                [event.event_id()],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        let stored_version: Option<String> = tx
            .query_row(
                "SELECT status_version FROM cryptopay_payments WHERE payment_id = ?1",
                [event.payment_id()],
                |row| row.get(0),
            )
            .optional()?;
        let status_version =
            match stored_version {
                // Only this program writes the column, with a valid version's digits.
                Some(text) => Some(StatusVersion::parse(&text).map_err(|_| {
                    Unavailable("a stored status_version is not a version".to_owned())
                })?),
                None => None,
            };
        let decision = decide_event(
            event.status_version(),
            &Stored {
                event_seen: seen,
                status_version,
            },
        );
        let at = i64::try_from(now_secs).unwrap_or(i64::MAX);
        if decision != Decision::Duplicate {
            tx.execute(
                "INSERT INTO cryptopay_events VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    event.event_id(),
                    event.payment_id(),
                    event.status_version().as_str(),
                    decision.as_str(),
                    at,
                    event.envelope_json().as_bytes()
                ],
            )?;
        }
        if decision == Decision::Apply {
            tx.execute(
                "INSERT INTO cryptopay_payments VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (payment_id) DO UPDATE SET status_version = excluded.status_version,
                     event_id = excluded.event_id, data = excluded.data, updated_at = excluded.updated_at",
                params![
                    event.payment_id(),
                    event.status_version().as_str(),
                    event.event_id(),
                    event.data_json(),
                    at
                ],
            )?;
        }
        tx.commit()?;
        Ok(decision)
    }

    /// Keeps an authentic delivery that could not be read as an event.
    pub fn quarantine(&self, code: &str, body: &[u8], now_secs: u64) -> Result<(), Unavailable> {
        let at = i64::try_from(now_secs).unwrap_or(i64::MAX);
        self.db.execute(
            "INSERT INTO cryptopay_quarantine (received_at, code, body) VALUES (?1, ?2, ?3)",
            params![at, code, body],
        )?;
        Ok(())
    }
}
