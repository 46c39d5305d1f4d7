//! The SQLite store: one SQLite file, with the npm package's statements (`sql/sqlite.sql`,
//! read by `statements.rs`), run as its `sqliteStore` runs them: each delivery `apply` then
//! `record` in one `BEGIN IMMEDIATE` transaction, so that an `event_id` already recorded is a
//! duplicate (nothing changes) and a payment is applied only when no version is stored or the
//! event's is greater (`status_version` as exact digit text, compared by length then text:
//! never a float or a fixed-width integer). The merchant loop's statements run the same way.

use cryptopay_verify::{Decision, Event, SecretKind};
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::statements::Statements;
use super::{
    Completion, INTEGRATION_MISMATCH, Lease, Leased, NewOrder, RECHECK_CLOSED_SECS, Retry,
    StoredOrder, Unavailable,
};

/// The schema version of `sql/sqlite.sql` (the row 'receiver' of `cryptopay_schema`).
const SCHEMA_VERSION: i64 = 5;

impl From<rusqlite::Error> for Unavailable {
    fn from(e: rusqlite::Error) -> Self {
        // SQLite's message (the statement's values are never in it).
        Unavailable(format!("SQLite: {e}"))
    }
}

pub struct Store {
    db: Connection,
    sql: Statements,
}

impl Store {
    /// Opens (and creates when missing, or migrates in place from the first schema) the
    /// store, durable at every commit.
    pub fn open(path: &str) -> Result<Self, String> {
        let sql = Statements::sqlite()?;
        let db = Connection::open(path).map_err(|e| e.to_string())?;
        let sqlite = |e: rusqlite::Error| e.to_string();
        db.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sqlite)?;
        db.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        db.pragma_update(None, "synchronous", "FULL")
            .map_err(sqlite)?;
        let tx = rusqlite::Transaction::new_unchecked(&db, TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let version = schema_version(&tx, &sql).map_err(sqlite)?;
        if version > SCHEMA_VERSION {
            return Err(format!(
                "the tables are at schema version {version}, newer than this receiver's ({SCHEMA_VERSION}): a newer release made them"
            ));
        }
        if version == 1 {
            // Made by the first schema of sql/sqlite.sql, or by an earlier release of this
            // example, whose own schema differed (received_at an integer with no default).
            let received_at: Option<String> = tx
                .query_row(
                    "SELECT dflt_value FROM pragma_table_info('cryptopay_events') WHERE name = 'received_at'",
                    [],
                    |row| row.get(0),
                )
                .optional()
                .map_err(sqlite)?
                .flatten();
            if received_at.is_none() {
                return Err("the file's tables were made by an earlier release of this example, whose schema differs from sql/sqlite.sql: start with a new file (DATABASE=...)".to_owned());
            }
            for statement in sql.all("migrate_1") {
                if !adds_standing_column(&tx, &statement).map_err(sqlite)? {
                    tx.execute_batch(&statement).map_err(sqlite)?;
                }
            }
        }
        // Version 2 to 3: the fulfilment row's fulfil_version; 2, 3 or 4 to 5: its recheck_at
        // (version 1 has no such table: `schema` makes it whole).
        if version == 2 {
            for statement in sql.all("migrate_2") {
                if !adds_standing_column(&tx, &statement).map_err(sqlite)? {
                    tx.execute_batch(&statement).map_err(sqlite)?;
                }
            }
        }
        if (2..=4).contains(&version) {
            for statement in sql.all("migrate_4") {
                if !adds_standing_column(&tx, &statement).map_err(sqlite)? {
                    tx.execute_batch(&statement).map_err(sqlite)?;
                }
            }
        }
        for statement in sql.all("schema") {
            tx.execute_batch(&statement).map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)?;
        Ok(Store { db, sql })
    }

