//! The schema's migration at start, run again where it failed for a reason that passes.

use std::time::Duration;

use tokio_postgres::error::SqlState;

use super::failure::is_passing;
use super::{RETRIES, pause};

/// After the schema gave up waiting for a lock (55P03: a long transaction on the tables, or
/// another instance migrating a large table), the first pause before trying again, the
/// longest, and how many tries: 5, 10, 20, then 30 s (each try queues the other instances'
/// writes behind its lock request for up to 5 s, so they come less and less often), about
/// four minutes in all.
const LOCK_PAUSE: Duration = Duration::from_secs(5);
const LOCK_PAUSE_MAX: Duration = Duration::from_secs(30);
const LOCK_TRIES: u32 = 8;

/// The schema, run again where the server rolled it back for a reason that passes: a
/// serialization failure or a deadlock (instances starting at once under REPEATABLE READ or
/// SERIALIZABLE), at once; a lock it waited 5 s for, after a pause that doubles (5 s to 30 s),
/// eight times, said on stderr each time. Anything else, or past that, fails the start.
pub(super) async fn migrate(
    client: &deadpool_postgres::Client,
    schema: &str,
) -> Result<(), tokio_postgres::Error> {
    let mut attempt: u32 = 0;
    loop {
        let Err(e) = client.batch_execute(schema).await else {
            return Ok(());
        };
        let code = e.code();
        if code == Some(&SqlState::LOCK_NOT_AVAILABLE) && attempt < LOCK_TRIES {
            let wait = LOCK_PAUSE
                .saturating_mul(1_u32 << attempt.min(3))
                .min(LOCK_PAUSE_MAX);
            eprintln!(
                "axum-receiver: the schema migration gave up waiting for a lock (55P03: a long transaction on the \
                 receiver's tables, pg_stat_activity names it, or another instance migrating); trying again in {} s",
                wait.as_secs()
            );
            tokio::time::sleep(wait).await;
        } else if is_passing(&e) && attempt < RETRIES {
            pause(attempt.saturating_add(1)).await;
        } else {
            return Err(e);
        }
        attempt = attempt.saturating_add(1);
    }
}
