//! The check of the PostgreSQL tables at start, as the npm package's `postgresStore` makes
//! it: the database's encoding is UTF8 and the columns have the types the statements depend
//! on (`CREATE TABLE IF NOT EXISTS` keeps a table made earlier, whose types may differ: a
//! text `status_version` would compare as text, 9 after 10).

use tokio_postgres::Row;

// The types the statements depend on (format_type's names); empty: any type.
const TEXT: &[&str] = &["text", "character varying"];
const ANY: &[&str] = &[];
type Columns = &'static [(&'static str, &'static [&'static str])];
const COLUMNS: &[(&str, Columns)] = &[
    (
        "events",
        &[
            ("event_id", TEXT),
            ("payment_id", TEXT),
            ("status_version", &["numeric"]),
            ("decision", ANY),
            ("received_at", ANY),
            ("body", &["bytea"]),
        ],
    ),
    (
        "payments",
        &[
            ("payment_id", TEXT),
            ("status_version", &["numeric"]),
            ("event_id", TEXT),
            ("data", &["json"]),
            ("updated_at", ANY),
        ],
    ),
    (
        "quarantine",
        &[
            ("id", ANY),
            ("received_at", ANY),
            ("code", ANY),
            ("body", &["bytea"]),
        ],
    ),
];

/// A row of the `columns` statement: a column of a table, or a table with no column (missing).
pub struct Column {
    encoding: Option<String>,
    suffix: String,
    pub name: Option<String>,
    type_name: Option<String>,
}

impl From<&Row> for Column {
    fn from(row: &Row) -> Column {
        let text = |i: usize| row.try_get::<_, Option<String>>(i).ok().flatten();
        Column {
            encoding: text(0),
            suffix: text(1).unwrap_or_default(),
            name: text(2),
            type_name: text(3),
        }
    }
}

/// The database is UTF8 and the tables have the types the statements depend on; else an error
/// naming every table, column and type that differs.
pub fn check_columns(found: &[Column]) -> Result<(), String> {
    let encoding = found.first().and_then(|c| c.encoding.as_deref());
    if encoding != Some("UTF8") {
        return Err(format!(
            "PostgreSQL: the database's server_encoding is {}, not UTF8: ids and data are UTF-8 text. Create the \
             database with ENCODING 'UTF8' (CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0) and connect to it",
            encoding.unwrap_or("unknown")
        ));
    }
    let mut problems = Vec::new();
    for (suffix, columns) in COLUMNS {
        let have: Vec<&Column> = found
            .iter()
            .filter(|c| c.suffix == *suffix && c.name.is_some())
            .collect();
        if have.is_empty() {
            problems.push(format!("no such table: cryptopay_{suffix}"));
            continue;
        }
        for (name, types) in *columns {
            match have.iter().find(|c| c.name.as_deref() == Some(name)) {
                None => problems.push(format!("cryptopay_{suffix}.{name} is missing")),
                Some(column) => {
                    let type_name = column.type_name.as_deref().unwrap_or("");
                    if let Some(expected) = types.first().filter(|_| !types.contains(&type_name)) {
                        problems.push(format!(
                            "cryptopay_{suffix}.{name} is {type_name}, expected {expected}"
                        ));
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!(
        "PostgreSQL: {}. The receiver's statements need the types of schema/postgres.sql: ALTER the columns \
         (e.g. ALTER TABLE ... ALTER COLUMN status_version TYPE numeric USING status_version::numeric)",
        problems.join("; ")
    ))
}
