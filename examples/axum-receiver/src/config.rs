//! The configuration the example reads from its environment (see main.rs): every error names
//! the variable, never its value.

use cryptopay_verify::{Secret, SecretEntry, SecretSet};

/// A variable's value, `None` when it is not set. One that is not UTF-8 is an error naming the
/// variable only (std's error would print the value: a secret, perhaps).
pub fn optional(name: &str) -> Result<Option<String>, String> {
    match std::env::var(name) {
        Ok(value) => Ok(Some(value)),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => Err(format!("{name} is not valid UTF-8")),
    }
}

/// A variable that must be set.
fn env(name: &str) -> Result<String, String> {
    optional(name)?.ok_or_else(|| format!("{name} is not set"))
}

/// A secret from the environment: white space or quotes around it (a pasted newline, a secret
/// file's last line, an env file's or a YAML value's quotes) would be hashed as part of the
/// key, and every delivery refused.
fn secret(name: &str, value: String) -> Result<Secret, String> {
    if value.is_empty() {
        return Err(format!(
            "{name} is set but empty (a blank line of an env file?): give the secret, or unset it"
        ));
    }
    let secret = Secret::from(value);
    if secret.has_surrounding_whitespace() {
        return Err(format!(
            "{name} starts or ends with white space (a pasted space or newline): remove it"
        ));
    }
    if secret.is_quoted() {
        return Err(format!(
            "{name} is wrapped in quotes (an env file or a YAML value kept them): remove them"
        ));
    }
    Ok(secret)
}

/// `BODY_TIMEOUT_SECS`: how long a delivery's whole body may take to arrive (default 30, from
/// 1 to 600). Neither axum nor hyper bounds a body's read, so without it a sender that stops
/// mid-body holds its connection for as long as it likes. The server gives a request's headers
/// as long, and closes a keep-alive connection idle that long (`shutdown::serve`).
pub fn body_timeout() -> Result<std::time::Duration, String> {
    let Some(value) = optional("BODY_TIMEOUT_SECS")? else {
        return Ok(std::time::Duration::from_secs(30));
    };
    match value.parse::<u64>() {
        Ok(secs @ 1..=600) => Ok(std::time::Duration::from_secs(secs)),
        _ => Err(
            "BODY_TIMEOUT_SECS is a whole number of seconds from 1 to 600 (default 30)".to_owned(),
        ),
    }
}

/// The service's two header names: both valid header names, and not the same one.
pub fn header_names() -> Result<(String, String), String> {
    let names = (env("TIMESTAMP_HEADER")?, env("SIGNATURE_HEADER")?);
    // At start-up, not at each delivery (where it would answer every one 500).
    // The crate names its parameters; these variables hold them.
    cryptopay_verify::validate_header_names(&names.0, &names.1).map_err(|e| {
        e.to_string()
            .replace("timestamp_header", "TIMESTAMP_HEADER")
            .replace("signature_header", "SIGNATURE_HEADER")
    })?;
    Ok(names)
}

/// The secret set: `CRYPTOPAY_WEBHOOK_SECRET`, and during a rotation
/// `CRYPTOPAY_WEBHOOK_SECRET_PENDING`, or `CRYPTOPAY_WEBHOOK_SECRET_RETIRING` with
/// `CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL`.
pub fn secrets() -> Result<SecretSet, String> {
    let active = "CRYPTOPAY_WEBHOOK_SECRET";
    let mut entries = vec![SecretEntry::active(secret(active, env(active)?)?)];
    let pending = "CRYPTOPAY_WEBHOOK_SECRET_PENDING";
    if let Some(value) = optional(pending)? {
        entries.push(SecretEntry::pending(secret(pending, value)?));
    }
    let retiring = "CRYPTOPAY_WEBHOOK_SECRET_RETIRING";
    match (
        optional(retiring)?,
        optional("CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL")?,
    ) {
        (Some(value), Some(until)) => {
            // Seconds, as the timestamps are: 13 digits or more is milliseconds.
            let until = until
                .parse::<u64>()
                .ok()
                .filter(|secs| *secs < 1_000_000_000_000)
                .ok_or("CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL is a Unix time in seconds")?;
            entries.push(SecretEntry::retiring(secret(retiring, value)?, until));
        }
        (None, None) => {}
        _ => {
            return Err(
                "a retiring secret needs both CRYPTOPAY_WEBHOOK_SECRET_RETIRING and \
                 CRYPTOPAY_WEBHOOK_SECRET_RETIRING_UNTIL"
                    .to_owned(),
            );
        }
    }
    SecretSet::new(entries).map_err(|e| format!("the secrets: {e}"))
}

/// The SQLite file, `DATABASE`, read when `DATABASE_URL` is not set (set but empty, as a blank line of an env file leaves it, is
/// unset: `receiver.db`). Refused, never printed: a URL (PostgreSQL's goes in `DATABASE_URL`;
/// this one's value would be printed as a file's name, password and all), and an in-memory
/// database, which would lose every event acknowledged at the next stop.
pub fn database_file() -> Result<String, String> {
    let file = optional("DATABASE")?
        .filter(|file| !file.is_empty())
        .unwrap_or_else(|| "receiver.db".to_owned());
    let uri = file.to_ascii_lowercase();
    // A SQLite URI (`file:///var/lib/rx/receiver.db`) is a file's path.
    if file.contains("://") && !uri.starts_with("file:") {
        return Err(
            "DATABASE is the path of a SQLite file; a PostgreSQL URL goes in DATABASE_URL (the value is not printed)"
                .to_owned(),
        );
    }
    if file == ":memory:"
        || uri.starts_with("file::memory:")
        || (uri.starts_with("file:") && (uri.contains("mode=memory") || uri.contains("vfs=memdb")))
    {
        return Err(
            "DATABASE names an in-memory SQLite database, which loses every event acknowledged when the \
             process stops: give a file's path"
                .to_owned(),
        );
    }
    Ok(file)
}