    /// Records a verified event in one transaction; returns what was decided.
    pub fn record(&self, event: &Event, kind: SecretKind) -> Result<Decision, Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        let (id, payment, version) = (
            event.event_id(),
            event.payment_id(),
            event.status_version().as_str(),
        );
        // The integration: NULL (one set of secrets); the secret's kind as the core named it.
        let none: Option<&str> = None;
        // The payment's stored facts or its order, or this event, came through a named
        // integration (tables shared with an npm receiver that names its integrations):
        // nothing is written.
        let foreign: Option<String> = tx
            .prepare_cached(&self.sql.one("foreign"))?
            .query_row(params![id, payment, none], |row| row.get(0))
            .optional()?;
        if foreign.is_some() {
            return Err(Unavailable(INTEGRATION_MISMATCH.to_owned()));
        }
        tx.prepare_cached(&self.sql.one("apply"))?.execute(params![
            id,
            payment,
            version,
            event.data_json(),
            none
        ])?;
        let decision: Option<String> = tx
            .prepare_cached(&self.sql.one("record"))?
            .query_row(
                params![
                    id,
                    payment,
                    version,
                    event.envelope_json().as_bytes(),
                    none,
                    kind.as_str()
                ],
                |row| row.get(0),
            )
            .optional()?;
        tx.commit()?;
        match decision.as_deref() {
            None => Ok(Decision::Duplicate),
            Some("apply") => Ok(Decision::Apply),
            Some("stale") => Ok(Decision::Stale),
            Some(_) => Err(Unavailable(
                "the record statement returned an unexpected row".to_owned(),
            )),
        }
    }

    /// Keeps an authentic delivery that could not be read as an event.
    /// Its payment, where the store knows it, made due in the same transaction.
    pub fn quarantine(
        &self,
        code: &str,
        body: &[u8],
        payment_id: Option<&str>,
    ) -> Result<(), Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        if let Some(payment_id) = payment_id {
            // The integration NULL (one set of secrets): a payment another integration's
            // (tables shared with an npm receiver that names them) is not made due.
            let none: Option<&str> = None;
            tx.prepare_cached(&self.sql.one("quarantine_due"))?
                .execute(params![payment_id, none])?;
        }
        tx.prepare_cached(&self.sql.one("quarantine"))?
            .execute(params![code, body])?;
        tx.commit()?;
        Ok(())
    }

    /// Stores an order once; returns the order stored for its payment (to compare).
    pub fn record_order(&self, order: &NewOrder) -> Result<Option<StoredOrder>, Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        tx.prepare_cached(&self.sql.one("order_mark"))?
            .execute([&order.payment_id])?;
        tx.prepare_cached(&self.sql.one("order"))?.execute(params![
            order.payment_id,
            order.order_ref,
            order.source_amount,
            order.integration
        ])?;
        for name in ["order_unheld", "order_state"] {
            tx.prepare_cached(&self.sql.one(name))?
                .execute([&order.payment_id])?;
        }
        let stored = tx
            .prepare_cached(&self.sql.one("order_read"))?
            .query_row([&order.payment_id], |row| {
                Ok(StoredOrder {
                    order_ref: row.get(0)?,
                    source_amount: row.get(1)?,
                    integration: row.get(2)?,
                })
            })
            .optional()?;
        tx.commit()?;
        Ok(stored)
    }

    /// Leases the payments due (one writer at a time: the conditional update is the lease),
    /// in the order a pass works them: newer facts first, then the longest not looked at, then
    /// by id (RETURNING keeps no order).
    pub fn claim(&self, lease: &Lease) -> Result<Vec<String>, Unavailable> {
        type Claimed = (bool, String, String);
        let row = |row: &rusqlite::Row<'_>| -> rusqlite::Result<Claimed> {
            Ok((
                row.get("newer")?,
                row.get("seen_at")?,
                row.get("payment_id")?,
            ))
        };
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        // A payment with newer facts and no fulfilment row yet gets one first, so the claim
        // takes it with the other newer facts, ahead of every recovery check.
        tx.prepare_cached(&self.sql.one("claim_fresh"))?
            .execute(params![lease.batch])?;
        let mut rows: Vec<Claimed> = tx
            .prepare_cached(&self.sql.one("claim"))?
            .query_map(
                params![
                    lease.owner,
                    lease.lease_secs,
                    lease.batch,
                    lease.recover_after_secs,
                    RECHECK_CLOSED_SECS
                ],
                row,
            )?
            .collect::<Result<_, _>>()?;
        tx.commit()?;
        rows.sort_by(|(a_newer, a_seen, a_id), (b_newer, b_seen, b_id)| {
            b_newer
                .cmp(a_newer)
                .then_with(|| a_seen.cmp(b_seen))
                .then_with(|| a_id.cmp(b_id))
        });
        Ok(rows.into_iter().map(|(_, _, id)| id).collect())
    }

    /// What a pass needs of one leased payment, its lease renewed from now while it is
    /// still this owner's.
    pub fn load(
        &self,
        payment_id: &str,
        owner: &str,
        recover_after_secs: i32,
        lease_secs: i32,
    ) -> Result<Option<Leased>, Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        tx.prepare_cached(&self.sql.one("load_renew"))?
            .execute(params![owner, lease_secs, payment_id])?;
        let state = tx
            .prepare_cached(&self.sql.one("load"))?
            .query_row(
                params![owner, recover_after_secs, payment_id, RECHECK_CLOSED_SECS],
                leased,
            )
            .optional()?;
        tx.commit()?;
        Ok(state)
    }

    /// Once the handler resolved: the version handled raised (never lowered), the lease released.
    pub fn complete(&self, done: &Completion) -> Result<(), Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        let _handled: Option<String> = tx
            .prepare_cached(&self.sql.one("complete"))?
            .query_row(
                params![
                    done.payment_id,
                    done.owner,
                    done.version,
                    done.outcome,
                    done.code,
                    i64::from(done.settled),
                    RECHECK_CLOSED_SECS
                ],
                |row| row.get(0),
            )
            .optional()?
            .flatten();
        tx.prepare_cached(&self.sql.one("complete_mark"))?
            .execute([&done.payment_id])?;
        tx.commit()?;
        Ok(())
    }

    /// Right before the handler is called with fulfil: the version whose key every fulfil of
    /// the payment carries (kept when one is stored); `None` when the lease was lost.
    pub fn intend(
        &self,
        payment_id: &str,
        owner: &str,
        version: &str,
        lease_secs: i32,
    ) -> Result<Option<String>, Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        let first: Option<String> = tx
            .prepare_cached(&self.sql.one("intend"))?
            .query_row(params![payment_id, owner, version, lease_secs], |row| {
                row.get(0)
            })
            .optional()?
            .flatten();
        tx.commit()?;
        Ok(first)
    }

    /// Right before the handler of review, wait or closed: the lease renewed while it is still
    /// this owner's, run out or not; whether it was.
    pub fn renew(
        &self,
        payment_id: &str,
        owner: &str,
        lease_secs: i32,
    ) -> Result<bool, Unavailable> {
        let renewed: Option<i64> = self
            .db
            .prepare_cached(&self.sql.one("renew"))?
            .query_row(params![payment_id, owner, lease_secs], |row| row.get(0))
            .optional()?;
        Ok(renewed.is_some())
    }

    /// The leases `owner` still holds, given up.
    pub fn release(&self, owner: &str) -> Result<(), Unavailable> {
        self.db
            .prepare_cached(&self.sql.one("release"))?
            .execute([owner])?;
        Ok(())
    }

    /// After a failure: the attempt counted, the lease released, the next try due (`Store::retry`).
    pub fn retry(&self, r: &Retry<'_>) -> Result<(), Unavailable> {
        let tx = rusqlite::Transaction::new_unchecked(&self.db, TransactionBehavior::Immediate)?;
        let args = params![r.payment_id, r.owner, r.delay_secs, r.code, r.loaded];
        let _attempts: Option<i64> = tx
            .prepare_cached(&self.sql.one("retry"))?
            .query_row(args, |row| row.get(0))
            .optional()?;
        tx.commit()?;
        Ok(())
    }
}

