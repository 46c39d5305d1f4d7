//! The statements, read from the npm package's own files (one source of truth):
//! `sql/postgres.sql` and `sql/sqlite.sql`, compiled in, split at start into their
//! `-- statement: NAME` sections exactly as `scripts/build-receiver.mjs` splits them for the
//! npm package (comment lines and blank lines dropped, a trailing ` -- comment` cut; a section
//! that is several statements split where a line ends with `;`).

/// The PostgreSQL file, as the npm package's build reads it.
const POSTGRES_SQL: &str = include_str!("../../../../sql/postgres.sql");
/// The SQLite file (SQLite files, libsql and D1 in the npm package), as its build reads it.
const SQLITE_SQL: &str = include_str!("../../../../sql/sqlite.sql");

/// The sections every dialect has.
const COMMON: &[&str] = &[
    "tables",
    "version",
    "schema",
    "check",
    "writable",
    "columns",
    "record",
    "quarantine",
    "quarantine_due",
    "order",
    "order_read",
    "claim",
    "load",
    "complete",
    "retry",
    "release",
    "intend",
    "renew",
];
/// The sections only SQLite has (it runs some steps as several statements).
const SQLITE_ONLY: &[&str] = &[
    "migrate_1",
    "migrate_2",
    "migrate_4",
    "foreign",
    "apply",
    "order_mark",
    "order_unheld",
    "order_state",
    "claim_fresh",
    "load_renew",
    "complete_mark",
];

/// The statements of one file, by section name.
#[derive(Debug)]
pub struct Statements {
    sections: Vec<(String, String)>,
}

impl Statements {
    /// The statements of `sql/postgres.sql`; an error names a section that is missing.
    pub fn postgres() -> Result<Statements, String> {
        Statements::parse(POSTGRES_SQL, "postgres", COMMON)
    }

    /// The statements of `sql/sqlite.sql`; an error names a section that is missing.
    pub fn sqlite() -> Result<Statements, String> {
        let mut names = COMMON.to_vec();
        names.extend_from_slice(SQLITE_ONLY);
        Statements::parse(SQLITE_SQL, "sqlite", &names)
    }

    fn parse(text: &str, dialect: &str, required: &[&str]) -> Result<Statements, String> {
        let sections: Vec<(String, String)> = sections(text)
            .into_iter()
            .map(|(name, body)| (name.to_owned(), body))
            .collect();
        for name in required {
            let found = sections
                .iter()
                .any(|(found, body)| found == name && !split(body).is_empty());
            if !found {
                return Err(format!(
                    "sql/{dialect}.sql has no \"-- statement: {name}\" section"
                ));
            }
        }
        Ok(Statements { sections })
    }

    /// A section whole (PostgreSQL's `schema`, run as one simple query).
    pub fn whole(&self, name: &str) -> &str {
        self.sections
            .iter()
            .find(|(found, _)| found == name)
            .map_or("", |(_, body)| body.as_str())
    }

    /// A section's first (or only) statement.
    pub fn one(&self, name: &str) -> String {
        split(self.whole(name))
            .into_iter()
            .next()
            .unwrap_or_default()
    }

    /// A section's statements, in order.
    pub fn all(&self, name: &str) -> Vec<String> {
        split(self.whole(name))
    }
}

/// The statements of a section: split where a line ends with `;`, each trimmed.
fn split(body: &str) -> Vec<String> {
    body.split(";\n")
        .map(|s| s.strip_suffix(';').unwrap_or(s).trim())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The `-- statement: NAME` sections, in order, each its lines joined by `\n`.
fn sections(text: &str) -> Vec<(&str, String)> {
    let mut sections: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.split('\n') {
        if let Some(name) = statement_name(line) {
            sections.push((name, Vec::new()));
        } else if let Some((_, lines)) = sections.last_mut() {
            let trimmed = line.trim_start();
            if !(trimmed.is_empty() || trimmed.starts_with("--")) {
                lines.push(cut_comment(line).trim_end());
            }
        }
    }
    sections
        .into_iter()
        .map(|(name, lines)| (name, lines.join("\n")))
        .collect()
}

/// `NAME` of a line `-- statement: NAME` (a lower-case letter or underscore, then lower-case
/// letters, digits and underscores, as the build's `[a-z_][a-z0-9_]*`).
fn statement_name(line: &str) -> Option<&str> {
    let name = line.strip_prefix("-- statement: ")?.trim_end();
    let mut bytes = name.bytes();
    let first = bytes.next()?;
    let valid = (first.is_ascii_lowercase() || first == b'_')
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    valid.then_some(name)
}

/// The line without a trailing comment: from the first run of white space followed by `--`
/// and a white space character (as the build's `/\s+--\s.*$/`).
fn cut_comment(line: &str) -> &str {
    let mut run_start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            run_start.get_or_insert(i);
            continue;
        }
        if let Some(start) = run_start.take() {
            let rest = line.get(i..).unwrap_or("");
            let after = rest.strip_prefix("--");
            if after.is_some_and(|after| after.starts_with(char::is_whitespace)) {
                return line.get(..start).unwrap_or(line);
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packaged_files_have_every_statement() {
        let sql = Statements::postgres().unwrap();
        // Its timeouts first (the advisory lock is waited for 5 s at most), then the lock.
        let schema = sql.whole("schema");
        assert!(schema.starts_with("SELECT set_config('cryptopay.lock_timeout'"));
        let lock = schema.find("SELECT pg_advisory_xact_lock(").unwrap();
        assert!(
            schema
                .find("set_config('lock_timeout', '5s', true)")
                .unwrap()
                < lock
        );
        assert!(
            sql.whole("schema")
                .contains("CREATE TABLE IF NOT EXISTS cryptopay_fulfilment")
        );
        let record = sql.one("record");
        assert!(record.starts_with("WITH incoming AS ("));
        assert!(record.contains("$3::numeric") && record.contains("$7::text"));
        assert!(record.ends_with("SELECT decision FROM foreign_payment"));
        for name in COMMON.iter().filter(|n| **n != "schema") {
            let statement = sql.one(name);
            assert!(
                !statement.contains("--") && !statement.contains(';'),
                "{name}: {statement}"
            );
        }
        let sqlite = Statements::sqlite().unwrap();
        assert!(sqlite.all("schema").len() > 8);
        assert!(sqlite.all("migrate_1")[0].starts_with("ALTER TABLE cryptopay_events ADD COLUMN"));
        assert!(sqlite.one("apply").starts_with("WITH incoming (event_id"));
        assert!(
            sqlite
                .one("claim_fresh")
                .starts_with("INSERT INTO cryptopay_fulfilment (payment_id)")
        );
    }

    #[test]
    fn comments_are_cut_as_the_build_cuts_them() {
        assert_eq!(cut_comment("SELECT 1 -- one"), "SELECT 1");
        assert_eq!(cut_comment("SELECT '--x' --\tnote"), "SELECT '--x'");
        assert_eq!(
            cut_comment("SELECT 1--not a comment"),
            "SELECT 1--not a comment"
        );
        assert_eq!(cut_comment("  a  --"), "  a  --");
        assert_eq!(statement_name("-- statement: migrate_1"), Some("migrate_1"));
        assert_eq!(statement_name("-- statement: 1st"), None);
    }

    #[test]
    fn a_missing_section_is_named() {
        let text =
            "-- statement: schema\nCREATE TABLE t (a int);\n-- statement: check\nSELECT 1;\n";
        let error = Statements::parse(text, "postgres", COMMON).unwrap_err();
        assert!(error.contains("\"-- statement: tables\""), "{error}");
    }
}
