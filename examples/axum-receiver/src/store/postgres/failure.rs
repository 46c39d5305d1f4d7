//! Why a PostgreSQL statement failed, said without any value it carried: the driver's
//! errors in one line (never a DETAIL, never the connection string), and the fix where no
//! retry of the service can get past it.

use deadpool_postgres::PoolError;
use tokio_postgres::error::SqlState;

use super::STATEMENT_TIMEOUT;
use crate::store::Unavailable;

/// Why a statement did not give its rows.
pub(super) enum Failure {
    Pool(PoolError),
    Db(tokio_postgres::Error),
    Timeout,
}

impl Failure {
    pub(super) fn describe(&self) -> String {
        match self {
            Failure::Pool(PoolError::Backend(e)) | Failure::Db(e) => describe(e),
            Failure::Pool(PoolError::Timeout(_)) => {
                "no connection to PostgreSQL in time".to_owned()
            }
            Failure::Pool(e) => e.to_string(),
            Failure::Timeout => format!("no answer in {} s", STATEMENT_TIMEOUT.as_secs()),
        }
    }

    /// Whether the server rolled the statement back whole for a reason that passes: a
    /// serialization failure (REPEATABLE READ or SERIALIZABLE as the default isolation) or a
    /// deadlock. Nothing changed; the statement is run again after a short pause.
    pub(super) fn passing(&self) -> bool {
        matches!(self, Failure::Db(e) if is_passing(e))
    }

    /// What fixes it when no retry of the service can get past it (a server error only).
    pub(super) fn stuck_fix(&self) -> Option<&'static str> {
        match self {
            Failure::Db(e) => stuck_fix(e),
            _ => None,
        }
    }
}

/// A serialization failure or a deadlock: the statement's transaction rolled back whole.
pub(super) fn is_passing(error: &tokio_postgres::Error) -> bool {
    error.code().is_some_and(|code| {
        code == &SqlState::T_R_SERIALIZATION_FAILURE || code == &SqlState::T_R_DEADLOCK_DETECTED
    })
}

/// A failure as the 503 it answers, with the fix when every retry would fail the same way.
pub(super) fn unavailable(failure: &Failure) -> Unavailable {
    Unavailable(match failure.stuck_fix() {
        Some(fix) => format!(
            "{}; every retry will fail the same way: {fix}",
            failure.describe()
        ),
        None => failure.describe(),
    })
}

/// A driver error in one line: the SQLSTATE, severity and message of a server error (never its
/// DETAIL, which may quote a value such as an event id), or what failed and why.
pub(super) fn describe(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return format!("{} {}: {}", db.code().code(), db.severity(), db.message());
    }
    match std::error::Error::source(error) {
        Some(source) => format!("{error}: {source}"),
        None => error.to_string(),
    }
}

/// Why the connection string does not parse, without any part of its value. tokio-postgres's
/// "invalid value for option `port`" names one of its own keys (a fixed word), and is kept;
/// its "unknown option `X`" quotes a word of the string, which may be part of a password (an
/// unquoted space in `password=...` makes the rest a key): its name is never printed.
pub(super) fn describe_parse(error: &tokio_postgres::Error) -> String {
    match std::error::Error::source(error).map(ToString::to_string) {
        Some(why) if why.starts_with("invalid value for option") => why,
        Some(why) if why.starts_with("unknown option") => {
            "a key tokio-postgres does not read (its name is not printed: it may be part of a \
             password; quote a value that holds a space, 'like this', or percent-encode it in a URL)"
                .to_owned()
        }
        _ => "it does not parse".to_owned(),
    }
}

/// What fixes a failure no retry of the service can get past, by its SQLSTATE.
fn stuck_fix(error: &tokio_postgres::Error) -> Option<&'static str> {
    let code = error.code()?;
    if code == &SqlState::READ_ONLY_SQL_TRANSACTION {
        Some(
            "the database is read-only (a standby, as after a failover, or default_transaction_read_only = on): connect to the primary",
        )
    } else if code == &SqlState::INSUFFICIENT_PRIVILEGE {
        Some(
            "this role may not write the receiver's tables: GRANT SELECT, INSERT, UPDATE on the tables events, payments, quarantine, orders and fulfilment, SELECT on schema, and USAGE on the quarantine id sequence to it",
        )
    } else if code == &SqlState::UNDEFINED_TABLE {
        Some(
            "a table of the receiver is missing (dropped, or another search_path): restart the receiver, which creates it",
        )
    } else {
        None
    }
}