/// 0: no tables; the version row's; without one (the first schema's tables, or a later
/// one's whose row was lost), the version their columns show.
fn schema_version(db: &Connection, sql: &Statements) -> rusqlite::Result<i64> {
    let (has_schema, has_events, by_columns): (i64, i64, i64) =
        db.query_row(&sql.one("tables"), [], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?))
        })?;
    if has_schema > 0 {
        let row: Option<i64> = db.query_row(&sql.one("version"), [], |row| row.get(0))?;
        if let Some(version) = row {
            return Ok(version);
        }
    }
    Ok(if has_events > 0 { by_columns } else { 0 })
}

/// A `load` row (SQLite's booleans are 0 and 1).
fn leased(row: &Row<'_>) -> rusqlite::Result<Leased> {
    let flag = |i: usize| -> rusqlite::Result<bool> {
        Ok(row.get::<_, Option<i64>>(i)?.unwrap_or(0) != 0)
    };
    let has_order = flag(11)?;
    Ok(Leased {
        handled_version: row.get(0)?,
        outcome: row.get(1)?,
        code: row.get(2)?,
        attempts: row.get::<_, Option<i64>>(3)?.unwrap_or(0),
        leased: flag(4)?,
        event_due: flag(5)?,
        recover_due: flag(6)?,
        event_version: row.get(7)?,
        event_integration: row.get(8)?,
        has_payment: flag(10)?,
        order: if has_order {
            Some(StoredOrder {
                order_ref: row.get(12)?,
                source_amount: row.get(13)?,
                integration: row.get(14)?,
            })
        } else {
            None
        },
    })
}

