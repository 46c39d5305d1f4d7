//! The check of the PostgreSQL tables at start, as the npm package's `postgresStore` makes
//! it: the database's encoding is UTF8 and the columns have the types the statements depend
//! on (`CREATE TABLE IF NOT EXISTS` keeps a table made earlier, whose types may differ: a
//! text `status_version` would compare as text, 9 after 10).

use tokio_postgres::Row;

// The types the statements depend on (format_type's names); empty: any type. Ids are text,
// versions an unbounded numeric, the body bytea, data json, times timestamptz (a timestamp
// without time zone is read in each session's TimeZone: two instances set differently would
// each see the other's lease as run out, and both handle a payment). As the npm store's.
const TEXT: &[&str] = &["text", "character varying"];
const TIME: &[&str] = &["timestamp with time zone"];
const NUMERIC: &[&str] = &["numeric"];
const ANY: &[&str] = &[];
type Columns = &'static [(&'static str, &'static [&'static str])];
const COLUMNS: &[(&str, Columns)] = &[
    (
        "events",
        &[
            ("event_id", TEXT),
            ("payment_id", TEXT),
            ("status_version", NUMERIC),
            ("decision", ANY),
            ("received_at", TIME),
            ("body", &["bytea"]),
            ("integration", TEXT),
            ("secret_kind", TEXT),
        ],
    ),
    (
        "payments",
        &[
            ("payment_id", TEXT),
            ("status_version", NUMERIC),
            ("event_id", TEXT),
            ("data", &["json"]),
            ("updated_at", TIME),
            ("integration", TEXT),
            ("handled_version", NUMERIC),
        ],
    ),
    (
        "quarantine",
        &[
            ("id", ANY),
            ("received_at", TIME),
            ("code", ANY),
            ("body", &["bytea"]),
        ],
    ),
    (
        "orders",
        &[
            ("payment_id", TEXT),
            ("order_ref", TEXT),
            ("source_amount", &["json"]),
            ("integration", TEXT),
            ("created_at", TIME),
        ],
    ),
    (
        "fulfilment",
        &[
            ("payment_id", TEXT),
            ("handled_version", NUMERIC),
            ("outcome", TEXT),
            ("code", TEXT),
            ("settled", &["boolean"]),
            ("seen_at", TIME),
            ("attempts", ANY),
            ("next_attempt_at", TIME),
            ("lease_owner", TEXT),
            ("lease_until", TIME),
            ("updated_at", TIME),
            ("fulfil_version", NUMERIC),
            ("recheck_at", TIME),
        ],
    ),
    ("schema", &[("name", TEXT), ("version", ANY)]),
];

// The column each table's ON CONFLICT names: a primary key (or unique) of its own.
const KEYS: &[(&str, &str)] = &[
    ("events", "event_id"),
    ("payments", "payment_id"),
    ("orders", "payment_id"),
    ("fulfilment", "payment_id"),
    ("schema", "name"),
];

// The columns the statements never write on insert, left to the table's default.
const DEFAULTED: &[(&str, &[&str])] = &[
    ("events", &["received_at"]),
    ("payments", &["updated_at"]),
    ("quarantine", &["id", "received_at"]),
    ("orders", &["created_at"]),
    (
        "fulfilment",
        &["settled", "seen_at", "attempts", "updated_at"],
    ),
];

/// A row of the `columns` statement: a column of a table, or a table with no column (missing).
pub struct Column {
    encoding: Option<String>,
    suffix: String,
    pub name: Option<String>,
    type_name: Option<String>,
    defaulted: Option<bool>,
    keyed: Option<bool>,
}

impl From<&Row> for Column {
    fn from(row: &Row) -> Column {
        let text = |i: usize| row.try_get::<_, Option<String>>(i).ok().flatten();
        let flag = |i: usize| row.try_get::<_, Option<bool>>(i).ok().flatten();
        Column {
            encoding: text(0),
            suffix: text(1).unwrap_or_default(),
            name: text(2),
            type_name: text(3),
            defaulted: flag(4),
            keyed: flag(5),
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
                    if KEYS.contains(&(suffix, name)) && column.keyed == Some(false) {
                        problems.push(format!(
                            "cryptopay_{suffix}.{name} is neither a primary key nor unique on its own (the \
                             statements insert ON CONFLICT ({name}): without it every one fails)"
                        ));
                    }
                    let defaulted = DEFAULTED
                        .iter()
                        .any(|(table, names)| table == suffix && names.contains(name));
                    if defaulted && column.defaulted == Some(false) {
                        problems.push(format!(
                            "cryptopay_{suffix}.{name} has no default (the statements leave it to the \
                             table's, as the schema declares it: without, it holds NULL)"
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

#[cfg(test)]
mod tests {
    use super::*;

    // The columns of a schema made as sql/postgres.sql makes it.
    fn schema() -> Vec<Column> {
        let mut found = Vec::new();
        for (suffix, columns) in COLUMNS {
            for (name, types) in *columns {
                found.push(Column {
                    encoding: Some("UTF8".to_owned()),
                    suffix: (*suffix).to_owned(),
                    name: Some((*name).to_owned()),
                    type_name: Some(types.first().copied().unwrap_or("integer").to_owned()),
                    defaulted: Some(true),
                    keyed: Some(true),
                });
            }
        }
        found
    }

    fn column<'a>(found: &'a mut [Column], suffix: &str, name: &str) -> &'a mut Column {
        found
            .iter_mut()
            .find(|c| c.suffix == suffix && c.name.as_deref() == Some(name))
            .unwrap()
    }

    #[test]
    fn every_table_the_loop_writes_is_checked() {
        assert_eq!(check_columns(&schema()), Ok(()));
        let mut found = schema();
        column(&mut found, "fulfilment", "lease_until").type_name =
            Some("timestamp without time zone".to_owned());
        column(&mut found, "orders", "payment_id").keyed = Some(false);
        column(&mut found, "fulfilment", "seen_at").defaulted = Some(false);
        let error = check_columns(&found).unwrap_err();
        assert!(
            error.contains("cryptopay_fulfilment.lease_until is timestamp without time zone, expected timestamp with time zone"),
            "{error}"
        );
        assert!(
            error.contains("cryptopay_orders.payment_id is neither a primary key nor unique"),
            "{error}"
        );
        assert!(
            error.contains("cryptopay_fulfilment.seen_at has no default"),
            "{error}"
        );
        found.retain(|c| c.suffix != "schema");
        assert!(
            check_columns(&found)
                .unwrap_err()
                .contains("no such table: cryptopay_schema")
        );
    }
}
