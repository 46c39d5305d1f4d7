//! The PostgreSQL store's part in fulfilment (`Fulfilment` in `fulfil.rs`): the payments due
//! leased, one read, the handler's intent and outcome written, a failure's retry scheduled;
//! each one statement of `sql/postgres.sql`, as the npm package's `postgresStore` runs it.

use tokio_postgres::Row;
use tokio_postgres::types::{ToSql, Type};

use super::Store;
use crate::store::{
    Completion, Lease, Leased, RECHECK_CLOSED_SECS, Retry, StoredOrder, Unavailable,
};

impl Store {
    /// Leases the payments due: FOR UPDATE SKIP LOCKED, then the lease written.
    pub async fn claim(&self, lease: &Lease) -> Result<Vec<String>, Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 5] = [
            (&lease.owner, Type::TEXT),
            (&lease.lease_secs, Type::INT4),
            (&lease.batch, Type::INT4),
            (&lease.recover_after_secs, Type::INT4),
            (&RECHECK_CLOSED_SECS, Type::INT4),
        ];
        let rows = self.query("claim", &params).await?;
        Ok(rows
            .iter()
            .filter_map(|r| r.try_get::<_, String>(0).ok())
            .collect())
    }

    /// What a pass needs of one leased payment.
    pub async fn load(
        &self,
        payment_id: &str,
        owner: &str,
        recover_after_secs: i32,
        lease_secs: i32,
    ) -> Result<Option<Leased>, Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 5] = [
            (&payment_id, Type::TEXT),
            (&owner, Type::TEXT),
            (&recover_after_secs, Type::INT4),
            (&lease_secs, Type::INT4),
            (&RECHECK_CLOSED_SECS, Type::INT4),
        ];
        let rows = self.query("load", &params).await?;
        Ok(rows.first().map(leased))
    }

    /// Once the handler resolved: the version handled raised (never lowered), the lease released.
    pub async fn complete(&self, done: &Completion) -> Result<(), Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 7] = [
            (&done.payment_id, Type::TEXT),
            (&done.owner, Type::TEXT),
            (&done.version, Type::TEXT),
            (&done.outcome, Type::TEXT),
            (&done.code, Type::TEXT),
            (&done.settled, Type::BOOL),
            (&RECHECK_CLOSED_SECS, Type::INT4),
        ];
        self.query("complete", &params).await.map(|_| ())
    }

    /// Right before the handler is called with fulfil: the version whose key every fulfil of
    /// the payment carries (kept when one is stored); `None` when the lease was lost.
    pub async fn intend(
        &self,
        payment_id: &str,
        owner: &str,
        version: &str,
        lease_secs: i32,
    ) -> Result<Option<String>, Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 4] = [
            (&payment_id, Type::TEXT),
            (&owner, Type::TEXT),
            (&version, Type::TEXT),
            (&lease_secs, Type::INT4),
        ];
        let rows = self.query("intend", &params).await?;
        Ok(rows
            .first()
            .and_then(|row| row.try_get::<_, Option<String>>(0).ok().flatten()))
    }

    /// Right before the handler of review, wait or closed: the lease renewed while it is still
    /// this owner's, run out or not; whether it was.
    pub async fn renew(
        &self,
        payment_id: &str,
        owner: &str,
        lease_secs: i32,
    ) -> Result<bool, Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 3] = [
            (&payment_id, Type::TEXT),
            (&owner, Type::TEXT),
            (&lease_secs, Type::INT4),
        ];
        let rows = self.query("renew", &params).await?;
        Ok(!rows.is_empty())
    }

    /// The leases `owner` still holds, given up.
    pub async fn release(&self, owner: &str) -> Result<(), Unavailable> {
        let params: [(&(dyn ToSql + Sync), Type); 1] = [(&owner, Type::TEXT)];
        self.query("release", &params).await.map(|_| ())
    }

    /// After a failure: the attempt counted, the lease released, the next try after the delay
    /// (at once when facts newer than `loaded` were applied meanwhile; see `Store::retry`).
    pub async fn retry(&self, retry: &Retry<'_>) -> Result<(), Unavailable> {
        let delay = i32::try_from(retry.delay_secs).unwrap_or(i32::MAX);
        let params: [(&(dyn ToSql + Sync), Type); 5] = [
            (&retry.payment_id, Type::TEXT),
            (&retry.owner, Type::TEXT),
            (&delay, Type::INT4),
            (&retry.code, Type::TEXT),
            (&retry.loaded, Type::TEXT),
        ];
        self.query("retry", &params).await.map(|_| ())
    }
}

/// A `load` row.
fn leased(row: &Row) -> Leased {
    let text = |i: usize| row.try_get::<_, Option<String>>(i).ok().flatten();
    let flag = |i: usize| {
        row.try_get::<_, Option<bool>>(i)
            .ok()
            .flatten()
            .unwrap_or(false)
    };
    Leased {
        handled_version: text(0),
        outcome: text(1),
        code: text(2),
        attempts: row
            .try_get::<_, Option<i32>>(3)
            .ok()
            .flatten()
            .map_or(0, i64::from),
        leased: flag(4),
        event_due: flag(5),
        recover_due: flag(6),
        event_version: text(7),
        event_integration: text(8),
        has_payment: flag(10),
        order: flag(11).then(|| StoredOrder {
            order_ref: text(12),
            source_amount: text(13).unwrap_or_default(),
            integration: text(14),
        }),
    }
}