/// Whether `statement` adds a column its table already has: tables set back to an older
/// version by hand keep the columns a newer one added, and SQLite has no ADD COLUMN IF NOT
/// EXISTS (the ALTER would fail every start), as the npm stores leave it out.
fn adds_standing_column(tx: &rusqlite::Transaction<'_>, statement: &str) -> rusqlite::Result<bool> {
    let words: Vec<&str> = statement.split_whitespace().take(6).collect();
    let [alter, table_word, table, add, column_word, column] = words.as_slice() else {
        return Ok(false);
    };
    let adds = alter.eq_ignore_ascii_case("ALTER")
        && table_word.eq_ignore_ascii_case("TABLE")
        && add.eq_ignore_ascii_case("ADD")
        && column_word.eq_ignore_ascii_case("COLUMN");
    if !adds {
        return Ok(false);
    }
    tx.query_row(
        "SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2",
        [table, column],
        |row| row.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: &str, payment_id: &str) -> Event {
        let body = format!(
            r#"{{"schema_version":"1","event_id":"{id}","event_type":"payment.updated","occurred_at":"2026-11-22T10:00:00Z","data":{{"payment_id":"{payment_id}","status":"paid","status_version":3}}}}"#
        );
        cryptopay_verify::parse_event(body.as_bytes()).unwrap()
    }

    fn order(payment_id: &str) -> NewOrder {
        NewOrder {
            payment_id: payment_id.to_owned(),
            order_ref: Some(format!("order-{payment_id}")),
            source_amount: r#"{"kind":"fiat","currency":"EUR","amount_raw":"4990"}"#.to_owned(),
            integration: None,
        }
    }

    #[test]
    fn a_claim_takes_newer_facts_first_rows_or_not_then_the_longest_not_looked_at() {
        let dir = std::env::temp_dir().join(format!("axum-claim-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("receiver.sqlite");
        let store = Store::open(file.to_str().unwrap()).unwrap();
        // pay_a: an order with no news (a recovery check); pay_b: an order, then paid; pay_c:
        // paid, its order not recorded (a row made by the claim).
        store.record_order(&order("pay_a")).unwrap();
        store.record_order(&order("pay_b")).unwrap();
        assert_eq!(
            store
                .record(&event("evt_b", "pay_b"), SecretKind::Active)
                .unwrap(),
            Decision::Apply
        );
        assert_eq!(
            store
                .record(&event("evt_c", "pay_c"), SecretKind::Active)
                .unwrap(),
            Decision::Apply
        );
        let lease = Lease {
            owner: "pass-1".to_owned(),
            lease_secs: 300,
            batch: 2,
            recover_after_secs: 0,
        };
        // A batch of two: the recovery check, due as well, never crowds out the payment with
        // no row yet.
        let claimed = store.claim(&lease).unwrap();
        let rest = store
            .claim(&Lease {
                owner: "pass-2".to_owned(),
                batch: 10,
                ..lease
            })
            .unwrap();
        drop(store);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(claimed, ["pay_b", "pay_c"]);
        assert_eq!(rest, ["pay_a"]);
    }
}
